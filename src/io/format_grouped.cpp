// Grouped hull files (wagener hull --group-by): each vertex with its group's id, group after group.
// A group's text depends on nothing but the group and whether it is the first, so threads format
// blocks of whole groups into buffers of their own and the blocks are appended in order, as the
// single hull's formats are (format_output.cpp): the same bytes for any number of threads.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/parallel_slices.hpp"
#include "io/decimal.hpp"
#include "io/json_text.hpp"
#include "io/ordered_blocks.hpp"
#include "io/output_file.hpp"
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
/// or '#' (which would start a comment), or is empty; the file's first field (`starts_file`) also
/// when it starts like a byte-order mark.
void append_csv_field(std::string& out, std::string_view text, bool starts_file = false) {
  if (!text.empty() && text.find_first_of(",\"#") == std::string_view::npos &&
      !(starts_file && starts_like_byte_order_mark(text))) {
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

/// Text output separates fields by blanks: an id must be one non-empty token.
void require_text_token(std::string_view id) {
  if (id.empty() || id.find_first_of(" \t\r\v\f#") != std::string_view::npos) {
    throw std::invalid_argument("group id \"" + std::string(id) +
                                "\" is empty or holds a blank or '#': text output cannot hold it; use "
                                "--output-format csv or json");
  }
}

// What comes before the groups, after checking that the request can be written whole (so that a
// refused one leaves no file behind).
template <class T>
std::string grouped_head(const GroupedOutput<T>& hulls, const OutputOptions& options) {
  if (hulls.offsets.size() != hulls.ids.size() + 1)
    throw std::invalid_argument("grouped output needs groups + 1 offsets");
  std::string head;
  switch (options.format) {
    case OutputFormat::csv:
      append_csv_field(
          head, hulls.id_header.empty() ? std::string_view("id") : std::string_view(hulls.id_header), true);
      head += hulls.with_indices ? ",index\n" : ",x,y\n";
      return head;
    case OutputFormat::json: return "{";
    case OutputFormat::text:
      for (const std::string& id : hulls.ids) require_text_token(id);
      return head;
    default:
      throw std::invalid_argument("--output-format " + std::string(output_format_name(options.format)) +
                                  " cannot hold group ids: use csv, text or json");
  }
}

std::string_view grouped_tail(const OutputOptions& options) {
  return options.format == OutputFormat::json ? "}\n" : "";
}

// Group g's text, appended to out.
template <class T>
void append_group(std::string& out, const GroupedOutput<T>& hulls, std::size_t g, OutputFormat format) {
  const std::string_view id = hulls.ids[g];
  const auto begin = static_cast<std::size_t>(hulls.offsets[g]);
  const auto end = static_cast<std::size_t>(hulls.offsets[g + 1]);
  if (format == OutputFormat::json) {
    if (g > 0) out += ',';
    detail::append_json_string(out, id);
    out += ":[";
    for (std::size_t v = begin; v < end; ++v) {
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
    }
    out += ']';
    return;
  }
  const char separator = format == OutputFormat::csv ? ',' : ' ';
  for (std::size_t v = begin; v < end; ++v) {
    if (format == OutputFormat::csv) {
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
}

// Blocks of whole groups, each of this many vertices or more (a larger group is a block of its own,
// as are the last groups): a block's text, a few hundred KiB, stays in cache on its way out.
constexpr std::int64_t kVerticesPerBlock = std::int64_t{1} << 13;
// Below this many vertices per thread, starting a thread costs more than formatting them.
constexpr std::size_t kMinVerticesPerThread = std::size_t{1} << 15;

// The first group of each block, then the number of groups.
std::vector<std::size_t> group_blocks(std::span<const std::int64_t> offsets) {
  std::vector<std::size_t> firsts = {0};
  const std::size_t groups = offsets.size() - 1;
  for (std::size_t g = 0; g < groups; ++g) {
    if (offsets[g + 1] - offsets[firsts.back()] >= kVerticesPerBlock) firsts.push_back(g + 1);
  }
  if (firsts.back() != groups) firsts.push_back(groups);
  return firsts;
}

// The groups' text to append(bytes), in order, formatted on all cores.
template <class T, class Append>
void emit_groups(const GroupedOutput<T>& hulls, const OutputOptions& options, const Append& append) {
  const std::vector<std::size_t> firsts = group_blocks(hulls.offsets);
  const auto vertices = static_cast<std::size_t>(hulls.offsets.back() - hulls.offsets.front());
  const auto make_formatter = [&] {
    return [&, text = std::string()](std::uint64_t block) mutable {
      text.clear();
      for (std::size_t g = firsts[block]; g < firsts[block + 1]; ++g)
        append_group(text, hulls, g, options.format);
      return std::string_view(text);
    };
  };
  detail::produce_blocks(
      firsts.size() - 1, detail::slice_count(vertices, detail::resolve_threads(0), kMinVerticesPerThread),
      /*ordered=*/true, make_formatter, [&](std::uint64_t, std::string_view bytes) { append(bytes); });
}

}  // namespace

template <class T>
std::string format_grouped_hulls(const GroupedOutput<T>& hulls, const OutputOptions& options) {
  std::string out = grouped_head(hulls, options);
  emit_groups(hulls, options, [&](std::string_view bytes) { out += bytes; });
  out += grouped_tail(options);
  return out;
}

template <class T>
void write_grouped_hulls(const std::string& path, const GroupedOutput<T>& hulls,
                         const OutputOptions& options) {
  const std::string head = grouped_head(hulls, options);
  detail::OutputFile file(path);
  file.append(head);
  emit_groups(hulls, options, [&](std::string_view bytes) { file.append(bytes); });
  file.append(grouped_tail(options));
  file.commit();
}

#define WAGENER_INSTANTIATE(T)                                                              \
  template std::string format_grouped_hulls(const GroupedOutput<T>&, const OutputOptions&); \
  template void write_grouped_hulls(const std::string&, const GroupedOutput<T>&, const OutputOptions&);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener
