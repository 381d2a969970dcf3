// The cpu backend's filter pass: every vector kernel keeps exactly the points the scalar one keeps,
// a discarded point is always strictly inside the exact hull of the polygon's input points, and the
// full hull is the serial reference's with the filter forced on, forced off and automatic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "core/inner_polygon.hpp"
#include "cpu/filter_pass.hpp"
#include "cpu/monotone_chain.hpp"
#include "generators.hpp"
#include "wagener/error.hpp"
#include "wagener/predicates.hpp"

namespace wagener {
namespace {

using cpu::FilterKernel;
using cpu::FilterPolicy;
using cpu::FilterUse;

std::string kernel_name(FilterKernel kernel) {
  switch (kernel) {
    case FilterKernel::widest: return "widest";
    case FilterKernel::avx512: return "avx512";
    case FilterKernel::avx2: return "avx2";
    case FilterKernel::scalar: return "scalar";
  }
  return "?";
}

/// The square (+-1, +-1) scaled by 2^e (exactly): its corners, points exactly on its edges (dyadic),
/// points an ulp or two inside them, and points well inside. Its hull is the square, and a filter
/// that certifies a little too much discards points on the edges.
template <class T>
std::vector<Point2<T>> square_with_edge_points(int e, std::size_t n, std::mt19937_64& rng) {
  const T scale = std::ldexp(T(1), e);
  const Point2<T> corner[] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
  std::uniform_int_distribution<int> side(0, 3), grid(0, 1 << 20), kind(0, 4), ulps(1, 2);
  std::vector<Point2<T>> pts;
  while (pts.size() < n) {
    const std::size_t c = static_cast<std::size_t>(side(rng));
    const Point2<T> a = corner[c], b = corner[(c + 1) % 4];
    const T t = static_cast<T>(grid(rng)) / static_cast<T>(1 << 20);
    Point2<T> p = {a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)};  // exact: on the edge
    T& across = a.x == b.x ? p.x : p.y;                            // the coordinate off the edge
    switch (kind(rng)) {
      case 0: p = a; break;
      case 1:
      case 2: break;
      case 3:
        for (int k = ulps(rng); k > 0; --k) across = std::nextafter(across, T(0));  // inside
        break;
      default: p = {p.x / 2, p.y / 3};  // well inside
    }
    pts.push_back({p.x * scale, p.y * scale});
  }
  return pts;
}

/// PBBS's Kuzmin distribution: a uniform direction at radius sqrt(1 / (1 - s)^2 - 1), s uniform in
/// [0, 1): a dense core and a heavy tail, so the hull's few vertices lie far from most points.
template <class T>
std::vector<Point2<T>> kuzmin(std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<Point2<T>> pts(n);
  for (auto& p : pts) {
    const double s = u(rng), a = 2 * std::numbers::pi * u(rng), r = std::sqrt(1 / ((1 - s) * (1 - s)) - 1);
    p = {static_cast<T>(r * std::cos(a)), static_cast<T>(r * std::sin(a))};
  }
  return pts;
}

/// The families of tests/generators.hpp, Kuzmin's, and the square with edge points at scale 1 and
/// near both ends of the exponent range.
template <class T>
std::vector<testing::Family<T>> filter_families() {
  auto families = testing::all_families<T>();
  families.push_back({"kuzmin", kuzmin<T>});
  const int big = std::numeric_limits<T>::max_exponent - 4, small = std::numeric_limits<T>::min_exponent + 4;
  for (const int e : {0, big, small}) {
    families.push_back(
        {"square_with_edge_points_2^" + std::to_string(e),
         [e](std::size_t n, std::mt19937_64& rng) { return square_with_edge_points<T>(e, n, rng); }});
  }
  return families;
}

/// The filter's polygon as the cpu backend builds it: the exact hull of a strided sample (input
/// points), whose vertices are also returned for the exact check.
template <class T>
core::InnerPolygon sample_polygon(const std::vector<Point2<T>>& pts, std::size_t stride,
                                  std::vector<Point2<double>>& hull) {
  std::vector<Point2<double>> sample;
  for (std::size_t i = 0; i < pts.size(); i += stride) {
    const Point2<T> p = pts[i];
    if (std::isfinite(p.x) && std::isfinite(p.y))
      sample.push_back({static_cast<double>(p.x), static_cast<double>(p.y)});
  }
  hull = cpu::convex_hull_serial<double>(sample);
  return core::InnerPolygon(hull);
}

/// True if p is strictly inside the counter-clockwise polygon `hull`, decided exactly.
bool strictly_inside_exact(const std::vector<Point2<double>>& hull, Point2<double> p) {
  if (hull.size() < 3) return false;
  for (std::size_t i = 0; i < hull.size(); ++i) {
    if (orient2d(hull[i], hull[(i + 1) % hull.size()], p) <= 0) return false;
  }
  return true;
}

const FilterKernel kKernels[] = {FilterKernel::avx512, FilterKernel::avx2, FilterKernel::scalar};

/// Filters `pts` through `inner` with every kernel: the scalar kernel's survivors are a subsequence
/// of `pts` whose missing points are strictly inside `hull` (exactly), and every other kernel keeps
/// the same points bit for bit, also when compacting in place. The test is a function of the
/// coordinates, so equal points share a fate, and matching the kept points greedily, bit for bit
/// (NaN included), finds which were discarded. Adds their number to *discarded.
template <class T>
void expect_every_kernel_discards_only_inside(const core::InnerPolygon& inner,
                                              const std::vector<Point2<double>>& hull,
                                              const std::vector<Point2<T>>& pts, std::size_t* discarded) {
  const std::size_t n = pts.size();
  std::vector<Point2<T>> expected(n);
  expected.resize(cpu::keep_uncertified(inner.view(), pts.data(), n, expected.data(), FilterKernel::scalar));
  std::size_t k = 0;
  for (const Point2<T>& p : pts) {
    if (k < expected.size() && std::memcmp(&expected[k], &p, sizeof p) == 0) {
      ++k;
      continue;
    }
    ++*discarded;
    ASSERT_TRUE(strictly_inside_exact(hull, {static_cast<double>(p.x), static_cast<double>(p.y)}))
        << "discarded (" << p.x << ", " << p.y << ")";
  }
  ASSERT_EQ(k, expected.size());
  for (const FilterKernel kernel : kKernels) {
    if (!cpu::filter_kernel_supported(kernel)) continue;
    SCOPED_TRACE("kernel " + kernel_name(kernel));
    std::vector<Point2<T>> kept(n);
    kept.resize(cpu::keep_uncertified(inner.view(), pts.data(), n, kept.data(), kernel));
    ASSERT_EQ(kept.size(), expected.size());
    for (std::size_t i = 0; i < kept.size(); ++i) {
      ASSERT_TRUE(std::memcmp(&kept[i], &expected[i], sizeof kept[i]) == 0) << "survivor " << i;
    }
    // Compacted in place, as the sample's hull does; then as a piece of a pass too large for the
    // caches, which the vector kernel runs without a branch on each block (on processors where it
    // does not prefetch: filter_pass.cpp).
    for (const std::size_t pass : {std::size_t{0}, std::size_t{1} << 24}) {
      SCOPED_TRACE("pass " + std::to_string(pass));
      auto in_place = pts;
      in_place.resize(cpu::keep_uncertified(inner.view(), in_place.data(), n, in_place.data(), kernel, pass));
      ASSERT_EQ(in_place.size(), expected.size());
      ASSERT_TRUE(
          std::memcmp(in_place.data(), expected.data(), n ? sizeof(Point2<T>) * expected.size() : 0) == 0);
      kept.assign(n, Point2<T>{});
      kept.resize(cpu::keep_uncertified(inner.view(), pts.data(), n, kept.data(), kernel, pass));
      ASSERT_EQ(kept.size(), expected.size());
      ASSERT_TRUE(std::memcmp(kept.data(), expected.data(), n ? sizeof(Point2<T>) * expected.size() : 0) ==
                  0);
    }
  }
}

template <class T>
class FilterPass : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FilterPass, Precisions);

