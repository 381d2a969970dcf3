// upper_hull() and convex_hull() through the public API, every backend against the serial reference
// on every named family, and the hull properties checked directly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <random>
#include <thread>
#include <vector>

#include "cpu/merge_hulls.hpp"
#include "cpu/monotone_chain.hpp"
#include "generators.hpp"
#include "hull_checks.hpp"
#include "wagener/error.hpp"
#include "wagener/hull.hpp"

namespace wagener {
namespace {

template <class T>
class HullBackends : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(HullBackends, Precisions);

template <class T>
void check_all_families(Backend backend, std::initializer_list<std::size_t> sizes, bool check_properties) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : testing::all_families<T>()) {
    for (std::size_t n : sizes) {
      SCOPED_TRACE(family.name + " n=" + std::to_string(n) +
                   " backend=" + std::string(backend_name(backend)));
      const auto pts = family.make(n, rng);
      const auto sorted = testing::sorted_copy(pts);
      const auto reference = cpu::hull_of_sorted<T>(sorted);
      const HullOptions options{backend, nullptr};
      const auto hull = convex_hull<T>(pts, options);
      ASSERT_EQ(hull, reference);
      ASSERT_EQ(upper_hull<T>(sorted, options), cpu::upper_chain<T>(sorted));
      if (check_properties) {
        ASSERT_TRUE(testing::is_convex_hull_of<T>(hull, pts));
      }
    }
  }
}

TYPED_TEST(HullBackends, CpuMatchesReferenceOnEveryFamily) {
  check_all_families<TypeParam>(Backend::cpu, {0, 1, 2, 3, 5, 17, 100, 1000, 4099}, true);
}

TYPED_TEST(HullBackends, CpuParallelPathMatchesReferenceOnLargeInputs) {
  // Large enough for several threads and a non-trivial interior filter.
  check_all_families<TypeParam>(Backend::cpu, {300007}, false);
}

TYPED_TEST(HullBackends, PramMatchesReferenceOnEveryFamily) {
  check_all_families<TypeParam>(Backend::pram, {0, 1, 2, 3, 5, 17, 100, 1000, 4099, 20011}, true);
}

TEST(HullApi, CpuInteriorFilterDiscardsAlmostAllOfAUniformDisk) {
  std::mt19937_64 rng(testing::fresh_seed());
  const auto pts = testing::uniform_disk<double>(1 << 20, rng);
  HullStats stats;
  convex_hull<double>(pts, {Backend::cpu, &stats});
  // The polygon of a 32k-point sample's hull misses well under 1 % of the disk.
  EXPECT_LT(stats.survivors, static_cast<std::int64_t>(pts.size()) / 50);
  EXPECT_GE(stats.survivors, stats.hull_vertices);
}

// The interior filter of the cpu backend, against the serial reference on inputs built to break it.
// The filter's polygon is the hull of a strided sample of the input; in these inputs a tenth of the
// points are the corners of one polygon, so any sample of a few thousand points holds them all and
// the filter's polygon is exactly that polygon, whose edges the other points then lie on, or an ulp
// inside or outside of.
/// Returns how many points survived the filter.
template <class T>
std::int64_t expect_cpu_matches_reference(const std::vector<Point2<T>>& pts) {
  const auto reference = cpu::convex_hull_serial<T>(pts);
  HullStats stats;
  EXPECT_EQ(convex_hull<T>(pts, {Backend::cpu, &stats}), reference);
  EXPECT_GE(stats.survivors, static_cast<std::int64_t>(reference.size()));
  return stats.survivors;
}

template <class T>
T ulp_up(T v) {
  return std::nextafter(v, std::numeric_limits<T>::infinity());
}
template <class T>
T ulp_down(T v) {
  return std::nextafter(v, -std::numeric_limits<T>::infinity());
}

enum class Shape { square, diamond, skewed };

