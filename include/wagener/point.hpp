// Point2<T>: the one point type of the library (layout-compatible with CUDA's float2/double2).
#pragma once

#include "wagener/config.hpp"

namespace wagener {

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

}  // namespace wagener
