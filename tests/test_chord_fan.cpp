// The guide's fan (core::ChordFan, built on the host from the same functions as on the GPU), with and
// without its ring: every point it certifies is strictly inside the polygon, decided exactly; it
// certifies most points of a float circle that are inside a sample's hull; without a centre strictly
// inside it certifies nothing; the ring alone certifies every point well inside each edge's line, and
// is off where an edge's distance has no bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/chord_fan.hpp"
#include "core/inner_polygon.hpp"
#include "cpu/monotone_chain.hpp"
#include "generators.hpp"
#include "wagener/predicates.hpp"

namespace wagener {
namespace {

/// Strictly inside the counter-clockwise strictly convex polygon `hull`, decided exactly by a binary
/// search over the fan around hull[0] (O(log k) orientations).
bool strictly_inside_exact(const std::vector<Point2<double>>& hull, const Point2<double>& p) {
  const std::size_t k = hull.size();
  if (k < 3) return false;
  if (orient2d(hull[0], hull[1], p) <= 0 || orient2d(hull[k - 1], hull[0], p) <= 0) return false;
  std::size_t lo = 1, hi = k - 1;  // p is left of hull[0]->hull[lo] and not left of hull[0]->hull[hi]
  while (hi - lo > 1) {
    const std::size_t mid = (lo + hi) / 2;
    if (orient2d(hull[0], hull[mid], p) > 0) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return orient2d(hull[lo], hull[hi], p) > 0;
}

template <class T>
std::vector<Point2<double>> widened(const std::vector<Point2<T>>& pts) {
  std::vector<Point2<double>> out(pts.size());
  for (std::size_t i = 0; i < pts.size(); ++i) out[i] = {pts[i].x, pts[i].y};
  return out;
}

/// The hull of every `period`-th point, its fan around the InnerPolygon's centre, and over all the
/// points: each certified point strictly inside the hull (exactly); returns how many were certified.
std::size_t certified_points(const std::vector<Point2<double>>& pts, std::size_t period,
                             index_t buckets_per_vertex, const std::string& what, int ring_buckets = 0) {
  std::vector<Point2<double>> sample;
  for (std::size_t i = 0; i < pts.size(); i += period) sample.push_back(pts[i]);
  const auto hull = cpu::convex_hull_serial<double>(sample);
  const core::InnerPolygon inner(hull);
  if (!inner.enabled()) return 0;
  const core::ChordFan fan(hull, {inner.view().cx, inner.view().cy}, buckets_per_vertex, ring_buckets);
  EXPECT_TRUE(fan.enabled()) << what;
  std::size_t certified = 0;
  for (const auto& p : pts) {
    if (!fan.view().certainly_inside(p.x, p.y)) continue;
    ++certified;
    EXPECT_TRUE(strictly_inside_exact(hull, p)) << what << ": (" << p.x << ", " << p.y << ")";
    if (::testing::Test::HasFailure()) return certified;
  }
  return certified;
}

TEST(ChordFan, CertifiesOnlyPointsStrictlyInsideEveryFamily) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : testing::all_families<double>()) {
    for (std::size_t n : {10u, 1000u, 100000u}) {
      const auto pts = family.make(n, rng);
      for (std::size_t period : {1u, 3u, 16u}) {
        for (const auto& [per_vertex, ring] :
             {std::pair{1, 0}, std::pair{4, 0}, std::pair{1, 64}, std::pair{4, core::kChordFanRingBuckets}}) {
          certified_points(pts, period, per_vertex,
                           family.name + " n=" + std::to_string(n) + " period " + std::to_string(period) +
                               " ring " + std::to_string(ring),
                           ring);
          if (HasFailure()) return;
        }
      }
    }
  }
}

// The float circle, the case the guide is for: the fan of the hull of every 16th point certifies
// nearly all the points that hull holds strictly inside (it loses only slivers near the vertices).
TEST(ChordFan, CertifiesMostOfAFloatCircle) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::size_t n = std::size_t{1} << 20;
  const auto pts = widened(testing::circle<float>(n, rng));
  std::vector<Point2<double>> sample;
  for (std::size_t i = 0; i < n; i += 16) sample.push_back(pts[i]);
  const auto hull = cpu::convex_hull_serial<double>(sample);
  std::size_t inside = 0;
  for (const auto& p : pts) inside += strictly_inside_exact(hull, p);
  EXPECT_GT(inside, n / 2);
  for (const int ring : {0, core::kChordFanRingBuckets}) {
    const std::size_t certified =
        certified_points(pts, 16, core::kChordFanBucketsPerVertex, "float circle", ring);
    EXPECT_GE(static_cast<double>(certified), 0.97 * static_cast<double>(inside))
        << certified << " of " << inside << " inside, ring " << ring;
  }
}

