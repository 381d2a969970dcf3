// The grouped path's octagon filter: a point it certifies is strictly inside the exact hull (never a
// vertex, never on an edge), on every named family, on points at the last ulp of the polygon's
// edges, and with every vector kernel this processor runs; the kernels agree point for point.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cpu/monotone_chain.hpp"
#include "cpu/octagon_filter.hpp"
#include "generators.hpp"
#include "integer_reference.hpp"
#include "wagener/predicates.hpp"

namespace wagener {
namespace {

using cpu::FilterKernel;

std::vector<FilterKernel> kernels_here() {
  std::vector<FilterKernel> kernels;
  for (const FilterKernel k : {FilterKernel::scalar, FilterKernel::avx2, FilterKernel::avx512}) {
    if (cpu::filter_kernel_supported(k)) kernels.push_back(k);
  }
  return kernels;
}

const char* kernel_name(FilterKernel k) {
  switch (k) {
    case FilterKernel::avx512: return "avx512";
    case FilterKernel::avx2: return "avx2";
    default: return "scalar";
  }
}

/// Whether p is strictly left of every edge of the exact hull (which needs three vertices).
template <class T>
bool strictly_inside_hull(const std::vector<Point2<T>>& hull, const Point2<T>& p) {
  if (hull.size() < 3) return false;
  for (std::size_t i = 0; i < hull.size(); ++i) {
    if (orient2d(hull[i], hull[(i + 1) % hull.size()], p) <= 0) return false;
  }
  return true;
}

/// Runs the filter on `group` with each kernel: every certified point is strictly inside the exact
/// hull, and every kernel finds the scalar kernel's extremes and survivors. Returns how many points
/// the scalar kernel certified (0 when the filter refused the group).
template <class T>
std::size_t check_group(const std::vector<Point2<T>>& group) {
  const auto n = static_cast<std::uint32_t>(group.size());
  const std::vector<Point2<T>> hull = cpu::convex_hull_serial<T>(group);
  std::vector<std::uint32_t> reference_survivors;
  cpu::GroupExtremes reference{};
  bool reference_built = false;
  std::size_t certified = 0;
  for (const FilterKernel kernel : kernels_here()) {
    SCOPED_TRACE(kernel_name(kernel));
    const cpu::GroupExtremes extremes = cpu::find_extremes(group.data(), n, kernel);
    EXPECT_TRUE(extremes.finite);
    cpu::OctagonFilter filter;
    const bool built = filter.build(group.data(), extremes);
    std::vector<std::uint32_t> survivors(n);
    if (built) survivors.resize(cpu::octagon_survivors(filter, group.data(), n, survivors.data(), kernel));
    if (kernel == FilterKernel::scalar) {
      reference = extremes, reference_built = built, reference_survivors = survivors;
      if (built) certified = n - survivors.size();
    } else {
      for (int k = 0; k < 8; ++k) EXPECT_EQ(extremes.corner[k], reference.corner[k]) << "corner " << k;
      EXPECT_EQ(built, reference_built);
      EXPECT_EQ(survivors, reference_survivors);
    }
    if (!built) continue;
    std::vector<bool> survives(n, false);
    for (std::size_t j = 0; j < survivors.size(); ++j) {
      if (j > 0) {
        EXPECT_LT(survivors[j - 1], survivors[j]);
      }
      survives[survivors[j]] = true;
    }
    for (std::uint32_t i = 0; i < n; ++i) {
      if (!survives[i]) {
        if (!strictly_inside_hull(hull, group[i])) {
          ADD_FAILURE() << "point " << i << " (" << group[i].x << ", " << group[i].y
                        << ") certified but not strictly inside";
          return certified;
        }
      }
    }
  }
  return certified;
}

template <class T>
class OctagonFilterTest : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(OctagonFilterTest, Precisions);

TYPED_TEST(OctagonFilterTest, CertifiedPointsAreStrictlyInsideOnEveryFamily) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::size_t certified = 0;
  for (const auto& family : testing::all_families<T>()) {
    for (const std::size_t n : {8, 9, 15, 16, 17, 23, 31, 45, 100, 1000}) {
      SCOPED_TRACE(family.name + " n=" + std::to_string(n));
      certified += check_group<T>(family.make(n, rng));
    }
  }
  EXPECT_GT(certified, 0u);  // the filter did something: the checks above were not vacuous
}

/// An octagon of integer corners far from the origin, with points exactly on its edges and one ulp
/// to either side of them, and random points inside: every point on or outside an edge survives.
template <class T>
std::vector<Point2<T>> octagon_at_the_last_ulp(T offset, std::mt19937_64& rng) {
  const T c[8][2] = {{-4, 0}, {-3, -3}, {0, -4}, {3, -3}, {4, 0}, {3, 3}, {0, 4}, {-3, 3}};
  std::vector<Point2<T>> group;
  for (const auto& corner : c) group.push_back({offset + corner[0], offset + corner[1]});
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (int i = 0; i < 40; ++i)
    group.push_back(
        {static_cast<T>(offset + static_cast<T>(u(rng))), static_cast<T>(offset + static_cast<T>(u(rng)))});
  for (int e = 0; e < 8; ++e) {
    const T* a = c[e];
    const T* b = c[(e + 1) % 8];
    // Points on the edge at fractions 1/4, 1/2, 3/4 (exact in both precisions), then nudged.
    for (const T f : {T(0.25), T(0.5), T(0.75)}) {
      const T x = offset + (a[0] + f * (b[0] - a[0])), y = offset + (a[1] + f * (b[1] - a[1]));
      for (const T dx : {T(-1), T(0), T(1)}) {
        for (const T dy : {T(-1), T(0), T(1)}) {
          group.push_back({dx == 0 ? x : std::nextafter(x, dx * INFINITY),
                           dy == 0 ? y : std::nextafter(y, dy * INFINITY)});
        }
      }
    }
  }
  std::shuffle(group.begin(), group.end(), rng);
  return group;
}

TYPED_TEST(OctagonFilterTest, PointsAtTheLastUlpOfAnEdgeAreCertifiedOnlyWhenStrictlyInside) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const T offset : {T(0), T(1) / 3, T(1000.5), T(1 << 20), std::ldexp(T(1), 40)}) {
    SCOPED_TRACE("integer octagon, offset " + std::to_string(offset));
    check_group<T>(octagon_at_the_last_ulp<T>(offset, rng));
  }
  for (int g = 0; g < 2000; ++g) {
    SCOPED_TRACE("octagon_ulp_edges " + std::to_string(g));
    check_group<T>(testing::octagon_ulp_edges<T>(56, rng));
    if (::testing::Test::HasFailure()) return;
  }
}

