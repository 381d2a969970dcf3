// Point files in and out.
//
// Formats (see docs/formats.md):
//   text  the seed's format (a count, then x y pairs, any white space) or plain "x y" lines;
//         '#' starts a comment that runs to the end of the line
//   csv   "x,y" lines, with or without a header line naming the columns; more columns with a
//         header naming x and y, or with a column selection
//   f32   raw little-endian binary, float x,y pairs
//   f64   raw little-endian binary, double x,y pairs
//   i32   raw little-endian binary, int32 x,y pairs
//   i64   raw little-endian binary, int64 x,y pairs
//
// Points are read in any coordinate type T (float, double, int32_t, int64_t), whatever the file's:
// a value that T cannot hold exactly is an input error, except that doubles read as floats are
// rounded to the nearest float (as a float file was written). Integer types read decimal integers
// only from text and csv ("1.5", "1e3" are not integers), and binary floats only where they hold
// integers; integers read as float or double must convert exactly (up to 2^24 or 2^53).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wagener/point.hpp"

namespace wagener {

enum class Format { automatic, text, csv, f32, f64, i32, i64 };

/// Parses "auto", "text", "csv", "f32", "f64", "i32", "i64"; throws std::invalid_argument otherwise.
Format parse_format(std::string_view name);
std::string_view format_name(Format format);

/// The format "auto" resolves to for a path: by extension (.f32, .f64, .i32, .i64, .csv), else text.
Format guess_format(std::string_view path);

/// Whether `format` is raw binary records (f32, f64, i32, i64), and the bytes of one record (a point).
bool is_binary_format(Format format);
std::size_t binary_record_bytes(Format format);

/// Which columns of csv (or text) input hold x and y (the command line's --columns X,Y); each a
/// header name or a 0-based column index, both empty for the default. See docs/formats.md.
///  * A spec is first compared with the csv header's names, ignoring case and the blanks around it
///    (a name is read without its blanks and enclosing double quotes); it must match at most one.
///    A spec that matches no name and is all digits is a 0-based index; else it is an error. (A
///    first line with an all-digit field is data, so a header never has a name that reads as an
///    index.)
///  * Without a header, and in text (which has none), only indices select. Text then reads lines
///    of values, not the seed's counted format.
///  * Default: csv takes its only two columns (first x, then y), or, with a header of more, the
///    columns named x and y (ignoring case); text takes lines of exactly two values.
/// With a selection (or the x/y pick), every row must have as many fields as the header, or without
/// one as the first row; fields that are not selected may hold anything.
struct ColumnSelection {
  std::string x;
  std::string y;
  bool empty() const { return x.empty() && y.empty(); }
  friend bool operator==(const ColumnSelection&, const ColumnSelection&) = default;
};

/// Parses "X,Y" (the command line's --columns): two non-empty parts around one comma, blanks around
/// each trimmed. Throws std::invalid_argument otherwise (a name holding a comma is selected by index).
ColumnSelection parse_column_selection(std::string_view spec);

struct ReadOptions {
  Format format = Format::automatic;
  /// Fail with input_error, naming the line (or byte offset), at the first point that is
  /// lexicographically smaller than its predecessor.
  bool require_sorted = false;
  /// Text and csv only: a selection for binary input is an input_error. Both or neither of x and y
  /// must be given (std::invalid_argument otherwise).
  ColumnSelection columns = {};
  /// false: binary input of the requested precision (the zero-copy view) is returned without the
  /// pass that checks every value is finite, for a caller whose next pass checks it anyway
  /// (compute_hull does, and throws input_error naming the point): one pass over memory instead of
  /// two. Such a caller reads the file again with the check on to name the byte offset of the
  /// problem. Ignored with require_sorted, and for every other format.
  bool check_values = true;
};

/// Points read from a file: owned, or (for binary input of the requested precision) a view of the
/// input's memory, which `mapping` keeps alive.
template <class T>
class PointSet {
 public:
  PointSet() = default;
  explicit PointSet(std::vector<Point2<T>> owned);
  PointSet(std::shared_ptr<const void> mapping, std::span<const Point2<T>> view);

  // The view points into owned_ or the mapping: a copy must re-aim it at its own storage, and a
  // moved-from set must not keep pointing at storage it gave away.
  PointSet(const PointSet& other)
      : owned_(other.owned_),
        mapping_(other.mapping_),
        view_(mapping_ ? other.view_ : std::span<const Point2<T>>(owned_)) {}
  PointSet(PointSet&& other) noexcept
      : owned_(std::move(other.owned_)),
        mapping_(std::move(other.mapping_)),
        view_(std::exchange(other.view_, {})) {}
  PointSet& operator=(const PointSet& other) {
    if (this != &other) *this = PointSet(other);
    return *this;
  }
  PointSet& operator=(PointSet&& other) noexcept {
    owned_ = std::move(other.owned_);
    mapping_ = std::move(other.mapping_);
    view_ = std::exchange(other.view_, {});
    return *this;
  }
  ~PointSet() = default;

  std::span<const Point2<T>> points() const { return view_; }
  std::size_t size() const { return view_.size(); }
  /// True when the points are a zero-copy view of the input's memory: a mapped file, or the buffer
  /// standard input was read into (binary of the requested precision).
  bool mapped() const { return mapping_ != nullptr; }

 private:
  std::vector<Point2<T>> owned_;
  std::shared_ptr<const void> mapping_;
  std::span<const Point2<T>> view_;
};

/// Reads and validates a point file; "-" reads standard input.
/// Throws input_error ("FILE:LINE: message", or "FILE: byte OFFSET: message" for binary) for a
/// missing file, garbage tokens, NaN or infinity, literals out of range for T, an odd number of
/// values, a count that disagrees with the data, rows of the wrong width, columns that cannot be
/// selected, truncated binary, or (require_sorted) unsorted data.
template <class T>
PointSet<T> read_points(const std::string& path, const ReadOptions& options = {});

/// The same, from a buffer; `name` stands for the file in messages.
template <class T>
PointSet<T> parse_points(std::string_view data, std::string_view name, const ReadOptions& options = {});

/// Points of a csv file with a group column (the command line's --group-by): each point's group
/// and the groups' ids as written, numbered in the order of each id's first row.
template <class T>
struct GroupedPoints {
  std::vector<Point2<T>> points;
  std::vector<std::int64_t> group_ids;   ///< per point: its group's number (an index into group_names)
  std::vector<std::string> group_names;  ///< per group: its id's text (blanks around and quotes removed)
  std::string group_column;              ///< the group column's name in the header
};

/// Reads csv with a header, one row per point: x and y as ReadOptions::columns selects them (or the
/// columns named x and y), and the group column `group_column` (a header name or a 0-based index,
/// as a column selection takes them), whose fields may hold any text. Throws input_error
/// ("FILE:LINE: message") for what read_points refuses in csv, for a missing header, a group column
/// that is missing or is the x or y column, and for input that is not csv. options.require_sorted
/// is ignored (sortedness belongs to each group: convex_hulls checks it). A file of MiBs is parsed
/// in chunks on all cores.
template <class T>
GroupedPoints<T> read_grouped_points(const std::string& path, std::string_view group_column,
                                     const ReadOptions& options = {});

/// The same, from a buffer; `name` stands for the file in messages.
template <class T>
GroupedPoints<T> parse_grouped_points(std::string_view data, std::string_view name,
                                      std::string_view group_column, const ReadOptions& options = {});

/// One "x y" line per point, each coordinate in shortest round-trip decimal.
template <class T>
std::string format_points(std::span<const Point2<T>> points);

/// Writes format_points(points) to path ("-": standard output). A file is written to a temporary
/// file beside it and renamed into place, so a failure never leaves a partial file.
template <class T>
void write_points(const std::string& path, std::span<const Point2<T>> points);

/// Writes bytes to path atomically (temporary file + rename); "-" writes standard output.
void write_file_atomically(const std::string& path, std::string_view bytes);

}  // namespace wagener
