// Grouped hulls on the device: one pipeline for all the groups, never a launch per group.
//  1. hull_groups_by_team: a team of kTeamLanes lanes per group, the 4 or 8 groups of a one-warp
//     block consecutive. The warp stages its groups' points in shared memory with one coalesced copy
//     (in rounds, when they do not fit at once), and each team then runs the small-hull recipe on
//     its group there: finiteness and the eight extreme points (src/core/small_hull.hpp) in one pass,
//     each lane over every kTeamLanes-th point, then agreed by shuffles; the points the extreme
//     polygon cannot discard, compacted by ballots in index order and split by the line from the
//     smallest point to the largest; each side sorted by rank, split over the team; and each side's
//     chain in pieces split at the octagon's corners, a lane each (chain_sides). It writes the hull's size
//     and its vertices' positions in the group (a byte each). A group of more points than kThreadGroupPoints,
//     or with more survivors than kThreadSurvivors, is listed for step 2. (A warp per group spent ~10,000
//     warp instructions per 100-point group, most of them in one lane's sort and chain; a thread per group,
//     ~1,000, but a 32-group stage left one warp per scheduler to wait out every latency: bench/NOTES.md.)
//  2. hull_listed_groups: a warp per listed group reads the group's points (coalesced), finds the
//     extremes across the warp, compacts the survivors into shared memory, sorts them by rank across
//     the warp, and one lane chains them, into a scratch array at the group's input range. A group
//     too large for this (more points than kWarpGroupPoints, or more survivors than kWarpSurvivors)
//     is deferred.
//  3. Deferred groups, listed by step 2: the large ones on the device's single-hull pipeline
//     (convex_hull_on_device), the rest on the host's (compute_hull). Rare for the inputs this is for
//     (many small groups); hull-like groups of hundreds of points take this path.
//  4. An inclusive scan of the hull sizes (CUB) gives the hull offsets, and a warp per 32 groups
//     writes their hulls in place, from the input at step 1's positions or from step 2's scratch.
//     The scratch (n points) is allocated only when step 1 lists a group. The rest of a call's
//     working memory (n bytes of positions, two lists of groups) lies at the end of d_hull where it
//     fits there, so that a call of small groups allocates nothing (Workspace).
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cub/device/device_scan.cuh>
#include <string>
#include <type_traits>
#include <vector>

#include "core/small_hull.hpp"
#include "cuda/buffers.cuh"
#include "cuda/check.cuh"
#include "cuda/convex_hull.cuh"
#include "cuda/cuda_backend.hpp"
#include "cuda/grouped_backend.hpp"
#include "cuda/launch.cuh"
#include "wagener/cuda.hpp"
#include "wagener/error.hpp"
#include "wagener/hull.hpp"

