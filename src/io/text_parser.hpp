// Text rows: one run of text or csv lines parsed in place, in order: the preamble (comments, the
// seed's count, a csv header), then the points, each checked as it is read. The parallel driver
// (parallel_text.cpp) runs one TextParser a chunk; a file read in pieces, one a piece.
//
// Numbers: decimal only, with an optional leading '+'. Hexadecimal floats ("0x1p3") are rejected,
// as are NaN and infinity in any spelling, and literals that overflow T or underflow to zero in T
// (std::from_chars reports both as out of range; subnormal results are accepted). Integer T reads
// decimal integers only: "1.5", "1e3" and "1.0" are not integers, and a value beyond T's range is
// out of range (never rounded or wrapped).
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/huge_pages.hpp"
#include "core/id_table.hpp"
#include "io/read_errors.hpp"
#include "wagener/io.hpp"
#include "wagener/point.hpp"

namespace wagener::reading {

using detail::want_huge_pages;

// U+FEFF in UTF-8: allowed as the first bytes of text, an error anywhere else.
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

constexpr bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}
constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

inline const char* skip_blanks(const char* p, const char* end) {
  while (p != end && is_blank(*p)) ++p;
  return p;
}

// End of a whitespace-separated token ('#' also ends it: a comment may follow a value directly).
inline const char* token_end(const char* p, const char* end) {
  while (p != end && !is_blank(*p) && *p != '#') ++p;
  return p;
}

// Values on a line from p, up to a comment.
inline index_t count_tokens(const char* p, const char* end) {
  index_t count = 0;
  for (p = skip_blanks(p, end); p != end && *p != '#'; p = skip_blanks(token_end(p, end), end)) ++count;
  return count;
}

inline std::string_view trim(std::string_view s) {
  std::size_t first = 0;
  while (first < s.size() && is_blank(s[first])) ++first;
  std::size_t last = s.size();
  while (last > first && is_blank(s[last - 1])) --last;
  return s.substr(first, last - first);
}

// from_chars takes no '+': one is skipped, unless a '-' follows ("+-1" is not a number).
inline const char* skip_plus(const char* p, const char* end) {
  return p != end && *p == '+' && !(p + 1 != end && p[1] == '-') ? p + 1 : p;
}

// Whether [first, last) is a decimal integer literal (an optional sign, then digits only) that T, a
// float or a double, does not hold exactly: from 2^24 (float) or 2^53 (double) on not every integer
// is one, and reading it would round it silently (9007199254740993 would become ...992 as a double,
// 16777217 ...216 as a float). A wider precision (int64 for any) reads them exactly. On every token
// of a text file: the first test, one comparison, ends it for all but huge values.
template <class T>
bool inexact_integer_literal(const char* first, const char* last, T value) {
  static_assert(std::is_floating_point_v<T>);
  // An integer below 2^digits is exact, and rounding to nearest keeps a larger one at 2^digits or
  // more: a value read below 2^digits came from an exact literal (or from a decimal).
  constexpr T kAllIntegersExact = static_cast<T>(std::uint64_t{1} << std::numeric_limits<T>::digits);
  if (std::fabs(value) < kAllIntegersExact) return false;
  if (*first == '+' || *first == '-') ++first;
  while (first != last && *first == '0') ++first;
  for (const char* q = first; q != last; ++q) {
    if (*q < '0' || *q > '9') return false;  // a fraction or an exponent: a decimal, rounded as such
  }
  char exact[400];  // the largest double has 309 integer digits
  const auto printed =
      std::to_chars(exact, exact + sizeof exact, std::fabs(value), std::chars_format::fixed, 0);
  return std::string_view(exact, static_cast<std::size_t>(printed.ptr - exact)) !=
         std::string_view(first, static_cast<std::size_t>(last - first));
}

// Whether a csv field is a number in the sense of the parser (finite or not, in range or not):
// what tells a header line from a data line. For integer T any decimal number counts, so that a
// line of "1.5,2.5" is data (and then refused as not integers), never a header.
template <class T>
bool looks_like_number(std::string_view field) {
  const char* end = field.data() + field.size();
  std::conditional_t<std::is_integral_v<T>, double, T> value{};
  const auto [ptr, ec] = std::from_chars(skip_plus(field.data(), end), end, value);
  return ec != std::errc::invalid_argument && ptr == end;
}

// ASCII letters compared without case: column names.
bool same_name(std::string_view a, std::string_view b);

