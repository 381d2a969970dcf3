// The grouped path's inner filter: a point certified strictly inside the polygon of a group's eight
// extreme points is no hull vertex. One branch-free pass per group, with the edges' coefficients
// computed once and a single error margin per edge that holds for every point of the group (the
// group's bounding box bounds every difference), instead of orient2d's per-point error bound.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "cpu/filter_pass.hpp"
#include "wagener/point.hpp"
#include "wagener/predicates.hpp"

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
///
/// 64-bit integers, which double may not hold (beyond 2^53): o is corner 0, and every difference
/// (px - ox, bx - ax, ...) is taken exactly and rounded to double once, which is what fl(px - ox)
/// is for doubles, so the argument holds as it stands, with W and H bounding the exact differences.
/// The box (GroupExtremes) is of the coordinates rounded to double, each within 2^-53 of its own
/// magnitude, so the exact differences exceed its width by at most 2^-52 M (M the box's largest
/// magnitude, rounded); W and H are its width and height plus 2^-50 M, which covers that and the
/// roundings of the sums. Within W, H <= 2^62 every difference fits in 64 bits; a wider box (wide())
/// takes them in 128 bits, exact for any two 64-bit integers, and only the scalar kernel, whose
/// octagon_survivors takes it (the vector kernels subtract in 64-bit lanes).
class OctagonFilter {
 public:
  /// Sets up the edges between the extremes; false when the margin argument above does not apply:
  /// fewer than three distinct corners, or a box too large or too small.
  template <class T>
  bool build(const Point2<T>* group, const GroupExtremes& extremes) {
    double width = extremes.x_max - extremes.x_min, height = extremes.y_max - extremes.y_min;
    if constexpr (kFromOrigin<T>) {
      width += 0x1p-50 * std::fmax(std::fabs(extremes.x_min), std::fabs(extremes.x_max));
      height += 0x1p-50 * std::fmax(std::fabs(extremes.y_min), std::fabs(extremes.y_max));
      wide_ = !(width <= 0x1p62 && height <= 0x1p62);
      const Point2<T>& origin = group[extremes.corner[0]];
      origin_x64_ = origin.x, origin_y64_ = origin.y;
    }
    // The corners (distinct in T: two 64-bit integers may round to one double), as offset() gives
    // them: coordinates, or differences to corner 0.
    Point2<T> corner[8];
    double cx[8], cy[8];
    int corners = 0;
    for (int k = 0; k < 8; ++k) {
      const Point2<T>& p = group[extremes.corner[k]];
      if (corners > 0 && same_point(corner[corners - 1], p)) continue;
      corner[corners] = p, cx[corners] = offset_x(p), cy[corners] = offset_y(p), ++corners;
    }
    while (corners > 1 && same_point(corner[corners - 1], corner[0])) --corners;
    if (corners < 3) return false;
    if (!(width <= kMaxScale && height <= kMaxScale)) return false;
    ox_ = cx[0], oy_ = cy[0];  // 0 for 64-bit integers, whose offsets are already differences to it
    for (int e = 0; e < kEdges; ++e) {
      // Edges past the last corner repeat the first ones: a repeated constraint changes nothing.
      const int a = e % corners, b = (e + 1) % corners;
      if constexpr (kFromOrigin<T>) {
        ex_[e] = exact_difference(corner[b].x, corner[a].x);
        ey_[e] = exact_difference(corner[b].y, corner[a].y);
      } else {
        ex_[e] = cx[b] - cx[a];
        ey_[e] = cy[b] - cy[a];
      }
      const double scale = std::fabs(ex_[e]) * height + std::fabs(ey_[e]) * width;
      if (!(scale >= kMinScale && scale <= kMaxScale)) return false;
      threshold_[e] = side(e, cx[a] - ox_, cy[a] - oy_) + scale * kMargin;
    }
    return true;
  }

  /// True only if p is strictly inside the polygon (see the class comment).
  template <class T>
  bool inside(const Point2<T>& p) const {
    const double u = offset_x(p) - ox_, v = offset_y(p) - oy_;
    bool in = true;
    for (int e = 0; e < kEdges; ++e) in &= side(e, u, v) > threshold_[e];
    return in;
  }

  static constexpr int kEdges = 8;
  // The vector kernels compute inside()'s operations in its order, lane by lane.
  double origin_x() const { return ox_; }
  double origin_y() const { return oy_; }
  /// 64-bit integers: corner 0, from which every coordinate is taken as a difference (offset_x()).
  std::int64_t origin_x64() const { return origin_x64_; }
  std::int64_t origin_y64() const { return origin_y64_; }
  /// 64-bit integers in a box over 2^62 across: the differences in 128 bits, the scalar kernel only.
  bool wide() const { return wide_; }
  double edge_x(int e) const { return ex_[e]; }
  double edge_y(int e) const { return ey_[e]; }
  double threshold(int e) const { return threshold_[e]; }

 private:
  static constexpr double kMargin = 0x1p-48;  // 32 eps: the proof needs a little over 9 eps
  static constexpr double kMinScale = 0x1p-900, kMaxScale = 0x1p1000;

  template <class T>
  static constexpr bool kFromOrigin = std::is_same_v<T, std::int64_t>;

  double side(int e, double u, double v) const { return ex_[e] * v - ey_[e] * u; }

  /// a - b rounded to double once: exact in 128 bits first.
  static double exact_difference(std::int64_t a, std::int64_t b) {
    __extension__ typedef __int128 i128;  // GCC/Clang, as multiply_wide in wagener/predicates.hpp
    return static_cast<double>(static_cast<i128>(a) - static_cast<i128>(b));
  }

  /// A 64-bit coordinate's difference to corner 0's, exact (in 64 bits within the box's bound, else
  /// in 128), rounded once.
  double offset(std::int64_t v, std::int64_t origin) const {
    return wide_ ? exact_difference(v, origin) : static_cast<double>(detail::wrapped_difference(v, origin));
  }

  /// p's coordinates as the tests take them: as doubles; 64-bit integers as offset() gives them.
  template <class T>
  double offset_x(const Point2<T>& p) const {
    if constexpr (kFromOrigin<T>) return offset(p.x, origin_x64_);
    return static_cast<double>(p.x);
  }
  template <class T>
  double offset_y(const Point2<T>& p) const {
    if constexpr (kFromOrigin<T>) return offset(p.y, origin_y64_);
    return static_cast<double>(p.y);
  }

  double ox_ = 0, oy_ = 0;
  std::int64_t origin_x64_ = 0, origin_y64_ = 0;
  bool wide_ = false;
  double ex_[kEdges] = {}, ey_[kEdges] = {}, threshold_[kEdges] = {};
};

/// The indices of group[0, n) that filter.inside() does not certify, ascending, written to
/// survivors[0, k); k returned. `kernel` picks the code (FilterKernel in cpu/filter_pass.hpp); every
/// kernel keeps the same points.
template <class T>
std::uint32_t octagon_survivors(const OctagonFilter& filter, const Point2<T>* group, std::uint32_t n,
                                std::uint32_t* survivors, FilterKernel kernel = FilterKernel::widest);

}  // namespace wagener::cpu
