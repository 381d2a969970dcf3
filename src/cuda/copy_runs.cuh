// Copying many runs of points at once, shared by the compactions (upper_hull.cu) and the full hull's
// join (convex_hull.cu).
#pragma once

#include <algorithm>

#include "cuda/launch.cuh"
#include "wagener/point.hpp"

namespace wagener::cuda {

constexpr int kCopyRunsThreads = 256;  ///< a block of the copies' kernels

/// A launch of for_each_run_point over `runs` runs: as many threads a run, from a warp up to a block,
/// as the grid's most threads (blocks_per_sm blocks of kCopyRunsThreads a multiprocessor) allow,
/// so that a few long runs still fill the device.
struct RunsLaunch {
  int blocks, lanes_log2;
};
inline RunsLaunch runs_launch(index_t runs, int blocks_per_sm) {
  const index_t most_blocks = index_t{multiprocessors()} * blocks_per_sm;
  int lanes_log2 = 5;
  while ((index_t{1} << (lanes_log2 + 1)) <= kCopyRunsThreads &&
         (runs << (lanes_log2 + 1)) <= most_blocks * kCopyRunsThreads)
    ++lanes_log2;
  const index_t blocks = ceil_div(runs << lanes_log2, index_t{kCopyRunsThreads});
  return {static_cast<int>(std::max<index_t>(1, std::min(blocks, most_blocks))), lanes_log2};
}

/// For every run t < runs and i < size[t]: store(first[t] + i, src(t)[i]). A group of 2^lanes_log2
/// threads a run, each thread its points a group's width apart, kBatch loads before their stores: with
/// a warp a run and one point a lane a turn, each turn's load waited on the turn before's store (the
/// pointers may alias), a memory round trip a point (bench/NOTES.md, "The compactions' copies a block
/// a run").
template <class T, class Source, class Store>
__device__ void for_each_run_point(index_t runs, int lanes_log2, Source src, const index_t* size,
                                   const index_t* first, Store store) {
  constexpr int kBatch = 4;
  const index_t lanes = index_t{1} << lanes_log2;
  const index_t groups = (static_cast<index_t>(gridDim.x) * blockDim.x) >> lanes_log2;
  const index_t lane = threadIdx.x & (lanes - 1);
  for (index_t t = (static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> lanes_log2; t < runs;
       t += groups) {
    const Point2<T>* from = src(t);
    const index_t count = size[t], to = first[t];
    for (index_t i = lane; i < count; i += kBatch * lanes) {
      Point2<T> p[kBatch];
#pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        if (i + b * lanes < count) p[b] = from[i + b * lanes];
      }
#pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        if (i + b * lanes < count) store(to + i + b * lanes, p[b]);
      }
    }
  }
}

}  // namespace wagener::cuda
