// Point2<T>: the one point type of the library (layout-compatible with CUDA's float2/double2,
// int2 and longlong2), and what differs per coordinate type T.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "wagener/config.hpp"

namespace wagener {

/// The coordinate types the library hulls: float, double, std::int32_t and std::int64_t. A point
/// set is hulled in its own type, never converted: integer points give integer hulls.
template <class T>
inline constexpr bool is_coordinate_v = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                        std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>;

/// MACRO(T) for each coordinate type, in the order above: the library's explicit instantiations, so
/// that adding or removing a type is one edit here and in is_coordinate_v.
#define WAGENER_FOR_EACH_COORDINATE(MACRO) MACRO(float) MACRO(double) MACRO(std::int32_t) MACRO(std::int64_t)

/// Whether every value of T converts to double exactly: float and 32-bit integers do, 64-bit
/// integers do only up to 2^53 in magnitude. Where it holds, the library's floating-point filters
/// and predicates take T's points as doubles; where not, see converts_exactly().
template <class T>
inline constexpr bool exact_in_double_v = !(std::is_integral_v<T> && sizeof(T) > 4);

template <class T>
struct alignas(2 * sizeof(T)) Point2 {
  T x;
  T y;
  // Spelled out: nvcc's front end rejects a defaulted friend comparison.
  friend constexpr bool operator==(const Point2& a, const Point2& b) { return a.x == b.x && a.y == b.y; }
};

/// Lexicographic order (x, then y): the order hoods are built in.
template <class T>
WAGENER_HD constexpr bool lex_less(const Point2<T>& a, const Point2<T>& b) {
  return a.x < b.x || (a.x == b.x && a.y < b.y);
}

template <class T>
WAGENER_HD constexpr bool same_point(const Point2<T>& a, const Point2<T>& b) {
  return a.x == b.x && a.y == b.y;
}

/// Neither coordinate is NaN or infinite (integer points always pass).
template <class T>
WAGENER_HD inline bool is_finite(const Point2<T>& p) {
  if constexpr (std::is_integral_v<T>) {
    return true;
  } else {
#if defined(__CUDA_ARCH__)
    return isfinite(p.x) && isfinite(p.y);
#else
    return std::isfinite(p.x) && std::isfinite(p.y);
#endif
  }
}

/// Magnitudes below this bound convert from a 64-bit integer to double exactly (2^53).
inline constexpr std::int64_t kExactInDoubleBound = std::int64_t{1} << 53;

/// p's coordinates convert to double exactly: always unless T is a 64-bit integer, and then when
/// |x|, |y| < 2^53. The floating-point filters (inner polygons, octagons, extreme polygons) take
/// their corners from such points only. Their tests then certify no other point: a point is
/// certified only strictly inside a polygon of these corners, in the open box |x|, |y| < 2^53, and
/// rounding to double is monotone, so a 64-bit point rounded into that box was exact to begin with.
template <class T>
WAGENER_HD constexpr bool converts_exactly(const Point2<T>& p) {
  if constexpr (exact_in_double_v<T>) {
    return true;
  } else {
    const T x = p.x, y = p.y;
    return x < kExactInDoubleBound && x > -kExactInDoubleBound && y < kExactInDoubleBound &&
           y > -kExactInDoubleBound;
  }
}

/// The same test for a coordinate already rounded to double: |v| < 2^53 holds for the rounded
/// value exactly when it holds for the 64-bit integer it came from (rounding is monotone and 2^53
/// is a double), and then the rounding was exact.
WAGENER_HD constexpr bool rounded_exactly(double v) {
  return v < 0x1p53 && v > -0x1p53;
}

}  // namespace wagener
