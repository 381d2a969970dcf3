// Kernels of the upper hull and the host loop over Wagener's device-wide rounds.
#include <algorithm>
#include <atomic>
#include <climits>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/chains.hpp"
#include "core/float_orientation.hpp"
#include "core/hood_join.hpp"
#include "core/merge_step.hpp"
#include "cuda/block_upper_hull.cuh"
#include "cuda/check.cuh"
#include "cuda/copy_runs.cuh"
#include "cuda/direction_guide.cuh"
#include "cuda/filter_thinning.cuh"
#include "cuda/gather_runs.cuh"
#include "cuda/launch.cuh"
#include "cuda/policy.cuh"
#include "cuda/upper_hull.cuh"
#include "cuda/warp_hood_join.cuh"
#include "wagener/error.hpp"

namespace wagener::cuda {
namespace {

/// Buffer i's hoods as the input of a level (one instantiation of the levels for pointers).
template <class T>
const Point2<T>* hood_points(UpperHullWorkspace<T>& ws, int i) {
  return ws.hood[i].data();
}

// ---- tile level --------------------------------------------------------------------------------

/// One point of a sorted input's check: p, index g, against the point (qx, qy) before it; the
/// smallest index of a non-finite point to bad_value, of one smaller than its predecessor to
/// bad_order. The predecessor's coordinates come apart: the guide filter's check takes them from
/// the lane below by shuffles, and a point chosen by `?:` goes to the stack.
template <class T>
__device__ inline void note_out_of_order(const Point2<T>& p, T qx, T qy, index_t g, index_t& bad_value,
                                         index_t& bad_order) {
  if (!is_finite(p)) bad_value = min(bad_value, g);
  if (g > 0 && lex_less(p, Point2<T>{qx, qy})) bad_order = min(bad_order, g);
}

/// A check's smallest bad indices (n: none) to first_bad[0] (non-finite) and first_bad[1] (out of
/// order).
__device__ inline void publish_first_bad(index_t bad_value, index_t bad_order, index_t n,
                                         unsigned long long* first_bad) {
  if (bad_value < n) atomicMin(&first_bad[0], static_cast<unsigned long long>(bad_value));
  if (bad_order < n) atomicMin(&first_bad[1], static_cast<unsigned long long>(bad_order));
}

/// tile_hoods_kernel's check of its tile's points (n in all), point(i) the tile's point i in shared
/// memory (BlockUpperHull::run's on_load): the smallest index of a non-finite one to first_bad[0],
/// of one smaller than the point before it to first_bad[1]. Only the point before the tile comes
/// from global memory, where a pass of its own read the whole tile a second time: the validated
/// double parabola 3.53 -> 3.21 ms at 2^28 on an H100, no change on an H200; four points a thread
/// in flight and a shuffle for the predecessor, as that pass did, lost on the H100 (3.49 ms).
/// bench/NOTES.md, "The presorted check by a vote". Not inlined: in the kernel the first form of
/// the check made one instantiation spill registers.
template <class T, int kThreads, class Loaded, class Points>
__device__ __noinline__ void check_loaded_tile(const Loaded& point, Points points, index_t start, int count,
                                               index_t n, unsigned long long* first_bad) {
  index_t bad_value = n, bad_order = n;
  for (int i = static_cast<int>(threadIdx.x); i < count; i += kThreads) {
    Point2<T> before{};
    if (i > 0) {
      before = point(i - 1);
    } else if (start > 0) {
      before = points[start - 1];
    }
    note_out_of_order(point(i), before.x, before.y, start + i, bad_value, bad_order);
  }
  publish_first_bad(bad_value, bad_order, n, first_bad);
}

/// One block per tile: validate (kValidate), chain the strips, merge them; write the tile's hood at
/// the tile's offset of `hood` and its size at size[tile]. Shared memory is dynamic (over 48 KB).
/// kCountOnDevice: the points number *device_n (at most n, the bound the grid was sized by), and a
/// block past them writes size 0 and returns: a level enqueued before the host knows its count.
/// Both are template parameters, so that the other levels' kernel is as it was (with the check a
/// flag, the unvalidated double parabola took 3.09 -> 3.21 ms at 2^28 on an H100: bench/NOTES.md, "The
/// presorted check by a vote"). peel: a hull's first level (BlockUpperHull::run).
template <class T, class Policy, bool kCountOnDevice, bool kValidate, class Points>
__global__ void __launch_bounds__(Policy::kThreads, Policy::kTileBlocksPerSm)
    tile_hoods_kernel(Points points, index_t n, const index_t* device_n, Point2<T>* hood, index_t* size,
                      unsigned long long* first_bad, bool peel) {
  using Block = BlockUpperHull<T, Policy>;
  extern __shared__ unsigned char shared_bytes[];
  auto& storage = *reinterpret_cast<typename Block::TempStorage*>(shared_bytes);
  const index_t start = static_cast<index_t>(blockIdx.x) * Policy::kTile;
  if constexpr (kCountOnDevice) {
    n = *device_n;
    if (start >= n) {
      if (threadIdx.x == 0) size[blockIdx.x] = 0;
      return;
    }
  }
  const index_t remaining = n - start;
  const int count = remaining < Policy::kTile ? static_cast<int>(remaining) : Policy::kTile;
  Block block(storage);
  index_t h = 0;
  if constexpr (kValidate) {
    h = block.run(points + start, count, peel, [=](const auto& point, int loaded) {
      check_loaded_tile<T, Policy::kThreads>(point, points, start, loaded, n, first_bad);
    });
  } else {
    h = block.run(points + start, count, peel);
  }
  block.store(hood + start, h);
  if (threadIdx.x == 0) size[blockIdx.x] = h;
}

/// Compaction between levels: tile t's hood (at t * tile) goes to dense[offset[t] ...]
/// (for_each_run_point). With `only_if`, nothing unless *only_if is nonzero (a compaction enqueued
/// before its decision).
template <class T>
__global__ void gather_kernel(const Point2<T>* hood, const index_t* size, const index_t* offset,
                              index_t tiles, index_t tile, int lanes_log2, Point2<T>* dense,
                              const index_t* only_if) {
  if (only_if && *only_if == 0) return;
  for_each_run_point<T>(
      tiles, lanes_log2, [=](index_t t) { return hood + t * tile; }, size, offset,
      [=](index_t j, const Point2<T>& p) { dense[j] = p; });
}

/// The guide filter's survivors packed in order: tile t's size[t] points at hood + t * tile go to
/// dense[offset[t] ...], a block's GatherPolicy::kPlaces output places at a time (gather_runs_block),
/// over a grid-stride loop: the count is read here, so that a grid sized for a bound (the enqueued
/// levels) does as much as one sized for the count.
template <class T>
__global__ void __launch_bounds__(GatherPolicy::kThreads)
    gather_runs_kernel(const Point2<T>* hood, const index_t* size, const index_t* offset, index_t tiles,
                       index_t tile, Point2<T>* dense) {
  using Policy = GatherPolicy;
  __shared__ GatherRunsShared<Policy::kThreads> shared;
  const index_t total = offset[tiles - 1] + size[tiles - 1];
  for (index_t begin = static_cast<index_t>(blockIdx.x) * Policy::kPlaces; begin < total;
       begin += static_cast<index_t>(gridDim.x) * Policy::kPlaces) {
    gather_runs_block<Policy::kThreads, Policy::kItems>(
        hood, tile, offset, tiles, begin, begin + Policy::kPlaces < total ? begin + Policy::kPlaces : total,
        dense, shared);
  }
}

/// A level's tail after the scan of its tile hoods' sizes (hood t at t * tile, size[t] vertices,
/// offset[t] their exclusive scan), in one word pair of pinned host memory that the host reads after
/// its wait: tail[0] = the hoods' total, and tail[1] = epoch where some seam does not turn strictly
/// right (core::tile_seam_turns_right). Nothing else writes tail[1], so a call's own epoch (one per
/// level, counting up) marks its failure without a reset before it.
template <class T>
__global__ void level_tail_kernel(const Point2<T>* hood, const index_t* size, const index_t* offset,
                                  index_t tiles, index_t tile, index_t epoch, index_t* tail) {
  const index_t first = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (first == 0) tail[0] = offset[tiles - 1] + size[tiles - 1];
  bool turns_left = false;  // a seam of this thread's does not turn strictly right
  for (index_t s = first; s + 1 < tiles; s += static_cast<index_t>(gridDim.x) * blockDim.x) {
    turns_left = turns_left || !core::tile_seam_turns_right(hood, size, tile, tiles, s);
  }
  // One write a block at most: tail is host memory, and each write crosses the bus.
  if (__syncthreads_or(turns_left) && threadIdx.x == 0) tail[1] = epoch;
}

// ---- guide filter -----------------------------------------------------------------------------

/// sample[k] = points[k (n - 1) / (m - 1)]: m evenly spaced points, the first and the last included,
/// at the places the direction guide reads them from the input (direction_guide::sample_place).
template <class T>
__global__ void sample_kernel(const Point2<T>* points, index_t n, index_t m, Point2<T>* sample) {
  for (index_t k = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < m;
       k += static_cast<index_t>(gridDim.x) * blockDim.x) {
    sample[k] = points[direction_guide::sample_place(k, n, m)];
  }
}

/// Where the filter's walk along the guide starts: tile_start[t] is the last guide vertex at or before
/// tile t's first point (lexicographically; 0 if none), by binary search over the guide, a thread a
/// tile. The input is sorted (the filter's precondition, which its validation checks), so every point
/// of the tile is at or after it, and the walk only moves right from there.
template <class T>
__global__ void guide_tile_starts_kernel(const Point2<T>* points, index_t tiles, index_t tile_points,
                                         const Point2<T>* guide, index_t k, int* tile_start) {
  const index_t t = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= tiles) return;
  const Point2<T> p = points[t * tile_points];
  index_t lo = 0, hi = k;  // guide[lo] <= p, or lo == 0; guide[hi] > p, or hi == k
  while (hi - lo > 1) {
    const index_t mid = lo + (hi - lo) / 2;
    if (lex_less(p, guide[mid])) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  tile_start[t] = static_cast<int>(lo);
}

/// Is p certainly strictly right of the directed line a->b (orient2d < 0)? false when not certain.
/// Floats: orient2d's first stage in single precision (core/float_orientation.hpp). Doubles: the
/// first stage of orient2d.
__device__ inline bool certainly_right(const Point2<float>& a, const Point2<float>& b,
                                       const Point2<float>& p) {
  return core::certainly_right_in_float(a, b, p);
}

__device__ inline bool certainly_right(const Point2<double>& a, const Point2<double>& b,
                                       const Point2<double>& p) {
  return orient2d_certified(a.x, a.y, b.x, b.y, p.x, p.y) < 0;
}

/// Integers: orient2d's filter for T (32-bit integers as doubles, 64-bit by their differences).
template <class T>
__device__ inline bool certainly_right(const Point2<T>& a, const Point2<T>& b, const Point2<T>& p) {
  return orient2d_certified(a, b, p) < 0;
}

/// certainly_right as an object, for the direction guide's check (direction_guide.cuh).
struct CertainlyRight {
  template <class T>
  __device__ bool operator()(const Point2<T>& a, const Point2<T>& b, const Point2<T>& p) const {
    return certainly_right(a, b, p);
  }
};

/// One block per tile: keeps the points of the tile that are not strictly below the guide (the upper
/// hull of a sample of the input, so its vertices are input points) and writes them, in order, at the
/// tile's offset of `kept`, their number at kept_size[tile]. A point p with g[e] <= p < g[e+1]
/// (lexicographically) strictly below the line g[e] g[e+1] is not a vertex of the upper hull: it lies
/// under the segment, or (same x as g[e+1]) straight below g[e+1]; never at the left end, since g[0]
/// is the smallest point. Only a floating-point filter is asked (certainly_right): a point it cannot
/// certify below is kept, which is always safe. Each warp's items are warp-striped, so a thread's
/// points increase and its guide edge only moves right; ballots keep the order. kValidate: check
/// the promise of sorted, finite input on the way (a template parameter, so that the unvalidated
/// kernel is as it was: with a flag, the unvalidated double disk took 1.68 -> 1.76 ms at 2^28 on an H100,
/// bench/NOTES.md, "The presorted check by a vote"). kThinning (float only): a kept point that
/// core::thinned_by_neighbours leaves out, from its input neighbours within the warp, is dropped too.
template <class T, bool kValidate, FilterThinning kThinning = FilterThinning::none>
__global__ void __launch_bounds__(UpperHullPolicy<T>::kFilterThreads, UpperHullPolicy<T>::kFilterBlocksPerSm)
    guide_filter_kernel(const Point2<T>* __restrict__ points, index_t n, const Point2<T>* __restrict__ guide,
                        index_t k, const int* __restrict__ tile_start, Point2<T>* __restrict__ kept,
                        index_t* kept_size, unsigned long long* first_bad) {
  using Policy = UpperHullPolicy<T>;
  constexpr int kWarp = 32, kItems = Policy::kFilterItems, kWarps = Policy::kFilterThreads / kWarp;
  static_assert(kItems <= 32, "one bit per item");
  __shared__ int warp_kept[kWarps];
  const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
  const index_t start = static_cast<index_t>(blockIdx.x) * Policy::kTile;
  const index_t warp_first = start + index_t{warp} * kWarp * kItems;
  const index_t first = warp_first + lane;  // item j is first + 32 j
  // The tile's guide edge is read first, beside the points: it arrives before them, so the walk
  // waits on no read of its own (reading the warp's first point again, a bucket table at its x and
  // the guide there, one after another, left each block idle for three round trips once its points
  // had come: bench/NOTES.md, "The guide filter's walk started from its tile's edge").
  index_t e = tile_start[blockIdx.x];
  Point2<T> a = guide[e], b = e + 1 < k ? guide[e + 1] : a;
  Point2<T> item[kItems];
  // kValidate: lane 0 also reads the point before the warp's first, its first item's predecessor.
  Point2<T> predecessor{};
  if (kValidate && lane == 0 && warp_first > 0 && warp_first < n) predecessor = points[warp_first - 1];
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    if (first + j * kWarp < n) item[j] = points[first + j * kWarp];
  }
  constexpr bool kVote = std::is_same_v<T, float>;
  if constexpr (kValidate) {
    // Each item against the point before it: lane l's item j follows lane l - 1's, lane 0's the
    // previous item's lane 31 (a rotation of the warp's items gives both), lane 0's first the point
    // read above. Shuffles, where a read of points[g - 1] an item took the float disk's validated
    // pass 0.40 ms longer than its unvalidated one at 2^28 and kept it off the branch-free form below
    // (bench/NOTES.md, "The sorted upper hull by the full hull's pipeline"). Coordinates apart: a
    // point chosen by `?:` goes to the stack.
    //
    // Float: a vote first, whether any item of the warp is smaller than the point before it, one
    // compare an item with no index of its own; only a warp that finds one, or the input's first and
    // last warps (a first point with no predecessor, items past n), runs the exact check that names
    // the first. Non-finite points need no test here: the guide test never certifies one below an
    // edge (a NaN or an infinity makes its determinant or its bound non-finite), so every one is
    // kept, and the store below names the first. Measured on an H200 at 2^28 (bench/NOTES.md, "The
    // presorted check by a vote"): the float disk's validated call 1.17 -> 0.96 ms; the double
    // disk's, whose pass memory bounds, 1.61 -> 1.68, so other types check every warp exactly.
    const int below = (lane + kWarp - 1) % kWarp;
    const auto for_each_with_predecessor = [&](auto&& visit) {
      T before_x = predecessor.x, before_y = predecessor.y;
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        const T rotated_x = __shfl_sync(0xffffffffu, item[j].x, below);
        const T rotated_y = __shfl_sync(0xffffffffu, item[j].y, below);
        visit(j, lane == 0 ? before_x : rotated_x, lane == 0 ? before_y : rotated_y);
        before_x = rotated_x, before_y = rotated_y;
      }
    };
    bool exact = true;
    if constexpr (kVote) {
      bool out_of_order = false;
      for_each_with_predecessor([&](int j, T qx, T qy) {
        out_of_order |= lex_less(item[j], Point2<T>{qx, qy});
      });
      const bool edge_warp = warp_first == 0 || warp_first + kWarp * kItems > n;
      exact = __any_sync(0xffffffffu, out_of_order) || edge_warp;
    }
    if (exact) {
      index_t bad_value = n, bad_order = n;
      for_each_with_predecessor([&](int j, T qx, T qy) {
        const index_t g = first + j * kWarp;
        if (g < n) note_out_of_order(item[j], qx, qy, g, bad_value, bad_order);
      });
      publish_first_bad(bad_value, bad_order, n, first_bad);
    }
  }
  // Float: the warp walks once, to its first point's edge, and a warp whose points all lie on that
  // edge's stretch skips the walk and the bounds checks; a warp that keeps nothing skips the ballots
  // and stores. Measured on an H200 (bench/NOTES.md): the float disk's pass 0.04-0.07 ms faster, the
  // double disk's 0.10 ms slower (the two extra reads a warp), so doubles walk as each item needs.
  constexpr bool kWalkOnce = std::is_same_v<T, float>;
  unsigned keep = 0;  // bit j: item j survives
  if (warp_first < n) {
    // The warp starts at its tile's edge; each lane walks on.
    // On to the guide edge (a, b) whose stretch holds p: the edges only move right.
    const auto walk_to = [&](const Point2<T>& p) {
      while (e + 1 < k && !lex_less(p, b)) {
        a = b;
        ++e;
        if (e + 1 < k) b = guide[e + 1];
      }
    };
    bool one_edge = false;  // every point of the warp on edge e's stretch: the walk would not move
    if constexpr (kWalkOnce) {
      // The warp's first and last points are lane 0's first item and lane 31's last.
      const Point2<T> front{__shfl_sync(0xffffffffu, item[0].x, 0), __shfl_sync(0xffffffffu, item[0].y, 0)};
      const Point2<T> back{__shfl_sync(0xffffffffu, item[kItems - 1].x, kWarp - 1),
                           __shfl_sync(0xffffffffu, item[kItems - 1].y, kWarp - 1)};
      walk_to(front);
      one_edge = warp_first + kWarp * kItems <= n && e + 1 < k && lex_less(back, b);
    }
    if (one_edge) {
      // The common case of a sorted input's dense stretch: one test an item, no branch (bench/NOTES.md,
      // "The presorted float filter's warps on one edge without branches").
#pragma unroll
      for (int j = 0; j < kItems; ++j) keep |= certainly_right(a, b, item[j]) ? 0u : 1u << j;
    } else {
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
        if (first + j * kWarp < n) {
          walk_to(item[j]);  // uniform across the warp
          const bool below = e + 1 < k && certainly_right(a, b, item[j]);
          if (!below) keep |= 1u << j;
        }
      }
    }
  }
  if constexpr (kThinning != FilterThinning::none) {
    static_assert(std::is_same_v<T, float>, "core::thinned_by_neighbours decides in float");
    if (__any_sync(0xffffffffu, keep != 0))
      keep &= ~thinned_items<kThinning, kItems>(item, keep, first, n, lane);
  }
  const bool warp_keeps = !kWalkOnce || __any_sync(0xffffffffu, keep != 0);
  int before = 0;  // kept items of this warp before item j
  unsigned mask[kItems];
  if (warp_keeps) {
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      mask[j] = __ballot_sync(0xffffffffu, (keep >> j) & 1u);
      before += __popc(mask[j]);
    }
  }
  if (lane == 0) warp_kept[warp] = before;
  __syncthreads();
  int offset = 0, total = 0;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    offset += w < warp ? warp_kept[w] : 0;
    total += warp_kept[w];
  }
  if (threadIdx.x == 0) kept_size[blockIdx.x] = total;
  if (!warp_keeps) return;
  const unsigned lower_lanes = (1u << lane) - 1u;
  index_t not_finite = n;  // the smallest index of a kept non-finite item (the vote)
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    if ((keep >> j) & 1u) {
      kept[start + offset + __popc(mask[j] & lower_lanes)] = item[j];
      if (kValidate && kVote && !is_finite(item[j])) not_finite = min(not_finite, first + j * kWarp);
    }
    offset += __popc(mask[j]);
  }
  if (kValidate && kVote) publish_first_bad(not_finite, n, n, first_bad);
}

