// The block level of the GPU's hull code, the device code itself, run on the CPU: the upper-hull
// kernels' block (src/cuda/block_upper_hull.cuh: the check for a tile that is its own hood, the
// peel, the strips' chains and the merge rounds with their k-ary search and walk from the seam) and
// the block finish's sort (src/cuda/block_bitonic_sort.cuh, with warp barriers between warp-local
// steps). A thread stands for each GPU thread of the block, __syncthreads runs over the block's
// threads, and the warp intrinsics over the lanes their mask names, each mask of a warp its own
// barrier and exchange. An intrinsic whose mask leaves out the calling lane, or whose source lane is
// outside the mask, fails the test; a collective that some lane of its mask never reaches hangs it
// (CTest's timeout), as divergent code would deadlock or read garbage on the GPU. Under
// ThreadSanitizer (scripts/test.sh --sanitize) a barrier too few between the threads' shared-memory
// accesses is a data race, as racecheck would report it. The hood of every family, at sizes across
// strips, warps and the tile, must be the serial monotone chain's, for policies shaped like the tile
// kernels' (with the peel) and the block finish's (walking from the seam), and for one that walks
// wherever it can, so that walks that fail and leave the bridge to the search are exercised; the
// sort must be std::sort's at every power of two up to the block finish's tile. Runs without a GPU,
// so that CI checks the block's logic; the GPU tests check the kernels around it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cpu/monotone_chain.hpp"
#include "generators.hpp"
#include "integer_reference.hpp"

// ---- the emulation: what block_upper_hull.cuh takes from CUDA ---------------------------------------
#include "emulation/device_scalars.hpp"
//
#include "emulation/block_emulation.hpp"
//
#include "cuda/block_bitonic_sort.cuh"
#include "cuda/block_upper_hull.cuh"

namespace wagener {
namespace {

using block_emulation::run_block;

/// A block's shape: the tile kernels' policies and the block finish's (src/cuda/policy.cuh,
/// block_finish.cu), with fewer threads where that keeps the test short.
template <int Threads, int Strip, int PeelRounds, int WalkSteps, int WalkFromHood>
struct Shape {
  static constexpr int kThreads = Threads;
  static constexpr int kStrip = Strip;
  static constexpr int kStride = Strip + 1;
  static constexpr int kTile = Threads * Strip;
  static constexpr int kPeelRounds = PeelRounds;
  static constexpr int kWalkSteps = WalkSteps;
  static constexpr int kWalkFromHood = WalkFromHood;
  static constexpr bool kPeelJudgesAgain = false;
  static constexpr bool kLoadAsync = false;  // on the host an asynchronous copy is a plain one anyway
};

/// The tile kernels' first level: 16-point strips and the peel; no walk.
using TileShape = Shape<64, 16, 16, 0, 0>;
/// The tile kernels' first level for 8-byte coordinates: the peel judges again only the points whose
/// neighbours changed.
struct JudgingTileShape : TileShape {
  static constexpr bool kPeelJudgesAgain = true;
};
/// The block finish's merges, on fewer threads: 8-point strips, the walk over hoods of 24 or more.
using FinishShape = Shape<64, 8, 0, 8, 24>;
/// A walk over hoods of 2 vertices or more, 3 steps at most: many walks fail.
using EagerWalkShape = Shape<64, 8, 0, 3, 2>;
/// The block finish's own shape (512 threads).
using FullFinishShape = Shape<512, 8, 0, 8, 24>;

/// BlockUpperHull<T, Policy>::run and store over sorted tile[0..n), a CPU thread a GPU thread; every
/// thread must return the same size.
template <class T, class Policy>
std::vector<Point2<T>> block_hood(const std::vector<Point2<T>>& tile, bool peel) {
  using Hull = cuda::BlockUpperHull<T, Policy>;
  auto storage = std::make_unique<typename Hull::TempStorage>();
  std::vector<Point2<T>> out(tile.size());
  std::vector<index_t> sizes(Policy::kThreads, -1);
  run_block<Policy::kThreads>([&](int t) {
    Hull hull(*storage);
    const index_t h = hull.run(tile.data(), static_cast<int>(tile.size()), peel);
    hull.store(out.data(), h);
    sizes[static_cast<std::size_t>(t)] = h;
  });
  for (int t = 1; t < Policy::kThreads; ++t) EXPECT_EQ(sizes[static_cast<std::size_t>(t)], sizes[0]);
  out.resize(static_cast<std::size_t>(std::max<index_t>(sizes[0], 0)));
  return out;
}

/// Sizes across the strips, the warps and the tile: 1, a strip and one more, a warp's points, the
/// tile less one and the tile, and random ones.
template <class Policy>
std::vector<std::size_t> sizes_of(std::mt19937_64& rng, int randoms) {
  constexpr auto kTile = static_cast<std::size_t>(Policy::kTile);
  constexpr auto kStrip = static_cast<std::size_t>(Policy::kStrip);
  std::vector<std::size_t> sizes{1, 2, 3, kStrip, kStrip + 1, 32 * kStrip, kTile - 1, kTile};
  std::uniform_int_distribution<std::size_t> size(4, kTile);
  for (int r = 0; r < randoms; ++r) sizes.push_back(size(rng));
  return sizes;
}

template <class T, class Policy>
void every_family(bool peel, int randoms) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : testing::families_of<T>()) {
    for (const std::size_t n : sizes_of<Policy>(rng, randoms)) {
      const auto tile = testing::sorted_copy(family.make(n, rng));
      ASSERT_EQ((block_hood<T, Policy>(tile, peel)), cpu::upper_chain<T>(tile))
          << family.name << ", " << n << " points" << (peel ? ", peeled" : "");
    }
  }
}

