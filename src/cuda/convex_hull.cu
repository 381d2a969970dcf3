// The full hull of unsorted points on the device, in about one pass over the input:
//  1. the extreme points of a strided sample in kDirections directions (one small kernel), whose
//     exact hull (on the host: a few hundred points) is the inner polygon, with the certified tests
//     of core::InnerPolygon;
//  2. one streaming pass drops every point certified strictly inside that polygon and appends the
//     others to a survivor buffer (warp-aggregated atomics: the survivors' order does not matter);
//     from device memory, where the polygon leaves many points (a float circle: all of them), the
//     pass also drops the points certified strictly inside a dense guide, the exact hull of n/16 of
//     the points computed by this same pipeline (hull_of_device_points, and build_guide in dense_guide.cu);
//     where it does not, and many points survive (random input from 2^22 points), the survivors are
//     filtered again, on the device, by a polygon of their own extremes (survivor_polygon.cu);
//  3. the survivors are radix-sorted on x (CUB), each run of equal x rewritten as copies of its lowest
//     point then its highest, which makes the order lexicographic without changing the hull, split by
//     the line through the smallest and the largest of them (one stable partition: the upper chain
//     needs only the points on or above it, the lower chain only those below), and both chains are
//     built at once by the upper-hull machinery (the lower one on the reflected points), then joined
//     on the device, where the hull stays for the device entry point.
// From host memory, step 2 runs chunk by chunk as the chunks land (cuda/staging.cuh), so the input
// is never stored whole on the device.
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <cub/block/block_merge_sort.cuh>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/warp/warp_merge_sort.cuh>
#include <cuda/std/tuple>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/chains.hpp"
#include "core/chord_fan.hpp"
#include "core/inner_polygon.hpp"
#include "core/x_key.hpp"
#include "cpu/monotone_chain.hpp"
#include "cuda/buffers.cuh"
#include "cuda/check.cuh"
#include "cuda/convex_hull.cuh"
#include "cuda/copy_runs.cuh"
#include "cuda/full_hull.cuh"
#include "cuda/launch.cuh"
#include "cuda/per_device.cuh"
#include "cuda/placed_points.cuh"
#include "cuda/staging.cuh"
#include "cuda/upper_hull.cuh"
#include "wagener/error.hpp"
#include "wagener/predicates.hpp"

