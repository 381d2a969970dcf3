// Integer points, int32 and int64, through every CPU door: orient2d against an independent exact
// reference (tests/integer_reference.hpp) on the extremes of the range and near-collinear triples at
// the 2^62 scale; compute_hull (cpu, pram, auto; full and upper; presorted; indices), the parallel
// filter's paths, grouped hulls and merge_hulls against the reference hull.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "core/small_hull.hpp"
#include "cpu/filter_pass.hpp"
#include "cpu/monotone_chain.hpp"
#include "generators.hpp"
#include "hull_checks.hpp"
#include "integer_reference.hpp"
#include "wagener/grouped.hpp"
#include "wagener/hull.hpp"
#include "wagener/predicates.hpp"

namespace wagener {
namespace {

using testing::reference_hull;
using testing::reference_indices;
using testing::reference_orientation;

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

/// Values where 64-bit arithmetic breaks: the ends of the range, the 2^53 edge of exact doubles,
/// 2^62 and 2^63 - 1 apart, and small ones.
const std::int64_t kSpecial[] = {kMin,
                                 kMin + 1,
                                 kMin / 2,
                                 -(std::int64_t{1} << 62) - 1,
                                 -(std::int64_t{1} << 53) - 1,
                                 -(std::int64_t{1} << 53),
                                 -(std::int64_t{1} << 53) + 1,
                                 -2,
                                 -1,
                                 0,
                                 1,
                                 2,
                                 (std::int64_t{1} << 53) - 1,
                                 std::int64_t{1} << 53,
                                 (std::int64_t{1} << 53) + 1,
                                 (std::int64_t{1} << 62) + 1,
                                 kMax / 2,
                                 kMax - 1,
                                 kMax};

void expect_orientation(std::int64_t ax, std::int64_t ay, std::int64_t bx, std::int64_t by, std::int64_t cx,
                        std::int64_t cy) {
  const Point2<std::int64_t> a{ax, ay}, b{bx, by}, c{cx, cy};
  const int expected = reference_orientation(a, b, c);
  ASSERT_EQ(orient2d(a, b, c), expected)
      << "a=(" << ax << ", " << ay << ") b=(" << bx << ", " << by << ") c=(" << cx << ", " << cy << ")";
  // The filter alone: a sign it gives is the exact one, 0 means unknown.
  const int certified = orient2d_certified(a, b, c);
  if (certified != 0) {
    ASSERT_EQ(certified, expected);
  }
}

TEST(IntegerOrientation, Int64AgreesWithTheReferenceOnEveryTripleOfExtremeValues) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, std::size(kSpecial) - 1);
  for (int i = 0; i < 200000; ++i) {
    expect_orientation(kSpecial[pick(rng)], kSpecial[pick(rng)], kSpecial[pick(rng)], kSpecial[pick(rng)],
                       kSpecial[pick(rng)], kSpecial[pick(rng)]);
    if (HasFatalFailure()) return;
  }
  // The corners of the whole range, and the diagonal through them.
  using P = Point2<std::int64_t>;
  EXPECT_EQ(orient2d(P{kMin, kMin}, P{kMax, kMin}, P{kMax, kMax}), 1);
  EXPECT_EQ(orient2d(P{kMin, kMin}, P{kMax, kMax}, P{kMax, kMin}), -1);
  EXPECT_EQ(orient2d(P{kMin, kMin}, P{kMax, kMax}, P{0, 0}), 0);
  EXPECT_EQ(orient2d(P{kMin, kMin}, P{kMax, kMax}, P{0, 1}), 1);
  EXPECT_EQ(orient2d(P{kMin, kMin}, P{kMax, kMax}, P{kMax, kMax - 1}), -1);
  EXPECT_EQ(orient2d(P{kMin, kMax}, P{kMax, kMin}, P{-1, 0}), 0);
}

