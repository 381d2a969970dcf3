// The survivors' polygon of the full hull (convex_hull.cu): after the streaming filter, where the
// inner polygon left more points than a chain's tile, a second polygon built from those survivors
// filters them once more, all on the device and before finish()'s one wait for the count. Random
// inputs then leave a few thousand points or fewer, so each chain is one tile (one level, no
// second), and the sort is short (bench/NOTES.md; modelled by bench/filter_survivors.cpp).
//  1. Each survivor is scored in the 2 kSurvivorWindow + 1 of kSurvivorDirections directions nearest
//     its own direction from the inner polygon's centre c, and each direction keeps its best (blocks
//     combine by atomicMax on extreme_key, as the inner polygon's samples do).
//  2. One block peels those bests, in the directions' order, to about their hull (rounds of Graham's
//     scan, all at once), checks c strictly inside it exactly, and lays out its fan's angles. (A
//     first version sorted the bests and took their exact hull with BlockUpperHull, twice: slower
//     than the chains it saved; bench/NOTES.md.)
//  3. The fan's corners (core::chord_fan_corner, as the dense guide's), a thread a corner.
//  4. The survivors that the fan does not certify strictly inside are kept, in ws.alt.
// Correctness needs none of the heuristics: the bests are input points, the fan's triangles lie in
// their hull, and its test is certified, so a point it drops is strictly inside the input's hull.
// Every kernel reads the survivors' number on the device; below the minimum, or without a certified
// centre, they do nothing and counters[3] stays 0, and finish() sorts the first survivors.
#include <cub/block/block_scan.cuh>
#include <utility>

#include "core/chord_fan.hpp"
#include "cuda/check.cuh"
#include "cuda/full_hull.cuh"
#include "wagener/predicates.hpp"

