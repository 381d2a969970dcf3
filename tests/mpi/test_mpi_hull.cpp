// wagener::mpi::convex_hull under mpirun: every family, split at random places among the ranks
// (parts of any size, empty ones included), gives on rank 0 what compute_hull gives for all the
// points in one process, vertices and indices, full and upper hulls. Rank 0 draws a fresh seed and
// sends it to the others, so every rank builds the same points and the same split.
#include <gtest/gtest.h>
#include <mpi.h>
#ifdef WAGENER_HAVE_CUDA
#include <cuda_runtime.h>
#else
namespace {
// Without CUDA the GPU test skips before it asks.
constexpr int cudaSuccess = 0;
int cudaGetDeviceCount(int* count) {
  *count = 0;
  return cudaSuccess;
}
}  // namespace
#endif

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include "cuda/cuda_backend.hpp"
#include "generators.hpp"
#include "integer_reference.hpp"
#include "wagener/error.hpp"
#include "wagener/hull.hpp"
#include "wagener/mpi.hpp"

namespace {

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

std::uint64_t shared_fresh_seed() {
  std::uint64_t seed = world_rank() == 0 ? wagener::testing::fresh_seed() : 0;
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  return seed;
}

/// Cut points of [0, n) into world_size() parts at random places (repeats make empty parts).
std::vector<std::size_t> random_cuts(std::size_t n, std::mt19937_64& rng) {
  std::uniform_int_distribution<std::size_t> place(0, n);
  std::vector<std::size_t> cuts{0, n};
  for (int r = 1; r < world_size(); ++r) cuts.push_back(place(rng));
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

template <class T>
void check_every_family(wagener::HullPart part, bool on_all) {
  const std::uint64_t seed = shared_fresh_seed();
  SCOPED_TRACE("WAGENER_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto rank = static_cast<std::size_t>(world_rank());
  for (const auto& family : wagener::testing::all_families<T>()) {
    for (const std::size_t n :
         {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{1000}, std::size_t{20000}}) {
      SCOPED_TRACE(family.name + ", n = " + std::to_string(n));
      const auto points = family.make(n, rng);
      const auto cuts = random_cuts(points.size(), rng);
      const std::span<const wagener::Point2<T>> all(points);
      const auto local = all.subspan(cuts[rank], cuts[rank + 1] - cuts[rank]);
      wagener::HullOptions options;
      options.backend = wagener::Backend::cpu;
      options.part = part;
      options.indices = true;
      const auto result = on_all ? wagener::mpi::convex_hull_on_all<T>(MPI_COMM_WORLD, local, options)
                                 : wagener::mpi::convex_hull<T>(MPI_COMM_WORLD, local, options);
      if (rank == 0 || on_all) {
        const auto expected = wagener::compute_hull<T>(all, options);
        EXPECT_EQ(result.vertices, expected.vertices);
        EXPECT_EQ(result.indices, expected.indices);
      } else {
        EXPECT_TRUE(result.vertices.empty());
      }
    }
  }
}

TEST(MpiConvexHull, EveryFamilyRandomSplitsFullHullDouble) {
  check_every_family<double>(wagener::HullPart::full, false);
}

TEST(MpiConvexHull, EveryFamilyRandomSplitsUpperHullDouble) {
  check_every_family<double>(wagener::HullPart::upper, false);
}

TEST(MpiConvexHull, EveryFamilyRandomSplitsFloatOnEveryRank) {
  check_every_family<float>(wagener::HullPart::full, true);
}

/// Integer points on random splits: rank 0 (every rank with on_all) holds the exact reference hull
/// of all the points (tests/integer_reference.hpp), with compute_hull's indices.
template <class T>
void check_integer_families(bool on_all) {
  const std::uint64_t seed = shared_fresh_seed();
  SCOPED_TRACE("WAGENER_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto rank = static_cast<std::size_t>(world_rank());
  for (const auto& family : wagener::testing::integer_families<T>()) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{3}, std::size_t{1000}, std::size_t{20000}}) {
      SCOPED_TRACE(family.name + ", n = " + std::to_string(n));
      const auto points = family.make(n, rng);
      const auto cuts = random_cuts(points.size(), rng);
      const std::span<const wagener::Point2<T>> all(points);
      wagener::HullOptions options;
      options.backend = wagener::Backend::cpu;
      options.indices = true;
      const auto local = all.subspan(cuts[rank], cuts[rank + 1] - cuts[rank]);
      const auto result = on_all ? wagener::mpi::convex_hull_on_all<T>(MPI_COMM_WORLD, local, options)
                                 : wagener::mpi::convex_hull<T>(MPI_COMM_WORLD, local, options);
      if (rank == 0 || on_all) {
        const auto expected = wagener::testing::reference_hull(points);
        EXPECT_EQ(result.vertices, expected);
        EXPECT_EQ(result.indices, wagener::testing::reference_indices(points, expected));
      }
    }
  }
}

TEST(MpiConvexHull, Int32RandomSplitsAreTheExactHull) {
  check_integer_families<std::int32_t>(false);
}

TEST(MpiConvexHull, Int64RandomSplitsAreTheExactHullOnEveryRank) {
  check_integer_families<std::int64_t>(true);
}

TEST(MpiConvexHull, StatsDescribeTheWholeHull) {
  const std::uint64_t seed = shared_fresh_seed();
  std::mt19937_64 rng(seed);
  const auto points = wagener::testing::uniform_disk<double>(10000, rng);
  const auto cuts = random_cuts(points.size(), rng);
  const auto rank = static_cast<std::size_t>(world_rank());
  const std::span<const wagener::Point2<double>> all(points);
  wagener::HullStats stats;
  wagener::mpi::ReductionStats reduction;
  const auto result =
      wagener::mpi::convex_hull<double>(MPI_COMM_WORLD, all.subspan(cuts[rank], cuts[rank + 1] - cuts[rank]),
                                        {wagener::Backend::cpu, &stats}, &reduction);
  if (rank != 0) return;
  EXPECT_EQ(stats.points, 10000);
  EXPECT_EQ(stats.hull_vertices, static_cast<std::int64_t>(result.vertices.size()));
  EXPECT_EQ(reduction.ranks, world_size());
  EXPECT_GE(reduction.local_vertices, stats.hull_vertices);
}

TEST(MpiConvexHull, NonFinitePointOnOneRankFailsOnEveryRank) {
  // The last rank holds a NaN; every rank must throw input_error (none may wait for a partner).
  std::vector<wagener::Point2<double>> local{{0, 0}, {1, 0}, {0, 1}};
  if (world_rank() == world_size() - 1) local.push_back({std::numeric_limits<double>::quiet_NaN(), 0});
  EXPECT_THROW(wagener::mpi::convex_hull<double>(MPI_COMM_WORLD, local, {wagener::Backend::cpu}),
               wagener::input_error);
}

// On a machine with GPUs (label cuda; skipped on every rank when any rank lacks a device): every
// rank hulls its part on the GPU, ranks on one host on device (local rank mod count), and the hull
// is the CPU's (for 64-bit integers, the exact reference's).
TEST(MpiConvexHullCuda, RanksHullOnDeviceLocalRankModCount) {
  int usable = wagener::cuda_available() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &usable, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (usable == 0) GTEST_SKIP() << "no CUDA device on some rank";
  const std::uint64_t seed = shared_fresh_seed();
  SCOPED_TRACE("WAGENER_TEST_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto rank = static_cast<std::size_t>(world_rank());
  for (const auto& family : wagener::testing::all_families<float>()) {
    SCOPED_TRACE(family.name);
    const auto points = family.make(std::size_t{1} << 21, rng);
    const auto cuts = random_cuts(points.size(), rng);
    const std::span<const wagener::Point2<float>> all(points);
    wagener::HullOptions options;
    options.backend = wagener::Backend::cuda;
    options.indices = true;
    const auto result = wagener::mpi::convex_hull<float>(
        MPI_COMM_WORLD, all.subspan(cuts[rank], cuts[rank + 1] - cuts[rank]), options);
    if (rank == 0) {
      options.backend = wagener::Backend::cpu;
      const auto expected = wagener::compute_hull<float>(all, options);
      EXPECT_EQ(result.vertices, expected.vertices);
      EXPECT_EQ(result.indices, expected.indices);
    }
  }
  // 64-bit integers, across the whole range and a few beyond 2^53 among exact ones.
  for (const auto& family : wagener::testing::integer_families<std::int64_t>()) {
    SCOPED_TRACE(family.name);
    const auto points = family.make(std::size_t{1} << 20, rng);
    const auto cuts = random_cuts(points.size(), rng);
    const std::span<const wagener::Point2<std::int64_t>> all(points);
    wagener::HullOptions options;
    options.backend = wagener::Backend::cuda;
    const auto result = wagener::mpi::convex_hull<std::int64_t>(
        MPI_COMM_WORLD, all.subspan(cuts[rank], cuts[rank + 1] - cuts[rank]), options);
    if (rank == 0) {
      EXPECT_EQ(result.vertices, wagener::testing::reference_hull(points));
    }
  }
  MPI_Comm host = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
  int local_rank = 0;
  MPI_Comm_rank(host, &local_rank);
  MPI_Comm_free(&host);
  int devices = 0;
  ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess);
  EXPECT_EQ(wagener::cuda::chosen_device_ordinal(), local_rank % devices);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int failed = RUN_ALL_TESTS();
  MPI_Finalize();
  return failed;
}