TEST(IntegerOrientation, Int64NearCollinearAtThe2To62ScaleAndSteepLinesNudgedByOneUnit) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> big(-(std::int64_t{1} << 62), std::int64_t{1} << 62);
  std::uniform_int_distribution<int> nudge(-1, 1);
  for (int i = 0; i < 100000; ++i) {
    // a and b anywhere at the 2^62 scale, c on the line through them (a lattice point of it) or a
    // unit off it.
    const std::int64_t ax = big(rng), ay = big(rng);
    const std::int64_t dx = big(rng) / (std::int64_t{1} << 31), dy = big(rng) / (std::int64_t{1} << 31);
    const std::int64_t k = big(rng) / (std::int64_t{1} << 33);
    expect_orientation(ax, ay, ax + dx, ay + dy, ax + k * dx + nudge(rng), ay + k * dy + nudge(rng));
    // Steep: a slope of 2^40, the points a unit apart in x.
    const std::int64_t slope = std::int64_t{1} << 40, x0 = big(rng) / (std::int64_t{1} << 40);  // |y| < 2^63
    expect_orientation(x0, x0 * slope, x0 + 1, (x0 + 1) * slope, x0 + 2, (x0 + 2) * slope + nudge(rng));
    if (HasFatalFailure()) return;
  }
}

TEST(IntegerOrientation, Int32IsExactOverTheWholeRangeAndOnLinesNudgedByOneUnit) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto values = testing::whole_range<std::int32_t>(300000, rng);
  for (std::size_t i = 0; i + 2 < values.size(); i += 3) {
    ASSERT_EQ(orient2d(values[i], values[i + 1], values[i + 2]),
              reference_orientation<std::int32_t>(values[i], values[i + 1], values[i + 2]));
  }
  // c = a + k (b - a), nudged by a unit or not: products near 2^62, determinants near 0.
  std::uniform_int_distribution<std::int32_t> base(-(1 << 30), 1 << 30), step(-(1 << 14), 1 << 14);
  std::uniform_int_distribution<int> nudge(-1, 1);
  for (int i = 0; i < 100000; ++i) {
    const Point2<std::int32_t> a{base(rng), base(rng)}, d{step(rng), step(rng)};
    const std::int32_t k = step(rng) / 2;
    const Point2<std::int32_t> b{a.x + d.x, a.y + d.y},
        c{a.x + k * d.x + nudge(rng), a.y + k * d.y + nudge(rng)};
    ASSERT_EQ(orient2d(a, b, c), reference_orientation<std::int32_t>(a, b, c));
  }
}

template <class T>
class IntegerHull : public ::testing::Test {};
using Integers = ::testing::Types<std::int32_t, std::int64_t>;
TYPED_TEST_SUITE(IntegerHull, Integers);

TEST(IntegerHull, TheIssuesExampleIsExact) {
  const std::vector<Point2<std::int64_t>> p = {
      {0, 0}, {std::int64_t{1} << 54, 0}, {(std::int64_t{1} << 54) + 1, 0}, {0, 5}};
  HullOptions options;
  options.indices = true;
  const HullResult<std::int64_t> hull = compute_hull<std::int64_t>(p, options);
  EXPECT_EQ(hull.indices, (std::vector<std::int64_t>{0, 2, 3}));
  EXPECT_EQ(hull.vertices, (std::vector<Point2<std::int64_t>>{p[0], p[2], p[3]}));
}

TYPED_TEST(IntegerHull, EveryBackendAndPartIsTheReferenceHull) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : testing::integer_families<T>()) {
    for (const std::size_t n : {0, 1, 2, 3, 10, 100, 5000, 140009}) {
      SCOPED_TRACE(family.name + " n=" + std::to_string(n));
      const auto pts = family.make(n, rng);
      const auto full = reference_hull(pts), upper = reference_hull(pts, true);
      for (const Backend backend : {Backend::cpu, Backend::pram, Backend::automatic}) {
        if (backend == Backend::pram && n > 5000) continue;  // the emulator is for its counters
        SCOPED_TRACE(std::string(backend_name(backend)));
        HullOptions options;
        options.backend = backend;
        options.indices = true;
        const HullResult<T> hull = compute_hull<T>(pts, options);
        ASSERT_EQ(hull.vertices, full);
        ASSERT_EQ(hull.indices, reference_indices(pts, full));
        options.part = HullPart::upper;
        options.indices = false;
        ASSERT_EQ(compute_hull<T>(pts, options).vertices, upper);
        auto sorted = pts;
        std::sort(sorted.begin(), sorted.end(), lex_less<T>);
        options.presorted = true;
        ASSERT_EQ(compute_hull<T>(sorted, options).vertices, upper);
        options.part = HullPart::full;
        ASSERT_EQ(compute_hull<T>(sorted, options).vertices, full);
      }
      ASSERT_TRUE(testing::is_convex_hull_of<T>(full, pts));
    }
  }
}

