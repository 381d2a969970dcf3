// Points of a sorted input that cannot be vertices of its upper hull, told from their two input
// neighbours alone, with no exact arithmetic: the guide filter's thinning of what its guide keeps
// (src/cuda/upper_hull.cu, FilterThinning).
//
// A point b of the input is no strict vertex of the upper hull of any set that holds two other input
// points a and c with b on the closed segment ac. Two cheap certificates of that are used:
// - b equals the input's point before it (a repeat): of equal points the first stays, so a copy may go.
// - b lies exactly on the open segment ac, a.x < b.x < c.x, a the point before b and c the next point
//   unlike b (in line): decided in float arithmetic, exact where it answers, and false (keep b)
//   where it cannot tell.
// The neighbours are input points whether or not they are themselves dropped: no strict vertex of the
// whole input is ever dropped (it is no copy of an earlier point, nor inside a segment of two others),
// so the hull of what stays is the input's hull, whatever else is dropped with it.
//
// Why float: on the bench's float parabola, 29.5 M of 2^28 points survive the guide; half of them
// repeat the point before them and most of the rest lie exactly in line with their neighbours
// (bench/NOTES.md, "The guide filter's kept runs peeled"). orient2d's exact stages are out of the
// question there: they cost the filter its registers (the same section).
#pragma once

#include "wagener/config.hpp"
#include "wagener/point.hpp"
#include "wagener/predicates.hpp"

namespace wagener::core {

namespace thinning_detail {

using wagener::detail::add_rounded, wagener::detail::mul_rounded, wagener::detail::product_error,
    wagener::detail::sub_rounded;

/// Whether d = fl(u - v) is exact. Dekker's fast two-sum: of u - d and d + v, the one computed with
/// the larger-magnitude operand first is exact, and equals v (or u) iff d is; an exact d makes both
/// hold. Overflow and NaN: false.
WAGENER_HD inline bool exact_difference(float d, float u, float v) {
  return sub_rounded(u, d) == v && add_rounded(d, v) == u;
}

}  // namespace thinning_detail

/// Whether b lies exactly on the open segment from a to c, with a.x < b.x < c.x. Certain where it
/// answers true; false where float arithmetic cannot decide it exactly (then b is simply kept):
/// - the four differences b - a and c - a must be exact in float (exact_difference);
/// - then orient2d(a, b, c) = P - Q with P = (b.x - a.x)(c.y - a.y) and Q = (b.y - a.y)(c.x - a.x),
///   each split exactly by a fused multiply-add into its rounded product p and residual e = P - p.
///   That residual is exact where |p| lies in [2^-100, 2^100] (no underflow of the residual, no
///   overflow of the product); and P = Q exactly iff p == q and e == f (equal reals round alike).
///   Where a dy is 0, both must be (the dx are positive).
/// Non-finite coordinates fail the order test or the bounds, so never answer true.
WAGENER_HD inline bool certainly_inside_segment(const Point2<float>& a, const Point2<float>& b,
                                                const Point2<float>& c) {
  using namespace thinning_detail;
  if (!(a.x < b.x && b.x < c.x)) return false;
  const float dx1 = sub_rounded(b.x, a.x), dy1 = sub_rounded(b.y, a.y);
  const float dx2 = sub_rounded(c.x, a.x), dy2 = sub_rounded(c.y, a.y);
  if (!(exact_difference(dx1, b.x, a.x) && exact_difference(dy1, b.y, a.y) &&
        exact_difference(dx2, c.x, a.x) && exact_difference(dy2, c.y, a.y)))
    return false;
  // dx1 and dx2 are positive: a product is exactly 0 iff its dy is (a horizontal line).
  if (dy1 == 0 || dy2 == 0) return dy1 == 0 && dy2 == 0;
  const float p = mul_rounded(dx1, dy2), q = mul_rounded(dy1, dx2);
  constexpr float kLeast = 0x1p-100f, kMost = 0x1p100f;
  const float size = p < 0 ? -p : p;
  if (!(p == q && size >= kLeast && size <= kMost)) return false;
  return product_error(dx1, dy2, p) == product_error(dy1, dx2, q);
}

/// Whether input point b, with a the input's point before it and c the first point after it that
/// differs from b (has_a, has_c: whether they exist, and were read), may be left out of the upper
/// hull's input: a repeat of a, or certainly inside the segment ac (kInLine only). c is the next
/// distinct point, not the next point: of a run of copies the first stays, and its next point is
/// its own copy.
template <bool kInLine>
WAGENER_HD inline bool thinned_by_neighbours(bool has_a, const Point2<float>& a, const Point2<float>& b,
                                             bool has_c, const Point2<float>& c) {
  if (!has_a) return false;
  if (same_point(a, b)) return true;
  return kInLine && has_c && certainly_inside_segment(a, b, c);
}

}  // namespace wagener::core
