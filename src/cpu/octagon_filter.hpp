// The grouped path's inner filter: a point certified strictly inside the polygon of a group's eight
// extreme points is no hull vertex. One branch-free pass per group, with the edges' coefficients
// computed once and a single error margin per edge that holds for every point of the group (the
// group's bounding box bounds every difference), instead of orient2d's per-point error bound.
#pragma once

#include <cmath>
#include <cstdint>

#include "cpu/filter_pass.hpp"
#include "wagener/point.hpp"

namespace wagener::cpu {

/// The extremes of x, x + y, y and y - x (minima, then maxima: counter-clockwise from -x), as
/// indices into the group, and the group's bounding box (exact: min and max of x and y).
struct GroupExtremes {
  std::uint32_t corner[8] = {};
  double x_min = 0, x_max = 0, y_min = 0, y_max = 0;
  bool finite = true;  ///< false when some coordinate is not finite
};

/// One pass over a group of n >= 1 points. The rounded keys x + y and y - x only choose which points
/// become corners, and any input points are valid corners. Each extreme is its first occurrence
/// (the smallest index among equal keys), whichever kernel (FilterKernel) runs.
template <class T>
GroupExtremes find_extremes(const Point2<T>* group, std::uint32_t n,
                            FilterKernel kernel = FilterKernel::widest);

/// The polygon of a group's extreme points, counter-clockwise, as eight edges (a polygon of fewer
/// distinct corners repeats an edge). inside(p) is true only if p is strictly left of every edge,
/// hence strictly inside the group's hull (the edges wind around p, and their ends are input points).
///
/// Why one margin per edge is enough. Take an edge a -> b, a reference point o of the group, and a
/// point p of the group; u = fl(px - ox), v = fl(py - oy), ex = fl(bx - ax), ey = fl(by - ay) and
/// f(p) = fl(fl(ex v) - fl(ey u)). The exact orientation is D(p) = L(p - o) - L(a - o) with
/// L(q) = (bx - ax) qy - (by - ay) qx, and each of f(p), f(a) is within 4.001 eps S* of L
/// (eps = 2^-53, S* = |bx - ax| H + |by - ay| W, W and H the bounding box's width and height, which
/// bound |px - ox| and |py - oy|; three roundings in each product, one in the difference), plus at
/// most 2^-1074 per underflowed product. The threshold is t = fl(f(a) + 2^-48 S) with S the rounded
/// S* (S* <= (1 + 5 eps) S), so f(p) > t gives f(p) - f(a) > 32 eps S - eps (|f(a)| + 32 eps S)
/// >= 30.9 eps S*, and D(p) > 30.9 eps S* - 8.001 eps S* - 2^-1072 > 0 when S >= 2^-900. With
/// S <= 2^1000 nothing overflows. Outside that range build() refuses and the caller falls back to
/// orient2d's filter. The price: points within about 2^-48 S* of an edge survive the filter
/// (exactly decided later by the chain), a negligible share.
class OctagonFilter {
 public:
  /// Sets up the edges between the extremes; false when the margin argument above does not apply
  /// (fewer than three distinct corners, or a box too large or too small), and for 64-bit integer
  /// points unless the whole box lies within |x|, |y| < 2^53 (then every point of the group is exact
  /// in double, as the argument takes them).
  template <class T>
  bool build(const Point2<T>* group, const GroupExtremes& extremes) {
    if constexpr (!exact_in_double_v<T>) {
      if (!(rounded_exactly(extremes.x_min) && rounded_exactly(extremes.x_max) &&
            rounded_exactly(extremes.y_min) && rounded_exactly(extremes.y_max)))
        return false;
    }
    double cx[8], cy[8];
    int corners = 0;
    for (int k = 0; k < 8; ++k) {
      const Point2<T>& p = group[extremes.corner[k]];
      const auto x = static_cast<double>(p.x), y = static_cast<double>(p.y);
      if (corners > 0 && cx[corners - 1] == x && cy[corners - 1] == y) continue;
      cx[corners] = x, cy[corners] = y, ++corners;
    }
    while (corners > 1 && cx[corners - 1] == cx[0] && cy[corners - 1] == cy[0]) --corners;
    if (corners < 3) return false;
    const double width = extremes.x_max - extremes.x_min, height = extremes.y_max - extremes.y_min;
    if (!(width <= kMaxScale && height <= kMaxScale)) return false;
    ox_ = cx[0], oy_ = cy[0];
    for (int e = 0; e < kEdges; ++e) {
      // Edges past the last corner repeat the first ones: a repeated constraint changes nothing.
      const int a = e % corners, b = (e + 1) % corners;
      ex_[e] = cx[b] - cx[a];
      ey_[e] = cy[b] - cy[a];
      const double scale = std::fabs(ex_[e]) * height + std::fabs(ey_[e]) * width;
      if (!(scale >= kMinScale && scale <= kMaxScale)) return false;
      threshold_[e] = side(e, cx[a] - ox_, cy[a] - oy_) + scale * kMargin;
    }
    return true;
  }

  /// True only if p is strictly inside the polygon (see the class comment).
  template <class T>
  bool inside(const Point2<T>& p) const {
    const double u = static_cast<double>(p.x) - ox_, v = static_cast<double>(p.y) - oy_;
    bool in = true;
    for (int e = 0; e < kEdges; ++e) in &= side(e, u, v) > threshold_[e];
    return in;
  }

  static constexpr int kEdges = 8;
  // The vector kernels compute inside()'s operations in its order, lane by lane.
  double origin_x() const { return ox_; }
  double origin_y() const { return oy_; }
  double edge_x(int e) const { return ex_[e]; }
  double edge_y(int e) const { return ey_[e]; }
  double threshold(int e) const { return threshold_[e]; }

 private:
  static constexpr double kMargin = 0x1p-48;  // 32 eps: the proof needs a little over 9 eps
  static constexpr double kMinScale = 0x1p-900, kMaxScale = 0x1p1000;

  double side(int e, double u, double v) const { return ex_[e] * v - ey_[e] * u; }

  double ox_ = 0, oy_ = 0;
  double ex_[kEdges] = {}, ey_[kEdges] = {}, threshold_[kEdges] = {};
};

/// The indices of group[0, n) that filter.inside() does not certify, ascending, written to
/// survivors[0, k); k returned. `kernel` picks the code (FilterKernel in cpu/filter_pass.hpp); every
/// kernel keeps the same points.
template <class T>
std::uint32_t octagon_survivors(const OctagonFilter& filter, const Point2<T>* group, std::uint32_t n,
                                std::uint32_t* survivors, FilterKernel kernel = FilterKernel::widest);

}  // namespace wagener::cpu
