// The guide filter's thinning (src/cuda/filter_thinning.cuh), the device code itself, run on the CPU:
// a warp of emulated lanes (emulation/block_emulation.hpp) takes 256 sorted points striped over its
// items, as guide_filter_kernel does, with a random keep mask, and must leave out exactly the kept
// points that core::thinned_by_neighbours leaves out given the neighbours the warp can see: the
// input's point before (none for the warp's first point), and the next point unlike it where that
// lies in the point's row of 32 or the next one, inside the warp and before n. Every float family,
// runs of copies longer than a row, and warps cut short by n. Runs without a GPU, so that CI checks
// the rotations and the search; the GPU tests check the kernel.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "emulation/device_scalars.hpp"
//
#include "emulation/block_emulation.hpp"
//
#include "cuda/filter_thinning.cuh"
#include "generators.hpp"

namespace wagener {
namespace {

constexpr int kWarp = 32, kItems = 8, kWarpPoints = kWarp * kItems;

/// The kept mask bits of warp `warp` of pts (n points) that the emulated warp thins, as one bit per
/// point of the warp (row-major: point warp_first + r, bit r).
template <cuda::FilterThinning kThinning>
std::vector<bool> emulated(const testing::Points<float>& pts, index_t warp, const std::vector<bool>& keep) {
  const auto n = static_cast<index_t>(pts.size());
  const index_t warp_first = warp * kWarpPoints;
  std::vector<bool> thinned(kWarpPoints, false);
  std::vector<unsigned> masks(kWarp, 0);
  block_emulation::run_block<kWarp>([&](int lane) {
    const index_t first = warp_first + lane;
    Point2<float> item[kItems] = {};
    unsigned keep_bits = 0;
    for (int j = 0; j < kItems; ++j) {
      const index_t g = first + index_t{j} * kWarp;
      if (g < n) {
        item[j] = pts[static_cast<std::size_t>(g)];
        if (keep[static_cast<std::size_t>(g - warp_first)]) keep_bits |= 1u << j;
      } else {
        item[j] = {-7.0f, 3.0f};  // past n: what a lane holds there is never read as a point
      }
    }
    masks[static_cast<std::size_t>(lane)] =
        keep_bits & cuda::thinned_items<kThinning, kItems>(item, keep_bits, first, n, lane);
  });
  for (int lane = 0; lane < kWarp; ++lane)
    for (int j = 0; j < kItems; ++j)
      thinned[static_cast<std::size_t>(j * kWarp + lane)] = (masks[static_cast<std::size_t>(lane)] >> j) & 1u;
  return thinned;
}

/// The same bits from the rule itself and the neighbours the warp can see.
template <cuda::FilterThinning kThinning>
std::vector<bool> expected(const testing::Points<float>& pts, index_t warp, const std::vector<bool>& keep) {
  const auto n = static_cast<index_t>(pts.size());
  const index_t warp_first = warp * kWarpPoints;
  std::vector<bool> thinned(kWarpPoints, false);
  for (index_t r = 0; r < kWarpPoints; ++r) {
    const index_t g = warp_first + r;
    if (g >= n || !keep[static_cast<std::size_t>(r)]) continue;
    const bool has_a = r > 0;
    const Point2<float> b = pts[static_cast<std::size_t>(g)];
    const Point2<float> a = has_a ? pts[static_cast<std::size_t>(g - 1)] : b;
    index_t c = g + 1;
    while (c < n && same_point(pts[static_cast<std::size_t>(c)], b)) ++c;
    const index_t row_first = warp_first + r / kWarp * kWarp;
    const bool has_c = c < n && c < warp_first + kWarpPoints && c < row_first + 2 * kWarp;
    constexpr bool kInLine = kThinning == cuda::FilterThinning::in_line;
    thinned[static_cast<std::size_t>(r)] = core::thinned_by_neighbours<kInLine>(
        has_a, a, b, has_c, has_c ? pts[static_cast<std::size_t>(c)] : b);
  }
  return thinned;
}

template <cuda::FilterThinning kThinning>
void expect_warps_thin(const testing::Points<float>& pts, std::mt19937_64& rng, const std::string& what) {
  const auto n = static_cast<index_t>(pts.size());
  std::bernoulli_distribution kept(0.7);
  for (index_t warp = 0; warp * kWarpPoints < n; ++warp) {
    std::vector<bool> keep(kWarpPoints);
    for (std::size_t r = 0; r < keep.size(); ++r) keep[r] = warp % 2 == 0 || kept(rng);  // all, or 70 %
    const auto got = emulated<kThinning>(pts, warp, keep);
    const auto want = expected<kThinning>(pts, warp, keep);
    for (std::size_t r = 0; r < got.size(); ++r) {
      ASSERT_EQ(got[r], want[r]) << what << ": warp " << warp << " point " << r << " (row " << r / kWarp
                                 << ", lane " << r % kWarp << ")";
    }
  }
}

class FilterThinningEmulated : public ::testing::Test {
 protected:
  std::uint64_t seed_ = testing::fresh_seed();  // WAGENER_TEST_SEED replays a failing run
  std::mt19937_64 rng_{seed_};
};

TEST_F(FilterThinningEmulated, EveryFamilyAsTheRuleSays) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  for (const auto& family : testing::all_families<float>()) {
    for (const std::size_t n : {33u, 600u}) {
      const auto pts = testing::sorted_copy(family.make(n, rng_));
      const std::string what = family.name + " n=" + std::to_string(n);
      expect_warps_thin<cuda::FilterThinning::repeats>(pts, rng_, what + " repeats");
      expect_warps_thin<cuda::FilterThinning::in_line>(pts, rng_, what + " in line");
      if (HasFatalFailure()) return;
    }
  }
}

// Straight runs with copies: 1 to 4 of each point, 3 each, and runs of copies of 31 to 70 points that
// carry the next unlike point into the next row and past it.
TEST_F(FilterThinningEmulated, RunsOfCopiesAcrossRows) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  std::uniform_int_distribution<std::size_t> few(1, 4), many(31, 70);
  const auto mixed = testing::repeated_straight_runs<float>(1000, 50, [&](std::size_t) { return few(rng_); });
  const auto threes =
      testing::repeated_straight_runs<float>(777, 20, [](std::size_t) { return std::size_t{3}; });
  const auto long_copies = testing::repeated_straight_runs<float>(
      1500, 7, [&](std::size_t i) { return i % 3 == 0 ? many(rng_) : 1; });
  for (const auto* pts : {&mixed, &threes, &long_copies}) {
    expect_warps_thin<cuda::FilterThinning::repeats>(*pts, rng_, "repeats");
    expect_warps_thin<cuda::FilterThinning::in_line>(*pts, rng_, "in line");
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace wagener
