// The interior filter of the full hull, shared by the CPU and CUDA backends: a convex polygon whose
// vertices are input points, and O(1) tests that certify a point strictly inside it. Such a point is
// strictly inside the hull of the input, so never a hull vertex, and can be dropped before sorting.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

#include "wagener/config.hpp"
#include "wagener/point.hpp"
#include "wagener/predicates.hpp"

namespace wagener::core {

inline constexpr double kUnitRoundoff = 0x1p-53;  // double, round to nearest

/// A number in [0, 4] that grows with the angle of (x, y) counter-clockwise from +x (the "diamond
/// angle"): only used to guess which fan triangle to test, so rounding does not matter here.
WAGENER_HD inline double pseudo_angle(double x, double y) {
  const double t = fabs(y) / (fabs(x) + fabs(y));
  if (x >= 0) return y >= 0 ? t : 4 - t;
  return y >= 0 ? 2 - t : 2 + t;
}

/// The ring buckets that edge r of a polygon around its centre meets (InnerPolygon's ring, the chord
/// fan's): the edge from the vertex at angle[r] to the next (angle: the vertices' pseudo-angles, made
/// non-decreasing from the smallest; the last edge's end taken past 4, where the angles wrap), its
/// angle range widened by 2^-40 each side, past the errors of the computed angles. Calls visit(b) for
/// each such bucket b in [0, buckets) (bucket b: pseudo-angles [4 b / buckets, 4 (b + 1) / buckets)),
/// and for the last bucket too where b is 0 (a = 4 exactly falls in the last bucket, not past the
/// wrap in bucket 0).
template <class Visit>
WAGENER_HD void ring_span(const double* angle, index_t k, index_t r, int buckets, Visit visit) {
  constexpr double kWiden = 0x1p-40;
  const double scale = static_cast<double>(buckets) / 4;
  const double from = angle[r] - kWiden;
  const double to = (r + 1 < k ? angle[r + 1] : angle[0] + 4) + kWiden;
  const auto first = static_cast<long long>(floor(from * scale));
  // A range of more than a turn (the last edge's, widened) meets every bucket once.
  const auto last = static_cast<long long>(fmin(floor(to * scale), static_cast<double>(first + buckets)));
  int b = static_cast<int>((first % buckets + buckets) % buckets);
  for (long long step = first; step <= last; ++step, b = b + 1 == buckets ? 0 : b + 1) {
    visit(b);
    if (b == 0) visit(buckets - 1);
  }
}

/// The disk and cross tests of `t` (InnerPolygonView in double, FloatQuickTests in float): whether
/// (px, py) is strictly inside the disk of squared radius t.disk around (t.cx, t.cy), or strictly
/// inside one of the two boxes. A NaN or infinity makes the sum NaN or infinite, and fails the box
/// comparisons: false. Each box holds its four corners strictly inside the polygon, so its open
/// interior is inside (exact comparisons). Branch-free: which test catches a point is unpredictable
/// (a square input).
template <class Tests, class F>
WAGENER_HD bool disk_or_cross_inside(const Tests& t, F px, F py) {
  const F ex = px - t.cx, ey = py - t.cy;
  unsigned inside = static_cast<unsigned>(ex * ex + ey * ey < t.disk) |
                    (static_cast<unsigned>(t.wide_x0 < px) & static_cast<unsigned>(px < t.wide_x1) &
                     static_cast<unsigned>(t.wide_y0 < py) & static_cast<unsigned>(py < t.wide_y1)) |
                    (static_cast<unsigned>(t.tall_x0 < px) & static_cast<unsigned>(px < t.tall_x1) &
                     static_cast<unsigned>(t.tall_y0 < py) & static_cast<unsigned>(py < t.tall_y1));
#if !defined(__CUDA_ARCH__) && defined(__GNUC__)
  // GCC turns the | and & of comparisons back into branches, one of which then mispredicts on a
  // third of a disk's points (measured 3x slower); an empty asm makes it keep the bits.
  asm("" : "+r"(inside));
#endif
  return inside != 0;
}

/// The tests of an InnerPolygon, trivially copyable so that a kernel can take it by value: scalars
/// inline, the fan's tables behind pointers (host or device memory, wherever the owner put them).
/// Three tests, each sufficient on its own and each rigorous:
///  - disk: strictly inside the disk around the center c whose squared radius is below a certified
///    lower bound on the distance from c to every edge line (a few flops, catches most points);
///  - cross: strictly inside one of two axis-aligned boxes, a wide one and a tall one, whose corners
///    are certified strictly inside the polygon (eight exact comparisons). One box c +- f (half
///    width, half height) is limited by its corners: on a square, whose sample hull has its corners
///    cut, it left 2 % of the points to slower tests; the cross reaches the sides;
///  - fan: first a ring, the disk test with a squared radius per angle bucket (the smallest of the
///    same bounds, over the few edges that a ray from c in that bucket can leave the polygon by:
///    build_ring says why it holds); then strictly left of the three edges of the triangle
///    (c, v_j, v_j+1), found by angle through the bucket table, each edge certified by orient2d's
///    own filter (orient2d_certified). The triangle lies in the polygon because c does, and its
///    open interior in the polygon's interior. The ring costs a table lookup where the triangle
///    costs a walk, a division's worth of lookups and three orientations; it certifies most of the
///    points that the disk leaves near a round hull (a uniform disk: 0.78 % of the points of the
///    0.88 % the triangles take).
/// A disabled test certifies nothing; a default-constructed view keeps every point.
struct InnerPolygonView {
  double cx = 0, cy = 0;
  double disk = -1;                                           // disabled: no sum of squares is < -1
  double wide_x0 = 0, wide_x1 = 0, wide_y0 = 0, wide_y1 = 0;  // disabled: empty
  double tall_x0 = 0, tall_x1 = 0, tall_y0 = 0, tall_y1 = 0;  // disabled: empty
  const Point2<double>* vertex = nullptr;  // fan: vertices from the smallest angle around c
  const double* angle = nullptr;           // their pseudo-angles, non-decreasing
  const int* bucket = nullptr;             // per angle bucket: last vertex at or below its start
  const double* ring = nullptr;            // per angle bucket: its squared radius (null: no ring)
  int vertices = 0;                        // 0: no fan test
  int buckets = 0;
  double bucket_scale = 0;