namespace wagener::cuda {
namespace {

// Step 1: one-warp blocks, a team of lanes per group. Groups of more points than this go to step 2
// (a team would take too long over them, and their positions would not fit a byte).
constexpr int kThreadGroupPoints = 255;
// Survivors of the extreme polygon one team sorts and chains (a 100-point disk leaves ~10); a group
// with more goes to step 2.
constexpr int kThreadSurvivors = 64;
// Lanes per group: more lanes, fewer groups per warp, a smaller stage and more warps per
// multiprocessor; but more shuffles, and more lanes idle while one chains. Measured on an H100 with
// 10^6 groups of 100 points (bench/NOTES.md): 8 for double, 4 for float.
template <class T>
constexpr int kTeamLanes = sizeof(T) == 8 ? 8 : 4;
// The bytes of points a block stages at once: 32 / Lanes groups of 100 points in one round.
template <class T, int Lanes>
constexpr std::size_t kStageBytes = 3200 / Lanes * sizeof(Point2<T>);
// Per group, four lists of survivors' positions and the chains' six split corners (TeamLists), padded
// to 8 bytes (no fewer blocks per multiprocessor than without them).
constexpr std::size_t kListBytes = 4 * kThreadSurvivors + 8;
template <class T, int Lanes>
constexpr std::size_t kTileSharedBytes = kStageBytes<T, Lanes> + (32 / Lanes * kListBytes);
// Blocks per multiprocessor the registers must allow: as many as shared memory allows on an H100
// (228 KB, 1 KB of it reserved per block), 27 for double and 24 for float, so 72 and 80 registers
// a lane. (At 32 blocks, 64 registers, the kernel spilled in its loops.)
template <class T>
constexpr int kTeamBlocks =
    static_cast<int>(std::min<std::size_t>(32, 228 * 1024 / (kTileSharedBytes<T, kTeamLanes<T>> + 1024)));
// Pieces each side's chain splits into in step 1, a lane each (two sides a team): at most four, at
// the three octagon corners between a side's ends.
template <int Lanes>
constexpr int kChainPieces = Lanes >= 8 ? 4 : (Lanes >= 4 ? 2 : 1);
// Marks, in step 1's positions, a group it listed: a position on the thread path is at most 254.
constexpr std::uint8_t kListed = 0xff;
static_assert(kThreadGroupPoints <= kListed, "positions on the thread path stay below the mark");

// Step 4: threads per block, and outputs a lane places at a time.
constexpr int kPlaceThreads = 256;
constexpr int kPlaceBatch = 4;
// Step 2: one warp per group, four warps per block: the shared buffers of four warps (double:
// 2 x 129 elements of 32 bytes each) stay within the 48 KB a block may take statically.
constexpr int kWarp = 32;
constexpr int kWarpsPerBlock = 4;
// Groups of more points than this are deferred: a warp would take too long over them.
constexpr index_t kWarpGroupPoints = 4096;
// Survivors of the filter one warp sorts and chains in shared memory.
constexpr int kWarpSurvivors = 128;
// Deferred groups above this size run on the device's single-hull pipeline, the others on the host.
constexpr index_t kDeviceGroupPoints = index_t{1} << 16;

/// Adds group g to a list (of the groups step 2 or step 3 takes).
__device__ void list_group(index_t g, std::int64_t* list, unsigned long long* list_size) {
  list[atomicAdd(list_size, 1ull)] = g;
}

/// The extreme polygon of one group, held by each lane of its team: the same eight corners as
/// core::ExtremePolygon (the extremes of x, x + y, y and y - x, counter-clockwise), found by position
/// and tested as a fixed octagon whose edges between equal corners are skipped. Everything stays in
/// registers and the test is branch-free: ExtremePolygon's dropped corners index its arrays at run
/// time, which puts them in local memory, and the teams of a warp, each on its own group, would
/// diverge over its early exits.
template <class T>
class ThreadOctagon {
 public:
  /// Pre: n >= 1 points. The `lanes` lanes of team_mask (a power of two, consecutive lanes) each
  /// scan the points first, first + lanes, ... and agree on the same corners; in the same pass they
  /// find the first point that is not finite (first_bad(): n if none; the corners are then not
  /// meaningful).
  __device__ ThreadOctagon(const Point2<T>* points, int n, int first, int lanes, unsigned team_mask) {
    // The keys x + y, y and y - x are rounded sums in T (integers: in double, where their sums cannot
    // overflow): they only choose which input points become corners, and any choice is a valid filter
    // (core::ExtremePolygon).
    // Corners 0 and 4, the extremes of x, are the smallest and the largest point (x, then y), compared
    // in T itself, exactly: the line between them splits the survivors for the two chains.
    T low_x = points[0].x, high_x = points[0].x, low_y = points[0].y, high_y = points[0].y;
    Key low[4], high[4];  // [1, 4): the rounded keys
    int low_at[4] = {0, 0, 0, 0}, high_at[4] = {0, 0, 0, 0};
    keys(points[0], low);
    keys(points[0], high);
    int bad = n;
    for (int i = first; i < n; i += lanes) {
      Key key[4];
      keys(points[i], key);
      const T x = points[i].x, y = points[i].y;
      bad = is_finite(points[i]) ? bad : min(bad, i);
      if (x < low_x || (x == low_x && y < low_y)) low_x = x, low_y = y, low_at[0] = i;
      if (x > high_x || (x == high_x && y > high_y)) high_x = x, high_y = y, high_at[0] = i;
#pragma unroll
      for (int k = 1; k < 4; ++k) {
        if (key[k] < low[k]) low[k] = key[k], low_at[k] = i;
        if (key[k] > high[k]) high[k] = key[k], high_at[k] = i;
      }
    }
    // The team's extremes: on equal keys the first point, as one lane scanning them all would find.
    for (int d = 1; d < lanes; d *= 2) {
      bad = min(bad, __shfl_xor_sync(team_mask, bad, d));
      {
        const T other_low_x = __shfl_xor_sync(team_mask, low_x, d);
        const T other_low_y = __shfl_xor_sync(team_mask, low_y, d);
        const int other_low_at = __shfl_xor_sync(team_mask, low_at[0], d);
        if (other_low_x < low_x ||
            (other_low_x == low_x &&
             (other_low_y < low_y || (other_low_y == low_y && other_low_at < low_at[0]))))
          low_x = other_low_x, low_y = other_low_y, low_at[0] = other_low_at;
        const T other_high_x = __shfl_xor_sync(team_mask, high_x, d);
        const T other_high_y = __shfl_xor_sync(team_mask, high_y, d);
        const int other_high_at = __shfl_xor_sync(team_mask, high_at[0], d);
        if (other_high_x > high_x ||
            (other_high_x == high_x &&
             (other_high_y > high_y || (other_high_y == high_y && other_high_at < high_at[0]))))
          high_x = other_high_x, high_y = other_high_y, high_at[0] = other_high_at;
      }
#pragma unroll
      for (int k = 1; k < 4; ++k) {
        const Key other_low = __shfl_xor_sync(team_mask, low[k], d);
        const int other_low_at = __shfl_xor_sync(team_mask, low_at[k], d);
        if (other_low < low[k] || (other_low == low[k] && other_low_at < low_at[k]))
          low[k] = other_low, low_at[k] = other_low_at;
        const Key other_high = __shfl_xor_sync(team_mask, high[k], d);
        const int other_high_at = __shfl_xor_sync(team_mask, high_at[k], d);
        if (other_high > high[k] || (other_high == high[k] && other_high_at < high_at[k]))
          high[k] = other_high, high_at[k] = other_high_at;
      }
    }
    bool exact = true;  // every corner exact in double (converts_exactly: 64-bit integers may not be)
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const Point2<T> c = points[k < 4 ? low_at[k] : high_at[k - 4]];
      x_[k] = static_cast<double>(c.x), y_[k] = static_cast<double>(c.y);
      exact &= converts_exactly(c);
    }
    smallest_ = points[low_at[0]], largest_ = points[high_at[0]];
    // The corners between each side's ends in x order, a byte each: below, 1 (x + y), 2 (y), 3 (y - x);
    // above, 7 (y - x), 6 (y), 5 (x + y).
    lower_splits_ = static_cast<unsigned>(low_at[1] | low_at[2] << 8 | low_at[3] << 16);
    upper_splits_ = static_cast<unsigned>(high_at[3] | high_at[2] << 8 | high_at[1] << 16);
    unsigned skip = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) skip |= (x_[k] == x_[(k + 1) % 8] && y_[k] == y_[(k + 1) % 8]) ? 1u << k : 0u;
    // (One mask, not eight flags: with flags the compiler recomputed the eight comparisons for every
    // point tested.)
    skip_ = skip;
    first_bad_ = bad;
    // Fewer than three distinct corners in a row certify nothing (core::ExtremePolygon::finish), and
    // corners double does not hold would make it test another polygon.
    enabled_ = __popc(skip) <= 5 && exact;
    // One error bound for every test of the group. Orientation's certificate (Shewchuk's, as in
    // certified_left_differences) for corners a, b and a point p of the group is det > kOrientErrBound
    // * detsum with detsum = |(a.x - p.x)(b.y - p.y)| + |(a.y - p.y)(b.x - p.x)|, all rounded; each
    // difference is at most the group's width or height (rounding is monotone), so detsum <= 2 w h
    // (1 + eps)^2, and a bound from 2 w h with room for its own rounding certifies no less soundly.
    // Products that underflow add at most 2^-1074 each: a group whose 2 w h is below kOrientMinSafe
    // certifies nothing; above it, a point's smaller detsum leaves at least kOrientErrBound 2^-901 of
    // room. An overflow makes the bound infinite (nothing certified), a NaN fails every comparison.
    const double width = x_[4] - x_[0], height = y_[6] - y_[2];  // corners 0, 4: x; 2, 6: y
    const double most = 2 * width * height;
    enabled_ &= most >= detail::kOrientMinSafe;
    bound_ = detail::kOrientErrBound * (1 + 0x1p-40) * most;
  }

  __device__ int first_bad() const {
    return first_bad_;
  }

  /// The corners between each side's ends, where chain_sides splits the chains: their positions in
  /// the group, a byte each, in x order along the side: below at out[0 .. 3), above at out[3 .. 6).
  /// (In shared memory, not registers: chain_sides reads them after the filter and the sort.)
  __device__ void store_splits(std::uint8_t* out) const {
#pragma unroll
    for (int b = 0; b < 3; ++b) {
      out[b] = static_cast<std::uint8_t>(lower_splits_ >> (8 * b));
      out[3 + b] = static_cast<std::uint8_t>(upper_splits_ >> (8 * b));
    }
  }