// The 0-based column index a selection spells, if it spells one: decimal digits only.
std::optional<index_t> column_index(std::string_view spec);

// The columns of a header for a message, with the indices that select them: 0 "id", 1 "lon", ...
std::string describe_columns(const std::vector<std::string>& names);

// Which fields of a row hold the point, and how many fields every row has.
struct RowLayout {
  // False: the plain two-column layout ("x,y", "x y"), which has a fast path. True: x and y were
  // selected, by the caller or by a header that names them among other columns.
  bool selected = false;
  index_t x = 0;
  index_t y = 1;
  index_t width = 2;
  index_t width_line = 0;  // the line the width was taken from (when selected), for messages
  bool width_from_header = false;
};

// What precedes the points of a text or csv file: comments, blank lines, and the seed's count or a
// csv header. The body, from `body` on, holds the points, laid out as `layout` says.
struct Preamble {
  const char* body = nullptr;
  bool counted = false;  // the seed's format: `count` points, values laid out in any way
  std::uint64_t count = 0;
  RowLayout layout;
};

// An estimate of the lines in [begin, end), for reserving up front (which saves the copies of a
// growing vector): counting them all would cost a pass over the file, so a sample is counted
// instead, and the vector grows as usual where the estimate falls short.
std::size_t estimated_lines(const char* begin, const char* end);

// Text has no header line, so its columns have no names: a selection of them must be by 0-based
// index. Throws input_error naming the file (`name`) otherwise.
void check_text_columns(const ColumnSelection& columns, std::string_view name);

// The text of a quoted csv field with each "" read as one quote.
std::string unescape_quotes(std::string_view quoted);

// The header of csv with a group column: where the rows start, how x and y are laid out in them,
// and which field holds the group's id.
struct GroupedPreamble {
  const char* body = nullptr;
  RowLayout layout;
  index_t group_column = -1;  // -1: no header, so no rows
  std::string group_column_name;
};

// Numbers ids in the order of their first appearance. Each new id is kept in a copy of its own, and
// the table keys on the copies: a long id's compare reads those few compact bytes, not the id's
// first place in the file, a cache miss a row when the rows come shuffled (a short id is held in the
// table itself). An id equal to the previous row's, as ids usually come in runs, is numbered without
// hashing; the previous id is kept in a string of its own, in the cache (a view of its copy cost a
// miss a row, 15 % of a shuffled file's processor time, in the compare that was to save the hash).
class IdNumbering {
 public:
  std::int64_t number(std::string_view id) {
    if (last_number_ >= 0 && id == last_id_) return last_number_;
    last_number_ = static_cast<std::int64_t>(table_.intern(
        id, [this](std::string_view fresh) { return std::string_view(copies_.emplace_back(fresh)); }));
    last_id_.assign(id);
    return last_number_;
  }

  // The ids in the order of their numbers.
  const std::vector<std::string_view>& ids() const { return table_.ids(); }

 private:
  detail::IdTable table_;
  std::deque<std::string> copies_;  // a deque never moves its elements, which the views point into
  std::string last_id_;
  std::int64_t last_number_ = -1;
};

// The rows of grouped csv, or of one chunk of them: each row's point and group number, the groups
// numbered in the order of their first rows in these rows (numbering.ids()[g] is group g's id).
template <class T>
struct GroupedRows {
  std::vector<Point2<T>> points;
  std::vector<std::int64_t> group_ids;
  IdNumbering numbering;
};

// A csv field's text, without the blanks around it and without its quotes if it had any ("" inside
// quotes is left doubled: only names are unescaped, a number holds no quotes).
struct CsvField {
  std::string_view text;
  bool quoted = false;
};

// Parses text and csv from memory. One object parses one run of lines in order; the parallel driver
// runs one per chunk.
template <class T>
class TextParser {
 public:
  // `lines_before`: how many lines of the file precede `data` (a piece of a file read in pieces).
  TextParser(std::string_view data, std::string_view name, bool require_sorted, index_t lines_before = 0)
      : next_(data.data()),
        end_(data.data() + data.size()),
        name_(name),
        require_sorted_(require_sorted),
        line_(lines_before) {}

  // The last line read so far, and the line of the seed's count (0 if none was read).
  index_t line() const { return line_; }
  index_t count_line() const { return count_line_; }

