// Reading point files: the public entry points (wagener/io.hpp), the choice of format and columns,
// and a text file read in pieces (point_pieces.hpp). Every byte of input is validated before a point
// reaches a hull: malformed, non-finite or out-of-range values and broken promises (--presorted) fail
// with one line naming the file and the line (text, csv) or byte offset (binary) to fix.
//
// Speed matters more here than anywhere else outside the hull itself: a file of 10^9 points is read
// once, so the bytes come in without a copy (input_bytes.hpp), binary files of the requested
// precision are returned as a zero-copy view of those bytes (binary_points.hpp), and text is parsed
// in place with std::from_chars (text_parser.hpp), in chunks on all cores when it is large
// (parallel_text.hpp).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "io/binary_points.hpp"
#include "io/input_bytes.hpp"
#include "io/parallel_text.hpp"
#include "io/path_suffix.hpp"
#include "io/point_pieces.hpp"
#include "io/read_errors.hpp"
#include "io/read_grouped.hpp"
#include "io/text_parser.hpp"
#include "wagener/error.hpp"
#include "wagener/io.hpp"

namespace wagener {

using namespace reading;

namespace {

template <class T>
PointSet<T> parse_resolved(std::string_view data, Format format, std::string_view name,
                           const ReadOptions& options) {
  const bool require_sorted = options.require_sorted;
  switch (format) {
    case Format::csv: return PointSet<T>(parse_text_points<T>(data, name, true, options));
    case Format::f32: return PointSet<T>(decode_binary<T, float>(data, require_sorted, name));
    case Format::f64: return PointSet<T>(decode_binary<T, double>(data, require_sorted, name));
    case Format::i32: return PointSet<T>(decode_binary<T, std::int32_t>(data, require_sorted, name));
    case Format::i64: return PointSet<T>(decode_binary<T, std::int64_t>(data, require_sorted, name));
    case Format::automatic:
    case Format::text: break;
  }
  return PointSet<T>(parse_text_points<T>(data, name, false, options));
}

// A selection names both columns or neither, and applies to text and csv only.
void check_selection(const ColumnSelection& columns, Format format, std::string_view name) {
  if (columns.x.empty() != columns.y.empty()) {
    throw std::invalid_argument("a column selection needs both the x and the y column");
  }
  if (!columns.empty() && is_binary_format(format)) {
    throw input_error(std::string(name) +
                      ": a column selection (--columns) applies to text and csv, not to binary " +
                      std::string(format_name(format)) + " input");
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Pieces of a file (src/io/point_pieces.hpp)

namespace detail {

template <class T>
struct TextPieceParser<T>::State {
  std::string name;
  bool csv = false;
  ColumnSelection columns;
  bool first_piece = true;
  bool preamble_read = false;
  reading::Preamble preamble;
  index_t lines = 0;  // lines of the pieces read so far
  index_t count_line = 0;
  typename reading::TextParser<T>::CountedProgress counted;
};

template <class T>
TextPieceParser<T>::TextPieceParser(std::string name, bool csv, ColumnSelection columns)
    : state_(std::make_unique<State>()) {
  state_->name = display_name(name);
  state_->csv = csv;
  state_->columns = std::move(columns);
  check_selection(state_->columns, csv ? Format::csv : Format::text, state_->name);
}

template <class T>
TextPieceParser<T>::~TextPieceParser() = default;

// Whether a piece has a line with something besides blanks and a comment: the preamble ends there.
bool has_content_line(std::string_view piece) {
  const char* p = piece.data();
  const char* const end = p + piece.size();
  while (p != end) {
    const void* newline = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    const char* e = newline != nullptr ? static_cast<const char*>(newline) : end;
    const char* first = skip_blanks(p, e);
    if (first != e && *first != '#') return true;
    p = e == end ? end : e + 1;
  }
  return false;
}

template <class T>
std::vector<Point2<T>> TextPieceParser<T>::parse(std::string_view piece) {
  State& st = *state_;
  if (st.first_piece) {
    st.first_piece = false;
    piece = skip_byte_order_mark(piece, st.name);
    if (!st.csv) check_text_columns(st.columns, st.name);
  }
  TextParser<T> parser(piece, st.name, false, st.lines);
  if (!st.preamble_read) {
    if (!has_content_line(piece)) {  // comments and blank lines only: the preamble goes on
      st.lines += static_cast<index_t>(std::count(piece.begin(), piece.end(), '\n'));
      if (!piece.empty() && piece.back() != '\n') ++st.lines;
      return {};
    }
    st.preamble = st.csv ? parser.csv_preamble(st.columns) : parser.text_preamble(st.columns);
    st.preamble_read = true;
    st.count_line = parser.count_line();
  }
  std::vector<Point2<T>> points;
  if (st.preamble.counted) {
    points = parser.parse_counted_values(st.preamble.count, st.counted);
  } else {
    points = st.csv ? parser.parse_csv_rows(st.preamble.layout) : parser.parse_text_rows(st.preamble.layout);
  }
  st.lines = parser.line();
  return points;
}

template <class T>
void TextPieceParser<T>::finish() {
  State& st = *state_;
  if (!st.preamble.counted) return;
  TextParser<T>(std::string_view(), st.name, false)
      .finish_counted(st.preamble.count, st.count_line, st.counted);
}

template class TextPieceParser<float>;
template class TextPieceParser<double>;
template class TextPieceParser<std::int32_t>;
template class TextPieceParser<std::int64_t>;

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Public interface

Format parse_format(std::string_view name) {
  for (const Format format :
       {Format::automatic, Format::text, Format::csv, Format::f32, Format::f64, Format::i32, Format::i64}) {
    if (name == format_name(format)) return format;
  }
  throw std::invalid_argument("unknown format \"" + std::string(name) +
                              "\" (expected auto, text, csv, f32, f64, i32 or i64)");
}

std::string_view format_name(Format format) {
  switch (format) {
    case Format::automatic: return "auto";
    case Format::text: return "text";
    case Format::csv: return "csv";
    case Format::f32: return "f32";
    case Format::f64: return "f64";
    case Format::i32: return "i32";
    case Format::i64: return "i64";
  }
  return "unknown";
}

bool is_binary_format(Format format) {
  return format == Format::f32 || format == Format::f64 || format == Format::i32 || format == Format::i64;
}

std::size_t binary_record_bytes(Format format) {
  switch (format) {
    case Format::f32:
    case Format::i32: return 8;
    case Format::f64:
    case Format::i64: return 16;
    default: break;
  }
  throw std::invalid_argument("format " + std::string(format_name(format)) + " has no binary records");
}

Format guess_format(std::string_view path) {
  if (detail::ends_with_ignoring_case(path, ".f32")) return Format::f32;
  if (detail::ends_with_ignoring_case(path, ".f64")) return Format::f64;
  if (detail::ends_with_ignoring_case(path, ".i32")) return Format::i32;
  if (detail::ends_with_ignoring_case(path, ".i64")) return Format::i64;
  if (detail::ends_with_ignoring_case(path, ".csv")) return Format::csv;
  return Format::text;
}

ColumnSelection parse_column_selection(std::string_view spec) {
  const std::size_t comma = spec.find(',');
  ColumnSelection columns;
  if (comma != std::string_view::npos && spec.find(',', comma + 1) == std::string_view::npos) {
    columns.x = trim(spec.substr(0, comma));
    columns.y = trim(spec.substr(comma + 1));
  }
  if (columns.x.empty() || columns.y.empty()) {
    throw std::invalid_argument("expected two columns X,Y (each a header name or a 0-based index), got \"" +
                                std::string(spec) + "\"");
  }
  return columns;
}

template <class T>
PointSet<T>::PointSet(std::vector<Point2<T>> owned) : owned_(std::move(owned)), view_(owned_) {}

template <class T>
PointSet<T>::PointSet(std::shared_ptr<const void> mapping, std::span<const Point2<T>> view)
    : mapping_(std::move(mapping)), view_(view) {}

template <class T>
PointSet<T> read_points(const std::string& path, const ReadOptions& options) {
  const std::string name = display_name(path);
  const Format format = options.format == Format::automatic ? guess_format(path) : options.format;
  check_selection(options.columns, format, name);
  InputBytes input = read_file(path);
  const bool aligned = reinterpret_cast<std::uintptr_t>(input.bytes.data()) % alignof(Point2<T>) == 0;
  if (format == kNativeFormat<T> && input.owner && aligned) {
    // Zero copy: the points are a view of the input's memory, which they keep alive.
    check_whole_records<T>(input.bytes.size(), name);
    const std::span<const Point2<T>> view(reinterpret_cast<const Point2<T>*>(input.bytes.data()),
                                          input.bytes.size() / kRecordBytes<T>);
    if (options.check_values || options.require_sorted)
      validate_binary<T>(view, options.require_sorted, name);
    return PointSet<T>(std::move(input.owner), view);
  }
  return parse_resolved<T>(input.bytes, format, name, options);
}

template <class T>
PointSet<T> parse_points(std::string_view data, std::string_view name, const ReadOptions& options) {
  const Format format = options.format == Format::automatic ? guess_format(name) : options.format;
  check_selection(options.columns, format, display_name(name));
  return parse_resolved<T>(data, format, display_name(name), options);
}

namespace detail {

template <class T>
GroupedPoints<T> parse_grouped_points_in_chunks(std::string_view data, std::string_view name,
                                                std::string_view group_column, const ReadOptions& options,
                                                std::size_t chunks) {
  const std::string shown = display_name(name);
  const Format format = options.format == Format::automatic ? Format::csv : options.format;
  if (format != Format::csv) {
    throw input_error(shown + ": grouping reads csv with a header, not " + std::string(format_name(format)));
  }
  if (trim(group_column).empty()) throw std::invalid_argument("the group column is empty");
  data = skip_byte_order_mark(data, shown);
  // Sortedness is a property of each group here, which the hull checks (convex_hulls, presorted).
  return parse_grouped_csv_points<T>(data, shown, options.columns, group_column, chunks);
}

#define WAGENER_INSTANTIATE(T)                                 \
  template GroupedPoints<T> parse_grouped_points_in_chunks<T>( \
      std::string_view, std::string_view, std::string_view, const ReadOptions&, std::size_t);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace detail

template <class T>
GroupedPoints<T> parse_grouped_points(std::string_view data, std::string_view name,
                                      std::string_view group_column, const ReadOptions& options) {
  return detail::parse_grouped_points_in_chunks<T>(data, name, group_column, options,
                                                   text_chunks(data.size()));
}

template <class T>
GroupedPoints<T> read_grouped_points(const std::string& path, std::string_view group_column,
                                     const ReadOptions& options) {
  const InputBytes input = read_file(path);
  return parse_grouped_points<T>(input.bytes, path, group_column, options);
}

#define WAGENER_INSTANTIATE(T)                                                                            \
  template GroupedPoints<T> parse_grouped_points<T>(std::string_view, std::string_view, std::string_view, \
                                                    const ReadOptions&);                                  \
  template GroupedPoints<T> read_grouped_points<T>(const std::string&, std::string_view,                  \
                                                   const ReadOptions&);                                   \
  template class PointSet<T>;                                                                             \
  template PointSet<T> read_points<T>(const std::string&, const ReadOptions&);                            \
  template PointSet<T> parse_points<T>(std::string_view, std::string_view, const ReadOptions&);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener
