// The hull of one small group, shared by the CPU and CUDA grouped paths: a filter that drops points
// certified strictly inside the quadrilateral of four extreme points (Akl-Toussaint), and Andrew's
// monotone chain over sorted points in place, with no allocation, so that a CPU thread or a GPU
// thread can run it on its own group in registers, the cache or shared memory.
#pragma once

#include <cmath>
#include <type_traits>

#include "wagener/config.hpp"
#include "wagener/hull.hpp"
#include "wagener/point.hpp"
#include "wagener/predicates.hpp"

namespace wagener::core {

/// A convex filter polygon of up to eight extreme points of a group (Akl-Toussaint), counter-
/// clockwise: the extremes of x, x + y, y and x - y. Its corners are input points, so a point strictly
/// inside it is strictly inside the group's hull and never a vertex. Its tests run in double; for
/// 64-bit integer points with a corner double does not hold (beyond 2^53), on differences taken in
/// 64 bits, then rounded (orient2d_certified of Point2<std::int64_t>), and without the box. The keys
/// are rounded sums, which only decide which points become corners: a point strictly left of every
/// edge of any closed polygon of input points (convex or not) is strictly inside their hull, since
/// the edges then wind around it. A 100-point disk keeps about a tenth of its points (four corners
/// kept a third).
template <class T>
class ExtremePolygon {
 public:
  static constexpr int kCorners = 8;

  WAGENER_HD void start(const Point2<T>& p) {
    for (auto& c : corner_) c = p;
    for (int k = 0; k < kCorners; ++k) key_[k] = key(p, k);
  }

  WAGENER_HD void add(const Point2<T>& p) {
    const auto x = static_cast<double>(p.x), y = static_cast<double>(p.y);
    const double keys[4] = {x, x + y, y, y - x};
    // Corners 0-3 hold minima, 4-7 maxima (of the same four keys, in counter-clockwise order).
    for (int k = 0; k < 4; ++k) {
      if (keys[k] < key_[k]) key_[k] = keys[k], corner_[k] = p;
      if (keys[k] > key_[k + 4]) key_[k + 4] = keys[k], corner_[k + 4] = p;
    }
  }

#if defined(__CUDACC__)
  /// Combines the extremes of a warp's lanes (each over its own points): afterwards every lane holds
  /// extremes of all of them. Ties may leave lanes with different, equally extreme corners, which is
  /// fine: any input points are valid corners.
  __device__ void reduce_warp() {
    for (int offset = 16; offset > 0; offset /= 2) {
      for (int k = 0; k < kCorners; ++k) {
        const double key = __shfl_xor_sync(0xffffffffu, key_[k], offset);
        const T x = __shfl_xor_sync(0xffffffffu, corner_[k].x, offset);
        const T y = __shfl_xor_sync(0xffffffffu, corner_[k].y, offset);
        if (k < 4 ? key < key_[k] : key > key_[k]) key_[k] = key, corner_[k] = {x, y};
      }
    }
  }
#endif

  /// Drops repeated consecutive corners (an edge of length 0 certifies nothing). After this, fewer
  /// than 3 corners disable the test.
  WAGENER_HD void finish() {
    for (int d = 0; d < 4; ++d) diagonal_[d] = corner_[2 * d + 1];
    int kept = 0;
    for (int k = 0; k < kCorners; ++k) {
      if (kept == 0 || !same_point(corner_[kept - 1], corner_[k])) corner_[kept++] = corner_[k];
    }
    while (kept > 1 && same_point(corner_[kept - 1], corner_[0])) --kept;
    corners_ = kept;
    if (corners_ < 3) return;
    // The tests in double: with a corner that double does not hold (a 64-bit integer beyond 2^53)
    // they would test another polygon, so such a polygon takes the points' differences in 64 bits
    // (wide_) and has no box, whose corners are doubles. With every corner exact the doubles certify
    // no rounded point (converts_exactly in wagener/point.hpp).
    for (int k = 0; k < kept; ++k) wide_ = wide_ || !converts_exactly(corner_[k]);
    if (wide_) return;
    // The box between the diagonal corners, shrunk a little so that its corners fall strictly
    // inside; used only if the exact test certifies all four corners (then the whole closed box is
    // inside the open, convex set the edges bound).
    double x0 = fmax(static_cast<double>(diagonal_[0].x), static_cast<double>(diagonal_[3].x));
    double x1 = fmin(static_cast<double>(diagonal_[1].x), static_cast<double>(diagonal_[2].x));
    double y0 = fmax(static_cast<double>(diagonal_[0].y), static_cast<double>(diagonal_[1].y));
    double y1 = fmin(static_cast<double>(diagonal_[2].y), static_cast<double>(diagonal_[3].y));
    const double dx = (x1 - x0) * kBoxShrink, dy = (y1 - y0) * kBoxShrink;
    x0 += dx, x1 -= dx, y0 += dy, y1 -= dy;
    if (x0 < x1 && y0 < y1 && polygon_inside(x0, y0) && polygon_inside(x1, y0) && polygon_inside(x1, y1) &&
        polygon_inside(x0, y1)) {
      box_x0_ = x0, box_x1_ = x1, box_y0_ = y0, box_y1_ = y1;
    }
  }

