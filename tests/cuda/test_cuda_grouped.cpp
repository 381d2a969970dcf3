// Grouped hulls on the device against the CPU's, group by group: every named family, degenerate
// groups, groups on either side of each path's limits (the thread path's points and survivors, the
// warp path's, the stage of a warp's groups), a million small groups, and the device entry point on
// device memory.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cpu/monotone_chain.hpp"
#include "generators.hpp"
#include "integer_reference.hpp"
#include "wagener/cuda.hpp"
#include "wagener/error.hpp"
#include "wagener/grouped.hpp"

namespace wagener {
namespace {

class CudaGrouped : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  }
};

template <class T>
struct Groups {
  std::vector<Point2<T>> points;
  std::vector<std::int64_t> offsets{0};
  void add(const std::vector<Point2<T>>& group) {
    points.insert(points.end(), group.begin(), group.end());
    offsets.push_back(static_cast<std::int64_t>(points.size()));
  }
};

template <class T>
Groups<T> mixed_groups(std::mt19937_64& rng) {
  Groups<T> groups;
  for (const auto& family : testing::all_families<T>()) {
    // 0 to 4096 points: empty ranges, 1 and 2 points, the warp path; 300 on a circle (more survivors
    // than a warp keeps: deferred) and 5000 (more points than a warp takes: deferred).
    for (const std::size_t n : {0, 1, 2, 3, 31, 32, 33, 100, 300, 1000, 5000})
      groups.add(family.make(n, rng));
  }
  groups.add(testing::uniform_disk<T>(100000, rng));  // one huge group among small ones
  for (int i = 0; i < 1000; ++i) groups.add(testing::gaussian<T>(static_cast<std::size_t>(i % 40), rng));
  return groups;
}

template <class T>
void expect_cuda_matches_cpu(const Groups<T>& groups, HullPart part, bool indices) {
  HullOptions options;
  options.part = part;
  options.indices = indices;
  options.backend = Backend::cpu;
  const GroupedHulls<T> cpu = convex_hulls<T>(groups.points, groups.offsets, options);
  options.backend = Backend::cuda;
  const GroupedHulls<T> gpu = convex_hulls<T>(groups.points, groups.offsets, options);
  ASSERT_EQ(gpu.offsets, cpu.offsets);
  for (std::size_t g = 0; g < cpu.groups(); ++g) {
    const auto a = cpu.hull(g), b = gpu.hull(g);
    ASSERT_EQ(std::vector<Point2<T>>(b.begin(), b.end()), std::vector<Point2<T>>(a.begin(), a.end()))
        << "group " << g;
  }
  ASSERT_EQ(gpu.indices, cpu.indices);
}

TEST_F(CudaGrouped, EveryGroupMatchesTheCpuDouble) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto groups = mixed_groups<double>(rng);
  for (const HullPart part : {HullPart::full, HullPart::upper}) {
    for (const bool indices : {false, true}) expect_cuda_matches_cpu(groups, part, indices);
  }
}

TEST_F(CudaGrouped, EveryGroupMatchesTheCpuFloat) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto groups = mixed_groups<float>(rng);
  expect_cuda_matches_cpu(groups, HullPart::full, true);
  expect_cuda_matches_cpu(groups, HullPart::upper, false);
}

// Groups whose sizes fall on both sides of the per-thread path's limits (255 points; 64 survivors,
// which circles of 65 points and more exceed) and whose neighbours in a tile of 32 overflow the
// points a tile stages at once (3200 double, 6400 float), in random order, every family.
template <class T>
Groups<T> groups_near_the_path_limits(std::mt19937_64& rng) {
  const auto families = testing::all_families<T>();
  std::vector<std::size_t> sizes;
  for (std::size_t n = 0; n <= 4; ++n) sizes.push_back(n);
  for (std::size_t n = 60; n <= 70; ++n) sizes.push_back(n);
  for (std::size_t n = 248; n <= 262; ++n) sizes.push_back(n);
  std::uniform_int_distribution<std::size_t> pick_size(0, sizes.size() - 1),
      pick_family(0, families.size() - 1);
  Groups<T> groups;
  for (int g = 0; g < 3000; ++g) groups.add(families[pick_family(rng)].make(sizes[pick_size(rng)], rng));
  return groups;
}