  /// The disk and cross tests, which decide almost every point in a few flops.
  WAGENER_HD bool quick_inside(double px, double py) const { return disk_or_cross_inside(*this, px, py); }

  /// The fan test: slower (a table lookup and three certified orientations), for the points near
  /// the polygon's boundary that the quick tests leave.
  WAGENER_HD bool fan_inside(double px, double py) const {
    if (vertices == 0) return false;
    const double a = pseudo_angle(px - cx, py - cy);
    if (!(a >= 0 && a <= 4)) return false;  // NaN (p == c, or a coordinate NaN or infinite)
    const int b = min(buckets - 1, static_cast<int>(a * bucket_scale));
    if (ring != nullptr) {
      const double ex = px - cx, ey = py - cy;  // as in quick_inside
      if (ex * ex + ey * ey < ring[b]) return true;
    }
    int j = bucket[b];
    while (j + 1 < vertices && angle[j + 1] <= a) ++j;
    if (j < 0) j = vertices - 1;  // below the first vertex's angle: the wrap-around triangle
    const Point2<double> v = vertex[j];
    const Point2<double> w = vertex[j + 1 == vertices ? 0 : j + 1];
    // Whichever triangle was guessed, certifying p strictly inside it is enough.
    return orient2d_certified(cx, cy, v.x, v.y, px, py) > 0 &&
           orient2d_certified(v.x, v.y, w.x, w.y, px, py) > 0 &&
           orient2d_certified(w.x, w.y, cx, cy, px, py) > 0;
  }