  /// The orientation of (smallest point, largest point, p), exact: above the line between them
  /// positive, below negative.
  __device__ int side(const Point2<T>& p) const {
    if constexpr (exact_in_double_v<T>) {
      return orient2d(x_[0], y_[0], x_[4], y_[4], static_cast<double>(p.x), static_cast<double>(p.y));
    } else {
      return orient2d(smallest_, largest_, p);
    }
  }

  /// True when p is certified strictly left of every edge between distinct corners.
  __device__ bool strictly_inside(const Point2<T>& p) const {
    const auto px = static_cast<double>(p.x), py = static_cast<double>(p.y);
    double dx[8], dy[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) dx[k] = x_[k] - px, dy[k] = y_[k] - py;
    bool inside = enabled_;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int next = (k + 1) % 8;
      // certified_left_differences with the group's bound (see the constructor): three flops a test
      // rather than six, and no test of scale.
      const double detleft = dx[k] * dy[next], detright = dy[k] * dx[next];
      inside &= ((skip_ >> k) & 1u) | (detleft - detright > bound_);
    }
    return inside;
  }

 private:
  using Key = std::conditional_t<std::is_integral_v<T>, double, T>;

  __device__ static void keys(const Point2<T>& p, Key (&key)[4]) {
    const Key x = static_cast<Key>(p.x), y = static_cast<Key>(p.y);
    key[0] = x, key[1] = x + y, key[2] = y, key[3] = y - x;  // key[0] unused: x is compared in T
  }

  double x_[8], y_[8];
  Point2<T> smallest_, largest_;          // corners 0 and 4, for side() where double does not hold T
  double bound_;                          // certifies every test of the group (see the constructor)
  unsigned skip_;                         // bit k: edge k joins equal corners and is skipped
  unsigned lower_splits_, upper_splits_;  // store_splits' positions, a byte each
  int first_bad_;                         // the first point that is not finite; n if none
  bool enabled_;
};

/// A team's lists of positions in its group, kThreadSurvivors each, in shared memory; each of the
/// four buffers serves again once its use before is over (`survivors` three times).
struct TeamLists {
  std::uint8_t* survivors;     // in index order; then the lower side, sorted; then the lower chain
                               // (for an upper hull alone: the upper chain)
  std::uint8_t* lower_side;    // survivors on or below the line from the smallest point to the
                               // largest, in index order; then the lower chain's pieces
  std::uint8_t* upper_side;    // on or above it, in index order; then the upper chain's pieces
  std::uint8_t* upper_sorted;  // the upper side, sorted; then the upper chain
  std::uint8_t* splits;        // ThreadOctagon::store_splits' six corners

  __device__ explicit TeamLists(std::uint8_t* bytes)
      : survivors(bytes),
        lower_side(bytes + kThreadSurvivors),
        upper_side(bytes + 2 * kThreadSurvivors),
        upper_sorted(bytes + 3 * kThreadSurvivors),
        splits(bytes + 4 * kThreadSurvivors) {}
  __device__ std::uint8_t* lower_sorted() const { return survivors; }
  __device__ std::uint8_t* lower_chain() const { return survivors; }
  __device__ std::uint8_t* upper_chain() const { return upper_sorted; }
};

/// The hull step 1 found for a group: its vertices' positions in the group, the first `lower` at
/// lists.lower_chain()[0 ...], then lists.upper_chain()[1 ...] (core::full_chain_size).
struct TeamHull {
  int count;  // hull vertices; -1: the group has more survivors than kThreadSurvivors
  int lower;  // of them, from the lower chain
  __device__ std::uint8_t position(int v, const TeamLists& lists) const {
    return v < lower ? lists.lower_chain()[v] : lists.upper_chain()[v - lower + 1];
  }
};

/// Step 1's rare path (hull_group_by_team): one lane chains a side's joined pieces again, forwards in
/// the chain's order (no equal points are left), through `scratch`, back into `joined`; returns the
/// chain's size. Not inlined, so that its copy of chain_pass takes no registers from the common path.
template <class T>
__device__ __noinline__ int rechain_joined(const Point2<T>* points, std::uint8_t* joined, int size, int keep,
                                           std::uint8_t* scratch) {
  const int k = core::chain_pass(joined, size, false, keep, scratch,
                                 [points](std::uint8_t e) -> const Point2<T>& { return points[e]; });
  for (int t = 0; t < k; ++t) joined[t] = scratch[t];
  return k;
}

/// A lane's piece of a side's chain in step 1 (chain_sides): which side, which piece, whether it has one.
struct PieceRole {
  bool on_upper;
  int piece;
  bool chaining;
};

template <int Lanes>
__device__ PieceRole piece_role(HullPart part, int team_lane) {
  constexpr int kPieces = kChainPieces<Lanes>;
  const bool upper_only = part == HullPart::upper;
  return {upper_only || team_lane >= kPieces, upper_only ? team_lane : team_lane % kPieces,
          upper_only ? team_lane < kPieces : team_lane < 2 * kPieces};
}

