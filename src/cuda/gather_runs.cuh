// Runs of points packed side by side in order, a block of output places at a time: run t holds
// size[t] points at src + t * stride, and offset[] is the exclusive scan of the sizes. The guide
// filter leaves its survivors so, a run a tile of 4,096 points, most runs a few points long or empty
// (upper_hull.cu's gather_runs_kernel). Device functions only, so that a test runs them on the CPU
// under an emulation of the block and warp intrinsics (tests/test_gather_emulated.cpp).
//
// Why by output places, not a group of lanes a run (copy_runs.cuh's for_each_run_point): there, a
// group reads a run's size and offset, then its points, then the next run's, two dependent memory
// trips a run, and a grid that holds every run at once would be tens of waves of short groups. Here
// a block finds the runs of its places by a search of the offsets, reads their offsets once, and
// issues every point's load before its stores: a few trips a block whatever the runs' sizes.
#pragma once

#include <cstdint>

#include "core/bridge.hpp"
#include "wagener/point.hpp"

namespace wagener::cuda {

/// gather_runs_block's shared memory: a chunk of the runs' offsets and the block's first and last run.
template <int kThreads>
struct GatherRunsShared {
  index_t run_offset[kThreads + 1];
  index_t first_run, last_run;
};

/// The first run t in [0, runs) with offset[t] > place (runs where none), by the 32 lanes of a
/// warp, all of which call it with the same arguments (core::kary_probe's search, a lane a probe).
/// Offsets ascend.
__device__ inline index_t warp_first_run_after(const index_t* offset, index_t runs, index_t place) {
  constexpr int kLanes = 32;
  const int lane = static_cast<int>(threadIdx.x) % kLanes;
  index_t lo = 0, hi = runs;
  while (lo < hi) {
    const bool after = offset[core::kary_probe(lo, hi, kLanes, lane)] > place;
    const unsigned ballot = __ballot_sync(0xffffffffu, after);
    core::kary_narrow(&lo, &hi, kLanes, ballot != 0 ? __ffs(static_cast<int>(ballot)) - 1 : kLanes);
  }
  return lo;
}

/// Output places [begin, end) (0 <= begin < end <= the runs' total) by one block of kThreads
/// threads, each of kItems places kThreads apart: dense[j] = src[t * stride + j - offset[t]], t the
/// run that holds place j. Every thread of the block calls it with the same arguments; it ends with
/// a barrier, after which `shared` may be used again.
template <int kThreads, int kItems, class T>
__device__ void gather_runs_block(const Point2<T>* src, index_t stride, const index_t* offset, index_t runs,
                                  index_t begin, index_t end, Point2<T>* dense,
                                  GatherRunsShared<kThreads>& shared) {
  static_assert(kThreads >= 64 && kThreads % 32 == 0, "two warps search, one for each end");
  const int thread = static_cast<int>(threadIdx.x), warp = thread / 32;
  // The runs of the first and the last place (offset[0] = 0 <= begin, so neither is before run 0).
  if (warp < 2) {
    const index_t run = warp_first_run_after(offset, runs, warp == 0 ? begin : end - 1) - 1;
    if (thread % 32 == 0) (warp == 0 ? shared.first_run : shared.last_run) = run;
  }
  __syncthreads();
  const index_t first_run = shared.first_run, last_run = shared.last_run;
  // The runs from first_run to last_run, kThreads at a time (more only where many runs are empty):
  // run_offset[i] is run chunk + i's offset, and run_offset[count] where the chunk's places end.
  for (index_t chunk = first_run; chunk <= last_run; chunk += kThreads) {
    const index_t left = last_run - chunk + 1;
    const int count = left < kThreads ? static_cast<int>(left) : kThreads;
    if (thread < count) shared.run_offset[thread] = offset[chunk + thread];
    if (thread == 0) shared.run_offset[count] = chunk + count <= last_run ? offset[chunk + count] : end;
    __syncthreads();
    const index_t chunk_begin = shared.run_offset[0], chunk_end = shared.run_offset[count];
    Point2<T> p[kItems];
    bool mine[kItems];
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      const index_t j = begin + thread + index_t{i} * kThreads;
      mine[i] = j < end && j >= chunk_begin && j < chunk_end;
      if (mine[i]) {
        // The last run of the chunk whose offset is at most j: the one that holds j (an empty run
        // shares its offset with the next).
        int lo = 0, hi = count - 1;
        while (lo < hi) {
          const int mid = (lo + hi + 1) / 2;
          if (shared.run_offset[mid] <= j) {
            lo = mid;
          } else {
            hi = mid - 1;
          }
        }
        p[i] = src[(chunk + lo) * stride + (j - shared.run_offset[lo])];
      }
    }
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
      if (mine[i]) dense[begin + thread + index_t{i} * kThreads] = p[i];
    }
    __syncthreads();  // every read of this chunk's offsets before the next chunk's writes
  }
}

}  // namespace wagener::cuda
