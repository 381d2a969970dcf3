// The guide filter's gather (src/cuda/gather_runs.cuh), the device code itself, run on the CPU: one
// emulated block (emulation/block_emulation.hpp) a turn packs its output places from runs laid a
// stride apart, and the packed points must be the runs' points side by side, in order, every place
// written once. Run patterns: the guide filter's (a few points a run), long runs, runs of one point,
// many empty runs between two points (more than a block takes in one chunk of offsets), and random
// mixes with fresh seeds; blocks of 64 threads of 3 places, so that runs cross blocks and chunks.
// Runs without a GPU, so that CI checks the gather's logic; the GPU tests check its kernel.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "emulation/device_scalars.hpp"
//
#include "emulation/block_emulation.hpp"
//
#include "cuda/gather_runs.cuh"
#include "generators.hpp"

namespace wagener {
namespace {

constexpr int kThreads = 64, kItems = 3;

/// Packs runs of the given sizes (run t's points at t * stride, point i of run t numbered so that
/// each is unique) by the emulated blocks, and compares with the runs side by side.
void expect_gather(const std::vector<index_t>& sizes, const std::string& what) {
  const auto runs = static_cast<index_t>(sizes.size());
  index_t stride = 1;
  for (const index_t s : sizes) stride = s > stride ? s : stride;
  std::vector<Point2<double>> src(static_cast<std::size_t>(runs * stride), Point2<double>{-1, -1});
  std::vector<index_t> offset(sizes.size());
  std::vector<Point2<double>> expected;
  index_t total = 0;
  for (index_t t = 0; t < runs; ++t) {
    offset[static_cast<std::size_t>(t)] = total;
    for (index_t i = 0; i < sizes[static_cast<std::size_t>(t)]; ++i) {
      const Point2<double> p{static_cast<double>(t), static_cast<double>(i)};
      src[static_cast<std::size_t>(t * stride + i)] = p;
      expected.push_back(p);
    }
    total += sizes[static_cast<std::size_t>(t)];
  }
  // A sentinel no run holds: a place left unwritten keeps it.
  std::vector<Point2<double>> dense(static_cast<std::size_t>(total), Point2<double>{-2, -2});
  cuda::GatherRunsShared<kThreads> shared;
  constexpr index_t kPlaces = index_t{kThreads} * kItems;
  for (index_t begin = 0; begin < total; begin += kPlaces) {
    const index_t end = begin + kPlaces < total ? begin + kPlaces : total;
    block_emulation::run_block<kThreads>([&](int) {
      cuda::gather_runs_block<kThreads, kItems>(src.data(), stride, offset.data(), runs, begin, end,
                                                dense.data(), shared);
    });
  }
  ASSERT_EQ(dense.size(), expected.size()) << what;
  for (std::size_t j = 0; j < dense.size(); ++j) {
    ASSERT_EQ(dense[j].x, expected[j].x) << what << ": place " << j;
    ASSERT_EQ(dense[j].y, expected[j].y) << what << ": place " << j;
  }
}

TEST(GatherEmulated, NamedRunPatterns) {
  expect_gather({1}, "one point");
  expect_gather({0, 0, 1, 0}, "one point among empty runs");
  expect_gather(std::vector<index_t>(500, 1), "runs of one point");
  expect_gather(std::vector<index_t>(300, 5), "a guide filter's few points a run");
  expect_gather({700, 1, 450, 0, 0, 193}, "long runs across blocks");
  std::vector<index_t> sparse(1000, 0);
  sparse[0] = 2, sparse[999] = 3;
  expect_gather(sparse, "two points with 998 empty runs between (many chunks of offsets)");
  std::vector<index_t> sparse_within(3 * kThreads + 7, 0);
  for (std::size_t t = 0; t < sparse_within.size(); t += 37) sparse_within[t] = 1;
  expect_gather(sparse_within, "a block's places over more runs than a chunk");
  std::vector<index_t> block_edges;
  for (int t = 0; t < 40; ++t) block_edges.push_back(t % 2 == 0 ? index_t{kThreads} * kItems : 0);
  expect_gather(block_edges, "runs ending on block edges");
}

TEST(GatherEmulated, RandomRunPatterns) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 12; ++trial) {
    const auto runs = std::uniform_int_distribution<index_t>(1, 600)(rng);
    const double empty_share = std::uniform_real_distribution<double>(0, 0.95)(rng);
    const auto longest = std::uniform_int_distribution<index_t>(1, trial % 3 == 0 ? 400 : 12)(rng);
    std::vector<index_t> sizes(static_cast<std::size_t>(runs));
    for (auto& s : sizes) {
      s = std::uniform_real_distribution<double>(0, 1)(rng) < empty_share
              ? 0
              : std::uniform_int_distribution<index_t>(1, longest)(rng);
    }
    if (std::uniform_int_distribution<int>(0, 1)(rng) == 0) sizes.back() = 0;  // the total past the last run
    index_t total = 0;
    for (const index_t s : sizes) total += s;
    if (total == 0) sizes.front() = 1;
    expect_gather(sizes, "trial " + std::to_string(trial) + " (" + std::to_string(runs) + " runs)");
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace wagener