/// The integer families, and for 64-bit integers groups beyond 2^53 that the octagon must certify
/// from (testing::far_int64_families).
template <class T>
std::vector<testing::IntegerFamily<T>> octagon_integer_families() {
  auto families = testing::integer_families<T>();
  if constexpr (sizeof(T) == 8) {
    for (auto& family : testing::far_int64_families()) families.push_back(std::move(family));
  }
  return families;
}

template <class T>
class IntegerOctagonFilterTest : public ::testing::Test {};
using Integers = ::testing::Types<std::int32_t, std::int64_t>;
TYPED_TEST_SUITE(IntegerOctagonFilterTest, Integers);

TYPED_TEST(IntegerOctagonFilterTest, CertifiedPointsAreStrictlyInsideOnEveryFamily) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : octagon_integer_families<T>()) {
    std::size_t certified = 0;
    for (const std::size_t n : {8, 9, 15, 16, 17, 23, 31, 45, 100, 1000}) {
      SCOPED_TRACE(family.name + " n=" + std::to_string(n));
      certified += check_group<T>(family.make(n, rng));
      if (::testing::Test::HasFailure()) return;
    }
    // Beyond 2^53 the octagon certifies too (it once refused every such group), and over boxes wider
    // than 2^62 (the whole 64-bit range's disk), whose differences it takes in 128 bits.
    if (family.name.starts_with("disk") || family.name.starts_with("octagon")) {
      EXPECT_GT(certified, 0u) << family.name;
    }
  }
}

