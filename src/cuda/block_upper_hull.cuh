// Block level: the hood of one tile of sorted points, built in shared memory. A tile that turns
// strictly right everywhere is its own hood. Otherwise, on a hull's first level, the peel
// (core/peel.hpp): rounds in which every point is judged from its nearest kept neighbours and
// dropped, all at once, when it cannot be a vertex (for 8-byte coordinates, after the first round,
// only the points whose neighbours changed are judged again). A tile whose points are nearly all
// vertices (a hull-like input, rounded) is its own hood after a few rounds, and goes out from the
// slots where it was loaded. Otherwise (after a bounded number of rounds), the thread level: each
// thread chains the points left in its own strip serially, in place; then log2(threads) rounds of
// pairwise merges inside the block. A merge's threads (up to a warp of them) find its bridge
// together by a k-ary search over P (core::kary_bridge): each thread probes one position of P with
// its own binary search for the tangent on Q, and a ballot keeps the gap between the last probe
// before the bridge and the first after it (the bridge's end on Q is the tangent that the last such
// probe found); then the merge's threads move Q's kept vertices behind P's in place. (One thread a
// merge searching by bisection left the other threads waiting at the barriers: ncu on 2^24 double
// parabola points put 55 % of the warp samples in that search and 27 % at the barrier, at 5 active
// threads a warp instruction; bench/NOTES.md.) Barriers are warp barriers while a merge's threads
// fit in one warp, block barriers after. A policy with kWalkSteps > 0 (the block finish's) first
// lets one lane walk from the seam over large hoods (core::walk_bridge), as the in-place rounds do.
#pragma once

#include <cub/block/block_scan.cuh>
#include <type_traits>
#if defined(__CUDACC__)
#include <cuda_pipeline_primitives.h>
#endif

#include "core/bridge.hpp"
#include "core/peel.hpp"
#include "cuda/placed_points.cuh"
#include "wagener/predicates.hpp"

namespace wagener::cuda {

/// Starts a copy of one point from global to shared memory that holds no register (cp.async, from
/// sm_80; a plain copy before, and on the host); await_copies() waits for the thread's copies.
template <class T>
__device__ void copy_point_async(Point2<T>* to_shared, const Point2<T>* from_global) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  __pipeline_memcpy_async(to_shared, from_global, sizeof(Point2<T>));
#else
  *to_shared = *from_global;
#endif
}

__device__ inline void await_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  __pipeline_commit();
  __pipeline_wait_prior(0);
#endif
}

/// A tile of `count` PlacedPoints (at most kThreads * kItems) into shared memory, point i at
/// hood[slot(i)]: every word read first, with its neighbours' keys (the same lines), so that all of
/// the thread's copies (asynchronous, as copy_point_async) are in flight before the first lands;
/// then each point finished (PlacedPoints::finish) by the thread that copied it; then each run of
/// one key of 2 to PlacedPoints::kShortRun points within the tile sorted by the thread of its first
/// point. A run sorted among the words already (every run the tile does not hold whole) is sorted
/// again as it is, which leaves it so. The runs' heads are found as the words are read, so a block
/// without runs pays one barrier for them.
template <int kThreads, int kItems, class T, class Slot>
__device__ void load_placed(const PlacedPoints<T>& tile, int count, Point2<T>* hood, Slot slot) {
  static_assert(kItems <= 32, "a thread's runs' heads are the bits of one word");
  std::uint32_t place[kItems];
  unsigned heads = 0;  // bit k: item k starts a run of one key within the tile
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int i = static_cast<int>(threadIdx.x) + k * kThreads;
    place[k] = 0;
    if (i < count) {
      const std::uint64_t word = tile.entry(i);
      place[k] = KeyedPlaces::place_of(word);
      const std::uint32_t key = KeyedPlaces::key_of(word);
      const bool starts = i == 0 || tile.key(i - 1) != key;
      const bool continues = i + 1 < count && tile.key(i + 1) == key;
      if (starts && continues) heads |= 1u << k;
    }
  }
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int i = static_cast<int>(threadIdx.x) + k * kThreads;
    if (i < count) copy_point_async(&hood[slot(i)], tile.from + place[k]);
  }
  await_copies();
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int i = static_cast<int>(threadIdx.x) + k * kThreads;
    if (i < count) hood[slot(i)] = tile.finish(hood[slot(i)]);
  }
  // Every point finished before the runs compare them.
  if (__syncthreads_or(heads != 0) == 0) return;
  for (; heads != 0; heads &= heads - 1u) {
    const int i = static_cast<int>(threadIdx.x) + (__ffs(static_cast<int>(heads)) - 1) * kThreads;
    const std::uint32_t key = tile.key(i);
    int end = i + 2;
    while (end < count && end - i <= PlacedPoints<T>::kShortRun && tile.key(end) == key) ++end;
    if (end - i > PlacedPoints<T>::kShortRun) continue;
    for (int a = i + 1; a < end; ++a) {  // insertion, as core::insertion_sort_lex
      const Point2<T> v = hood[slot(a)];
      int b = a;
      for (; b > i && lex_less(v, hood[slot(b - 1)]); --b) hood[slot(b)] = hood[slot(b - 1)];
      hood[slot(b)] = v;
    }
  }
}