/// A quadrilateral's corners and points strictly inside it at even indices; at odd indices, points
/// on its edges or a few ulps off them, both ways; all scaled by the power of two `scale` (exactly).
/// A strided sample with an even stride (as the cpu backend takes) holds only corners and inside
/// points, so the filter's polygon is exactly the quadrilateral, with long edges. The square
/// (+-1, +-1) and the diamond (+-1, 0), (0, +-1) have edge points that are exact (dyadic); the
/// skewed quadrilateral has arbitrary corners, so its edge points are rounded and lie an unknown
/// fraction of an ulp off the line, on either side: where a filter without error bounds errs.
template <class T>
std::vector<Point2<T>> corner_polygon_with_edge_points(Shape shape, T scale, std::size_t n,
                                                       std::mt19937_64& rng) {
  std::vector<Point2<T>> corners;
  switch (shape) {
    case Shape::square: corners = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}}; break;
    case Shape::diamond: corners = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}}; break;
    case Shape::skewed: {
      std::uniform_real_distribution<double> wiggle(-0.3, 0.3);
      for (int i = 0; i < 4; ++i) {
        const double angle = std::numbers::pi / 2 * (i + 0.5 + wiggle(rng));
        corners.push_back({static_cast<T>(std::cos(angle)), static_cast<T>(std::sin(angle))});
      }
      break;
    }
  }
  std::uniform_int_distribution<int> pick(0, 3), grid(0, 1 << 20), kind(0, 9), ulps(-2, 2);
  std::vector<Point2<T>> pts;
  while (pts.size() < n) {
    const std::size_t c = static_cast<std::size_t>(pick(rng));
    const Point2<T> a = corners[c], b = corners[(c + 1) % 4];
    // t: a dyadic in [0, 1], so that the square's and the diamond's edge points are exact.
    const T t = static_cast<T>(grid(rng)) / static_cast<T>(1 << 20);
    Point2<T> p = {a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)};
    const auto nudge = [&](T v) {
      for (int k = ulps(rng); k != 0; k += k > 0 ? -1 : 1) v = k > 0 ? ulp_up(v) : ulp_down(v);
      return v;
    };
    int k = kind(rng);
    if (pts.size() % 2 == 0) {
      k = k < 3 ? 0 : 5;  // corners and inside points only
    } else if (k == 0 || k == 5 || k == 6) {
      k = 7;  // on the edge
    }
    switch (k) {
      case 0: p = a; break;
      case 1: p.x = nudge(p.x); break;
      case 2: p.y = nudge(p.y); break;
      case 3:
      case 4: p = {nudge(p.x), nudge(p.y)}; break;
      case 5:
      case 6: p = {p.x / 2, p.y / 2}; break;  // strictly inside
      default: break;                         // on the edge (rounded, for the skewed one)
    }
    pts.push_back({p.x * scale, p.y * scale});
  }
  return pts;
}

TYPED_TEST(HullBackends, CpuFilterIsExactOnAndWithinAnUlpOfItsPolygonsEdges) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  // Powers of two scale exactly: the same geometry at about 1, 1e300 and 1e-300 (float: 1e30,
  // 1e-30), where the filter's products overflow or underflow and it must keep what it cannot
  // certify.
  const int big = std::numeric_limits<T>::max_exponent - 26,
            small = std::numeric_limits<T>::min_exponent + 26;
  for (const T scale : {T(1), std::ldexp(T(1), big), std::ldexp(T(1), small), std::ldexp(T(1), 5)}) {
    for (const Shape shape : {Shape::square, Shape::diamond, Shape::skewed}) {
      for (const std::size_t n : {std::size_t{1000}, std::size_t{200003}}) {
        SCOPED_TRACE("scale " + std::to_string(scale) + " shape " + std::to_string(static_cast<int>(shape)) +
                     " n=" + std::to_string(n));
        const auto survivors =
            expect_cpu_matches_reference(corner_polygon_with_edge_points<T>(shape, scale, n, rng));
        // The filter did run (and discarded the inside points) at a scale its arithmetic handles.
        if (scale == T(1) && n > 1000) {
          EXPECT_LT(survivors, static_cast<std::int64_t>(n * 9 / 10));
        }
      }
    }
  }
}

