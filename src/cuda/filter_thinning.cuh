// The guide filter's thinning (upper_hull.cu's guide_filter_kernel): what it also drops of the points
// its guide keeps, a warp's items at a time, by the rule of core/neighbour_thinning.hpp. Apart from
// the kernel so that the tests run this device code on the CPU (test_filter_thinning_emulated).
#pragma once

#include "core/neighbour_thinning.hpp"
#include "cuda/policy.cuh"
#include "wagener/config.hpp"
#include "wagener/point.hpp"

namespace wagener::cuda {

/// The guide filter's thinning (FilterThinning): of the warp's items that `keep` marks (bit j: item
/// j, index first + 32 j, warp-striped: row j of the warp's points is its items j, lane by lane),
/// bit j set where core::thinned_by_neighbours leaves the item out. The point before each comes by a
/// rotation of the items, as the sorted check takes it: lane l's item j follows lane l - 1's, lane
/// 0's follows lane 31's item j - 1. In line: the next point unlike each is the next one that repeats
/// nothing, found in its own row or the next by those rows' ballots, and read by a shuffle from its
/// lane. The warp's first point has no predecessor here, and a point whose next unlike one lies past
/// the next row, or past n, has no successor: both are kept. Two passes, the repeats first, so that
/// the second holds no row's state but its own (the float filter has 40 registers). Called by the
/// whole warp. Coordinates apart: a point chosen by `?:` goes to the stack.
template <FilterThinning kThinning, int kItems>
__device__ inline unsigned thinned_items(const Point2<float> (&item)[kItems], unsigned keep, index_t first,
                                         index_t n, int lane) {
  constexpr int kWarp = 32;
  constexpr unsigned kAll = 0xffffffffu;
  const int below = (lane + kWarp - 1) % kWarp;
  const auto has_before = [&](int j) { return first + index_t{j} * kWarp < n && (lane > 0 || j > 0); };
  unsigned repeats = 0;          // bit j: item j equals the point before it
  float last_x = 0, last_y = 0;  // lane 31's item j - 1, rotated to lane 0
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const float down_x = __shfl_sync(kAll, item[j].x, below), down_y = __shfl_sync(kAll, item[j].y, below);
    const Point2<float> a{lane == 0 ? last_x : down_x, lane == 0 ? last_y : down_y};
    if (has_before(j) && same_point(a, item[j])) repeats |= 1u << j;
    last_x = down_x, last_y = down_y;
  }
  if constexpr (kThinning == FilterThinning::repeats) {
    return repeats;
  } else {
    unsigned thinned = repeats;
    const unsigned candidates = keep & ~repeats;
    const index_t warp_first = first - lane;
    last_x = 0, last_y = 0;
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const float down_x = __shfl_sync(kAll, item[j].x, below), down_y = __shfl_sync(kAll, item[j].y, below);
      const float a_x = lane == 0 ? last_x : down_x, a_y = lane == 0 ? last_y : down_y;
      last_x = down_x, last_y = down_y;
      if (!__any_sync(kAll, (candidates >> j) & 1u)) continue;
      // The next point that repeats nothing: in this row above this lane, else in the next row.
      const unsigned firsts = __ballot_sync(kAll, !((repeats >> j) & 1u));
      const unsigned next_firsts = j + 1 < kItems ? __ballot_sync(kAll, !((repeats >> (j + 1)) & 1u)) : 0u;
      const unsigned here = lane + 1 < kWarp ? firsts & (kAll << (lane + 1)) : 0u;
      const int source = __ffs(here != 0 ? here : next_firsts) - 1;  // -1: none
      const int row = here != 0 ? j : j + 1;
      const int from = source < 0 ? 0 : source;
      float c_x = __shfl_sync(kAll, item[j].x, from), c_y = __shfl_sync(kAll, item[j].y, from);
      if (j + 1 < kItems) {
        const float up_x = __shfl_sync(kAll, item[j + 1].x, from),
                    up_y = __shfl_sync(kAll, item[j + 1].y, from);
        c_x = row == j ? c_x : up_x, c_y = row == j ? c_y : up_y;
      }
      const bool has_after = source >= 0 && warp_first + index_t{row} * kWarp + source < n;
      if (((candidates >> j) & 1u) &&
          core::thinned_by_neighbours<true>(has_before(j), Point2<float>{a_x, a_y}, item[j], has_after,
                                            Point2<float>{c_x, c_y}))
        thinned |= 1u << j;
    }
    return thinned;
  }
}

}  // namespace wagener::cuda
