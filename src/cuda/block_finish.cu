// The block finish of the full hull (convex_hull.cu): where the filters left few survivors (a random
// input keeps 26-3,475 of 2^28 points), two blocks build the whole hull from them, enqueued before
// finish()'s one wait for the counters, so that the host launches nothing after that wait. Otherwise
// the host sorts the survivors with CUB, splits them and runs the two chains, some twenty launches
// after the wait whose kernels are mostly shorter than their launches (bench/NOTES.md).
// Each block loads every survivor and finds the smallest and the largest (the baseline's ends);
// block 0 keeps the points on or above the baseline, block 1 those below it, reflected
// (core::reflected); each sorts its points (block_bitonic_sort, in shared memory), adds the ends
// where its chain needs them, and takes the upper hood of that tile (BlockUpperHull, the tile kernels'
// block level). The block that finishes second joins both chains into the hull, as
// join_chains_kernel does. The chains' inputs are the ones finish()'s split gives them, so the hull is
// the same.
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

/// A point another block published (its writes, a fence, then its count): read past this
/// multiprocessor's L1, which is not coherent with the other's writes.
template <class T>
__device__ Point2<T> load_published(const Point2<T>* p) {
  const volatile T* v = &p->x;
  return {v[0], v[1]};
}

template <class T>
struct BlockFinishStorage {
  union {
    Point2<T> sorted[kBlockFinishTile];  ///< the block's side, sorted (block_bitonic_sort)
    typename FinishHull<T>::TempStorage hull;
  };
  typename cub::BlockReduce<LexExtremes<T>, kThreads>::TempStorage extremes;
  typename cub::BlockScan<int, kThreads>::TempStorage scan;
  LexExtremes<T> ends;
  bool last;
};

/// A point lexicographically not below any point of T: the sort's padding, past the block's side.
template <class T>
__device__ Point2<T> beyond() {
  return no_extremes<T>().lo;
}

/// Two blocks: block 0 the upper chain, block 1 the lower one; the second to finish joins them into
/// out and sets counters[5] to the hull's size plus one. Nothing, in both blocks alike, unless there is
/// no non-finite point and the survivors in use number 1 to max_points. chains: room for a tile a
/// block, each block's input tile and then its chain; counters[4] counts the blocks done, counters[6
/// + b] holds block b's chain size.
template <class T>
__global__ void __launch_bounds__(kThreads)
    block_finish_kernel(const Point2<T>* kept, const Point2<T>* alt, unsigned long long* counters,
                        index_t max_points, Point2<T>* chains, Point2<T>* out) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  auto& s = *reinterpret_cast<BlockFinishStorage<T>*>(shared_bytes);
  if (counters[1] != ~0ull) return;  // finish() reports the non-finite point
  const SurvivorsInUse in_use = survivors_in_use(counters);
  const index_t m = in_use.count;
  if (m == 0 || m > max_points) return;
  const Point2<T>* from = in_use.in_alt ? alt : kept;
  const bool lower = blockIdx.x == 1;

  // Each thread's points, striped over the block (coalesced).
  Point2<T> items[kItems];
  LexExtremes<T> ends = no_extremes<T>();
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const index_t at = static_cast<index_t>(j) * kThreads + threadIdx.x;
    if (at < m) {
      items[j] = from[at];
      ends = WidenLexExtremes{}(ends, LexExtremes<T>{items[j], items[j]});
    }
  }
  // The baseline's ends.
  const LexExtremes<T> all =
      cub::BlockReduce<LexExtremes<T>, kThreads>(s.extremes).Reduce(ends, WidenLexExtremes{});
  if (threadIdx.x == 0) s.ends = all;
  __syncthreads();
  const Point2<T> lo = s.ends.lo, hi = s.ends.hi;

  // This block's side, gathered: on or above the baseline (upper), or below it, reflected (lower), as
  // OnOrAboveBaseline splits them; then sorted, with points past them up to a power of two.
  bool side[kItems];
  int mine = 0;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const index_t at = static_cast<index_t>(j) * kThreads + threadIdx.x;
    side[j] = at < m && (orient2d(lo, hi, items[j]) >= 0) != lower;
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
  // the sorted reflected points below the line (none equals an end).
  Point2<T>* tile = chains + blockIdx.x * kBlockFinishTile;
  const int shift = lower ? 1 : 0;
  for (int i = threadIdx.x; i < c; i += kThreads) tile[shift + i] = s.sorted[i];
  if (lower && threadIdx.x == 0) {
    tile[0] = core::reflected(hi);
    tile[c + 1] = core::reflected(lo);
  }
  const int tile_size = c + 2 * shift;
  __syncthreads();  // the tile's writes, and the sort's storage, before the hull's

  FinishHull<T> hull(s.hull);
  const auto h = hull.run(tile, tile_size, false);
  hull.store(tile, h);  // run() read the tile into shared memory first
  if (threadIdx.x == 0) counters[6 + blockIdx.x] = static_cast<unsigned long long>(h);
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) s.last = atomicAdd(counters + 4, 1ull) == 1;
  __syncthreads();
  if (!s.last) return;
  __threadfence();  // the other block's chain and size, published before its count
  const volatile unsigned long long* sizes = counters + 6;
  const auto u = static_cast<index_t>(sizes[0]);
  const auto l = static_cast<index_t>(sizes[1]);
  join_chains(chains + kBlockFinishTile, l, chains, u, out, threadIdx.x, kThreads,
              [](const Point2<T>* p) { return load_published(p); });
  if (threadIdx.x == 0) counters[5] = static_cast<unsigned long long>(joined_size(l, u)) + 1;
}

}  // namespace

template <class T>
void finish_in_blocks(FullHullWorkspace<T>& ws, Point2<T>* out, index_t max_points, cudaStream_t stream) {
  max_points = std::min(max_points, kBlockFinishPoints);
  if (max_points <= 0) return;
  constexpr auto kBytes = static_cast<int>(sizeof(BlockFinishStorage<T>));
  allow_dynamic_shared<block_finish_kernel<T>>(kBytes);
  block_finish_kernel<T><<<2, kThreads, kBytes, stream>>>(ws.kept.data(), ws.alt.data(), ws.counters.data(),
                                                          max_points, ws.block_chains.data(), out);
  WAGENER_CUDA_CHECK_LAUNCH();
}

#define WAGENER_INSTANTIATE(T) \
  template void finish_in_blocks<T>(FullHullWorkspace<T>&, Point2<T>*, index_t, cudaStream_t);
WAGENER_INSTANTIATE(float)
WAGENER_INSTANTIATE(double)
WAGENER_INSTANTIATE(std::int32_t)
WAGENER_INSTANTIATE(std::int64_t)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::cuda::full_hull