TEST_F(CudaGrouped, GroupsNearThePathLimitsMatchTheCpu) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto doubles = groups_near_the_path_limits<double>(rng);
  expect_cuda_matches_cpu(doubles, HullPart::full, true);
  expect_cuda_matches_cpu(doubles, HullPart::upper, false);
  const auto floats = groups_near_the_path_limits<float>(rng);
  expect_cuda_matches_cpu(floats, HullPart::full, false);
  expect_cuda_matches_cpu(floats, HullPart::upper, true);
}

// Groups in which nearly every point is a vertex (1 to 3 points, also with the tiny and huge
// families' coordinates; circles and parabolas of up to 40): the hulls fill the output array, whose
// end the call borrows as working memory, so the working memory must move out before the hulls are
// written; and groups of one point each, whose lists of groups outgrow a float output array, so the
// call must allocate its own.
template <class T>
Groups<T> hull_like_groups(std::mt19937_64& rng) {
  const std::vector<testing::Family<T>> families = {{"circle", testing::circle<T>},
                                                    {"parabola", testing::parabola<T>},
                                                    {"tiny", testing::tiny<T>},
                                                    {"huge", testing::huge<T>}};
  std::uniform_int_distribution<std::size_t> small(1, 3), size(4, 40), any(0, 3), convex(0, 1);
  Groups<T> groups;
  for (int g = 0; g < 20000; ++g) {
    if (g % 2 == 0) {
      groups.add(families[any(rng)].make(small(rng), rng));
    } else {
      groups.add(families[convex(rng)].make(size(rng), rng));
    }
  }
  return groups;
}

TEST_F(CudaGrouped, GroupsOfVerticesFillTheOutputAndMatchTheCpu) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto doubles = hull_like_groups<double>(rng);
  expect_cuda_matches_cpu(doubles, HullPart::full, true);
  expect_cuda_matches_cpu(doubles, HullPart::upper, false);
  const auto floats = hull_like_groups<float>(rng);
  expect_cuda_matches_cpu(floats, HullPart::full, false);
  Groups<float> singles;
  for (const auto& p : testing::uniform_disk<float>(100000, rng)) singles.add({p});
  expect_cuda_matches_cpu(singles, HullPart::full, true);
}

TEST_F(CudaGrouped, AMillionSmallGroups) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> size(0, 20), coordinate(-5, 5);
  Groups<double> groups;
  for (int g = 0; g < 1000000; ++g) {
    for (int i = size(rng); i > 0; --i)
      groups.points.push_back({double(coordinate(rng)), double(coordinate(rng))});
    groups.offsets.push_back(static_cast<std::int64_t>(groups.points.size()));
  }
  expect_cuda_matches_cpu(groups, HullPart::full, false);
}

TEST_F(CudaGrouped, NonFinitePointIsNamed) {
  std::vector<Point2<double>> points(500, Point2<double>{1, 1});
  for (std::size_t i = 0; i < points.size(); ++i) points[i] = {double(i % 7), double(i % 11)};
  points[333] = {0, std::numeric_limits<double>::quiet_NaN()};
  const std::vector<std::int64_t> offsets{0, 100, 200, 500};
  HullOptions options;
  options.backend = Backend::cuda;
  try {
    convex_hulls<double>(points, offsets, options);
    FAIL() << "no error";
  } catch (const input_error& e) {
    EXPECT_STREQ(e.what(), "point 333 is not finite");
  }
}

