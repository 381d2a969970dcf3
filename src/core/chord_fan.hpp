// The guide's interior test of the full hull on the GPU: a fan of triangles (c, q_b, q_b+1) around a
// centre c strictly inside the input's hull, one triangle per pseudo-angle bucket b, over a polygon G
// whose vertices are input points in angle order around c, c strictly left of each of its edges (a
// convex G with c strictly inside; or the dense guide's star polygon, which need not be convex). Its
// corners q_b are where the bucket's bounding rays cross G's edges (computed, then checked exactly to
// lie in the closed triangle of c and that edge, which lies in the input's hull; the edge's first
// vertex where the check fails), so each triangle lies in the input's hull, and a point certified
// strictly inside one is strictly inside it (c is): never a hull vertex. (Where G is convex, each
// triangle also lies in G.)
//
// Why not the fan of InnerPolygonView (the polygon's own triangles, found through a bucket table and
// an angle walk)? For a guide of ~10^5 vertices its tables take megabytes, out of L1, and each point
// reads a bucket, one or more angles and two vertices: three or four 32-byte L2 sectors a point, for
// 2^28 points. Here a point reads one 32-byte record (its bucket's two corners, side by side) and
// walks nothing. The triangles miss only thin slivers of G near the vertices inside a bucket (with
// a few buckets a vertex, far below a float circle's rounding noise).
#pragma once

#include <cmath>
#include <vector>

#include "core/inner_polygon.hpp"
#include "wagener/config.hpp"
#include "wagener/point.hpp"
#include "wagener/predicates.hpp"

namespace wagener::core {

/// Buckets a polygon vertex (rounded up to a power of two), and the most buckets a fan has: a
/// bucket's record is 32 bytes, so at most 64 MB.
inline constexpr index_t kChordFanBucketsPerVertex = 4;
inline constexpr index_t kMinChordFanBuckets = 64;
inline constexpr index_t kMaxChordFanBuckets = index_t{1} << 21;

/// The number of buckets of a fan over `vertices` vertices.
WAGENER_HD inline index_t chord_fan_buckets(index_t vertices,
                                            index_t per_vertex = kChordFanBucketsPerVertex) {
  index_t buckets = kMinChordFanBuckets;
  while (buckets < per_vertex * vertices && buckets < kMaxChordFanBuckets) buckets *= 2;
  return buckets;
}

/// The ring's buckets (ring_span): 16 KB of squared radii, small enough for L1, where the
/// fan's records (32 bytes a bucket, megabytes) come from L2.
inline constexpr int kChordFanRingBuckets = 2048;

/// The test, trivially copyable for a kernel: the corners live wherever the builder put them.
///
/// Optionally first a ring: per pseudo-angle bucket of the ring (coarser than the fan's), a squared
/// radius around c; a point whose squared distance from c is below its bucket's is strictly inside G.
/// Most points near a round G (a circle) are then decided by a read that L1 holds, not by their fan
/// record's 32-byte read from L2. Each radius is the least of edge_distance_bound (InnerPolygon::
/// build_disk's bound) over the edges of G whose angle range, widened by 2^-40 each side
/// (ring_span), meets the bucket; the ring is off (no table, or every radius 0) unless
/// every edge has a bound and c is strictly left of every edge. Why a point p with computed
/// s = (px - cx)^2 + (py - cy)^2 < ring[b], b its ring bucket, is strictly inside G (the argument of
/// InnerPolygon::build_ring, for a G star-shaped around c):
///  - c is strictly left of every edge of G, whose vertices go once around c in angle order, so each
///    edge turns the direction from c by less than half a turn, and every ray from c leaves G through
///    exactly one edge (or a vertex, the end of two); the points of the ray before that edge's line
///    are inside G, and strictly inside where strictly before it;
///  - let D be the least bound over all edges (>= 2^-800: each is). If s < D, the disk test's
///    argument (build_disk) puts p strictly on c's side of every edge line, so of the one its ray
///    leaves G through: p is strictly inside G. Otherwise s >= D, so p - c is not tiny, and p's
///    computed pseudo-angle is within 2^-50 of the exact one, as each vertex's is (made
///    non-decreasing, which moves none further from the exact angles); so the edge p's ray leaves
///    through is among bucket b's, s < ring[b] <= its bound, and the same argument holds for it.
/// G lies in the input's hull (its vertices are input points), so p is strictly inside that hull.
struct ChordFanView {
  double cx = 0, cy = 0;
  const Point2<double>* corner = nullptr;  // bucket b's corners: corner[2 b], corner[2 b + 1]
  int buckets = 0;                         // 0: certifies nothing
  double bucket_scale = 0;                 // buckets / 4: pseudo-angle to bucket
  const double* ring = nullptr;            // ring_buckets squared radii; nullptr: no ring test
  int ring_buckets = 0;
  double ring_scale = 0;  // ring_buckets / 4

