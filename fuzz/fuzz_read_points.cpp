// Fuzz target: the point readers (text, csv with or without a column selection, f32, f64), in float
// and double, and (the first byte's top bit) text, csv, i32 and i64 in int32 and int64. The first byte
// picks the format, the precision, the column selection and the sorted check; the rest is the file.
// A read either throws input_error or returns finite points that
//  * text and csv: written as "x y" lines and read back as text, are the same values, bit for bit;
//  * f32, f64, i32 and i64: are the file's values (converted to the precision read);
//  * with the sorted check: are sorted by (x, y).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "fuzz_common.hpp"
#include "wagener/error.hpp"
#include "wagener/io.hpp"

namespace {

using wagener::fuzz::require;

const wagener::ColumnSelection kSelections[] = {{},         {"0", "1"}, {"x", "y"},
                                                {"1", "0"}, {"b", "a"}, {"2", "0"}};

template <class T, class Stored>
void check_binary(std::string_view file, std::span<const wagener::Point2<T>> points) {
  const std::size_t values = file.size() / sizeof(Stored);
  require(file.size() % (2 * sizeof(Stored)) == 0, "a truncated binary file was accepted");
  require(points.size() * 2 == values, "binary: point count differs from the file's");
  for (std::size_t i = 0; i < values; ++i) {
    Stored stored;
    std::memcpy(&stored, file.data() + i * sizeof(Stored), sizeof(Stored));
    const T read = i % 2 == 0 ? points[i / 2].x : points[i / 2].y;
    require(static_cast<T>(stored) == read && std::signbit(read) == std::signbit(stored),
            "binary: value " + std::to_string(i) + " differs from the file's");
  }
}

template <class T>
void check_read(std::string_view file, const wagener::ReadOptions& options) {
  wagener::PointSet<T> set;
  try {
    set = wagener::parse_points<T>(file, "fuzz", options);
  } catch (const wagener::input_error& e) {
    require(std::string_view(e.what()).starts_with("fuzz"), "an input error that does not name the file");
    return;
  }
  const auto points = set.points();
  for (const auto& p : points) require(wagener::is_finite(p), "a non-finite point was accepted");
  if (options.require_sorted)
    for (std::size_t i = 1; i < points.size(); ++i)
      require(!wagener::lex_less(points[i], points[i - 1]), "unsorted points passed the sorted check");
  switch (options.format) {
    case wagener::Format::f32: check_binary<T, float>(file, points); return;
    case wagener::Format::f64: check_binary<T, double>(file, points); return;
    case wagener::Format::i32: check_binary<T, std::int32_t>(file, points); return;
    case wagener::Format::i64: check_binary<T, std::int64_t>(file, points); return;
    default: break;
  }
  // Shortest round-trip decimal, read back: the same values.
  const std::string text = wagener::format_points<T>(points);
  wagener::ReadOptions again;
  again.format = wagener::Format::text;
  const auto reread = wagener::parse_points<T>(text, "formatted", again);
  require(wagener::fuzz::same_bits(points, reread.points()),
          "format_points then parse_points changed the points");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t choice = bytes[0];
  const std::string_view file(reinterpret_cast<const char*>(bytes + 1), size - 1);
  wagener::ReadOptions options;
  const bool integers = (choice & 128) != 0;
  const wagener::Format formats[2][4] = {
      {wagener::Format::text, wagener::Format::csv, wagener::Format::f32, wagener::Format::f64},
      {wagener::Format::text, wagener::Format::csv, wagener::Format::i32, wagener::Format::i64}};
  options.format = formats[integers][choice & 3];
  options.require_sorted = (choice & 4) != 0;
  const bool text_like = options.format == wagener::Format::text || options.format == wagener::Format::csv;
  if (text_like) options.columns = kSelections[(choice >> 4) % std::size(kSelections)];
  if (integers) {
    if (choice & 8)
      check_read<std::int32_t>(file, options);
    else
      check_read<std::int64_t>(file, options);
  } else if (choice & 8) {
    check_read<float>(file, options);
  } else {
    check_read<double>(file, options);
  }
  return 0;
}
