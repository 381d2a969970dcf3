// Writing traces of Wagener's rounds: the seed's show_current_hoods stream, and JSON.
#include "wagener/trace.hpp"

#include <stdexcept>
#include <string>
#include <type_traits>

#include "io/decimal.hpp"
#include "io/path_suffix.hpp"

namespace wagener {
namespace {

// Shortest round-trip decimal (integers whole), as in point files, so that a trace reads back to the
// very same values.
template <class T>
void append_number(std::string& out, T value) {
  char buffer[detail::kMaxDecimalChars<T>];
  out.append(buffer, detail::write_decimal(buffer, value));
}

void append_int(std::string& out, long long value) {
  out += std::to_string(value);
}

template <class T>
void append_pair(std::string& out, const Point2<T>& p, char separator) {
  append_number(out, p.x);
  out += separator;
  append_number(out, p.y);
}

template <class T>
constexpr const char* precision_name() {
  if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  return sizeof(T) == sizeof(float) ? "float" : "double";
}

}  // namespace

std::string_view chain_name(Chain chain) {
  return chain == Chain::upper ? "upper" : "lower";
}

TraceFormat parse_trace_format(std::string_view name) {
  if (name == "text") return TraceFormat::text;
  if (name == "json") return TraceFormat::json;
  if (name == "html") return TraceFormat::html;
  throw std::invalid_argument("unknown trace format \"" + std::string(name) + "\" (text, json, html)");
}

TraceFormat guess_trace_format(std::string_view path) {
  using detail::ends_with_ignoring_case;
  if (ends_with_ignoring_case(path, ".json")) return TraceFormat::json;
  if (ends_with_ignoring_case(path, ".html") || ends_with_ignoring_case(path, ".htm"))
    return TraceFormat::html;
  return TraceFormat::text;
}

template <class T>
std::span<const Point2<T>> TraceRound<T>::hood(std::size_t k) const {
  index_t first = 0;
  for (std::size_t i = 0; i < k; ++i) first += hood_sizes[i];
  return std::span<const Point2<T>>(corners).subspan(static_cast<std::size_t>(first),
                                                     static_cast<std::size_t>(hood_sizes[k]));
}

void TraceSink::on_round(const TraceRound<float>&) {
  throw std::logic_error("this trace sink does not take float rounds");
}
void TraceSink::on_round(const TraceRound<double>&) {
  throw std::logic_error("this trace sink does not take double rounds");
}
void TraceSink::on_round(const TraceRound<std::int32_t>&) {
  throw std::logic_error("this trace sink does not take int32 rounds");
}
void TraceSink::on_round(const TraceRound<std::int64_t>&) {
  throw std::logic_error("this trace sink does not take int64 rounds");
}

template <class T>
std::string format_trace_text(std::span<const TraceRound<T>> rounds, index_t points) {
  std::string out = "# wagener trace: ";
  append_int(out, points);
  out += " points, precision ";
  out += precision_name<T>();
  out += '\n';
  for (const auto& r : rounds) {
    out += "# chain ";
    out += chain_name(r.chain);
    out += " round ";
    append_int(out, r.round);
    out += " width ";
    append_int(out, r.block_width);
    out += '\n';
    // The seed's layout: the number of hoods, then each hood's size followed by its corners.
    append_int(out, static_cast<long long>(r.hood_sizes.size()));
    out += '\n';
    std::size_t next = 0;
    for (const index_t size : r.hood_sizes) {
      append_int(out, size);
      out += '\n';
      for (index_t i = 0; i < size; ++i, ++next) {
        append_pair(out, r.corners[next], ' ');
        out += '\n';
      }
    }
    for (const auto& b : r.bridges) {
      out += "# bridge ";
      append_int(out, b.hood);
      out += ' ';
      append_pair(out, b.a, ' ');
      out += ' ';
      append_pair(out, b.b, ' ');
      out += '\n';
    }
    out += '\n';
  }
  out += "0\n";  // the seed ends its trace with a round of no hoods
  return out;
}

template <class T>
std::string format_trace_json(std::span<const TraceRound<T>> rounds, index_t points) {
  std::string out = "{\"format\": \"wagener-trace\", \"version\": 1, \"points\": ";
  append_int(out, points);
  out += ", \"precision\": \"";
  out += precision_name<T>();
  out += "\",\n \"rounds\": [";
  for (std::size_t k = 0; k < rounds.size(); ++k) {
    const auto& r = rounds[k];
    out += k ? ",\n  {" : "\n  {";
    out += "\"chain\": \"";
    out += chain_name(r.chain);
    out += "\", \"round\": ";
    append_int(out, r.round);
    out += ", \"width\": ";
    append_int(out, r.block_width);
    out += ",\n   \"hoods\": [";
    std::size_t next = 0;
    for (std::size_t h = 0; h < r.hood_sizes.size(); ++h) {
      out += h ? ", [" : "[";
      for (index_t i = 0; i < r.hood_sizes[h]; ++i, ++next) {
        out += i ? ", [" : "[";
        append_pair(out, r.corners[next], ',');
        out += ']';
      }
      out += ']';
    }
    out += "],\n   \"bridges\": [";
    for (std::size_t i = 0; i < r.bridges.size(); ++i) {
      const auto& b = r.bridges[i];
      out += i ? ", {\"hood\": " : "{\"hood\": ";
      append_int(out, b.hood);
      out += ", \"a\": [";
      append_pair(out, b.a, ',');
      out += "], \"b\": [";
      append_pair(out, b.b, ',');
      out += "]}";
    }
    out += "]}";
  }
  out += "\n ]}\n";
  return out;
}

#define WAGENER_INSTANTIATE(T)                                                        \
  template struct TraceRound<T>;                                                      \
  template std::string format_trace_text<T>(std::span<const TraceRound<T>>, index_t); \
  template std::string format_trace_json<T>(std::span<const TraceRound<T>>, index_t);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener
