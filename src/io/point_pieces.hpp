// A point file read in pieces (wagener/stream.hpp's bounded memory): the parsers of the reader
// applied to one window of the file at a time, with the messages of a whole-file read (lines
// numbered across pieces, byte offsets counted from the start of the file).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "wagener/io.hpp"
#include "wagener/point.hpp"

namespace wagener::detail {

/// Raw little-endian records (`format` f32, f64, i32 or i64) that start `base` bytes into the file, whole
/// records only, checked and converted to T as read_points() does; input_error names the file and
/// the byte offset of a non-finite or out-of-range value. The points replace what `points` held,
/// in its storage (a reader of many pieces then faults its pages in once).
template <class T>
void decode_binary_piece(std::string_view bytes, Format format, std::uint64_t base, std::string_view name,
                         std::vector<Point2<T>>& points);

/// Text or csv read as consecutive pieces of whole lines, in file order. The first pieces hold the
/// preamble (comments, a csv header, the seed's count), which decides how the rest is read; the
/// seed's count is checked against the values of all the pieces by finish().
template <class T>
class TextPieceParser {
 public:
  TextPieceParser(std::string name, bool csv, ColumnSelection columns);
  ~TextPieceParser();
  TextPieceParser(const TextPieceParser&) = delete;
  TextPieceParser& operator=(const TextPieceParser&) = delete;

  /// The points of the next piece (whole lines; the last piece may lack its final newline).
  std::vector<Point2<T>> parse(std::string_view piece);
  /// After the last piece: throws input_error when the seed's count disagrees with the values.
  void finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace wagener::detail