  /// True only if (px, py) is certified strictly inside the polygon; false when in doubt, and for
  /// every point with a NaN or infinite coordinate.
  WAGENER_HD bool certainly_inside(double px, double py) const {
    return quick_inside(px, py) || fan_inside(px, py);
  }

 private:
  WAGENER_HD static int min(int a, int b) { return a < b ? a : b; }
};

/// The quick tests in float, for float input: no widening, and half the instructions (the CPU's
/// vectors take sixteen points where the double tests take eight; the GPU's float units are twice
/// its double ones). Each certifies only points the double test certifies too (with room to spare),
/// so that the points left in doubt, retested in double (both quick tests, then the fan), leave
/// exactly the survivors of the double tests. No non-finite point is certified (an infinity or a NaN
/// fails every comparison it reaches).
///  - Box bounds move inwards to the nearest float (exact comparisons, as in double).
///  - The disk moves to the float nearest its center, c', shrinking its radius by |c - c'|, and its
///    squared radius by a margin: with u = 2^-24, the computed (px - c'x)^2 + (py - c'y)^2 is at least
///    the exact one times (1 - u)^4 (two rounded differences squared, two rounded squares and a
///    rounded sum; a fused multiply-add rounds once less, and the bound holds the more), so a computed
///    value below R^2 (1 - 2^-18) puts p within R of c', and within the double disk's radius of c. A
///    threshold below 2^-100, where squares could underflow, disables it, as do non-finite values (a
///    point far outside makes inf, which fails the comparison).
struct FloatQuickTests {
  float cx = 0, cy = 0, disk = -1;                           // disabled: nothing is < -1
  float wide_x0 = 0, wide_x1 = 0, wide_y0 = 0, wide_y1 = 0;  // disabled: empty
  float tall_x0 = 0, tall_x1 = 0, tall_y0 = 0, tall_y1 = 0;  // disabled: empty

  FloatQuickTests() = default;  // every test disabled
  /// Host and device alike (the device builds its polygon's tests in a kernel).
  WAGENER_HD explicit FloatQuickTests(const InnerPolygonView& poly) {
    wide_x0 = up(poly.wide_x0), wide_x1 = down(poly.wide_x1), wide_y0 = up(poly.wide_y0),
    wide_y1 = down(poly.wide_y1);
    tall_x0 = up(poly.tall_x0), tall_x1 = down(poly.tall_x1), tall_y0 = up(poly.tall_y0),
    tall_y1 = down(poly.tall_y1);
    if (!(poly.disk > 0)) return;
    cx = static_cast<float>(poly.cx), cy = static_cast<float>(poly.cy);
    if (!std::isfinite(cx) || !std::isfinite(cy)) return;
    const double moved = std::hypot(poly.cx - cx, poly.cy - cy) * (1 + 0x1p-40);
    const double radius = std::sqrt(poly.disk) * (1 - 0x1p-40) - moved;
    const double threshold = radius * radius * (1 - 0x1p-18);
    if (!(radius > 0) || !(threshold >= 0x1p-100) || !(threshold < 0x1p120)) return;
    disk = down(threshold);
  }

  /// InnerPolygonView::quick_inside in float.
  WAGENER_HD bool quick_inside(float px, float py) const { return disk_or_cross_inside(*this, px, py); }

