// The join of many hoods in one step (core/hood_join.hpp), on the host: sorted points cut into
// tiles of random sizes (empty ones too), each tile's hood by the serial chain, laid out as the GPU
// lays its tile hoods (a row with a stride); every pair's bridge, every hood's span, and the spans
// side by side must be the serial chain of all the points, on every subset of small grids, every
// multiset with duplicates across the seams, and every named family.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "core/hood_join.hpp"
#include "cpu/monotone_chain.hpp"
#include "generators.hpp"
#include "integer_reference.hpp"
#include "tile_hoods.hpp"

namespace wagener {
namespace {

using testing::Points;

/// Hood i's span as a warp of the GPU's join gathers it: lane L takes the hoods j = L, L + 32, ...;
/// then lane L merges lane L + d's bounds for d = 16, 8, 4, 2, 1 (shuffles down), lane 0's last.
template <class T>
core::HoodSpan lanes_span(const core::HoodRow<T>& row, const core::PairBridge* bridges, index_t i) {
  constexpr int kLanes = 32;
  const index_t h = row.size[i];
  if (h == 0) return {};
  std::vector<core::SpanBounds<T>> lane(kLanes, core::SpanBounds<T>(h));
  for (index_t j = 0; j < row.count; ++j) {
    if (j != i && row.size[j] > 0)
      core::gather_bridge(lane[static_cast<std::size_t>(j % kLanes)], row, bridges, i, j);
  }
  for (int d = kLanes / 2; d > 0; d /= 2) {
    for (int l = 0; l < d; ++l)
      core::merge_bounds(lane[static_cast<std::size_t>(l)], row.hood(i),
                         lane[static_cast<std::size_t>(l + d)]);
  }
  return core::span_of(lane[0], row.hood(i));
}

/// The upper hull of `sorted` by the join: cut at `cuts` (tile sizes, summing to its size), each
/// tile's hood in a row of stride `stride` (at least the largest tile), bridges found with
/// `searchers` probes a step.
template <class T>
Points<T> joined_hull(const Points<T>& sorted, const std::vector<index_t>& cuts, int searchers) {
  const testing::TileHoods<T> tiles(sorted, cuts);
  const core::HoodRow<T> hoods = tiles.row();
  const index_t k = hoods.count;
  const auto& size = tiles.size;
  std::vector<core::PairBridge> bridges(static_cast<std::size_t>(k * k));
  for (index_t i = 0; i < k; ++i) {
    for (index_t j = 0; j < i; ++j) {
      if (size[j] > 0 && size[i] > 0)
        bridges[core::pair_slot(j, i, k)] =
            core::pair_bridge(hoods.hood(j), size[j], hoods.hood(i), size[i], searchers);
    }
  }
  Points<T> hull;
  for (index_t i = 0; i < k; ++i) {
    const core::HoodSpan span = core::joined_span(hoods, bridges.data(), i);
    const core::HoodSpan by_lanes = lanes_span(hoods, bridges.data(), i);
    EXPECT_EQ(by_lanes.first, span.first) << "hood " << i;
    EXPECT_EQ(by_lanes.count, span.count) << "hood " << i;
    hull.insert(hull.end(), hoods.hood(i) + span.first, hoods.hood(i) + span.first + span.count);
  }
  return hull;
}

using testing::random_cuts;

template <class T>
void expect_joined_equals_chain(const Points<T>& sorted, const std::vector<index_t>& cuts,
                                const std::string& what) {
  const auto expected = cpu::upper_chain<T>(sorted);
  std::string tiles;
  for (index_t c : cuts) tiles += " " + std::to_string(c);
  for (int searchers : {1, 3, 32}) {
    ASSERT_EQ(joined_hull(sorted, cuts, searchers), expected)
        << what << ", tiles" << tiles << ", " << searchers << " searchers";
  }
}

// Every subset of a W x H integer grid (collinear runs, equal x, vertical edges, single points), cut
// into tiles of one, two or three points in every way a seeded draw gives, and into single points.
void every_grid_subset(int width, int height, std::mt19937_64& rng) {
  const int cells = width * height;
  for (std::uint32_t mask = 1; mask < (1u << cells); ++mask) {
    Points<double> pts;
    for (int c = 0; c < cells; ++c) {  // x-major: already sorted
      if (mask & (1u << c)) pts.push_back({static_cast<double>(c / height), static_cast<double>(c % height)});
    }
    const auto n = static_cast<index_t>(pts.size());
    expect_joined_equals_chain(pts, std::vector<index_t>(static_cast<std::size_t>(n), 1),
                               "mask " + std::to_string(mask));
    expect_joined_equals_chain(pts, random_cuts(n, 3, rng), "mask " + std::to_string(mask));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(HoodJoin, EverySubsetOfA4x4Grid) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  every_grid_subset(4, 4, rng);
}

TEST(HoodJoin, EverySubsetOfA2x7Grid) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  every_grid_subset(2, 7, rng);
}

// Duplicates across every seam: runs of one point over several tiles of one or two points.
TEST(HoodJoin, EveryMultisetOfA3x3GridWithDuplicates) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  testing::for_each_3x3_multiset<double>([&](const Points<double>& pts, int code) {
    const auto n = static_cast<index_t>(pts.size());
    expect_joined_equals_chain(pts, std::vector<index_t>(static_cast<std::size_t>(n), 1),
                               "multiset " + std::to_string(code));
    expect_joined_equals_chain(pts, random_cuts(n, 2, rng), "multiset " + std::to_string(code));
    return !::testing::Test::HasFatalFailure();
  });
}

template <class T>
void every_family(const std::vector<std::size_t>& sizes, index_t most_per_tile) {
  testing::every_family_in_tiles<T>(sizes, most_per_tile,
                                    [](const auto& pts, const auto& cuts, const std::string& what) {
                                      expect_joined_equals_chain(pts, cuts, what);
                                    });
}

TEST(HoodJoin, EveryFamilySmallTilesFloat) {
  every_family<float>({1, 2, 3, 5, 17, 64, 200, 1000}, 40);
}

TEST(HoodJoin, EveryFamilySmallTilesDouble) {
  every_family<double>({1, 2, 3, 5, 17, 64, 200, 1000}, 40);
}

TEST(HoodJoin, EveryFamilyLargeTilesInt64) {
  every_family<std::int64_t>({5000, 20000}, 3000);
}

TEST(HoodJoin, EveryFamilyLargeTilesDouble) {
  every_family<double>({5000, 20000}, 3000);
}

TEST(HoodJoin, EveryFamilySmallTilesInt32) {
  every_family<std::int32_t>({1, 2, 3, 5, 17, 64, 200, 1000}, 40);
}

// A hood's one vertex under the bridge of its neighbours by the last ulp, or on it: three tiles,
// the middle one's top point nudged about the line through the outer ones.
TEST(HoodJoin, OneVertexAtTheBridgeOfItsNeighbours) {
  for (int nudge = -2; nudge <= 2; ++nudge) {
    const double y = 0.3 * 1.7 + 0.7 * 0.9;  // on the segment (0, 0.9)..(1, 1.7) at x = 0.3... rounded
    double top = y;
    for (int k = nudge; k != 0; k += (k > 0 ? -1 : 1)) top = std::nextafter(top, k > 0 ? 2.0 : 0.0);
    const Points<double> pts{{0, 0.9}, {0.25, 0.1}, {0.3, top}, {0.35, 0.1}, {1, 1.7}};
    expect_joined_equals_chain(pts, {2, 1, 2}, "nudge " + std::to_string(nudge));
    expect_joined_equals_chain(pts, {1, 1, 1, 1, 1}, "nudge " + std::to_string(nudge));
    expect_joined_equals_chain(pts, {1, 3, 1}, "nudge " + std::to_string(nudge));
  }
}

}  // namespace
}  // namespace wagener