  // The first line with a value decides between the seed's format (a count alone on its line) and
  // plain lines of values; with a selection, it also sets how many values every line has.
  Preamble text_preamble(const ColumnSelection& selection) {
    const char* p = nullptr;
    const char* first = nullptr;
    const char* e = nullptr;
    if (!next_content_line(p, first, e)) return {next_, false, 0, {}};
    const char* first_end = token_end(first, e);
    const index_t values = 1 + count_tokens(first_end, e);
    if (values == 1 && std::all_of(first, first_end, is_digit)) {
      if (!selection.empty()) {
        fail_at_line(name_, line_,
                     "a column selection needs lines of values, but this is the seed's format (a count "
                     "alone on its line, then the values)");
      }
      count_line_ = line_;
      return {next_, true, parse_count(std::string_view(first, first_end - first)), {}};
    }
    const RowLayout layout = first_row_layout(values, selection, false);
    rewind(p);  // the first point
    return {next_, false, 0, layout};
  }

  // A first line that is_header() is a header; without one, the first line is the first point.
  Preamble csv_preamble(const ColumnSelection& selection) {
    const char* p = nullptr;
    const char* first = nullptr;
    const char* e = nullptr;
    if (!next_content_line(p, first, e)) return {next_, false, 0, {}};
    const std::vector<CsvField> fields = csv_fields(first, e);
    if (is_header(fields)) return {next_, false, 0, header_layout(fields, selection)};
    const RowLayout layout = first_row_layout(static_cast<index_t>(fields.size()), selection, true);
    rewind(p);  // the first point
    return {next_, false, 0, layout};
  }

  // Plain format: exactly two values on every line that has any.
  std::vector<Point2<T>> parse_pairs() {
    reserve_for_lines();
    const char* p = nullptr;
    const char* e = nullptr;
    while (next_line(p, e)) {
      p = skip_blanks(p, e);
      if (p == e || *p == '#') continue;
      const char* line_start = p;
      const T x = parse_number<false>(p, e);
      p = skip_blanks(p, e);
      if (p == e || *p == '#') [[unlikely]] {
        fail_value_count(line_start, e);
      }
      const T y = parse_number<false>(p, e);
      p = skip_blanks(p, e);
      if (p != e && *p != '#') [[unlikely]] {
        fail_value_count(line_start, e);
      }
      push({x, y}, line_);
    }
    return std::move(points_);
  }

  // Lines of values with selected columns; the plain layout goes the fast way.
  std::vector<Point2<T>> parse_text_rows(const RowLayout& layout) {
    if (!layout.selected) return parse_pairs();
    reserve_for_lines();
    const char* p = nullptr;
    const char* e = nullptr;
    while (next_line(p, e)) {
      p = skip_blanks(p, e);
      if (p == e || *p == '#') continue;
      parse_text_row(p, e, layout);
    }
    return std::move(points_);
  }

  std::vector<Point2<T>> parse_csv_rows(const RowLayout& layout) {
    reserve_for_lines();
    const char* p = nullptr;
    const char* e = nullptr;
    while (next_line(p, e)) {
      const char* first = skip_blanks(p, e);
      if (first == e || *first == '#') continue;
      Point2<T> point;
      if (!layout.selected && try_csv_pair(first, e, point)) [[likely]] {
        push(point, line_);
      } else {
        parse_csv_row(first, e, layout);
      }
    }
    return std::move(points_);
  }

  // The seed's format after the count: exactly 2 * count values laid out in any way.
  std::vector<Point2<T>> parse_counted(std::uint64_t count) {
    // Each point takes at least 4 bytes ("0 0" and a separator): a huge count cannot over-allocate.
    points_.reserve(std::min<std::uint64_t>(count, static_cast<std::uint64_t>(end_ - next_) / 4 + 1));
    CountedProgress progress;
    std::vector<Point2<T>> points = parse_counted_values(count, progress);
    finish_counted(count, count_line_, progress);
    return points;
  }

  // How far the values of the seed's format have come, across the pieces of a file read in pieces.
  struct CountedProgress {
    index_t values = 0;  // values read, up to 2 * count
    T x{};               // the pending x of a pair split between pieces
    index_t x_line = 0;
    index_t excess_line = 0;  // the line of the first value beyond 2 * count (0: none yet)
    index_t excess = 0;       // values beyond 2 * count
  };