namespace wagener::cuda {
namespace full_hull {
namespace {

// The fewest points for a guide is min_points_for_guide() (tests lower it).
std::atomic<index_t> min_points_for_guide_now{kDefaultMinPointsForGuide};
// The fewest survivors for the sort on a 32-bit key is min_survivors_for_key_sort() (tests lower it).
std::atomic<index_t> min_survivors_for_key_sort_now{kDefaultMinSurvivorsForKeySort};
// The fewest points for the survivors' polygon is min_points_for_survivor_polygon() (tests lower it).
std::atomic<index_t> min_points_for_survivor_polygon_now{kDefaultMinPointsForSurvivorPolygon};
// The block finish's bound: max_survivors_for_block_finish().
std::atomic<index_t> max_survivors_for_block_finish_now{kDefaultMaxSurvivorsForBlockFinish};
// Whether the full hull's chains join tile hoods: chains_join_hoods().
std::atomic<bool> chains_join_hoods_now{false};
// Where the chains' device-wide rounds keep their hoods in place: chains_in_place_from() (tests
// set it; -1: each chain's policy).
std::atomic<index_t> chains_in_place_from_now{-1};

/// Per direction (one thread each), the sample point with the largest score: sample j is input
/// point sample_place(j, stride, samples), each block takes a share of the samples and combines
/// with the others by atomicMax on `best` (zeroed first). Rounding can only make the choice slightly
/// less extreme: any input point is a valid polygon vertex -- but only one exact in double, since the
/// polygon's tests run in double (converts_exactly: a 64-bit point beyond 2^53 scores NaN and never
/// wins). Each tile of samples is first pruned to those not strictly inside the octagon of its own
/// extremes in kCoarse directions: a point strictly inside the hull of the tile is no tile's extreme
/// in any direction, and a regular octagon covers nine tenths of its circle's disk, so only about a
/// tenth of a disk's samples are scored in every direction. The octagon's test is not exact; a point
/// it drops wrongly lies within rounding of the octagon's boundary, and the choice stays an input
/// point.
template <class T, class Points>
__global__ void __launch_bounds__(kDirections)
    sample_extremes_kernel(Points points, index_t samples, index_t stride, unsigned long long* best) {
  constexpr int kPerThread = kSampleTile / kDirections;
  constexpr int kCoarse = 8;
  // The coarse directions, an eighth of a turn apart, as constants: the compiler does not fold
  // sincospi of a constant, and eight of them on every thread were its polynomial eight times over.
  // Any direction serves (the octagon only prunes), so the roots' rounding does not matter.
  constexpr double kRootHalf = 0.70710678118654752440;
  constexpr double kCoarseX[kCoarse] = {1, kRootHalf, 0, -kRootHalf, -1, -kRootHalf, 0, kRootHalf};
  constexpr double kCoarseY[kCoarse] = {0, kRootHalf, 1, kRootHalf, 0, -kRootHalf, -1, -kRootHalf};
  constexpr unsigned kAll = 0xffffffffu;
  static_assert(kSampleTile % kDirections == 0 && kSampleTile <= 512, "a tile index fits 9 bits");
  __shared__ double sx[kSampleTile], sy[kSampleTile];
  __shared__ unsigned short sj[kSampleTile];          // the kept samples' places in the tile
  __shared__ unsigned long long coarse_key[kCoarse];  // the tile's extremes (image | place)
  __shared__ double cx[kCoarse], cy[kCoarse];
  __shared__ int kept;
  const int lane = threadIdx.x % kWarp;
  double dx, dy;
  sincospi(2.0 * threadIdx.x / kDirections, &dy, &dx);
  // This direction's best so far in kChains independent chains, joined at the end: with one chain
  // each sample's compare waited on the one before, and the scoring loop held half the kernel's
  // time (bench/NOTES.md, "The fixed costs' kernels at the H200's own clocks"). The order (the
  // larger score, then the smaller sample number; NaN never wins) is total, so the chains' best
  // is the one chain's.
  constexpr int kChains = 4;
  double best_score[kChains];
  index_t best_j[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) best_score[c] = -INFINITY, best_j[c] = -1;
  const auto take_if_better = [](double s, index_t j, double& score, index_t& at) {
    if (s > score || (s == score && j < at)) score = s, at = j;
  };
  const index_t per_block = (samples + gridDim.x - 1) / gridDim.x;
  const index_t begin = blockIdx.x * per_block;
  const index_t end = min(samples, begin + per_block);
  for (index_t base = begin; base < end; base += kSampleTile) {
    const int count = static_cast<int>(min(index_t{kSampleTile}, end - base));
    __syncthreads();  // the last tile's scoring done
    if (threadIdx.x < kCoarse) coarse_key[threadIdx.x] = 0;
    if (threadIdx.x == 0) kept = 0;
    double px[kPerThread], py[kPerThread];
#pragma unroll
    for (int h = 0; h < kPerThread; ++h) {
      const int i = threadIdx.x + h * kDirections;
      px[h] = py[h] = NAN;
      if (i < count) {
        const Point2<T> p = points[sample_place(base + i, stride, samples)];
        if (converts_exactly(p)) px[h] = static_cast<double>(p.x), py[h] = static_cast<double>(p.y);
      }
      sx[i] = px[h], sy[i] = py[h];  // staged, for the octagon's vertices
    }
    __syncthreads();  // the counters reset, the tile staged
    // The tile's extreme in each coarse direction (any maximiser will do): a warp's best by shuffles,
    // then the block's by atomicMax. A NaN score keys 0, which never wins.
#pragma unroll
    for (int k = 0; k < kCoarse; ++k) {
      const double ux = kCoarseX[k], uy = kCoarseY[k];
      unsigned long long key = 0;
#pragma unroll
      for (int h = 0; h < kPerThread; ++h) {
        const double score = ux * px[h] + uy * py[h];
        const unsigned place = threadIdx.x + h * kDirections;
        if (!isnan(score)) key = max(key, (ordered_image(score) & ~0x1ffull) | place);
      }
#pragma unroll
      for (int offset = kWarp / 2; offset > 0; offset /= 2)
        key = max(key, __shfl_xor_sync(kAll, key, offset));
      if (lane == 0 && key != 0) atomicMax(&coarse_key[k], key);
    }
    __syncthreads();
    if (threadIdx.x < kCoarse) {
      // The octagon's vertices, counter-clockwise; NaN where a direction has no finite sample (then
      // nothing is inside).
      const unsigned long long key = coarse_key[threadIdx.x];
      const int place = static_cast<int>(key & 0x1ff);
      cx[threadIdx.x] = key != 0 ? sx[place] : NAN, cy[threadIdx.x] = key != 0 ? sy[place] : NAN;
    }
    __syncthreads();  // the vertices read before the kept samples overwrite the stage
    // Keep the samples not strictly inside the octagon (every one where it has under 3 edges:
    // repeated vertices make no edge).
#pragma unroll
    for (int h = 0; h < kPerThread; ++h) {
      const int i = threadIdx.x + h * kDirections;
      bool inside = true;
      int edges = 0;
#pragma unroll
      for (int k = 0; k < kCoarse; ++k) {
        const double ax = cx[k], ay = cy[k], bx = cx[(k + 1) % kCoarse], by = cy[(k + 1) % kCoarse];
        if (ax != bx || ay != by) {
          ++edges;
          inside = inside && (bx - ax) * (py[h] - ay) - (by - ay) * (px[h] - ax) > 0;
        }
      }
      inside = inside && edges >= 3;
      const bool keep = i < count && !inside;
      const unsigned keeping = __ballot_sync(kAll, keep);
      int at = 0;
      if (lane == 0 && keeping != 0) at = atomicAdd(&kept, __popc(keeping));
      at = __shfl_sync(kAll, at, 0) + __popc(keeping & ((1u << lane) - 1));
      if (keep) sx[at] = px[h], sy[at] = py[h], sj[at] = static_cast<unsigned short>(i);
    }
    __syncthreads();
    // Every direction over the kept samples, in any order: ties go to the smaller sample number.
    const int scored = kept;
    int i = 0;
    for (; i + kChains <= scored; i += kChains) {
#pragma unroll
      for (int c = 0; c < kChains; ++c)  // NaN (a non-finite point) never wins
        take_if_better(dx * sx[i + c] + dy * sy[i + c], base + sj[i + c], best_score[c], best_j[c]);
    }
    for (; i < scored; ++i) take_if_better(dx * sx[i] + dy * sy[i], base + sj[i], best_score[0], best_j[0]);
  }
#pragma unroll
  for (int c = 1; c < kChains; ++c) take_if_better(best_score[c], best_j[c], best_score[0], best_j[0]);
  if (best_j[0] >= 0)
    atomicMax(&best[threadIdx.x], extreme_key(best_score[0], static_cast<unsigned>(best_j[0])));
}

/// One block: full_hull.cuh's gather_extremes, for the host's polygon.
template <class T, class Points>
__global__ void __launch_bounds__(kDirections)
    gather_extremes_kernel(Points points, index_t samples, index_t stride, int decision,
                           const unsigned long long* best, Point2<double>* extreme) {
  gather_extremes<T>(points, samples, stride, decision, best, extreme);
}

/// Whether filter_kernel queues the points that `Test`'s quick tests leave, whatever their size.
template <class Test>
inline constexpr bool queues_doubts = requires {
  requires Test::kQueueDoubts;
};

/// The runs a warp takes a step in filter_kernel behind `Test`: its own kUnroll, else kFilterUnroll.
template <class Test>
constexpr int filter_unroll() {
  if constexpr (requires { Test::kUnroll; }) {
    return Test::kUnroll;
  } else {
    return kFilterUnroll;
  }
}

/// filter_kernel's tests: given by value, or read from the device polygon.
template <class Test>
__device__ bool skips_filter(const Test&) {
  return false;
}
__device__ bool skips_filter(const DevicePolygon* polygon) {
  return polygon->leaves_many != 0;
}
template <class Test>
requires requires(const Test& test) {
  test.skips();
}
__device__ bool skips_filter(const Test& test) {
  return test.skips();
}
/// The device polygon's tests staged in shared memory, read there at each use (held in registers,
/// they took the float filter from 58 registers to 103 and halved its blocks per multiprocessor).
struct PolygonStage {
  DevicePolygon polygon;
};
template <class Test>
__device__ const Test& tests_of(const Test& test, PolygonStage&) {
  return test;
}
__device__ const core::InnerPolygonView& tests_of(const DevicePolygon* polygon, PolygonStage& stage) {
  static_assert(sizeof(DevicePolygon) % sizeof(int) == 0);
  constexpr int kWords = sizeof(DevicePolygon) / sizeof(int);
  const int* from = reinterpret_cast<const int*>(polygon);
  int* to = reinterpret_cast<int*>(&stage.polygon);
  for (int w = threadIdx.x; w < kWords; w += blockDim.x) to[w] = from[w];
  __syncthreads();
  return stage.polygon.view;
}
template <class Test>
__device__ const core::FloatQuickTests& float_tests_of(const Test&, const core::FloatQuickTests& given,
                                                       const PolygonStage&) {
  return given;
}
__device__ const core::FloatQuickTests& float_tests_of(const DevicePolygon*, const core::FloatQuickTests&,
                                                       const PolygonStage& stage) {
  return stage.polygon.quick;
}

/// The float filter's device polygon in constant memory, a slot a device, leased by one call at a
/// time (FloatPolygonLease): read there, its tests are constant-bank operands, free in every compare,
/// as they are where the host passes them by value. From shared memory or registers they cost the
/// float filter, bound by its instructions, 0.02-0.04 ms at 2^28 (bench/NOTES.md).
__constant__ DevicePolygon float_polygon_slot;
/// filter_kernel's Source for the tests in float_polygon_slot.
struct ConstantPolygon {};
__device__ bool skips_filter(ConstantPolygon) {
  return float_polygon_slot.leaves_many != 0;
}
__device__ const core::InnerPolygonView& tests_of(ConstantPolygon, PolygonStage&) {
  return float_polygon_slot.view;
}
__device__ const core::FloatQuickTests& float_tests_of(ConstantPolygon, const core::FloatQuickTests&,
                                                       const PolygonStage&) {
  return float_polygon_slot.quick;
}

/// The streaming pass: appends every point that `test` does not certify strictly inside the hull
/// (core::InnerPolygonView, or GuideTest: quick_inside, then fan_inside for the points it leaves in
/// doubt) to kept[*count ...] (order unspecified), and records the smallest index (plus
/// first_index) of a non-finite point. Signed zeros are written as +0 (plus_zeros). kFloatFirst
/// (float points): `float_first` goes first, in float, and only the points it leaves in doubt are
/// widened to double for `test`; it certifies no point `test` would not, and no non-finite one, so
/// the survivors are the same.
template <class T, class Points, class Source, bool kFloatFirst = false, int kUnroll = kFilterUnroll>
__global__ void __launch_bounds__(kFilterThreads)
    filter_kernel(Points points, index_t n, index_t first_index, Source source,
                  core::FloatQuickTests float_first_given, Point2<T>* kept, unsigned long long* count,
                  unsigned long long* first_bad) {
  // The tests by value, or (a DevicePolygon in device memory) staged in the block's shared memory;
  // where the device polygon leaves the dense guide's decision to the host, the grid returns at once.
  if (skips_filter(source)) return;
  __shared__ PolygonStage stage;
  const auto& test = tests_of(source, stage);
  const core::FloatQuickTests& float_first = float_tests_of(source, float_first_given, stage);
  constexpr unsigned kAll = 0xffffffffu;
  // Where the quick tests leave few points in doubt (a disk: about one in a hundred), a warp of
  // 16-byte points queues them and runs the fan test on 32 at a time, once for every 32 rather than
  // once for every run of 32 points that holds one; at most 31 wait while up to 32 arrive. For
  // 8-byte points behind the inner polygon without the float vote the queue was measured slower
  // (bench/NOTES.md): each lane tests its own. With the vote (kFloatFirst), the points its float
  // tests leave are queued for all the double tests. Behind the dense guide (a test with
  // kQueueDoubts), which leaves the fan's record reads to a few points after its ring, they are
  // queued whatever their size.
  constexpr bool kQueue =
      kFloatFirst || sizeof(Point2<T>) == 16 || queues_doubts<std::remove_cvref_t<decltype(test)>>;
  const int lane = threadIdx.x % kWarp;
  const unsigned lanes_below = (1u << lane) - 1;
  __shared__ Point2<T> queues[kQueue ? kFilterThreads / kWarp : 1][2 * kWarp];
  Point2<T>* queue = queues[kQueue ? threadIdx.x / kWarp : 0];
  int queued = 0;
  // The fan test on queue[0, ready), one point a lane (with kFloatFirst the double quick tests
  // first: the float ones queued them); appends those it leaves to kept.
  const auto test_queued = [&](int ready) {
    __syncwarp();
    Point2<T> q{};
    bool keep = false;
    if (lane < ready) {
      q = queue[lane];
      const auto qx = static_cast<double>(q.x), qy = static_cast<double>(q.y);
      if constexpr (kFloatFirst)
        keep = !test.certainly_inside(qx, qy);
      else
        keep = !test.fan_inside(qx, qy);
    }
    const unsigned keeping = __ballot_sync(kAll, keep);
    if (keeping == 0) return;
    unsigned long long at = 0;
    if (lane == 0) at = atomicAdd(count, static_cast<unsigned long long>(__popc(keeping)));
    at = __shfl_sync(kAll, at, 0);
    if (keep) kept[at + __popc(keeping & lanes_below)] = plus_zeros(q);
  };
  // Appends this lane's q to the queue where bit `lane` of `in` is set (`in`: the warp's ballot),
  // testing the queue's first 32 once it holds as many.
  const auto enqueue = [&](unsigned in, const Point2<T>& q) {
    if (in >> lane & 1u) queue[queued + __popc(in & lanes_below)] = q;
    queued += __popc(in);
    if (queued >= kWarp) {
      test_queued(kWarp);
      queued -= kWarp;
      Point2<T> rest{};
      if (lane < queued) rest = queue[kWarp + lane];
      if (lane < queued) queue[lane] = rest;
      __syncwarp();
    }
  };
  // 8-byte points: each step's loads are issued before the step before is tested, so that a warp
  // held up by a fan test still has reads in flight (16-byte points have twice the bytes in flight
  // a step, and the queue keeps their warps from waiting).
  constexpr bool kPrefetch = sizeof(Point2<T>) == 8;
  static_assert(!kFloatFirst || kPrefetch, "the float vote reads every place of p (next's: zeros at first)");
  const auto load = [&](index_t at, Point2<T>* into) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const index_t i = at + u * kWarp + lane;
      if (i < n) into[u] = points[i];
    }
  };
  const index_t step = static_cast<index_t>(gridDim.x) * blockDim.x * kUnroll;
  const index_t first = (static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x - lane) * kUnroll;
  Point2<T> next[kUnroll]{};
  if constexpr (kPrefetch) {
    if (first < n) load(first, next);
  }
  // Warp-uniform loop: each warp takes kUnroll runs of 32 consecutive points per step.
  for (index_t base = first; base < n; base += step) {
    Point2<T> p[kUnroll];
    if constexpr (kPrefetch) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) p[u] = next[u];
      if (base + step < n) load(base + step, next);
    } else {
      load(base, p);
    }
    // kFloatFirst: the float quick tests on the whole step, then one vote. A step whose every
    // point they certify (at 8 runs a step, about 43 % of a random square's, 58 % of a disk's) is
    // done there, without bounds, branches and ballots a point (the float filter is bound by issuing
    // instructions: bench/NOTES.md). In any other step, the points they leave (a square's: about one
    // in 300) are queued for the double tests, which then run on 32 at a time, not a lane at a time
    // with the rest of the warp waiting. A non-finite point (which no float test certifies) is
    // recorded, not queued. Places past n hold an earlier step's points (or zeros): none is queued.
    if constexpr (kFloatFirst) {
      bool certified[kUnroll];
      bool all = true;
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        certified[u] = float_first.quick_inside(p[u].x, p[u].y);
        all = all & certified[u];
      }
      if (__all_sync(kAll, all)) continue;
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const index_t i = base + u * kWarp + lane;
        const bool left = i < n && !certified[u];
        const bool finite = isfinite(p[u].x) && isfinite(p[u].y);
        if (left && !finite) atomicMin(first_bad, static_cast<unsigned long long>(first_index + i));
        const unsigned queuing = __ballot_sync(kAll, left && finite);
        if (queuing != 0) enqueue(queuing, p[u]);
      }
      continue;
    }
    // Bit `lane` of doubt[u]: the tests so far leave p[u] (the quick tests for 16-byte points, which
    // queue the rest for the fan test; the fan test too for 8-byte points); of mask[u]: it is kept.
    unsigned doubt[kUnroll], mask[kUnroll];
    int doubts = 0;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const index_t i = base + u * kWarp + lane;
      bool in_doubt = false;
      if (i < n) {
        // 64-bit integers rounded: the tests certify none that was not exact (converts_exactly).
        const auto px = static_cast<double>(p[u].x), py = static_cast<double>(p[u].y);
        if (!isfinite(px) || !isfinite(py)) {
          atomicMin(first_bad, static_cast<unsigned long long>(first_index + i));
        } else {
          in_doubt = !test.quick_inside(px, py);
        }
        if constexpr (!kQueue) in_doubt = in_doubt && !test.fan_inside(px, py);
      }
      doubt[u] = mask[u] = __ballot_sync(kAll, in_doubt);
      doubts += __popc(doubt[u]);
    }
    if (doubts == 0) continue;
    if constexpr (kQueue) {
      if (doubts <= kWarp * (kUnroll - 1)) {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          if (doubt[u] != 0) enqueue(doubt[u], p[u]);
        }
        continue;
      }
      // Nearly every point in doubt (a circle): each lane tests its own.
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        bool keep = false;
        if (doubt[u] >> lane & 1u)
          keep = !test.fan_inside(static_cast<double>(p[u].x), static_cast<double>(p[u].y));
        mask[u] = __ballot_sync(kAll, keep);
      }
    }
    int total = 0;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) total += __popc(mask[u]);
    if (total == 0) continue;
    // One reservation a warp a step for all its runs: where every point is kept (a circle), one per
    // run made 8 M atomicAdds on the one counter for 2^28 points.
    unsigned long long at = 0;
    if (lane == 0) at = atomicAdd(count, static_cast<unsigned long long>(total));
    at = __shfl_sync(kAll, at, 0);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (mask[u] >> lane & 1u) kept[at + __popc(mask[u] & lanes_below)] = plus_zeros(p[u]);
      at += __popc(mask[u]);
    }
  }
  if constexpr (kQueue) {
    if (queued > 0) test_queued(queued);
  }
}

/// The radix sort's key: x alone (half the passes of (x, y)); the rewrite of each run of equal x
/// (below) then makes the order lexicographic.
template <class T>
struct XDecomposer {
  __host__ __device__ ::cuda::std::tuple<T&> operator()(Point2<T>& p) const { return {p.x}; }
};

// ---- equal x after the sort on x alone -----------------------------------------------------------
// The sort leaves each run of equal x in no particular order of y. A point strictly between the
// lowest and the highest of its run is no hull vertex, so rewriting the run's y as the lowest y at
// every place but the last, which takes the highest, leaves a lexicographically sorted array of
// input points with the same hull (the chains take duplicates). A run shorter than kLongRun is
// rewritten by the thread at its head; a longer one (grids, vertical lines) by all its points: each
// warp reduces its share into the run's slot (atomicMax on order-preserving images) and a second
// kernel writes the run. Only y is written: x, which every thread reads to find its run, stays.
constexpr index_t kRunProbe = 32;
constexpr index_t kLongRun = 2 * kRunProbe;