  /// True only if (px, py) is certified strictly inside G: by the ring, else strictly inside its
  /// bucket's triangle (c, q_b, q_b+1), strictly left of its three edges, each certified by orient2d's
  /// filter. Which triangle is tried is a guess (the rounded pseudo-angle), which is enough: a point
  /// inside any of them is inside the input's hull. False for a NaN or infinite coordinate, and for
  /// p == c.
  WAGENER_HD bool certainly_inside(double px, double py) const {
    if (buckets == 0) return false;
    const double ex = px - cx, ey = py - cy;
    const double a = pseudo_angle(ex, ey);
    if (!(a >= 0 && a <= 4)) return false;
    return in_ring(ex, ey, a) || in_triangle(px, py, a);
  }

  /// The ring's test alone (false without a ring): the streaming filter's quick test, whose doubted
  /// points a warp gathers for triangle_inside.
  WAGENER_HD bool ring_inside(double px, double py) const {
    if (buckets == 0 || ring == nullptr) return false;
    const double ex = px - cx, ey = py - cy;
    const double a = pseudo_angle(ex, ey);
    return a >= 0 && a <= 4 && in_ring(ex, ey, a);
  }

  /// The triangles' test alone.
  WAGENER_HD bool triangle_inside(double px, double py) const {
    if (buckets == 0) return false;
    const double a = pseudo_angle(px - cx, py - cy);
    return a >= 0 && a <= 4 && in_triangle(px, py, a);
  }