  // The values of this piece, paired into points; values beyond 2 * count are only counted.
  std::vector<Point2<T>> parse_counted_values(std::uint64_t count, CountedProgress& progress) {
    const auto expected = static_cast<index_t>(2 * count);
    const char* p = nullptr;
    const char* e = nullptr;
    while (next_line(p, e)) {
      for (p = skip_blanks(p, e); p != e && *p != '#'; p = skip_blanks(p, e)) {
        if (progress.values == expected) [[unlikely]] {
          // Name the line of the first value too many, and say how many there are in all.
          if (progress.excess_line == 0) progress.excess_line = line_;
          progress.excess += count_tokens(p, e);
          break;
        }
        const T value = parse_number<false>(p, e);
        if (progress.values % 2 == 0) {
          progress.x = value;
          progress.x_line = line_;
        } else {
          push({progress.x, value}, progress.x_line);
        }
        ++progress.values;
      }
    }
    return std::move(points_);
  }

  // After the last piece: too many values name the first one too many; too few (the data ended early
  // or the count is wrong) the count's line, where the claim is.
  void finish_counted(std::uint64_t count, index_t count_line, const CountedProgress& progress) const {
    if (progress.excess_line != 0) {
      fail_at_line(name_, progress.excess_line, count_mismatch(count, progress.values + progress.excess));
    }
    if (progress.values != static_cast<index_t>(2 * count)) {
      fail_at_line(name_, count_line, count_mismatch(count, progress.values));
    }
  }

  // Every value, unpaired: a chunk of the seed's format, whose pairing depends on what came before.
  std::vector<T> parse_values() {
    std::vector<T> values;
    values.reserve(2 * estimated_lines());
    want_huge_pages(values);
    const char* p = nullptr;
    const char* e = nullptr;
    while (next_line(p, e)) {
      for (p = skip_blanks(p, e); p != e && *p != '#'; p = skip_blanks(p, e)) {
        values.push_back(parse_number<false>(p, e));
      }
    }
    return values;
  }

  std::vector<Point2<T>> parse_text(const ColumnSelection& selection) {
    const Preamble preamble = text_preamble(selection);
    return preamble.counted ? parse_counted(preamble.count) : parse_text_rows(preamble.layout);
  }

  std::vector<Point2<T>> parse_csv(const ColumnSelection& selection) {
    return parse_csv_rows(csv_preamble(selection).layout);
  }

  // The header of csv with a group column: the layout of x and y, and the group column.
  GroupedPreamble grouped_preamble(const ColumnSelection& selection, std::string_view group_spec) {
    const char* p = nullptr;
    const char* first = nullptr;
    const char* e = nullptr;
    if (!next_content_line(p, first, e)) return {};  // no header, no rows
    const std::vector<CsvField> fields = csv_fields(first, e);
    if (!is_header(fields)) {
      fail_at_line(name_, line_,
                   "grouping needs a header line naming the columns, but this first line is data");
    }
    const std::vector<std::string> names = column_names(fields);
    GroupedPreamble preamble;
    preamble.layout = header_layout(fields, selection);
    if (!preamble.layout.selected) {  // two columns: nothing left to group by, which header_column says
      preamble.layout = {.selected = true, .width = 2, .width_line = line_, .width_from_header = true};
    }
    const index_t group_column = header_column(group_spec, names);
    if (group_column == preamble.layout.x || group_column == preamble.layout.y) {
      fail_at_line(name_, line_,
                   "the group column " + quote(trim(group_spec)) + " is also the " +
                       (group_column == preamble.layout.x ? "x" : "y") +
                       " column: " + describe_columns(names));
    }
    preamble.body = next_;
    preamble.group_column = group_column;
    preamble.group_column_name = names[static_cast<std::size_t>(group_column)];
    return preamble;
  }

  // The rows from here on, laid out as `preamble` says: each row's point and group, the groups
  // numbered in the order of their first rows among these rows. `expected_rows` is reserved.
  GroupedRows<T> parse_grouped_rows(const GroupedPreamble& preamble, std::size_t expected_rows) {
    const RowLayout& layout = preamble.layout;
    GroupedRows<T> rows;
    points_.reserve(expected_rows);
    want_huge_pages(points_);
    rows.group_ids.reserve(expected_rows);
    want_huge_pages(rows.group_ids);
    const char* p = nullptr;
    const char* e = nullptr;
    while (next_line(p, e)) {
      const char* first = skip_blanks(p, e);
      if (first == e || *first == '#') continue;
      Point2<T> point;
      std::string_view id;
      if (try_grouped_row(first, e, layout, preamble.group_column, point, id)) [[likely]] {
        push(point, line_);
        rows.group_ids.push_back(rows.numbering.number(id));
      } else {
        parse_grouped_row(first, e, preamble, rows);
      }
    }
    rows.points = std::move(points_);
    return rows;
  }