TYPED_TEST(IntegerHull, TheParallelFilterKeepsTheReferenceOnEveryPathAndThreadCount) {
  using T = TypeParam;
  using cpu::FilterKernel;
  using cpu::FilterPolicy;
  using cpu::FilterUse;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  auto families = testing::integer_families<T>();
  if constexpr (sizeof(T) == 8) {
    for (auto& family : testing::far_int64_families()) families.push_back(std::move(family));
  }
  for (const auto& family : families) {
    const auto pts = family.make(140009, rng);
    const auto reference = reference_hull(pts);
    for (const FilterUse use : {FilterUse::always, FilterUse::never, FilterUse::automatic}) {
      for (const FilterKernel kernel : {FilterKernel::widest, FilterKernel::scalar}) {
        // (Two slices need 2^17 points: parallel_hull.cpp's kMinPointsPerThread.)
        for (const unsigned threads : {1u, 2u}) {
          for (const std::size_t bound : {FilterPolicy::automatic, std::size_t{0}}) {
            // Without the filter neither the kernel nor the survivors' bound matters.
            if (use == FilterUse::never && (kernel != FilterKernel::widest || bound == 0)) continue;
            SCOPED_TRACE(family.name + " use " + std::to_string(static_cast<int>(use)) + " kernel " +
                         std::to_string(static_cast<int>(kernel)) + " threads " + std::to_string(threads) +
                         " bound " + std::to_string(bound));
            std::int64_t survivors = -1;
            ASSERT_EQ(
                cpu::convex_hull_parallel<T>(pts, &survivors, FilterPolicy{use, kernel, threads, bound}),
                reference);
            ASSERT_GE(survivors, static_cast<std::int64_t>(reference.size()));
            // The filter ran, on a disk exact in double and on one with a few points beyond 2^53.
            if (use == FilterUse::always &&
                (family.name == "disk_2^20" || family.name == "disk_2^40_with_far_points")) {
              ASSERT_LT(survivors, static_cast<std::int64_t>(pts.size() / 4));
            }
            // Beyond 2^53 the octagon of the extremes filters (every point was once sorted there): a
            // disk keeps about a tenth. (Not the disk 600 units across at 2^60: its corners are chosen
            // by coordinates rounded to 256 units, coarse beside it, and keep about half.)
            if (use != FilterUse::never && family.name == "disk_2^60") {
              ASSERT_LT(survivors, static_cast<std::int64_t>(pts.size() / 5));
            }
          }
        }
      }
    }
  }
}

// The small groups' extreme polygon (core::ExtremePolygon, the CPU's and the device's fallback filter)
// certifies only points strictly inside the exact hull, in every int64 family and on points nudged
// to both sides of an octagon's edges at 2^60; and beyond 2^53, where its tests take 64-bit
// differences, it certifies some (it once certified none there).
TEST(IntegerHull, ExtremePolygonCertifiesOnlyInnerPointsAndSomeBeyond2To53) {
  using T = std::int64_t;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  auto families = testing::integer_families<T>();
  for (auto& family : testing::far_int64_families()) families.push_back(std::move(family));
  std::uniform_int_distribution<std::size_t> size(1, 300);
  for (const auto& family : families) {
    long certified = 0;
    for (int g = 0; g < 100; ++g) {
      const std::vector<Point2<T>> points = family.make(size(rng), rng);
      core::ExtremePolygon<T> polygon;
      polygon.start(points[0]);
      for (const auto& p : points) polygon.add(p);
      polygon.finish();
      const std::vector<Point2<T>> hull = testing::reference_hull(points, false);
      for (const auto& p : points) {
        if (!polygon.strictly_inside(p)) continue;
        ++certified;
        ASSERT_GE(hull.size(), 3u) << family.name;
        for (std::size_t j = 0; j < hull.size(); ++j) {
          ASSERT_GT(orient2d(hull[j], hull[(j + 1) % hull.size()], p), 0)
              << family.name << ": (" << p.x << ", " << p.y << ") certified, not strictly inside";
        }
      }
    }
    if (family.name == "disk_2^60" || family.name.starts_with("octagon_nudged")) {
      EXPECT_GT(certified, 0) << family.name;
    }
  }
}