TYPED_TEST(FilterPass, EveryKernelKeepsWhatTheScalarKernelKeepsAndDiscardsOnlyPointsStrictlyInside) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int kernels_run = 0;
  for (const FilterKernel kernel : kKernels) kernels_run += cpu::filter_kernel_supported(kernel);
  ASSERT_GE(kernels_run, 1);  // the scalar kernel always runs
  for (const auto& family : filter_families<T>()) {
    // Sizes around the kernels' blocks of 16 points, so that the scalar tail runs too.
    for (const std::size_t n : {0, 1, 15, 16, 17, 100, 4099, 20011}) {
      SCOPED_TRACE(family.name + " n=" + std::to_string(n));
      auto pts = family.make(n, rng);
      if (n > 100) {  // a NaN and infinities are never certified inside
        pts[n / 3] = {std::numeric_limits<T>::quiet_NaN(), T(0)};
        pts[n / 2] = {T(0), std::numeric_limits<T>::infinity()};
        pts[n - 1] = {-std::numeric_limits<T>::infinity(), T(0)};
      }
      std::vector<Point2<double>> hull;
      // Stride 1 makes the polygon the hull of all points (edge points on its boundary); 7, a sample.
      for (const std::size_t stride : {std::size_t{1}, std::size_t{7}}) {
        const core::InnerPolygon inner = sample_polygon(pts, stride, hull);
        if (!inner.enabled()) continue;
        std::size_t discarded = 0;
        expect_every_kernel_discards_only_inside(inner, hull, pts, &discarded);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

/// Points on and an ulp or two either side of every quick test's boundary for `poly` (whose center,
/// disk and cross come from the view): the disk's circle at many angles, the cross's box edges and
/// corners, the ring's circle in every angle bucket, at its ends and middle, and the polygon's
/// vertices and edge midpoints (the fan's boundary).
template <class T>
std::vector<Point2<T>> points_on_test_boundaries(const core::InnerPolygonView& v, std::mt19937_64& rng) {
  std::vector<Point2<double>> at;
  std::uniform_real_distribution<double> angle(0, 2 * std::numbers::pi);
  if (v.disk > 0) {
    const double r = std::sqrt(v.disk);
    for (int i = 0; i < 200; ++i) {
      const double a = angle(rng);
      at.push_back({v.cx + r * std::cos(a), v.cy + r * std::sin(a)});
    }
    at.push_back({v.cx + r, v.cy});
    at.push_back({v.cx, v.cy - r});
  }
  std::uniform_real_distribution<double> u(0, 1);
  for (const double* b : {&v.wide_x0, &v.tall_x0}) {  // x0, x1, y0, y1 in a row
    const double x0 = b[0], x1 = b[1], y0 = b[2], y1 = b[3];
    for (const Point2<double> corner : {Point2<double>{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}})
      at.push_back(corner);
    for (int i = 0; i < 50; ++i) {
      const double t = u(rng);
      at.push_back({x0 + t * (x1 - x0), y0});
      at.push_back({x0 + t * (x1 - x0), y1});
      at.push_back({x0, y0 + t * (y1 - y0)});
      at.push_back({x1, y0 + t * (y1 - y0)});
    }
  }
  if (v.ring != nullptr) {
    // The ring's circle in each bucket, at its two ends and its middle (the direction of pseudo-angle
    // a, inverted quadrant by quadrant).
    const auto direction = [](double a) -> Point2<double> {
      if (a < 1) return {1 - a, a};
      if (a < 2) return {-(a - 1), 2 - a};
      if (a < 3) return {-(3 - a), -(a - 2)};
      return {a - 3, -(4 - a)};
    };
    for (int b = 0; b < v.buckets; ++b) {
      const double r = std::sqrt(v.ring[b]);
      for (const double where : {0.0, 0.5, 1.0}) {
        const Point2<double> d = direction((b + where) / v.bucket_scale);
        const double length = std::hypot(d.x, d.y);
        at.push_back({v.cx + r * (d.x / length), v.cy + r * (d.y / length)});
      }
    }
  }
  for (int j = 0; j < v.vertices; ++j) {
    const Point2<double> a = v.vertex[j], b = v.vertex[(j + 1) % v.vertices];
    at.push_back(a);
    at.push_back({a.x / 2 + b.x / 2, a.y / 2 + b.y / 2});
  }
  std::vector<Point2<T>> pts;
  const T inf = std::numeric_limits<T>::infinity();
  for (const auto& p : at) {
    const Point2<T> q{static_cast<T>(p.x), static_cast<T>(p.y)};
    if (!std::isfinite(q.x) || !std::isfinite(q.y)) continue;
    pts.push_back(q);
    for (const T dx : {-inf, inf}) {
      for (const T dy : {-inf, inf}) pts.push_back({std::nextafter(q.x, dx), std::nextafter(q.y, dy)});
    }
  }
  std::shuffle(pts.begin(), pts.end(), rng);
  return pts;
}

TYPED_TEST(FilterPass,
           PointsOnTheQuickTestsBoundariesAreKeptAlikeByEveryKernelAndDiscardedOnlyStrictlyInside) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  // Scales near both ends of the exponent range, and the subnormal one (where nothing may be
  // certified, since the disk's and the fan's error bounds need products far from underflow).
  const int big = std::numeric_limits<T>::max_exponent - 4, small = std::numeric_limits<T>::min_exponent + 4,
            subnormal = std::numeric_limits<T>::min_exponent - std::numeric_limits<T>::digits / 2;
  std::size_t certified = 0;
  for (const auto& family : filter_families<T>()) {
    if (family.name != "uniform_disk" && family.name != "uniform_square" && family.name != "gaussian")
      continue;
    for (const int e : {0, big, small, subnormal}) {
      SCOPED_TRACE(family.name + " scale 2^" + std::to_string(e));
      auto pts = family.make(3000, rng);
      for (auto& p : pts) p = {std::ldexp(p.x, e), std::ldexp(p.y, e)};  // exact but for subnormals
      std::vector<Point2<double>> hull;
      const core::InnerPolygon inner = sample_polygon(pts, 3, hull);
      if (!inner.enabled()) continue;
      const auto probes = points_on_test_boundaries<T>(inner.view(), rng);
      expect_every_kernel_discards_only_inside(inner, hull, probes, &certified);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  EXPECT_GT(certified, 0u);  // the probes just inside the tests' boundaries were certified somewhere
}

// The float quick tests (the CPU's AVX-512 loop and the GPU's filter take them first for float
// points) certify no point that the double quick tests leave in doubt, on and next to every boundary
// of the tests, at scales near both ends of float's range; and they certify most points of a disk.
TEST(FloatQuickTests, CertifyOnlyWhatTheDoubleQuickTestsCertify) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const int big = std::numeric_limits<float>::max_exponent - 4,
            small = std::numeric_limits<float>::min_exponent + 4;
  std::size_t probes = 0, certified = 0;
  for (const auto& family : filter_families<float>()) {
    for (const int e : {0, big, small}) {
      SCOPED_TRACE(family.name + " scale 2^" + std::to_string(e));
      auto pts = family.make(3000, rng);
      for (auto& p : pts) p = {std::ldexp(p.x, e), std::ldexp(p.y, e)};
      std::vector<Point2<double>> hull;
      const core::InnerPolygon inner = sample_polygon(pts, 3, hull);
      if (!inner.enabled()) continue;
      const core::InnerPolygonView v = inner.view();
      const core::FloatQuickTests quick(v);
      auto at = points_on_test_boundaries<float>(v, rng);
      at.insert(at.end(), pts.begin(), pts.end());
      for (const auto& p : at) {
        ++probes;
        if (!quick.quick_inside(p.x, p.y)) continue;
        ++certified;
        ASSERT_TRUE(v.quick_inside(p.x, p.y)) << "(" << p.x << ", " << p.y << ")";
      }
    }
  }
  EXPECT_GT(certified, probes / 4);
}

/// Integer points through every kernel: the polygon is the hull of a sample of the points exact in
/// double (as the backend samples them), every kernel keeps what the scalar kernel keeps, and a
/// discarded point is strictly inside that hull, decided in the integers. For 64-bit points some lie
/// just beyond 2^53, where double rounds them, and right at its edge: none of them may be discarded
/// on the strength of its rounding.
template <class T>
void expect_integer_kernels_discard_only_inside(const std::vector<Point2<T>>& pts, std::size_t stride) {
  std::vector<Point2<T>> sample;
  for (std::size_t i = 0; i < pts.size(); i += stride) {
    if (converts_exactly(pts[i])) sample.push_back(pts[i]);
  }
  const auto hull = cpu::convex_hull_serial<T>(sample);
  std::vector<Point2<double>> polygon;
  for (const auto& v : hull) polygon.push_back({static_cast<double>(v.x), static_cast<double>(v.y)});
  const core::InnerPolygon inner(polygon);
  if (!inner.enabled()) return;
  const std::size_t n = pts.size();
  std::vector<Point2<T>> expected(n);
  expected.resize(cpu::keep_uncertified(inner.view(), pts.data(), n, expected.data(), FilterKernel::scalar));
  std::size_t k = 0;
  for (const Point2<T>& p : pts) {
    if (k < expected.size() && expected[k] == p) {
      ++k;
      continue;
    }
    bool inside = hull.size() >= 3;
    for (std::size_t i = 0; i < hull.size() && inside; ++i)
      inside = orient2d(hull[i], hull[(i + 1) % hull.size()], p) > 0;
    ASSERT_TRUE(inside) << "discarded (" << p.x << ", " << p.y << ")";
  }
  ASSERT_EQ(k, expected.size());
  for (const FilterKernel kernel : kKernels) {
    if (!cpu::filter_kernel_supported(kernel)) continue;
    SCOPED_TRACE("kernel " + kernel_name(kernel));
    std::vector<Point2<T>> kept(n);
    kept.resize(cpu::keep_uncertified(inner.view(), pts.data(), n, kept.data(), kernel));
    ASSERT_EQ(kept, expected);
    auto in_place = pts;
    in_place.resize(
        cpu::keep_uncertified(inner.view(), in_place.data(), n, in_place.data(), kernel, 1 << 24));
    ASSERT_EQ(in_place, expected);
  }
}

TEST(FilterPassIntegers, EveryKernelKeepsWhatTheScalarKernelKeepsAndNoRoundedPointIsDiscarded) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (const std::size_t n : {0, 15, 17, 4099, 20011}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    // int32: a disk over the whole range, its edge rounded.
    std::vector<Point2<std::int32_t>> small(n);
    for (auto& p : small)
      p = {static_cast<std::int32_t>(u(rng) * 0x1p31 * 0.7),
           static_cast<std::int32_t>(u(rng) * 0x1p31 * 0.7)};
    expect_integer_kernels_discard_only_inside(small, 7);
    if (HasFatalFailure()) return;
    // int64: a square of side 2^54 around the origin, so that a quarter of the points are exact in
    // double and the rest rounded; and points a unit either side of 2^53.
    std::vector<Point2<std::int64_t>> wide(n);
    std::uniform_int_distribution<std::int64_t> coordinate(-(std::int64_t{1} << 54), std::int64_t{1} << 54);
    std::uniform_int_distribution<int> edge(-2, 2), pick(0, 3);
    const std::int64_t bound = std::int64_t{1} << 53;
    for (auto& p : wide) {
      p = {coordinate(rng), coordinate(rng)};
      if (pick(rng) == 0) p = {bound + edge(rng), coordinate(rng) / 4};
      if (pick(rng) == 0) p = {coordinate(rng) / 4, -bound + edge(rng)};
    }
    for (const std::size_t stride : {std::size_t{1}, std::size_t{7}}) {
      expect_integer_kernels_discard_only_inside(wide, stride);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(InnerPolygon, TheRingCertifiesOnlyPointsStrictlyInsideAndMostOfWhatTheDiskLeavesNearARoundHull) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  // Scales within the disk's range checks (its bounds need squared distances in about 2^+-200;
  // beyond them the disk and the ring are both off, and the triangles and the cross do the work).
  // Not 2^-90: there the squared length of the sample hull's shortest edge (two vertices a 2^-10th
  // of the radius apart) falls below 2^-200 for some seeds, and the disk and ring are refused, as
  // designed (one run in nine failed that way).
  for (const int e : {0, 90, -60}) {
    SCOPED_TRACE("scale 2^" + std::to_string(e));
    auto pts = testing::uniform_disk<double>(200000, rng);
    for (auto& p : pts) p = {std::ldexp(p.x, e), std::ldexp(p.y, e)};
    std::vector<Point2<double>> hull;
    const core::InnerPolygon inner = sample_polygon(pts, 8, hull);
    ASSERT_TRUE(inner.enabled());
    const core::InnerPolygonView v = inner.view();
    ASSERT_NE(v.ring, nullptr);
    for (int b = 0; b < v.buckets; ++b) ASSERT_GE(v.ring[b], v.disk) << "bucket " << b;
    // The points the disk leaves: how many the ring certifies (each checked exactly), and how many
    // the whole fan does.
    std::size_t left = 0, by_ring = 0, by_fan = 0;
    core::InnerPolygonView without_ring = v;
    without_ring.ring = nullptr;
    for (const auto& p : pts) {
      const double ex = p.x - v.cx, ey = p.y - v.cy, s = ex * ex + ey * ey;
      if (s < v.disk) continue;
      ++left;
      const int b = std::min(v.buckets - 1, static_cast<int>(core::pseudo_angle(ex, ey) * v.bucket_scale));
      if (s < v.ring[b]) {
        ++by_ring;
        ASSERT_TRUE(strictly_inside_exact(hull, p)) << "(" << p.x << ", " << p.y << ")";
        EXPECT_TRUE(v.fan_inside(p.x, p.y));
      }
      by_fan += v.fan_inside(p.x, p.y) || without_ring.fan_inside(p.x, p.y);
    }
    // On a uniform disk the disk leaves about 1 % of the points, and the ring certifies most of what
    // the triangles certify (78 of 88 parts at 10^7 points): at least half here.
    ASSERT_GT(left, 0u);
    EXPECT_GT(2 * by_ring, by_fan) << by_ring << " by the ring, " << by_fan << " by the fan, of " << left;
  }
}

TEST(InnerPolygon, TheCrossBoxesHaveTheirCornersStrictlyInsideAndReachTheSidesOfASquare) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const int e : {0, 1000, -1000}) {
    SCOPED_TRACE("scale 2^" + std::to_string(e));
    // A square whose corners are cut: its sample hull, as the filter's polygon is built.
    auto pts = testing::all_families<double>()[0].make(200000, rng);  // uniform_square
    for (auto& p : pts) p = {std::ldexp(p.x, e), std::ldexp(p.y, e)};
    std::vector<Point2<double>> hull;
    const core::InnerPolygon inner = sample_polygon(pts, 8, hull);
    ASSERT_TRUE(inner.enabled());
    const core::InnerPolygonView v = inner.view();
    for (const double* b : {&v.wide_x0, &v.tall_x0}) {
      ASSERT_LT(b[0], b[1]);
      ASSERT_LT(b[2], b[3]);
      for (const Point2<double> corner :
           {Point2<double>{b[0], b[2]}, {b[1], b[2]}, {b[1], b[3]}, {b[0], b[3]}})
        EXPECT_TRUE(strictly_inside_exact(hull, corner)) << "corner (" << corner.x << ", " << corner.y << ")";
    }
    // A cross, not one box: the wide box is wider and the tall one taller, and together they reach
    // within 1.5 % of the hull's extent on each side (one box c +- f stopped about 1-2 % short
    // where the sample hull cuts the square's corners).
    EXPECT_GT(v.wide_x1 - v.wide_x0, v.tall_x1 - v.tall_x0);
    EXPECT_GT(v.tall_y1 - v.tall_y0, v.wide_y1 - v.wide_y0);
    double xmin = hull[0].x, xmax = xmin, ymin = hull[0].y, ymax = ymin;
    for (const auto& p : hull) {
      xmin = std::min(xmin, p.x), xmax = std::max(xmax, p.x);
      ymin = std::min(ymin, p.y), ymax = std::max(ymax, p.y);
    }
    const double w = xmax - xmin, h = ymax - ymin;
    EXPECT_LT(v.wide_x0, xmin + 0.015 * w);
    EXPECT_GT(v.wide_x1, xmax - 0.015 * w);
    EXPECT_LT(v.tall_y0, ymin + 0.015 * h);
    EXPECT_GT(v.tall_y1, ymax - 0.015 * h);
  }
}

TEST(FilterKernels, WidestIsTheFirstSupportedOfAvx512Avx2Scalar) {
  FilterKernel first = FilterKernel::scalar;
  for (const FilterKernel kernel : kKernels) {
    if (cpu::filter_kernel_supported(kernel)) {
      first = kernel;
      break;
    }
  }
  EXPECT_EQ(kernel_name(cpu::widest_filter_kernel()), kernel_name(first));
  EXPECT_TRUE(cpu::filter_kernel_supported(FilterKernel::scalar));
  EXPECT_TRUE(cpu::filter_kernel_supported(FilterKernel::widest));
}

TYPED_TEST(FilterPass, FullHullIsTheReferenceWithTheFilterForcedOnForcedOffAndAutomatic) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : filter_families<T>()) {
    // 2503 forced and 12007 automatic make a sample of 2-4k points, where hull_by_filter chooses
    // between the octagon and a sub-sample's polygon (a heavy tail's octagon can miss its dense core).
    for (const std::size_t n : {3, 17, 1000, 2503, 12007, 40000, 140009}) {
      SCOPED_TRACE(family.name + " n=" + std::to_string(n));
      const auto pts = family.make(n, rng);
      const auto reference = cpu::convex_hull_serial<T>(pts);
      for (const FilterUse use : {FilterUse::always, FilterUse::never, FilterUse::automatic}) {
        // The kernels agree point for point (above): the widest one and the scalar one suffice here.
        for (const FilterKernel kernel : {FilterKernel::widest, FilterKernel::scalar}) {
          SCOPED_TRACE("use " + std::to_string(static_cast<int>(use)) + " kernel " + kernel_name(kernel));
          std::int64_t survivors = -1;
          ASSERT_EQ(cpu::convex_hull_parallel<T>(pts, &survivors, FilterPolicy{use, kernel}), reference);
          // Every survivor sorted on the threads and merged, none hulled by the serial second filter.
          ASSERT_EQ(cpu::convex_hull_parallel<T>(pts, nullptr, FilterPolicy{use, kernel, 0, 0}), reference);
          ASSERT_GE(survivors, static_cast<std::int64_t>(reference.size()));
          if (use == FilterUse::never) {
            ASSERT_EQ(survivors, static_cast<std::int64_t>(n));
          }
          // Forced on, the filter did run where a polygon exists: a disk keeps a small fraction.
          if (use == FilterUse::always && family.name == "uniform_disk" && n >= 1000) {
            ASSERT_LT(survivors, static_cast<std::int64_t>(n / 4));
          }
        }
      }
    }
  }
}