TEST(HullApi, CpuFilterIsExactOnHugeAndTinyDisks) {
  std::mt19937_64 rng(testing::fresh_seed());
  const auto disk = testing::uniform_disk<double>(300007, rng);
  for (const double scale : {0x1p996, 0x1p-996, 1e300, 1e-300, 0x1p-1022}) {
    SCOPED_TRACE("scale " + std::to_string(scale));
    std::vector<Point2<double>> pts;
    for (const auto& p : disk) pts.push_back({p.x * scale, p.y * scale});
    expect_cpu_matches_reference(pts);
  }
  // Points near the largest double: differences overflow.
  std::vector<Point2<double>> pts;
  for (const auto& p : disk)
    pts.push_back({p.x * 0x1p1023 + (p.x > 0 ? 0x1p1022 : -0x1p1022), p.y * 0x1p1023});
  expect_cpu_matches_reference(pts);
}

TEST(HullApi, CpuFilterIsExactWhenTheSampleHullIsDegenerate) {
  std::mt19937_64 rng(testing::fresh_seed());
  std::uniform_int_distribution<int> u(-1000000, 1000000);
  const std::size_t n = 300007;
  // All collinear: the hull (and the sample's) is a segment.
  std::vector<Point2<double>> line;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = u(rng);
    line.push_back({x, 3 * x - 7});
  }
  expect_cpu_matches_reference(line);
  // Two distinct points, repeated.
  std::vector<Point2<double>> two;
  for (std::size_t i = 0; i < n; ++i) two.push_back(i % 3 ? Point2<double>{1, 2} : Point2<double>{-5, 0.5});
  expect_cpu_matches_reference(two);
  // A single point.
  expect_cpu_matches_reference(std::vector<Point2<double>>(n, {0.25, -4}));
  // Collinear except for a few points that a strided sample most likely misses.
  auto almost = line;
  for (std::size_t i : {std::size_t{1}, n / 2 + 1, n - 2}) almost[i] = {static_cast<double>(u(rng)), 1e7};
  almost[n / 3 + 2] = {0, -1e7};
  expect_cpu_matches_reference(almost);
}

TEST(HullApi, CpuNonFiniteInputIsAnInputErrorNamingTheFirstPoint) {
  std::mt19937_64 rng(testing::fresh_seed());
  auto pts = testing::uniform_disk<double>(1 << 20, rng);
  // Deep inside the disk, where a finite point would be discarded by the filter.
  pts[700001] = {NAN, 0};
  pts[300001] = {0, INFINITY};
  pts[900001] = {-INFINITY, NAN};
  try {
    convex_hull<double>(pts, {Backend::cpu, nullptr});
    FAIL() << "no input_error";
  } catch (const input_error& e) {
    EXPECT_STREQ(e.what(), "point 300001 is not finite");
  }
  // In the sample (index 0 is always sampled) as well.
  pts[0] = {NAN, NAN};
  EXPECT_THROW(convex_hull<double>(pts, {Backend::cpu, nullptr}), input_error);
}

TEST(HullApi, PresortedInputThatIsNotSortedIsAnInputError) {
  const std::vector<Point2<double>> pts = {{0, 0}, {2, 1}, {1, 5}};
  EXPECT_THROW(upper_hull<double>(pts, {Backend::cpu, nullptr}), input_error);
  EXPECT_THROW(upper_hull<double>(pts, {Backend::pram, nullptr}), input_error);
}

// A large presorted input is checked on several threads: the message names the first point at
// fault over the whole input, a non-finite one before any out of order.
TEST(HullApi, PresortedCheckOfALargeInputNamesTheFirstPointAtFault) {
  const std::size_t n = 600'000;
  std::vector<Point2<double>> pts(n);
  for (std::size_t i = 0; i < n; ++i) pts[i] = {static_cast<double>(i / 3), static_cast<double>(i % 3)};
  const auto message = [&](const std::vector<Point2<double>>& input) -> std::string {
    try {
      upper_hull<double>(input, {Backend::cpu, nullptr});
    } catch (const input_error& e) {
      return e.what();
    }
    return "no input_error";
  };
  EXPECT_EQ(upper_hull<double>(pts, {Backend::cpu, nullptr}),
            (std::vector<Point2<double>>{{0, 0}, {0, 2}, {199999, 2}}));
  auto unsorted = pts;
  std::swap(unsorted[450001], unsorted[450002]);
  std::swap(unsorted[500001], unsorted[500002]);
  EXPECT_EQ(message(unsorted), "points are not sorted by (x, y): point 450002 is smaller than point 450001");
  unsorted[599000].y = NAN;
  EXPECT_EQ(message(unsorted), "point 599000 is not finite");
  unsorted[7].x = -INFINITY;
  EXPECT_EQ(message(unsorted), "point 7 is not finite");
}