TEST(BlockHoodEmulated, TileKernelsShapeWithAndWithoutThePeel) {
  every_family<double, TileShape>(true, 2);
  every_family<float, TileShape>(false, 1);
}

TEST(BlockHoodEmulated, TileKernelsPeelJudgingOnlyPointsWhoseNeighboursChanged) {
  every_family<double, JudgingTileShape>(true, 2);
  every_family<std::int64_t, JudgingTileShape>(true, 1);
}

TEST(BlockHoodEmulated, BlockFinishShapeWalksFromTheSeam) {
  every_family<double, FinishShape>(false, 2);
  every_family<std::int64_t, FinishShape>(false, 1);
}

TEST(BlockHoodEmulated, EagerWalksThatFailLeaveTheSearch) {
  every_family<double, EagerWalkShape>(false, 2);
  every_family<float, EagerWalkShape>(false, 1);
}

/// The block finish's own 512 threads, on sides like its inputs: a disk's outer points (mostly hull
/// vertices, whose bridges lie near the seams) and a square's corners (few vertices, far bridges).
TEST(BlockHoodEmulated, BlockFinishsOwnShapeOnSidesOfSurvivors) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  for (const std::size_t n : {std::size_t{1700}, std::size_t{4096}}) {
    testing::Points<double> annulus, corners;
    while (annulus.size() < n) {
      const double r = std::sqrt(1 - 1e-4 * unit(rng)), t = 3.14159 * unit(rng);
      annulus.push_back({r * std::cos(t), r * std::sin(t)});
    }
    while (corners.size() < n) {
      const double u = 0.01 * unit(rng), v = 0.01 * unit(rng);
      if (u + v < 0.01) corners.push_back({unit(rng) < 0.5 ? u : 1 - u, 1 - v});
    }
    for (const auto* points : {&annulus, &corners}) {
      const auto tile = testing::sorted_copy(*points);
      ASSERT_EQ((block_hood<double, FullFinishShape>(tile, false)), cpu::upper_chain<double>(tile))
          << (points == &annulus ? "annulus" : "corners") << ", " << n << " points";
    }
  }
}