 private:
  static constexpr float kMaxFloat = std::numeric_limits<float>::max();
  // The smallest float >= v (-FLT_MAX below the range).
  WAGENER_HD static float up(double v) {
    float f = static_cast<float>(v);
    if (static_cast<double>(f) < v) f = std::nextafter(f, INFINITY);
    return f < -kMaxFloat ? -kMaxFloat : f;
  }
  // The largest float <= v (FLT_MAX above the range).
  WAGENER_HD static float down(double v) {
    float f = static_cast<float>(v);
    if (static_cast<double>(f) > v) f = std::nextafter(f, -INFINITY);
    return f > kMaxFloat ? kMaxFloat : f;
  }
};

/// build_disk's bound for the edge a->b around the centre c: its squared distance bound q (1 - 64
/// eps), or NaN outside the range checks (InnerPolygon::build_disk gives the proof). Host and device.
WAGENER_HD inline double edge_distance_bound(const Point2<double>& a, const Point2<double>& b, double cx,
                                             double cy) {
  const double l = (a.x - cx) * (b.y - cy);
  const double r = (a.y - cy) * (b.x - cx);
  const double lo = (l - r) - 4 * kUnitRoundoff * (std::fabs(l) + std::fabs(r));
  const double dx = b.x - a.x, dy = b.y - a.y;
  const double len2 = dx * dx + dy * dy;
  // Also excludes NaN and infinity; lo >= 2^-200 keeps |l|+|r| far above the underflow range.
  if (!(lo >= 0x1p-200 && lo <= 0x1p200 && len2 >= 0x1p-200 && len2 <= 0x1p400)) return NAN;
  return lo * lo / len2 * (1 - 64 * kUnitRoundoff);  // q in [2^-800, 2^600], then rounded once more
}

/// Builds the tests for a strictly convex, counter-clockwise polygon with input points as vertices
/// (host only); view() hands them out. Any test is disabled when the polygon is degenerate or its
/// scale makes the arithmetic unsafe.
class InnerPolygon {
 public:
  InnerPolygon() = default;

  /// `poly`: strictly convex, counter-clockwise, finite; each vertex an input point. At most
  /// `max_vertices` of them are kept, so that the lookup tables stay in cache. `preferred_center`
  /// (optional: where most points are, such as a sample's median) is tried first as the center of
  /// the disk and the box; any center strictly inside is correct, one amid the points is fast.
  explicit InnerPolygon(std::vector<Point2<double>> poly, std::size_t max_vertices = 1024,
                        const Point2<double>* preferred_center = nullptr) {
    if (poly.size() > max_vertices) {
      // Every step-th vertex of a strictly convex polygon forms a strictly convex polygon inside it.
      const std::size_t step = (poly.size() + max_vertices - 1) / max_vertices;
      std::vector<Point2<double>> thinned;
      for (std::size_t i = 0; i < poly.size(); i += step) thinned.push_back(poly[i]);
      poly.swap(thinned);
    }
    if (poly.size() < 3) return;
    if (!choose_center(poly, preferred_center)) return;
    usable_ = true;
    build_fan(poly);
    build_disk(poly);
    build_ring();
    build_cross(poly);
  }

  bool enabled() const { return usable_; }

  /// The tests, with the fan's tables in this object's memory.
  InnerPolygonView view() const {
    return view_with(vertex_.data(), angle_.data(), bucket_.data(), ring_.empty() ? nullptr : ring_.data());
  }

  /// The same tests with the tables wherever a caller copied vertices(), angles(), buckets() and
  /// (optional: without it, no ring test) rings().
  InnerPolygonView view_with(const Point2<double>* vertex, const double* angle, const int* bucket,
                             const double* ring = nullptr) const {
    InnerPolygonView v = scalars_;
    if (!vertex_.empty()) {
      v.vertex = vertex, v.angle = angle, v.bucket = bucket, v.ring = ring;
      v.vertices = static_cast<int>(vertex_.size());
      v.buckets = static_cast<int>(bucket_.size());
    }
    return v;
  }

  const std::vector<Point2<double>>& vertices() const { return vertex_; }
  const std::vector<double>& angles() const { return angle_; }
  const std::vector<int>& buckets() const { return bucket_; }
  const std::vector<double>& rings() const { return ring_; }  // empty when there is no ring test

