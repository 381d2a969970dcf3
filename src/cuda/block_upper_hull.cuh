// Block level: the hood of one tile of sorted points, built in shared memory.
// Thread level first (each thread chains its own strip serially, in place), then log2(threads)
// rounds of pairwise merges inside the block. A merge's threads (up to a warp of them) find its
// bridge together by a k-ary search over P (core::kary_bridge): each thread probes one position of
// P with its own binary search for the tangent on Q, and a ballot keeps the gap between the last
// probe before the bridge and the first after it; then the merge's threads move Q's kept vertices
// behind P's in place. (One thread a merge searching by bisection left the other threads waiting at
// the barriers: ncu on 2^24 double parabola points put 55 % of the warp samples in that search and
// 27 % at the barrier, at 5 active threads a warp instruction; bench/NOTES.md.) Barriers are warp
// barriers while a merge's threads fit in one warp, block barriers after.
#pragma once

#include "core/bridge.hpp"
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

  // Everything a merge touches is anchored at its own threads (hood slots, sizes, bridges),
  // so merges never share memory and a merge inside one warp needs only warp barriers.
  struct TempStorage {
    Point2<T> hood[kThreads * kStride];
    index_t size[kThreads];  ///< [first strip of a hood] = its size
    int bridge_p[kThreads];  ///< [first thread of a merge] = the bridge's end in P
    int bridge_q[kThreads];  ///< [first thread of a merge] = the bridge's end in Q (after the seam)
  };

  __device__ explicit BlockUpperHull(TempStorage& storage) : t_(storage) {}

  /// Hood of tile[0..count) (count <= kTile, sorted); returns its size, the hood is hood()[0..size).
  /// All threads of the block must call it.
  __device__ index_t run(const Point2<T>* tile, int count) {
    for (int i = threadIdx.x; i < count; i += kThreads) t_.hood[slot(i)] = tile[i];
    __syncthreads();
    // A tile that already turns strictly right at every inner point is its own hood: Andrew's chain
    // over it never pops (the argument of core::seam_bridge). Every point a vertex, the common case
    // of a full hood, then costs a check from shared memory and a move to close the strips' padding,
    // instead of the strips' chains and the rounds; elsewhere a thread leaves the check at its
    // first other turn.
    if (count >= 3 && turns_right(count)) {
      close_padding(count);
      return count;
    }
    chain_strip(count);
    __syncthreads();
    for (int r = 0; (kThreads >> r) > 1; ++r) merge_round(r);
    return t_.size[0];
  }

  __device__ const Point2<T>* hood() const { return t_.hood; }

 private:
  // Point i of the tile in the padded strips.
  __device__ static int slot(int i) { return (i / kStrip) * kStride + i % kStrip; }

  // Whether the tile turns strictly right at every inner point (then no two consecutive points are
  // equal either); block-wide.
  __device__ bool turns_right(int count) const {
    bool right = true;
    for (int i = 1 + static_cast<int>(threadIdx.x); right && i + 1 < count; i += kThreads)
      right = orient2d(t_.hood[slot(i - 1)], t_.hood[slot(i)], t_.hood[slot(i + 1)]) < 0;
    return __syncthreads_and(right) != 0;
  }

  // The tile's points from their padded slots to hood[0..count), a block-wide row at a time: row r's
  // writes land below (r + 1) * kThreads, where the later rows' slots start (slot(i) >= i), and
  // they wait at the barrier for the row's reads, whose slots may reach into the next row's places.
  __device__ void close_padding(int count) {
    for (int row = 0; row < count; row += kThreads) {
      const int i = row + static_cast<int>(threadIdx.x);
      Point2<T> p{};
      if (i < count) p = t_.hood[slot(i)];
      __syncthreads();
      if (i < count) t_.hood[i] = p;
    }
    __syncthreads();
  }

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
    const int w = kStride << r;
    const int group = 2 << r;
    const int k = threadIdx.x / group, lane = threadIdx.x % group;
    const int first =
        k * group;  // first thread (and strip) of this merge; Q's hood starts at first + group / 2
    Point2<T>* p = t_.hood + 2 * k * w;
    const Point2<T>* q_raw = p + w;
    // Every thread of the merge reads the two sizes and the seam before any thread writes.
    const int m = static_cast<int>(t_.size[first]), n_raw = static_cast<int>(t_.size[first + group / 2]);
    const int dup = static_cast<int>(core::seam_duplicates(p, index_t{m}, q_raw, index_t{n_raw}));
    const int n = n_raw - dup;
    const Point2<T>* q = q_raw + dup;
    // The first index past the bridge, a + 1, is in [lo, hi]; without a partner (or with only a seam
    // duplicate there) everything is kept: a = m - 1, b = 0. The search runs on min(group, warp)
    // threads of one warp, each step one probe a thread; lo and hi stay equal in all of them.
    const int searchers = group < kWarp ? group : kWarp;
    if (lane < searchers) {
      int lo = m > 0 && n > 0 ? 1 : m, hi = m;
      const int offset = static_cast<int>(threadIdx.x % kWarp) & ~(searchers - 1);
      const unsigned mask = searchers == kWarp ? 0xffffffffu : ((1u << searchers) - 1u) << offset;
      while (lo < hi) {
        const bool past = core::past_bridge(p, core::kary_probe(lo, hi, searchers, lane), q, n);
        const unsigned ours = (__ballot_sync(mask, past) & mask) >> offset;
        core::kary_narrow(&lo, &hi, searchers, ours != 0 ? __ffs(static_cast<int>(ours)) - 1 : searchers);
      }
      if (lane == 0) {
        t_.bridge_p[first] = lo - 1;
        t_.bridge_q[first] = m > 0 && n > 0 ? core::tangent_index(p[lo - 1], q, n) : 0;
      }
    }
    sync_group(group);
    const int a = t_.bridge_p[first], b = t_.bridge_q[first];
    // mam 6 in place: P[0..a] stays, Q[b..n) moves left to follow it. Every thread stages its share
    // (at most kStrip / 2 points) before any thread writes, since the ranges may overlap.
    const int moved = n - b;
    Point2<T> staged[kStrip / 2];
#pragma unroll
    for (int j = 0; j < kStrip / 2; ++j) {
      const int e = lane + j * group;
      if (e < moved) staged[j] = q[b + e];
    }
    sync_group(group);
#pragma unroll
    for (int j = 0; j < kStrip / 2; ++j) {
      const int e = lane + j * group;
      if (e < moved) p[a + 1 + e] = staged[j];
    }
    if (lane == 0) t_.size[first] = core::merged_size(index_t{n}, index_t{a}, index_t{b});
    // The next round's merges span twice as many threads.
    sync_group(2 * group);
  }

  TempStorage& t_;
};

}  // namespace wagener::cuda