/// After the scan of the guide filter's kept sizes (size[t] of tile t, offset[t] their exclusive
/// scan): the survivors' count to steps->survivors, and to steps->count where it is at most `bound`
/// (the enqueued levels' grid), else 0, so that those levels do nothing and the host's go on.
__global__ void survivors_count_kernel(const index_t* size, const index_t* offset, index_t tiles,
                                       index_t bound, EnqueuedSteps* steps) {
  const index_t survivors = offset[tiles - 1] + size[tiles - 1];
  steps->survivors = survivors;
  steps->count = survivors <= bound ? survivors : 0;
}

// ---- the last level as one join (core/hood_join.hpp) -------------------------------------------
// A level of k <= UpperHullPolicy::kJoinMostHoods tile hoods (ws.hood[0], a tile apart) finished in
// three short launches: every pair's bridge, a warp a pair; every hood's span of the hull, a warp a
// hood; then a block a hood places the spans side by side. It replaces the compaction and the further
// tile levels, each a lone block's chain of rounds (bench/NOTES.md, "The last levels as one join").

/// Whether the row's hoods hold more than `most` points in all (most < 0: no limit); the same in
/// every lane of a warp, all of which call it (every warp sums the sizes: a guide's few tiles).
template <class T>
__device__ bool row_holds_more(const core::HoodRow<T>& row, index_t most) {
  constexpr int kLanes = 32;
  if (most < 0) return false;
  index_t points = 0;
  for (index_t j = static_cast<int>(threadIdx.x) % kLanes; j < row.count; j += kLanes) points += row.size[j];
  for (int delta = kLanes / 2; delta > 0; delta /= 2) points += __shfl_down_sync(0xffffffffu, points, delta);
  return __shfl_sync(0xffffffffu, points, 0) > most;
}

