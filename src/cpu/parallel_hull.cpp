// The multi-core full hull: the exact hull of a strided sample bounds an inner polygon, one pass over
// all cores discards the points certified strictly inside it, the survivors are sorted and chained.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/chains.hpp"
#include "cpu/monotone_chain.hpp"
#include "wagener/error.hpp"
#include "wagener/predicates.hpp"

namespace wagener::cpu {
namespace {

// Below this many points per thread, starting a thread costs more than it saves.
constexpr std::size_t kMinPointsPerThread = 1 << 16;
// Below this many points the filter cannot pay for its sample: sort everything.
constexpr std::size_t kMinPointsToFilter = 512;
// About this many points form the sample (every stride-th point). A larger sample gives a polygon
// with more vertices and fewer survivors (uniform disk, 10^7 points: 8k -> 0.84 %, 16k -> 0.56 %,
// 32k -> 0.31 %, 64k -> 0.20 %) but costs more on one core before the parallel pass (0.6, 1.0, 1.7,
// 3.4 ms); 32k was the fastest overall.
constexpr std::size_t kSampleSize = 1 << 15;
constexpr std::size_t kMinSampleStride = 4;
// The inner polygon keeps at most this many of the sample hull's vertices, so that its lookup
// tables stay in the L1/L2 cache whatever the input.
constexpr std::size_t kMaxPolygonVertices = 1024;
// When fewer sample points than this fraction are discarded, the input is hull-like (a circle):
// the filter would cost a ring test per point and save nothing, so every point is kept untested.
constexpr double kMinUsefulDiscard = 0.1;

constexpr double kEps = 0x1p-53;  // unit roundoff of double, round to nearest

std::size_t thread_count(std::size_t n) {
  const std::size_t hw = std::max(1u, std::thread::hardware_concurrency());
  return std::clamp<std::size_t>(n / kMinPointsPerThread, 1, hw);
}

/// Runs body(t, begin, end) on `threads` contiguous slices of [0, n).
template <class Body>
void parallel_slices(std::size_t n, std::size_t threads, Body&& body) {
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) {
    pool.emplace_back([&, t] { body(t, n * t / threads, n * (t + 1) / threads); });
  }
  body(std::size_t{0}, std::size_t{0}, n / threads);
  for (auto& th : pool) th.join();
}

template <class T>
bool is_finite(const Point2<T>& p) {
  return std::isfinite(p.x) && std::isfinite(p.y);
}

/// True only if orient2d(a, b, p) > 0 (p strictly left of a->b) is certain; false when in doubt.
///
/// The determinant is evaluated exactly as in orient2d's filter, with p as the subtracted point, so
/// Shewchuk's bound |det - exact| <= (3 + 16 eps) eps * (|l| + |r|) holds for the computed l, r
/// when no product over- or underflows. The margin 4 eps (|l| + |r|) exceeds that bound by
/// (1 - 16 eps) eps (|l| + |r|), which covers the rounding of the margin itself (4 eps is a power of
/// two, so only the final sum rounds, by at most eps times the margin). An underflowed product is
/// off by at most 2^-1075, so the whole determinant by at most 2^-1073 more: the constant 2^-1000
/// covers it. Overflow gives an infinite |l| + |r| (hence an infinite margin) or a NaN, and NaN or
/// infinite inputs give NaN or an infinite margin: the comparison is false in every such case, and
/// the point is kept.
inline bool certainly_left(double ax, double ay, double bx, double by, double px, double py) {
  const double l = (ax - px) * (by - py);
  const double r = (ay - py) * (bx - px);
  const double det = l - r;
  return det > 4 * kEps * (std::fabs(l) + std::fabs(r)) + 0x1p-1000;
}

/// A number in [0, 4] that grows with the angle of (x, y) counter-clockwise from +x (the "diamond
/// angle"): only used to guess which fan triangle to test, so rounding does not matter here.
inline double pseudo_angle(double x, double y) {
  const double t = std::fabs(y) / (std::fabs(x) + std::fabs(y));
  if (x >= 0) return y >= 0 ? t : 4 - t;
  return y >= 0 ? 2 - t : 2 + t;
}

/// A convex polygon whose vertices are input points, with an O(1) test that certifies a point to be
/// strictly inside it; such a point is strictly inside the hull of the input, so never a hull vertex.
/// Three tests, each sufficient on its own and each rigorous:
///  - disk: strictly inside the disk around the center c whose squared radius is below a certified
///    lower bound on the distance from c to every edge line (a few flops, catches most points);
///  - box: strictly inside an axis-aligned box whose corners orient2d (exact) places strictly inside
///    the polygon (four exact comparisons);
///  - fan: strictly left of the three edges of the triangle (c, v_j, v_j+1), found by angle through
///    a bucket table, with certainly_left's error bound. The triangle lies in the polygon because c
///    does, and its open interior in the polygon's interior.
/// Any of them can be disabled (when the polygon is degenerate or its scale makes the arithmetic
/// unsafe); a disabled filter certifies nothing, and every point is kept.
class InnerPolygon {
 public:
  InnerPolygon() = default;