/// Step 1's chains for one group whose sides hull_group_by_team sorted into `lists`: returns the hull
/// (TeamHull) in every lane of the team; lists.splits holds the corners where the pieces end.
template <class T, int Lanes>
__device__ __forceinline__ TeamHull chain_sides(const Point2<T>* points, const TeamLists& lists,
                                                int lower_count, int upper_count, HullPart part,
                                                int team_lane, unsigned team_mask) {
  constexpr int kPieces = kChainPieces<Lanes>;
  const int team_shift = __ffs(team_mask) - 1;
  const bool upper_only = part == HullPart::upper;
  const PieceRole role = piece_role<Lanes>(part, team_lane);
  const bool on_upper = role.on_upper, chaining = role.chaining;
  const int piece = role.piece;
  // The chains: each side's in kPieces pieces, a lane each (core::chain_pass; one loop for every lane,
  // so they do not diverge), split at the octagon's corners between the side's ends. The lower chain
  // runs forwards keeping left turns, the upper backwards keeping left turns for a full hull, or
  // forwards keeping right turns for an upper hull alone. When one lane ran each whole side, the
  // chains were a quarter of this kernel's instructions (ncu, bench/NOTES.md).
  //  - A piece is the run of the side's sorted points from the last piece's end to its own (its
  //    corner's place there, or the side's end), so the pieces share their ends; each writes its
  //    chain at its start plus its number (the pieces' outputs then never meet), into the side's
  //    unsorted list, free since the sort.
  //  - Joined, the pieces' chains are the side's chain where every join turns strictly: a convex
  //    chain on or below each piece's points is on or below them all. A corner is a vertex when its
  //    key was exact, so this is the common case. Otherwise (a corner on an edge, or a rounded key's
  //    choice inside the hull) one lane chains the joined pieces again: a point no piece keeps is no
  //    vertex of the whole, so that gives the side's chain in every case.
  //  - Of equal points the first is kept, as in one pass: a corner is the first of its copies (the
  //    first index of its key), so a piece ends at the first copy and the next skips the others.
  const std::uint8_t* sorted = on_upper ? lists.upper_sorted : lists.lower_sorted();
  const int count = on_upper ? upper_count : lower_count;
  std::uint8_t* pieces = on_upper ? lists.upper_side : lists.lower_side;
  std::uint8_t* joined = on_upper && !upper_only ? lists.upper_chain() : lists.lower_chain();
  const bool backward = on_upper && !upper_only;
  const int keep = upper_only ? -1 : 1;
  const int first_lane = team_shift + (on_upper && !upper_only ? kPieces : 0);  // the side's piece 0
  const auto point_of = [points](std::uint8_t e) -> const Point2<T>& { return points[e]; };
  // Where this piece ends: its corner's place in the side (-1: not there), or the side's end; the
  // whole side on piece 0 where the pieces' outputs would not fit the list.
  const bool split = count + kPieces - 1 <= kThreadSurvivors;
  int end = count - 1;
  if (chaining && piece < kPieces - 1) {
    // Two pieces a side: at the extreme of y, the side's middle corner.
    const int split_at = lists.splits[(on_upper ? 3 : 0) + (kPieces == 4 ? piece : 1)];
    end = split ? -1 : count - 1;
    for (int i = 0; split && i < count; ++i) end = sorted[i] == split_at ? i : end;
  }
  int start = 0, stop = 0;  // this piece: sorted[start .. stop]
  for (int i = 0, last = 0; i < kPieces; ++i) {
    const int at = max(last, __shfl_sync(team_mask, end, first_lane + i));  // never before the last
    if (i == piece) start = last, stop = at;
    last = at;
  }
  int k = 0;
  const bool run = chaining && (stop > start || piece == 0);
  if (run)
    k = core::chain_pass(sorted + start, stop - start + 1, backward, keep, pieces + start + piece, point_of);
  __syncwarp(team_mask);
  // Joined in the chain's order (backwards: the last piece first), each piece after the first that
  // keeps anything without its first point, which ends the piece before.
  int at = 0, skip = 0, total = 0;
  for (int i = 0; i < kPieces; ++i) {
    const int q = backward ? kPieces - 1 - i : i;
    const int kept = __shfl_sync(team_mask, k, first_lane + q);
    if (q == piece) at = total, skip = total > 0 ? 1 : 0;
    total += kept > 0 ? kept - (total > 0 ? 1 : 0) : 0;
  }
  if (run) {
    for (int t = skip; t < k; ++t) joined[at + t - skip] = pieces[start + piece + t];
  }
  __syncwarp(team_mask);
  // Each join, at the point this piece skipped, must turn strictly.
  bool bent = false;
  if (run && skip == 1 && at >= 2 && at < total) {
    // (The filter alone: a turn it cannot certify strict counts as bent, and rechaining is exact.)
    bent =
        orient2d_certified(point_of(joined[at - 2]), point_of(joined[at - 1]), point_of(joined[at])) * keep <=
        0;
  }
  const unsigned side_lanes = ((1u << kPieces) - 1u) << first_lane;
  const bool rechain = (__ballot_sync(team_mask, bent) & side_lanes) != 0;
  __syncwarp(team_mask);  // the checks' reads of `joined` before the rechain rewrites it
  if (rechain && chaining && piece == 0) total = rechain_joined(points, joined, total, keep, pieces);
  const int lower = __shfl_sync(team_mask, total, team_shift);
  const int upper = __shfl_sync(team_mask, total, team_shift + kPieces);
  __syncwarp(team_mask);
  return {upper_only ? lower : core::full_chain_size(lower, upper), lower};
}

/// Step 1 for one group of n points staged at `points` (shared memory), by a team of Lanes
/// consecutive lanes (team_lane: this lane's place in it): returns, in every lane of the team, the
/// hull as positions in the group. A non-finite point is reported through first_bad (the call
/// fails) and the group counted empty. `lists` are the team's.
template <class T, int Lanes>
__device__ TeamHull hull_group_by_team(const Point2<T>* points, int n, std::int64_t begin, HullPart part,
                                       int team_lane, unsigned team_mask, const TeamLists& lists,
                                       unsigned long long* first_bad) {
  static_assert(Lanes >= 2, "the lower and upper chains run on two lanes");
  if (n == 0) return {0, 0};
  const ThreadOctagon<T> octagon(points, n, team_lane, Lanes, team_mask);
  if (octagon.first_bad() < n) {
    if (team_lane == 0) atomicMin(first_bad, static_cast<unsigned long long>(begin + octagon.first_bad()));
    return {0, 0};
  }
  if (team_lane == 0) octagon.store_splits(lists.splits);  // read after the barriers below
  // The survivors' positions, in index order (the team tests Lanes consecutive points at a time).
  const int team_shift = __ffs(team_mask) - 1;
  int m = 0;
  for (int at = 0; at < n; at += Lanes) {
    const int i = at + team_lane;
    const bool keep = i < n && !octagon.strictly_inside(points[i]);
    const unsigned kept = (__ballot_sync(team_mask, keep) >> team_shift) & ((1u << Lanes) - 1u);
    const int place = m + __popc(kept & ((1u << team_lane) - 1u));
    if (keep && place < kThreadSurvivors) lists.survivors[place] = static_cast<std::uint8_t>(i);
    m += __popc(kept);
  }
  if (m > kThreadSurvivors) return {-1, 0};
  __syncwarp(team_mask);
  // The lower chain needs only the survivors on or below the line from the smallest point to the
  // largest, the upper chain those on or above it (a point strictly on one side is no vertex of the
  // other chain, and leaving it out changes nothing there): each sort and each chain then takes
  // about half of them.
  int lower_count = 0, upper_count = 0;
  for (int at = 0; at < m; at += Lanes) {
    const int i = at + team_lane;
    const std::uint8_t e = i < m ? lists.survivors[i] : 0;
    const int side = i < m ? octagon.side(points[e]) : 0;
    const bool lower = i < m && side <= 0, upper = i < m && side >= 0;
    const unsigned lowers = (__ballot_sync(team_mask, lower) >> team_shift) & ((1u << Lanes) - 1u);
    const unsigned uppers = (__ballot_sync(team_mask, upper) >> team_shift) & ((1u << Lanes) - 1u);
    const unsigned before = (1u << team_lane) - 1u;
    if (lower) lists.lower_side[lower_count + __popc(lowers & before)] = e;
    if (upper) lists.upper_side[upper_count + __popc(uppers & before)] = e;
    lower_count += __popc(lowers);
    upper_count += __popc(uppers);
  }
  __syncwarp(team_mask);
  // Each side sorted by rank: an element's place is the number before it in (x, y) order, equal
  // ones by position (their order in the side's list), so the chain keeps the first of equal
  // points, as compute_hull() does.
  for (int i = team_lane; i < lower_count + upper_count; i += Lanes) {
    const bool lower_side = i < lower_count;
    const std::uint8_t* side = lower_side ? lists.lower_side : lists.upper_side;
    const int at = lower_side ? i : i - lower_count, size = lower_side ? lower_count : upper_count;
    const std::uint8_t e = side[at];
    const Point2<T> p = points[e];
    int rank = 0;
    for (int j = 0; j < size; ++j) {
      const Point2<T> q = points[side[j]];
      // (Bitwise, not short-circuit: branches here cost more than the comparisons.)
      rank += (q.x < p.x) | ((q.x == p.x) & ((q.y < p.y) | ((q.y == p.y) & (j < at))));
    }
    (lower_side ? lists.lower_sorted() : lists.upper_sorted)[rank] = e;
  }
  __syncwarp(team_mask);
  return chain_sides<T, Lanes>(points, lists, lower_count, upper_count, part, team_lane, team_mask);
}