/// Every pair j < i of the row's nonempty hoods: its bridge to bridges[core::pair_slot(j, i)], a warp a
/// pair over a grid-stride loop (pairs in the order of i, so a row whose last hoods are empty, tiles
/// past an enqueued count, has its real pairs first). Nothing where the hoods hold more than
/// hood_points_most points in all (a dense guide's sample, which the host gives up on).
template <class T>
__global__ void pair_bridges_kernel(core::HoodRow<T> row, index_t hood_points_most,
                                    core::PairBridge* bridges) {
  constexpr int kLanes = 32;
  if (row_holds_more(row, hood_points_most)) return;
  const index_t pairs = row.count * (row.count - 1) / 2;
  const index_t warps = static_cast<index_t>(gridDim.x) * (blockDim.x / kLanes);
  for (index_t w = (static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kLanes; w < pairs;
       w += warps) {
    // Pair w is (j, i) with w = i (i - 1) / 2 + j: i from the root, corrected for its rounding.
    auto i = static_cast<index_t>((1.0 + sqrt(1.0 + 8.0 * static_cast<double>(w))) / 2.0);
    while (i * (i - 1) / 2 > w) --i;
    while ((i + 1) * i / 2 <= w) ++i;
    const index_t j = w - i * (i - 1) / 2;
    const index_t m = row.size[j], n = row.size[i];
    if (m == 0 || n == 0) continue;
    const core::PairBridge bridge = warp_pair_bridge(row.hood(j), m, row.hood(i), n);
    if (threadIdx.x % kLanes == 0) bridges[core::pair_slot(j, i, row.count)] = bridge;
  }
}

/// Each hood's span of the row's hull (core::joined_span) to spans[i], a warp a hood
/// (warp_hood_span). Nothing where the hoods hold more than hood_points_most points in all.
template <class T>
__global__ void hood_spans_kernel(core::HoodRow<T> row, const core::PairBridge* bridges,
                                  index_t hood_points_most, core::HoodSpan* spans) {
  constexpr int kLanes = 32;
  const int lane = static_cast<int>(threadIdx.x) % kLanes;
  const index_t i = (static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kLanes;
  if (i >= row.count || row_holds_more(row, hood_points_most)) return;
  const index_t h = row.size[i];
  if (h == 0) {
    if (lane == 0) spans[i] = {};
    return;
  }
  const core::HoodSpan span = warp_hood_span(row, bridges, i);
  if (lane == 0) spans[i] = span;
}

/// Where join_spans_kernel reports to: the hull's size at *size (-1: not written, the hoods holding
/// more than hood_points_most points (< 0: no limit) or the hull more than `capacity`); or, for
/// upper_hull_enqueued, its words (from the count at *device_n: a first level of one tile finished
/// the hull itself).
struct JoinReport {
  index_t hood_points_most;
  index_t capacity;
  index_t* size;
  const index_t* device_n;
  EnqueuedHullWords* words;
};

/// A block a hood, each of kThreads >= row.count threads, a thread a hood: every block scans the
/// hoods' sizes and their spans' counts (a few hundred words, so that no launch waits for another's
/// scan); block b copies hood b's span to its place in out; block 0 also writes the sizes' offsets
/// to hood_offsets (where the host's levels go on from the hoods) and the report.
template <class T, int kThreads>
__global__ void __launch_bounds__(kThreads)
    join_spans_kernel(core::HoodRow<T> row, const core::HoodSpan* spans, Point2<T>* out,
                      index_t* hood_offsets, JoinReport report) {
  using Scan = cub::BlockScan<index_t, kThreads>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ index_t hood_at;
  const int i = static_cast<int>(threadIdx.x);
  const bool reports = blockIdx.x == 0;
  const index_t h = i < row.count ? row.size[i] : 0;
  index_t hood_offset = 0, hood_points = 0;
  Scan(scan).ExclusiveSum(h, hood_offset, hood_points);
  if (reports && hood_offsets && i < row.count) hood_offsets[i] = hood_offset;
  EnqueuedHullWords words;
  if (report.words) {
    words.n = *report.device_n;
    words.total = hood_points;
    if (words.n <= UpperHullPolicy<T>::kTile) {  // one tile, its hood the hull
      words.finished = 1;
      words.size = words.n == 0 ? 0 : row.size[0];
      if (reports && i == 0) *report.words = words;
      return;
    }
  }
  index_t size = -1;
  if (report.hood_points_most < 0 || hood_points <= report.hood_points_most) {
    const core::HoodSpan span = i < row.count ? spans[i] : core::HoodSpan{};
    __syncthreads();  // the scan's storage, again
    index_t span_at = 0;
    Scan(scan).ExclusiveSum(span.count, span_at, size);
    if (i == static_cast<int>(blockIdx.x)) hood_at = span_at;
    if (size > report.capacity) size = -1;
  }
  if (size >= 0) {
    __syncthreads();
    const core::HoodSpan span = spans[blockIdx.x];
    const Point2<T>* from = row.hood(blockIdx.x) + span.first;
    for (index_t e = i; e < span.count; e += kThreads) out[hood_at + e] = from[e];
  }
  if (!reports || i != 0) return;
  if (report.size) *report.size = size;
  if (report.words) {
    if (size >= 0) {
      words.finished = 2;
      words.second_n = hood_points;
      words.second_size = size;
    }
    *report.words = words;
  }
}

// ---- device-wide rounds ------------------------------------------------------------------------
// Round r merges hood blocks of width w (points) pairwise. A merge's processors are cut into work
// units of Policy::kUnit; units of all merges are spread over a grid-stride loop, so a round costs
// the same launches whatever the hood sizes, and large merges use the whole GPU.

template <class T>
__global__ void plan_kernel(const Point2<T>* hood, const index_t* size, index_t blocks, index_t w,
                            core::MergePlan* plans) {
  const index_t k = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (2 * k >= blocks) return;
  const index_t m = size[2 * k];
  const index_t n = 2 * k + 1 < blocks ? size[2 * k + 1] : 0;
  plans[k] = core::plan_merge(hood + 2 * k * w, m, hood + (2 * k + 1) * w, n);
}

template <class T, class Policy = UpperHullPolicy<T>>
__global__ void __launch_bounds__(Policy::kRoundThreads)
    phase_kernel(int phase, const Point2<T>* hood, index_t merges, index_t w, index_t smax,
                 index_t units_per_merge, const core::MergePlan* plans, index_t* cells) {
  const index_t units = merges * units_per_merge;
  for (index_t u = blockIdx.x; u < units; u += gridDim.x) {
    const index_t k = u / units_per_merge;
    const index_t first = (u % units_per_merge) * Policy::kUnit;
    const core::MergePlan plan = plans[k];
    const index_t vps = plan.s == 0 ? 0 : core::phase_processors(phase, plan.s);
    if (first >= vps) continue;  // uniform across the block
    const Point2<T>* p = hood + 2 * k * w;
    const core::MergeView<T> view(p, plan.m, p + w + plan.dup, plan.n, plan.s);
    const core::BridgeCells c = core::cells_at(cells + k * core::cells_per_merge(smax), smax);
    const index_t last = min(vps, first + Policy::kUnit);
    for (index_t vp = first + threadIdx.x; vp < last; vp += blockDim.x) core::run_phase(phase, view, c, vp);
  }
}

/// mam 6 across the device: the merged hood of merge k goes to out[2 k w ...], its size to out_size[k].
template <class T, class Policy = UpperHullPolicy<T>>
__global__ void __launch_bounds__(Policy::kRoundThreads)
    copy_kernel(const Point2<T>* in, Point2<T>* out, index_t* out_size, index_t merges, index_t w,
                index_t smax, index_t units_per_merge, const core::MergePlan* plans, index_t* cells) {
  const index_t units = merges * units_per_merge;
  for (index_t u = blockIdx.x; u < units; u += gridDim.x) {
    const index_t k = u / units_per_merge;
    const index_t first = (u % units_per_merge) * Policy::kUnit;
    const core::MergePlan plan = plans[k];
    index_t a, b;
    core::bridge_of(plan, core::cells_at(cells + k * core::cells_per_merge(smax), smax), &a, &b);
    if (first == 0 && threadIdx.x == 0) out_size[k] = core::merged_size(plan.n, a, b);
    const index_t total = plan.m + plan.n;
    if (first >= total) continue;
    const Point2<T>* p = in + 2 * k * w;
    const Point2<T>* q = p + w + plan.dup;
    const index_t last = min(total, first + Policy::kUnit);
    for (index_t e = first + threadIdx.x; e < last; e += blockDim.x) {
      const index_t dst = core::mam6_destination(e, plan.m, a, b);
      if (dst >= 0) out[2 * k * w + dst] = e < plan.m ? p[e] : q[e - plan.m];
    }
  }
}

// ---- device-wide rounds with hoods kept in place ------------------------------------------------
// The tile hoods stay where the tile level wrote them (tile t at t * kTile); a tile is a strip of
// core/nested_bridge.hpp. A round finds each merge's bridge and trims the tiles' live ranges (one warp
// a merge): no point moves until the one final compaction, so a round costs O(merges) searches of
// O(depth^2) steps plus the tiles it kills, not O(n).

/// Live ranges after the tile level: tile t's hood, less its first vertex when that vertex is the
/// last point of the tile before (which that tile's hood ends with). Also marks the live tiles for
/// the links' scans: prev[t] = t or -1, and next, reversed, likewise (next[tiles-1-t]).
template <class T, class Points>
__global__ void init_strips_kernel(Points points, const Point2<T>* hood, const index_t* size, index_t tiles,
                                   index_t tile, index_t* lo, index_t* hi, index_t* prev, index_t* next) {
  for (index_t t = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < tiles;
       t += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t h = size[t];
    const index_t first = (t > 0 && h > 0 && same_point(hood[t * tile], points[t * tile - 1])) ? 1 : 0;
    lo[t] = first;
    hi[t] = h;
    const bool live = first < h;
    prev[t] = live ? t : -1;
    next[tiles - 1 - t] = live ? tiles - 1 - t : -1;
  }
}

struct MaxIndex {
  __device__ index_t operator()(index_t a, index_t b) const { return a > b ? a : b; }
};

/// next[] was scanned reversed (the last live tile at or before tiles-1-t, in reversed indices):
/// turn it into the first live tile at or after t (tiles when none), pairwise in place.
__global__ void unreverse_next_kernel(index_t* next, index_t tiles) {
  for (index_t t = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; 2 * t < tiles;
       t += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t a = next[t], b = next[tiles - 1 - t];
    next[t] = b < 0 ? tiles : tiles - 1 - b;
    next[tiles - 1 - t] = a < 0 ? tiles : tiles - 1 - a;
  }
}

/// The lanes that take one merge in in_place_merge_kernel: a warp, kMergeWarpsPerBlock of them a block,
/// with kMaxSamples samples a bracket; or a whole block (kBlockTeam), with kBlockMergeSamples.
template <class T, bool kBlockTeam>
struct MergeTeam {
  using Policy = UpperHullPolicy<T>;
  static constexpr int kG = kBlockTeam ? Policy::kBlockMergeSamples : Policy::kMaxSamples;
  static constexpr int kLanes = kBlockTeam ? kG * kG : 32;
  static constexpr int kTeamsPerBlock = kBlockTeam ? 1 : Policy::kMergeWarpsPerBlock;
  static constexpr int kBlockThreads = kLanes * kTeamsPerBlock;
  static_assert(kG * kG <= kLanes, "one lane per virtual processor");
  static __device__ void sync() {
    if constexpr (kBlockTeam) {
      __syncthreads();
    } else {
      __syncwarp();
    }
  }
};

/// One team (MergeTeam: a warp, or a block) per merge of groups of w tiles: the bridge by nested
/// sampling (core/nested_bridge.hpp), lane = x + g y is virtual processor (x, y); every step reads,
/// then the team syncs, then the unique writer writes. Then the team trims the tiles between the
/// bridge's ends: only the killed tiles and the two ends are touched, so a round costs O(merges) plus
/// the tiles it kills (each tile dies once), not O(tiles). Nothing to do without a partner, when a
/// side has no vertex, or when the hoods meet convexly (core::seam_bridge: two tests instead of the
/// search). A bridge a few vertices from the seam is walked to by one lane (core::walk_bridge); the
/// search runs where the walk has not settled. Every early exit depends only on the merge, so a team
/// takes it together.
template <class T, bool kBlockTeam>
__global__ void __launch_bounds__(MergeTeam<T, kBlockTeam>::kBlockThreads)
    in_place_merge_kernel(const Point2<T>* hood, core::StripRanges ranges, index_t tiles, index_t w,
                          index_t merges) {
  using Team = MergeTeam<T, kBlockTeam>;
  constexpr int kG = Team::kG;
  struct Cells {
    core::Bracket outer;
    core::Bracket tangent[kG];
    index_t bridge[2];
    core::HoodSlot ends[2];  // the bridge's ends as vertices, walked or searched
    bool walked;
  };
  // Raw storage: Bracket's member initialisers would make a __shared__ Cells dynamically initialised.
  __shared__ alignas(Cells) unsigned char shared_bytes[Team::kTeamsPerBlock * sizeof(Cells)];
  const int team = static_cast<int>(threadIdx.x) / Team::kLanes;
  const int lane = static_cast<int>(threadIdx.x) % Team::kLanes;
  Cells& cells = reinterpret_cast<Cells*>(shared_bytes)[team];
  const index_t teams = static_cast<index_t>(gridDim.x) * Team::kTeamsPerBlock;
  for (index_t k = static_cast<index_t>(blockIdx.x) * Team::kTeamsPerBlock + team; k < merges; k += teams) {
    // Plan (every lane alike): each side's first and last live tile.
    const index_t p0 = 2 * k * w, q0 = min(tiles, p0 + w), q1 = min(tiles, q0 + w);
    const bool pair = q0 < q1;
    const index_t pf = pair ? ranges.next_live[p0] : 0, qf = pair ? ranges.next_live[q0] : 0;
    if (!pair || pf >= q0 || qf >= q1) continue;  // uniform across the team
    const core::InPlaceHood<T> p{hood, ranges, pf, ranges.prev_live[q0 - 1]};
    const core::InPlaceHood<T> q{hood, ranges, qf, ranges.prev_live[q1 - 1]};
    // Hoods that meet convexly keep every vertex: no search, and no strip changes (the dead strips
    // between the two ends already link to them).
    core::HoodSlot seam_a, seam_b;
    if (core::seam_bridge(p, q, &seam_a, &seam_b)) continue;  // uniform across the team
    if (lane == 0) cells.walked = core::walk_bridge(p, q, core::kWalkSteps, &cells.ends[0], &cells.ends[1]);
    Team::sync();
    if (!cells.walked) {  // uniform across the team: the search (nested sampling)
      const index_t up = p.positions(), uq = q.positions(), most = up > uq ? up : uq;
      int depth = 1;
      for (index_t reach = kG; reach < most; reach *= kG) ++depth;
      core::NestedMerge<T> mg;
      mg.p = p;
      mg.q = q;
      mg.depth = depth;
      mg.g = core::samples_for_depth(most, depth);
      const index_t x = lane % mg.g, y = lane / mg.g;
      const bool processor = lane < mg.g * mg.g;
      if (lane == 0) cells.outer = mg.whole_p();
      Team::sync();
      const core::NestedCells c{&cells.outer, cells.tangent, cells.bridge};
      for (int level = 0; level < depth; ++level) {
        for (int inner = 0; inner < depth; ++inner) {
          core::Bracket value;
          const bool writes = processor && core::nested_tangent_step(mg, c, inner, x, y, &value);
          Team::sync();
          if (writes) cells.tangent[x] = value;
          Team::sync();
        }
        core::Bracket value;
        index_t a = 0, b = 0;
        const bool writes = processor && y == 0 && core::nested_outer_step(mg, c, x, &value, &a, &b);
        Team::sync();
        if (writes) cells.outer = value, cells.bridge[0] = a, cells.bridge[1] = b;
        Team::sync();
      }
      if (lane == 0) cells.ends[0] = p.rep(cells.bridge[0]), cells.ends[1] = q.rep(cells.bridge[1]);
      Team::sync();
    }
    // Trim: the tiles from the bridge's left end to its right end, a lane each (strip_after_merge
    // reads and writes only its own tile's cells; every lane has read the ranges before any writes).
    const core::HoodSlot a = cells.ends[0], b = cells.ends[1];
    Team::sync();
    for (index_t t = a.strip + lane; t <= b.strip; t += Team::kLanes) {
      const core::StripUpdate u = core::strip_after_merge(ranges, t, a, b);
      ranges.lo[t] = u.lo;
      ranges.hi[t] = u.hi;
      ranges.prev_live[t] = u.prev_live;
      ranges.next_live[t] = u.next_live;
    }
    Team::sync();  // the cells are reused by the team's next merge
  }
}

/// size[0] = value, on the stream (the hood's size where no compaction wrote it).
__global__ void store_size_kernel(index_t* size, index_t value) {
  *size = value;
}

/// The live sizes, for the final compaction's scan.
__global__ void live_sizes_kernel(core::StripRanges ranges, index_t tiles, index_t* size) {
  for (index_t t = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < tiles;
       t += static_cast<index_t>(gridDim.x) * blockDim.x) {
    size[t] = ranges.hi[t] - ranges.lo[t];
  }
}

/// The final compaction: tile t's live run to dense[offset[t] ...] (for_each_run_point); the hood's
/// size to dense_size[0].
template <class T>
__global__ void gather_live_kernel(const Point2<T>* hood, core::StripRanges ranges, const index_t* size,
                                   const index_t* offset, index_t tiles, int lanes_log2, Point2<T>* dense,
                                   index_t* dense_size) {
  if (blockIdx.x == 0 && threadIdx.x == 0) dense_size[0] = offset[tiles - 1] + size[tiles - 1];
  for_each_run_point<T>(
      tiles, lanes_log2, [=](index_t t) { return hood + t * ranges.stride + ranges.lo[t]; }, size, offset,
      [=](index_t j, const Point2<T>& p) { dense[j] = p; });
}

template <class T>
__global__ void reflect_reversed_kernel(const Point2<T>* in, index_t n, Point2<T>* out) {
  for (index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<index_t>(gridDim.x) * blockDim.x) {
    out[i] = core::reflected(in[n - 1 - i]);
  }
}

/// Blocks for a grid-stride loop over `units` pieces of work.
template <class T>
int stride_grid(index_t units) {
  const index_t most = index_t{multiprocessors()} * UpperHullPolicy<T>::kBlocksPerSm;
  return static_cast<int>(std::max<index_t>(1, std::min<index_t>(units, most)));
}

/// The most cells any device-wide round needs: merges halve each round while the grid side grows by
/// about sqrt 2, so the first round needs the most.
index_t round_cells_needed(index_t n, index_t first_width) {
  index_t most = 0;
  for (index_t w = first_width, blocks = ceil_div(n, first_width); blocks > 1;
       w *= 2, blocks = ceil_div(blocks, 2)) {
    most = std::max(most, ceil_div(blocks, 2) * core::cells_per_merge(core::ceil_sqrt(w)));
  }
  return most;
}

template <class T, class Policy>
std::size_t tile_shared_bytes() {
  return sizeof(typename BlockUpperHull<T, Policy>::TempStorage);
}

template <class T, class Policy, bool kCountOnDevice, bool kValidate, class Points>
void launch_tiles_kernel(Points points, index_t n, const index_t* device_n, Point2<T>* hood, index_t* size,
                         UpperHullWorkspace<T>& ws, cudaStream_t stream, bool peel) {
  allow_dynamic_shared<tile_hoods_kernel<T, Policy, kCountOnDevice, kValidate, Points>>(
      static_cast<int>(tile_shared_bytes<T, Policy>()));
  tile_hoods_kernel<T, Policy, kCountOnDevice, kValidate, Points>
      <<<static_cast<unsigned>(ceil_div(n, Policy::kTile)), Policy::kThreads, tile_shared_bytes<T, Policy>(),
         stream>>>(points, n, device_n, hood, size, ws.first_bad.data(), peel);
  WAGENER_CUDA_CHECK_LAUNCH();
}

/// Tiles of points[0..n) into hood (padded) and size; with `device_n`, of points[0..*device_n), n
/// being the bound the grid is sized by. peel: a hull's first level (tile_hoods_kernel).
template <class T, class Policy, class Points>
void launch_tiles(Points points, index_t n, const index_t* device_n, Point2<T>* hood, index_t* size,
                  UpperHullWorkspace<T>& ws, cudaStream_t stream, bool validate, bool peel) {
  // Only a sorted input's first level is validated: a caller's points, their count on the host.
  // Placed points come with their count on the host: no enqueued level takes them.
  if (validate && (device_n || !std::is_pointer_v<Points>)) {
    throw std::logic_error("wagener: only a first level of a caller's points is validated");
  }
  if constexpr (std::is_pointer_v<Points>) {
    if (device_n) {
      launch_tiles_kernel<T, Policy, true, false>(points, n, device_n, hood, size, ws, stream, peel);
      return;
    }
    if (validate) {
      launch_tiles_kernel<T, Policy, false, true>(points, n, nullptr, hood, size, ws, stream, peel);
      return;
    }
  }
  launch_tiles_kernel<T, Policy, false, false>(points, n, nullptr, hood, size, ws, stream, peel);
}

/// Tile level: hoods of consecutive tiles of points[0..n) into ws.hood[out] (padded) and ws.size[out];
/// with `device_n`, of points[0..*device_n), n being its bound. peel: a hull's first level.
template <class T, class Points>
void tile_level(Points points, index_t n, UpperHullWorkspace<T>& ws, int out, cudaStream_t stream,
                bool validate, bool peel, const index_t* device_n = nullptr) {
  const index_t tiles = ceil_div(n, UpperHullPolicy<T>::kTile);
  if (tiles <= index_t{ws.small_level_tiles_per_sm} * multiprocessors()) {
    launch_tiles<T, SmallLevelPolicy<T>>(points, n, device_n, ws.hood[out].data(), ws.size[out].data(), ws,
                                         stream, validate, peel);
  } else {
    launch_tiles<T, UpperHullPolicy<T>>(points, n, device_n, ws.hood[out].data(), ws.size[out].data(), ws,
                                        stream, validate, peel);
  }
}

}  // namespace

template <class T>
int device_rounds(index_t blocks, index_t w, UpperHullWorkspace<T>& ws, int cur, cudaStream_t stream,
                  const RoundHook& after_round) {
  using Policy = UpperHullPolicy<T>;
  for (; blocks > 1; w *= 2) {
    const index_t merges = ceil_div(blocks, 2);
    const index_t smax = core::ceil_sqrt(w);
    constexpr int kPlanThreads = 256;
    plan_kernel<T><<<static_cast<unsigned>(ceil_div(merges, kPlanThreads)), kPlanThreads, 0, stream>>>(
        ws.hood[cur].data(), ws.size[cur].data(), blocks, w, ws.plans.data());
    WAGENER_CUDA_CHECK_LAUNCH();
    const index_t phase_units = ceil_div(smax * smax, Policy::kUnit);
    for (int phase = core::kFirstPhase; phase <= core::kLastPhase; ++phase) {
      phase_kernel<T><<<stride_grid<T>(merges * phase_units), Policy::kRoundThreads, 0, stream>>>(
          phase, ws.hood[cur].data(), merges, w, smax, phase_units, ws.plans.data(), ws.cells.data());
      WAGENER_CUDA_CHECK_LAUNCH();
    }
    const index_t copy_units = ceil_div(2 * w, Policy::kUnit);
    copy_kernel<T><<<stride_grid<T>(merges * copy_units), Policy::kRoundThreads, 0, stream>>>(
        ws.hood[cur].data(), ws.hood[cur ^ 1].data(), ws.size[cur ^ 1].data(), merges, w, smax, copy_units,
        ws.plans.data(), ws.cells.data());
    WAGENER_CUDA_CHECK_LAUNCH();
    if (after_round) after_round(w, blocks, cur, cur ^ 1);
    cur ^= 1;
    blocks = merges;
  }
  return cur;
}

template <class T>
void UpperHullWorkspace<T>::reserve(index_t n, index_t first_width) {
  using Policy = UpperHullPolicy<T>;
  const auto samples = static_cast<std::size_t>(
      n >= filter_from ? std::max(sample_count(n, sample_shift), sample_count(n, dense_sample_shift)) : 0);
  if (sample.size() < samples) {
    sample = DeviceBuffer<Point2<T>>(samples);
    guide = DeviceBuffer<Point2<T>>(samples);
  }
  const auto guided_tiles = static_cast<std::size_t>(n >= filter_from ? ceil_div(n, Policy::kTile) : 0);
  if (guide_tile_starts.size() < guided_tiles) guide_tile_starts = DeviceBuffer<int>(guided_tiles);
  if (host_sizes.size() == 0) {
    host_sizes = PinnedBuffer<index_t>(2);
    host_bad = PinnedBuffer<unsigned long long>(2);
    steps = DeviceBuffer<EnqueuedSteps>(1);
    host_steps = PinnedBuffer<EnqueuedSteps>(1);
    level_tail = PinnedBuffer<index_t>(2);
    level_tail.data()[0] = level_tail.data()[1] = 0;  // no epoch yet
    void* mapped = nullptr;
    WAGENER_CUDA_CHECK(cudaHostGetDevicePointer(&mapped, level_tail.data(), 0));
    level_tail_on_device = static_cast<index_t*>(mapped);
  }
  if (n <= capacity && first_width >= width) return;
  const index_t tiles = std::max<index_t>(1, ceil_div(n, Policy::kTile));
  const index_t blocks = std::max<index_t>(1, ceil_div(n, first_width));
  for (int i = 0; i < 2; ++i) {
    hood[i] = DeviceBuffer<Point2<T>>(
        static_cast<std::size_t>(std::max(tiles * Policy::kTile, blocks * first_width)));
    size[i] = DeviceBuffer<index_t>(static_cast<std::size_t>(std::max(tiles, blocks)));
  }
  offsets = DeviceBuffer<index_t>(static_cast<std::size_t>(tiles));
  std::size_t scan_bytes = 0;
  WAGENER_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, size[0].data(), offsets.data(), tiles));
  scan_temp = DeviceBuffer<unsigned char>(scan_bytes);
  plans = DeviceBuffer<core::MergePlan>(static_cast<std::size_t>(ceil_div(std::max(tiles, blocks), 2)));
  const index_t cells_needed =
      std::max(round_cells_needed(n, Policy::kTile), round_cells_needed(n, first_width));
  cells = DeviceBuffer<index_t>(static_cast<std::size_t>(std::max<index_t>(1, cells_needed)));
  first_bad = DeviceBuffer<unsigned long long>(2);
  strip_lo = DeviceBuffer<index_t>(static_cast<std::size_t>(tiles));
  strip_hi = DeviceBuffer<index_t>(static_cast<std::size_t>(tiles));
  strip_prev = DeviceBuffer<index_t>(static_cast<std::size_t>(tiles));
  strip_next = DeviceBuffer<index_t>(static_cast<std::size_t>(tiles));
  std::size_t link_bytes = 0;
  WAGENER_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, link_bytes, strip_prev.data(), strip_prev.data(),
                                                    MaxIndex{}, tiles));
  link_scan_temp = DeviceBuffer<unsigned char>(std::max<std::size_t>(link_bytes, 1));
  capacity = n;
  width = first_width;
}