TEST(HullApi, NonFiniteInputIsAnInputError) {
  const std::vector<Point2<double>> pts = {{0, 0}, {NAN, 1}, {1, 5}};
  EXPECT_THROW(convex_hull<double>(pts, {Backend::cpu, nullptr}), input_error);
  EXPECT_THROW(convex_hull<double>(pts, {Backend::pram, nullptr}), input_error);
  const std::vector<Point2<double>> sorted = {{0, 0}, {1, INFINITY}};
  EXPECT_THROW(upper_hull<double>(sorted, {Backend::cpu, nullptr}), input_error);
}

TEST(HullApi, StatsReportBackendSizesAndPramCounters) {
  std::mt19937_64 rng(testing::fresh_seed());
  const auto pts = testing::sorted_copy(testing::parabola<double>(1024, rng));
  HullStats stats;
  const auto hull = upper_hull<double>(pts, {Backend::pram, &stats});
  EXPECT_EQ(stats.backend, Backend::pram);
  EXPECT_EQ(stats.points, 1024);
  EXPECT_EQ(stats.hull_vertices, static_cast<std::int64_t>(hull.size()));
  EXPECT_EQ(stats.rounds, 10);
  EXPECT_EQ(stats.parallel_steps, 70);
  EXPECT_GT(stats.work, 1024 * 10 / 2);
}

TEST(HullApi, PramOptimalMergeGivesTheSameHullsWithLessWork) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : testing::all_families<double>()) {
    const auto pts = family.make(3001, rng);
    HullOptions optimal{Backend::pram};
    optimal.pram_merge = PramMerge::optimal;
    EXPECT_EQ(convex_hull<double>(pts, optimal), cpu::convex_hull_serial<double>(pts)) << family.name;
  }
  const auto full = testing::sorted_copy(testing::parabola<double>(1 << 14, rng));
  HullStats seed_stats, optimal_stats;
  HullOptions options{Backend::pram, &seed_stats};
  const auto by_seed = upper_hull<double>(full, options);
  options.stats = &optimal_stats;
  options.pram_merge = PramMerge::optimal;
  EXPECT_EQ(upper_hull<double>(full, options), by_seed);
  EXPECT_LT(optimal_stats.work * 2, seed_stats.work);
}

TEST(HullApi, TraceRefusesThePramOptimalMerge) {
  TraceLog<double> log;
  HullOptions options{Backend::pram, nullptr, &log};
  options.pram_merge = PramMerge::optimal;
  const std::vector<Point2<double>> pts{{0, 0}, {1, 1}, {2, 0}};
  EXPECT_THROW(convex_hull<double>(pts, options), unsupported_error);
  EXPECT_EQ(parse_pram_merge("optimal"), PramMerge::optimal);
  EXPECT_THROW(parse_pram_merge("fast"), std::invalid_argument);
}

TEST(HullApi, BackendNamesRoundTrip) {
  for (Backend b : {Backend::automatic, Backend::cpu, Backend::pram, Backend::cuda}) {
    EXPECT_EQ(parse_backend(backend_name(b)), b);
  }
  EXPECT_THROW(parse_backend("gpu"), std::invalid_argument);
}

