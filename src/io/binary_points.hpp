// Binary records: f32, f64, i32 and i64 point files (little-endian x, y pairs), validated on all
// cores and decoded, or handed out in place as a view of the file's bytes.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "wagener/io.hpp"
#include "wagener/point.hpp"

namespace wagener::reading {

// Binary files are reinterpreted in place, so the host must share their layout.
static_assert(std::endian::native == std::endian::little, "binary point files are little-endian");
static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559);
static_assert(sizeof(Point2<float>) == 2 * sizeof(float) && sizeof(Point2<double>) == 2 * sizeof(double));

/// The binary format whose records are T's points, which are read in place (without conversion).
template <class T>
constexpr Format kNativeFormat = std::is_same_v<T, float>          ? Format::f32
                                 : std::is_same_v<T, double>       ? Format::f64
                                 : std::is_same_v<T, std::int32_t> ? Format::i32
                                                                   : Format::i64;

/// The bytes of one record, a point of F (float, double, int32 or int64) values.
template <class F>
constexpr std::uint64_t kRecordBytes = 2 * sizeof(F);

/// Throws input_error, naming the file and the offset of the cut record, unless `size` bytes are
/// whole records of F.
template <class F>
void check_whole_records(std::size_t size, std::string_view name);

/// Validates points already in T = file precision (the zero-copy view of a mapping): every value
/// finite (integers always are) and, if require_sorted, the points in lexicographic order.
/// input_error names the byte offset of the first problem.
template <class T>
void validate_binary(std::span<const Point2<T>> points, bool require_sorted, std::string_view name);

/// Decodes binary F records from (possibly unaligned) bytes into T points, validated as
/// validate_binary does, and every value checked to fit T: doubles to float rounded (neither
/// overflowing nor vanishing), every other conversion exact (an integer in range; a float that is
/// an integer, for integer T; an integer that the float type holds exactly).
template <class T, class F>
std::vector<Point2<T>> decode_binary(std::string_view data, bool require_sorted, std::string_view name);

}  // namespace wagener::reading