/// BlockUpperHull::run's default: nothing to do with a tile once it is loaded.
struct NothingOnLoad {
  template <class Loaded>
  __device__ void operator()(const Loaded&, int) const {}
};

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
  static_assert(kStrip <= 32, "a strip's kept points are the bits of one word");
  static_assert(kWarp % kStrip == 0 && kThreads % kWarp == 0, "a warp stores whole strips (store())");
  using Scan = cub::BlockScan<int, kThreads, cub::BLOCK_SCAN_WARP_SCANS>;

  // Everything a merge touches is anchored at its own threads (hood slots, sizes, bridges),
  // so merges never share memory and a merge inside one warp needs only warp barriers.
  struct TempStorage {
    Point2<T> hood[kThreads * kStride];
    index_t size[kThreads];  ///< [first strip of a hood] = its size
    /// [first thread of a merge] = the bridge's end in P; in the peel, [strip] = its first kept point
    int bridge_p[kThreads];
    /// [first thread of a merge] = the bridge's end in Q (after the seam); in the peel, its last
    int bridge_q[kThreads];
    typename Scan::TempStorage scan;  ///< a peeled hood's offsets
  };

  __device__ explicit BlockUpperHull(TempStorage& storage) : t_(storage) {}

  /// Hood of tile[0..count) (count <= kTile, sorted); with `peel`, after up to Policy::kPeelRounds
  /// rounds of the peel (on the first level of a hull, whose tiles are input points; a later level's
  /// tiles are hoods side by side, whose dents at the seams a peel opens only a pair of points a
  /// round). Returns the hood's size; store() writes it. All threads of the block must call it.
  /// The tile is a pointer to its points, or a PlacedPoints view of them. on_load(point, count), if
  /// given, is called by every thread once the tile is in shared memory, point(i) its point i: a
  /// look at the points read once, from shared memory (tile_hoods_kernel's check of sorted input);
  /// run waits for every thread's call before it changes the tile.
  template <class Tile, class OnLoad = NothingOnLoad>
  __device__ index_t run(Tile tile, int count, bool peel, OnLoad on_load = {}) {
    load(tile, count);
    __syncthreads();
    if constexpr (!std::is_same_v<OnLoad, NothingOnLoad>) {
      on_load([this](int i) { return t_.hood[slot(i)]; }, count);
      __syncthreads();
    }
    // A tile that already turns strictly right at every inner point is its own hood: Andrew's chain
    // over it never pops (the argument of core::seam_bridge). Every point a vertex, the common case
    // of a full hood, then costs a check from shared memory and a move to close the strips' padding,
    // after which the hood goes out in coalesced rows; elsewhere a thread leaves the check at its
    // first other turn.
    if (count >= 3 && turns_right(count)) {
      close_padding(count);
      return count;
    }
    const int first = static_cast<int>(threadIdx.x) * kStrip;
    const int len = min(kStrip, max(0, count - first));
    unsigned live = len == 32 ? ~0u : (1u << len) - 1u;
    // The points a round judges: every point; with Policy::kPeelJudgesAgain, after the first round
    // only those whose neighbours changed (to_judge_again).
    unsigned judge = live;
    // A policy without the peel (kPeelRounds 0) compiles none of it.
    for (int round = 0; round < (peel ? Policy::kPeelRounds : 0); ++round) {
      const unsigned kept = peel_round(first, live, judge);
      const bool dropped = kept != live;
      if constexpr (Policy::kPeelJudgesAgain) judge = to_judge_again(live, kept);
      live = kept;
      // Also the barrier between this round's reads of the strips' ends and the next round's writes.
      if (!__syncthreads_or(dropped)) {
        int offset = 0, size = 0;
        Scan(t_.scan).ExclusiveSum(__popc(live), offset, size);
        peeled_ = true;
        live_ = live;
        offset_ = offset;
        return size;
      }
    }
    chain_strip(count, live);
    __syncthreads();
    // Only the rounds up to the one whose first merge spans every strip that holds a point: the
    // later rounds merge that hood with empty ones and change nothing (a random square's block
    // finish, about 180 points a block in 23 strips, needs 5 rounds of 9, their merges within a warp).
    int r = 0;
    for (; (kThreads >> r) > 1 && (kStrip << r) < count; ++r) merge_round(r);
    if ((2 << r) <= kWarp) __syncthreads();  // the last round's barrier was a warp's: the hood, block-wide
    return t_.size[0];
  }

  /// Writes the hood run() found, its size h, to out[0..h); all threads of the block.
  __device__ void store(Point2<T>* out, index_t h) const {
    if (peeled_) {
      // The kept points from where they were loaded, a warp's strips in turn, kWarp / kStrip at a
      // time: lane `bit` of a strip writes the strip's point `bit` if kept, after the strip's kept
      // points below it. So a store writes up to a warp of consecutive points, not a thread's points
      // one at a time at 32 places (bench/NOTES.md, "The tiles loaded by asynchronous copies").
      const int lane = static_cast<int>(threadIdx.x) % kWarp;
      const int warp_first = static_cast<int>(threadIdx.x) - lane;
      const int bit = lane % kStrip, sub = lane / kStrip;
      for (int s = 0; s < kWarp; s += kWarp / kStrip) {
        const unsigned live = __shfl_sync(0xffffffffu, live_, s + sub);
        const int at = __shfl_sync(0xffffffffu, offset_, s + sub);
        if ((live >> bit & 1u) != 0)
          out[at + __popc(live & ((1u << bit) - 1u))] = t_.hood[(warp_first + s + sub) * kStride + bit];
      }
    } else {
      for (index_t i = threadIdx.x; i < h; i += kThreads) out[i] = t_.hood[i];
    }
  }

 private:
  // The tile's points into their padded slots. With kLoadAsync, on the device, every copy is in
  // flight at once (cp.async, through no registers), where the plain loop keeps at most four loads
  // a thread in flight (it is unrolled four times): the double circle's first-level tiles 2.65 ->
  // 2.50 ms (bench/NOTES.md, "The tiles loaded by asynchronous copies").
  // A PlacedPoints tile: load_placed.
  __device__ void load(const Point2<T>* tile, int count) {
    if constexpr (Policy::kLoadAsync) {
      for (int i = threadIdx.x; i < count; i += kThreads) copy_point_async(&t_.hood[slot(i)], &tile[i]);
      await_copies();
    } else {
      for (int i = threadIdx.x; i < count; i += kThreads) t_.hood[slot(i)] = tile[i];
    }
  }

  __device__ void load(const PlacedPoints<T>& tile, int count) {
    load_placed<kThreads, kTile / kThreads>(tile, count, t_.hood, [](int i) { return slot(i); });
  }

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

  // One round of the peel over the points still kept (bit i of live: point first + i of this
  // thread's strip); returns those it keeps. Every point is judged from the neighbours it had
  // before the round, across strips through each strip's first and last kept point. With
  // Policy::kPeelJudgesAgain only the points of `judge` are judged, each finding its neighbours by
  // the bits; the others keep the verdict (kept) that the same neighbours gave them in an earlier
  // round. Without, a walk over every kept point judges each (one shared load a point).
  __device__ unsigned peel_round(int first, unsigned live, unsigned judge) {
    t_.bridge_p[threadIdx.x] = live != 0 ? first + lowest_bit(live) : -1;
    t_.bridge_q[threadIdx.x] = live != 0 ? first + highest_bit(live) : -1;
    __syncthreads();
    if (live == 0) return 0;
    int before = -1, after = -1;
    for (int u = static_cast<int>(threadIdx.x) - 1; u >= 0 && before < 0; --u) before = t_.bridge_q[u];
    for (int u = static_cast<int>(threadIdx.x) + 1; u < kThreads && after < 0; ++u) after = t_.bridge_p[u];
    const Point2<T>* strip = t_.hood + threadIdx.x * kStride;
    if constexpr (Policy::kPeelJudgesAgain) {
      unsigned kept = live & ~judge;
      for (unsigned rest = judge; rest != 0; rest &= rest - 1u) {
        const int i = lowest_bit(rest);
        const unsigned below = live & below_bit(i), above = live & above_bit(i);
        const bool has_a = below != 0 || before >= 0, has_b = above != 0 || after >= 0;
        const Point2<T> p = strip[i];
        const Point2<T> a = below != 0 ? strip[highest_bit(below)] : has_a ? t_.hood[slot(before)] : p;
        const Point2<T> b = above != 0 ? strip[lowest_bit(above)] : has_b ? t_.hood[slot(after)] : p;
        if (core::peel_keeps(has_a, a, p, has_b, b)) kept |= 1u << i;
      }
      return kept;
    } else {
      bool has_a = before >= 0;
      Point2<T> a = has_a ? t_.hood[slot(before)] : Point2<T>{};
      unsigned rest = live;
      int i = lowest_bit(rest);
      rest &= rest - 1u;
      Point2<T> p = strip[i];
      unsigned kept = 0;
      for (;;) {
        const int j = rest != 0 ? lowest_bit(rest) : -1;
        const bool has_b = j >= 0 || after >= 0;
        const Point2<T> b = j >= 0 ? strip[j] : after >= 0 ? t_.hood[slot(after)] : p;
        if (core::peel_keeps(has_a, a, p, has_b, b)) kept |= 1u << i;
        if (j < 0) return kept;
        a = p;
        has_a = true;
        p = b;
        i = j;
        rest &= rest - 1u;
      }
    }
  }

  // The points of a strip to judge in the next round, after one that kept `kept` of `live`: those
  // whose nearest kept neighbours changed, each dropped point's nearest kept point below and above;
  // and the strip's first and last kept points, whose neighbours may lie in other strips. A point
  // judged with the same neighbours gets the same verdict.
  __device__ static unsigned to_judge_again(unsigned live, unsigned kept) {
    if (kept == 0) return 0;
    unsigned judge = (1u << lowest_bit(kept)) | (1u << highest_bit(kept));
    for (unsigned dropped = live & ~kept; dropped != 0; dropped &= dropped - 1u) {
      const int d = lowest_bit(dropped);
      const unsigned below = kept & below_bit(d), above = kept & above_bit(d);
      if (below != 0) judge |= 1u << highest_bit(below);
      if (above != 0) judge |= 1u << lowest_bit(above);
    }
    return judge;
  }

  // Bits of a word: those below bit i, those above it, and the lowest and highest set bit (of a
  // nonzero word).
  __device__ static unsigned below_bit(int i) { return (1u << i) - 1u; }
  __device__ static unsigned above_bit(int i) { return ~((2u << i) - 1u); }  // 2u << 31 is 0
  __device__ static int lowest_bit(unsigned word) { return __ffs(static_cast<int>(word)) - 1; }
  __device__ static int highest_bit(unsigned word) { return 31 - __clz(static_cast<int>(word)); }

  // Thread level: Andrew's chain over the strip's kept points (bit i of live: point i); the chain
  // overwrites the slots already read.
  __device__ void chain_strip(int count, unsigned live) {
    Point2<T>* strip = t_.hood + threadIdx.x * kStride;
    const int len = min(kStrip, max(0, count - static_cast<int>(threadIdx.x) * kStrip));
    int h = 0;
    for (int i = 0; i < len; ++i) {
      if ((live >> i & 1u) == 0) continue;
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
    // threads of one warp, each step one probe a thread; lo and hi stay equal in all of them. A step
    // that raises lo takes lo - 1 from the probe before the first past the bridge, whose thread has
    // the tangent t(P[lo - 1]) in hand: b is the last such tangent, found again only where lo never
    // rose (a = 0).
    const int searchers = group < kWarp ? group : kWarp;
    if (lane < searchers) {
      int lo = m > 0 && n > 0 ? 1 : m, hi = m;
      const int offset = static_cast<int>(threadIdx.x % kWarp) & ~(searchers - 1);
      const unsigned mask = searchers == kWarp ? 0xffffffffu : ((1u << searchers) - 1u) << offset;
      int tangent = 0, bridge_tangent = -1;
      if constexpr (Policy::kWalkSteps > 0) {
        // A bridge near the seam, walked by the merge's first lane: then there is nothing to search.
        // Only over hoods of kWalkFromHood vertices or more: smaller hoods' searches take as few
        // tests as a walk's steps.
        if (lo < hi && min(m, n) >= Policy::kWalkFromHood) {
          int walked_a = -1, walked_b = 0;
          if (lane == 0) core::walk_bridge(p, m, q, n, Policy::kWalkSteps, &walked_a, &walked_b);
          walked_a = __shfl_sync(mask, walked_a, offset);
          if (walked_a >= 0) {
            lo = hi = walked_a + 1;
            bridge_tangent = __shfl_sync(mask, walked_b, offset);
          }
        }
      }
      while (lo < hi) {
        const bool past = core::past_bridge(p, core::kary_probe(lo, hi, searchers, lane), q, n, &tangent);
        const unsigned ours = (__ballot_sync(mask, past) & mask) >> offset;
        const int first_past = ours != 0 ? __ffs(static_cast<int>(ours)) - 1 : searchers;
        const int before = __shfl_sync(mask, tangent, offset + (first_past > 0 ? first_past - 1 : 0));
        if (first_past > 0) bridge_tangent = before;
        core::kary_narrow(&lo, &hi, searchers, first_past);
      }
      if (lane == 0) {
        t_.bridge_p[first] = lo - 1;
        t_.bridge_q[first] = m == 0 || n == 0      ? 0
                             : bridge_tangent >= 0 ? bridge_tangent
                                                   : core::tangent_index(p[lo - 1], q, n);
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
  // A hood the peel finished: this thread's kept points (bits of its strip) and where they go.
  bool peeled_ = false;
  unsigned live_ = 0;
  int offset_ = 0;
};

}  // namespace wagener::cuda
