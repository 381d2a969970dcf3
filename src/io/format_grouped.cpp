// Grouped hull files (wagener hull --group-by): each vertex with its group's id, group after group.
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "io/decimal.hpp"
#include "wagener/output.hpp"

namespace wagener {
namespace {

template <class V>
void append_decimal(std::string& out, V value) {
  char buffer[detail::kMaxDecimalChars<V>];
  out.append(buffer, detail::write_decimal(buffer, value));
}

/// Whether text starts with a byte-order mark's bytes (UTF-8, or UTF-16 in either order), which a
/// reader takes for the mark when they open a file: skipped, or refused as UTF-16.
bool starts_like_byte_order_mark(std::string_view text) {
  return text.starts_with("\xEF\xBB\xBF") || text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF");
}

/// A csv field that reads back as `text`: quoted (quotes doubled) when it holds a comma, a quote
/// or '#' (which would start a comment), or is empty; the file's first field also when it starts
/// like a byte-order mark.
void append_csv_field(std::string& out, std::string_view text) {
  if (!text.empty() && text.find_first_of(",\"#") == std::string_view::npos &&
      !(out.empty() && starts_like_byte_order_mark(text))) {
    out += text;
    return;
  }
  out += '"';
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

void append_json_string(std::string& out, std::string_view text) {
  constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      out += "\\u00";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  out += '"';
}

/// Text output separates fields by blanks: an id must be one non-empty token.
void require_text_token(std::string_view id) {
  if (id.empty() || id.find_first_of(" \t\r\v\f#") != std::string_view::npos) {
    throw std::invalid_argument("group id \"" + std::string(id) +
                                "\" is empty or holds a blank or '#': text output cannot hold it; use "
                                "--output-format csv or json");
  }
}

}  // namespace

template <class T>
std::string format_grouped_hulls(const GroupedOutput<T>& hulls, const OutputOptions& options) {
  const std::size_t groups = hulls.ids.size();
  if (hulls.offsets.size() != groups + 1)
    throw std::invalid_argument("grouped output needs groups + 1 offsets");
  std::string out;
  const bool json = options.format == OutputFormat::json;
  if (options.format == OutputFormat::csv) {
    append_csv_field(out,
                     hulls.id_header.empty() ? std::string_view("id") : std::string_view(hulls.id_header));
    out += hulls.with_indices ? ",index\n" : ",x,y\n";
  } else if (json) {
    out += '{';
  } else if (options.format != OutputFormat::text) {
    throw std::invalid_argument("--output-format " + std::string(output_format_name(options.format)) +
                                " cannot hold group ids: use csv, text or json");
  }
  for (std::size_t g = 0; g < groups; ++g) {
    const std::string_view id = hulls.ids[g];
    const auto begin = static_cast<std::size_t>(hulls.offsets[g]);
    const auto end = static_cast<std::size_t>(hulls.offsets[g + 1]);
    if (json) {
      if (g > 0) out += ',';
      append_json_string(out, id);
      out += ":[";
    } else if (options.format == OutputFormat::text) {
      require_text_token(id);
    }
    for (std::size_t v = begin; v < end; ++v) {
      if (json) {
        if (v > begin) out += ',';
        if (hulls.with_indices) {
          append_decimal(out, hulls.indices[v]);
        } else {
          out += '[';
          append_decimal(out, hulls.vertices[v].x);
          out += ',';
          append_decimal(out, hulls.vertices[v].y);
          out += ']';
        }
        continue;
      }
      const char separator = options.format == OutputFormat::csv ? ',' : ' ';
      if (options.format == OutputFormat::csv) {
        append_csv_field(out, id);
      } else {
        out += id;
      }
      out += separator;
      if (hulls.with_indices) {
        append_decimal(out, hulls.indices[v]);
      } else {
        append_decimal(out, hulls.vertices[v].x);
        out += separator;
        append_decimal(out, hulls.vertices[v].y);
      }
      out += '\n';
    }
    if (json) out += ']';
  }
  if (json) out += "}\n";
  return out;
}

template std::string format_grouped_hulls(const GroupedOutput<float>&, const OutputOptions&);
template std::string format_grouped_hulls(const GroupedOutput<double>&, const OutputOptions&);

}  // namespace wagener