// The benchmark hook: timing a call's phases changes no hull, and fills every phase that ran (the
// filter's region holds the slowest thread's pass and the slowest thread's survivors' hull).
TYPED_TEST(FilterPass, TimedPhasesChangeNoHullAndCoverTheFilterRegion) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto pts = testing::uniform_disk<T>(300000, rng);
  const auto reference = cpu::convex_hull_serial<T>(pts);
  for (const std::size_t bound : {FilterPolicy::automatic, std::size_t{0}}) {  // hulled, then sorted
    SCOPED_TRACE("survivors hulled up to " + std::to_string(bound));
    cpu::FilterPhases phases;
    phases.sample = phases.pass = phases.slowest_pass = phases.slowest_survivors = phases.join = -1;
    FilterPolicy policy{FilterUse::always, FilterKernel::widest, 2, bound};
    policy.phases = &phases;
    ASSERT_EQ(cpu::convex_hull_parallel<T>(pts, nullptr, policy), reference);
    EXPECT_GT(phases.sample, 0);
    EXPECT_GT(phases.slowest_pass, 0);
    EXPECT_GT(phases.slowest_survivors, 0);
    EXPECT_GE(phases.pass, phases.slowest_pass);  // (the two slowest may be different threads)
    EXPECT_GE(phases.pass, phases.slowest_survivors);
    EXPECT_GT(phases.join, 0);
  }
}