/// Step 1 (see the file comment), a team of Lanes lanes per group, registers for MinBlocks blocks
/// per multiprocessor. For each group it finishes, writes counts[g] and the chain's positions in the
/// group at positions[offsets[g] ...]; lists the others in `listed`, marking positions[offsets[g]]
/// with kListed.
template <class T, int Lanes, int MinBlocks>
__global__ void __launch_bounds__(kWarp, MinBlocks)
    hull_groups_by_team(const Point2<T>* points, const std::int64_t* offsets, index_t groups, HullPart part,
                        std::int64_t* counts, std::uint8_t* positions, std::int64_t* listed,
                        unsigned long long* listed_count, unsigned long long* first_bad) {
  namespace cg = cooperative_groups;
  extern __shared__ __align__(16) unsigned char tile_shared[];
  constexpr int kStagePoints = static_cast<int>(kStageBytes<T, Lanes> / sizeof(Point2<T>));
  static_assert(kStagePoints >= kThreadGroupPoints, "a group on this path fits the stage alone");
  auto* staged = reinterpret_cast<Point2<T>*>(tile_shared);
  const int lane = static_cast<int>(threadIdx.x);
  const int slot = lane / Lanes, team_lane = lane % Lanes;
  const unsigned team_mask = ((1u << Lanes) - 1u) << (slot * Lanes);
  const bool leader = team_lane == 0;
  const TeamLists lists(tile_shared + kStageBytes<T, Lanes> + slot * kListBytes);
  const cg::thread_block block = cg::this_thread_block();

  const index_t g = static_cast<index_t>(blockIdx.x) * (kWarp / Lanes) + slot;
  const bool mine = g < groups;
  const std::int64_t begin = mine ? offsets[g] : 0, end = mine ? offsets[g + 1] : 0;
  // (end >= begin and begin >= base below hold for valid offsets; they keep a bad offsets array,
  // which the caller should have refused, from indexing outside the stage.)
  const bool by_team = mine && end >= begin && end - begin <= kThreadGroupPoints;
  TeamHull hull{-1, 0};  // once this team has its group's hull

  // Rounds: each stages the points of consecutive groups on this path that fit the stage together
  // (contiguous in the input), from the first group still pending. The teams' leaders decide.
  unsigned pending = __ballot_sync(0xffffffffu, by_team && leader);
  while (pending != 0) {
    const int first = __ffs(pending) - 1;
    const std::int64_t base = __shfl_sync(0xffffffffu, begin, first);
    const bool fits = by_team && lane >= first && begin >= base && end - base <= kStagePoints;
    const unsigned stops = __ballot_sync(0xffffffffu, leader && !fits) & (0xffffffffu << first);
    const int last = stops != 0 ? __ffs(stops) - 1 - Lanes : kWarp - Lanes;  // the last leader in the round
    const std::int64_t top = __shfl_sync(0xffffffffu, end, last);
    cg::memcpy_async(block, staged, points + base, static_cast<std::size_t>(top - base) * sizeof(Point2<T>));
    cg::wait(block);
    if (lane >= first && lane < last + Lanes) {
      hull = hull_group_by_team<T, Lanes>(staged + (begin - base), static_cast<int>(end - begin), begin, part,
                                          team_lane, team_mask, lists, first_bad);
    }
    block.sync();  // the stage is read before the next round overwrites it
    const unsigned through_last = last + Lanes == kWarp ? 0xffffffffu : (1u << (last + Lanes)) - 1u;
    pending &= ~through_last;
  }
  if (!mine) return;
  if (hull.count >= 0) {
    if (leader) counts[g] = hull.count;
    for (int v = team_lane; v < hull.count; v += Lanes) positions[begin + v] = hull.position(v, lists);
  } else if (leader) {
    list_group(g, listed, listed_count);
    positions[begin] = kListed;  // a listed group has points (more than kThreadSurvivors)
  }
}

template <class T>
struct Keyed {
  Point2<T> p;
  int index;  // within the group (< kWarpGroupPoints)
};

template <class T>
__device__ bool keyed_less(const Keyed<T>& a, const Keyed<T>& b) {
  if (a.p.x != b.p.x) return a.p.x < b.p.x;
  if (a.p.y != b.p.y) return a.p.y < b.p.y;
  return a.index < b.index;
}

template <class T>
__device__ void shuffle_point(Point2<T>& p, int lane) {
  p.x = __shfl_sync(0xffffffffu, p.x, lane);
  p.y = __shfl_sync(0xffffffffu, p.y, lane);
}

