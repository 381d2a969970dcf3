// Block level: the hood of one tile of sorted points, built in shared memory.
// Thread level first (each thread chains its own strip serially, in place), then log2(threads)
// rounds of pairwise merges inside the block: the first thread of each merge finds the bridge by
// nested bisection (core::bisection_bridge, O(log^2 k) orientation tests, where the seed's phases
// run O(k) processor steps per merge: measured 3.47 ms for the 8192 tiles of 2^24 double parabola
// points, mostly instructions of the phases), then the merge's threads move Q's kept vertices
// behind P's in place. Barriers are warp barriers while a merge's threads fit in one warp, block
// barriers after.
#pragma once

#include "core/bridge.hpp"
#include "core/merge_step.hpp"
#include "wagener/predicates.hpp"

namespace wagener::cuda {

template <class T, class Policy>
class BlockUpperHull {
 public:
  static constexpr int kThreads = Policy::kThreads;
  static constexpr int kStrip = Policy::kStrip;
  static constexpr int kStride = Policy::kStride;
  static constexpr int kTile = Policy::kTile;
  static constexpr int kWarp = 32;
  static_assert((kThreads & (kThreads - 1)) == 0, "rounds pair up threads: a power of two");
  static_assert(kStrip % 2 == 0, "a merge's threads stage at most kStrip / 2 points each");

  // Everything a merge touches is anchored at its own threads (hood slots, sizes, plans, bridges),
  // so merges never share memory and a merge inside one warp needs only warp barriers.
  struct TempStorage {
    Point2<T> hood[kThreads * kStride];
    index_t size[kThreads];          ///< [first strip of a hood] = its size
    core::MergePlan plan[kThreads];  ///< [first thread of a merge] = its plan
    index_t bridge_p[kThreads];      ///< [first thread of a merge] = the bridge's end in P
    index_t bridge_q[kThreads];      ///< [first thread of a merge] = the bridge's end in Q (after the seam)
  };

  __device__ explicit BlockUpperHull(TempStorage& storage) : t_(storage) {}

  /// Hood of tile[0..count) (count <= kTile, sorted); returns its size, the hood is hood()[0..size).
  /// All threads of the block must call it.
  __device__ index_t run(const Point2<T>* tile, int count) {
    for (int i = threadIdx.x; i < count; i += kThreads)
      t_.hood[(i / kStrip) * kStride + i % kStrip] = tile[i];
    __syncthreads();
    chain_strip(count);
    __syncthreads();
    for (int r = 0; (kThreads >> r) > 1; ++r) merge_round(r);
    return t_.size[0];
  }

  __device__ const Point2<T>* hood() const { return t_.hood; }

 private:
  // Thread level: Andrew's chain over the strip; the chain overwrites the slots already read.
  __device__ void chain_strip(int count) {
    Point2<T>* strip = t_.hood + threadIdx.x * kStride;
    const int len = min(kStrip, max(0, count - static_cast<int>(threadIdx.x) * kStrip));
    int h = 0;
    for (int i = 0; i < len; ++i) {
      const Point2<T> p = strip[i];
      if (h > 0 && same_point(strip[h - 1], p)) continue;
      while (h >= 2 && orient2d(strip[h - 2], strip[h - 1], p) >= 0) --h;
      strip[h++] = p;
    }
    t_.size[threadIdx.x] = h;  // strip t's hood starts at strip t
  }

  // A barrier over the threads of one merge: within a warp while a merge fits in one.
  __device__ static void sync_group(int group) {
    if (group <= kWarp) {
      __syncwarp();
    } else {
      __syncthreads();
    }
  }

  // Round r: kThreads >> (r+1) merges of hoods at slot blocks of w = kStride << r, 2 << r threads each.
  __device__ void merge_round(int r) {
    const index_t w = index_t{kStride} << r;
    const int group = 2 << r;
    const int k = threadIdx.x / group, lane = threadIdx.x % group;
    const int first =
        k * group;  // first thread (and strip) of this merge; Q's hood starts at first + group / 2
    Point2<T>* p = t_.hood + 2 * k * w;
    const Point2<T>* q_raw = p + w;
    if (lane == 0) {
      const core::MergePlan plan = core::plan_merge(p, t_.size[first], q_raw, t_.size[first + group / 2]);
      // Without a partner (or with only a seam duplicate there) everything is kept.
      index_t a = plan.m - 1, b = 0;
      if (plan.s != 0)
        core::bisection_bridge(core::MergeView<T>(p, plan.m, q_raw + plan.dup, plan.n, plan.s), &a, &b);
      t_.plan[first] = plan;
      t_.bridge_p[first] = a;
      t_.bridge_q[first] = b;
    }
    sync_group(group);
    const core::MergePlan plan = t_.plan[first];
    const Point2<T>* q = q_raw + plan.dup;
    const index_t a = t_.bridge_p[first], b = t_.bridge_q[first];
    // mam 6 in place: P[0..a] stays, Q[b..n) moves left to follow it. Every thread stages its share
    // (at most kStrip / 2 points) before any thread writes, since the ranges may overlap.
    const index_t moved = plan.n - b;
    Point2<T> staged[kStrip / 2];
#pragma unroll
    for (int j = 0; j < kStrip / 2; ++j) {
      const index_t e = lane + index_t{j} * group;
      if (e < moved) staged[j] = q[b + e];
    }
    sync_group(group);
#pragma unroll
    for (int j = 0; j < kStrip / 2; ++j) {
      const index_t e = lane + index_t{j} * group;
      if (e < moved) p[a + 1 + e] = staged[j];
    }
    if (lane == 0) t_.size[first] = core::merged_size(plan.n, a, b);
    // The next round's merges span twice as many threads.
    sync_group(2 * group);
  }

  TempStorage& t_;
};

}  // namespace wagener::cuda