/// Where the run of p[i] (sorted on x) begins and ends, if it holds kLongRun points or more; else
/// {0, 0}. Binary searches only where p[i +- kRunProbe] shares its x (else the run is shorter than
/// kLongRun): every point of a run searches for the same x, so a warp's reads coincide.
template <class T>
__device__ ::cuda::std::tuple<index_t, index_t> long_run_of(const Point2<T>* p, index_t m, index_t i, T x) {
  const bool probe =
      (i >= kRunProbe && p[i - kRunProbe].x == x) || (i + kRunProbe < m && p[i + kRunProbe].x == x);
  if (!probe) return {0, 0};
  index_t lo = 0, hi = i;  // the first index of x
  while (lo < hi) {
    const index_t mid = lo + (hi - lo) / 2;
    if (p[mid].x < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  const index_t begin = lo;
  lo = i + 1, hi = m;  // one past its last
  while (lo < hi) {
    const index_t mid = lo + (hi - lo) / 2;
    if (p[mid].x == x)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo - begin < kLongRun) return {0, 0};
  return {begin, lo};
}

/// Rewrites every run of equal x shorter than kLongRun (from the thread at its head), and reduces
/// every longer one into slot[1 + begin / kLongRun] (no two long runs begin in one kLongRun-aligned
/// stretch), setting slot[0].highest when there is one.
template <class T>
__global__ void rewrite_short_runs_kernel(Point2<T>* p, index_t m, RunSlot* slot) {
  const int lane = threadIdx.x % kWarp;
  const index_t step = static_cast<index_t>(gridDim.x) * blockDim.x;
  // Warp-uniform loop: the long runs' reduction takes whole warps.
  for (index_t base = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x - lane; base < m;
       base += step) {
    const index_t i = base + lane;
    index_t begin = 0, end = 0;
    if (i < m) {
      const T x = p[i].x;
      const bool head = i == 0 || p[i - 1].x != x;
      if (!head || (i + 1 < m && p[i + 1].x == x)) {  // a run of two or more
        ::cuda::std::tie(begin, end) = long_run_of(p, m, i, x);
        if (end == 0 && head) {
          T lowest = p[i].y, highest = lowest;
          index_t last = i + 1;
          for (; last < m && p[last].x == x; ++last) {
            const T y = p[last].y;
            if (y < lowest) lowest = y;
            if (highest < y) highest = y;
          }
          for (index_t j = i; j + 1 < last; ++j) p[j].y = lowest;
          p[last - 1].y = highest;
        }
      }
    }
    const bool in_long = end != 0;
    const unsigned peers =
        __match_any_sync(0xffffffffu, in_long ? static_cast<unsigned long long>(begin) : ~0ull);
    if (!in_long) continue;
    const unsigned long long image = ordered_image(p[i].y);
    unsigned long long highest = image, not_lowest = ~image;
    for (unsigned rest = peers; rest != 0; rest &= rest - 1) {
      const int from = __ffs(rest) - 1;
      highest = max(highest, __shfl_sync(peers, image, from));
      not_lowest = max(not_lowest, ~__shfl_sync(peers, image, from));
    }
    if (lane == __ffs(peers) - 1) {
      RunSlot& s = slot[1 + begin / kLongRun];
      atomicMax(&s.highest, highest);
      atomicMax(&s.not_lowest, not_lowest);
      if (slot[0].highest == 0) slot[0].highest = 1;
    }
  }
}

/// Writes every long run from its slot (nothing unless rewrite_short_runs_kernel found one).
template <class T>
__global__ void rewrite_long_runs_kernel(Point2<T>* p, index_t m, const RunSlot* slot) {
  if (slot[0].highest == 0) return;
  for (index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < m;
       i += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const T x = p[i].x;
    if ((i == 0 || p[i - 1].x != x) && (i + 1 == m || p[i + 1].x != x)) continue;
    index_t begin = 0, end = 0;
    ::cuda::std::tie(begin, end) = long_run_of(p, m, i, x);
    if (end == 0) continue;
    const RunSlot s = slot[1 + begin / kLongRun];
    p[i].y = i + 1 == end ? from_ordered_image<T>(s.highest) : from_ordered_image<T>(~s.not_lowest);
  }
}

// ---- the sort on a 32-bit key for 8-byte coordinates (core/x_key.hpp) ---------------------------
// From min_survivors_for_key_sort() survivors with 8-byte coordinates (double, int64), finish()
// sorts the survivors' places by core::split_x_key (four radix passes of 8-byte words, each a key and
// a place, instead of eight of 16-byte points), gathers the points into that order and sorts each run
// of equal key on its own, exactly: the upper chain's points ascending, then the lower chain's
// descending, the partition by the baseline's layout without its pass. A run too long for a block (a
// few far points dominating x's range) sends it back to the sort on x and the partition, from the
// survivors as the filter left them.
constexpr int kKeyRunThreads = 512;
constexpr int kKeyRunItems = core::kBlockKeyRun / kKeyRunThreads;
static_assert(kKeyRunItems * kKeyRunThreads == core::kBlockKeyRun, "a block sorts the longest run at once");
constexpr int kWarpKeyRunItems = core::kWarpKeyRun / kWarp;
static_assert(kWarpKeyRunItems * kWarp == core::kWarpKeyRun, "a warp sorts its longest run at once");
constexpr int kWarpKeyRunThreads = 256;
// key_words: [0] the runs listed for a warp, [1] those a warp passes to a block, [2] the runs too
// long for a block.
enum KeyWord { kLongRuns, kBlockRuns, kTooLong, kKeyWords };

template <class T>
struct LexExtremesOf {
  __host__ __device__ LexExtremes<T> operator()(const Point2<T>& p) const { return {p, p}; }
};

/// The survivors' smallest and largest point, as CUB reduces them: the baseline's ends and x's range.
template <class T>
auto survivors_as_extremes(const Point2<T>* p) {
  return thrust::make_transform_iterator(p, LexExtremesOf<T>{});
}

/// Each point's core::split_x_key (its side of the baseline by the exact orient2d, as the partition
/// takes it) and its place (the sort's value); the points on or above the baseline counted into
/// *upper_count (set to 0 first), and the smallest index of a non-finite point into *first_bad (the
/// filter's report, for points that took no filter: finish_unfiltered). A thread reads its
/// kSplitKeyPoints points of a step before it keys any: with one point a step, the pass took 2.0 ms
/// at 2^28 double points where it takes 1.6 now (bench/NOTES.md, "The key pass and the runs' list
/// with more bytes in flight").
constexpr int kSplitKeyPoints = 4;
template <class T>
__global__ void split_keys_kernel(const Point2<T>* p, index_t m, const LexExtremes<T>* extremes,
                                  std::uint64_t* keyed_places, index_t* upper_count,
                                  unsigned long long* first_bad) {
  const Point2<T> lo = extremes->lo, hi = extremes->hi;
  const core::XKeyScale scale = core::x_key_scale(static_cast<double>(lo.x), static_cast<double>(hi.x));
  const auto threads = static_cast<index_t>(gridDim.x) * blockDim.x;
  unsigned long long upper = 0;
  for (index_t first = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; first < m;
       first += kSplitKeyPoints * threads) {
    Point2<T> q[kSplitKeyPoints];
#pragma unroll
    for (int j = 0; j < kSplitKeyPoints; ++j) {
      const index_t i = first + j * threads;
      if (i < m) q[j] = p[i];
    }
#pragma unroll
    for (int j = 0; j < kSplitKeyPoints; ++j) {
      const index_t i = first + j * threads;
      if (i >= m) break;
      if (!is_finite(q[j])) atomicMin(first_bad, static_cast<unsigned long long>(i));
      const bool below = orient2d(lo, hi, q[j]) < 0;
      upper += below ? 0 : 1;
      keyed_places[i] =
          KeyedPlaces::word(core::split_x_key(q[j].x, below, scale), static_cast<std::uint32_t>(i));
    }
  }
  for (int d = kWarp / 2; d > 0; d /= 2) upper += __shfl_xor_sync(0xffffffffu, upper, d);
  static_assert(sizeof(index_t) == sizeof(unsigned long long), "the count is added as a 64-bit word");
  if (threadIdx.x % kWarp == 0 && upper != 0)
    atomicAdd(reinterpret_cast<unsigned long long*>(upper_count), upper);
}

/// Where the split's place i goes (of m places, the first u = *upper_count on or above the baseline):
/// to[i] for i < u; for i >= u, to[i] too (lower null: the rest descending, as the partition writes
/// them) or the lower chain's input, lower[1 + i - u], reflected (core::reflected reverses the
/// order, so that input ascends). A run of one key lies on one side (the key holds it).
template <class T>
struct SplitTargets {
  static constexpr bool kPlaced = false;
  Point2<T>* to;
  Point2<T>* lower;
  const index_t* upper_count;

  /// A run's first place and how its points are written there.
  struct Run {
    Point2<T>* at;
    bool reflect;
    __device__ Point2<T> point(const Point2<T>& p) const { return split_point(p, reflect); }
    /// Whether the run sorts descending (below the baseline, unless reflected).
    __device__ bool descends(std::uint32_t key) const { return core::split_key_descends(key) && !reflect; }
    /// The run's k-th point once sorted, p (point() of the point at `place`).
    __device__ void put(int k, const Point2<T>& p, std::uint32_t) const { at[k] = p; }
  };
  __device__ Run run(index_t head) const {
    if (lower != nullptr) {
      const index_t u = *upper_count;
      if (head >= u) return {lower + 1 + (head - u), true};
    }
    return {to + head, false};
  }
};

/// The split left for PlacedPoints to read (as SplitTargets with `lower`, places rather than points):
/// the runs of one key that list_key_runs_kernel lists are sorted among the sorted words' low halves
/// (`places`, two a word), ascending as the chain reads them (reflected below the baseline); the
/// other runs, short and inside one tile of their chain, are sorted by the tile kernel as it loads
/// them (load_placed). Only the low halves are written: the keys stay as other threads read them.
template <class T>
struct PlacedTargets {
  static constexpr bool kPlaced = true;
  std::uint32_t* places;
  const index_t* upper_count;

  struct Run {
    std::uint32_t* at;  ///< the run's first place (places + 2 * head)
    bool reflect;
    __device__ Point2<T> point(const Point2<T>& p) const { return split_point(p, reflect); }
    __device__ bool descends(std::uint32_t) const { return false; }
    __device__ void put(int k, const Point2<T>&, std::uint32_t place) const { at[2 * k] = place; }
  };
  __device__ Run run(index_t head) const { return {places + 2 * head, head >= *upper_count}; }
};

/// After the sort by key: each point of a key of its own gathered to its place, each run of up to
/// core::kThreadKeyRun points gathered and sorted by the thread at its head (descending below the
/// baseline: core::split_key_descends); the heads of longer runs listed (core::key_run_at).
template <class T>
__global__ void gather_key_runs_kernel(KeyedPlaces keys, const Point2<T>* from, SplitTargets<T> split,
                                       index_t m, index_t* long_runs, unsigned long long* key_words) {
  for (index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < m;
       i += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const core::KeyRunAt run = core::key_run_at(keys, i, m);
    if (run.is_long) {
      long_runs[atomicAdd(&key_words[kLongRuns], 1ull)] = i;
    } else if (run.length > 0) {
      const auto target = split.run(i);
      for (int k = 0; k < run.length; ++k) target.at[k] = target.point(from[keys.place(i + k)]);
      if (run.length > 1) core::insertion_sort_lex(target.at, run.length, target.descends(keys[i]));
    }
  }
}

/// For PlacedTargets, in place of gather_key_runs_kernel: lists the heads of the runs of one key that
/// the tile kernel's load cannot sort (load_placed sorts a run of up to core::kThreadKeyRun points
/// inside one tile of its chain), for the warp and block kernels to sort among the words: a longer
/// run; a run that reaches the end of a tile of its chain (the tiles of the lower chain start at its
/// first point, the largest, word u - 1), whose last point the next level reads by place
/// (init_strips_kernel); and the runs of the smallest point and of the largest (at words 0 and
/// u - 1), which the lower chain reads as its ends. Reads the keys alone: no point moves.
template <class T>
__global__ void list_key_runs_kernel(KeyedPlaces keys, index_t m, const index_t* upper_count,
                                     index_t* long_runs, unsigned long long* key_words) {
  constexpr index_t kTile = UpperHullPolicy<T>::kTile;
  const index_t u = *upper_count;
  for (index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < m;
       i += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const std::uint32_t key = keys[i];
    if ((i > 0 && keys[i - 1] == key) || i + 1 == m || keys[i + 1] != key) continue;
    index_t end = i + 2;
    while (end < m && end - i <= core::kThreadKeyRun && keys[end] == key) ++end;
    const index_t first = i >= u ? u - 1 : 0;  // the word of the chain's first point
    if (end - i > core::kThreadKeyRun || (i - first) / kTile != (end - first) / kTile || i == 0 || end == u)
      long_runs[atomicAdd(&key_words[kLongRuns], 1ull)] = i;
  }
}

/// A run's order: lexicographic, or its reverse below the baseline.
struct RunOrder {
  bool descending;
  template <class T>
  __device__ bool operator()(const Point2<T>& a, const Point2<T>& b) const {
    return descending ? lex_less(b, a) : lex_less(a, b);
  }
  /// What fills a sort's places past the run: a point that sorts last.
  template <class T>
  __device__ Point2<T> last() const {
    constexpr T kFar = std::numeric_limits<T>::max();
    return descending ? Point2<T>{std::numeric_limits<T>::lowest(), std::numeric_limits<T>::lowest()}
                      : Point2<T>{kFar, kFar};
  }
};

// A run's points sorted with their places (PlacedTargets keeps the places; the two share CUB's storage).
template <class T>
using WarpKeyRunSort = cub::WarpMergeSort<Point2<T>, kWarpKeyRunItems, kWarp, std::uint32_t>;
template <class T>
using BlockKeyRunSort = cub::BlockMergeSort<Point2<T>, kKeyRunThreads, kKeyRunItems, std::uint32_t>;

/// The listed long runs, a warp each (in turn over the grid): the run's end found 32 keys a step;
/// a run of up to core::kWarpKeyRun points gathered and sorted by the warp, a longer one listed for
/// a block, or counted in key_words[kTooLong] when longer than a block sorts.
template <class T, class Targets>
__global__ void __launch_bounds__(kWarpKeyRunThreads)
    sort_warp_key_runs_kernel(KeyedPlaces keys, const Point2<T>* from, Targets split, index_t m,
                              const index_t* long_runs, KeyRun* block_runs, unsigned long long* key_words) {
  constexpr int kWarps = kWarpKeyRunThreads / kWarp;
  __shared__ typename WarpKeyRunSort<T>::TempStorage storage[kWarps];
  const int warp = static_cast<int>(threadIdx.x) / kWarp, lane = static_cast<int>(threadIdx.x) % kWarp;
  const auto runs = static_cast<index_t>(key_words[kLongRuns]);
  for (index_t r = static_cast<index_t>(blockIdx.x) * kWarps + warp; r < runs;
       r += static_cast<index_t>(gridDim.x) * kWarps) {
    const index_t head = long_runs[r];
    const std::uint32_t key = keys[head];
    // Listed runs may be short (list_key_runs_kernel): the end is searched from the head on.
    index_t end = head + 1;
    while (end - head <= core::kBlockKeyRun) {
      const index_t at = end + lane;
      const unsigned differs = __ballot_sync(0xffffffffu, at >= m || keys[at] != key);
      if (differs != 0) {
        end += __ffs(static_cast<int>(differs)) - 1;
        break;
      }
      end += kWarp;
    }
    const index_t length = end - head;
    if (length > core::kBlockKeyRun) {
      if (lane == 0) atomicAdd(&key_words[kTooLong], 1ull);
    } else if (length > core::kWarpKeyRun) {
      if (lane == 0) block_runs[atomicAdd(&key_words[kBlockRuns], 1ull)] = {head, length};
    } else {
      const auto target = split.run(head);
      const RunOrder order{target.descends(key)};
      Point2<T> items[kWarpKeyRunItems];
      std::uint32_t places[kWarpKeyRunItems];
#pragma unroll
      for (int j = 0; j < kWarpKeyRunItems; ++j) {
        const index_t at = static_cast<index_t>(lane) * kWarpKeyRunItems + j;
        places[j] = at < length ? keys.place(head + at) : 0;
        items[j] = at < length ? target.point(from[places[j]]) : order.last<T>();
      }
      WarpKeyRunSort<T>(storage[warp]).Sort(items, places, order, static_cast<int>(length), order.last<T>());
#pragma unroll
      for (int j = 0; j < kWarpKeyRunItems; ++j) {
        const index_t at = static_cast<index_t>(lane) * kWarpKeyRunItems + j;
        if (at < length) target.put(static_cast<int>(at), items[j], places[j]);
      }
    }
    __syncwarp();  // the sort's storage is used again
  }
}

/// The runs a warp passed on, a block each (in turn over the grid): gathered and sorted in shared
/// memory (dynamic: 64 KB of points), lexicographically or in reverse (RunOrder).
template <class T, class Targets>
__global__ void __launch_bounds__(kKeyRunThreads)
    sort_block_key_runs_kernel(KeyedPlaces keys, const Point2<T>* from, Targets split,
                               const KeyRun* block_runs, const unsigned long long* key_words) {
  extern __shared__ unsigned char shared_bytes[];
  auto& storage = *reinterpret_cast<typename BlockKeyRunSort<T>::TempStorage*>(shared_bytes);
  const auto runs = static_cast<index_t>(key_words[kBlockRuns]);
  for (index_t r = blockIdx.x; r < runs; r += gridDim.x) {
    const KeyRun run = block_runs[r];
    const auto target = split.run(run.head);
    const RunOrder order{target.descends(keys[run.head])};
    Point2<T> items[kKeyRunItems];
    std::uint32_t places[kKeyRunItems];
#pragma unroll
    for (int j = 0; j < kKeyRunItems; ++j) {
      const index_t at = static_cast<index_t>(threadIdx.x) * kKeyRunItems + j;
      places[j] = at < run.length ? keys.place(run.head + at) : 0;
      items[j] = at < run.length ? target.point(from[places[j]]) : order.last<T>();
    }
    BlockKeyRunSort<T>(storage).Sort(items, places, order, static_cast<int>(run.length), order.last<T>());
#pragma unroll
    for (int j = 0; j < kKeyRunItems; ++j) {
      const index_t at = static_cast<index_t>(threadIdx.x) * kKeyRunItems + j;
      if (at < run.length) target.put(static_cast<int>(at), items[j], places[j]);
    }
    __syncthreads();  // the sort's storage is used again
  }
}

/// Whether finish() sorts m survivors by key: 8-byte coordinates, many of them (but places fit 32
/// bits), and room on the device for the keyed places (two 8-byte arrays) besides what is allocated
/// already.
template <class T>
bool sort_by_key_pays(FullHullWorkspace<T>& ws, index_t m) {
  if (sizeof(T) != 8 || m < min_survivors_for_key_sort_now.load(std::memory_order_relaxed) ||
      m > index_t{0xffffffff})
    return false;
  if (ws.keyed_places[0].size() >= static_cast<std::size_t>(m)) return true;
  const auto needed = 2 * static_cast<std::size_t>(m) * sizeof(std::uint64_t);
  std::size_t free_bytes = 0, total_bytes = 0;
  WAGENER_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return needed + needed / 4 < free_bytes;  // a margin for the chains' workspaces
}

/// CUB's temporary bytes for sort_and_split_by_key: the reduction to the survivors' extremes, and the
/// SortKeys of m keyed places.
template <class T>
std::size_t sort_by_key_temp_bytes(index_t m, cudaStream_t stream) {
  std::size_t sort_bytes = 0, reduce_bytes = 0;
  cub::DoubleBuffer<std::uint64_t> sorted(nullptr, nullptr);
  WAGENER_CUDA_CHECK(
      cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, sorted, m, KeyedPlaces::kKeyBit, 64, stream));
  WAGENER_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, reduce_bytes, survivors_as_extremes<T>(nullptr),
                                               static_cast<LexExtremes<T>*>(nullptr), m, WidenLexExtremes{},
                                               no_extremes<T>(), stream));
  return std::max(sort_bytes, reduce_bytes);
}

