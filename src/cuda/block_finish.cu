// The block finish of the full hull (convex_hull.cu): where the filters left few survivors (a random
// input keeps 26-3,475 of 2^28 points), four blocks build the whole hull from them, enqueued before
// finish()'s one wait for the counters, so that the host launches nothing after that wait. Otherwise
// the host sorts the survivors with CUB, splits them and runs the two chains, some twenty launches
// after the wait whose kernels are mostly shorter than their launches (bench/NOTES.md).
// Each block loads every survivor and finds the smallest and the largest (the baseline's ends), and
// the highest and the lowest; blocks 0 and 1 keep the points on or above the baseline, blocks 2 and
// 3 those below it, reflected (core::reflected), each pair split at its chain's vertex
// (block_finish_kernel says why that point is one); each block sorts its points
// (block_bitonic_sort, in shared memory), adds the ends where its chain needs them, and takes the
// upper hood of that tile (BlockUpperHull, the tile kernels' block level). The block that finishes
// last joins the four halves into the hull, as join_chains_kernel joins two chains. The chains'
// inputs are the ones finish()'s split gives them, so the hull is the same.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "core/chains.hpp"
#include "cuda/block_bitonic_sort.cuh"
#include "cuda/block_upper_hull.cuh"
#include "cuda/check.cuh"
#include "cuda/full_hull.cuh"
#include "wagener/predicates.hpp"