/// Step 2 (see the file comment), for the groups listed in `listed`. Writes counts[g] (or lists g in
/// deferred[]) and the hull of each group it finishes at scratch[offsets[g] ...] (indices at
/// scratch_index, into the whole input).
template <class T>
__global__ void hull_listed_groups(const Point2<T>* points, const std::int64_t* offsets,
                                   const std::int64_t* listed, index_t listed_count, HullPart part,
                                   Point2<T>* scratch, std::int64_t* scratch_index, std::int64_t* counts,
                                   std::int64_t* deferred, unsigned long long* deferred_count,
                                   unsigned long long* first_bad) {
  __shared__ Keyed<T> kept_all[kWarpsPerBlock][kWarpSurvivors];
  __shared__ Keyed<T> chain_all[kWarpsPerBlock][kWarpSurvivors + 1];
  const int warp = static_cast<int>(threadIdx.x) / kWarp;
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const index_t listed_at = static_cast<index_t>(blockIdx.x) * kWarpsPerBlock + warp;
  if (listed_at >= listed_count) return;  // the whole warp leaves together
  const index_t g = listed[listed_at];
  Keyed<T>* kept = kept_all[warp];
  Keyed<T>* chain = chain_all[warp];
  const std::int64_t begin = offsets[g];
  const index_t n = offsets[g + 1] - begin;
  const Point2<T>* group = points + begin;
  if (n == 0) {
    if (lane == 0) counts[g] = 0;
    return;
  }

  // Pass 1: finiteness and this lane's extremes.
  core::ExtremePolygon<T> polygon;
  polygon.start(group[0]);
  bool finite = true;
  index_t bad = LLONG_MAX;
  for (index_t i = lane; i < n; i += kWarp) {
    const Point2<T> p = group[i];
    if (!is_finite(p)) {
      finite = false;
      bad = min(bad, i);
    } else {
      polygon.add(p);
    }
  }
  if (!finite) atomicMin(first_bad, static_cast<unsigned long long>(begin + bad));
  if (__any_sync(0xffffffffu, !finite)) return;  // reported; the call fails
  if (n > kWarpGroupPoints) {
    if (lane == 0) list_group(g, deferred, deferred_count);
    return;
  }
  // The warp's extremes: each corner is the best of the lanes' (ties: any; every choice of input
  // points as corners is a valid filter, so lanes need not agree).
  polygon.reduce_warp();
  polygon.finish();

  // Pass 2: compact the survivors into shared memory, in index order.
  int m = 0;
  for (index_t base = 0; base < n; base += kWarp) {
    const index_t i = base + lane;
    const bool keep = i < n && !polygon.strictly_inside(group[i]);
    const unsigned ballot = __ballot_sync(0xffffffffu, keep);
    const int at = m + __popc(ballot & ((1u << lane) - 1u));
    if (keep && at < kWarpSurvivors) kept[at] = {group[i], static_cast<int>(i)};
    m += __popc(ballot);
  }
  if (m > kWarpSurvivors) {
    if (lane == 0) list_group(g, deferred, deferred_count);
    return;
  }
  __syncwarp();
  // Sorted by rank across the warp: each survivor's place is the number of survivors less than it
  // (all keys differ: the index breaks ties), m steps of broadcast reads a lane. Lane 0 alone,
  // sorting by insertion and chaining, issued about 70 % of the kernel's warp instructions with one
  // thread active (ncu, bench/NOTES.md).
  for (int i = lane; i < m; i += kWarp) {
    const Keyed<T> e = kept[i];
    int rank = 0;
    for (int j = 0; j < m; ++j) rank += keyed_less(kept[j], e) ? 1 : 0;
    chain[rank] = e;
  }
  __syncwarp();
  for (int i = lane; i < m; i += kWarp) kept[i] = chain[i];
  __syncwarp();
  int k = 0;
  if (lane == 0) {
    k = core::chain_sorted(kept, m, chain, part, [](const Keyed<T>& e) -> const Point2<T>& { return e.p; });
    counts[g] = k;
  }
  k = __shfl_sync(0xffffffffu, k, 0);
  __syncwarp();
  for (int v = lane; v < k; v += kWarp) {
    scratch[begin + v] = chain[v].p;
    if (scratch_index) scratch_index[begin + v] = begin + chain[v].index;
  }
}

/// Step 4: a warp per kWarp consecutive groups writes their hulls in place, one contiguous range
/// of the output, a vertex a lane (coalesced writes; a warp per group left half its lanes idle on
/// 15-vertex hulls and waited on three dependent loads per group): from the input at step 1's
/// positions, or, for a group step 1 listed, from the scratch steps 2 and 3 wrote.
template <class T>
__global__ void place_hulls(const Point2<T>* points, const std::int64_t* offsets,
                            const std::uint8_t* positions, const Point2<T>* scratch,
                            const std::int64_t* scratch_index, const std::int64_t* hull_offsets,
                            index_t groups, Point2<T>* hull, std::int64_t* indices) {
  constexpr int kWarps = kPlaceThreads / kWarp;
  // Per group of the warp's: where its points begin (negated when step 1 listed it), where its hull
  // goes; one more entry for the end of the last hull.
  __shared__ std::int64_t begin_all[kWarps][kWarp], to_all[kWarps][kWarp + 1];
  const int warp = static_cast<int>(threadIdx.x) / kWarp, lane = static_cast<int>(threadIdx.x) % kWarp;
  const index_t first = (static_cast<index_t>(blockIdx.x) * kWarps + warp) * kWarp;
  if (first >= groups) return;  // the whole warp leaves together
  const index_t tile = std::min<index_t>(kWarp, groups - first);
  std::int64_t* begin = begin_all[warp];
  std::int64_t* to = to_all[warp];
  if (lane < tile) {
    const index_t g = first + lane;
    const std::int64_t b = offsets[g], t = hull_offsets[g];
    // The mark is a listed group's first position; a group with a hull has points to read it from.
    const bool listed = hull_offsets[g + 1] > t && positions[b] == kListed;
    begin[lane] = listed ? -1 - b : b;
    to[lane] = t;
  }
  if (lane == 0) to[tile] = hull_offsets[first + tile];
  __syncwarp();
  // kPlaceBatch outputs a lane at a time: their loads are issued before any is used, so that each
  // lane has several gathers from the input in flight rather than one.
  const std::int64_t start = to[0], stop = to[tile];
  for (std::int64_t batch = start; batch < stop; batch += kPlaceBatch * kWarp) {
    std::int64_t from[kPlaceBatch];  // the input index of each output, negated for the scratch
#pragma unroll
    for (int r = 0; r < kPlaceBatch; ++r) {
      const std::int64_t o = batch + r * kWarp + lane;
      from[r] = 0;
      if (o >= stop) continue;
      // The group holding output o: the last of the tile whose hull starts at or before it (a
      // binary search; empty hulls share their start with the next, which the search passes over).
      int low = 0, high = static_cast<int>(tile) - 1;
      while (low < high) {
        const int mid = (low + high + 1) / 2;
        if (to[mid] <= o) {
          low = mid;
        } else {
          high = mid - 1;
        }
      }
      const std::int64_t v = o - to[low], b = begin[low];
      from[r] = b < 0 ? b - v : b + positions[b + v];
    }
#pragma unroll
    for (int r = 0; r < kPlaceBatch; ++r) {
      const std::int64_t o = batch + r * kWarp + lane;
      if (o >= stop) continue;
      if (from[r] < 0) {
        hull[o] = scratch[-1 - from[r]];
        if (indices) indices[o] = scratch_index[-1 - from[r]];
      } else {
        hull[o] = points[from[r]];
        if (indices) indices[o] = from[r];
      }
    }
  }
}