/// The lower chain's input's ends, after a split that placed the points below the baseline there
/// (SplitTargets): the largest point first and the smallest last, reflected, as reflect_lower_kernel
/// writes them; their number at *lower_count.
template <class T>
__global__ void lower_input_ends_kernel(const Point2<T>* to, index_t m, const index_t* upper_count,
                                        Point2<T>* lower, index_t* lower_count) {
  const index_t u = *upper_count;
  lower[0] = core::reflected(to[u - 1]);
  lower[m - u + 1] = core::reflected(to[0]);
  *lower_count = m - u + 2;
}

/// Sorts and splits the m survivors at `from` into `to` as the partition by the baseline does (see
/// finish()): to[0 .. u) the u points on or above the line from the smallest survivor to the largest,
/// ascending, then the rest descending, with u at ws.upper_count. With `lower` (m + 2 points, apart
/// from `from` and `to`), the rest go there instead as the lower chain's input, which
/// reflect_lower_kernel would write: lower[1 .. m - u + 1) reflected, between the largest point's
/// and the smallest's reflections, their number at ws.lower_count. With `placed`, neither is
/// written: the split is left in the sorted words (PlacedTargets), *placed set to them (PlacedSplit).
/// Returns false, `from` as it was, where a run of one key is longer than a block sorts. temp: CUB's
/// temporary storage, at least sort_by_key_temp_bytes(m).
template <class T>
bool sort_and_split_by_key(FullHullWorkspace<T>& ws, const Point2<T>* from, Point2<T>* to, index_t m,
                           std::size_t temp_bytes, cudaStream_t stream, Point2<T>* lower = nullptr,
                           std::uint64_t** placed = nullptr) {
  for (auto& buffer : ws.keyed_places) FullHullWorkspace<T>::grow(buffer, m);
  FullHullWorkspace<T>::grow(ws.long_key_runs, m / (core::kThreadKeyRun + 1) + 1);
  FullHullWorkspace<T>::grow(ws.block_key_runs, m / (core::kWarpKeyRun + 1) + 1);
  unsigned long long* words = ws.key_words.data();
  WAGENER_CUDA_CHECK(cudaMemsetAsync(words, 0, kKeyWords * sizeof(unsigned long long), stream));
  WAGENER_CUDA_CHECK(cudaMemsetAsync(ws.upper_count.data(), 0, sizeof(index_t), stream));
  LexExtremes<T>* extremes = ws.key_extremes.data();
  WAGENER_CUDA_CHECK(cub::DeviceReduce::Reduce(ws.sort_temp.data(), temp_bytes, survivors_as_extremes(from),
                                               extremes, m, WidenLexExtremes{}, no_extremes<T>(), stream));
  split_keys_kernel<T><<<stride_grid(m), 256, 0, stream>>>(from, m, extremes, ws.keyed_places[0].data(),
                                                           ws.upper_count.data(), ws.counters.data() + 1);
  WAGENER_CUDA_CHECK_LAUNCH();
  cub::DoubleBuffer<std::uint64_t> sorted(ws.keyed_places[0].data(), ws.keyed_places[1].data());
  WAGENER_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(ws.sort_temp.data(), temp_bytes, sorted, m,
                                                    KeyedPlaces::kKeyBit, 64, stream));
  const KeyedPlaces keys{sorted.Current()};
  const auto split_runs = [&](auto split) {
    using Targets = decltype(split);
    if constexpr (Targets::kPlaced) {
      list_key_runs_kernel<T><<<stride_grid(m), 256, 0, stream>>>(keys, m, ws.upper_count.data(),
                                                                  ws.long_key_runs.data(), words);
    } else {
      gather_key_runs_kernel<T>
          <<<stride_grid(m), 256, 0, stream>>>(keys, from, split, m, ws.long_key_runs.data(), words);
    }
    WAGENER_CUDA_CHECK_LAUNCH();
    sort_warp_key_runs_kernel<T, Targets><<<4 * multiprocessors(), kWarpKeyRunThreads, 0, stream>>>(
        keys, from, split, m, ws.long_key_runs.data(), ws.block_key_runs.data(), words);
    WAGENER_CUDA_CHECK_LAUNCH();
    constexpr auto kBlockSortBytes = static_cast<int>(sizeof(typename BlockKeyRunSort<T>::TempStorage));
    allow_dynamic_shared<sort_block_key_runs_kernel<T, Targets>>(kBlockSortBytes);
    sort_block_key_runs_kernel<T, Targets><<<multiprocessors(), kKeyRunThreads, kBlockSortBytes, stream>>>(
        keys, from, split, ws.block_key_runs.data(), words);
    WAGENER_CUDA_CHECK_LAUNCH();
  };
  if (placed != nullptr) {
    *placed = sorted.Current();
    // The places are the words' low halves (KeyedPlaces).
    split_runs(PlacedTargets<T>{reinterpret_cast<std::uint32_t*>(sorted.Current()), ws.upper_count.data()});
  } else {
    split_runs(SplitTargets<T>{to, lower, ws.upper_count.data()});
    if (lower != nullptr) {
      lower_input_ends_kernel<T>
          <<<1, 1, 0, stream>>>(to, m, ws.upper_count.data(), lower, ws.lower_count.data());
      WAGENER_CUDA_CHECK_LAUNCH();
    }
  }
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(ws.key_words_host.data(), words + kTooLong, sizeof(unsigned long long),
                                     cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  return ws.key_words_host.data()[0] == 0;
}

/// The partition's test: is p on or above the line from the smallest to the largest sorted point?
/// (Exact: a point the upper chain needs is never sent to the lower chain alone.)
template <class T>
struct OnOrAboveBaseline {
  const Point2<T>* sorted;
  index_t m;
  __device__ bool operator()(const Point2<T>& p) const { return orient2d(sorted[0], sorted[m - 1], p) >= 0; }
};