TEST(OctagonFilter, Int64BoxesWiderThan2To62TakeTheirDifferencesIn128Bits) {
  // Differences across such a box may not fit in 64 bits: the filter takes them in 128 (wide()), on
  // the scalar kernel whichever is asked. Boxes 2^62 + 2^61 and 2^63 across, and the whole range.
  using T = std::int64_t;
  const T far = T{1} << 62;
  for (const bool wide_in_x : {true, false}) {
    SCOPED_TRACE(wide_in_x ? "wide" : "tall");
    std::vector<Point2<T>> group;
    for (int i = 0; i < 32; ++i) {
      const auto a = static_cast<T>(std::ldexp(std::cos(i * 0.2), 61)),
                 b = static_cast<T>(std::ldexp(std::sin(i * 0.2), 40));
      group.push_back(wide_in_x ? Point2<T>{a, b} : Point2<T>{b, a});
    }
    group.push_back(wide_in_x ? Point2<T>{far, 0} : Point2<T>{0, far});
    for (const T low : {-far, std::numeric_limits<T>::min()}) {
      auto pts = group;
      pts.push_back(wide_in_x ? Point2<T>{low, 1} : Point2<T>{1, low});
      const cpu::GroupExtremes extremes =
          cpu::find_extremes(pts.data(), static_cast<std::uint32_t>(pts.size()));
      cpu::OctagonFilter filter;
      ASSERT_TRUE(filter.build(pts.data(), extremes)) << low;
      EXPECT_TRUE(filter.wide()) << low;
      EXPECT_GT(check_group<T>(pts), 0u) << low;
    }
    // 2^62 + 2^61 across.
    const cpu::GroupExtremes extremes =
        cpu::find_extremes(group.data(), static_cast<std::uint32_t>(group.size()));
    cpu::OctagonFilter filter;
    ASSERT_TRUE(filter.build(group.data(), extremes));
    EXPECT_TRUE(filter.wide());
    EXPECT_GT(check_group<T>(group), 0u);
  }
  // The whole range in both coordinates, its four corners and points near them and near the middle.
  std::vector<Point2<T>> corners;
  const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  for (const T x : {lo, hi}) {
    for (const T y : {lo, hi}) corners.push_back({x, y});
  }
  for (const T d : {T{1}, T{2}, T{1} << 40}) {
    corners.push_back({lo + d, lo + 2 * d}), corners.push_back({hi - d, hi - 2 * d});
    corners.push_back({d, -d}), corners.push_back({-d, d});
  }
  // Every certified point strictly inside (check_group); the six near the middle, 2^62 from every
  // edge, certified (those near the corners are within the margin of two edges, and may survive).
  EXPECT_GE(check_group<T>(corners), 6u);
}

TEST(OctagonFilter, RefusesBoxesBeyondItsMarginArgument) {
  // Near 1e300 the margin's products would overflow, near 1e-300 they would underflow: the caller
  // then uses orient2d's own filter.
  for (const double scale : {1e300, 1e-300}) {
    SCOPED_TRACE(scale);
    std::vector<Point2<double>> group;
    for (int i = 0; i < 32; ++i) group.push_back({scale * std::cos(i * 0.2), scale * std::sin(i * 0.2)});
    group.push_back({0, 0});
    const cpu::GroupExtremes extremes =
        cpu::find_extremes(group.data(), static_cast<std::uint32_t>(group.size()));
    cpu::OctagonFilter filter;
    EXPECT_FALSE(filter.build(group.data(), extremes));
  }
}

TEST(OctagonFilter, FindsNonFinitePointsInEveryLane) {
  for (const FilterKernel kernel : kernels_here()) {
    SCOPED_TRACE(kernel_name(kernel));
    for (std::uint32_t bad = 0; bad < 40; ++bad) {
      std::vector<Point2<double>> group(40, Point2<double>{1, 2});
      (bad % 2 ? group[bad].x : group[bad].y) = bad % 3 ? NAN : INFINITY;
      EXPECT_FALSE(cpu::find_extremes(group.data(), 40, kernel).finite) << "point " << bad;
    }
  }
}

}  // namespace
}  // namespace wagener