// Each slice with few survivors hulls them on its own thread; when another slice has too many, the
// hulled slices join the sorted ones with their hulls' vertices only. Points on a circle all survive
// (the polygon keeps at most 1024 of the sample's vertices, and the arcs between them lie outside);
// points in a thin ring just inside it survive in part (those between the arcs and the polygon's
// edges), and fewer of them are hull vertices. With the bound between the two, both kinds of slice
// meet in one call.
TYPED_TEST(FilterPass, SlicesThatHullTheirSurvivorsJoinSlicesThatSortThem) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::size_t n = 420007;
  std::uniform_real_distribution<double> angle(0, 2 * std::numbers::pi), depth(0, 1e-5);
  for (const unsigned threads : {2u, 3u, 6u}) {
    for (const bool circle_first : {false, true}) {
      SCOPED_TRACE("threads " + std::to_string(threads) + (circle_first ? " circle first" : " ring first"));
      // The circle's slice at one end of the array, the ring's slices at the other.
      const std::size_t on_circle = n / threads;
      auto pts = testing::circle<T>(on_circle, rng);
      std::vector<Point2<T>> ring(n - on_circle);
      for (auto& p : ring) {
        const double a = angle(rng), r = 1 - depth(rng);
        p = {static_cast<T>(r * std::cos(a)), static_cast<T>(r * std::sin(a))};
      }
      pts.insert(circle_first ? pts.end() : pts.begin(), ring.begin(), ring.end());
      const auto reference = cpu::convex_hull_serial<T>(pts);
      // Up to half a slice's points hulled on its thread: the ring's slices, not the circle's.
      const std::size_t bound = n / 2;
      std::int64_t survivors = -1, all_sorted_survivors = -1;
      ASSERT_EQ(cpu::convex_hull_parallel<T>(
                    pts, &survivors, FilterPolicy{FilterUse::always, FilterKernel::widest, threads, bound}),
                reference);
      // Every survivor counted, also those of a slice that kept only its hull's vertices: as many as
      // when every slice sorts its survivors (the same polygon).
      ASSERT_EQ(
          cpu::convex_hull_parallel<T>(pts, &all_sorted_survivors,
                                       FilterPolicy{FilterUse::always, FilterKernel::widest, threads, 0}),
          reference);
      ASSERT_EQ(survivors, all_sorted_survivors);
    }
  }
}