namespace {
// The process's switches (hood_join_enabled(), direction_guide_enabled(), filter_thinning()).
std::atomic<bool> hood_join_enabled_now{true};
std::atomic<bool> direction_guide_enabled_now{true};
// None until a GPU run shows the thinning gains (bench/NOTES.md, "The guide filter's kept points
// thinned by their neighbours").
std::atomic<FilterThinning> filter_thinning_now{FilterThinning::none};
}  // namespace

FilterThinning filter_thinning() {
  return filter_thinning_now.load(std::memory_order_relaxed);
}

void set_filter_thinning(FilterThinning thinning) {
  filter_thinning_now.store(thinning, std::memory_order_relaxed);
}

bool hood_join_enabled() {
  return hood_join_enabled_now.load(std::memory_order_relaxed);
}

void set_hood_join_enabled(bool on) {
  hood_join_enabled_now.store(on, std::memory_order_relaxed);
}

bool direction_guide_enabled() {
  return direction_guide_enabled_now.load(std::memory_order_relaxed);
}

void set_direction_guide_enabled(bool on) {
  direction_guide_enabled_now.store(on, std::memory_order_relaxed);
}

namespace {

/// Exclusive scan of the tile sizes ws.size[0][0..tiles) into ws.offsets, enqueued.
template <class T>
void enqueue_tile_scan(UpperHullWorkspace<T>& ws, index_t tiles, cudaStream_t stream) {
  std::size_t scan_bytes = ws.scan_temp.size();
  WAGENER_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(ws.scan_temp.data(), scan_bytes, ws.size[0].data(),
                                                   ws.offsets.data(), tiles, stream));
}