/// The lower chain's input (see finish()): out[i] = split[u + i] reflected (core::reflected) for the
/// m - u + 2 points from the largest down to the smallest, u = *upper_count read on the device, and
/// their number stored at *lower_count.
template <class T>
__global__ void reflect_lower_kernel(const Point2<T>* split, index_t m, const index_t* upper_count,
                                     Point2<T>* out, index_t* lower_count) {
  const index_t u = *upper_count;
  const index_t n = m - u + 2;
  if (blockIdx.x == 0 && threadIdx.x == 0) *lower_count = n;
  for (index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<index_t>(gridDim.x) * blockDim.x) {
    out[i] = core::reflected(split[u + i]);
  }
}

/// The counter-clockwise hull from the two chains (full_hull.cuh's join_chains), over the grid.
template <class T>
__device__ void join_chains_over_grid(const Point2<T>* lower_reflected, index_t l, const Point2<T>* upper,
                                      index_t u, Point2<T>* out) {
  join_chains(lower_reflected, l, upper, u, out, static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x,
              static_cast<index_t>(gridDim.x) * blockDim.x, [](const Point2<T>* p) { return *p; });
}

template <class T>
__global__ void join_chains_kernel(const Point2<T>* lower_reflected, index_t l, const Point2<T>* upper,
                                   index_t u, Point2<T>* out) {
  join_chains_over_grid(lower_reflected, l, upper, u, out);
}

/// join_chains_kernel's placement of one chain's points (core::joined_place), for a chain dense or
/// left in its tiles by the in-place rounds (DeviceHull::in_tiles): the lower chain (`lower`, l
/// points) gives the hull's first l points, reflected back and reversed; the upper one (u points) the
/// last u - 2, reversed, without its two ends. Each tile's live run goes to its place in the hull
/// (for_each_run_point: lanes_log2 from runs_launch), so the hood is read once, with no compaction
/// before it.
template <class T>
__global__ void place_chain_kernel(DeviceHull<T> chain, bool lower, index_t l, index_t u, int lanes_log2,
                                   Point2<T>* out) {
  const auto place = [&](index_t j, const Point2<T>& p) {
    if (lower) {
      out[core::joined_place(true, j, l, u)] = core::reflected(p);
    } else if (core::upper_point_joins(j, u)) {
      out[core::joined_place(false, j, l, u)] = p;
    }
  };
  const index_t thread = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const index_t threads = static_cast<index_t>(gridDim.x) * blockDim.x;
  const TiledHood<T>& hood = chain.in_tiles;
  if (hood.tiles == 0) {
    for (index_t j = thread; j < chain.size; j += threads) place(j, chain.data[j]);
    return;
  }
  for_each_run_point<T>(
      hood.tiles, lanes_log2, [&](index_t t) { return hood.points + t * hood.stride + hood.lo[t]; },
      hood.size, hood.offset, place);
}

/// A chain enqueued by upper_hull_enqueued: its words, and the buffers of its first and second level
/// (EnqueuedHullWords::hull_buffer picks one).
template <class T>
struct EnqueuedChain {
  const EnqueuedHullWords* words;
  const Point2<T>* first;
  const Point2<T>* second;
};

/// join_chains_kernel over two enqueued chains, where both finished on the device (else nothing).
template <class T>
__global__ void join_enqueued_chains_kernel(EnqueuedChain<T> lower, EnqueuedChain<T> upper, Point2<T>* out) {
  const EnqueuedHullWords l = *lower.words, u = *upper.words;
  if (l.finished == 0 || u.finished == 0) return;
  join_chains_over_grid(l.hull_buffer(lower.first, lower.second), l.hull_size(),
                        u.hull_buffer(upper.first, upper.second), u.hull_size(), out);
}

int filter_grid(index_t n, int unroll = kFilterUnroll) {
  const index_t most = index_t{multiprocessors()} * kFilterBlocksPerSm;
  return static_cast<int>(std::clamp<index_t>(ceil_div(n, index_t{kFilterThreads} * unroll), 1, most));
}

template <class T>
FullHullWorkspace<T>& thread_workspace() {
  return per_device_thread_local<FullHullWorkspace<T>>();
}

/// The inner polygon's tests, whether its centre is certified (else the view certifies nothing), and
/// whether it leaves many of the decision samples (the dense guide's first test).
struct CoarsePolygon {
  core::InnerPolygonView view;
  bool enabled = false;
  bool leaves_many = false;
  bool keeps_nearly_all = false;  ///< kMinUnfilteredShare of the decision samples outside
};

/// The decision samples for `samples` samples: kDecisionSamples where the guide may be decided.
inline int decision_samples(index_t samples, bool decide) {
  return decide && samples >= kDecisionSamples ? kDecisionSamples : 0;
}

/// Step 1's first kernel: each direction's best of `samples` points (every stride-th) to ws.best.
template <class T, class Points>
void sample_extremes(Points points, index_t samples, index_t stride, FullHullWorkspace<T>& ws,
                     cudaStream_t stream) {
  const int blocks = static_cast<int>(std::min<index_t>(kSampleBlocks, ceil_div(samples, kSamplesPerBlock)));
  if (!std::exchange(ws.best_cleared, false)) {
    WAGENER_CUDA_CHECK(cudaMemsetAsync(ws.best.data(), 0, kDirections * sizeof(unsigned long long), stream));
  }
  sample_extremes_kernel<T><<<blocks, kDirections, 0, stream>>>(points, samples, stride, ws.best.data());
  WAGENER_CUDA_CHECK_LAUNCH();
}

template <class T>
CoarsePolygon host_polygon(FullHullWorkspace<T>& ws, int decision, cudaStream_t stream);

/// Step 1: the inner polygon from the extremes of `samples` points (every stride-th of `points`),
/// uploaded to ws.fan, its vertices (input points) kept in ws.polygon_host; returns the view the
/// filter takes (a disabled one when the polygon is degenerate). With `decide` (and at least
/// kDecisionSamples samples), kDecisionSamples of the samples come back too and are tested on the
/// host: leaves_many when more than 1 / kOutsideShare of them are not certified inside. One host
/// round trip.
template <class T, class Points>
CoarsePolygon inner_polygon(Points points, index_t samples, index_t stride, FullHullWorkspace<T>& ws,
                            cudaStream_t stream, bool decide = false) {
  const int decision = decision_samples(samples, decide);
  sample_extremes<T>(points, samples, stride, ws, stream);
  gather_extremes_kernel<T>
      <<<1, kDirections, 0, stream>>>(points, samples, stride, decision, ws.best.data(), ws.extremes.data());
  WAGENER_CUDA_CHECK_LAUNCH();
  return host_polygon(ws, decision, stream);
}

/// Step 1's host half, from ws.extremes (the directions' bests, then `decision` samples), as
/// inner_polygon describes it.
template <class T>
CoarsePolygon host_polygon(FullHullWorkspace<T>& ws, int decision, cudaStream_t stream) {
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(ws.extremes_host.data(), ws.extremes.data(),
                                     (kDirections + decision) * sizeof(Point2<double>),
                                     cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));

  std::vector<Point2<double>> extremes;
  for (int d = 0; d < kDirections; ++d) {
    const Point2<double> p = ws.extremes_host.data()[d];
    if (std::isfinite(p.x) && std::isfinite(p.y)) extremes.push_back(p);  // non-finite: the filter reports it
  }
  std::sort(extremes.begin(), extremes.end(), lex_less<double>);
  extremes.erase(std::unique(extremes.begin(), extremes.end()), extremes.end());
  const std::vector<Point2<double>> polygon = cpu::hull_of_sorted<double>(extremes);
  // Input points of type T, widened to double: narrowing them back is exact.
  ws.polygon_vertices = static_cast<index_t>(polygon.size());
  for (std::size_t i = 0; i < polygon.size(); ++i) {
    ws.polygon_host.data()[i] = {static_cast<T>(polygon[i].x), static_cast<T>(polygon[i].y)};
  }
  const core::InnerPolygon inner(polygon, kDirections);
  if (!inner.enabled()) return {};
  // The decision samples against the same tests on the host (a non-finite one counts as outside).
  bool leaves_many = false, keeps_nearly_all = false;
  if (decision > 0) {
    const core::InnerPolygonView host_view = inner.view();
    int outside = 0;
    for (int q = 0; q < decision; ++q) {
      const Point2<double> p = ws.extremes_host.data()[kDirections + q];
      outside += host_view.certainly_inside(p.x, p.y) ? 0 : 1;
    }
    leaves_many = index_t{outside} * kOutsideShare > index_t{decision};
    keeps_nearly_all = outside >= kMinUnfilteredShare * decision;
  }

  // One upload: vertices, angles, the ring's squared radii (one a bucket, where there is a ring
  // test), buckets, back to back (each part 8- or 4-byte aligned). The ring certifies most of what
  // the quick tests leave near a round hull (InnerPolygonView::fan_inside) for a lookup, where the
  // triangle costs a walk and three orientations.
  const auto& vertex = inner.vertices();
  const auto& angle = inner.angles();
  const auto& ring = inner.rings();
  const auto& bucket = inner.buckets();
  const std::size_t vertex_bytes = vertex.size() * sizeof(Point2<double>);
  const std::size_t angle_bytes = angle.size() * sizeof(double);
  const std::size_t ring_bytes = ring.size() * sizeof(double);
  const std::size_t bucket_bytes = bucket.size() * sizeof(int);
  if (vertex.empty() || bucket.size() > kMaxFanBuckets) {
    return {inner.view_with(nullptr, nullptr, nullptr), true, leaves_many,
            keeps_nearly_all};  // the disk and box tests only
  }
  unsigned char* staging = ws.fan_staging.data();
  std::memcpy(staging, vertex.data(), vertex_bytes);
  std::memcpy(staging + vertex_bytes, angle.data(), angle_bytes);
  std::memcpy(staging + vertex_bytes + angle_bytes, ring.data(), ring_bytes);
  std::memcpy(staging + vertex_bytes + angle_bytes + ring_bytes, bucket.data(), bucket_bytes);
  if (ws.fan.size() < ws.fan_staging.size()) ws.fan = DeviceBuffer<unsigned char>(ws.fan_staging.size());
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(ws.fan.data(), staging,
                                     vertex_bytes + angle_bytes + ring_bytes + bucket_bytes,
                                     cudaMemcpyHostToDevice, stream));
  // The staging buffer is reused by the next call, which first waits for this stream (finish()).
  unsigned char* fan = ws.fan.data();
  return {
      inner.view_with(
          reinterpret_cast<const Point2<double>*>(fan), reinterpret_cast<const double*>(fan + vertex_bytes),
          reinterpret_cast<const int*>(fan + vertex_bytes + angle_bytes + ring_bytes),
          ring.empty() ? nullptr : reinterpret_cast<const double*>(fan + vertex_bytes + angle_bytes)),
      true, leaves_many, keeps_nearly_all};
}

/// The filters' report of the first non-finite point, counters[1] (ULLONG_MAX: none): with
/// `non_finite`, sets it and returns true (the caller returns no hull); else throws input_error
/// naming the point.
inline bool reports_non_finite(unsigned long long first_bad, bool* non_finite) {
  if (first_bad == ULLONG_MAX) return false;
  if (non_finite == nullptr) throw input_error("point " + std::to_string(first_bad) + " is not finite");
  *non_finite = true;
  return true;
}

template <class T>
void reset_counters(FullHullWorkspace<T>& ws, cudaStream_t stream) {
  WAGENER_CUDA_CHECK(cudaMemsetAsync(ws.counters.data(), 0, kCounters * sizeof(unsigned long long), stream));
  WAGENER_CUDA_CHECK(cudaMemsetAsync(ws.counters.data() + 1, 0xff, sizeof(unsigned long long), stream));
}

constexpr int kClearThreads = kSurvivorDirections;
static_assert(kClearThreads >= kDirections && kClearThreads >= kCounters, "a word a thread");

/// The counters as reset_counters leaves them, and the directions' bests of the sample and of the
/// survivors zeroed, in one kernel.
__global__ void __launch_bounds__(kClearThreads)
    clear_call_state_kernel(unsigned long long* counters, unsigned long long* best,
                            unsigned long long* survivor_best) {
  const int t = static_cast<int>(threadIdx.x);
  if (t < kCounters) counters[t] = t == 1 ? ~0ull : 0;
  if (t < kDirections) best[t] = 0;
  survivor_best[t] = 0;
}

/// A call's device state cleared in its first launch: the three clearings that sample_extremes,
/// reset_counters and the survivors' polygon enqueue each (four memsets) as one kernel, so that the
/// sample's kernel, the first that waits for the host's launches, starts two launches sooner (bench/NOTES.md,
/// "The call's device state cleared in one launch").
template <class T>
void reset_call_state(FullHullWorkspace<T>& ws, cudaStream_t stream) {
  clear_call_state_kernel<<<1, kClearThreads, 0, stream>>>(ws.counters.data(), ws.best.data(),
                                                           ws.survivor_best.data());
  WAGENER_CUDA_CHECK_LAUNCH();
  ws.best_cleared = ws.survivor_best_cleared = true;
}