// Where every slice hulls its own survivors, the slices' hulls are merged: any thread count gives
// the hull, on every family.
TYPED_TEST(FilterPass, SlicesHullsMergedOnAnyThreadCount) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : filter_families<T>()) {
    const auto pts = family.make(300007, rng);
    const auto reference = cpu::convex_hull_serial<T>(pts);
    for (const unsigned threads : {3u, 4u, 5u, 8u, 16u}) {
      SCOPED_TRACE(family.name + " threads " + std::to_string(threads));
      std::int64_t survivors = -1;
      ASSERT_EQ(cpu::convex_hull_parallel<T>(pts, &survivors,
                                             FilterPolicy{FilterUse::always, FilterKernel::widest, threads}),
                reference);
      ASSERT_GE(survivors, static_cast<std::int64_t>(reference.size()));
    }
  }
}

// The filter off (or turned off by a hull-like input): on one or two threads the points split by the
// line from the smallest to the largest point, each side sorted and chained on its own thread; on
// more, the slices sorted and merged, the chains merged by their bridges.
TYPED_TEST(FilterPass, EveryPointKeptSplitsBySidesOnAnyThreadCount) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : filter_families<T>()) {
    for (const std::size_t n : {1, 2, 3, 5, 300, 140009, 420007}) {
      const auto pts = family.make(n, rng);
      const auto reference = cpu::convex_hull_serial<T>(pts);
      for (const unsigned threads : {1u, 2u, 3u, 6u}) {
        if ((n < 140009 && threads > 2) || (n == 420007 && threads < 6)) continue;
        SCOPED_TRACE(family.name + " n=" + std::to_string(n) + " threads=" + std::to_string(threads));
        std::int64_t survivors = -1;
        ASSERT_EQ(cpu::convex_hull_parallel<T>(pts, &survivors,
                                               FilterPolicy{FilterUse::never, FilterKernel::widest, threads}),
                  reference);
        ASSERT_EQ(survivors, static_cast<std::int64_t>(n));
      }
    }
  }
}