 private:
  // The next line (without its '\n') in [p, e); false at end of data.
  bool next_line(const char*& p, const char*& e) {
    if (next_ == end_) return false;
    p = next_;
    const void* newline = std::memchr(p, '\n', end_ - p);
    e = newline != nullptr ? static_cast<const char*>(newline) : end_;
    next_ = newline != nullptr ? e + 1 : end_;
    ++line_;
    return true;
  }

  // Makes the line starting at p, the last one next_line gave, the next one again.
  void rewind(const char* p) {
    next_ = p;
    --line_;
  }

  // The next line with something besides blanks and a comment (the lines before it are skipped):
  // p its start, first its first non-blank, e its end; false at end of data.
  bool next_content_line(const char*& p, const char*& first, const char*& e) {
    while (next_line(p, e)) {
      first = skip_blanks(p, e);
      if (first != e && *first != '#') return true;
    }
    return false;
  }

  // A line in which no field is a number is a header; a line with a number in it is data, so that a
  // typo in the first point ("1,2o") is reported rather than taken for a header.
  static bool is_header(const std::vector<CsvField>& fields) {
    return std::none_of(fields.begin(), fields.end(),
                        [](const CsvField& field) { return looks_like_number<T>(field.text); });
  }

  // The csv field at p, on a line that ends at e; p moves past the field and its comma. Returns
  // false for the line's last field (at the line's end, or where a comment starts). A field in
  // double quotes may hold commas, '#' and doubled quotes (RFC 4180) but no line break: a line is
  // always one row, which is what lets the parallel parser cut the file at any newline.
  bool next_csv_field(const char*& p, const char* e, CsvField& field) const {
    p = skip_blanks(p, e);
    if (p != e && *p == '"') [[unlikely]] {
      const char* open = p++;
      for (;;) {
        const void* close = std::memchr(p, '"', static_cast<std::size_t>(e - p));
        if (close == nullptr) {
          fail_at_line(
              name_, line_,
              "quoted field " + quote(std::string_view(open, e - open)) + " does not end on its line");
        }
        p = static_cast<const char*>(close) + 1;
        if (p == e || *p != '"') break;
        ++p;  // "" stands for one quote
      }
      field = {trim(std::string_view(open + 1, p - 1 - (open + 1))), true};
      const char* after = skip_blanks(p, e);
      if (after != e && *after != ',' && *after != '#') {
        fail_at_line(name_, line_,
                     "text after the quoted field " + quote(std::string_view(open, p - open)) + ": " +
                         quote(std::string_view(after, e - after)));
      }
      p = after;
    } else {
      const char* start = p;
      while (p != e && *p != ',' && *p != '#') ++p;
      field = {trim(std::string_view(start, p - start)), false};
    }
    if (p != e && *p == ',') {
      ++p;
      return true;
    }
    return false;
  }

  // Every field of a line with values (the header, or the first row).
  std::vector<CsvField> csv_fields(const char* p, const char* e) const {
    std::vector<CsvField> fields;
    CsvField field;
    for (bool more = true; more;) {
      more = next_csv_field(p, e, field);
      fields.push_back(field);
    }
    return fields;
  }

  // A header's column names: quotes removed, "" read as one quote.
  std::vector<std::string> column_names(const std::vector<CsvField>& fields) const {
    std::vector<std::string> names;
    for (const CsvField& field : fields) {
      if (field.text.find(kUtf8Bom) != std::string_view::npos) {
        fail_at_line(name_, line_, "byte-order mark in the header: one may only begin the file");
      }
      names.push_back(field.quoted ? unescape_quotes(field.text) : std::string(field.text));
    }
    return names;
  }

