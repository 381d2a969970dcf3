// Block level: a bitonic network that sorts a power-of-two array of points in shared memory, all
// threads of the block (the block finish's sides, src/cuda/block_finish.cu).
#pragma once

#include "wagener/point.hpp"

namespace wagener::cuda {

/// Pairs closer than this lie, in every step, among the points of one warp's lanes: lanes i of a warp
/// take the pairs of 32 consecutive i (and the pairs a block's threads on), which span 64 consecutive
/// points.
inline constexpr int kWarpLocalPairs = 64;

/// Sorts a[0..size) lexicographically in place (size a power of two), all Threads threads of the
/// block (a multiple of 32): a bitonic network, log2(size) (log2(size) + 1) / 2 steps of size / 2
/// compare-exchanges. Between two steps whose pairs are both closer than kWarpLocalPairs, each warp
/// reads only what its own lanes wrote, so a warp barrier stands for the block's: a 2,048-point
/// side's 66 steps then take 21 block barriers. (CUB's BlockMergeSort of the whole tile, 4,096
/// slots, took 45-50 µs of the H200's time; merges of runs by binary search, a network mostly in
/// registers and shuffles, a thread's pairs loaded together and slots swizzled against bank
/// conflicts each took as long or longer than the network with a block barrier every step:
/// bench/NOTES.md.)
template <int Threads, class T>
__device__ void block_bitonic_sort(Point2<T>* a, int size) {
  static_assert(Threads % 32 == 0, "whole warps: the warp barriers rely on them");
  for (int k = 2; k <= size; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      for (int i = static_cast<int>(threadIdx.x); i < size / 2; i += Threads) {
        const int first = ((i & ~(j - 1)) << 1) | (i & (j - 1));  // the pair (first, first + j)
        const Point2<T> x = a[first], y = a[first + j];
        const bool ascending = (first & k) == 0;
        if (ascending ? lex_less(y, x) : lex_less(x, y)) a[first] = y, a[first + j] = x;
      }
      const int next = j > 1 ? j >> 1 : k;  // the next step's distance (k: the next k's first step)
      const bool last = j == 1 && k == size;
      if (last || j >= kWarpLocalPairs || next >= kWarpLocalPairs) {
        __syncthreads();
      } else {
        __syncwarp();
      }
    }
  }
}

}  // namespace wagener::cuda