// auto: the CPU below 2^20 points and without a device; above, whichever the cost model predicts to
// finish first, with both predictions reported.
TEST(HullApi, AutoPicksTheBackendItPredictsFastest) {
  std::mt19937_64 rng(testing::fresh_seed());
  for (std::size_t n : {std::size_t{1000}, (std::size_t{1} << 20) - 1, (std::size_t{1} << 20) + 7}) {
    const auto pts = testing::uniform_disk<double>(n, rng);
    const auto sorted = testing::sorted_copy(pts);
    HullStats stats;
    EXPECT_EQ(convex_hull<double>(pts, {Backend::automatic, &stats}), cpu::convex_hull_serial<double>(pts));
    const auto check_choice = [&] {
      if (n < (std::size_t{1} << 20) || !cuda_available()) {
        EXPECT_EQ(stats.backend, Backend::cpu) << n;
      } else {
        ASSERT_GT(stats.predicted_cpu_milliseconds, 0) << n;
        ASSERT_GT(stats.predicted_cuda_milliseconds, 0) << n;
        EXPECT_EQ(stats.backend, stats.predicted_cuda_milliseconds < stats.predicted_cpu_milliseconds
                                     ? Backend::cuda
                                     : Backend::cpu)
            << n;
      }
    };
    check_choice();
    EXPECT_EQ(upper_hull<double>(sorted, {Backend::automatic, &stats}), cpu::upper_chain<double>(sorted));
    check_choice();
  }
}

// The upper hull of points in any order (no presorted promise) comes from the full hull's pipeline
// on cpu and auto, and from sorting on pram: every way gives the upper chain of the sorted points.
TYPED_TEST(HullBackends, UpperHullOfUnsortedPointsOnEveryFamily) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : testing::all_families<T>()) {
    for (std::size_t n : {0, 1, 2, 3, 5, 17, 1000, 4099, 300007}) {
      const auto pts = family.make(n, rng);
      const auto expected = cpu::upper_chain<T>(testing::sorted_copy(pts));
      for (Backend backend : {Backend::cpu, Backend::automatic, Backend::pram}) {
        if (backend == Backend::pram && n > 5000) continue;  // the emulator is slow
        SCOPED_TRACE(family.name + " n=" + std::to_string(n) + " " + std::string(backend_name(backend)));
        HullOptions options{backend, nullptr};
        options.part = HullPart::upper;
        ASSERT_EQ(compute_hull<T>(pts, options).vertices, expected);
      }
    }
  }
}

// indices[i] is the smallest input index of vertex i, for the full and the upper hull, with
// duplicates (the families repeat points) and -0.0 against 0.0.
TYPED_TEST(HullBackends, IndicesAreTheFirstInputIndexOfEachVertex) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : testing::all_families<T>()) {
    for (std::size_t n : {0, 1, 2, 7, 1000, 200003}) {
      SCOPED_TRACE(family.name + " n=" + std::to_string(n));
      auto pts = family.make(n, rng);
      // Repeat some points further on, so that "the smallest index" is tested.
      for (std::size_t i = 0; i < n / 10; ++i) pts.push_back(pts[rng() % n]);
      for (HullPart part : {HullPart::full, HullPart::upper}) {
        HullOptions options{Backend::cpu, nullptr};
        options.part = part;
        options.indices = true;
        const auto result = compute_hull<T>(pts, options);
        ASSERT_EQ(result.indices.size(), result.vertices.size());
        // The first index of every distinct point; the map's order treats -0.0 and 0.0 as one.
        std::map<Point2<T>, std::size_t, bool (*)(const Point2<T>&, const Point2<T>&)> first(lex_less<T>);
        for (std::size_t i = 0; i < pts.size(); ++i) first.emplace(pts[i], i);
        for (std::size_t v = 0; v < result.vertices.size(); ++v) {
          const auto index = static_cast<std::size_t>(result.indices[v]);
          ASSERT_LT(index, pts.size());
          ASSERT_EQ(pts[index], result.vertices[v]) << v;
          ASSERT_EQ(index, first.at(result.vertices[v])) << v;
        }
      }
    }
  }
  const std::vector<Point2<T>> signed_zeros = {{1, 1}, {T(-0.0), 0}, {2, 0}, {0, T(-0.0)}, {1, -1}};
  HullOptions options{Backend::cpu, nullptr};
  options.indices = true;
  const auto result = compute_hull<T>(signed_zeros, options);
  EXPECT_EQ(result.indices, (std::vector<std::int64_t>{1, 4, 2, 0}));
}