// The presorted upper chain: each thread filters its slice of the sorted points and chains what it
// keeps, the slices' hoods merged by their bridges. The serial monotone chain is the reference, with
// the filter forced on, off and as the sample says, on one thread and on several (strips of 2^16
// points and more: 140009 points make two, 460009 seven).
TYPED_TEST(FilterPass, PresortedUpperChainIsTheSerialChainWithTheFilterOnOffAndAutomatic) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : filter_families<T>()) {
    for (const std::size_t n : {1, 2, 3, 17, 1000, 2503, 12007, 140009, 460009}) {
      const auto sorted = testing::sorted_copy(family.make(n, rng));
      const auto reference = cpu::upper_chain<T>(sorted);
      for (const FilterUse use : {FilterUse::always, FilterUse::never, FilterUse::automatic}) {
        for (const unsigned threads : {1u, 2u, 7u}) {
          if ((n == 460009) != (threads == 7)) continue;
          SCOPED_TRACE(family.name + " n=" + std::to_string(n) + " use " +
                       std::to_string(static_cast<int>(use)) + " threads " + std::to_string(threads));
          std::int64_t survivors = -1;
          ASSERT_EQ(cpu::upper_chain_filtered<T>(sorted, &survivors,
                                                 FilterPolicy{use, FilterKernel::widest, threads}),
                    reference);
          ASSERT_GE(survivors, static_cast<std::int64_t>(reference.size()));
          ASSERT_LE(survivors, static_cast<std::int64_t>(n));
          if (use == FilterUse::never) {
            ASSERT_EQ(survivors, static_cast<std::int64_t>(n));
          }
          // Forced on, the filter did run: a disk keeps a small fraction.
          if (use == FilterUse::always && family.name == "uniform_disk" && n >= 1000) {
            ASSERT_LT(survivors, static_cast<std::int64_t>(n / 4));
          }
        }
      }
    }
  }
}

