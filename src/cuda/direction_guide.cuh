// The guide filter's guide from a sample's extremes in fixed directions (upper_hull.cu's guide_filter):
// three short launches and no block rounds, where the sample's exact hull took a tile level of one
// block's merge rounds and a join (bench/NOTES.md, "The presorted guide from its sample's extremes").
//
// The guide only has to be input points in lexicographic order: a point strictly below the line
// through two of them, and between them in that order, is no vertex of the upper hull, whatever else
// the guide holds (guide_filter_kernel's argument). So it need not be the sample's hull. Each of
// kDirections directions of the upper half-turn, in the sample's box scaled to a square, takes its
// best-scoring sample; those samples, and the input's first and last points, sorted by their places
// (the input is sorted, so that is their order) and without repeats, are the guide. Scores are
// rounded floats: a rounding only chooses another input point. The guide's worth is then checked on
// the sample itself: how many sample points it leaves (not certified below it), which is what the
// filter would leave of the input, about. The caller takes the guide where that share is small and
// else builds the sample's hull as before.
#pragma once

#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <type_traits>

#include "cuda/policy.cuh"
#include "cuda/upper_hull.cuh"
#include "wagener/point.hpp"

namespace wagener::cuda::direction_guide {

constexpr int kDirections = DirectionGuidePolicy::kDirections;
constexpr int kChunk = DirectionGuidePolicy::kChunk;
constexpr int kCheckThreads = 256;
/// The guide's most points: a direction's best each, and the input's two ends.
constexpr int kMostGuidePoints = kDirections + 2;

using Words = DirectionGuideWords;

/// Sample k of m evenly spaced points of n: the first and the last included (sample_kernel's too).
__device__ inline index_t sample_place(index_t k, index_t n, index_t m) {
  return m > 1 ? k * (n - 1) / (m - 1) : 0;
}

/// The order-preserving image of a float's bits (NaN excluded by the caller).
__device__ inline unsigned ordered_bits(float v) {
  const unsigned bits = __float_as_uint(v);
  return (bits >> 31) ? ~bits : bits | 0x80000000u;
}

/// A direction's best sample as one word: the score's image above, 2^32 - 1 - k below (ties to the
/// smaller sample number); 0: none.
__device__ inline unsigned long long best_key(float score, index_t k) {
  return static_cast<unsigned long long>(ordered_bits(score)) << 32 |
         (0xffffffffu - static_cast<unsigned>(k));
}

__device__ inline index_t best_sample(unsigned long long key) {
  return 0xffffffffu - static_cast<unsigned>(key & 0xffffffffu);
}

/// Coordinates as the scores take them: T's own for float, else rounded to double first.
template <class T>
using Wide = std::conditional_t<std::is_same_v<T, float>, float, double>;

/// Block b of kDirections threads, a direction each: the best in its direction of the samples
/// [b per_block, (b + 1) per_block), chunk by chunk, to best[b kDirections + direction]. Every block
/// scales by the same box: x from the input's first and last points (sorted input), y from
/// kDirections evenly spaced samples (any box serves; one too narrow or too wide only crowds the
/// directions' bests at its ends).
template <class T>
__global__ void __launch_bounds__(kDirections)
    direction_extremes_kernel(const Point2<T>* __restrict__ points, index_t n, index_t m, index_t per_block,
                              unsigned long long* __restrict__ best) {
  using W = Wide<T>;
  using Reduce = cub::BlockReduce<W, kDirections>;
  __shared__ typename Reduce::TempStorage reduce;
  __shared__ W low_y, high_y;
  __shared__ float sx[kChunk], sy[kChunk];
  const int t = threadIdx.x;
  // The box. A non-finite coordinate leaves the scale at 1 (the filter reports such input).
  const Point2<T> probe = points[sample_place(static_cast<index_t>(t) * (m - 1) / (kDirections - 1), n, m)];
  const W py = static_cast<W>(probe.y);
  const bool finite_y = isfinite(py);
  const W lowest = Reduce(reduce).Reduce(finite_y ? py : W(INFINITY), [](W a, W b) { return a < b ? a : b; });
  __syncthreads();
  const W highest =
      Reduce(reduce).Reduce(finite_y ? py : W(-INFINITY), [](W a, W b) { return a > b ? a : b; });
  if (t == 0) low_y = lowest, high_y = highest;
  __syncthreads();
  const W x0 = static_cast<W>(points[0].x), width = static_cast<W>(points[n - 1].x) - x0;
  const W y0 = low_y, height = high_y - low_y;
  const W scale_x = width > 0 && isfinite(width) ? W(1) / width : W(1);
  const W scale_y = height > 0 && isfinite(height) ? W(1) / height : W(1);
  // Direction t: the angle pi (t + 1/2) / kDirections from +x, strictly inside the upper half-turn.
  float ux, uy;
  sincospif((t + 0.5f) / kDirections, &uy, &ux);
  // Four independent chains of compares (one chain waits on each compare before the next); each
  // sees its samples in increasing order, so a strict compare keeps the first of equal scores.
  constexpr int kChains = 4;
  float score[kChains];
  index_t at[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) score[c] = -INFINITY, at[c] = -1;
  const index_t begin = static_cast<index_t>(blockIdx.x) * per_block;
  const index_t end = begin + per_block < m ? begin + per_block : m;
  for (index_t first = begin; first < end; first += kChunk) {
    // The chunk, scaled, in shared memory: every direction scores every sample of it.
    const int count = static_cast<int>(end - first < kChunk ? end - first : kChunk);
    __syncthreads();  // the chunk before scored
    for (int i = t; i < count; i += kDirections) {
      const Point2<T> p = points[sample_place(first + i, n, m)];
      const W x = (static_cast<W>(p.x) - x0) * scale_x, y = (static_cast<W>(p.y) - y0) * scale_y;
      const bool finite = isfinite(x) && isfinite(y);
      sx[i] = finite ? static_cast<float>(x) : 0.0f;
      sy[i] = finite ? static_cast<float>(y) : -INFINITY;  // its scores -inf or NaN: never a best
    }
    __syncthreads();
    int i = 0;
    for (; i + kChains <= count; i += kChains) {
#pragma unroll
      for (int c = 0; c < kChains; ++c) {
        const float s = fmaf(ux, sx[i + c], uy * sy[i + c]);
        if (s > score[c]) score[c] = s, at[c] = first + i + c;
      }
    }
    for (; i < count; ++i) {
      const float s = fmaf(ux, sx[i], uy * sy[i]);
      if (s > score[0] || (s == score[0] && first + i < at[0])) score[0] = s, at[0] = first + i;
    }
  }
  unsigned long long key = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) {
    const unsigned long long k = at[c] >= 0 ? best_key(score[c], at[c]) : 0;
    key = k > key ? k : key;
  }
  best[static_cast<index_t>(blockIdx.x) * kDirections + t] = key;
}

