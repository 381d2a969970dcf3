// Block level: the hood of one tile of sorted points, built in shared memory.
// Thread level first (each thread chains its own strip serially, in place), then Wagener's rounds
// inside the block: every phase a step separated by barriers -- warp barriers while a merge's threads
// fit in one warp, block barriers after -- and each merged hood compacted in place.
#pragma once

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

  // Everything a merge touches is anchored at its own threads (hood slots, sizes, plans, cells), so
  // merges never share memory and a merge inside one warp needs only warp barriers. Each thread
  // owns this many bridge cells; a merge of 2 << r threads pools theirs.
  static constexpr index_t cells_per_thread() {
    index_t most = 0;
    for (int r = 0; (kThreads >> r) > 1; ++r) {
      const index_t group = index_t{2} << r;
      const index_t need = (core::cells_per_merge(core::ceil_sqrt(index_t{kStrip} << r)) + group - 1) / group;
      most = need > most ? need : most;
    }
    return most;
  }

  struct TempStorage {
    Point2<T> hood[kThreads * kStride];
    index_t size[kThreads];          ///< [first strip of a hood] = its size
    core::MergePlan plan[kThreads];  ///< [first thread of a merge] = its plan
    index_t cells[kThreads * cells_per_thread()];
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
    const index_t smax = core::ceil_sqrt(index_t{kStrip} << r);
    Point2<T>* p = t_.hood + 2 * k * w;
    const Point2<T>* q_raw = p + w;
    if (lane == 0) t_.plan[first] = core::plan_merge(p, t_.size[first], q_raw, t_.size[first + group / 2]);
    sync_group(group);
    const core::MergePlan plan = t_.plan[first];
    const Point2<T>* q = q_raw + plan.dup;
    const core::MergeView<T> view(p, plan.m, q, plan.n, plan.s);
    const core::BridgeCells cells = core::cells_at(t_.cells + first * cells_per_thread(), smax);
    for (int phase = core::kFirstPhase; phase <= core::kLastPhase; ++phase) {
      if (plan.s != 0) {
        const index_t vps = core::phase_processors(phase, plan.s);
        for (index_t vp = lane; vp < vps; vp += group) core::run_phase(phase, view, cells, vp);
      }
      sync_group(group);
    }
    index_t a, b;
    core::bridge_of(plan, cells, &a, &b);
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