  /// `poly`: strictly convex, counter-clockwise, finite; each vertex an input point.
  explicit InnerPolygon(std::vector<Point2<double>> poly) {
    if (poly.size() > kMaxPolygonVertices) {
      // Every step-th vertex of a strictly convex polygon forms a strictly convex polygon inside it.
      const std::size_t step = (poly.size() + kMaxPolygonVertices - 1) / kMaxPolygonVertices;
      std::vector<Point2<double>> thinned;
      for (std::size_t i = 0; i < poly.size(); i += step) thinned.push_back(poly[i]);
      poly.swap(thinned);
    }
    if (poly.size() < 3) return;
    if (!choose_center(poly)) return;
    usable_ = true;
    build_fan(poly);
    build_disk(poly);
    build_box(poly);
  }

  bool enabled() const { return usable_; }

  /// True only if (px, py) is certified strictly inside the polygon; false when in doubt, and for
  /// every point with a NaN or infinite coordinate.
  bool certainly_inside(double px, double py) const {
    return Quick(*this).certainly_inside(px, py) || certainly_inside_fan(px, py, px - cx_, py - cy_);
  }

  /// Writes each point of [in, in + len) to out (which may be in) in turn, advancing past it unless
  /// it is certified inside: the kept points end up first, in order, with no branch on the
  /// outcome. Returns how many were kept.
  template <class T>
  std::size_t compact(const Point2<T>* in, std::size_t len, Point2<T>* out) const {
    // The quick tests' constants as locals, so that they stay in registers: as members they might,
    // for all the compiler knows, alias the doubles stored to out.
    const Quick quick(*this);
    std::size_t kept = 0;
    for (std::size_t i = 0; i < len; ++i) {
      const Point2<T> p = in[i];
      out[kept] = p;
      const double px = static_cast<double>(p.x), py = static_cast<double>(p.y);
      bool inside = quick.certainly_inside(px, py);
      if (!inside) [[unlikely]]
        inside = certainly_inside_fan(px, py, px - cx_, py - cy_);
      kept += !inside;
    }
    return kept;
  }

 private:
  // The disk and box tests, which decide almost every point in a few flops.
  struct Quick {
    explicit Quick(const InnerPolygon& f)
        : cx(f.cx_), cy(f.cy_), disk(f.disk_), x0(f.box_x0_), x1(f.box_x1_), y0(f.box_y0_), y1(f.box_y1_) {}
    bool certainly_inside(double px, double py) const {
      const double ex = px - cx, ey = py - cy;
      // disk is -1 when disabled; a NaN or infinity makes the sum NaN or infinite: false. The box
      // holds its four corners strictly inside the polygon, so its open interior is inside (exact
      // comparisons; NaN compares false). Both are evaluated without branches: which of them
      // catches a point is unpredictable (a square input); the slow path is rare.
      unsigned inside = static_cast<unsigned>(ex * ex + ey * ey < disk) |
                        (static_cast<unsigned>(x0 < px) & static_cast<unsigned>(px < x1) &
                         static_cast<unsigned>(y0 < py) & static_cast<unsigned>(py < y1));
      // GCC turns the | and & of comparisons back into branches, one of which then mispredicts on
      // a third of a disk's points (measured 3x slower); an empty asm makes it keep the bits.
      asm("" : "+r"(inside));
      return inside != 0;
    }
    double cx, cy, disk, x0, x1, y0, y1;
  };