// Repeated points at the strips' seams: a strip whose first kept point repeats the strip before's
// last must leave it out (no two hoods share a point), also where the filter discarded the points
// before it. A few x, each holding a run of copies of one vertex of a concave arc above points
// strictly below it: the seams fall inside the runs of vertices, or just before them.
TYPED_TEST(FilterPass, PresortedUpperChainWithRunsOfRepeatedPointsAcrossTheStrips) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const int side : {2, 3, 7, 40}) {
    std::vector<Point2<T>> pts;
    std::uniform_int_distribution<int> column(0, side - 1), below(1, 100);
    std::bernoulli_distribution on_arc(0.5);
    for (std::size_t i = 0; i < 300007; ++i) {
      const int x = column(rng), top = 4 * side * side - (2 * x - side) * (2 * x - side);
      pts.push_back({static_cast<T>(x), static_cast<T>(on_arc(rng) ? top : top - below(rng))});
    }
    const auto sorted = testing::sorted_copy(pts);
    const auto reference = cpu::upper_chain<T>(sorted);
    for (const unsigned threads : {2u, 3u, 4u}) {
      for (const FilterUse use : {FilterUse::always, FilterUse::never}) {
        SCOPED_TRACE("side " + std::to_string(side) + " threads " + std::to_string(threads));
        ASSERT_EQ(
            cpu::upper_chain_filtered<T>(sorted, nullptr, FilterPolicy{use, FilterKernel::widest, threads}),
            reference);
      }
    }
  }
}