/// Takes back reset_call_state's flags when the call ends, however it ends: a later call, perhaps on
/// another stream, clears for itself.
template <class T>
struct CallStateCleared {
  FullHullWorkspace<T>& ws;
  ~CallStateCleared() { ws.best_cleared = ws.survivor_best_cleared = false; }
};

/// After the polygon's filter of n points: the survivors' polygon (survivor_polygon.cu), enqueued
/// from min_points_for_survivor_polygon() points where the polygon has a certified centre. On the
/// device it runs from more survivors than a chain's tile (or from that threshold, if lower: tests
/// reach it with few points).
template <class T>
void maybe_filter_by_survivor_polygon(FullHullWorkspace<T>& ws, index_t n, SurvivorCentre centre,
                                      cudaStream_t stream) {
  const index_t from = min_points_for_survivor_polygon_now.load(std::memory_order_relaxed);
  if (n < from || (centre.device == nullptr && !centre.enabled)) return;
  const index_t min_survivors = std::min<index_t>(UpperHullPolicy<T>::kTile, from);
  filter_by_survivor_polygon(ws, centre, min_survivors, stream);
}

/// The host's polygon's centre, for the survivors' polygon.
inline SurvivorCentre centre_of(const CoarsePolygon& coarse) {
  return {coarse.view.cx, coarse.view.cy, coarse.enabled, nullptr};
}

/// Step 2 over points[0..n), whose first point has index first_index in the whole input; `test`:
/// the polygon's view, GuideTest or GuideFanTest.
template <class T, class Points, class Test>
void filter(Points points, index_t n, index_t first_index, const Test& test, FullHullWorkspace<T>& ws,
            cudaStream_t stream) {
  if (n == 0) return;
  // The inner polygon's tests, from the host or from the device polygon (a pointer to device memory).
  constexpr bool kPolygon = std::is_same_v<Test, core::InnerPolygonView> ||
                            std::is_same_v<Test, const DevicePolygon*> ||
                            std::is_same_v<Test, ConstantPolygon>;
  // Float points behind the inner polygon alone (random input) take its quick tests in float first;
  // behind the guide, where they mostly fail, they would only add work.
  if constexpr (std::is_same_v<T, float> && kPolygon) {
    core::FloatQuickTests quick;  // the device polygon brings its own
    if constexpr (std::is_same_v<Test, core::InnerPolygonView>) quick = core::FloatQuickTests(test);
    filter_kernel<T, Points, Test, true, kFloatFilterUnroll>
        <<<filter_grid(n, kFloatFilterUnroll), kFilterThreads, 0, stream>>>(
            points, n, first_index, test, quick, ws.kept.data(), ws.counters.data(), ws.counters.data() + 1);
  } else {
    constexpr int kUnroll = filter_unroll<Test>();
    filter_kernel<T, Points, Test, false, kUnroll><<<filter_grid(n, kUnroll), kFilterThreads, 0, stream>>>(
        points, n, first_index, test, core::FloatQuickTests(), ws.kept.data(), ws.counters.data(),
        ws.counters.data() + 1);
  }
  WAGENER_CUDA_CHECK_LAUNCH();
}

/// upper_chain() on this thread and lower_chain() on another (for its own stream), both to the end;
/// then the first exception either threw, the upper chain's first.
template <class Upper, class Lower>
void both_chains(Upper&& upper_chain, Lower&& lower_chain) {
  int device = 0;
  WAGENER_CUDA_CHECK(cudaGetDevice(&device));
  std::exception_ptr lower_error;
  std::thread lower_thread([&] {
    try {
      WAGENER_CUDA_CHECK(cudaSetDevice(device));
      lower_chain();
    } catch (...) {
      lower_error = std::current_exception();
    }
  });
  std::exception_ptr upper_error;
  try {
    upper_chain();
  } catch (...) {
    upper_error = std::current_exception();
  }
  lower_thread.join();
  if (upper_error) std::rethrow_exception(upper_error);
  if (lower_error) std::rethrow_exception(lower_error);
}

/// A call's hold on the current device's float_polygon_slot, taken without waiting: empty where
/// another call holds it (this call then takes the host's polygon) or the device has no slot (past
/// 63). Held until the call's filter is done (finish()'s wait), so that no other call rewrites the
/// slot under a running filter.
class FloatPolygonLease {
 public:
  static FloatPolygonLease try_take() {
    static std::atomic<bool> held[64];  // a flag, not a mutex: a nested call on this thread just fails
    int device = 0;
    WAGENER_CUDA_CHECK(cudaGetDevice(&device));
    FloatPolygonLease lease;
    if (device >= 0 && device < 64 && !held[device].exchange(true, std::memory_order_acquire))
      lease.held_ = &held[device];
    return lease;
  }
  FloatPolygonLease() = default;
  FloatPolygonLease(FloatPolygonLease&& other) noexcept : held_(std::exchange(other.held_, nullptr)) {}
  FloatPolygonLease& operator=(FloatPolygonLease&& other) noexcept {
    if (this != &other) {
      release();
      held_ = std::exchange(other.held_, nullptr);
    }
    return *this;
  }
  ~FloatPolygonLease() { release(); }
  explicit operator bool() const { return held_ != nullptr; }

 private:
  void release() {
    if (held_) held_->store(false, std::memory_order_release);
    held_ = nullptr;
  }
  std::atomic<bool>* held_ = nullptr;
};

/// Events between the steps, for FullHullProfile.
struct StepEvents {
  Event start, polygon, guided, filtered, refiltered, sorted, chained;
  FullHullProfile* out;
  void read() const {
    out->polygon_ms = polygon.since(start);
    out->guide_ms = guided.since(polygon);
    out->filter_ms = filtered.since(guided);
    out->survivor_polygon_ms = refiltered.since(filtered);
    out->sort_ms = sorted.since(refiltered);
    out->chains_ms = chained.since(sorted);
  }
  /// Where the block finish built the hull: `sorted` recorded before it, `chained` after.
  void read_block_finish() const {
    read();
    out->chains_ms += out->sort_ms;
    out->sort_ms = 0;
    out->finished_in_blocks = true;
  }
};

/// The split that sort_and_split_by_key left in its sorted words (`placed`), as the chains' inputs:
/// the upper chain's u points are words 0 .. u; the lower chain's m - u + 2 are the largest point
/// (word u - 1), the points below the baseline (words u .. m) and the smallest point (word 0),
/// reflected, as reflect_lower_kernel writes them. Runs of one key are sorted there or as the tiles
/// load them (PlacedTargets).
template <class T>
struct PlacedSplit {
  const std::uint64_t* words;
  const Point2<T>* from;
  PlacedPoints<T> upper() const { return {words, from, 0, -1, false}; }
  PlacedPoints<T> lower(index_t m, index_t u) const { return {words, from, u - 1, m - u + 1, true}; }
};

/// Whether chain_and_join builds the chains of m split points with host waits, each chain on its
/// own stream and host thread (else enqueued, without a host wait, for few survivors).
template <class T>
bool chains_take_host_waits(const FullHullWorkspace<T>& ws, index_t m) {
  return m + 2 >= std::min(ws.upper.filter_from, ws.lower.filter_from);
}

/// The rest of step 3 after the split (see finish()): split[1 .. m + 1) holds the m points, those on
/// or above the baseline in order (their number at ws.upper_count, on the device), then the rest in
/// reverse; lower_input has room for m + 2 points, free. Builds both chains and joins them into
/// `out` (nullptr: lower_input, once the chains are done). With `lower_ready`, the split placed the
/// lower chain's input in lower_input already (sort_and_split_by_key's `lower`): split[1 .. u + 1)
/// alone is read. With `placed` (sort_and_split_by_key's sorted words, and the points they index),
/// neither is read: the chains' first tiles read the points by place (PlacedSplit). Only where the
/// chains take host waits (chains_take_host_waits).
template <class T>
JoinedHull<T> chain_and_join(FullHullWorkspace<T>& ws, Point2<T>* split, index_t m, Point2<T>* lower_input,
                             Point2<T>* out, cudaStream_t stream, StepEvents* profile, bool chain_guides,
                             bool lower_ready = false, const PlacedSplit<T>* placed = nullptr) {
  if (!lower_ready)
    WAGENER_CUDA_CHECK(
        cudaMemcpyAsync(split + m + 1, split + 1, sizeof(Point2<T>), cudaMemcpyDeviceToDevice, stream));
  // The lower chain's input is free once both chains are done: it takes the hull unless `out` does.
  if (out == nullptr) out = lower_input;
  // The chains' levels (and their guides' samples) join tile hoods only where chains_join_hoods().
  ws.upper.join_hoods = ws.lower.join_hoods = chains_join_hoods() ? 1 : 0;
  const cudaStream_t side = ws.side.get();
  auto reflect_lower = [&] {
    if (!lower_ready) {
      reflect_lower_kernel<T><<<stride_grid(m + 2), 256, 0, stream>>>(split, m, ws.upper_count.data(),
                                                                      lower_input, ws.lower_count.data());
      WAGENER_CUDA_CHECK_LAUNCH();
    }
    ws.sorted.record(stream);
    WAGENER_CUDA_CHECK(cudaStreamWaitEvent(side, ws.sorted.get(), 0));
  };

  DeviceHull<T> upper{nullptr, 0}, lower{nullptr, 0};
  if (!chains_take_host_waits(ws, m)) {
    reflect_lower();
    // Few survivors (random input): both chains and the join enqueued on two streams without a host
    // wait, the chains' outcome read back once at the end. Each chain is a few latency-bound
    // launches, so together they take about as long as one.
    EnqueuedHullWords* words = ws.chain_words.data();
    upper_hull_enqueued(split + 1, ws.upper_count.data(), m, ws.upper, words, stream);
    upper_hull_enqueued(lower_input, ws.lower_count.data(), m + 2, ws.lower, words + 1, side);
    ws.lower_done.record(side);
    WAGENER_CUDA_CHECK(cudaStreamWaitEvent(stream, ws.lower_done.get(), 0));
    constexpr int kJoinBlocks = 2 * UpperHullPolicy<T>::kTile / 256;  // the most a finished pair holds
    join_enqueued_chains_kernel<T>
        <<<kJoinBlocks, 256, 0, stream>>>({words + 1, ws.lower.hood[0].data(), ws.lower.last.data()},
                                          {words, ws.upper.hood[0].data(), ws.upper.last.data()}, out);
    WAGENER_CUDA_CHECK_LAUNCH();
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(ws.chain_words_host.data(), words, 2 * sizeof(EnqueuedHullWords),
                                       cudaMemcpyDeviceToHost, stream));
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    const EnqueuedHullWords upper_words = ws.chain_words_host.data()[0],
                            lower_words = ws.chain_words_host.data()[1];
    if (upper_words.finished != 0 && lower_words.finished != 0) {
      if (profile) {
        profile->chained.record(stream);
        profile->read();
      }
      const index_t u = upper_words.hull_size();
      return {out, joined_size(lower_words.hull_size(), u)};
    }
    // A chain needs more levels (many survivors on its hood): they take host waits, each chain on
    // its own stream and host thread.
    both_chains([&] { upper = finish_enqueued(split + 1, upper_words, ws.upper, stream); },
                [&] {
                  lower = finish_enqueued(lower_input, lower_words, ws.lower, side);
                  ws.lower_done.record(side);
                });
  } else {
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(ws.upper_count_host.data(), ws.upper_count.data(), sizeof(index_t),
                                       cudaMemcpyDeviceToHost, stream));
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    const index_t u = ws.upper_count_host.data()[0];
    reflect_lower();  // after the wait: the host's launches below overlap it (unless lower_ready)
    const index_t in_place_from = chains_in_place_from_now.load(std::memory_order_relaxed);
    for (auto* chain : {&ws.upper, &ws.lower})
      chain->in_place_from = in_place_from >= 0 ? in_place_from : UpperHullPolicy<T>::kInPlaceFrom;
    // Both chains at once, the lower one on a second host thread and stream: each is a few
    // latency-bound launches with a host round trip per level. Without their guides where the
    // check found the input mostly convex (build_guide's mostly_convex). Hoods built by in-place
    // rounds stay in their tiles for the join.
    const auto chain = [&](const Point2<T>* input, index_t n, bool is_lower, UpperHullWorkspace<T>& chain_ws,
                           cudaStream_t chain_stream) {
      if constexpr (sizeof(T) == 8) {
        if (placed)
          return upper_hull_on_device(is_lower ? placed->lower(m, u) : placed->upper(), n, chain_ws,
                                      chain_stream, true);
      }
      return upper_hull_on_device(input, n, chain_ws, chain_stream, false, nullptr, chain_guides, true);
    };
    both_chains([&] { upper = chain(split + 1, u, false, ws.upper, stream); },
                [&] {
                  lower = chain(lower_input, m - u + 2, true, ws.lower, side);
                  ws.lower_done.record(side);
                });
  }
  // The join (and later work on `stream`: the next call, a profile's last event) follows the lower
  // chain too.
  WAGENER_CUDA_CHECK(cudaStreamWaitEvent(stream, ws.lower_done.get(), 0));
  const index_t size = joined_size(lower.size, upper.size);
  if (lower.in_tiles.tiles == 0 && upper.in_tiles.tiles == 0) {
    join_chains_kernel<T>
        <<<stride_grid(size), 256, 0, stream>>>(lower.data, lower.size, upper.data, upper.size, out);
    WAGENER_CUDA_CHECK_LAUNCH();
  } else {
    for (const bool is_lower : {true, false}) {
      const DeviceHull<T>& chain = is_lower ? lower : upper;
      // In tiles: runs_launch's threads a run; dense: a thread a point.
      const RunsLaunch launch = chain.in_tiles.tiles > 0
                                    ? runs_launch(chain.in_tiles.tiles, kStrideBlocksPerSm)
                                    : RunsLaunch{stride_grid(std::max<index_t>(chain.size, 1)), 5};
      place_chain_kernel<T><<<launch.blocks, kCopyRunsThreads, 0, stream>>>(
          chain, is_lower, lower.size, upper.size, launch.lanes_log2, out);
      WAGENER_CUDA_CHECK_LAUNCH();
    }
  }
  if (profile) {
    profile->out->chains_in_tiles = (lower.in_tiles.tiles > 0 ? 1 : 0) + (upper.in_tiles.tiles > 0 ? 1 : 0);
    profile->chained.record(stream);
    profile->read();
  }
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  return {out, size};
}