namespace wagener::cuda::full_hull {
namespace {

constexpr int kScoreThreads = 256;
// Step 1's blocks a multiprocessor: at one, each thread scored about six of a random 2^28 disk's
// 215,000 survivors in turn; at two, the survivors' polygon took 3 µs less on the H200 (four: the
// same; bench/NOTES.md).
constexpr int kScoreBlocksPerSm = 2;
constexpr int kFanThreads = kSurvivorDirections;  // step 2: a thread a direction
constexpr unsigned kAll = 0xffffffffu;
constexpr int kSurvivorFilterThreads = 256;
constexpr int kCornerThreads = 64;  // step 3: a corner a thread, over 65 multiprocessors
constexpr int kCornerBlocks = kSurvivorBuckets / kCornerThreads + 1;
constexpr double kDirectionsPerRadian = kSurvivorDirections / 6.283185307179586;

/// Whether the survivors' polygon runs for m survivors (every kernel decides alike, on the device):
/// from min_survivors (more than a chain's tile, by default), and up to kMaxSurvivorsForPolygon,
/// beyond which the input is mostly hull (the dense guide's kind) and another pass would not pay.
constexpr unsigned long long kMaxSurvivorsForPolygon = 1ull << 23;
__device__ bool survivor_polygon_pays(unsigned long long m, index_t min_survivors) {
  return m >= static_cast<unsigned long long>(min_survivors) && m <= kMaxSurvivorsForPolygon;
}

/// Step 1: best[d] (zeroed first) = max of extreme_key(score in direction d, i) over the survivors i
/// scored in d: kept[i] for i < *count (at most kMaxSurvivorsForPolygon: i fits extreme_key) that are exact
/// in double (a 64-bit integer beyond 2^53 is never a corner: converts_exactly). Per block in shared memory,
/// then one atomicMax a direction a block.
template <class T>
__global__ void __launch_bounds__(kScoreThreads)
    survivor_scores_kernel(const Point2<T>* kept, const unsigned long long* count, index_t min_survivors,
                           SurvivorCentre centre, unsigned long long* best) {
  const unsigned long long m = *count;
  const SurvivorCentre c = centre.resolved();
  if (!c.enabled || !survivor_polygon_pays(m, min_survivors)) return;  // the whole grid alike
  const double cx = c.cx, cy = c.cy;
  __shared__ unsigned long long slot[kSurvivorDirections];
  __shared__ double ux[kSurvivorDirections], uy[kSurvivorDirections];
  for (int d = threadIdx.x; d < kSurvivorDirections; d += blockDim.x) {
    slot[d] = 0;
    sincospi(2.0 * d / kSurvivorDirections, &uy[d], &ux[d]);
  }
  __syncthreads();
  for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < m;
       i += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    const Point2<T> p = kept[i];
    if (!converts_exactly(p)) continue;
    const double px = static_cast<double>(p.x), py = static_cast<double>(p.y);
    const int nearest = __double2int_rn(atan2(py - cy, px - cx) * kDirectionsPerRadian);
    for (int w = -kSurvivorWindow; w <= kSurvivorWindow; ++w) {
      const int d = (nearest + w) & (kSurvivorDirections - 1);
      atomicMax(&slot[d], extreme_key(ux[d] * px + uy[d] * py, static_cast<unsigned>(i)));
    }
  }
  __syncthreads();
  for (int d = threadIdx.x; d < kSurvivorDirections; d += blockDim.x) {
    if (slot[d] != 0) atomicMax(&best[d], slot[d]);
  }
}

/// Step 2, one block of a thread a direction: the bests in the directions' order, peeled (rounds in
/// which each drops itself, all at once, when it repeats the one before or does not turn strictly
/// left between its neighbours: first within each warp, then over the block), until a round drops
/// none or after kMaxPeelRounds; c checked strictly left of every edge (exact); then the polygon's
/// k vertices to fan_vertex, their pseudo-angles around c from the vertex with the smallest
/// (`first`) on, made non-decreasing by a max-scan, to fan_angle, and words = {k, first}, as
/// core::chord_fan_corner takes them. *used = 1 when the fan may filter: enough survivors, at least
/// 3 vertices and c inside; else *used = 0, and the later steps do nothing.
///
/// The bests lie in about the directions' order around c (each within 2.5 directions of its own), so
/// the rounds end at about their hull: where the order is exact, a vertex that does not turn
/// strictly left lies in the triangle of c and its neighbours, no hull vertex (Graham's scan, all at
/// once). Where it is not, or the rounds stop early, the polygon is only smaller or dented, which
/// costs filtering, not correctness: c is strictly inside the input's hull and checked strictly
/// left of every edge, so each corner, checked to lie in the closed triangle of c and its edge, lies
/// in that hull.
template <class T>
__global__ void __launch_bounds__(kFanThreads)
    survivor_fan_kernel(const Point2<T>* kept, const unsigned long long* count, index_t min_survivors,
                        const unsigned long long* best, SurvivorCentre centre, Point2<T>* fan_vertex,
                        double* fan_angle, index_t* words, unsigned long long* used) {
  using Count = cub::BlockScan<int, kFanThreads>;
  using MaxScan = cub::BlockScan<double, kFanThreads>;
  __shared__ union {
    typename Count::TempStorage count;
    typename MaxScan::TempStorage max;
  } temp;
  __shared__ Point2<T> vertex[kSurvivorDirections];
  __shared__ double angle[kSurvivorDirections];
  __shared__ unsigned long long smallest;
  __shared__ int first;
  const SurvivorCentre c = centre.resolved();
  if (!c.enabled || !survivor_polygon_pays(*count, min_survivors)) {
    if (threadIdx.x == 0) *used = 0;
    return;  // the whole block alike
  }
  const double cx = c.cx, cy = c.cy;
  const int t = threadIdx.x;
  if (t == 0) smallest = ~0ull, first = kSurvivorDirections;
  const unsigned long long key = best[t];
  bool live = key != 0;
  const Point2<T> p = live ? kept[extreme_index(key)] : Point2<T>{};
  const int k = peel_in_order<kFanThreads>(p, live, vertex, temp.count);
  bool outside = k < 3;
  if (t < k) {
    if (!chord_fan_vertex(vertex[t], vertex[t + 1 == k ? 0 : t + 1], cx, cy, &angle[t])) outside = true;
    atomicMin(&smallest, angle_bits(angle[t]));
  }
  if (__syncthreads_or(outside)) {
    if (t == 0) *used = 0;
    return;
  }
  if (t < k && static_cast<unsigned long long>(__double_as_longlong(angle[t])) == smallest)
    atomicMin(&first, t);
  __syncthreads();
  // The angles from the first vertex on, made non-decreasing (rounding may break near-ties the
  // wrong way, which only costs filtering).
  double rising = 0;
  MaxScan(temp.max).InclusiveScan(t < k ? angle[(first + t) % k] : 0.0, rising,
                                  [](double x, double y) { return x > y ? x : y; });
  if (t < k) fan_vertex[t] = vertex[t], fan_angle[t] = rising;
  if (t == 0) words[0] = k, words[1] = first, *used = 1;
}

/// Step 3: corner b of the fan for b in [0, kSurvivorBuckets] (core::chord_fan_corner, as the dense
/// guide's), written as bucket b's first corner and bucket b-1's second; nothing unless step 2 set
/// *used. A grid of small blocks: a corner sits on an edge, where its checks often need exact
/// arithmetic, and on step 2's one multiprocessor the corners took 80 µs of a gaussian's 0.08 ms.
template <class T>
__global__ void survivor_corners_kernel(const Point2<T>* vertex, const double* sorted_angle,
                                        const index_t* words, SurvivorCentre centre,
                                        const unsigned long long* used, Point2<double>* corner) {
  if (*used == 0) return;
  const SurvivorCentre c = centre.resolved();
  write_chord_fan_corners(vertex, words[0], words[1], sorted_angle, c.cx, c.cy, kSurvivorBuckets, true,
                          corner);
}

/// Step 4: appends each of kept[0 .. counters[0]) that `fan` does not certify strictly inside to
/// out[counters[2] ...] while there is room (capacity points; counters[2] counts them all), in any
/// order; nothing unless counters[3] (step 2's *used).
template <class T>
__global__ void __launch_bounds__(kSurvivorFilterThreads)
    survivor_filter_kernel(const Point2<T>* kept, unsigned long long* counters, SurvivorCentre centre,
                           core::ChordFanView fan, Point2<T>* out, index_t capacity) {
  if (counters[3] == 0) return;
  const SurvivorCentre c = centre.resolved();
  fan.cx = c.cx, fan.cy = c.cy;
  const unsigned long long m = counters[0];
  const int lane = threadIdx.x % kWarp;
  const unsigned long long step = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  // Warp-uniform: the warp's lanes take 32 consecutive survivors a step.
  for (unsigned long long base =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x - lane;
       base < m; base += step) {
    const unsigned long long i = base + lane;
    Point2<T> p{};
    bool keep = false;
    if (i < m) {
      p = kept[i];
      // 64-bit integers beyond 2^53 are never certified (converts_exactly).
      keep =
          !(converts_exactly(p) && fan.certainly_inside(static_cast<double>(p.x), static_cast<double>(p.y)));
    }
    const unsigned keeping = __ballot_sync(kAll, keep);
    if (keeping == 0) continue;
    unsigned long long at = 0;
    if (lane == 0) at = atomicAdd(counters + 2, static_cast<unsigned long long>(__popc(keeping)));
    at = __shfl_sync(kAll, at, 0) + __popc(keeping & ((1u << lane) - 1));
    if (keep && at < static_cast<unsigned long long>(capacity)) out[at] = p;
  }
}

}  // namespace