/// run's on_load (the tile kernel's check of sorted input reads the tile through it): every thread's
/// call sees the count and, through point(i), the tile as loaded, whatever the hull does to the
/// tile after (in place: the peel's moves, the chains, the merges); the hood is the serial chain's.
/// Under ThreadSanitizer a missing barrier between the calls and the hull's first writes is a race
/// (a tile of one or two points skips the turn test's barrier).
template <class T, class Policy>
void on_load_sees_the_tile(bool peel) {
  using Hull = cuda::BlockUpperHull<T, Policy>;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : testing::families_of<T>()) {
    for (const std::size_t n : sizes_of<Policy>(rng, 1)) {
      const auto tile = testing::sorted_copy(family.make(n, rng));
      auto storage = std::make_unique<typename Hull::TempStorage>();
      std::vector<Point2<T>> seen(n), out(n);
      std::vector<int> counts(Policy::kThreads, -1);
      std::vector<index_t> sizes(Policy::kThreads, -1);
      run_block<Policy::kThreads>([&](int t) {
        Hull hull(*storage);
        const index_t h = hull.run(tile.data(), static_cast<int>(n), peel, [&](const auto& point, int count) {
          counts[static_cast<std::size_t>(t)] = count;
          for (int i = t; i < count; i += Policy::kThreads) seen[static_cast<std::size_t>(i)] = point(i);
        });
        hull.store(out.data(), h);
        sizes[static_cast<std::size_t>(t)] = h;
      });
      const std::string what = family.name + ", " + std::to_string(n) + " points" + (peel ? ", peeled" : "");
      for (int t = 0; t < Policy::kThreads; ++t) {
        ASSERT_EQ(counts[static_cast<std::size_t>(t)], static_cast<int>(n)) << what << ", thread " << t;
        ASSERT_EQ(sizes[static_cast<std::size_t>(t)], sizes[0]) << what << ", thread " << t;
      }
      ASSERT_EQ(seen, tile) << what;
      out.resize(static_cast<std::size_t>(std::max<index_t>(sizes[0], 0)));
      ASSERT_EQ(out, cpu::upper_chain<T>(tile)) << what;
    }
  }
}

TEST(BlockHoodEmulated, OnLoadSeesTheTileAsLoaded) {
  on_load_sees_the_tile<double, TileShape>(true);
  on_load_sees_the_tile<float, TileShape>(false);
  on_load_sees_the_tile<std::int64_t, JudgingTileShape>(true);
}

/// block_bitonic_sort<Threads> over a[0..n) (n a power of two), a CPU thread a GPU thread.
template <int Threads, class T>
void block_sort(std::vector<Point2<T>>& a) {
  run_block<Threads>([&](int) { cuda::block_bitonic_sort<Threads>(a.data(), static_cast<int>(a.size())); });
}

/// Every power of two from 1 to Threads * 8 (the block finish's tile at 512 threads), points with
/// many equal coordinates and equal points, shuffled: std::sort's order.
template <int Threads>
void sorts_every_power_of_two() {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(Threads) + " threads");
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> coordinate(-20, 20);
  for (int n = 1; n <= Threads * 8; n *= 2) {
    std::vector<Point2<double>> a(static_cast<std::size_t>(n));
    for (auto& p : a) p = {static_cast<double>(coordinate(rng)), static_cast<double>(coordinate(rng))};
    auto expected = a;
    std::sort(expected.begin(), expected.end(), lex_less<double>);
    block_sort<Threads>(a);
    ASSERT_EQ(a, expected) << n << " points";
  }
}

TEST(BlockSortEmulated, TheBlockFinishsSortAtEveryPowerOfTwo) {
  sorts_every_power_of_two<64>();
  sorts_every_power_of_two<512>();
}

}  // namespace
}  // namespace wagener
