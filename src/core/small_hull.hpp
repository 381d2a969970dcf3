// The hull of one small group, shared by the CPU and CUDA grouped paths: a filter that drops points
// certified strictly inside the quadrilateral of four extreme points (Akl-Toussaint), and Andrew's
// monotone chain over sorted points in place, with no allocation, so that a CPU thread or a GPU
// thread can run it on its own group in registers, the cache or shared memory.
#pragma once

#include "wagener/config.hpp"
#include "wagener/hull.hpp"
#include "wagener/point.hpp"
#include "wagener/predicates.hpp"

namespace wagener::core {

/// The four extreme points of a group, counter-clockwise: the lexicographically smallest (x, y),
/// the smallest by (y, x), the largest (x, y), the largest by (y, x). Each is an input point.
template <class T>
struct ExtremeQuad {
  Point2<T> corner[4] = {};

  WAGENER_HD void start(const Point2<T>& p) {
    for (auto& c : corner) c = p;
  }
  WAGENER_HD void add(const Point2<T>& p) {
    if (lex_less(p, corner[0])) corner[0] = p;
    if (p.y < corner[1].y || (p.y == corner[1].y && p.x < corner[1].x)) corner[1] = p;
    if (lex_less(corner[2], p)) corner[2] = p;
    if (p.y > corner[3].y || (p.y == corner[3].y && p.x > corner[3].x)) corner[3] = p;
  }

  /// True when p is certified strictly left of all four edges, so strictly inside the hull of the
  /// corners and never a hull vertex. A degenerate quadrilateral (repeated or collinear corners) has
  /// an edge no point is strictly left of: it certifies nothing, which is safe.
  WAGENER_HD bool strictly_inside(const Point2<T>& p) const {
    const auto px = static_cast<double>(p.x), py = static_cast<double>(p.y);
    bool inside = true;
    for (int e = 0; e < 4; ++e) {
      const Point2<T>& a = corner[e];
      const Point2<T>& b = corner[(e + 1) & 3];
      inside &= orient2d_certified(static_cast<double>(a.x), static_cast<double>(a.y),
                                   static_cast<double>(b.x), static_cast<double>(b.y), px, py) > 0;
    }
    return inside;
  }
};

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
  // Upper chains keep right turns (orient < 0), lower chains left turns: pop while the turn is not
  // strictly of the kept sign.
  const int keep = part == HullPart::upper ? -1 : 1;
  int k = 0;
  for (int i = 0; i < n; ++i) {
    if (k > 0 && same_point(point(out[k - 1]), point(sorted[i]))) continue;
    while (k >= 2 && orient2d(point(out[k - 2]), point(out[k - 1]), point(sorted[i])) * keep <= 0) --k;
    out[k++] = sorted[i];
  }
  if (part == HullPart::upper || k == 1) return k;
  // The upper chain, from the largest point back to the smallest, on top of the lower chain.
  const int lower = k;
  for (int i = n - 2; i >= 0; --i) {
    // Backwards, the first of equal points comes last: it replaces the copy on top.
    if (same_point(point(out[k - 1]), point(sorted[i]))) {
      out[k - 1] = sorted[i];
      continue;
    }
    while (k > lower && orient2d(point(out[k - 2]), point(out[k - 1]), point(sorted[i])) <= 0) --k;
    out[k++] = sorted[i];
  }
  return k - 1;  // the last is the smallest point again
}

}  // namespace wagener::core