  // The center: the middle of the polygon's bounding box, else the centroid of three spread
  // vertices, each rounded, so each is certified strictly inside with the exact orient2d.
  bool choose_center(const std::vector<Point2<double>>& poly) {
    double xmin = poly[0].x, xmax = xmin, ymin = poly[0].y, ymax = ymin;
    for (const auto& v : poly) {
      xmin = std::min(xmin, v.x), xmax = std::max(xmax, v.x);
      ymin = std::min(ymin, v.y), ymax = std::max(ymax, v.y);
    }
    const std::size_t k = poly.size();
    const auto &a = poly[0], &b = poly[k / 3], &c = poly[2 * k / 3];
    // Halves and thirds first: the sums cannot overflow.
    const Point2<double> candidates[] = {{xmin / 2 + xmax / 2, ymin / 2 + ymax / 2},
                                         {a.x / 3 + b.x / 3 + c.x / 3, a.y / 3 + b.y / 3 + c.y / 3}};
    for (const auto& cand : candidates) {
      if (strictly_inside_exact(poly, cand)) {
        cx_ = cand.x, cy_ = cand.y;
        xmin_ = xmin, xmax_ = xmax, ymin_ = ymin, ymax_ = ymax;
        return true;
      }
    }
    return false;
  }

  static bool strictly_inside_exact(const std::vector<Point2<double>>& poly, const Point2<double>& p) {
    if (!is_finite(p)) return false;
    for (std::size_t i = 0; i < poly.size(); ++i) {
      if (orient2d(poly[i], poly[(i + 1) % poly.size()], p) <= 0) return false;
    }
    return true;
  }

  // Vertices rotated to start at the smallest pseudo-angle around c, their angles (made
  // non-decreasing: rounding may break ties the wrong way, which only costs a kept point), and for
  // each of buckets_ equal angle ranges the last vertex at or below its start.
  void build_fan(const std::vector<Point2<double>>& poly) {
    const std::size_t k = poly.size();
    std::vector<double> angle(k);
    for (std::size_t i = 0; i < k; ++i) {
      angle[i] = pseudo_angle(poly[i].x - cx_, poly[i].y - cy_);
      if (!(angle[i] >= 0 && angle[i] <= 4)) return;  // overflow (huge coordinates): no fan test
    }
    const std::size_t first =
        static_cast<std::size_t>(std::min_element(angle.begin(), angle.end()) - angle.begin());
    for (std::size_t i = 0; i < k; ++i) {
      vertex_.push_back(poly[(first + i) % k]);
      angle_.push_back(std::max(angle[(first + i) % k], i ? angle_.back() : 0.0));
    }
    buckets_ = 64;
    while (buckets_ < 4 * k) buckets_ *= 2;
    bucket_scale_ = static_cast<double>(buckets_) / 4;
    bucket_.resize(buckets_);
    int last = -1;  // vertices with angle <= the bucket's start, minus one
    for (std::size_t b = 0; b < buckets_; ++b) {
      const double start = static_cast<double>(b) / bucket_scale_;
      while (last + 1 < static_cast<int>(k) && angle_[static_cast<std::size_t>(last + 1)] <= start) ++last;
      bucket_[b] = last;
    }
    fan_ = true;
  }