/// The hull of a deferred group (begin: its place in the input), by the single-hull paths, written at
/// hull (indices, when asked, at hull_indices, into the whole input). Returns its size.
template <class T>
std::int64_t hull_deferred_group(const Point2<T>* d_group, std::int64_t begin, index_t n, HullPart part,
                                 bool with_indices, Point2<T>* hull, std::int64_t* hull_indices,
                                 cudaStream_t stream) {
  std::vector<Point2<T>> vertices;
  std::vector<std::int64_t> indices;
  if (n > kDeviceGroupPoints && part == HullPart::full && !with_indices) {
    vertices = convex_hull_on_device(d_group, n, stream, nullptr);
  } else {
    std::vector<Point2<T>> group(static_cast<std::size_t>(n));
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(group.data(), d_group, group.size() * sizeof(Point2<T>),
                                       cudaMemcpyDeviceToHost, stream));
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    HullOptions options;
    options.backend = Backend::cpu;
    options.part = part;
    options.indices = with_indices;
    HullResult<T> r = compute_hull<T>(group, options);
    vertices = std::move(r.vertices);
    for (const std::int64_t i : r.indices) indices.push_back(begin + i);
  }
  if (!vertices.empty()) {
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(hull, vertices.data(), vertices.size() * sizeof(Point2<T>),
                                       cudaMemcpyHostToDevice, stream));
  }
  if (with_indices && !indices.empty()) {
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(hull_indices, indices.data(), indices.size() * sizeof(std::int64_t),
                                       cudaMemcpyHostToDevice, stream));
  }
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host vectors go out of scope
  return static_cast<std::int64_t>(vertices.size());
}

/// The per-call state in one piece of device memory: the end of the output array where it fits there
/// (the hulls, written last, rarely reach it), else one allocation (each cudaMalloc and cudaFree is
/// a call into the driver: ~0.2 ms for 10^8 positions).
struct Workspace {
  static constexpr int kFlags = 3;    // [0] listed, [1] deferred, [2] first non-finite point
  DeviceBuffer<unsigned char> bytes;  // empty when the workspace is borrowed from the output
  bool borrowed = false;
  std::size_t borrowed_from = 0;  // where it starts in the output, in bytes, when borrowed
  unsigned long long* flags = nullptr;
  std::int64_t* listed = nullptr;    // groups step 1 leaves to step 2
  std::int64_t* deferred = nullptr;  // groups step 2 leaves to step 3
  void* scan_storage = nullptr;      // step 4's scan (CUB's temporary storage)
  std::size_t scan_bytes = 0;
  std::uint8_t* positions = nullptr;  // step 1's chains, by position in their groups (n entries)

  /// `output`: the caller's output array, `output_bytes` long, which the workspace may borrow.
  Workspace(index_t n, index_t groups, std::int64_t* counts, void* output, std::size_t output_bytes,
            cudaStream_t stream) {
    WAGENER_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, counts, counts, groups, stream));
    const auto aligned = [](std::size_t b) { return (b + 255) / 256 * 256; };
    const std::size_t flag_bytes = aligned(kFlags * sizeof(unsigned long long));
    const std::size_t list_bytes = aligned(static_cast<std::size_t>(groups) * sizeof(std::int64_t));
    const std::size_t scan_at = flag_bytes + 2 * list_bytes, positions_at = scan_at + aligned(scan_bytes);
    const std::size_t size = positions_at + static_cast<std::size_t>(std::max<index_t>(n, 1));
    unsigned char* at = nullptr;
    if (output != nullptr && size + 256 <= output_bytes) {
      // 256-byte aligned, as CUB's storage and the lists' atomics want, wherever the output starts.
      const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(output), end = start + output_bytes;
      const std::uintptr_t from = (end - size) / 256 * 256;
      borrowed = true;
      borrowed_from = from - start;
      at = reinterpret_cast<unsigned char*>(from);
    } else {
      bytes = DeviceBuffer<unsigned char>(size);
      at = bytes.data();
    }
    flags = reinterpret_cast<unsigned long long*>(at);
    listed = reinterpret_cast<std::int64_t*>(at + flag_bytes);
    deferred = reinterpret_cast<std::int64_t*>(at + flag_bytes + list_bytes);
    scan_storage = at + scan_at;
    positions = at + positions_at;
  }
};

}  // namespace