TYPED_TEST(IntegerHull, GroupedHullsAreEachGroupsReferenceHull) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto families = testing::integer_families<T>();
  // Groups of every size class: tiny (no filter), small (the octagon), beyond the small-group bound
  // (the single-hull path), empty; each from some family.
  std::vector<Point2<T>> pts;
  std::vector<std::int64_t> offsets{0};
  std::vector<std::size_t> sizes = {0, 1, 2, 5, 15, 16, 17, 100, 1000, 70000};
  std::uniform_int_distribution<std::size_t> size(0, 300);
  for (int g = 0; g < 200; ++g) sizes.push_back(size(rng));
  for (std::size_t g = 0; g < sizes.size(); ++g) {
    const auto part = families[g % families.size()].make(sizes[g], rng);
    pts.insert(pts.end(), part.begin(), part.end());
    offsets.push_back(static_cast<std::int64_t>(pts.size()));
  }
  for (const Backend backend : {Backend::cpu, Backend::pram}) {
    for (const HullPart part : {HullPart::full, HullPart::upper}) {
      SCOPED_TRACE(std::string(backend_name(backend)) + (part == HullPart::upper ? " upper" : " full"));
      HullOptions options;
      options.backend = backend;
      options.part = part;
      options.indices = true;
      const GroupedHulls<T> hulls = convex_hulls<T>(pts, offsets, options);
      ASSERT_EQ(hulls.groups(), sizes.size());
      for (std::size_t g = 0; g < sizes.size(); ++g) {
        const std::vector<Point2<T>> group(pts.begin() + offsets[g], pts.begin() + offsets[g + 1]);
        const auto expected = reference_hull(group, part == HullPart::upper);
        const auto got = hulls.hull(g);
        ASSERT_EQ(std::vector<Point2<T>>(got.begin(), got.end()), expected) << "group " << g;
        auto indices = reference_indices(group, expected);
        for (auto& i : indices) i += offsets[g];
        ASSERT_EQ(std::vector<std::int64_t>(hulls.indices.begin() + hulls.offsets[g],
                                            hulls.indices.begin() + hulls.offsets[g + 1]),
                  indices)
            << "group " << g;
      }
    }
  }
  // By id: the same groups, the rows shuffled.
  std::vector<std::int64_t> ids(pts.size());
  for (std::size_t g = 0; g < sizes.size(); ++g) {
    for (auto i = offsets[g]; i < offsets[g + 1]; ++i)
      ids[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(g);
  }
  std::vector<std::size_t> order(pts.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<Point2<T>> shuffled(pts.size());
  std::vector<std::int64_t> shuffled_ids(pts.size());
  for (std::size_t i = 0; i < order.size(); ++i) shuffled[i] = pts[order[i]], shuffled_ids[i] = ids[order[i]];
  const GroupedHulls<T> by_id = convex_hulls_by_id<T>(shuffled, shuffled_ids);
  for (std::size_t g = 0; g < by_id.groups(); ++g) {
    std::vector<Point2<T>> group;
    for (std::size_t i = 0; i < shuffled.size(); ++i) {
      if (shuffled_ids[i] == by_id.group_ids[g]) group.push_back(shuffled[i]);
    }
    const auto got = by_id.hull(g);
    ASSERT_EQ(std::vector<Point2<T>>(got.begin(), got.end()), reference_hull(group))
        << "id " << by_id.group_ids[g];
  }
}

TYPED_TEST(IntegerHull, MergeHullsIsTheReferenceHullOfTheUnion) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto families = testing::integer_families<T>();
  for (int round = 0; round < 20; ++round) {
    std::vector<std::vector<Point2<T>>> parts;
    std::vector<Point2<T>> all;
    for (std::size_t k = 0; k < 5; ++k) {
      const auto pts = families[(round + k) % families.size()].make(500 + 1000 * k, rng);
      all.insert(all.end(), pts.begin(), pts.end());
      // Hulls in the convention, and (every other one) a raw point set, which the merge sorts.
      parts.push_back(k % 2 ? pts : reference_hull(pts));
    }
    const std::vector<std::span<const Point2<T>>> spans(parts.begin(), parts.end());
    ASSERT_EQ(merge_hulls<T>(spans), reference_hull(all)) << "round " << round;
  }
}

}  // namespace
}  // namespace wagener