  // The disk around c of squared radius disk_, strictly inside every edge line. For each edge a->b,
  // with l, r, det as in certainly_left(a, b, c) and within the range checks below (no product under-
  // or overflows, len2 and lo far from both ends of the exponent range):
  //  - exact det >= det - 4 eps (|l| + |r|) (certainly_left's bound), so the computed
  //    lo = det - 4 eps (|l|+|r|), rounded once more, satisfies exact det >= lo / (1 + eps);
  //  - the computed squared edge length len2 >= exact len2 (1 - eps)^4 (two differences, two
  //    squares, one sum), less 2^-1074 for underflowed squares: nothing beside len2 >= 2^-200;
  //  - the computed q = lo * lo / len2 <= lo^2 / len2 (1 + eps)^2, so the exact squared distance
  //    det^2 / len2 from c to the line is >= q (1 - eps)^2 (1 - eps)^4 / (1 + eps)^2 >= q (1 - 10 eps).
  // disk_ = min q (1 - 64 eps), rounded, is <= min q (1 - 63 eps). A point p with computed
  // s = (px - cx)^2 + (py - cy)^2 < disk_ has exact s <= (disk_ + 2^-1073) / (1 - eps)^4 (an
  // underflowed square errs by 2^-1075 at most; disk_ >= 2^-801) < min q (1 - 10 eps): p is strictly
  // inside every edge's distance from c, so strictly inside the polygon.
  void build_disk(const std::vector<Point2<double>>& poly) {
    double q_min = INFINITY;
    for (std::size_t i = 0; i < poly.size(); ++i) {
      const auto& a = poly[i];
      const auto& b = poly[(i + 1) % poly.size()];
      const double l = (a.x - cx_) * (b.y - cy_);
      const double r = (a.y - cy_) * (b.x - cx_);
      const double lo = (l - r) - 4 * kEps * (std::fabs(l) + std::fabs(r));
      const double dx = b.x - a.x, dy = b.y - a.y;
      const double len2 = dx * dx + dy * dy;
      // Also excludes NaN and infinity; lo >= 2^-200 keeps |l|+|r| far above the underflow range.
      if (!(lo >= 0x1p-200 && lo <= 0x1p200 && len2 >= 0x1p-200 && len2 <= 0x1p400)) return;
      q_min = std::min(q_min, lo * lo / len2);  // in [2^-800, 2^600]
    }
    disk_ = q_min * (1 - 64 * kEps);
  }

  // The largest box c +- f (half the polygon's width, half its height) with f found by bisection
  // whose four corners orient2d certifies strictly inside; the corners are whatever doubles the
  // rounding gives, and the certificate is for exactly those.
  void build_box(const std::vector<Point2<double>>& poly) {
    const double hx = xmax_ / 2 - xmin_ / 2, hy = ymax_ / 2 - ymin_ / 2;
    double lo = 0, hi = 1;
    for (int step = 0; step < 12; ++step) {
      const double f = (lo + hi) / 2;
      double x0 = cx_ - f * hx, x1 = cx_ + f * hx, y0 = cy_ - f * hy, y1 = cy_ + f * hy;
      const Point2<double> corners[] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
      bool inside = true;
      for (const auto& corner : corners) inside = inside && strictly_inside_exact(poly, corner);
      if (inside) {
        lo = f;
        box_x0_ = x0, box_x1_ = x1, box_y0_ = y0, box_y1_ = y1;
      } else {
        hi = f;
      }
    }
  }

  [[gnu::noinline]] bool certainly_inside_fan(double px, double py, double ex, double ey) const {
    if (!fan_) return false;
    const double a = pseudo_angle(ex, ey);
    if (!(a >= 0 && a <= 4)) return false;  // NaN (p == c, or a coordinate NaN or infinite)
    const std::size_t b = std::min(buckets_ - 1, static_cast<std::size_t>(a * bucket_scale_));
    const int k = static_cast<int>(vertex_.size());
    int j = bucket_[b];
    while (j + 1 < k && angle_[static_cast<std::size_t>(j + 1)] <= a) ++j;
    if (j < 0) j = k - 1;  // below the first vertex's angle: the wrap-around triangle
    const auto& v = vertex_[static_cast<std::size_t>(j)];
    const auto& w = vertex_[static_cast<std::size_t>(j + 1 == k ? 0 : j + 1)];
    // Whichever triangle was guessed, certifying p strictly inside it is enough.
    return certainly_left(cx_, cy_, v.x, v.y, px, py) && certainly_left(v.x, v.y, w.x, w.y, px, py) &&
           certainly_left(w.x, w.y, cx_, cy_, px, py);
  }

