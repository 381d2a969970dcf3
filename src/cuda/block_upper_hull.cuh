// Block level: the hood of one tile of sorted points, built in shared memory.
// Thread level first (each thread chains its own strip serially), then Wagener's rounds inside the
// block, every phase a block-wide step separated by barriers -- the seed's arrangement, compacted.
#pragma once

#include "core/merge_step.hpp"
#include "wagener/predicates.hpp"

namespace wagener::cuda {

template <class T, class Policy>
class BlockUpperHull {
 public:
  static constexpr int kThreads = Policy::kThreads;
  static constexpr int kStrip = Policy::kStrip;
  static constexpr int kTile = Policy::kTile;
  static_assert((kThreads & (kThreads - 1)) == 0, "rounds pair up threads: a power of two");

  static constexpr index_t cell_capacity() {
    index_t most = 0;
    for (int r = 0; (kStrip << r) < kTile; ++r) {
      const index_t need = (kThreads >> (r + 1)) * core::cells_per_merge(core::ceil_sqrt(kStrip << r));
      most = need > most ? need : most;
    }
    return most;
  }

  struct TempStorage {
    Point2<T> hood[2][kTile];
    index_t size[kThreads];
    core::MergePlan plan[kThreads / 2];
    index_t cells[cell_capacity()];
  };

  __device__ explicit BlockUpperHull(TempStorage& storage) : t_(storage) {}

  /// Hood of tile[0..count) (count <= kTile, sorted). Returns the hood's size; the hood is at
  /// hood()[0..size). All threads of the block must call it.
  __device__ index_t run(const Point2<T>* tile, int count) {
    const int tid = threadIdx.x;
    for (int i = tid; i < count; i += kThreads) t_.hood[0][i] = tile[i];
    __syncthreads();
    chain_strip(tid, count);
    __syncthreads();
    int src = 0;
    for (int r = 0; (kStrip << r) < kTile; ++r, src ^= 1) merge_round(r, src);
    result_ = src;
    return t_.size[0];
  }

  __device__ const Point2<T>* hood() const { return t_.hood[result_]; }

 private:
  // Thread level: Andrew's chain over the strip, written back in place (compacted).
  __device__ void chain_strip(int tid, int count) {
    Point2<T>* strip = t_.hood[0] + tid * kStrip;
    const int len = min(kStrip, max(0, count - tid * kStrip));
    Point2<T> chain[kStrip];
    int h = 0;
    for (int i = 0; i < len; ++i) {
      const Point2<T> p = strip[i];
      if (h > 0 && same_point(chain[h - 1], p)) continue;
      while (h >= 2 && orient2d(chain[h - 2], chain[h - 1], p) >= 0) --h;
      chain[h++] = p;
    }
    for (int i = 0; i < h; ++i) strip[i] = chain[i];
    t_.size[tid] = h;
  }

  // Round r: kThreads >> (r+1) merges of hoods in blocks of w = kStrip << r points, 2 << r threads each.
  __device__ void merge_round(int r, int src) {
    const index_t w = index_t{kStrip} << r;
    const int group = 2 << r;
    const int k = threadIdx.x / group, lane = threadIdx.x % group;
    const index_t smax = core::ceil_sqrt(w);
    const Point2<T>* in = t_.hood[src];
    Point2<T>* out = t_.hood[src ^ 1];
    const Point2<T>* p = in + 2 * k * w;
    const Point2<T>* q_raw = in + (2 * k + 1) * w;
    if (lane == 0) t_.plan[k] = core::plan_merge(p, t_.size[2 * k], q_raw, t_.size[2 * k + 1]);
    __syncthreads();
    const core::MergePlan plan = t_.plan[k];
    const Point2<T>* q = q_raw + plan.dup;
    const core::MergeView<T> view(p, plan.m, q, plan.n, plan.s);
    const core::BridgeCells cells = core::cells_at(t_.cells + k * core::cells_per_merge(smax), smax);
    for (int phase = core::kFirstPhase; phase <= core::kLastPhase; ++phase) {
      const index_t vps = plan.s == 0 ? 0 : core::phase_processors(phase, plan.s);
      for (index_t vp = lane; vp < vps; vp += group) core::run_phase(phase, view, cells, vp);
      __syncthreads();
    }
    index_t a, b;
    core::bridge_of(plan, cells, &a, &b);
    // mam 6: compacted copy of P[0..a] ++ Q[b..n).
    for (index_t e = lane; e < plan.m + plan.n; e += group) {
      const index_t dst = core::mam6_destination(e, plan.m, a, b);
      if (dst >= 0) out[2 * k * w + dst] = e < plan.m ? p[e] : q[e - plan.m];
    }
    if (lane == 0) t_.size[k] = core::merged_size(plan.n, a, b);
    __syncthreads();
  }

  TempStorage& t_;
  int result_ = 0;
};

}  // namespace wagener::cuda
