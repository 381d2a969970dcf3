// Text rows (text_parser.hpp): the helpers that run once a file or a header, out of the parsing loops.
#include "io/text_parser.hpp"

#include "wagener/error.hpp"

namespace wagener::reading {

bool same_name(std::string_view a, std::string_view b) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [&](char u, char v) { return lower(u) == lower(v); });
}

std::optional<index_t> column_index(std::string_view spec) {
  if (spec.empty() || !std::all_of(spec.begin(), spec.end(), is_digit)) return std::nullopt;
  index_t index = 0;
  if (std::from_chars(spec.data(), spec.data() + spec.size(), index).ec != std::errc()) return std::nullopt;
  return index;
}

std::string describe_columns(const std::vector<std::string>& names) {
  constexpr std::size_t kMaxShown = 32;
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < kMaxShown; ++i) {
    if (i != 0) out += ", ";
    out += std::to_string(i) + " " + quote(names[i]);
  }
  if (names.size() > kMaxShown) out += ", ... (" + std::to_string(names.size()) + " in all)";
  return out;
}

std::size_t estimated_lines(const char* begin, const char* end) {
  constexpr std::ptrdiff_t kSampleBytes = 1 << 16;
  constexpr double kHeadroom = 1.125;          // a file a little denser than its sample still fits
  constexpr std::ptrdiff_t kMinLineBytes = 4;  // "0 0\n"
  const std::ptrdiff_t size = end - begin;
  const std::ptrdiff_t sample = std::min(size, kSampleBytes);
  if (sample == 0) return 0;
  const auto lines_in_sample = static_cast<double>(std::count(begin, begin + sample, '\n') + 1);
  const double estimate =
      lines_in_sample * static_cast<double>(size) / static_cast<double>(sample) * kHeadroom;
  return static_cast<std::size_t>(std::min(estimate, static_cast<double>(size / kMinLineBytes + 1)));
}

void check_text_columns(const ColumnSelection& columns, std::string_view name) {
  for (const std::string& spec : {columns.x, columns.y}) {
    if (!spec.empty() && !column_index(trim(spec))) {
      throw input_error(std::string(name) + ": text input has no header to find column " + quote(trim(spec)) +
                        " in: select its columns by 0-based index");
    }
  }
}

std::string unescape_quotes(std::string_view quoted) {
  std::string text(quoted);
  for (std::size_t at = text.find("\"\""); at != std::string::npos; at = text.find("\"\"", at + 1))
    text.erase(at, 1);
  return text;
}

std::string_view skip_byte_order_mark(std::string_view data, std::string_view name) {
  if (data.starts_with(kUtf8Bom)) return data.substr(kUtf8Bom.size());
  if (data.starts_with("\xFF\xFE") || data.starts_with("\xFE\xFF")) {
    fail_at_line(name, 1,
                 "UTF-16 text (byte-order mark " + std::string(data[0] == '\xFF' ? "FF FE" : "FE FF") +
                     ") is not supported: save the file as UTF-8");
  }
  return data;
}

}  // namespace wagener::reading