TEST(HullApi, ComputeHullChecksThePresortedPromise) {
  const std::vector<Point2<double>> pts = {{0, 0}, {2, 1}, {1, 5}};
  HullOptions options{Backend::cpu, nullptr};
  options.presorted = true;
  EXPECT_THROW(compute_hull<double>(pts, options), input_error);
  options.part = HullPart::upper;
  EXPECT_THROW(compute_hull<double>(pts, options), input_error);
  options.presorted = false;
  EXPECT_EQ(compute_hull<double>(pts, options).vertices,
            (std::vector<Point2<double>>{{0, 0}, {1, 5}, {2, 1}}));
}

TEST(HullApi, VertexIndicesRejectAVertexThatIsNoPoint) {
  const std::vector<Point2<double>> pts = {{0, 0}, {1, 1}};
  const std::vector<Point2<double>> stranger = {{2, 2}};
  EXPECT_THROW(vertex_indices<double>(pts, stranger), std::invalid_argument);
}

TEST(HullApi, CudaBackendWithoutADeviceSaysSo) {
  if (cuda_available()) GTEST_SKIP() << "a CUDA device is present";
  const std::vector<Point2<double>> pts = {{0, 0}, {1, 1}};
  try {
    convex_hull<double>(pts, {Backend::cuda, nullptr});
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_TRUE(message.find("no CUDA device available") != std::string::npos ||
                message.find("built without CUDA") != std::string::npos)
        << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

// The hull of hulls: every family cut into k pieces (some empty), each piece hulled, the hulls merged,
// against the hull of the whole input.
TYPED_TEST(HullBackends, MergeHullsOfPiecesIsTheHullOfTheWhole) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : testing::all_families<T>()) {
    for (std::size_t n : {0, 1, 2, 7, 100, 5000}) {
      for (std::size_t k : {1, 2, 3, 8}) {
        SCOPED_TRACE(family.name + " n=" + std::to_string(n) + " k=" + std::to_string(k));
        const auto pts = family.make(n, rng);
        std::vector<std::vector<Point2<T>>> hulls(k);
        std::vector<std::size_t> cuts{0, n};
        for (std::size_t c = 1; c < k; ++c) cuts.push_back(n == 0 ? 0 : rng() % (n + 1));
        std::sort(cuts.begin(), cuts.end());
        for (std::size_t c = 0; c < k; ++c) {
          const std::span<const Point2<T>> piece(pts.data() + cuts[c], cuts[c + 1] - cuts[c]);
          hulls[c] = cpu::convex_hull_serial<T>(piece);
        }
        std::vector<std::span<const Point2<T>>> views(hulls.begin(), hulls.end());
        ASSERT_EQ(merge_hulls<T>(views), cpu::convex_hull_serial<T>(pts));
      }
    }
  }
}

// Merges large enough to chain on several threads (hull-like pieces: every point a vertex).
TYPED_TEST(HullBackends, MergeHullsOfLargeHullLikePiecesIsTheHullOfTheWhole) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  using Make = testing::Points<T> (*)(std::size_t, std::mt19937_64&);
  const std::vector<std::pair<std::string, Make>> families{{"circle", testing::circle<T>},
                                                           {"parabola", testing::parabola<T>},
                                                           {"uniform_disk", testing::uniform_disk<T>}};
  for (const auto& [name, make] : families) {
    SCOPED_TRACE(name);
    const auto pts = make(400000, rng);
    const std::size_t cut1 = rng() % pts.size(), cut2 = rng() % pts.size();
    const std::size_t a = std::min(cut1, cut2), b = std::max(cut1, cut2);
    const std::vector<std::vector<Point2<T>>> hulls{
        cpu::convex_hull_serial<T>(std::span<const Point2<T>>(pts.data(), a)),
        cpu::convex_hull_serial<T>(std::span<const Point2<T>>(pts.data() + a, b - a)),
        cpu::convex_hull_serial<T>(std::span<const Point2<T>>(pts.data() + b, pts.size() - b))};
    const std::vector<std::span<const Point2<T>>> views(hulls.begin(), hulls.end());
    ASSERT_EQ(merge_hulls<T>(views), cpu::convex_hull_serial<T>(pts));
  }
}