  bool usable_ = false;  // c is certified strictly inside; the disk and box are valid (maybe empty)
  bool fan_ = false;
  double cx_ = 0, cy_ = 0;
  double xmin_ = 0, xmax_ = 0, ymin_ = 0, ymax_ = 0;
  double disk_ = -1;                                          // disabled: no sum of squares is < -1
  double box_x0_ = 0, box_x1_ = 0, box_y0_ = 0, box_y1_ = 0;  // disabled: empty
  std::vector<Point2<double>> vertex_;
  std::vector<double> angle_;
  std::vector<int> bucket_;
  std::size_t buckets_ = 0;
  double bucket_scale_ = 0;
};

/// The exact hull of `points` (finite, any order), serially, by the same method as the whole
/// input: the hull of a sub-sample bounds an inner polygon, and only the points it does not certify
/// inside are sorted. Sorting 32k sample points outright cost more than the filter pass itself.
std::vector<Point2<double>> hull_by_filter(std::vector<Point2<double>> points) {
  constexpr std::size_t kDirect = 2048, kStride = 16;
  if (points.size() >= kDirect) {
    std::vector<Point2<double>> sub;
    for (std::size_t i = 0; i < points.size(); i += kStride) sub.push_back(points[i]);
    const InnerPolygon inner(hull_by_filter(std::move(sub)));
    if (inner.enabled()) {
      points.resize(inner.compact(points.data(), points.size(), points.data()));
    }
  }
  std::sort(points.begin(), points.end(), lex_less<double>);
  return hull_of_sorted<double>(points);
}

/// The inner polygon from the exact hull of every stride-th finite point (all of them input points,
/// so the polygon lies inside the hull); disabled when that hull is degenerate, or when it would
/// discard too few points to pay for its test (a hull-like input such as a circle), judged by how
/// many of the sample points it discards.
template <class T>
InnerPolygon sample_polygon(std::span<const Point2<T>> points, std::size_t stride) {
  std::vector<Point2<double>> sample;
  sample.reserve(points.size() / stride + 1);
  for (std::size_t i = 0; i < points.size(); i += stride) {
    const auto& p = points[i];
    if (is_finite(p)) sample.push_back({static_cast<double>(p.x), static_cast<double>(p.y)});
  }
  InnerPolygon inner(hull_by_filter(sample));
  std::size_t discarded = 0;
  for (const auto& p : sample) discarded += inner.certainly_inside(p.x, p.y);
  if (static_cast<double>(discarded) < kMinUsefulDiscard * static_cast<double>(sample.size())) return {};
  return inner;
}

/// Sorted survivors of one slice, in a buffer allocated uninitialised (its pages are touched only
/// as far as survivors are written).
template <class T>
struct Kept {
  std::unique_ptr<Point2<T>[]> buffer;
  std::size_t size = 0;
  std::int64_t first_non_finite = -1;
  std::span<const Point2<T>> span() const { return {buffer.get(), size}; }
};

/// Merges sorted a and b into out, split into `pieces` independent merges run in parallel: each
/// piece takes a run of a and the elements of b below the next run's first element.
template <class T>
void parallel_merge(std::span<const Point2<T>> a, std::span<const Point2<T>> b, Point2<T>* out,
                    std::size_t pieces) {
  std::vector<std::size_t> a_cut(pieces + 1), b_cut(pieces + 1);
  for (std::size_t i = 0; i <= pieces; ++i) {
    a_cut[i] = a.size() * i / pieces;
    if (i == 0) {
      b_cut[i] = 0;
    } else if (a_cut[i] == a.size()) {
      b_cut[i] = b.size();
    } else {
      const auto cut = std::lower_bound(b.begin(), b.end(), a[a_cut[i]], lex_less<T>);
      b_cut[i] = static_cast<std::size_t>(cut - b.begin());
    }
  }
  parallel_slices(pieces, pieces, [&](std::size_t t, std::size_t, std::size_t) {
    std::merge(a.begin() + static_cast<std::ptrdiff_t>(a_cut[t]),
               a.begin() + static_cast<std::ptrdiff_t>(a_cut[t + 1]),
               b.begin() + static_cast<std::ptrdiff_t>(b_cut[t]),
               b.begin() + static_cast<std::ptrdiff_t>(b_cut[t + 1]), out + a_cut[t] + b_cut[t], lex_less<T>);
  });
}

/// Lower and upper chain of sorted points, on two threads when there are many.
template <class T>
std::vector<Point2<T>> hull_of_sorted_parallel(std::span<const Point2<T>> sorted, std::size_t threads) {
  if (threads < 2 || sorted.size() < kMinPointsPerThread) return hull_of_sorted<T>(sorted);
  std::vector<Point2<T>> upper;
  std::thread other([&] { upper = upper_chain<T>(sorted); });
  const auto lower = lower_chain<T>(sorted);
  other.join();
  return core::join_chains<T>(lower, upper);
}

}  // namespace