 private:
  // (ex, ey) = p - c, a its pseudo-angle in [0, 4].
  WAGENER_HD bool in_ring(double ex, double ey, double a) const {
    if (ring == nullptr) return false;
    const int scaled = static_cast<int>(a * ring_scale);
    return ex * ex + ey * ey < ring[scaled < ring_buckets ? scaled : ring_buckets - 1];
  }
  // a: p's pseudo-angle around c, in [0, 4].
  WAGENER_HD bool in_triangle(double px, double py, double a) const {
    const int scaled = static_cast<int>(a * bucket_scale);
    const int b = scaled < buckets ? scaled : buckets - 1;
    const Point2<double> q0 = corner[2 * b], q1 = corner[2 * b + 1];
    // The differences to p, each computed once (as orient2d_certified computes them).
    const double cpx = cx - px, cpy = cy - py;
    const double q0x = q0.x - px, q0y = q0.y - py;
    const double q1x = q1.x - px, q1y = q1.y - py;
    // All three tests, then one `&` of their results: no branch between them.
    const bool left_of_first = certified_left_differences(cpx, cpy, q0x, q0y);
    const bool left_of_chord = certified_left_differences(q0x, q0y, q1x, q1y);
    const bool left_of_last = certified_left_differences(q1x, q1y, cpx, cpy);
    return left_of_first & left_of_chord & left_of_last;
  }
};

/// A fan vertex's angle around the centre c: its pseudo_angle, or 0 where that overflows (any value
/// is safe: an angle only chooses which edge a corner is tried on, and the corner is checked).
WAGENER_HD inline double chord_fan_angle(double vx, double vy, double cx, double cy) {
  const double a = pseudo_angle(vx - cx, vy - cy);
  return a >= 0 && a <= 4 ? a : 0;
}

/// A direction whose pseudo_angle is a, for a in [0, 4] (on the diamond |x| + |y| = 1); the inverse of
/// pseudo_angle up to rounding, which only moves a corner along G's boundary.
WAGENER_HD inline Point2<double> pseudo_angle_direction(double a) {
  if (a <= 1) return {1 - a, a};
  if (a <= 2) return {1 - a, 2 - a};
  if (a <= 3) return {a - 3, 2 - a};
  return {a - 3, a - 4};
}

/// The fan edge for pseudo-angle a: the last r with sorted_angle[r] <= a (sorted_angle: the vertices'
/// pseudo-angles from vertex `first` on, made non-decreasing), or k - 1 when there is none (a is
/// below every vertex: the edge from the last vertex back to the first). Any r in [0, k) is safe: the
/// corner is checked exactly whichever edge is chosen.
WAGENER_HD inline index_t chord_fan_edge(const double* sorted_angle, index_t k, double a) {
  index_t lo = -1, hi = k;  // sorted_angle[lo] <= a < sorted_angle[hi], with virtual ends
  while (hi - lo > 1) {
    const index_t mid = lo + (hi - lo) / 2;
    if (sorted_angle[mid] <= a) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo < 0 ? k - 1 : lo;
}

/// Is q in the closed triangle (c, v, w)? Exact. (c, v, w) is counter-clockwise (c strictly left of the
/// edge v->w, as chord_fan_corner's caller checks), so the three orientations, which sum to
/// orient(c, v, w) > 0, are all >= 0 exactly for the points of that triangle and no other.
WAGENER_HD inline bool in_closed_triangle(const Point2<double>& c, const Point2<double>& v,
                                          const Point2<double>& w, const Point2<double>& q) {
  constexpr double kMaxFinite = 0x1.fffffffffffffp1023;  // orient2d needs finite input (NaN: false)
  if (!(std::fabs(q.x) <= kMaxFinite && std::fabs(q.y) <= kMaxFinite)) return false;
  return orient2d(c, v, q) >= 0 && orient2d(v, w, q) >= 0 && orient2d(w, c, q) >= 0;
}

/// The corner of the fan at pseudo-angle a: where the ray from c in that direction crosses the edge
/// chosen by chord_fan_edge, if that point (or the same pulled toward c by 2^-30 of its distance)
/// lies in the closed triangle (c, v, w), which lies in the input's hull (and in G where G is convex);
/// else the vertex v itself. `vertex`: G, k >= 3 input points in angle order around c (strictly convex
/// and counter-clockwise around it, or a star polygon), c strictly left of every edge (the caller
/// checks it exactly: otherwise a triangle (c, v, w) could be clockwise or flat, and in_closed_triangle
/// would not describe it).
template <class T>
WAGENER_HD Point2<double> chord_fan_corner(const Point2<T>* vertex, index_t k, index_t first,
                                           const double* sorted_angle, double cx, double cy, double a) {
  const index_t r = chord_fan_edge(sorted_angle, k, a);
  const index_t i = (first + r) % k;
  const Point2<T> vt = vertex[i], wt = vertex[i + 1 == k ? 0 : i + 1];
  const Point2<double> c{cx, cy};
  const Point2<double> v{static_cast<double>(vt.x), static_cast<double>(vt.y)};
  const Point2<double> w{static_cast<double>(wt.x), static_cast<double>(wt.y)};
  const Point2<double> d = pseudo_angle_direction(a);
  // c + s d on the line v + t (w - v): s cross(d, w - v) = cross(v - c, w - v).
  const double ex = w.x - v.x, ey = w.y - v.y;
  const double s = ((v.x - cx) * ey - (v.y - cy) * ex) / (d.x * ey - d.y * ex);
  const Point2<double> q{cx + s * d.x, cy + s * d.y};
  if (in_closed_triangle(c, v, w, q)) return q;
  constexpr double kPull = 1 - 0x1p-30;  // rounding put q just outside the edge: pull it in
  const Point2<double> pulled{cx + (q.x - cx) * kPull, cy + (q.y - cy) * kPull};
  if (in_closed_triangle(c, v, w, pulled)) return pulled;
  return v;
}

/// Host builder of the same tables (for tests; the GPU builds them in kernels from the same
/// functions). `poly`: finite, in angle order around `centre` (strictly convex and counter-clockwise,
/// or a star polygon). The fan is disabled (certifies nothing) unless `centre` is strictly left of
/// every edge of `poly` (checked exactly) and poly has 3 vertices.
class ChordFan {
 public:
  /// `ring_buckets`: 0 for no ring test, else the ring's buckets (ChordFanView).
  ChordFan(const std::vector<Point2<double>>& poly, Point2<double> centre,
           index_t buckets_per_vertex = kChordFanBucketsPerVertex, int ring_buckets = 0) {
    const auto k = static_cast<index_t>(poly.size());
    if (k < 3) return;
    for (index_t i = 0; i < k; ++i) {
      if (orient2d(poly[static_cast<std::size_t>(i)], poly[static_cast<std::size_t>((i + 1) % k)], centre) <=
          0)
        return;
    }
    std::vector<double> angle(poly.size());
    index_t first = 0;
    for (std::size_t i = 0; i < poly.size(); ++i) {
      angle[i] = chord_fan_angle(poly[i].x, poly[i].y, centre.x, centre.y);
      if (angle[i] < angle[static_cast<std::size_t>(first)]) first = static_cast<index_t>(i);
    }
    std::vector<double> sorted(poly.size());
    for (index_t r = 0; r < k; ++r) {
      const double a = angle[static_cast<std::size_t>((first + r) % k)];
      sorted[static_cast<std::size_t>(r)] =
          r == 0 ? a : std::fmax(a, sorted[static_cast<std::size_t>(r - 1)]);
    }
    const index_t buckets = chord_fan_buckets(k, buckets_per_vertex);
    view_.cx = centre.x, view_.cy = centre.y;
    view_.buckets = static_cast<int>(buckets);
    view_.bucket_scale = static_cast<double>(buckets) / 4;
    corner_.resize(static_cast<std::size_t>(2 * buckets));
    for (index_t b = 0; b <= buckets; ++b) {
      const Point2<double> q = chord_fan_corner(poly.data(), k, first, sorted.data(), centre.x, centre.y,
                                                static_cast<double>(b) / view_.bucket_scale);
      if (b < buckets) corner_[static_cast<std::size_t>(2 * b)] = q;
      if (b > 0) corner_[static_cast<std::size_t>(2 * b - 1)] = q;
    }
    view_.corner = corner_.data();
    if (ring_buckets > 0) build_ring(poly, first, sorted, ring_buckets);
  }
  ChordFan(const ChordFan&) = delete;
  ChordFan& operator=(const ChordFan&) = delete;

  bool enabled() const { return view_.buckets > 0; }
  const ChordFanView& view() const { return view_; }

 private:
  // The ring (ChordFanView): off, with no table, unless every edge has a bound.
  void build_ring(const std::vector<Point2<double>>& poly, index_t first, const std::vector<double>& sorted,
                  int ring_buckets) {
    const auto k = static_cast<index_t>(poly.size());
    std::vector<double> ring(static_cast<std::size_t>(ring_buckets), INFINITY);
    for (index_t r = 0; r < k; ++r) {
      const auto& v = poly[static_cast<std::size_t>((first + r) % k)];
      const auto& w = poly[static_cast<std::size_t>((first + r + 1) % k)];
      const double q = edge_distance_bound(v, w, view_.cx, view_.cy);
      if (!(q >= 0)) return;
      ring_span(sorted.data(), k, r, ring_buckets, [&](int b) {
        ring[static_cast<std::size_t>(b)] = std::fmin(ring[static_cast<std::size_t>(b)], q);
      });
    }
    // Every bucket is met (the edges' ranges cover the turn); one that were not would stay infinite,
    // which would certify any finite point: checked all the same.
    for (double& r : ring) {
      if (!(r < INFINITY)) r = 0;
    }
    ring_ = std::move(ring);
    view_.ring = ring_.data();
    view_.ring_buckets = ring_buckets;
    view_.ring_scale = static_cast<double>(ring_buckets) / 4;
  }

  ChordFanView view_;
  std::vector<Point2<double>> corner_;
  std::vector<double> ring_;
};

}  // namespace wagener::core