 private:
  // The center: the preferred one if given, else the middle of the polygon's bounding box, else the
  // centroid of three spread vertices, each rounded, so each is certified strictly inside with the
  // exact orient2d.
  bool choose_center(const std::vector<Point2<double>>& poly, const Point2<double>* preferred) {
    double xmin = poly[0].x, xmax = xmin, ymin = poly[0].y, ymax = ymin;
    for (const auto& v : poly) {
      xmin = std::min(xmin, v.x), xmax = std::max(xmax, v.x);
      ymin = std::min(ymin, v.y), ymax = std::max(ymax, v.y);
    }
    const std::size_t k = poly.size();
    const auto &a = poly[0], &b = poly[k / 3], &c = poly[2 * k / 3];
    // Halves and thirds first: the sums cannot overflow.
    const Point2<double> candidates[] = {preferred ? *preferred : Point2<double>{NAN, NAN},
                                         {xmin / 2 + xmax / 2, ymin / 2 + ymax / 2},
                                         {a.x / 3 + b.x / 3 + c.x / 3, a.y / 3 + b.y / 3 + c.y / 3}};
    for (const auto& cand : candidates) {  // strictly_inside_exact refuses NaN
      if (strictly_inside_exact(poly, cand)) {
        scalars_.cx = cand.x, scalars_.cy = cand.y;
        xmin_ = xmin, xmax_ = xmax, ymin_ = ymin, ymax_ = ymax;
        return true;
      }
    }
    return false;
  }

  static bool strictly_inside_exact(const std::vector<Point2<double>>& poly, const Point2<double>& p) {
    if (!std::isfinite(p.x) || !std::isfinite(p.y)) return false;
    for (std::size_t i = 0; i < poly.size(); ++i) {
      if (orient2d(poly[i], poly[(i + 1) % poly.size()], p) <= 0) return false;
    }
    return true;
  }

  // Vertices rotated to start at the smallest pseudo-angle around c, their angles (made
  // non-decreasing: rounding may break ties the wrong way, which only costs a kept point), and for
  // each of the equal angle ranges the last vertex at or below its start.
  void build_fan(const std::vector<Point2<double>>& poly) {
    const double cx = scalars_.cx, cy = scalars_.cy;
    const std::size_t k = poly.size();
    std::vector<double> angle(k);
    for (std::size_t i = 0; i < k; ++i) {
      angle[i] = pseudo_angle(poly[i].x - cx, poly[i].y - cy);
      if (!(angle[i] >= 0 && angle[i] <= 4)) return;  // overflow (huge coordinates): no fan test
    }
    const std::size_t first =
        static_cast<std::size_t>(std::min_element(angle.begin(), angle.end()) - angle.begin());
    for (std::size_t i = 0; i < k; ++i) {
      vertex_.push_back(poly[(first + i) % k]);
      angle_.push_back(std::max(angle[(first + i) % k], i ? angle_.back() : 0.0));
    }
    std::size_t buckets = 64;
    while (buckets < 4 * k) buckets *= 2;
    scalars_.bucket_scale = static_cast<double>(buckets) / 4;
    bucket_.resize(buckets);
    int last = -1;  // vertices with angle <= the bucket's start, minus one
    for (std::size_t b = 0; b < buckets; ++b) {
      const double start = static_cast<double>(b) / scalars_.bucket_scale;
      while (last + 1 < static_cast<int>(k) && angle_[static_cast<std::size_t>(last + 1)] <= start) ++last;
      bucket_[b] = last;
    }
  }