  // The layout a header sets: the selected columns, or by default its only two, or those named x and
  // y among more. Every row must then have as many fields as the header names.
  RowLayout header_layout(const std::vector<CsvField>& fields, const ColumnSelection& selection) const {
    const std::vector<std::string> names = column_names(fields);
    const auto width = static_cast<index_t>(names.size());
    RowLayout layout{.selected = true, .width = width, .width_line = line_, .width_from_header = true};
    if (!selection.empty()) {
      layout.x = header_column(selection.x, names);
      layout.y = header_column(selection.y, names);
      return layout;
    }
    if (width == 2) return {};  // whatever the names: first x, then y
    if (width < 2) {
      fail_at_line(name_, line_, "header must name 2 columns (x,y), found " + std::to_string(width));
    }
    const std::vector<index_t> x = columns_named("x", names);
    const std::vector<index_t> y = columns_named("y", names);
    if (x.size() != 1 || y.size() != 1) {
      fail_at_line(name_, line_,
                   "header names " + std::to_string(width) + " columns, not one x and one y among them: " +
                       describe_columns(names) + "; --columns X,Y picks two (by name or 0-based index)");
    }
    layout.x = x.front();
    layout.y = y.front();
    return layout;
  }

  static std::vector<index_t> columns_named(std::string_view wanted, const std::vector<std::string>& names) {
    std::vector<index_t> matches;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (same_name(trim(names[i]), wanted)) matches.push_back(static_cast<index_t>(i));
    }
    return matches;
  }

  // A selected column in a file with a header: a name that matches exactly one column wins; a spec
  // that matches none and is all digits is an index.
  index_t header_column(std::string_view spec, const std::vector<std::string>& names) const {
    spec = trim(spec);
    const std::vector<index_t> matches = columns_named(spec, names);
    if (matches.size() == 1) return matches.front();
    if (matches.size() > 1) {
      fail_at_line(name_, line_,
                   std::to_string(matches.size()) + " columns of the header are named " + quote(spec) + ": " +
                       describe_columns(names) + "; select one by its 0-based index");
    }
    if (const std::optional<index_t> index = column_index(spec)) {
      if (*index < static_cast<index_t>(names.size())) return *index;
      fail_at_line(name_, line_,
                   "column " + std::string(spec) + " is out of range: the header has " +
                       std::to_string(names.size()) + " columns: " + describe_columns(names));
    }
    fail_at_line(name_, line_,
                 "no column named " + quote(spec) + " in the header: " + describe_columns(names));
  }

  // The layout the first row sets when there is no header: with a selection (of indices), every row
  // must have as many fields as this one; without, it must have two.
  RowLayout first_row_layout(index_t width, const ColumnSelection& selection, bool csv) const {
    if (selection.empty()) {
      if (width > 2) {
        fail_at_line(name_, line_,
                     std::string(csv ? "expected 2 fields (x,y)" : "expected 2 values (x y)") + ", found " +
                         std::to_string(width) + "; --columns X,Y picks two of them");
      }
      return {};
    }
    return {.selected = true,
            .x = row_column(selection.x, width, csv),
            .y = row_column(selection.y, width, csv),
            .width = width,
            .width_line = line_,
            .width_from_header = false};
  }

  index_t row_column(std::string_view spec, index_t width, bool csv) const {
    spec = trim(spec);
    const std::optional<index_t> index = column_index(spec);
    if (!index) {
      fail_at_line(name_, line_,
                   "column " + quote(spec) +
                       " is not a 0-based index, and there is no header to find the name in (this first "
                       "line is data)");
    }
    if (*index >= width) {
      fail_at_line(name_, line_,
                   "column " + std::string(spec) + " is out of range: the line has " + std::to_string(width) +
                       (csv ? " fields" : " values") + " (0-based indices 0 to " + std::to_string(width - 1) +
                       ")");
    }
    return *index;
  }

  std::uint64_t parse_count(std::string_view token) const {
    // Twice the count must fit in index_t, as must the count of values found.
    constexpr std::uint64_t kMaxCount = std::numeric_limits<index_t>::max() / 2;
    std::uint64_t count = 0;
    const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), count);
    if (ec != std::errc() || count > kMaxCount) {
      fail_at_line(name_, line_, "point count " + quote(token) + " is too large");
    }
    return count;
  }

  static std::string count_mismatch(std::uint64_t count, index_t found) {
    return "count says " + std::to_string(count) + (count == 1 ? " point" : " points") +
           " but the file holds " + std::to_string(found) + (found == 1 ? " value" : " values");
  }

  std::size_t estimated_lines() const { return reading::estimated_lines(next_, end_); }

  // A line holds at most one point.
  void reserve_for_lines() {
    points_.reserve(estimated_lines());
    want_huge_pages(points_);
  }

  // Parses the number at p, which must end at the token's end (kCsv: at `end`, the field's end);
  // advances p past it.
  template <bool kCsv>
  T parse_number(const char*& p, const char* end) {
    T value{};
    const auto [ptr, ec] = std::from_chars(skip_plus(p, end), end, value);
    const bool whole_token = ptr == end || (!kCsv && (is_blank(*ptr) || *ptr == '#'));
    if (ec != std::errc() || !whole_token || !std::isfinite(value)) [[unlikely]] {
      fail_number<kCsv>(p, ptr, end, ec, whole_token);
    }
    if constexpr (std::is_floating_point_v<T>) {
      if (inexact_integer_literal(p, ptr, value)) [[unlikely]]
        fail_inexact_integer(p, ptr);
    }
    p = ptr;
    return value;
  }

  // A csv value ending at a blank, ',', '#' or the end of the line; false for anything else.
  static bool try_csv_number(const char*& p, const char* end, T& value) {
    const auto [ptr, ec] = std::from_chars(skip_plus(p, end), end, value);
    if (ec != std::errc() || !std::isfinite(value)) return false;
    if (ptr != end && !is_blank(*ptr) && *ptr != ',' && *ptr != '#') return false;
    if constexpr (std::is_floating_point_v<T>) {
      if (inexact_integer_literal(p, ptr, value)) return false;  // parse_number names it
    }
    p = ptr;
    return true;
  }

  // The common line, "x,y" with optional blanks and comment, in one pass; false for anything else,
  // which parse_csv_line then takes apart.
  static bool try_csv_pair(const char* p, const char* e, Point2<T>& point) {
    if (!try_csv_number(p, e, point.x)) return false;
    p = skip_blanks(p, e);
    if (p == e || *p != ',') return false;
    p = skip_blanks(p + 1, e);
    if (!try_csv_number(p, e, point.y)) return false;
    p = skip_blanks(p, e);
    return p == e || *p == '#';
  }

  // A grouped row of unquoted fields, in one pass: x and y parsed where they stand, the group's id
  // picked out; false for anything else (quotes, a bad number, a ragged row), which
  // parse_grouped_row then takes apart field by field.
  static bool try_grouped_row(const char* p, const char* e, const RowLayout& layout, index_t group_column,
                              Point2<T>& point, std::string_view& id) {
    for (index_t field = 0;; ++field) {
      p = skip_blanks(p, e);
      if (field == layout.x || field == layout.y) {
        if (!try_csv_number(p, e, field == layout.x ? point.x : point.y)) return false;
        p = skip_blanks(p, e);
      } else {
        if (p != e && *p == '"') return false;
        const char* start = p;
        while (p != e && *p != ',' && *p != '#') ++p;
        if (field == group_column) id = trim(std::string_view(start, p - start));
      }
      if (p == e || *p == '#') return field + 1 == layout.width;
      if (*p != ',' || field + 1 == layout.width) return false;
      ++p;
    }
  }

  // A grouped row field by field, as parse_csv_row: quoted ids, and exact about what is wrong.
  void parse_grouped_row(const char* p, const char* e, const GroupedPreamble& preamble,
                         GroupedRows<T>& rows) {
    const CsvField group_field = parse_csv_row(p, e, preamble.layout, preamble.group_column);
    // Inside quotes, "" stands for one quote.
    const bool escaped = group_field.quoted && group_field.text.find("\"\"") != std::string_view::npos;
    rows.group_ids.push_back(escaped ? rows.numbering.number(unescape_quotes(group_field.text))
                                     : rows.numbering.number(group_field.text));
  }

  // A csv row field by field: any number of fields, quotes, and exact about what is wrong. The
  // width is checked before the values, so that a ragged row is reported as one. Returns the field
  // of column `other` (a grouped row's id; empty when there is no such column).
  CsvField parse_csv_row(const char* p, const char* e, const RowLayout& layout, index_t other = -1) {
    CsvField field;
    CsvField x_field;
    CsvField y_field;
    CsvField other_field;
    index_t fields = 0;
    for (bool more = true; more; ++fields) {
      more = next_csv_field(p, e, field);
      if (fields == layout.x) x_field = field;
      if (fields == layout.y) y_field = field;
      if (fields == other) other_field = field;
    }
    if (fields != layout.width) [[unlikely]] {
      fail_width(layout, fields, true);
    }
    const T x = parse_field(x_field.text);
    const T y = parse_field(y_field.text);
    push({x, y}, line_);
    return other_field;
  }

  // A line of values with selected columns, from its first value; unselected values may be anything.
  void parse_text_row(const char* p, const char* e, const RowLayout& layout) {
    const char* x_token = nullptr;
    const char* y_token = nullptr;
    index_t values = 0;
    for (; p != e && *p != '#'; p = skip_blanks(token_end(p, e), e), ++values) {
      if (values == layout.x) x_token = p;
      if (values == layout.y) y_token = p;
    }
    if (values != layout.width) [[unlikely]] {
      fail_width(layout, values, false);
    }
    const T x = parse_number<false>(x_token, e);
    const T y = parse_number<false>(y_token, e);
    push({x, y}, line_);
  }

  T parse_field(std::string_view field) {
    const char* p = field.data();
    return parse_number<true>(p, p + field.size());
  }

  void push(const Point2<T>& point, index_t line) {
    if (require_sorted_ && !points_.empty() && lex_less(point, points_.back())) [[unlikely]] {
      fail_unsorted(point, line);
    }
    points_.push_back(point);
  }

  // The messages live out of line so that the parsing loops stay small.
  template <bool kCsv>
  [[noreturn, gnu::cold, gnu::noinline]] void fail_number(const char* start, const char* ptr, const char* end,
                                                          std::errc ec, bool whole_token) const {
    if (ec == std::errc::invalid_argument || !whole_token) {
      const std::string_view token(start, (kCsv ? end : token_end(start, end)) - start);
      if constexpr (std::is_integral_v<T>) {
        if (looks_like_number<double>(token)) {
          fail_at_line(name_, line_,
                       "not an integer: " + quote(token) + " (" + std::string(type_name<T>) + " points)");
        }
      }
      fail_at_line(
          name_, line_,
          "not a number: " + quote(token) +
              (token.find(kUtf8Bom) != std::string_view::npos ? " (a byte-order mark may only begin the file)"
                                                              : ""));
    }
    const std::string_view token(start, ptr - start);
    if (ec == std::errc::result_out_of_range) {
      fail_at_line(name_, line_,
                   "value " + quote(token) + " is out of range for " + std::string(type_name<T>));
    }
    fail_at_line(name_, line_, "non-finite value " + quote(token));
  }

  [[noreturn, gnu::cold, gnu::noinline]] void fail_inexact_integer(const char* start, const char* ptr) const {
    // The wider types that hold it: a float's integers a double or int64, a double's int64.
    constexpr bool kFloat = std::is_same_v<T, float>;
    fail_at_line(
        name_, line_,
        "integer " + quote(std::string_view(start, static_cast<std::size_t>(ptr - start))) +
            (kFloat ? " is not exactly a float (beyond 2^24): read it as double or int64 (--precision "
                      "double or int64)"
                    : " is not exactly a double (beyond 2^53): read it as int64 (--precision int64)") +
            " to keep it exact");
  }

  [[noreturn, gnu::cold, gnu::noinline]] void fail_width(const RowLayout& layout, index_t found,
                                                         bool csv) const {
    if (!layout.selected) {
      fail_at_line(name_, line_,
                   std::string(csv ? "expected 2 fields (x,y)" : "expected 2 values (x y)") + ", found " +
                       std::to_string(found));
    }
    fail_at_line(name_, line_,
                 "expected " + std::to_string(layout.width) + (csv ? " fields" : " values") +
                     " (as many as " + (layout.width_from_header ? "the header on line " : "line ") +
                     std::to_string(layout.width_line) + "), found " + std::to_string(found));
  }

  [[noreturn, gnu::cold, gnu::noinline]] void fail_value_count(const char* line_start, const char* e) const {
    fail_at_line(name_, line_,
                 "expected 2 values (x y), found " + std::to_string(count_tokens(line_start, e)));
  }

  [[noreturn, gnu::cold, gnu::noinline]] void fail_unsorted(const Point2<T>& point, index_t line) const {
    fail_at_line(name_, line, unsorted_message(points_.back(), point));
  }

  const char* next_;
  const char* end_;
  std::string_view name_;
  bool require_sorted_;
  index_t line_ = 0;
  index_t count_line_ = 0;
  std::vector<Point2<T>> points_;
};

// Spreadsheets start their UTF-8 exports with a byte-order mark. It is skipped before anything else
// looks at the text, so the sequential parser and the parallel one (whose chunks start after the
// preamble) both see it at most once, and line numbers are unchanged: the mark is part of line 1.
// UTF-16 text would fail on its second byte with a message about a number; it is named instead.
std::string_view skip_byte_order_mark(std::string_view data, std::string_view name);

}  // namespace wagener::reading