template <class T>
void filter_by_survivor_polygon(FullHullWorkspace<T>& ws, SurvivorCentre centre, index_t min_survivors,
                                cudaStream_t stream) {
  FullHullWorkspace<T>::grow(ws.alt, kSurvivorCapacity + 2);
  unsigned long long* counters = ws.counters.data();
  if (!std::exchange(ws.survivor_best_cleared, false)) {
    WAGENER_CUDA_CHECK(cudaMemsetAsync(ws.survivor_best.data(), 0,
                                       kSurvivorDirections * sizeof(unsigned long long), stream));
  }
  survivor_scores_kernel<T><<<multiprocessors() * kScoreBlocksPerSm, kScoreThreads, 0, stream>>>(
      ws.kept.data(), counters, min_survivors, centre, ws.survivor_best.data());
  WAGENER_CUDA_CHECK_LAUNCH();
  survivor_fan_kernel<T><<<1, kFanThreads, 0, stream>>>(
      ws.kept.data(), counters, min_survivors, ws.survivor_best.data(), centre, ws.survivor_vertex.data(),
      ws.survivor_angle.data(), ws.survivor_words.data(), counters + 3);
  WAGENER_CUDA_CHECK_LAUNCH();
  survivor_corners_kernel<T><<<kCornerBlocks, kCornerThreads, 0, stream>>>(
      ws.survivor_vertex.data(), ws.survivor_angle.data(), ws.survivor_words.data(), centre, counters + 3,
      ws.survivor_corner.data());
  WAGENER_CUDA_CHECK_LAUNCH();
  core::ChordFanView fan;  // its centre `centre`'s, set on the device
  fan.corner = ws.survivor_corner.data();
  fan.buckets = kSurvivorBuckets;
  fan.bucket_scale = kSurvivorBuckets / 4.0;
  survivor_filter_kernel<T><<<multiprocessors() * 4, kSurvivorFilterThreads, 0, stream>>>(
      ws.kept.data(), counters, centre, fan, ws.alt.data(), kSurvivorCapacity);
  WAGENER_CUDA_CHECK_LAUNCH();
}

#define WAGENER_INSTANTIATE(T) \
  template void filter_by_survivor_polygon<T>(FullHullWorkspace<T>&, SurvivorCentre, index_t, cudaStream_t);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::cuda::full_hull
