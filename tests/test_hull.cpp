// upper_hull() and convex_hull() through the public API, every backend against the serial reference
// on every named family, and the hull properties checked directly.
#include <gtest/gtest.h>

#include <random>

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
  // The octagon covers 2 sqrt(2) / pi = 90% of the disk.
  EXPECT_LT(stats.survivors, static_cast<std::int64_t>(pts.size()) / 5);
  EXPECT_GE(stats.survivors, stats.hull_vertices);
}

TEST(HullApi, PresortedInputThatIsNotSortedIsAnInputError) {
  const std::vector<Point2<double>> pts = {{0, 0}, {2, 1}, {1, 5}};
  EXPECT_THROW(upper_hull<double>(pts, {Backend::cpu, nullptr}), input_error);
  EXPECT_THROW(upper_hull<double>(pts, {Backend::pram, nullptr}), input_error);
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

TEST(HullApi, BackendNamesRoundTrip) {
  for (Backend b : {Backend::automatic, Backend::cpu, Backend::pram, Backend::cuda}) {
    EXPECT_EQ(parse_backend(backend_name(b)), b);
  }
  EXPECT_THROW(parse_backend("gpu"), std::invalid_argument);
}

TEST(HullApi, CudaBackendWithoutADeviceSaysSo) {
  if (cuda_available()) GTEST_SKIP() << "a CUDA device is present";
  const std::vector<Point2<double>> pts = {{0, 0}, {1, 1}};
  EXPECT_THROW(convex_hull<double>(pts, {Backend::cuda, nullptr}), std::runtime_error);
}

}  // namespace
}  // namespace wagener