// The presorted promise checked in one read on all cores: the first non-finite point wherever it is
// (also after an unsorted one), else the first point smaller than its predecessor, as the serial
// scans find them, wherever the slices' seams fall.
TYPED_TEST(FilterPass, PresortedCheckFindsWhatTheSerialScansFind) {
  using T = TypeParam;
  std::mt19937_64 rng(testing::fresh_seed());
  const std::size_t n = 1'000'003;  // 15 slices of 2^16 points where there are as many cores
  const auto sorted = testing::sorted_copy(testing::uniform_disk<T>(n, rng));
  std::uniform_int_distribution<std::size_t> place(1, n - 1);
  std::vector<std::size_t> places = {1, 2, 1024, 1025, n / 2, n / 2 + 1, (std::size_t{1} << 16) + 1, n - 1};
  for (int i = 0; i < 8; ++i) places.push_back(place(rng));
  const auto expect_same = [&](const std::vector<Point2<T>>& pts, const std::string& what) {
    const cpu::PresortedCheck found = cpu::check_presorted<T>(pts);
    const std::int64_t non_finite = cpu::first_non_finite<T>(pts);
    EXPECT_EQ(found.non_finite, non_finite) << what;
    if (non_finite < 0) {
      EXPECT_EQ(found.unsorted, cpu::first_unsorted<T>(pts)) << what;
    }
  };
  expect_same(sorted, "sorted");
  for (const std::size_t a : places) {
    auto unsorted = sorted;
    std::swap(unsorted[a - 1], unsorted[a]);
    if (unsorted[a - 1] == unsorted[a]) continue;
    expect_same(unsorted, "swapped at " + std::to_string(a));
    auto both = unsorted;
    both[n - 1 - a / 2] = {T(0), std::numeric_limits<T>::infinity()};
    expect_same(both, "swapped at " + std::to_string(a) + ", infinite at " + std::to_string(n - 1 - a / 2));
    auto nan = sorted;
    nan[a] = {std::numeric_limits<T>::quiet_NaN(), T(0)};
    nan[(a + n / 3) % n] = {T(1), std::numeric_limits<T>::quiet_NaN()};
    expect_same(nan, "NaN at " + std::to_string(a) + " and " + std::to_string((a + n / 3) % n));
  }
}

// The presorted chain that checks its promise as it filters: where the promise holds, the chain and
// no problem; where it is broken, no chain and the problem the serial scans name first (a non-finite
// point anywhere before any point out of order), on any thread count and with the filter on or off
// (off, the check runs first), wherever the problems fall: at the strips' seams, in a step, after it.
TYPED_TEST(FilterPass, PresortedUpperChainChecksThePromiseAsItFilters) {
  using T = TypeParam;
  std::mt19937_64 rng(testing::fresh_seed());
  const std::size_t n = 460009;  // seven strips of 2^16 points and more
  const auto sorted = testing::sorted_copy(testing::uniform_disk<T>(n, rng));
  const auto reference = cpu::upper_chain<T>(sorted);
  std::uniform_int_distribution<std::size_t> place(1, n - 1);
  const std::size_t strip = (n + 6) / 7;
  std::vector<std::size_t> places = {1, strip, strip + 1, 2 * strip, (std::size_t{1} << 13) + 1, n - 1};
  for (int i = 0; i < 4; ++i) places.push_back(place(rng));
  const auto expect = [&](const std::vector<Point2<T>>& pts, const std::string& what) {
    const std::int64_t non_finite = cpu::first_non_finite<T>(pts);
    const std::int64_t unsorted = non_finite >= 0 ? -1 : cpu::first_unsorted<T>(pts);
    for (const unsigned threads : {1u, 2u, 7u}) {
      for (const FilterUse use : {FilterUse::automatic, FilterUse::never}) {
        SCOPED_TRACE(what + " threads " + std::to_string(threads) + " use " +
                     std::to_string(static_cast<int>(use)));
        cpu::PresortedCheck found{-7, -7};
        const auto chain = cpu::upper_chain_filtered<T>(
            pts, nullptr, FilterPolicy{use, FilterKernel::widest, threads}, &found);
        ASSERT_EQ(found.non_finite, non_finite);
        if (non_finite < 0) {
          ASSERT_EQ(found.unsorted, unsorted);
        }
        if (non_finite < 0 && unsorted < 0) {
          ASSERT_EQ(chain, reference);
        } else {
          ASSERT_TRUE(chain.empty());
        }
      }
    }
  };
  expect(sorted, "sorted");
  for (const std::size_t a : places) {
    auto unsorted = sorted;
    std::swap(unsorted[a - 1], unsorted[a]);
    expect(unsorted, "swapped at " + std::to_string(a));
    auto both = unsorted;
    both[(a + n / 2) % n] = {T(0), std::numeric_limits<T>::infinity()};
    expect(both, "swapped at " + std::to_string(a) + ", infinite at " + std::to_string((a + n / 2) % n));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TYPED_TEST(FilterPass, EveryPointKeptNamesTheFirstNonFinitePointOfAnySlice) {
  using T = TypeParam;
  std::mt19937_64 rng(testing::fresh_seed());
  const std::size_t n = 300007;
  const auto circle = testing::circle<T>(n, rng);
  for (const std::size_t first : {std::size_t{0}, n / 5, n / 2 + 1, n - 1}) {
    auto pts = circle;
    pts[first] = {std::numeric_limits<T>::quiet_NaN(), T(0)};
    if (first + 7 < n) pts[first + 7] = {T(0), std::numeric_limits<T>::infinity()};
    // A circle turns the filter off: the split by sides finds the point.
    for (const unsigned threads : {1u, 2u, 5u}) {
      try {
        cpu::convex_hull_parallel<T>(pts, nullptr,
                                     FilterPolicy{FilterUse::automatic, FilterKernel::widest, threads});
        FAIL() << "no input_error, first non-finite point " << first << " threads " << threads;
      } catch (const input_error& e) {
        EXPECT_EQ(std::string(e.what()), "point " + std::to_string(first) + " is not finite") << threads;
      }
    }
  }
}

}  // namespace
}  // namespace wagener
