// Branch-free scans of a block of points for the two promises an input can break: a non-finite
// coordinate, and (presorted input) a point before its predecessor. The loops have no branch a
// point, so that the compiler vectorizes them; a caller rescans a flagged block point by point to
// name the point. The binary reader validates with them as it reads, the cpu backend checks the
// presorted promise with them as it filters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "wagener/point.hpp"

namespace wagener::core {

/// Whether any of `values` consecutive floating-point values of type V at `bytes` (any alignment) is
/// NaN or infinite: its exponent bits all set. Tested on the 32 bits that hold the exponent (all of a
/// float, a double's high half), because SSE2, the x86-64 baseline, compares 32-bit lanes but not
/// 64-bit ones: tested whole, doubles were scanned one at a time (10^8 points: 83 ms on one core), by
/// their high halves four at a time (44 ms).
template <class V>
bool any_non_finite_value(const char* bytes, std::size_t values) {
  static_assert(std::is_floating_point_v<V> && (sizeof(V) == 4 || sizeof(V) == 8));
  constexpr std::uint32_t kExponent = sizeof(V) == 4 ? 0x7f800000u : 0x7ff00000u;
  unsigned bad = 0;
  for (std::size_t v = 0; v < values; ++v) {
    std::uint32_t word;
    std::memcpy(&word, bytes + v * sizeof(V) + sizeof(V) - sizeof word, sizeof word);
    bad |= (word & kExponent) == kExponent;
  }
  return bad != 0;
}

/// Whether any coordinate of points[begin, end) is NaN or infinite (never, for integers).
template <class T>
bool any_non_finite_point(const Point2<T>* points, std::size_t begin, std::size_t end) {
  if constexpr (std::is_integral_v<T>) {
    return false;
  } else {
    return any_non_finite_value<T>(reinterpret_cast<const char*>(points + begin), 2 * (end - begin));
  }
}

/// Whether b comes before a; branch-free so that block scans vectorize.
template <class T>
constexpr bool out_of_order(const Point2<T>& a, const Point2<T>& b) {
  return (b.x < a.x) | ((b.x == a.x) & (b.y < a.y));
}

namespace detail {

template <class T>
[[gnu::always_inline]] inline bool any_out_of_order_loop(const Point2<T>* points, std::size_t first,
                                                         std::size_t stop) {
  unsigned bad = 0;
  for (std::size_t i = first; i < stop; ++i) bad |= out_of_order(points[i - 1], points[i]);
  return bad != 0;
}

#if defined(__x86_64__) && defined(__GNUC__)
// The same loop vectorized for AVX2, where the processor has it: the baseline (SSE2) has no 64-bit
// integer compare and packs the doubles' compare masks slowly (10^7 f64 points on one core of the
// development machine: 14.5 ms for the baseline's loop, 5.3 ms for AVX2's; the read alone 7).
template <class T>
[[gnu::target("avx2")]] bool any_out_of_order_avx2(const Point2<T>* points, std::size_t first,
                                                   std::size_t stop) {
  return any_out_of_order_loop(points, first, stop);
}
#endif

}  // namespace detail

/// Whether any point of [first, stop) (first >= 1) comes before its predecessor. (Testing x alone
/// first, which grows at every step of a block without equal x, saved a quarter on random points and
/// cost half again where x repeats.)
template <class T>
bool any_out_of_order(const Point2<T>* points, std::size_t first, std::size_t stop) {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return detail::any_out_of_order_avx2(points, first, stop);
#endif
  return detail::any_out_of_order_loop(points, first, stop);
}

}  // namespace wagener::core