  // The disk around c of squared radius disk, strictly inside every edge line. For each edge a->b,
  // with l, r, det as in orient2d(a, b, c)'s filter and within the range checks below (no product
  // under- or overflows, len2 and lo far from both ends of the exponent range):
  //  - exact det >= det - 4 eps (|l| + |r|): Shewchuk's bound (3 + 16 eps) eps (|l| + |r|) with
  //    room for the rounding of the margin itself, so the computed
  //    lo = det - 4 eps (|l|+|r|), rounded once more, satisfies exact det >= lo / (1 + eps);
  //  - the computed squared edge length len2 >= exact len2 (1 - eps)^4 (two differences, two
  //    squares, one sum), less 2^-1074 for underflowed squares: nothing beside len2 >= 2^-200;
  //  - the computed q = lo * lo / len2 <= lo^2 / len2 (1 + eps)^2, so the exact squared distance
  //    det^2 / len2 from c to the line is >= q (1 - eps)^2 (1 - eps)^4 / (1 + eps)^2 >= q (1 - 10 eps).
  // disk = min q (1 - 64 eps), rounded, is <= min q (1 - 63 eps). A point p with computed
  // s = (px - cx)^2 + (py - cy)^2 < disk has exact s <= (disk + 2^-1073) / (1 - eps)^4 (an
  // underflowed square errs by 2^-1075 at most; disk >= 2^-801) < min q (1 - 10 eps): p is strictly
  // inside every edge's distance from c, so strictly inside the polygon.
  void build_disk(const std::vector<Point2<double>>& poly) {
    double q_min = INFINITY;
    for (std::size_t i = 0; i < poly.size(); ++i) {
      const double q = squared_distance_bound(poly[i], poly[(i + 1) % poly.size()]);
      if (!(q >= 0)) return;
      q_min = std::min(q_min, q);
    }
    scalars_.disk = q_min;
  }

  // build_disk's bound for the edge a->b: edge_distance_bound around this polygon's centre.
  double squared_distance_bound(const Point2<double>& a, const Point2<double>& b) const {
    return edge_distance_bound(a, b, scalars_.cx, scalars_.cy);
  }

  // The ring: per angle bucket, the smallest of build_disk's bounds over the edges whose angle range
  // meets the bucket's, each range widened by m = 2^-40 on both sides. Why a point p with computed
  // s = (px - cx)^2 + (py - cy)^2 < ring[b], b its bucket, is strictly inside:
  //  - if s < disk, the disk test's argument holds. Otherwise s >= disk >= 2^-801, so the rounded
  //    differences ex, ey are not both tiny, each has a relative error of at most eps (a subnormal
  //    difference is exact), and the computed pseudo-angle a of p - c is within 2^-50 of the exact
  //    one A (the pseudo-angle moves by at most a quarter of the inputs' relative errors, and the
  //    sum, the quotient and the final 2 - t, 2 + t or 4 - t round at most 4 eps in all). The same
  //    holds for each vertex's computed angle (made non-decreasing, which moves it no further from
  //    the exact angles, themselves increasing).
  //  - the ray from c through p leaves the polygon through an edge (or a vertex, the end of two)
  //    whose exact angle range holds A, so whose computed range widened by 2^-49 holds a, and b =
  //    floor(a * buckets / 4) (clamped to the last bucket at a = 4) is among the buckets that range
  //    meets: that edge is one of bucket b's.
  //  - the disk test's argument, with that edge's bound, puts p strictly on c's side of the edge's
  //    line; p lies on the ray before it crosses that line, where it leaves the polygon, so p is
  //    strictly inside (c is).
  void build_ring() {
    if (!(scalars_.disk > 0) || vertex_.empty()) return;
    const std::size_t k = vertex_.size(), buckets = bucket_.size();
    std::vector<double> ring(buckets, INFINITY);
    for (std::size_t j = 0; j < k; ++j) {
      const double q = squared_distance_bound(vertex_[j], vertex_[(j + 1) % k]);
      if (!(q >= 0)) return;
      ring_span(
          angle_.data(), static_cast<index_t>(k), static_cast<index_t>(j), static_cast<int>(buckets),
          [&](int b) { ring[static_cast<std::size_t>(b)] = std::min(ring[static_cast<std::size_t>(b)], q); });
    }
    // The edges' ranges cover every angle, so every bucket has a bound; checked all the same, since
    // an infinite one would certify any finite point.
    for (const double r : ring) {
      if (!(r >= scalars_.disk && r < INFINITY)) return;
    }
    ring_ = std::move(ring);
  }