template <class T>
index_t convex_hulls_device(const Point2<T>* d_points, const std::int64_t* d_offsets, index_t n,
                            index_t groups, Point2<T>* d_hull, std::int64_t* d_hull_offsets,
                            std::int64_t* d_indices, HullPart part, void* stream_handle) {
  const auto stream = static_cast<cudaStream_t>(stream_handle);
  WAGENER_CUDA_CHECK(cudaMemsetAsync(d_hull_offsets, 0, sizeof(std::int64_t), stream));
  if (groups == 0) {
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    return 0;
  }
  const bool with_indices = d_indices != nullptr;
  // The sizes go straight into the hull offsets (shifted by one), which the scan then sums in place.
  std::int64_t* counts = d_hull_offsets + 1;
  Workspace work(n, groups, counts, d_hull, static_cast<std::size_t>(n) * sizeof(Point2<T>), stream);
  // Flags 0 and 1 count from 0; flag 2, the first non-finite point, starts at ULLONG_MAX.
  WAGENER_CUDA_CHECK(cudaMemsetAsync(work.flags, 0, 2 * sizeof(unsigned long long), stream));
  WAGENER_CUDA_CHECK(cudaMemsetAsync(work.flags + 2, 0xff, sizeof(unsigned long long), stream));

  // Step 1: the hulls of the small groups, as sizes and positions.
  constexpr int kLanes = kTeamLanes<T>;
  constexpr std::size_t kShared = kTileSharedBytes<T, kLanes>;
  constexpr auto step1 = hull_groups_by_team<T, kLanes, kTeamBlocks<T>>;
  allow_dynamic_shared<step1>(static_cast<int>(kShared));
  step1<<<static_cast<unsigned>(ceil_div(groups, kWarp / kLanes)), kWarp, kShared, stream>>>(
      d_points, d_offsets, groups, part, counts, work.positions, work.listed, work.flags, work.flags + 2);
  WAGENER_CUDA_CHECK_LAUNCH();
  unsigned long long status[Workspace::kFlags] = {};
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(status, work.flags, sizeof status, cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  const auto refuse_non_finite = [&] {
    if (status[2] != ULLONG_MAX) throw input_error("point " + std::to_string(status[2]) + " is not finite");
  };
  refuse_non_finite();

  // Steps 2 and 3, for the groups step 1 listed: their hulls go to the scratch, at their input places.
  DeviceBuffer<Point2<T>> scratch;
  DeviceBuffer<std::int64_t> scratch_index;
  if (status[0] > 0) {
    scratch = DeviceBuffer<Point2<T>>(static_cast<std::size_t>(std::max<index_t>(n, 1)));
    if (with_indices)
      scratch_index = DeviceBuffer<std::int64_t>(static_cast<std::size_t>(std::max<index_t>(n, 1)));
    hull_listed_groups<T><<<static_cast<unsigned>(ceil_div(static_cast<index_t>(status[0]), kWarpsPerBlock)),
                            kWarpsPerBlock * kWarp, 0, stream>>>(
        d_points, d_offsets, work.listed, static_cast<index_t>(status[0]), part, scratch.data(),
        scratch_index.data(), counts, work.deferred, work.flags + 1, work.flags + 2);
    WAGENER_CUDA_CHECK_LAUNCH();
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(status, work.flags, sizeof status, cudaMemcpyDeviceToHost, stream));
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    refuse_non_finite();
  }
  if (status[1] > 0) {
    std::vector<std::int64_t> late(status[1]);
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(late.data(), work.deferred, late.size() * sizeof(std::int64_t),
                                       cudaMemcpyDeviceToHost, stream));
    std::vector<std::int64_t> late_offsets(2 * late.size());
    for (std::size_t i = 0; i < late.size(); ++i) {
      WAGENER_CUDA_CHECK(cudaMemcpyAsync(&late_offsets[2 * i], d_offsets + late[i], 2 * sizeof(std::int64_t),
                                         cudaMemcpyDeviceToHost, stream));
    }
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (std::size_t i = 0; i < late.size(); ++i) {
      const std::int64_t begin = late_offsets[2 * i];
      const std::int64_t k = hull_deferred_group(
          d_points + begin, begin, late_offsets[2 * i + 1] - begin, part, with_indices,
          scratch.data() + begin, with_indices ? scratch_index.data() + begin : nullptr, stream);
      WAGENER_CUDA_CHECK(cudaMemcpyAsync(counts + late[i], &k, sizeof k, cudaMemcpyHostToDevice, stream));
      WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
  }

  // Step 4: the hull offsets from the sizes, and every hull in its place.
  WAGENER_CUDA_CHECK(
      cub::DeviceScan::InclusiveSum(work.scan_storage, work.scan_bytes, counts, counts, groups, stream));
  std::int64_t total = 0;
  WAGENER_CUDA_CHECK(
      cudaMemcpyAsync(&total, d_hull_offsets + groups, sizeof total, cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  // A workspace borrowed from the output must not be overwritten by the hulls before it is read:
  // where they would reach it (nearly every point a vertex), the positions move out first.
  const std::uint8_t* positions = work.positions;
  DeviceBuffer<std::uint8_t> moved_positions;
  if (work.borrowed && static_cast<std::size_t>(total) * sizeof(Point2<T>) > work.borrowed_from) {
    moved_positions = DeviceBuffer<std::uint8_t>(static_cast<std::size_t>(n));
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(moved_positions.data(), work.positions, static_cast<std::size_t>(n),
                                       cudaMemcpyDeviceToDevice, stream));
    positions = moved_positions.data();
  }
  place_hulls<T><<<static_cast<unsigned>(ceil_div(groups, kPlaceThreads)), kPlaceThreads, 0, stream>>>(
      d_points, d_offsets, positions, scratch.data(), scratch_index.data(), d_hull_offsets, groups, d_hull,
      d_indices);
  WAGENER_CUDA_CHECK_LAUNCH();
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  return total;
}

template <class T>
GroupedHulls<T> grouped_hulls(std::span<const Point2<T>> points, std::span<const std::int64_t> offsets,
                              HullPart part, bool with_indices, HullStats* stats) {
  require_device();
  Stream stream;
  Event start, copied, done;
  start.record(stream.get());
  const std::size_t n = points.size(), groups = offsets.size() - 1;
  DeviceBuffer<Point2<T>> d_points(std::max<std::size_t>(n, 1));
  DeviceBuffer<std::int64_t> d_offsets(offsets.size());
  DeviceBuffer<Point2<T>> d_hull(std::max<std::size_t>(n, 1));
  DeviceBuffer<std::int64_t> d_hull_offsets(offsets.size());
  DeviceBuffer<std::int64_t> d_indices(with_indices ? std::max<std::size_t>(n, 1) : 0);
  if (n > 0) {
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(d_points.data(), points.data(), n * sizeof(Point2<T>),
                                       cudaMemcpyHostToDevice, stream.get()));
  }
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(d_offsets.data(), offsets.data(), offsets.size() * sizeof(std::int64_t),
                                     cudaMemcpyHostToDevice, stream.get()));
  copied.record(stream.get());
  const index_t total = convex_hulls_device<T>(
      d_points.data(), d_offsets.data(), static_cast<index_t>(n), static_cast<index_t>(groups), d_hull.data(),
      d_hull_offsets.data(), with_indices ? d_indices.data() : nullptr, part, stream.get());
  done.record(stream.get());
  GroupedHulls<T> out;
  out.vertices.resize(static_cast<std::size_t>(total));
  out.offsets.resize(offsets.size());
  if (with_indices) out.indices.resize(static_cast<std::size_t>(total));
  if (total > 0) {
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(out.vertices.data(), d_hull.data(),
                                       out.vertices.size() * sizeof(Point2<T>), cudaMemcpyDeviceToHost,
                                       stream.get()));
    if (with_indices) {
      WAGENER_CUDA_CHECK(cudaMemcpyAsync(out.indices.data(), d_indices.data(),
                                         out.indices.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost,
                                         stream.get()));
    }
  }
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(out.offsets.data(), d_hull_offsets.data(),
                                     out.offsets.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost,
                                     stream.get()));
  stream.synchronize();
  if (stats) {
    stats->transfer_milliseconds = copied.since(start);
    stats->device_milliseconds = done.since(copied);
  }
  return out;
}

WAGENER_INSTANTIATE_CUDA_GROUPED(float)
WAGENER_INSTANTIATE_CUDA_GROUPED(double)
WAGENER_INSTANTIATE_CUDA_GROUPED(std::int32_t)
WAGENER_INSTANTIATE_CUDA_GROUPED(std::int64_t)

}  // namespace wagener::cuda