/// Exclusive scan of the tile sizes ws.size[0][0..tiles) into ws.offsets; returns their sum (waits).
/// With `seams_convex`, the tiles are a level's hoods (ws.hood[0]), and in the same wait, with no
/// copy (level_tail_kernel writes the host's words), it learns whether they turn strictly right at
/// every seam.
template <class T>
index_t scan_tile_sizes(UpperHullWorkspace<T>& ws, index_t tiles, cudaStream_t stream,
                        bool* seams_convex = nullptr) {
  enqueue_tile_scan(ws, tiles, stream);
  index_t* tail = ws.host_sizes.data();
  if (seams_convex) {
    constexpr int kSeamThreads = 256;
    const index_t epoch = ++ws.level_epoch;
    level_tail_kernel<T><<<stride_grid<T>(ceil_div(tiles, kSeamThreads)), kSeamThreads, 0, stream>>>(
        ws.hood[0].data(), ws.size[0].data(), ws.offsets.data(), tiles, index_t{UpperHullPolicy<T>::kTile},
        epoch, ws.level_tail_on_device);
    WAGENER_CUDA_CHECK_LAUNCH();
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    const index_t* level_tail = ws.level_tail.data();
    *seams_convex = level_tail[1] != epoch;
    return level_tail[0];
  }
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(&tail[0], ws.offsets.data() + tiles - 1, sizeof(index_t),
                                     cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(&tail[1], ws.size[0].data() + tiles - 1, sizeof(index_t),
                                     cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  return tail[0] + tail[1];
}

/// The tiles' point runs in ws.hood[0] (tile t's at t * kTile) packed, in order, into ws.hood[1]
/// (with `only_if`, only where *only_if is nonzero on the device).
template <class T>
void gather_tiles(UpperHullWorkspace<T>& ws, index_t tiles, cudaStream_t stream,
                  const index_t* only_if = nullptr) {
  const RunsLaunch launch = runs_launch(tiles, UpperHullPolicy<T>::kBlocksPerSm);
  gather_kernel<T><<<launch.blocks, kCopyRunsThreads, 0, stream>>>(
      ws.hood[0].data(), ws.size[0].data(), ws.offsets.data(), tiles, UpperHullPolicy<T>::kTile,
      launch.lanes_log2, ws.hood[1].data(), only_if);
  WAGENER_CUDA_CHECK_LAUNCH();
}

/// The guide filter's survivors (ws.hood[0], tile t's at t * kTile, sizes ws.size[0], offsets
/// ws.offsets) packed, in order, into ws.hood[1] by gather_runs_kernel: most of its tiles keep a few
/// points or none, which gather_tiles' groups would take a tile after another. `most` bounds their
/// count (the grid's size): the count itself where the host has it, else the filter's points.
template <class T>
void gather_survivors(UpperHullWorkspace<T>& ws, index_t tiles, index_t most, cudaStream_t stream) {
  const index_t blocks = std::clamp<index_t>(ceil_div(most, index_t{GatherPolicy::kPlaces}), 1,
                                             index_t{multiprocessors()} * GatherPolicy::kBlocksPerSm);
  gather_runs_kernel<T><<<static_cast<unsigned>(blocks), GatherPolicy::kThreads, 0, stream>>>(
      ws.hood[0].data(), ws.size[0].data(), ws.offsets.data(), tiles, UpperHullPolicy<T>::kTile,
      ws.hood[1].data());
  WAGENER_CUDA_CHECK_LAUNCH();
}

/// What a call's levels did: how many tile levels ran, and whether the last one's hoods were the
/// hood side by side (after_tile_level's join). With leave_in_tiles, the device-wide in-place rounds
/// skip their final compaction and say where they left the hood: tiles_left tiles (0: compacted as
/// usual) of total_left live points.
struct LevelsRun {
  int levels = 0;
  bool joined = false;
  bool leave_in_tiles = false;
  index_t tiles_left = 0;
  index_t total_left = 0;
};

/// Wagener's rounds over the tile hoods of ws.hood[0] (sizes ws.size[0]) with the hoods kept in place:
/// `points` are the level's n input points (for the duplicate at a tile's seam). The hood ends up
/// compacted in ws.hood[1] (size at ws.size[1][0]) and 1 is returned; or, when it is all n points,
/// it stays in ws.hood[0] (size at ws.size[0][0]) and 0 is returned. Where run->leave_in_tiles (and
/// the hood is not all n points), it stays in the tiles of ws.hood[0] uncompacted (live ranges from
/// ws.strip_lo, sizes ws.size[0], offsets ws.offsets), its tiles and size go to *run, and 0 is
/// returned.
template <class T, class Points>
int in_place_rounds(Points points, index_t n, index_t tiles, UpperHullWorkspace<T>& ws, cudaStream_t stream,
                    LevelsRun* run) {
  using Policy = UpperHullPolicy<T>;
  constexpr int kThreads = 256;
  const core::StripRanges ranges{ws.strip_lo.data(), ws.strip_hi.data(), ws.strip_prev.data(),
                                 ws.strip_next.data(), index_t{Policy::kTile}};
  const int tile_grid = stride_grid<T>(ceil_div(tiles, kThreads));
  init_strips_kernel<T, Points><<<tile_grid, kThreads, 0, stream>>>(
      points, ws.hood[0].data(), ws.size[0].data(), tiles, index_t{Policy::kTile}, ranges.lo, ranges.hi,
      ranges.prev_live, ranges.next_live);
  WAGENER_CUDA_CHECK_LAUNCH();
  // Links of the dead tiles (only runs of one repeated point make any): prefix maxima.
  for (index_t* links : {ranges.prev_live, ranges.next_live}) {
    std::size_t bytes = ws.link_scan_temp.size();
    WAGENER_CUDA_CHECK(cub::DeviceScan::InclusiveScan(ws.link_scan_temp.data(), bytes, links, links,
                                                      MaxIndex{}, tiles, stream));
  }
  unreverse_next_kernel<<<tile_grid, kThreads, 0, stream>>>(ranges.next_live, tiles);
  WAGENER_CUDA_CHECK_LAUNCH();
  const index_t block_merges_below =
      ws.block_merges_below < 0 ? index_t{multiprocessors()} : ws.block_merges_below;
  for (index_t w = 1; w < tiles; w *= 2) {
    const index_t merges = ceil_div(tiles, 2 * w);
    if (merges < block_merges_below) {
      using Team = MergeTeam<T, true>;
      in_place_merge_kernel<T, true><<<static_cast<int>(merges), Team::kBlockThreads, 0, stream>>>(
          ws.hood[0].data(), ranges, tiles, w, merges);
    } else {
      using Team = MergeTeam<T, false>;
      const auto blocks = static_cast<int>(std::min<index_t>(
          ceil_div(merges, Team::kTeamsPerBlock), index_t{multiprocessors()} * Policy::kBlocksPerSm));
      in_place_merge_kernel<T, false>
          <<<blocks, Team::kBlockThreads, 0, stream>>>(ws.hood[0].data(), ranges, tiles, w, merges);
    }
    WAGENER_CUDA_CHECK_LAUNCH();
  }
  live_sizes_kernel<<<tile_grid, kThreads, 0, stream>>>(ranges, tiles, ws.size[0].data());
  WAGENER_CUDA_CHECK_LAUNCH();
  const index_t total = scan_tile_sizes(ws, tiles, stream);
  if (total == n) {
    // Every point a vertex: every tile is whole (a live run is at most its tile's points), so the
    // hood already lies dense in ws.hood[0], and the compaction (all of it read and written again)
    // is skipped for a round trip.
    store_size_kernel<<<1, 1, 0, stream>>>(ws.size[0].data(), n);
    WAGENER_CUDA_CHECK_LAUNCH();
    return 0;
  }
  if (run && run->leave_in_tiles) {
    // The caller reads the live runs where they lie (the full hull's join), once: no compaction.
    run->tiles_left = tiles;
    run->total_left = total;
    return 0;
  }
  const RunsLaunch launch = runs_launch(tiles, UpperHullPolicy<T>::kBlocksPerSm);
  gather_live_kernel<T><<<launch.blocks, kCopyRunsThreads, 0, stream>>>(
      ws.hood[0].data(), ranges, ws.size[0].data(), ws.offsets.data(), tiles, launch.lanes_log2,
      ws.hood[1].data(), ws.size[1].data());
  WAGENER_CUDA_CHECK_LAUNCH();
  return 1;
}

/// Levels: hull the tiles, compact their hoods into a shorter sorted point set, repeat -- while that
/// pays; then Wagener's rounds across the device. Buffer 0 receives tile hoods, buffer 1 the
/// compacted points of the next level. Returns the buffer whose offset 0 holds the hood, its size
/// at ws.size[result][0].
/// first_level: points are a hull's input (or the filter's survivors), not hoods side by side.
/// `run`, where given, counts the levels and says whether the last one joined.
template <class T, class Points>
int hull_levels(Points points, index_t n, UpperHullWorkspace<T>& ws, cudaStream_t stream, bool validate,
                LevelsRun* run = nullptr, bool first_level = true);

/// After a tile level of more than one tile over points[0..n) (hoods in ws.hood[0], sizes in
/// ws.size[0] scanned into ws.offsets, `total` points in all): the rest of hull_levels. Returns the
/// buffer whose offset 0 holds the hood, its size at ws.size[result][0]. seams_convex: every seam
/// between the hoods turns strictly right (scan_tile_sizes), so they are the hood side by side.
template <class T, class Points>
int after_tile_level(Points points, index_t n, index_t tiles, index_t total, UpperHullWorkspace<T>& ws,
                     cudaStream_t stream, LevelsRun* run = nullptr, bool seams_convex = false) {
  using Policy = UpperHullPolicy<T>;
  if (seams_convex) {
    if (run) run->joined = true;
    if (total == n) {
      // Every tile its own hood (a hood has at most its tile's points): the hood lies dense in
      // ws.hood[0] already, as in in_place_rounds.
      store_size_kernel<<<1, 1, 0, stream>>>(ws.size[0].data(), n);
      WAGENER_CUDA_CHECK_LAUNCH();
      return 0;
    }
    gather_tiles(ws, tiles, stream);
    store_size_kernel<<<1, 1, 0, stream>>>(ws.size[1].data(), total);
    WAGENER_CUDA_CHECK_LAUNCH();
    return 1;
  }
  if (static_cast<double>(total) > Policy::kCompactionGain * static_cast<double>(n)) {
    // Most points are on the hood: merge the tile hoods across the device. Hoods of kInPlaceFrom
    // points or more stay in place (one search per merge, no copies, a launch a round); smaller
    // ones take the copying rounds (UpperHullPolicy).
    if (total >= ws.in_place_from) return in_place_rounds(points, n, tiles, ws, stream, run);
    return device_rounds(tiles, index_t{Policy::kTile}, ws, 0, stream);
  }
  gather_tiles(ws, tiles, stream);
  return hull_levels<T>(hood_points(ws, 1), total, ws, stream, false, run, false);
}

template <class T, class Points>
int hull_levels(Points points, index_t n, UpperHullWorkspace<T>& ws, cudaStream_t stream, bool validate,
                LevelsRun* run, bool first_level) {
  tile_level<T>(points, n, ws, 0, stream, validate, first_level);
  if (run) ++run->levels;
  const index_t tiles = ceil_div(n, UpperHullPolicy<T>::kTile);
  if (tiles == 1) return 0;
  bool seams_convex = false;
  const index_t total = scan_tile_sizes(ws, tiles, stream, ws.join_convex_seams ? &seams_convex : nullptr);
  return after_tile_level(points, n, tiles, total, ws, stream, run, seams_convex);
}

/// After the first level of upper_hull_enqueued (one thread): whether the first level finished the
/// hull, or its hoods compact into one tile for a second level (both as hull_levels decides).
template <class T>
__global__ void classify_first_level_kernel(const index_t* device_n, const index_t* size,
                                            const index_t* offset, EnqueuedHullWords* words) {
  using Policy = UpperHullPolicy<T>;
  const index_t n = *device_n;
  const index_t tiles = (n + Policy::kTile - 1) / Policy::kTile;
  EnqueuedHullWords w;
  w.n = n;
  if (tiles <= 1) {
    w.finished = 1;
    w.size = n == 0 ? 0 : size[0];
  } else {
    w.total = offset[tiles - 1] + size[tiles - 1];
    if (static_cast<double>(w.total) <= Policy::kCompactionGain * static_cast<double>(n) &&
        w.total <= Policy::kTile) {
      w.finished = 2;
      w.second_n = w.total;
    }
  }
  *words = w;
}

template <class T>
index_t read_size(const UpperHullWorkspace<T>& ws, int buffer, cudaStream_t stream) {
  index_t* size = ws.host_sizes.data();
  WAGENER_CUDA_CHECK(
      cudaMemcpyAsync(size, ws.size[buffer].data(), sizeof(index_t), cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  return *size;
}

/// The hull that upper_hull_enqueued's levels over points[0..words.n) left, their words read back:
/// where they finished it, or else the host's levels from where they stopped (waits). `run`, where
/// given, counts the levels.
template <class T>
DeviceHull<T> finish_levels(const Point2<T>* points, const EnqueuedHullWords& words,
                            UpperHullWorkspace<T>& ws, cudaStream_t stream, LevelsRun* run = nullptr) {
  if (run) run->levels += words.finished == 2 ? 2 : 1;
  if (words.finished != 0) return {words.hull_buffer(ws.hood[0].data(), ws.last.data()), words.hull_size()};
  const index_t tiles = ceil_div(words.n, UpperHullPolicy<T>::kTile);
  const int result = after_tile_level(points, words.n, tiles, words.total, ws, stream, run);
  return {ws.hood[result].data(), read_size(ws, result, stream)};
}

/// The tile hoods of a level of `tiles` tiles (ws.hood[0], sizes ws.size[0]; at most
/// kJoinMostHoods) joined into their hull at `out` (the pair_bridges, hood_spans and join_spans
/// kernels), enqueued; `report` says where the outcome goes.
template <class T>
void join_tile_hoods(UpperHullWorkspace<T>& ws, index_t tiles, cudaStream_t stream, Point2<T>* out,
                     const JoinReport& report) {
  using Policy = UpperHullPolicy<T>;
  constexpr int kThreads = 256, kWarps = kThreads / 32;
  if (tiles > Policy::kJoinMostHoods) throw std::logic_error("wagener: a join of more hoods than it takes");
  if (ws.bridges.size() == 0) {
    constexpr auto kMostHoods = static_cast<std::size_t>(Policy::kJoinMostHoods);
    ws.bridges = DeviceBuffer<core::PairBridge>(kMostHoods * kMostHoods);
    ws.spans = DeviceBuffer<core::HoodSpan>(kMostHoods);
  }
  const core::HoodRow<T> row{ws.hood[0].data(), index_t{Policy::kTile}, ws.size[0].data(), tiles};
  const index_t pairs = tiles * (tiles - 1) / 2;
  if (pairs > 0) {
    const auto blocks = static_cast<unsigned>(
        std::clamp<index_t>(ceil_div(pairs, kWarps), 1, index_t{multiprocessors()} * Policy::kBlocksPerSm));
    pair_bridges_kernel<T><<<blocks, kThreads, 0, stream>>>(row, report.hood_points_most, ws.bridges.data());
    WAGENER_CUDA_CHECK_LAUNCH();
  }
  hood_spans_kernel<T><<<static_cast<unsigned>(ceil_div(tiles, kWarps)), kThreads, 0, stream>>>(
      row, ws.bridges.data(), report.hood_points_most, ws.spans.data());
  WAGENER_CUDA_CHECK_LAUNCH();
  join_spans_kernel<T, Policy::kJoinMostHoods>
      <<<static_cast<unsigned>(tiles), Policy::kJoinMostHoods, 0, stream>>>(row, ws.spans.data(), out,
                                                                            ws.offsets.data(), report);
  WAGENER_CUDA_CHECK_LAUNCH();
}

/// Whether a level of `tiles` tiles ends in join_tile_hoods.
template <class T>
bool joins(const UpperHullWorkspace<T>& ws, index_t tiles) {
  const bool on = ws.join_hoods < 0 ? hood_join_enabled() : ws.join_hoods != 0;
  return on && tiles > 1 && tiles <= UpperHullPolicy<T>::kJoinMostHoods;
}

/// The upper hull of m evenly spaced points of d_points[0..n), in ws.guide; returns its size (as
/// hull_levels would build it). Or -1, without the levels after the first, where that first tile
/// level's hoods hold more than `dense_above` points in all: an upper bound of the hull's size, as
/// every vertex of the sample's hull is a vertex of its tile's hood.
template <class T>
index_t sample_hull(const Point2<T>* d_points, index_t n, index_t m, UpperHullWorkspace<T>& ws,
                    cudaStream_t stream, index_t dense_above = std::numeric_limits<index_t>::max()) {
  constexpr int kSampleThreads = 256;
  sample_kernel<T><<<static_cast<unsigned>(ceil_div(m, kSampleThreads)), kSampleThreads, 0, stream>>>(
      d_points, n, m, ws.sample.data());
  WAGENER_CUDA_CHECK_LAUNCH();
  const auto* sample = static_cast<const Point2<T>*>(ws.sample.data());
  tile_level<T>(sample, m, ws, 0, stream, false, true);
  const index_t tiles = ceil_div(m, UpperHullPolicy<T>::kTile);
  if (dense_above < std::numeric_limits<index_t>::max() && joins(ws, tiles)) {
    // The small sample (a bigger one exists): its hoods joined straight into the guide, the size
    // read in the one wait (-1: dense). Not the bigger sample, taken where the hull is dense: a
    // join's pairs grow as the square of its hoods, and hundreds of hoods of thousands of vertices
    // made the double parabola's call 0.5 ms slower at 2^28 (bench/NOTES.md, "The last levels as
    // one join"), where the levels' rounds take them in a few launches.
    join_tile_hoods(ws, tiles, stream, ws.guide.data(),
                    {dense_above, m, ws.size[1].data(), nullptr, nullptr});
    return read_size(ws, 1, stream);
  }
  int buffer = 0;
  if (tiles > 1) {
    bool seams_convex = false;
    const index_t total = scan_tile_sizes(ws, tiles, stream, ws.join_convex_seams ? &seams_convex : nullptr);
    if (total > dense_above) return -1;
    buffer = after_tile_level(sample, m, tiles, total, ws, stream, nullptr, seams_convex);
  }
  const index_t k = read_size(ws, buffer, stream);
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(ws.guide.data(), ws.hood[buffer].data(), k * sizeof(Point2<T>),
                                     cudaMemcpyDeviceToDevice, stream));
  return k;
}

/// The guide filter's thinning (UpperHullWorkspace::filter_thinning).
template <class T>
FilterThinning filter_thinning_of(const UpperHullWorkspace<T>& ws) {
  return ws.filter_thinning < 0 ? filter_thinning() : static_cast<FilterThinning>(ws.filter_thinning);
}

/// Whether the guide filter first tries the direction guide (UpperHullWorkspace::direction_guide).
template <class T>
bool tries_direction_guide(const UpperHullWorkspace<T>& ws) {
  return ws.direction_guide < 0 ? direction_guide_enabled() : ws.direction_guide != 0;
}

/// The guide from the extremes of m evenly spaced points of d_points[0..n) in fixed directions
/// (direction_guide.cuh), in ws.guide; returns its words, read in one wait: its size, and how many
/// of the m samples it does not certify below it.
template <class T>
DirectionGuideWords direction_guide_of_sample(const Point2<T>* d_points, index_t n, index_t m,
                                              UpperHullWorkspace<T>& ws, cudaStream_t stream) {
  namespace dg = direction_guide;
  using Policy = DirectionGuidePolicy;
  const index_t blocks =
      std::min(ceil_div(m, index_t{Policy::kChunk}), index_t{multiprocessors()} * Policy::kBlocksPerSm);
  const index_t per_block = ceil_div(m, blocks);
  const auto best_words = static_cast<std::size_t>(blocks * Policy::kDirections);
  if (ws.direction_best.size() < best_words) ws.direction_best = DeviceBuffer<unsigned long long>(best_words);
  if (ws.direction_words.size() == 0) {
    ws.direction_words = DeviceBuffer<DirectionGuideWords>(1);
    ws.host_direction_words = PinnedBuffer<DirectionGuideWords>(1);
  }
  if (ws.guide.size() < static_cast<std::size_t>(dg::kMostGuidePoints)) {
    ws.guide = DeviceBuffer<Point2<T>>(dg::kMostGuidePoints);
  }
  dg::direction_extremes_kernel<T><<<static_cast<unsigned>(blocks), Policy::kDirections, 0, stream>>>(
      d_points, n, m, per_block, ws.direction_best.data());
  WAGENER_CUDA_CHECK_LAUNCH();
  dg::direction_guide_kernel<T><<<1, Policy::kDirections, 0, stream>>>(
      d_points, n, m, ws.direction_best.data(), blocks, ws.guide.data(), ws.direction_words.data());
  WAGENER_CUDA_CHECK_LAUNCH();
  dg::direction_check_kernel<T>
      <<<static_cast<unsigned>(ceil_div(m, dg::kCheckThreads)), dg::kCheckThreads, 0, stream>>>(
          d_points, n, m, ws.guide.data(), ws.direction_words.data(), CertainlyRight{});
  WAGENER_CUDA_CHECK_LAUNCH();
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(ws.host_direction_words.data(), ws.direction_words.data(),
                                     sizeof(DirectionGuideWords), cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  return ws.host_direction_words.data()[0];
}

/// The most survivors of a guide filter over n points that go through enqueued levels: the grid of
/// those levels, a small level's tiles (tile_level's SmallLevelPolicy) unless the workspace says
/// otherwise, and no more than the n points the workspace holds (upper_hull_enqueued reserves room
/// for its bound).
template <class T>
index_t enqueued_levels_bound(const UpperHullWorkspace<T>& ws, index_t n) {
  const index_t small_level =
      index_t{ws.small_level_tiles_per_sm} * multiprocessors() * UpperHullPolicy<T>::kTile;
  return std::min(n, ws.enqueued_levels_bound < 0 ? small_level : ws.enqueued_levels_bound);
}

/// The guide filter (UpperHullPolicy): when it pays, leaves the points of d_points[0..n) not strictly
/// below the sample's hull, in order, in ws.hood[1][0..survivors) and returns true. With
/// `enqueue_levels`, where the small sample made the guide (few survivors expected) and
/// enqueued_levels_bound allows, the survivors' count goes to ws.steps without a wait, for levels
/// that the caller enqueues (upper_hull_enqueued), and *enqueue_levels stays true; otherwise the host
/// waits for the count (ws.survivors) and *enqueue_levels becomes false.
template <class T, class AfterGuide>
bool guide_filter(const Point2<T>* d_points, index_t n, UpperHullWorkspace<T>& ws, cudaStream_t stream,
                  bool validate, AfterGuide&& after_guide, bool* enqueue_levels) {
  using Policy = UpperHullPolicy<T>;
  index_t m = ws.sample_count(n, ws.sample_shift);
  const index_t bigger = ws.sample_count(n, ws.dense_sample_shift);
  // Where a bigger sample exists, a first level that keeps much of the small one already says its
  // hull would be dense (UpperHullPolicy::kDenseFirstLevel; 1: never, since a level keeps at most
  // its points).
  const auto dense_above = bigger > m ? static_cast<index_t>(ws.dense_first_level * static_cast<double>(m))
                                      : std::numeric_limits<index_t>::max();
  // The direction guide first, where tried: taken where it leaves few of the sample; where it
  // leaves more than the dense share, the bigger sample's hull at once (as a dense first level
  // would decide); else the small sample's hull.
  index_t k = -1;
  bool small_sample = true, decided = false;  // ws.took_direction_guide: cleared by upper_hull_of
  if (tries_direction_guide(ws)) {
    const DirectionGuideWords words = direction_guide_of_sample(d_points, n, m, ws, stream);
    const auto kept = static_cast<double>(words.kept), samples = static_cast<double>(m);
    if (kept <= DirectionGuidePolicy::kMostKept * samples) {
      k = words.size, decided = true;
      ws.took_direction_guide = true;
    } else if (bigger > m && kept > ws.dense_first_level * samples) {
      small_sample = false, decided = true;
    }
  }
  if (!decided) {
    k = sample_hull(d_points, n, m, ws, stream, dense_above);
    small_sample = !(k < 0 || (static_cast<double>(k) * static_cast<double>(k) >
                                   Policy::kDenseGuide * static_cast<double>(m) &&
                               bigger > m));
  }
  if (!small_sample) {
    m = bigger;
    k = sample_hull(d_points, n, m, ws, stream);
  }
  if (static_cast<double>(k) > Policy::kMaxGuideFraction * static_cast<double>(m)) return false;
  after_guide();
  constexpr int kStartThreads = 256;
  const index_t tiles = ceil_div(n, Policy::kTile);
  guide_tile_starts_kernel<T>
      <<<static_cast<unsigned>(ceil_div(tiles, kStartThreads)), kStartThreads, 0, stream>>>(
          d_points, tiles, Policy::kTile, ws.guide.data(), k, ws.guide_tile_starts.data());
  WAGENER_CUDA_CHECK_LAUNCH();
  const auto filter = [&](auto kernel) {
    kernel<<<static_cast<unsigned>(tiles), Policy::kFilterThreads, 0, stream>>>(
        d_points, n, ws.guide.data(), k, ws.guide_tile_starts.data(), ws.hood[0].data(), ws.size[0].data(),
        ws.first_bad.data());
  };
  // The thinning only behind the bigger sample's guide, whose survivors are many (the small one's
  // are few: there its launch would only cost).
  const FilterThinning thinning = small_sample ? FilterThinning::none : filter_thinning_of(ws);
  const auto filter_thinned = [&](auto validated) {
    constexpr bool kValidate = decltype(validated)::value;
    if constexpr (Policy::kFilterThins) {
      if (thinning == FilterThinning::repeats)
        return filter(guide_filter_kernel<T, kValidate, FilterThinning::repeats>);
      if (thinning == FilterThinning::in_line)
        return filter(guide_filter_kernel<T, kValidate, FilterThinning::in_line>);
    }
    filter(guide_filter_kernel<T, kValidate>);
  };
  if (validate) {
    filter_thinned(std::true_type{});
  } else {
    filter_thinned(std::false_type{});
  }
  WAGENER_CUDA_CHECK_LAUNCH();
  const index_t bound = enqueued_levels_bound(ws, n);
  *enqueue_levels = *enqueue_levels && small_sample && bound > 0;
  if (*enqueue_levels) {
    enqueue_tile_scan(ws, tiles, stream);
    survivors_count_kernel<<<1, 1, 0, stream>>>(ws.size[0].data(), ws.offsets.data(), tiles, bound,
                                                ws.steps.data());
    WAGENER_CUDA_CHECK_LAUNCH();
  } else {
    ws.survivors = scan_tile_sizes(ws, tiles, stream);
  }
  gather_survivors(ws, tiles, *enqueue_levels ? n : ws.survivors, stream);
  return true;
}

}  // namespace

template <class T>
void upper_hull_enqueued(const Point2<T>* d_points, const index_t* d_n, index_t n_bound,
                         UpperHullWorkspace<T>& ws, EnqueuedHullWords* words, cudaStream_t stream) {
  using Policy = UpperHullPolicy<T>;
  ws.survivors = -1;
  n_bound = std::max<index_t>(n_bound, 1);
  ws.reserve(n_bound);
  if (ws.last.size() == 0) ws.last = DeviceBuffer<Point2<T>>(Policy::kTile);
  const index_t tiles = ceil_div(n_bound, Policy::kTile);
  tile_level(d_points, n_bound, ws, 0, stream, false, true, d_n);
  if (joins(ws, tiles)) {
    // The first level's hoods joined into ws.last where the hull fits it; else the words say how
    // many hood points the host's levels go on from (their offsets scanned by the join).
    join_tile_hoods(ws, tiles, stream, ws.last.data(), {-1, Policy::kTile, nullptr, d_n, words});
    return;
  }
  enqueue_tile_scan(ws, tiles, stream);
  classify_first_level_kernel<T><<<1, 1, 0, stream>>>(d_n, ws.size[0].data(), ws.offsets.data(), words);
  WAGENER_CUDA_CHECK_LAUNCH();
  // The second level, where the first one's hoods fit one tile: gathered, then one block.
  gather_tiles(ws, tiles, stream, &words->second_n);
  launch_tiles<T, SmallLevelPolicy<T>>(hood_points(ws, 1), Policy::kTile, &words->second_n, ws.last.data(),
                                       &words->second_size, ws, stream, false, false);
}

template <class T>
DeviceHull<T> finish_enqueued(const Point2<T>* d_points, const EnqueuedHullWords& words,
                              UpperHullWorkspace<T>& ws, cudaStream_t stream) {
  return finish_levels(d_points, words, ws, stream);
}

namespace {

/// upper_hull_on_device for points at a pointer or placed (PlacedPoints: no guide, no validation).
template <class T, class Points>
DeviceHull<T> upper_hull_of(Points d_points, index_t n, UpperHullWorkspace<T>& ws, cudaStream_t stream,
                            bool validate, UpperHullProfile* profile, bool guide, bool hood_in_tiles) {
  ws.survivors = -1;
  ws.took_direction_guide = false;
  if (n == 0) return {nullptr, 0};
  ws.reserve(n);
  if (validate) {
    WAGENER_CUDA_CHECK(cudaMemsetAsync(ws.first_bad.data(), 0xff, 2 * sizeof(unsigned long long), stream));
  }
  std::optional<Event> marks[4];
  auto mark = [&](int i) {
    if (profile) marks[i].emplace().record(stream);
  };
  mark(0);
  bool filtered = false;
  // The survivors' levels enqueued by the filter, read back in the call's one wait below (not where
  // the hood stays in its tiles: those levels compact it).
  bool levels_enqueued = !hood_in_tiles;
  if constexpr (std::is_pointer_v<Points>) {
    filtered = guide && n >= ws.filter_from && n > UpperHullPolicy<T>::kTile &&
               guide_filter(
                   d_points, n, ws, stream, validate, [&] { mark(1); }, &levels_enqueued);
  }
  levels_enqueued = levels_enqueued && filtered;
  mark(2);
  // After the filter, its survivors are the input (already validated); else the points themselves.
  LevelsRun run;  // these levels only, not the guide's
  run.leave_in_tiles = hood_in_tiles;
  int result = 0;
  if (levels_enqueued) {
    EnqueuedSteps* enqueued = ws.steps.data();
    upper_hull_enqueued(hood_points(ws, 1), &enqueued->count, enqueued_levels_bound(ws, n), ws,
                        &enqueued->levels, stream);
  } else {
    result = filtered ? hull_levels<T>(hood_points(ws, 1), ws.survivors, ws, stream, false, &run)
                      : hull_levels(d_points, n, ws, stream, validate, &run);
  }
  mark(3);

  index_t* size_host = ws.host_sizes.data();
  unsigned long long* bad = ws.host_bad.data();
  EnqueuedSteps* steps = ws.host_steps.data();
  size_host[0] = run.total_left;
  bad[0] = bad[1] = ULLONG_MAX;
  if (levels_enqueued) {
    WAGENER_CUDA_CHECK(
        cudaMemcpyAsync(steps, ws.steps.data(), sizeof(EnqueuedSteps), cudaMemcpyDeviceToHost, stream));
  } else if (run.tiles_left == 0) {
    WAGENER_CUDA_CHECK(
        cudaMemcpyAsync(size_host, ws.size[result].data(), sizeof(index_t), cudaMemcpyDeviceToHost, stream));
  }
  if (validate) {
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(bad, ws.first_bad.data(), 2 * sizeof(unsigned long long),
                                       cudaMemcpyDeviceToHost, stream));
  }
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (bad[0] != ULLONG_MAX) throw input_error("point " + std::to_string(bad[0]) + " is not finite");
  if (bad[1] != ULLONG_MAX) {
    throw input_error("points are not sorted by (x, y): point " + std::to_string(bad[1]) +
                      " is smaller than point " + std::to_string(bad[1] - 1));
  }
  DeviceHull<T> enqueued_hull{nullptr, 0};
  if (levels_enqueued) {
    // The survivors' levels as enqueued, finished by the host where they stopped; or, past their
    // bound (they did nothing), the host's levels over the survivors, still packed in ws.hood[1].
    ws.survivors = steps->survivors;
    if (steps->count == steps->survivors) {
      enqueued_hull = finish_levels(hood_points(ws, 1), steps->levels, ws, stream, &run);
    } else {
      result = hull_levels<T>(hood_points(ws, 1), ws.survivors, ws, stream, false, &run);
      enqueued_hull = {ws.hood[result].data(), read_size(ws, result, stream)};
    }
    const bool host_levels = steps->count != steps->survivors || steps->levels.finished == 0;
    if (profile && host_levels) mark(3);  // the levels' end: after the host's, where they ran
  }
  if (profile) {
    *profile = {};
    if (filtered) {
      profile->guide_ms = marks[1]->since(*marks[0]);
      profile->filter_ms = marks[2]->since(*marks[1]);
    }
    profile->levels_ms = marks[3]->since(*marks[2]);
    profile->levels = run.levels;
    profile->joined = run.joined;
    profile->enqueued = levels_enqueued && steps->count == steps->survivors;
    profile->direction_guide = filtered && ws.took_direction_guide;
  }
  if (levels_enqueued) return enqueued_hull;
  const index_t size = size_host[0];
  if (run.tiles_left > 0) {
    return {nullptr,
            size,
            {ws.hood[0].data(), ws.strip_lo.data(), ws.size[0].data(), ws.offsets.data(),
             index_t{UpperHullPolicy<T>::kTile}, run.tiles_left}};
  }
  return {ws.hood[result].data(), size};
}

}  // namespace

template <class T>
DeviceHull<T> upper_hull_on_device(const Point2<T>* d_points, index_t n, UpperHullWorkspace<T>& ws,
                                   cudaStream_t stream, bool validate, UpperHullProfile* profile, bool guide,
                                   bool hood_in_tiles) {
  return upper_hull_of(d_points, n, ws, stream, validate, profile, guide, hood_in_tiles);
}

template <class T>
DeviceHull<T> upper_hull_on_device(PlacedPoints<T> points, index_t n, UpperHullWorkspace<T>& ws,
                                   cudaStream_t stream, bool hood_in_tiles) {
  return upper_hull_of(points, n, ws, stream, false, nullptr, false, hood_in_tiles);
}

template <class T>
void reflect_reversed(const Point2<T>* in, index_t n, Point2<T>* out, cudaStream_t stream) {
  if (n == 0) return;
  constexpr int kThreads = 256;
  reflect_reversed_kernel<T><<<stride_grid<T>(ceil_div(n, kThreads)), kThreads, 0, stream>>>(in, n, out);
  WAGENER_CUDA_CHECK_LAUNCH();
}

#define WAGENER_INSTANTIATE(T)                                                                               \
  template struct UpperHullWorkspace<T>;                                                                     \
  template DeviceHull<T> upper_hull_on_device(const Point2<T>*, index_t, UpperHullWorkspace<T>&,             \
                                              cudaStream_t, bool, UpperHullProfile*, bool, bool);            \
  template void reflect_reversed(const Point2<T>*, index_t, Point2<T>*, cudaStream_t);                       \
  template void upper_hull_enqueued(const Point2<T>*, const index_t*, index_t, UpperHullWorkspace<T>&,       \
                                    EnqueuedHullWords*, cudaStream_t);                                       \
  template DeviceHull<T> finish_enqueued(const Point2<T>*, const EnqueuedHullWords&, UpperHullWorkspace<T>&, \
                                         cudaStream_t);                                                      \
  template int device_rounds(index_t, index_t, UpperHullWorkspace<T>&, int, cudaStream_t, const RoundHook&);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE
// Placed points: the sort on a key's split, for 8-byte coordinates only.
template DeviceHull<double> upper_hull_on_device(PlacedPoints<double>, index_t, UpperHullWorkspace<double>&,
                                                 cudaStream_t, bool);
template DeviceHull<std::int64_t> upper_hull_on_device(PlacedPoints<std::int64_t>, index_t,
                                                       UpperHullWorkspace<std::int64_t>&, cudaStream_t, bool);

}  // namespace wagener::cuda