/// Step 3: waits for the filter, reports a non-finite point (throws input_error; with `non_finite`,
/// sets it and returns no hull instead), sorts the survivors, splits them by the baseline, builds
/// both chains and joins them into `out` (device memory for the survivors' number of points;
/// nullptr: a workspace buffer, valid until the next call on `ws`). `chain_guides` false: the chains
/// skip their own guide filters (the check found the input mostly convex, or the dense guide's fan
/// filtered). With `needs_guide` (the filter took the device polygon's tests): where that polygon
/// left the dense guide's decision to the host (the filter then did nothing), sets it and returns no
/// hull.
template <class T>
JoinedHull<T> finish(FullHullWorkspace<T>& ws, cudaStream_t stream, index_t* survivors, Point2<T>* out,
                     StepEvents* profile = nullptr, bool* non_finite = nullptr, bool chain_guides = true,
                     bool* needs_guide = nullptr) {
  if (profile) profile->out->chain_guides = chain_guides;
  // Few survivors: the block finish builds the hull before the wait below, which then ends the call.
  Point2<T>* block_out = out ? out : ws.block_hull.data();
  if (profile) profile->sorted.record(stream);
  // The device polygon's decision is read only where the polygon is this call's.
  const DevicePolygon* polygon = needs_guide ? ws.device_polygon.data() : nullptr;
  const bool published = finish_in_blocks(
      ws, block_out, max_survivors_for_block_finish_now.load(std::memory_order_relaxed), polygon, stream);
  if (profile) profile->chained.record(stream);
  if (!published) {
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(ws.counters_host.data(), ws.counters.data(),
                                       kCounters * sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                       stream));
    if (needs_guide) {
      WAGENER_CUDA_CHECK(cudaMemcpyAsync(ws.device_polygon_host.data(), ws.device_polygon.data(),
                                         sizeof(DevicePolygon), cudaMemcpyDeviceToHost, stream));
    }
  }
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  const bool leaves_many = published ? ws.counters_host.data()[kLeavesManyWord] != 0
                                     : ws.device_polygon_host.data()->leaves_many != 0;
  if (needs_guide && leaves_many) {
    *needs_guide = true;
    return {};
  }
  const unsigned long long* counters = ws.counters_host.data();
  if (reports_non_finite(counters[1], non_finite)) return {};
  const SurvivorsInUse in_use = survivors_in_use(counters);
  const bool refiltered = in_use.in_alt;
  const index_t m = in_use.count;
  if (survivors) *survivors = m;
  if (profile) profile->out->polygon_survivors = static_cast<index_t>(counters[0]);
  if (m == 0) return {};
  if (counters[5] != 0) {
    if (profile) profile->read_block_finish();
    return {block_out, static_cast<index_t>(counters[5] - 1)};
  }

  // Room for the partition's two extra slots in both (kept has n + 2, alt here kSurvivorCapacity + 2).
  if (!refiltered) FullHullWorkspace<T>::grow(ws.alt, m + 2);
  cub::DoubleBuffer<Point2<T>> keys(refiltered ? ws.alt.data() : ws.kept.data(),
                                    refiltered ? ws.kept.data() : ws.alt.data());
  std::size_t temp_bytes = 0;
  WAGENER_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys, m, XDecomposer<T>{}, stream));
  std::size_t partition_bytes = 0;
  const OnOrAboveBaseline<T> on_or_above{keys.Current(), m};
  WAGENER_CUDA_CHECK(cub::DevicePartition::If(nullptr, partition_bytes, keys.Current(), keys.Alternate(),
                                              ws.upper_count.data(), m, on_or_above, stream));
  temp_bytes = std::max(temp_bytes, partition_bytes);
  bool by_key = false;
  if constexpr (sizeof(T) == 8) by_key = sort_by_key_pays(ws, m);
  if (by_key) temp_bytes = std::max(temp_bytes, sort_by_key_temp_bytes<T>(m, stream));
  if (ws.sort_temp.size() < temp_bytes) ws.sort_temp = DeviceBuffer<unsigned char>(temp_bytes);
  // The split (below) written by the sort on a key, or the survivors sorted for the partition.
  bool split_by_key = false;
  if constexpr (sizeof(T) == 8)
    split_by_key =
        by_key && sort_and_split_by_key(ws, keys.Current(), keys.Alternate() + 1, m, temp_bytes, stream);
  if (!split_by_key) {
    WAGENER_CUDA_CHECK(
        cub::DeviceRadixSort::SortKeys(ws.sort_temp.data(), temp_bytes, keys, m, XDecomposer<T>{}, stream));
    // Each run of equal x rewritten (see rewrite_short_runs_kernel): the order is now lexicographic.
    const index_t slots = 1 + ceil_div(m, kLongRun);
    FullHullWorkspace<T>::grow(ws.run_slots, slots);
    WAGENER_CUDA_CHECK(cudaMemsetAsync(ws.run_slots.data(), 0, slots * sizeof(RunSlot), stream));
    rewrite_short_runs_kernel<T><<<stride_grid(m), 256, 0, stream>>>(keys.Current(), m, ws.run_slots.data());
    WAGENER_CUDA_CHECK_LAUNCH();
    rewrite_long_runs_kernel<T><<<stride_grid(m), 256, 0, stream>>>(keys.Current(), m, ws.run_slots.data());
    WAGENER_CUDA_CHECK_LAUNCH();
  }
  Point2<T>* sorted = keys.Current();
  Point2<T>* split = keys.Alternate();
  if (profile) profile->sorted.record(stream);

  // The split, at split[1 ...]: the u points on or above the baseline in order (the smallest point
  // first, the largest last), then the b = m - u below it in reverse order (CUB's partition writes
  // the rejected items backwards; the sort on a key wrote them so already). With the smallest point
  // copied after them, split[u .. m + 2) is the lower chain's input from the largest point down to
  // the smallest: reflected, the sorted input of an upper hull. The upper chain's input is
  // split[1 .. u + 1).
  if (!split_by_key) {
    const OnOrAboveBaseline<T> baseline{sorted, m};
    WAGENER_CUDA_CHECK(cub::DevicePartition::If(ws.sort_temp.data(), partition_bytes, sorted, split + 1,
                                                ws.upper_count.data(), m, baseline, stream));
  }
  // The survivors, sorted or not, are no longer needed: they take the lower chain's input.
  return chain_and_join(ws, split, m, sorted, out, stream, profile, chain_guides);
}

/// Step 3 for the n points of one array of 8-byte coordinates that took no filter (most in convex
/// position, nearly none certified inside the inner polygon: kMinUnfilteredShare): the sort on a 32-bit key
/// reads them where they are and split_keys_kernel reports a non-finite point as the filter does
/// (throws input_error; with `non_finite`, sets it and returns no hull). Where the chains take host
/// waits (many points: `placed`, chains_take_host_waits, which the caller decides once), their first
/// tile level reads the points by place from the sorted words (PlacedSplit): no copy of them in
/// order is written and read again; else the split goes to ws.alt and ws.kept takes the lower
/// chain's input. Returns nothing where a run of one key is longer than a block sorts: the filter's
/// path then takes the points as before (it writes ws.alt and ws.kept before it reads them).
template <class T>
std::optional<JoinedHull<T>> finish_unfiltered(FullHullWorkspace<T>& ws, const Point2<T>* points, index_t n,
                                               cudaStream_t stream, index_t* survivors, Point2<T>* out,
                                               StepEvents* profile, bool* non_finite, bool placed) {
  static_assert(sizeof(T) == 8, "the sort on a 32-bit key takes 8-byte coordinates");
  // The caller grew ws.kept to n + 2 points, and ws.alt too unless `placed` (nothing is split into
  // it then).
  const std::size_t temp_bytes = sort_by_key_temp_bytes<T>(n, stream);
  if (ws.sort_temp.size() < temp_bytes) ws.sort_temp = DeviceBuffer<unsigned char>(temp_bytes);
  // The points below the baseline go straight to the lower chain's input, reflected (in ws.kept,
  // apart from the input and the split): no reflection's pass over them later. Or the chains read
  // them where they are.
  std::uint64_t* placed_words = nullptr;
  const bool split = sort_and_split_by_key(ws, points, ws.alt.data() + 1, n, temp_bytes, stream,
                                           ws.kept.data(), placed ? &placed_words : nullptr);
  // sort_and_split_by_key waited for the stream: the keys' report of a non-finite point is whole.
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(ws.counters_host.data() + 1, ws.counters.data() + 1,
                                     sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (reports_non_finite(ws.counters_host.data()[1], non_finite)) return JoinedHull<T>{};
  if (!split) return std::nullopt;
  if (survivors) *survivors = n;
  if (profile) {
    profile->out->polygon_survivors = n;
    profile->out->unfiltered = true;
    profile->out->chains_read_by_place = placed;
    profile->out->chain_guides = false;
    profile->sorted.record(stream);
  }
  const PlacedSplit<T> placed_split{placed_words, points};
  return chain_and_join(ws, ws.alt.data(), n, ws.kept.data(), out, stream, profile, false, true,
                        placed ? &placed_split : nullptr);
}

/// The joined hull on the host (waits for `stream`).
template <class T>
std::vector<Point2<T>> to_host(const JoinedHull<T>& hull, cudaStream_t stream) {
  return copy_to_host(DeviceHull<T>{hull.data, hull.size}, stream);
}

}  // namespace