// The merge cut into any number of slabs (one a thread; more slabs than this machine has cores
// run in turn): every family cut into k pieces, given as their hulls (trusted to be in the
// convention, and checked) and as the raw pieces.
TYPED_TEST(HullBackends, MergeHullsInSlabsIsTheHullOfTheWholeOnAnySlabCount) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : testing::all_families<T>()) {
    for (std::size_t n : {1, 2, 9, 300, 20000}) {
      const auto pts = family.make(n, rng);
      const auto expected = cpu::convex_hull_serial<T>(pts);
      for (std::size_t k : {1, 2, 5, 16}) {
        std::vector<std::span<const Point2<T>>> pieces;
        std::vector<std::vector<Point2<T>>> hulls;
        std::vector<std::size_t> cuts{0, n};
        for (std::size_t c = 1; c < k; ++c) cuts.push_back(rng() % (n + 1));
        std::sort(cuts.begin(), cuts.end());
        for (std::size_t c = 0; c < k; ++c) {
          pieces.emplace_back(pts.data() + cuts[c], cuts[c + 1] - cuts[c]);
          hulls.push_back(cpu::convex_hull_serial<T>(pieces.back()));
        }
        const std::vector<std::span<const Point2<T>>> hull_views(hulls.begin(), hulls.end());
        for (std::size_t slabs : {1, 2, 3, 7, 16, 100}) {
          SCOPED_TRACE(family.name + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
                       " slabs=" + std::to_string(slabs));
          ASSERT_EQ(cpu::merge_hulls_in_slabs<T>(hull_views, slabs, true), expected);
          ASSERT_EQ(cpu::merge_hulls_in_slabs<T>(hull_views, slabs, false), expected);
          ASSERT_EQ(cpu::merge_hulls_in_slabs<T>(pieces, slabs, false), expected);
        }
      }
    }
  }
}

// Calls from several threads at once: one takes the thread team, the others run their slabs in turn
// on their own thread; every result is the hull.
TYPED_TEST(HullBackends, MergeHullsFromSeveralThreadsAtOnce) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto pts = testing::circle<T>(60000, rng);
  std::vector<std::vector<Point2<T>>> hulls;
  for (std::size_t c = 0; c < 6; ++c)
    hulls.push_back(cpu::convex_hull_serial<T>(std::span<const Point2<T>>(pts).subspan(c * 10000, 10000)));
  const std::vector<std::span<const Point2<T>>> views(hulls.begin(), hulls.end());
  const auto expected = cpu::convex_hull_serial<T>(pts);
  std::vector<std::vector<Point2<T>>> results(4);
  std::vector<std::thread> threads;
  for (auto& result : results) {
    threads.emplace_back([&] {
      for (int call = 0; call < 5; ++call) result = cpu::merge_hulls_in_slabs<T>(views, 8, false);
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& result : results) ASSERT_EQ(result, expected);
}

// A point set in the convention's order (ascending to its largest point, then descending) that is
// no convex polygon: its points below the line of the ends sit in the descending run, and must
// still reach the lower chain.
TYPED_TEST(HullBackends, MergeHullsKeepsEveryPointOfARunThatIsNoHull) {
  using T = TypeParam;
  const std::vector<Point2<T>> a{{0, 0}, {2, 0}, {1, -10}}, b{{1, 1}, {3, 5}, {2, -1}};
  const std::vector<std::span<const Point2<T>>> views{a, b};
  auto both = a;
  both.insert(both.end(), b.begin(), b.end());
  for (std::size_t slabs : {1, 2, 4}) {
    SCOPED_TRACE("slabs=" + std::to_string(slabs));
    ASSERT_EQ(cpu::merge_hulls_in_slabs<T>(views, slabs, false), cpu::convex_hull_serial<T>(both));
  }
}

TYPED_TEST(HullBackends, MergeHullsIsExactForPointSetsThatAreNoHulls) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : testing::all_families<T>()) {
    SCOPED_TRACE(family.name);
    const auto a = family.make(300, rng), b = family.make(77, rng);
    const std::vector<std::span<const Point2<T>>> views{a, b};
    auto both = a;
    both.insert(both.end(), b.begin(), b.end());
    ASSERT_EQ(merge_hulls<T>(views), cpu::convex_hull_serial<T>(both));
  }
}

}  // namespace
}  // namespace wagener