namespace wagener::cuda::full_hull {
namespace {

static_assert(kBlockFinishPoints == kDefaultMaxSurvivorsForBlockFinish, "the public bound is the tile's");

constexpr int kThreads = 512;
constexpr int kItems = kBlockFinishTile / kThreads;  // survivors a thread loads and sorts

/// BlockUpperHull's layout for the block finish: one tile of kBlockFinishTile points in 8-point strips,
/// without the peel (with 16 rounds of it, the random rows' block finish took 0.02-0.09 ms longer on
/// the H200: bench/NOTES.md).
struct BlockFinishPolicy {
  static constexpr int kThreads = full_hull::kThreads;
  static constexpr int kStrip = kItems;
  static constexpr int kStride = kStrip + 1;
  static constexpr int kTile = kThreads * kStrip;
  static constexpr int kPeelRounds = 0;
  static constexpr bool kPeelJudgesAgain = false;
  // Plain loads: the block reads back the tile it has just written.
  static constexpr bool kLoadAsync = false;
  // The merges' walk from the seam (core::walk_bridge), at most kWalkSteps steps, over hoods of
  // kWalkFromHood vertices or more. In a host model at 2^28 points (bench/NOTES.md), a disk's
  // survivors, mostly hull vertices, settle in 1-5 steps, against searches of 8-22 dependent tests;
  // a square's hoods of a few vertices take 5-8 steps, more than their searches' 5-10 tests (the
  // square's block finish took 10 µs longer when every merge walked).
  static constexpr int kWalkSteps = 8;
  static constexpr int kWalkFromHood = 24;
  static_assert(kTile == kBlockFinishTile, "a block's chain fits its tile");
};

template <class T>
using FinishHull = BlockUpperHull<T, BlockFinishPolicy>;

/// A point another block published (its writes, a fence, then its count; the reader's fence after it
/// saw the count): read from L2 (`ld.global.cg`), past this multiprocessor's L1, which is not
/// coherent with the other's writes. Not volatile, so that join_chains_at's reads of a batch are in
/// flight together: volatile reads, one after another, held 7 % of the random disk's block finish
/// by ncu's samples (bench/NOTES.md, "The fixed costs' kernels at the H200's own clocks").
template <class T>
__device__ Point2<T> load_published(const Point2<T>* p) {
  return {__ldcg(&p->x), __ldcg(&p->y)};
}

/// The counters (read past L1: other blocks wrote some), then polygon's leaves_many (0 without
/// one), to the host's pinned mirror, by one thread, fenced for the host. finish() then waits for
/// the kernel and reads them there: a copy of its own after the kernel added 5-8 µs to the end of
/// a call on the H200, where a write from the kernel added none (bench/NOTES.md, "The counters
/// published by the block finish").
__device__ void publish_counters(const unsigned long long* counters, const DevicePolygon* polygon,
                                 unsigned long long* host) {
  for (int i = 0; i < kCounters; ++i) host[i] = __ldcg(counters + i);
  host[kLeavesManyWord] = polygon != nullptr && polygon->leaves_many != 0 ? 1 : 0;
  __threadfence_system();
}

/// The block finish's reduction over the survivors: the baseline's ends (the lexicographically
/// smallest and largest points) and, where each chain is built in two halves, where they meet: the
/// highest point (largest y, then largest x) for the upper chain, the lowest (smallest y, then
/// smallest x) for the lower one.
template <class T>
struct FinishExtremes {
  Point2<T> lo, hi, top, bottom;
};

/// Whether p lies above q in the order that picks the highest point (y, then x).
template <class T>
__device__ bool higher(const Point2<T>& p, const Point2<T>& q) {
  return p.y > q.y || (p.y == q.y && p.x > q.x);
}

struct WidenFinishExtremes {
  template <class T>
  __device__ FinishExtremes<T> operator()(const FinishExtremes<T>& a, const FinishExtremes<T>& b) const {
    return {lex_less(b.lo, a.lo) ? b.lo : a.lo, lex_less(a.hi, b.hi) ? b.hi : a.hi,
            higher(b.top, a.top) ? b.top : a.top, higher(a.bottom, b.bottom) ? b.bottom : a.bottom};
  }
};

template <class T>
struct BlockFinishStorage {
  union {
    Point2<T> sorted[kBlockFinishTile];  ///< the block's part of a side, sorted (block_bitonic_sort)
    typename FinishHull<T>::TempStorage hull;
  };
  typename cub::BlockReduce<FinishExtremes<T>, kThreads>::TempStorage extremes;
  typename cub::BlockScan<int, kThreads>::TempStorage scan;
  FinishExtremes<T> ends;
  bool last;
};

/// A point lexicographically not below any point of T: the sort's padding, past the block's side.
template <class T>
__device__ Point2<T> beyond() {
  return no_extremes<T>().lo;
}

/// kBlockFinishBlocks = 4 blocks: blocks 0 and 1 build the upper chain, 2 and 3 the lower one; the
/// last to finish joins them into out and sets counters[5] to the hull's size plus one. Nothing, in
/// every block alike, unless there is no non-finite point and the survivors in use number 1 to
/// max_points. chains: room for a tile a block, each block's input tile and then its chain;
/// counters[4] counts the blocks done, counters[6 + b] holds block b's chain size.
///
/// Each chain is built in two halves that meet at a vertex: the upper chain at the
/// highest point, which is on or above the baseline and strictly extreme upwards (so a vertex of the
/// upper chain), the lower chain at the lowest point, the same for the reflected points below the
/// baseline with the baseline's ends. A half takes the chain's points up to that vertex, the other
/// those from it on (both take the vertex and its copies): the chain's vertices before it are its
/// first half's hood, those after it its second half's, since every point of the chain before the
/// vertex is lexicographically smaller (a chain is x-monotone). Each block then sorts and chains
/// about half a side: for a random disk's 3,500 survivors, 1,024 slots instead of 2,048 (the disks'
/// block finish 11-13 µs shorter on the H200 than with a block a chain: bench/NOTES.md).
template <class T>
__global__ void __launch_bounds__(kThreads)
    block_finish_kernel(const Point2<T>* kept, const Point2<T>* alt, unsigned long long* counters,
                        index_t max_points, Point2<T>* chains, Point2<T>* out, const DevicePolygon* polygon,
                        unsigned long long* host_counters) {
  constexpr int kHalves = kBlockFinishBlocks / 2;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  auto& s = *reinterpret_cast<BlockFinishStorage<T>*>(shared_bytes);
  const SurvivorsInUse in_use = survivors_in_use(counters);
  const index_t m = in_use.count;
  // A non-finite point (finish() reports it), or a count outside the bound: nothing to build.
  if (counters[1] != ~0ull || m == 0 || m > max_points) {
    if (blockIdx.x == 0 && threadIdx.x == 0) publish_counters(counters, polygon, host_counters);
    return;
  }
  const Point2<T>* from = in_use.in_alt ? alt : kept;
  const bool lower = blockIdx.x >= kHalves;
  const int half = static_cast<int>(blockIdx.x) % kHalves;  // 0: up to the split, 1: from it on

  // Each thread's points, striped over the block (coalesced).
  Point2<T> items[kItems];
  FinishExtremes<T> ends{no_extremes<T>().lo, no_extremes<T>().hi, no_extremes<T>().hi, no_extremes<T>().lo};
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const index_t at = static_cast<index_t>(j) * kThreads + threadIdx.x;
    if (at < m) {
      items[j] = from[at];
      ends = WidenFinishExtremes{}(ends, FinishExtremes<T>{items[j], items[j], items[j], items[j]});
    }
  }
  // The baseline's ends, and the split's vertex.
  const FinishExtremes<T> all =
      cub::BlockReduce<FinishExtremes<T>, kThreads>(s.extremes).Reduce(ends, WidenFinishExtremes{});
  if (threadIdx.x == 0) s.ends = all;
  __syncthreads();
  const Point2<T> lo = s.ends.lo, hi = s.ends.hi;
  // In the chain's own coordinates (the lower chain's reflected): where its halves meet, and its
  // ends, which the lower chain adds to the points strictly below the baseline.
  const Point2<T> split = lower ? core::reflected(s.ends.bottom) : s.ends.top;
  const Point2<T> first_end = core::reflected(hi), last_end = core::reflected(lo);
  // Whether chain point q belongs to this block's half.
  const auto in_half = [&](const Point2<T>& q) {
    return half == 0 ? !lex_less(split, q) : !lex_less(q, split);
  };