template <class T>
std::vector<Point2<T>> convex_hull_parallel(std::span<const Point2<T>> points, std::int64_t* survivors) {
  const std::size_t n = points.size();
  if (n == 0) return {};
  const std::size_t threads = thread_count(n);

  InnerPolygon inner;
  if (n >= kMinPointsToFilter) {
    inner = sample_polygon(points, std::max(kMinSampleStride, n / kSampleSize));
  }

  // One pass: every point is written to the slice's buffer, and the cursor advances past it unless
  // it is certified inside (no branch to mispredict). A point with a NaN or infinite coordinate is
  // never certified inside, so checking the survivors finds every one.
  std::vector<Kept<T>> kept(threads);
  parallel_slices(n, threads, [&](std::size_t t, std::size_t begin, std::size_t end) {
    Kept<T>& k = kept[t];
    k.buffer.reset(new Point2<T>[end - begin]);
    Point2<T>* out = k.buffer.get();
    std::size_t m = 0;
    if (inner.enabled()) {
      m = inner.compact(points.data() + begin, end - begin, out);
    } else {
      std::copy(points.begin() + static_cast<std::ptrdiff_t>(begin),
                points.begin() + static_cast<std::ptrdiff_t>(end), out);
      m = end - begin;
    }
    k.size = m;
    bool finite = true;
    for (std::size_t i = 0; i < m; ++i) finite &= is_finite(out[i]);
    if (!finite) {
      // Rare: name the slice's first non-finite point, as a full scan would.
      for (std::size_t i = begin; i < end; ++i) {
        if (!is_finite(points[i])) {
          k.first_non_finite = static_cast<std::int64_t>(i);
          return;
        }
      }
    }
    std::sort(out, out + m, lex_less<T>);
  });
  for (const auto& k : kept) {
    if (k.first_non_finite >= 0) {
      throw input_error("point " + std::to_string(k.first_non_finite) + " is not finite");
    }
  }

  // Merge the sorted slices pairwise; a round with fewer pairs than threads splits each merge.
  while (kept.size() > 1) {
    std::vector<Kept<T>> next((kept.size() + 1) / 2);
    const std::size_t pairs = kept.size() / 2;
    const std::size_t pieces = std::max<std::size_t>(1, threads / pairs);
    parallel_slices(next.size(), next.size(), [&](std::size_t t, std::size_t, std::size_t) {
      if (2 * t + 1 < kept.size()) {
        const std::size_t size = kept[2 * t].size + kept[2 * t + 1].size;
        next[t].buffer.reset(new Point2<T>[std::max<std::size_t>(size, 1)]);
        next[t].size = size;
        parallel_merge<T>(kept[2 * t].span(), kept[2 * t + 1].span(), next[t].buffer.get(),
                          size >= kMinPointsPerThread ? pieces : 1);
      } else {
        next[t] = std::move(kept[2 * t]);
      }
    });
    kept.swap(next);
  }
  if (survivors) *survivors = static_cast<std::int64_t>(kept[0].size);
  return hull_of_sorted_parallel<T>(kept[0].span(), threads);
}

template std::vector<Point2<float>> convex_hull_parallel(std::span<const Point2<float>>, std::int64_t*);
template std::vector<Point2<double>> convex_hull_parallel(std::span<const Point2<double>>, std::int64_t*);

}  // namespace wagener::cpu