TEST_F(CudaGrouped, DeviceEntryPointOnDeviceMemory) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto groups = mixed_groups<double>(rng);
  const std::size_t n = groups.points.size(), count = groups.offsets.size() - 1;
  Point2<double>* d_points = nullptr;
  Point2<double>* d_hull = nullptr;
  std::int64_t *d_offsets = nullptr, *d_hull_offsets = nullptr, *d_indices = nullptr;
  ASSERT_EQ(cudaMalloc(&d_points, n * sizeof(Point2<double>)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_hull, n * sizeof(Point2<double>)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_offsets, (count + 1) * sizeof(std::int64_t)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_hull_offsets, (count + 1) * sizeof(std::int64_t)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_indices, n * sizeof(std::int64_t)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_points, groups.points.data(), n * sizeof(Point2<double>), cudaMemcpyHostToDevice),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_offsets, groups.offsets.data(), (count + 1) * sizeof(std::int64_t),
                       cudaMemcpyHostToDevice),
            cudaSuccess);
  const index_t total = cuda::convex_hulls_device<double>(d_points, d_offsets, static_cast<index_t>(n),
                                                          static_cast<index_t>(count), d_hull, d_hull_offsets,
                                                          d_indices, HullPart::full);
  std::vector<Point2<double>> hull(static_cast<std::size_t>(total));
  std::vector<std::int64_t> hull_offsets(count + 1), indices(static_cast<std::size_t>(total));
  ASSERT_EQ(cudaMemcpy(hull.data(), d_hull, hull.size() * sizeof(Point2<double>), cudaMemcpyDeviceToHost),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpy(hull_offsets.data(), d_hull_offsets, hull_offsets.size() * sizeof(std::int64_t),
                       cudaMemcpyDeviceToHost),
            cudaSuccess);
  ASSERT_EQ(
      cudaMemcpy(indices.data(), d_indices, indices.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost),
      cudaSuccess);
  for (void* p : {static_cast<void*>(d_points), static_cast<void*>(d_hull), static_cast<void*>(d_offsets),
                  static_cast<void*>(d_hull_offsets), static_cast<void*>(d_indices)}) {
    cudaFree(p);
  }
  HullOptions options;
  options.backend = Backend::cpu;
  options.indices = true;
  const auto cpu = convex_hulls<double>(groups.points, groups.offsets, options);
  EXPECT_EQ(hull_offsets, cpu.offsets);
  EXPECT_EQ(hull, cpu.vertices);
  EXPECT_EQ(indices, cpu.indices);
}

// Integer groups on every path (the team's, the warp's, the deferred ones on the device and the
// host), from every integer family, against the exact reference group by group; for int64, groups
// beyond 2^53 (whose octagons the team takes as differences to a corner) beside groups exact in
// double.
template <class T>
void expect_integer_groups_exact(std::mt19937_64& rng) {
  Groups<T> groups;
  const auto families = testing::integer_families<T>();
  for (const auto& family : families) {
    for (const std::size_t n : {0, 1, 2, 3, 31, 32, 33, 100, 300, 1000, 5000, 70000})
      groups.add(family.make(n, rng));
  }
  for (int i = 0; i < 3000; ++i)
    groups.add(
        families[static_cast<std::size_t>(i) % families.size()].make(static_cast<std::size_t>(i % 120), rng));
  for (const HullPart part : {HullPart::full, HullPart::upper}) {
    HullOptions options{Backend::cuda};
    options.part = part;
    options.indices = true;
    const GroupedHulls<T> gpu = convex_hulls<T>(groups.points, groups.offsets, options);
    ASSERT_EQ(gpu.groups(), groups.offsets.size() - 1);
    for (std::size_t g = 0; g < gpu.groups(); ++g) {
      const std::vector<Point2<T>> group(groups.points.begin() + groups.offsets[g],
                                         groups.points.begin() + groups.offsets[g + 1]);
      const auto expected = testing::reference_hull(group, part == HullPart::upper);
      const auto got = gpu.hull(g);
      ASSERT_EQ(std::vector<Point2<T>>(got.begin(), got.end()), expected) << "group " << g;
      auto indices = testing::reference_indices(group, expected);
      for (auto& i : indices) i += groups.offsets[g];
      ASSERT_EQ(std::vector<std::int64_t>(gpu.indices.begin() + gpu.offsets[g],
                                          gpu.indices.begin() + gpu.offsets[g + 1]),
                indices)
          << "group " << g;
    }
  }
}

TEST_F(CudaGrouped, Int32GroupsAreExact) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  expect_integer_groups_exact<std::int32_t>(rng);
}

TEST_F(CudaGrouped, Int64GroupsAreExact) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  expect_integer_groups_exact<std::int64_t>(rng);
}

}  // namespace
}  // namespace wagener