  // The cross: first the largest box c +- f (hx, hy), hx and hy half the polygon's width and
  // height, then the wide box c +- (g hx, s hy) and the tall box c +- (s hx, g' hy) with s = 2f - 1
  // (the corners of the first box cut off as much again) and g, g' >= f as large as their corners
  // allow; without room for that (f <= 1/2) both are the first box. Each factor is found by
  // bisection, and each box's corners (whatever doubles the rounding gives) are certified strictly
  // inside: by the fan test (certified, constant time), else, where it cannot tell (a corner
  // outside, or products that overflow at coordinates near 1e300), by the exact orient2d against
  // every edge.
  void build_cross(const std::vector<Point2<double>>& poly) {
    const double hx = xmax_ / 2 - xmin_ / 2, hy = ymax_ / 2 - ymin_ / 2;
    double square[4] = {0, 0, 0, 0}, wide[4] = {0, 0, 0, 0}, tall[4] = {0, 0, 0, 0};
    const double f = fit_box(
        poly, 0, 1,
        [&](double t) {
          return std::pair{t * hx, t * hy};
        },
        square);
    if (f > 0.5) {
      const double s = 2 * f - 1;
      fit_box(
          poly, f, 1,
          [&](double t) {
            return std::pair{t * hx, s * hy};
          },
          wide);
      fit_box(
          poly, f, 1,
          [&](double t) {
            return std::pair{s * hx, t * hy};
          },
          tall);
    }
    const double* w = wide[1] > wide[0] ? wide : square;
    const double* t = tall[1] > tall[0] ? tall : square;
    scalars_.wide_x0 = w[0], scalars_.wide_x1 = w[1], scalars_.wide_y0 = w[2], scalars_.wide_y1 = w[3];
    scalars_.tall_x0 = t[0], scalars_.tall_x1 = t[1], scalars_.tall_y0 = t[2], scalars_.tall_y1 = t[3];
  }

  // The largest t in [lo, hi] found by 12 bisection steps whose box c +- half(t) has its four corners
  // certified strictly inside (x0, x1, y0, y1 into box; left empty and 0 returned if none).
  template <class Half>
  double fit_box(const std::vector<Point2<double>>& poly, double lo, double hi, Half half, double box[4]) {
    const double cx = scalars_.cx, cy = scalars_.cy;
    const InnerPolygonView fan = view();
    double found = 0;
    for (int step = 0; step < 12; ++step) {
      const double t = step == 0 && lo > 0 ? lo : (lo + hi) / 2;  // first try lo itself, if given
      const auto [dx, dy] = half(t);
      const double x0 = cx - dx, x1 = cx + dx, y0 = cy - dy, y1 = cy + dy;
      const Point2<double> corners[] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
      bool inside = true;
      for (const auto& corner : corners) {
        inside = inside && (fan.fan_inside(corner.x, corner.y) || strictly_inside_exact(poly, corner));
      }
      if (inside) {
        if (step > 0 || lo == 0) lo = t;
        found = t;
        box[0] = x0, box[1] = x1, box[2] = y0, box[3] = y1;
      } else if (step == 0 && lo > 0) {
        return 0;  // not even lo: no box along this direction
      } else {
        hi = t;
      }
    }
    return found;
  }

  bool usable_ = false;       // c is certified strictly inside; the disk and box are valid (maybe empty)
  InnerPolygonView scalars_;  // everything but the table pointers
  double xmin_ = 0, xmax_ = 0, ymin_ = 0, ymax_ = 0;
  std::vector<Point2<double>> vertex_;
  std::vector<double> angle_;
  std::vector<int> bucket_;
  std::vector<double> ring_;
};

}  // namespace wagener::core