// Huge and tiny coordinates: corners that fail the exact check fall back to vertices, products that
// overflow or underflow are never certified.
TEST(ChordFan, ExtremeScales) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (double scale : {1e-300, 1e-150, 1e150, 1e300}) {
    auto pts = widened(testing::circle<double>(20000, rng));
    for (auto& p : pts) p = {p.x * scale, p.y * scale};
    for (const int ring : {0, core::kChordFanRingBuckets}) {
      certified_points(pts, 4, core::kChordFanBucketsPerVertex, "scale " + std::to_string(scale), ring);
    }
    if (HasFailure()) return;
  }
}

// A star polygon (the dense guide's from 2^26 points): vertices in angle order around the centre at
// random radii, so with dents, some deep. Where the fan is enabled (the centre strictly left of every
// edge), every point it certifies is strictly inside the hull of the vertices, decided exactly; and it
// certifies most points of the polygon's inner disk.
TEST(ChordFan, StarPolygonCertifiesOnlyPointsStrictlyInsideItsHull) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  int enabled = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const Point2<double> centre{unit(rng) - 0.5, unit(rng) - 0.5};
    const int k = 3 + static_cast<int>(unit(rng) * (trial % 2 ? 40 : 2000));
    const double dent = trial % 3 == 0 ? 0.9 : 0.05;  // how far a vertex may sit inside the unit circle
    std::vector<double> angles(static_cast<std::size_t>(k));
    for (auto& a : angles) a = unit(rng) * 2 * M_PI;
    std::sort(angles.begin(), angles.end());
    std::vector<Point2<double>> poly;
    for (const double a : angles) {
      const double r = 1 - dent * unit(rng);
      poly.push_back({centre.x + r * std::cos(a), centre.y + r * std::sin(a)});
    }
    const int ring = trial % 4 < 2 ? 0 : core::kChordFanRingBuckets;
    const core::ChordFan fan(poly, centre, core::kChordFanBucketsPerVertex, ring);
    if (!fan.enabled()) continue;  // an angle gap of half a turn or more
    ++enabled;
    EXPECT_EQ(fan.view().ring != nullptr, ring > 0) << "trial " << trial;
    const auto hull = cpu::convex_hull_serial<double>(poly);
    std::size_t certified = 0, near = 0;
    const auto check = [&](const Point2<double>& p) {
      if (!fan.view().certainly_inside(p.x, p.y)) return;
      ++certified;
      ASSERT_TRUE(strictly_inside_exact(hull, p)) << "trial " << trial << ": (" << p.x << ", " << p.y << ")";
    };
    for (int i = 0; i < 4000; ++i) {
      check({centre.x + 2.4 * unit(rng) - 1.2, centre.y + 2.4 * unit(rng) - 1.2});
      if (HasFatalFailure()) return;
    }
    // Points next to the polygon's edges, on either side: at the ends, anywhere, and where the edge
    // is nearest the centre (where the ring's bound decides).
    for (int i = 0; i < 6000; ++i) {
      const auto& v = poly[static_cast<std::size_t>(i % k)];
      const auto& w = poly[static_cast<std::size_t>((i + 1) % k)];
      const double dx = w.x - v.x, dy = w.y - v.y;
      const double foot =
          std::clamp(((centre.x - v.x) * dx + (centre.y - v.y) * dy) / (dx * dx + dy * dy), 0.0, 1.0);
      const double t = i % 3 == 0 ? foot : i % 3 == 1 ? unit(rng) : (i % 2 ? 0 : 1);
      const double scale = 1 + (unit(rng) - 0.5) * (i % 4 == 0 ? 1e-6 : i % 4 == 1 ? 1e-11 : 1e-14);
      check({centre.x + (v.x + t * (w.x - v.x) - centre.x) * scale,
             centre.y + (v.y + t * (w.y - v.y) - centre.y) * scale});
      if (HasFatalFailure()) return;
    }
    for (int i = 0; i < 1000; ++i) {
      const double a = unit(rng) * 2 * M_PI, r = 0.09 * unit(rng);  // inside every dent
      near += fan.view().certainly_inside(centre.x + r * std::cos(a), centre.y + r * std::sin(a));
    }
    if (k >= 100) {
      EXPECT_GT(near, 900u) << "trial " << trial << ": the fan certifies little near its centre";
    }
    EXPECT_GT(certified, 0u) << "trial " << trial;
  }
  EXPECT_GT(enabled, 100) << "most star polygons are around their centre";
}

