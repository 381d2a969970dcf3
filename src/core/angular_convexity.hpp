// The dense guide's check (cuda/dense_guide.cu): how many points of a sample are in convex position
// with their neighbours in angular order around a centre c. Sort the sample by pseudo-angle around
// c, and count the points b whose neighbours a (before) and c' (after, cyclically) make a strict left
// turn (a, b, c') certified by orient2d's filter. On a curve whose points are exact (a double circle)
// every point turns left; where rounding noise is larger than the curve's bend between neighbours (a
// float circle), about half of them do. It is a cheap stand-in for the share of hull vertices of the
// sample (one sort and one pass, no hull), which tracks it (bench/NOTES.md); only a heuristic: an
// uncertain turn, a tie in angle or a non-finite point counts as not convex.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/inner_polygon.hpp"
#include "wagener/config.hpp"
#include "wagener/point.hpp"
#include "wagener/predicates.hpp"

namespace wagener::core {

/// The sort key of (px, py) around (cx, cy): its pseudo-angle in [0, 4) scaled to 32 bits (2^-30
/// apart, far below the angle between neighbours of a sample of 2^16 points). 0 where the angle is
/// not in [0, 4): a non-finite point, an overflowed difference, or the angle 4 (the direction of 0).
WAGENER_HD inline std::uint32_t angle_key(double px, double py, double cx, double cy) {
  const double a = pseudo_angle(px - cx, py - cy);
  return a >= 0 && a < 4 ? static_cast<std::uint32_t>(a * 0x1p30) : 0u;
}

/// True when (a, b, c) is certified a strict left turn by orient2d's filter (an uncertain turn,
/// collinear or duplicate points, a NaN or infinite coordinate: false).
template <class T>
WAGENER_HD bool certified_left_turn(const Point2<T>& a, const Point2<T>& b, const Point2<T>& c) {
  return orient2d_certified(static_cast<double>(a.x), static_cast<double>(a.y), static_cast<double>(b.x),
                            static_cast<double>(b.y), static_cast<double>(c.x), static_cast<double>(c.y)) > 0;
}

/// Host reference of the check's statistic (for tests; the GPU computes it with a radix sort of the
/// same keys, also stable, and a kernel over the same turns): the number of sample points that make a
/// certified left turn with their neighbours in the order of angle_key around (cx, cy), ties in key
/// kept in sample order. Fewer than 3 points: 0.
template <class T>
index_t angular_convex_count(std::span<const Point2<T>> sample, double cx, double cy) {
  const std::size_t m = sample.size();
  if (m < 3) return 0;
  std::vector<std::pair<std::uint32_t, std::size_t>> order(m);
  for (std::size_t s = 0; s < m; ++s) {
    order[s] = {angle_key(static_cast<double>(sample[s].x), static_cast<double>(sample[s].y), cx, cy), s};
  }
  std::sort(order.begin(), order.end());  // (key, sample index): the stable order by key
  index_t convex = 0;
  for (std::size_t i = 0; i < m; ++i) {
    const Point2<T>& a = sample[order[i == 0 ? m - 1 : i - 1].second];
    const Point2<T>& b = sample[order[i].second];
    const Point2<T>& c = sample[order[i + 1 == m ? 0 : i + 1].second];
    convex += certified_left_turn(a, b, c) ? 1 : 0;
  }
  return convex;
}

}  // namespace wagener::core
