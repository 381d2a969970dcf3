// The warp level of the join of tile hoods (src/cuda/warp_hood_join.cuh), the device code itself,
// run on the CPU: one emulated warp (emulation/block_emulation.hpp) finds every pair's bridge with
// warp_pair_bridge, which must be core::pair_bridge's with 32 searchers (the same k-ary search, a
// lane a probe), then every hood's span with warp_hood_span, which must be core::joined_span's; the
// spans side by side must be the serial chain of all the points. Rows of every family cut into
// random tiles (empty ones too) for float, double, int32 and int64, and multisets of a 3x3 grid with
// duplicates across the seams. Runs without a GPU, so that CI checks the join's warp code; the GPU
// tests check its kernels.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "emulation/device_scalars.hpp"
//
#include "emulation/block_emulation.hpp"
//
#include "cpu/monotone_chain.hpp"
#include "cuda/warp_hood_join.cuh"
#include "generators.hpp"
#include "integer_reference.hpp"
#include "tile_hoods.hpp"

namespace wagener {
namespace {

using testing::Points;

template <class T>
void expect_warp_join(const Points<T>& sorted, const std::vector<index_t>& cuts, const std::string& what) {
  const testing::TileHoods<T> tiles(sorted, cuts);
  const core::HoodRow<T> row = tiles.row();
  const index_t k = row.count;
  const auto slots = static_cast<std::size_t>(k * k);
  std::vector<core::PairBridge> serial(slots), warp(slots);
  std::vector<core::HoodSpan> spans(static_cast<std::size_t>(k));
  const auto nonempty = [&](index_t j, index_t i) { return row.size[j] > 0 && row.size[i] > 0; };
  block_emulation::run_block<32>([&](int lane) {
    for (index_t i = 0; i < k; ++i) {
      for (index_t j = 0; j < i; ++j) {
        if (!nonempty(j, i)) continue;
        const core::PairBridge b = cuda::warp_pair_bridge(row.hood(j), row.size[j], row.hood(i), row.size[i]);
        if (lane == 0) warp[core::pair_slot(j, i, k)] = b;
      }
    }
  });
  for (index_t i = 0; i < k; ++i) {
    for (index_t j = 0; j < i; ++j) {
      if (!nonempty(j, i)) continue;
      const std::size_t at = core::pair_slot(j, i, k);
      serial[at] = core::pair_bridge(row.hood(j), row.size[j], row.hood(i), row.size[i], 32);
      ASSERT_EQ(warp[at].left, serial[at].left) << what << ": hoods " << j << ", " << i;
      ASSERT_EQ(warp[at].right, serial[at].right) << what << ": hoods " << j << ", " << i;
    }
  }
  block_emulation::run_block<32>([&](int lane) {
    for (index_t i = 0; i < k; ++i) {
      if (row.size[i] == 0) continue;
      const core::HoodSpan span = cuda::warp_hood_span(row, warp.data(), i);
      if (lane == 0) spans[static_cast<std::size_t>(i)] = span;
    }
  });
  Points<T> hull;
  for (index_t i = 0; i < k; ++i) {
    const core::HoodSpan expected = core::joined_span(row, serial.data(), i);
    const core::HoodSpan& got = spans[static_cast<std::size_t>(i)];
    ASSERT_EQ(got.first, expected.first) << what << ": hood " << i;
    ASSERT_EQ(got.count, expected.count) << what << ": hood " << i;
    hull.insert(hull.end(), row.hood(i) + got.first, row.hood(i) + got.first + got.count);
  }
  ASSERT_EQ(hull, cpu::upper_chain<T>(sorted)) << what;
}

template <class T>
void every_family(const std::vector<std::size_t>& sizes, index_t most_per_tile) {
  testing::every_family_in_tiles<T>(
      sizes, most_per_tile,
      [](const auto& pts, const auto& cuts, const std::string& what) { expect_warp_join(pts, cuts, what); });
}

TEST(JoinEmulated, EveryFamilySmallTilesFloat) {
  every_family<float>({1, 2, 3, 17, 200, 1000}, 40);
}

TEST(JoinEmulated, EveryFamilySmallTilesInt32) {
  every_family<std::int32_t>({1, 3, 17, 200, 1000}, 40);
}

TEST(JoinEmulated, EveryFamilyLargeTilesDouble) {
  every_family<double>({3000}, 700);
}

TEST(JoinEmulated, EveryFamilyLargeTilesInt64) {
  every_family<std::int64_t>({3000}, 700);
}

// The 3x3 multisets are 3^9 - 1; the emulation (32 threads a warp, started for each row) takes a
// fresh 128th of them, each cut into single points and into random tiles, so that equal points meet
// at the seams (test_hood_join runs them all through the serial join).
TEST(JoinEmulated, MultisetsOfA3x3GridWithDuplicates) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto share = static_cast<int>(seed % 128);
  testing::for_each_3x3_multiset<double>([&](const Points<double>& pts, int code) {
    if (code % 128 != share) return true;
    const auto n = static_cast<index_t>(pts.size());
    expect_warp_join(pts, std::vector<index_t>(static_cast<std::size_t>(n), 1),
                     "multiset " + std::to_string(code));
    expect_warp_join(pts, testing::random_cuts(n, 2, rng), "multiset " + std::to_string(code));
    return !::testing::Test::HasFatalFailure();
  });
}

}  // namespace
}  // namespace wagener