// The ring alone (the fan's triangles disabled by NaN corners): around a regular polygon, every point
// strictly within 1 - 2^-20 of the inradius is certified, and none beyond the circumradius.
TEST(ChordFan, RingAloneCertifiesEveryPointWellInsideEachEdge) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  for (const int k : {3, 7, 100, 5000, 100000}) {
    const Point2<double> centre{unit(rng) - 0.5, unit(rng) - 0.5};
    const double phase = unit(rng);
    std::vector<Point2<double>> poly;
    for (int i = 0; i < k; ++i) {
      const double a = 2 * M_PI * (i + phase) / k;
      poly.push_back({centre.x + std::cos(a), centre.y + std::sin(a)});
    }
    const core::ChordFan fan(poly, centre, core::kChordFanBucketsPerVertex, core::kChordFanRingBuckets);
    ASSERT_TRUE(fan.enabled()) << k;
    ASSERT_NE(fan.view().ring, nullptr) << k;
    const std::vector<Point2<double>> no_corners(static_cast<std::size_t>(2 * fan.view().buckets),
                                                 Point2<double>{NAN, NAN});
    core::ChordFanView ring_alone = fan.view();
    ring_alone.corner = no_corners.data();
    const double inradius = std::cos(M_PI / k);
    for (int i = 0; i < 20000; ++i) {
      const double a = 2 * M_PI * unit(rng);
      const double r = unit(rng) * inradius * (1 - 0x1p-20);
      ASSERT_TRUE(ring_alone.certainly_inside(centre.x + r * std::cos(a), centre.y + r * std::sin(a)))
          << "k " << k << ": angle " << a << ", radius " << r;
      const double out = 1 + 1e-9 + unit(rng);
      ASSERT_FALSE(ring_alone.certainly_inside(centre.x + out * std::cos(a), centre.y + out * std::sin(a)))
          << "k " << k << ": angle " << a << ", radius " << out;
    }
  }
}

// Coordinates near 1e300: the edges' distances have no bound (their products would overflow), so the
// fan has no ring, and near 1e-300 neither; at 1 it has one.
TEST(ChordFan, RingOffWhereAnEdgeHasNoBound) {
  for (const double scale : {1e-300, 1.0, 1e300}) {
    std::vector<Point2<double>> poly;
    for (int i = 0; i < 100; ++i) {
      const double a = 2 * M_PI * i / 100;
      poly.push_back({scale * std::cos(a), scale * std::sin(a)});
    }
    const core::ChordFan fan(poly, {0, 0}, core::kChordFanBucketsPerVertex, core::kChordFanRingBuckets);
    ASSERT_TRUE(fan.enabled()) << scale;
    EXPECT_EQ(fan.view().ring != nullptr, scale == 1.0) << scale;
  }
}

TEST(ChordFan, CentreNotStrictlyInsideCertifiesNothing) {
  const std::vector<Point2<double>> square{{0, 0}, {4, 0}, {4, 4}, {0, 4}};
  for (const Point2<double> centre : {Point2<double>{0, 2}, Point2<double>{5, 5}, Point2<double>{4, 4}}) {
    const core::ChordFan fan(square, centre);
    EXPECT_FALSE(fan.enabled());
    EXPECT_FALSE(fan.view().certainly_inside(1, 1));
  }
  const core::ChordFan fan(square, {2, 2});
  ASSERT_TRUE(fan.enabled());
  EXPECT_TRUE(fan.view().certainly_inside(1, 1.5));
  EXPECT_FALSE(fan.view().certainly_inside(1, 1));  // on the ray to a corner: on a triangle's edge
  EXPECT_FALSE(fan.view().certainly_inside(2, 2));  // the centre itself: no pseudo-angle
  EXPECT_FALSE(fan.view().certainly_inside(4, 1));  // on an edge
  EXPECT_FALSE(fan.view().certainly_inside(NAN, 1));
}

}  // namespace
}  // namespace wagener