/// One block of kDirections threads: each direction's best over the extremes kernel's `blocks`
/// blocks; with the input's first and last points, sorted by sample number, repeats dropped, written
/// as the guide (points, words->size). words->kept is cleared for the check after it.
template <class T>
__global__ void __launch_bounds__(kDirections)
    direction_guide_kernel(const Point2<T>* __restrict__ points, index_t n, index_t m,
                           const unsigned long long* __restrict__ best, index_t blocks,
                           Point2<T>* __restrict__ guide, Words* words) {
  constexpr int kItems = 2;
  constexpr unsigned kNone = 0xffffffffu;
  using Sort = cub::BlockRadixSort<unsigned, kDirections, kItems>;
  using Scan = cub::BlockScan<int, kDirections>;
  __shared__ union {
    typename Sort::TempStorage sort;
    typename Scan::TempStorage scan;
  } temp;
  __shared__ unsigned sorted[kDirections * kItems];
  const int t = threadIdx.x;
  unsigned long long key = 0;
#pragma unroll 8
  for (index_t b = 0; b < blocks; ++b) {
    const unsigned long long k = best[b * kDirections + t];
    key = k > key ? k : key;
  }
  // The input's ends join as two more items, the first and the last sample, where finite (a
  // direction's best always is).
  const unsigned end = t == 0 ? 0u : static_cast<unsigned>(m - 1);
  const bool end_finite = t < 2 && is_finite(points[sample_place(end, n, m)]);
  unsigned item[kItems] = {key != 0 ? static_cast<unsigned>(best_sample(key)) : kNone,
                           end_finite ? end : kNone};
  Sort(temp.sort).Sort(item);
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kItems; ++j) sorted[t * kItems + j] = item[j];
  __syncthreads();
  int keep[kItems], place[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int i = t * kItems + j;
    keep[j] = item[j] != kNone && (i == 0 || sorted[i - 1] != item[j]) ? 1 : 0;
  }
  int total = 0;
  Scan(temp.scan).ExclusiveSum(keep, place, total);
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    if (keep[j]) guide[place[j]] = points[sample_place(item[j], n, m)];
  }
  if (t == 0) words->size = total, words->kept = 0;
}

/// Whether p is certainly strictly right of a -> b (upper_hull.cu's certainly_right: the guide filter's
/// own test, so that the check counts what the filter would keep).
template <class T, class Right>
__device__ bool below_guide(const Point2<T>* guide, int k, const Point2<T>& p, Right certainly_right) {
  // The last guide point at or before p; none (p before the guide): kept.
  int lo = -1, hi = k;  // guide[lo] <= p < guide[hi]
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (lex_less(p, guide[mid])) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return lo >= 0 && lo + 1 < k && certainly_right(guide[lo], guide[lo + 1], p);
}

/// A thread a sample: counts into words->kept the samples the guide does not certify below it.
template <class T, class Right>
__global__ void __launch_bounds__(kCheckThreads)
    direction_check_kernel(const Point2<T>* __restrict__ points, index_t n, index_t m,
                           const Point2<T>* __restrict__ guide, Words* words, Right certainly_right) {
  __shared__ Point2<T> shared_guide[kMostGuidePoints];
  const int k = static_cast<int>(words->size);
  for (int i = threadIdx.x; i < k; i += kCheckThreads) shared_guide[i] = guide[i];
  __syncthreads();
  const index_t s = static_cast<index_t>(blockIdx.x) * kCheckThreads + threadIdx.x;
  const bool kept = s < m && !below_guide(shared_guide, k, points[sample_place(s, n, m)], certainly_right);
  const unsigned ballot = __ballot_sync(0xffffffffu, kept);
  if (threadIdx.x % 32 == 0 && ballot != 0)
    atomicAdd(&words->kept, static_cast<unsigned long long>(__popc(ballot)));
}

}  // namespace wagener::cuda::direction_guide