  /// True when p is certified strictly left of every edge (orient2d's filter: exact when it says so).
  WAGENER_HD bool strictly_inside(const Point2<T>& p) const {
    if constexpr (!exact_in_double_v<T>) {
      if (wide_) return polygon_inside_wide(p);
    }
    const auto px = static_cast<double>(p.x), py = static_cast<double>(p.y);
    // Most interior points fall in the box: four exact comparisons instead of eight orientations.
    if (box_x0_ < px && px < box_x1_ && box_y0_ < py && py < box_y1_) return true;
    return polygon_inside(px, py);
  }

 private:
  // Shrinks the box between the diagonal corners by this fraction of its width on each side.
  static constexpr double kBoxShrink = 1.0 / 64;

  WAGENER_HD bool polygon_inside(double px, double py) const {
    if (corners_ < 3) return false;
    for (int e = 0; e < corners_; ++e) {
      const Point2<T>& a = corner_[e];
      const Point2<T>& b = corner_[e + 1 == corners_ ? 0 : e + 1];
      if (orient2d_certified(static_cast<double>(a.x), static_cast<double>(a.y), static_cast<double>(b.x),
                             static_cast<double>(b.y), px, py) <= 0)
        return false;
    }
    return true;
  }

  /// polygon_inside for 64-bit points and corners: each orientation's differences exact in 64 bits
  /// (none certified where one does not fit).
  WAGENER_HD bool polygon_inside_wide(const Point2<T>& p) const {
    if (corners_ < 3) return false;
    for (int e = 0; e < corners_; ++e) {
      if (orient2d_certified(corner_[e], corner_[e + 1 == corners_ ? 0 : e + 1], p) <= 0) return false;
    }
    return true;
  }

  // Corner k is the extreme in the outward direction k * 45 degrees counter-clockwise from -x: the
  // minima of x, x + y, y, y - x, then their maxima.
  WAGENER_HD static double key(const Point2<T>& p, int k) {
    const auto x = static_cast<double>(p.x), y = static_cast<double>(p.y);
    switch (k & 3) {
      case 0: return x;
      case 1: return x + y;
      case 2: return y;
      default: return y - x;
    }
  }

  Point2<T> corner_[kCorners] = {};
  Point2<T> diagonal_[4] = {};  // the extremes of x + y and y - x before repeats are dropped
  double box_x0_ = 0, box_x1_ = 0, box_y0_ = 0, box_y1_ = 0;  // empty: disabled
  double key_[kCorners] = {};
  int corners_ = 0;
  bool wide_ = false;  // a corner beyond double's exact range (64-bit integers): polygon_inside_wide
};

/// One pass of Andrew's monotone chain over `n` elements sorted by point (lexicographically; ties in
/// any order), forwards or backwards, written to out[0, k), k returned: pops while the turn's sign
/// times `keep` is not positive, so keep = 1 keeps left turns (the lower chain forwards, the upper
/// chain backwards) and keep = -1 right turns (the upper chain forwards). Of equal points the first
/// in the input is kept: a forward pass skips later copies, and in a backward pass each earlier copy
/// replaces the one on top. The two directions are one loop, so that two threads of a warp can run
/// the lower and the upper chain of one hull side by side without diverging. out must hold n
/// elements and must not overlap the input.
template <class Element, class PointOf>
WAGENER_HD int chain_pass(const Element* sorted, int n, bool backward, int keep, Element* out,
                          PointOf point) {
  // The top two points of the chain stay in registers (`below`, then `top`): on a device each
  // element is an index into shared memory, and reloading them for every test doubled the loads.
  using P = std::decay_t<decltype(point(sorted[0]))>;
  P below{}, top{};
  int k = 0;
  for (int step = 0; step < n; ++step) {
    const Element e = sorted[backward ? n - 1 - step : step];
    const P p = point(e);
    if (k > 0 && same_point(top, p)) {
      if (backward) out[k - 1] = e;
      continue;
    }
    while (k >= 2 && orient2d(below, top, p) * keep <= 0) {
      --k;
      top = below;
      if (k >= 2) below = point(out[k - 2]);
    }
    out[k++] = e;
    below = top;
    top = p;
  }
  return k;
}

/// The size of a full hull from its two passes: `lower` elements forwards (from the smallest point to
/// the largest) and `upper` backwards (from the largest back to the smallest); the hull is the lower
/// chain, then the upper chain without its first (the largest point again) and last (the smallest).
WAGENER_HD inline int full_chain_size(int lower, int upper) {
  return lower == 1 ? 1 : lower + upper - 2;
}

/// Andrew's monotone chain over `n` elements sorted by point (lexicographically; ties in any order,
/// the first of equal points is the one kept), written to out[0, k), k returned. `point(e)` gives an
/// element's point, so elements may carry an index along. out must hold n + 1 elements and must
/// not overlap the input.
/// Post (part full): the strict vertices counter-clockwise from the smallest point, one for a single
///   distinct point, two for collinear points; (part upper): the strict vertices of the upper chain
///   from the smallest to the largest point. Both as compute_hull() gives them.
template <class Element, class PointOf>
WAGENER_HD int chain_sorted(const Element* sorted, int n, Element* out, HullPart part, PointOf point) {
  if (n == 0) return 0;
  const bool upper_only = part == HullPart::upper;
  const int lower = chain_pass(sorted, n, false, upper_only ? -1 : 1, out, point);
  if (upper_only || lower == 1) return lower;
  // The upper chain, from the largest point back to the smallest, on top of the lower chain: its
  // first element is the lower chain's last (the same first copy of the largest point).
  const int upper = chain_pass(sorted, n, true, 1, out + lower - 1, point);
  return full_chain_size(lower, upper);
}

}  // namespace wagener::core