template <class T, class Points>
JoinedHull<T> hull_of_device_points(FullHullWorkspace<T>& ws, Points points, index_t n, cudaStream_t stream,
                                    index_t* survivors, Point2<T>* out, FullHullProfile* out_profile,
                                    bool guide, bool* non_finite) {
  if (n == 0) {
    if (survivors) *survivors = 0;
    return {};
  }
  std::optional<StepEvents> profile;
  if (out_profile) {
    *out_profile = {};
    profile.emplace();
    profile->out = out_profile;
    profile->start.record(stream);
  }
  FullHullWorkspace<T>::grow(ws.kept, n + 2);
  reset_call_state(ws, stream);
  const CallStateCleared<T> cleared_this_call{ws};
  StepEvents* events = profile ? &*profile : nullptr;
  const auto record = [&](Event StepEvents::*event) {
    if (profile) ((*profile).*event).record(stream);
  };
  if (n < kMinPointsToFilter) {  // too few to filter: the disabled tests keep every point
    record(&StepEvents::polygon), record(&StepEvents::guided);
    filter<T>(points, n, 0, core::InnerPolygonView{}, ws, stream);
    record(&StepEvents::filtered), record(&StepEvents::refiltered);
    return finish(ws, stream, survivors, out, events, non_finite);
  }
  const auto [stride, samples] = core::strided_sample(n, kSampleSize);
  const bool decide = guide && n >= min_points_for_guide();
  CoarsePolygon coarse;
  // Step 1 on the device (device_polygon.cu): the polygon's tests stay in device memory, where the
  // filter reads them, and the host waits once, in finish(). Doubles: the filter stages the tests in
  // shared memory. Floats: the filter, bound by its instructions, reads them in constant memory, in
  // the device's one slot (FloatPolygonLease); a call that finds it held takes the host's polygon.
  FloatPolygonLease lease;
  if constexpr (std::is_same_v<T, float>) lease = FloatPolygonLease::try_take();
  // Floats and doubles only: integer points take the host's polygon (build_device_polygon is not
  // instantiated for them, and an unoptimised build would not drop the call).
  bool polygon_ready = false;
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if (std::is_same_v<T, double> || lease) {
      const int decision = decision_samples(samples, decide);
      sample_extremes<T>(points, samples, stride, ws, stream);
      build_device_polygon<T>(points, samples, stride, decision, ws, stream);
      record(&StepEvents::polygon), record(&StepEvents::guided);
      if constexpr (std::is_same_v<T, float>) {
        WAGENER_CUDA_CHECK(cudaMemcpyToSymbolAsync(float_polygon_slot, ws.device_polygon.data(),
                                                   sizeof(DevicePolygon), 0, cudaMemcpyDeviceToDevice,
                                                   stream));
        filter<T>(points, n, 0, ConstantPolygon{}, ws, stream);
      } else {
        filter<T>(points, n, 0, static_cast<const DevicePolygon*>(ws.device_polygon.data()), ws, stream);
      }
      record(&StepEvents::filtered);
      // Not in the dense guide's own hull (guide false): its input is a sample of one that the
      // polygon left mostly outside, so most of it survives, more than the survivors' polygon takes.
      if (guide)
        maybe_filter_by_survivor_polygon(ws, n, SurvivorCentre{0, 0, false, ws.device_polygon.data()},
                                         stream);
      record(&StepEvents::refiltered);
      bool needs_guide = false;
      JoinedHull<T> hull =
          finish(ws, stream, survivors, out, events, non_finite, true, decision > 0 ? &needs_guide : nullptr);
      if (!needs_guide) {
        if (out_profile) out_profile->device_polygon = true;
        return hull;
      }
      lease = {};  // finish() waited for the filter
      // The dense guide's path (the device polygon left most decision samples outside, and the filter
      // did nothing): the host's polygon from the extremes the kernel left, then as below. The
      // profile's steps from the polygon on are this pass's.
      coarse = host_polygon(ws, decision, stream);
      reset_counters(ws, stream);
      polygon_ready = true;
    }
  }
  if (!polygon_ready) coarse = inner_polygon(points, samples, stride, ws, stream, decide);
  record(&StepEvents::polygon);
  std::optional<core::ChordFanView> fan;
  bool mostly_convex = false;  // the check's finding: the chains then skip their own guides
  if (coarse.enabled && coarse.leaves_many) {
    fan = build_guide(points, n, coarse.view, ws, stream, out_profile, &mostly_convex);
  }
  record(&StepEvents::guided);
  if constexpr (sizeof(T) == 8 && std::is_same_v<Points, AosPoints<T>>) {
    // Most points in convex position and nearly none certified inside (a double circle): the filter
    // would copy nearly every point, so it is skipped where the sort on a key takes them.
    if (!fan && mostly_convex && coarse.keeps_nearly_all) {
      // The split's buffer first, as finish() grows it for nearly n survivors: then the key sort's
      // arrays are asked for with it allocated, as there. Not where the chains read the points by
      // place (many points), which split nothing into it: 16 bytes a point less on the device.
      const bool placed = chains_take_host_waits(ws, n);
      if (!placed) FullHullWorkspace<T>::grow(ws.alt, n + 2);
      if (sort_by_key_pays(ws, n)) {
        record(&StepEvents::filtered), record(&StepEvents::refiltered);
        if (auto hull =
                finish_unfiltered(ws, points.p, n, stream, survivors, out, events, non_finite, placed))
          return *hull;
        // A run of one key too long for a block: the filter's path below, whose finish() grows
        // ws.alt for nearly n survivors. The key sort's arrays give their room back first, so that
        // it fits where it did when ws.alt was grown before them.
        for (auto& buffer : ws.keyed_places) buffer = DeviceBuffer<std::uint64_t>();
      }
    }
  }
  if (fan && fan->ring != nullptr) {
    // Whether the ring is on is known on the device only: both forms, one of which returns at once.
    const unsigned long long* ring_words = guide_ring_words(ws);
    filter<T>(points, n, 0, GuideTest{coarse.view, *fan, ring_words}, ws, stream);
    filter<T>(points, n, 0, GuideFanTest{coarse.view, *fan, ring_words}, ws, stream);
  } else if (fan) {
    filter<T>(points, n, 0, GuideFanTest{coarse.view, *fan}, ws, stream);
  } else {
    filter<T>(points, n, 0, coarse.view, ws, stream);
  }
  record(&StepEvents::filtered);
  if (!fan && guide) maybe_filter_by_survivor_polygon(ws, n, centre_of(coarse), stream);
  record(&StepEvents::refiltered);
  // The chains skip their own guides behind the dense guide too: the survivors lie outside its
  // polygon, built from a run sample of 1/16 of the input, and a chain's guide, the hull of a sample
  // of at most 1/256 of the survivors, would lie nearly inside it and drop few of them (a float
  // circle's were built and refused, 0.2 ms: bench/NOTES.md, "The chains without guides of their own
  // behind the dense guide").
  return finish(ws, stream, survivors, out, events, non_finite, !mostly_convex && !fan);
}

template JoinedHull<float> hull_of_device_points<float, AosPoints<float>>(FullHullWorkspace<float>&,
                                                                          AosPoints<float>, index_t,
                                                                          cudaStream_t, index_t*,
                                                                          Point2<float>*, FullHullProfile*,
                                                                          bool, bool*);
template JoinedHull<double> hull_of_device_points<double, AosPoints<double>>(FullHullWorkspace<double>&,
                                                                             AosPoints<double>, index_t,
                                                                             cudaStream_t, index_t*,
                                                                             Point2<double>*,
                                                                             FullHullProfile*, bool, bool*);

}  // namespace full_hull

using namespace full_hull;

index_t min_points_for_guide() {
  return min_points_for_guide_now.load(std::memory_order_relaxed);
}

void set_min_points_for_guide(index_t n) {
  min_points_for_guide_now.store(n, std::memory_order_relaxed);
}

index_t min_survivors_for_key_sort() {
  return min_survivors_for_key_sort_now.load(std::memory_order_relaxed);
}

void set_min_survivors_for_key_sort(index_t n) {
  min_survivors_for_key_sort_now.store(n, std::memory_order_relaxed);
}

index_t chains_in_place_from() {
  return chains_in_place_from_now.load(std::memory_order_relaxed);
}

void set_chains_in_place_from(index_t n) {
  chains_in_place_from_now.store(n, std::memory_order_relaxed);
}

index_t min_points_for_survivor_polygon() {
  return min_points_for_survivor_polygon_now.load(std::memory_order_relaxed);
}

void set_min_points_for_survivor_polygon(index_t n) {
  min_points_for_survivor_polygon_now.store(n, std::memory_order_relaxed);
}

index_t max_survivors_for_block_finish() {
  return max_survivors_for_block_finish_now.load(std::memory_order_relaxed);
}

void set_max_survivors_for_block_finish(index_t n) {
  max_survivors_for_block_finish_now.store(n, std::memory_order_relaxed);
}

bool chains_join_hoods() {
  return chains_join_hoods_now.load(std::memory_order_relaxed);
}

void set_chains_join_hoods(bool on) {
  chains_join_hoods_now.store(on, std::memory_order_relaxed);
}

template <class T>
std::vector<Point2<T>> convex_hull_on_device(const Point2<T>* d_points, index_t n, cudaStream_t stream,
                                             index_t* survivors, FullHullProfile* profile) {
  return to_host(hull_of_device_points<T>(thread_workspace<T>(), AosPoints<T>{d_points}, n, stream, survivors,
                                          nullptr, profile, true),
                 stream);
}

template <class T>
std::vector<Point2<T>> convex_hull_on_device(const T* d_x, const T* d_y, index_t n, cudaStream_t stream,
                                             index_t* survivors) {
  return to_host(hull_of_device_points<T>(thread_workspace<T>(), SoaPoints<T>{d_x, d_y}, n, stream, survivors,
                                          nullptr, nullptr, true),
                 stream);
}

template <class T>
index_t convex_hull_on_device(const Point2<T>* d_points, index_t n, Point2<T>* d_hull, cudaStream_t stream,
                              index_t* survivors, FullHullProfile* profile) {
  return hull_of_device_points<T>(thread_workspace<T>(), AosPoints<T>{d_points}, n, stream, survivors, d_hull,
                                  profile, true)
      .size;
}

template <class T>
index_t convex_hull_on_device(const T* d_x, const T* d_y, index_t n, Point2<T>* d_hull, cudaStream_t stream) {
  return hull_of_device_points<T>(thread_workspace<T>(), SoaPoints<T>{d_x, d_y}, n, stream, nullptr, d_hull,
                                  nullptr, true)
      .size;
}

template <class T>
std::vector<Point2<T>> convex_hull_from_host(std::span<const Point2<T>> points, cudaStream_t stream,
                                             index_t* survivors, cudaEvent_t filtered) {
  const index_t n = static_cast<index_t>(points.size());
  if (n == 0) {
    if (survivors) *survivors = 0;
    if (filtered) WAGENER_CUDA_CHECK(cudaEventRecord(filtered, stream));
    return {};
  }
  auto& ws = thread_workspace<T>();
  FullHullWorkspace<T>::grow(ws.kept, n + 2);
  // The polygon comes first, from a sample the CPU gathers from the whole input (the chunks may
  // arrive in any spatial order).
  CoarsePolygon coarse;
  if (n >= kMinPointsToFilter) {
    const auto [stride, samples] = core::strided_sample(n, kHostSampleSize);
    std::vector<Point2<T>> sample(static_cast<std::size_t>(samples));
    for (index_t j = 0; j < samples; ++j)
      sample[static_cast<std::size_t>(j)] =
          points[static_cast<std::size_t>(sample_place(j, stride, samples))];
    FullHullWorkspace<T>::grow(ws.host_sample, samples);
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(ws.host_sample.data(), sample.data(),
                                       sample.size() * sizeof(Point2<T>), cudaMemcpyHostToDevice, stream));
    coarse = inner_polygon<T>(AosPoints<T>{ws.host_sample.data()}, samples, 1, ws, stream);  // synchronises
  }
  reset_counters(ws, stream);
  const index_t chunk = static_cast<index_t>(staging_chunk(sizeof(Point2<T>)));
  for (auto& c : ws.chunk) FullHullWorkspace<T>::grow(c, std::min(n, chunk));
  stream_to_device(
      points.data(), points.size(), sizeof(Point2<T>), stream,
      [&](std::size_t, std::size_t, int slot) -> void* { return ws.chunk[slot].data(); },
      [&](void* device, std::size_t first, std::size_t count) {
        filter<T>(AosPoints<T>{static_cast<const Point2<T>*>(device)}, static_cast<index_t>(count),
                  static_cast<index_t>(first), coarse.view, ws, stream);
      });
  maybe_filter_by_survivor_polygon(ws, n, centre_of(coarse), stream);
  if (filtered) WAGENER_CUDA_CHECK(cudaEventRecord(filtered, stream));
  return to_host(finish<T>(ws, stream, survivors, nullptr), stream);
}

#define WAGENER_INSTANTIATE(T)                                                                              \
  template std::vector<Point2<T>> convex_hull_on_device(const Point2<T>*, index_t, cudaStream_t, index_t*,  \
                                                        FullHullProfile*);                                  \
  template std::vector<Point2<T>> convex_hull_on_device(const T*, const T*, index_t, cudaStream_t,          \
                                                        index_t*);                                          \
  template index_t convex_hull_on_device(const Point2<T>*, index_t, Point2<T>*, cudaStream_t, index_t*,     \
                                         FullHullProfile*);                                                 \
  template index_t convex_hull_on_device(const T*, const T*, index_t, Point2<T>*, cudaStream_t);            \
  template std::vector<Point2<T>> convex_hull_from_host(std::span<const Point2<T>>, cudaStream_t, index_t*, \
                                                        cudaEvent_t);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::cuda
