// Rows of tile hoods for the join's tests (test_hood_join, test_join_emulated): sorted points cut
// into tiles of given sizes (empty ones included), each tile's hood by the serial chain, a stride
// apart, as the GPU's tile level leaves them.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "core/hood_join.hpp"
#include "cpu/monotone_chain.hpp"
#include "generators.hpp"
#include "integer_reference.hpp"

namespace wagener::testing {

/// Tile sizes of 0 to `most` points that add up to n, and sometimes an empty last tile.
inline std::vector<index_t> random_cuts(index_t n, index_t most, std::mt19937_64& rng) {
  std::uniform_int_distribution<index_t> size(0, most);
  std::vector<index_t> cuts;
  for (index_t left = n; left > 0;) {
    const index_t c = std::min(left, size(rng));
    cuts.push_back(c);
    left -= c;
  }
  if (cuts.empty()) cuts.push_back(0);
  if (size(rng) % 2 == 0) cuts.push_back(0);  // an empty last tile
  return cuts;
}

template <class T>
struct TileHoods {
  std::vector<Point2<T>> points;
  std::vector<index_t> size;
  index_t stride = 1;

  TileHoods(const std::vector<Point2<T>>& sorted, const std::vector<index_t>& cuts)
      : size(cuts.size()), stride(std::max<index_t>(1, *std::max_element(cuts.begin(), cuts.end()))) {
    points.resize(cuts.size() * static_cast<std::size_t>(stride));
    index_t start = 0;
    for (std::size_t t = 0; t < cuts.size(); ++t) {
      const auto tile = std::span<const Point2<T>>(sorted).subspan(static_cast<std::size_t>(start),
                                                                   static_cast<std::size_t>(cuts[t]));
      const auto hood = cpu::upper_chain<T>(tile);
      std::copy(hood.begin(), hood.end(), points.begin() + static_cast<std::ptrdiff_t>(t) * stride);
      size[t] = static_cast<index_t>(hood.size());
      start += cuts[t];
    }
  }

  core::HoodRow<T> row() const {
    return {points.data(), stride, size.data(), static_cast<index_t>(size.size())};
  }
};

/// Every family's points at each of `sizes`, sorted and cut into random tiles of up to `most` points:
/// check(points, cuts, what) for each, under a fresh seed; stops at the first fatal failure.
template <class T, class Check>
void every_family_in_tiles(const std::vector<std::size_t>& sizes, index_t most, Check&& check) {
  const auto seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : families_of<T>()) {
    for (std::size_t n : sizes) {
      const auto pts = sorted_copy(family.make(n, rng));
      check(pts, random_cuts(static_cast<index_t>(n), most, rng), family.name + " n=" + std::to_string(n));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

}  // namespace wagener::testing