  // This block's part of its side, gathered: on or above the baseline (upper), or below it,
  // reflected (lower), as OnOrAboveBaseline splits them; then sorted, with points past them up to a
  // power of two.
  bool side[kItems];
  int mine = 0;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const index_t at = static_cast<index_t>(j) * kThreads + threadIdx.x;
    side[j] = at < m && (orient2d(lo, hi, items[j]) >= 0) != lower &&
              in_half(lower ? core::reflected(items[j]) : items[j]);
    mine += side[j];
  }
  int at = 0, c = 0;
  cub::BlockScan<int, kThreads>(s.scan).ExclusiveSum(mine, at, c);
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    if (side[j]) s.sorted[at++] = lower ? core::reflected(items[j]) : items[j];
  }
  int size = 1;
  while (size < c) size *= 2;
  for (int i = c + static_cast<int>(threadIdx.x); i < size; i += kThreads) s.sorted[i] = beyond<T>();
  __syncthreads();
  block_bitonic_sort<kThreads>(s.sorted, size);

  // The chain's input tile: the upper side as sorted (the smallest point first, the largest last);
  // the lower side from the largest point down to the smallest, reflected: the reflected ends around
  // the sorted reflected points below the line (none equals an end), each end in the halves it
  // belongs to.
  Point2<T>* tile = chains + blockIdx.x * kBlockFinishTile;
  const bool front = lower && (half == 0 || same_point(split, first_end));
  const bool back = lower && (half == kHalves - 1 || same_point(split, last_end));
  const int shift = front ? 1 : 0;
  for (int i = threadIdx.x; i < c; i += kThreads) tile[shift + i] = s.sorted[i];
  if (threadIdx.x == 0) {
    if (front) tile[0] = first_end;
    if (back) tile[shift + c] = last_end;
  }
  const int tile_size = c + shift + (back ? 1 : 0);
  __syncthreads();  // the tile's writes, and the sort's storage, before the hull's

  FinishHull<T> hull(s.hull);
  const auto h = hull.run(tile, tile_size, false);
  hull.store(tile, h);  // run() read the tile into shared memory first
  if (threadIdx.x == 0) counters[6 + blockIdx.x] = static_cast<unsigned long long>(h);
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) s.last = atomicAdd(counters + 4, 1ull) == 2 * kHalves - 1;
  __syncthreads();
  if (!s.last) return;
  __threadfence();  // the other blocks' chains and sizes, published before their counts
  const volatile unsigned long long* sizes = counters + 6;
  // Each chain is its first half's hood, then its second half's without the vertex they share.
  const auto u0 = static_cast<index_t>(sizes[0]), u1 = static_cast<index_t>(sizes[1]);
  const auto l0 = static_cast<index_t>(sizes[2]), l1 = static_cast<index_t>(sizes[3]);
  const index_t u = u0 + u1 - 1, l = l0 + l1 - 1;
  const auto halves_at = [](const Point2<T>* first, index_t first_size, const Point2<T>* second) {
    return [=](index_t j) {
      return j < first_size ? load_published(first + j) : load_published(second + (j - first_size + 1));
    };
  };
  join_chains_at<T>(halves_at(chains + 2 * kBlockFinishTile, l0, chains + 3 * kBlockFinishTile), l,
                    halves_at(chains, u0, chains + kBlockFinishTile), u, out, threadIdx.x, kThreads);
  if (threadIdx.x == 0) {
    counters[5] = static_cast<unsigned long long>(joined_size(l, u)) + 1;
    publish_counters(counters, polygon, host_counters);
  }
}

}  // namespace

template <class T>
bool finish_in_blocks(FullHullWorkspace<T>& ws, Point2<T>* out, index_t max_points,
                      const DevicePolygon* polygon, cudaStream_t stream) {
  max_points = std::min(max_points, kBlockFinishPoints);
  if (max_points <= 0) return false;
  if (ws.counters_host_on_device == nullptr) {
    void* mapped = nullptr;
    WAGENER_CUDA_CHECK(cudaHostGetDevicePointer(&mapped, ws.counters_host.data(), 0));
    ws.counters_host_on_device = static_cast<unsigned long long*>(mapped);
  }
  constexpr auto kBytes = static_cast<int>(sizeof(BlockFinishStorage<T>));
  allow_dynamic_shared<block_finish_kernel<T>>(kBytes);
  block_finish_kernel<T><<<kBlockFinishBlocks, kThreads, kBytes, stream>>>(
      ws.kept.data(), ws.alt.data(), ws.counters.data(), max_points, ws.block_chains.data(), out, polygon,
      ws.counters_host_on_device);
  WAGENER_CUDA_CHECK_LAUNCH();
  return true;
}

#define WAGENER_INSTANTIATE(T)                                                                        \
  template bool finish_in_blocks<T>(FullHullWorkspace<T>&, Point2<T>*, index_t, const DevicePolygon*, \
                                    cudaStream_t);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::cuda::full_hull
