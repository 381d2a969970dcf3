// Step 1 of the grouped hulls (grouped_hulls.cu) for one group: what a team of lanes of a warp does
// with its group's points, staged in shared memory, from the extreme points to the hull's positions.
// A header of its own so that a test can run this device code on the CPU, a thread a lane, with the
// warp's shuffles, ballots and barriers emulated (tests/test_grouped_team_emulated.cpp): it then
// defines __device__, __forceinline__, __noinline__ and those intrinsics (and min, max) before the
// include. Every intrinsic here takes the team's mask.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/small_hull.hpp"
#include "wagener/hull.hpp"
#include "wagener/point.hpp"
#include "wagener/predicates.hpp"

namespace wagener::cuda::grouped_team {

// Step 1: one-warp blocks, a team of lanes per group. Groups of more points than this go to step 2
// (a team would take too long over them, and their positions would not fit a byte).
constexpr int kThreadGroupPoints = 255;
// Survivors of the extreme polygon one team sorts and chains (a 100-point disk leaves ~10); a group
// with more goes to step 2.
constexpr int kThreadSurvivors = 64;
// Pieces each side's chain splits into in step 1, a lane each (two sides a team): at most four, at
// the three octagon corners between a side's ends.
template <int Lanes>
constexpr int kChainPieces = Lanes >= 8 ? 4 : (Lanes >= 4 ? 2 : 1);

/// The extreme polygon of one group, held by each lane of its team: the same eight corners as
/// core::ExtremePolygon (the extremes of x, x + y, y and y - x, counter-clockwise), found by position
/// and tested as a fixed octagon whose edges between equal corners always pass. Everything stays in
/// registers and the test is branch-free: ExtremePolygon's dropped corners index its arrays at run
/// time, which puts them in local memory, and the teams of a warp, each on its own group, would
/// diverge over its early exits.
///
/// The test (strictly_inside) takes each edge as a line in float, two FMAs and a comparison, for
/// every coordinate type. Its error bound, for an edge from corner c to corner d and a point p of the
/// group: with o = corner 0 and sx, sy the powers of two that bring the group's width W = x4 - x0 and
/// height H = y6 - y2 into [1/2, 1), the exact values X = sx (p.x - o.x), Y = sy (p.y - o.y),
/// B = sx (d.x - c.x), A = sy (d.y - c.y) and E = B sy (c.y - o.y) - A sx (c.x - o.x) give
/// orient(c, d, p) sx sy = D = B Y - A X - E. Every point lies in the box of the corners 0, 2, 4, 6,
/// so |X|, |B| <= W' = sx W < 1 + 2^-52, |Y|, |A| <= H' < 1 + 2^-52 and |E| <= 2 W' H'. The test
/// computes t = fma(-a, x, fma(b, y, -e)) in float, where x, y, a, b are X, Y, A, B rounded (through
/// double, whose roundings add at most 2^-26 of float's) with relative error at most eps (1 + 2^-26),
/// eps = 2^-24, and e is within 2 eps (1 + 2^-26) W'H' of E (rounded from a double within 2^-50 W'H'
/// of it): b y - B Y is within 2 eps W'H', e - E within 2 eps W'H', the inner FMA's rounding within
/// 3 eps W'H' (|b y - e| <= 3 W'H'), a x - A X within 2 eps W'H' and the outer rounding within
/// 4 eps W'H', 13 eps (1 + 2^-20) in all; results below float's normal range add at most 2^-149
/// each. So t > kFloatBound = 16 eps certifies D > 0. 64-bit integers, which double may not hold:
/// every difference to o is taken exactly in 64 bits (where the box's corners' differences fit) and
/// rounded to double once. The points' x and y are then as above; the corners' roundings move a, b and e by
/// at most 2^-46 more in all (three double ulps each at most, W', H' <= 1 + 2^-50), inside the 13 eps 2^-20
/// W'H' >= 2^-43 that the bound's (1 + 2^-20) leaves. Where the scales, the box (64-bit differences that do
/// not fit) or the corners' count do not allow this, every edge is set to fail.
template <class T>
class ThreadOctagon {
 public:
  /// Pre: n >= 1 points. The `lanes` lanes of team_mask (a power of two, consecutive lanes) each
  /// scan the points first, first + lanes, ... and agree on the same corners; in the same pass they
  /// find the first point that is not finite (first_bad(): n if none; the corners are then not
  /// meaningful).
  __device__ ThreadOctagon(const Point2<T>* points, int n, int first, int lanes, unsigned team_mask) {
    // The keys x + y and y - x are rounded (keys()): they only choose which input points become
    // corners, and any choice is a valid filter (core::ExtremePolygon). The key y is y itself, exact in
    // every Key, so corners 2 and 6 are extremes of y as corners 0 and 4 are of x: every point lies in
    // their box, as the class comment's bound needs.
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
    smallest_ = points[low_at[0]], largest_ = points[high_at[0]];
    // The corners as doubles: exact for float, double and 32-bit integers; 64-bit integers as their
    // differences to corner 0, rounded once (the class comment). Those differences, and every point's,
    // fit in 64 bits where corners 4, 2 and 6's do; one that does not wraps by 2^64, and the width
    // cx[4] or the height cy[6] - cy[2] then comes out negative or zero, which disables the test below.
    double cx[8], cy[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const Point2<T> c = points[k < 4 ? low_at[k] : high_at[k - 4]];
      if constexpr (kFromCornerZero) {
        cx[k] = static_cast<double>(wagener::detail::wrapped_difference(c.x, smallest_.x));
        cy[k] = static_cast<double>(wagener::detail::wrapped_difference(c.y, smallest_.y));
      } else {
        cx[k] = static_cast<double>(c.x), cy[k] = static_cast<double>(c.y);
      }
    }
    // The corners between each side's ends in x order, a byte each: below, 1 (x + y), 2 (y), 3 (y - x);
    // above, 7 (y - x), 6 (y), 5 (x + y).
    lower_splits_ = static_cast<unsigned>(low_at[1] | low_at[2] << 8 | low_at[3] << 16);
    upper_splits_ = static_cast<unsigned>(high_at[3] | high_at[2] << 8 | high_at[1] << 16);
    unsigned skip = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      if constexpr (kFromCornerZero) {
        // In T: two distinct 64-bit corners may round to one double (an edge skipped wrongly would
        // certify points outside it).
        const int next = (k + 1) % 8;
        const int c = k < 4 ? low_at[k] : high_at[k - 4], d = next < 4 ? low_at[next] : high_at[next - 4];
        skip |= (points[c].x == points[d].x && points[c].y == points[d].y) ? 1u << k : 0u;
      } else {
        skip |= (cx[k] == cx[(k + 1) % 8] && cy[k] == cy[(k + 1) % 8]) ? 1u << k : 0u;
      }
    }
    first_bad_ = bad;
    // The scales (see the class comment): width = f 2^ex with f in [1/2, 1), so sx = 2^-ex, in T's
    // own arithmetic for float (fma there) and in double for the others; where they would leave that
    // range (spans below 2^-126 or above 2^126 in float) the test certifies nothing.
    const double width = cx[4] - cx[0], height = cy[6] - cy[2];  // corners 0, 4: x; 2, 6: y
    int ex = 0, ey = 0;
    frexp(width, &ex);
    frexp(height, &ey);
    constexpr int kMaxExponent = std::is_same_v<T, float> ? 126 : 1021;
    // Fewer than three distinct corners in a row certify nothing (core::ExtremePolygon::finish), nor
    // does a box too wide for 64-bit differences. (Infinite or NaN spans fail the comparisons.)
    const bool enabled = __popc(skip) <= 5 && width > 0 && height > 0 && width < 0x1p1023 &&
                         height < 0x1p1023 && ex >= -kMaxExponent && ex <= kMaxExponent &&
                         ey >= -kMaxExponent && ey <= kMaxExponent;
    const double sx = enabled ? ldexp(1.0, -ex) : 0.0, sy = enabled ? ldexp(1.0, -ey) : 0.0;
    // (Exact: powers of two times a corner, short of underflow, whose error the bound covers.)
    scale_x_ = static_cast<Scale>(sx), scale_y_ = static_cast<Scale>(sy);
    shift_x_ = static_cast<Scale>(-(cx[0] * sx)), shift_y_ = static_cast<Scale>(-(cy[0] * sy));
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int next = (k + 1) % 8;
      const double b = (cx[next] - cx[k]) * sx, a = (cy[next] - cy[k]) * sy;
      const double e = b * ((cy[k] - cy[0]) * sy) - a * ((cx[k] - cx[0]) * sx);
      // An edge between equal corners always passes (t = 1), a disabled octagon's never (t = -1).
      const bool pass = ((skip >> k) & 1u) != 0;
      minus_a_[k] = enabled && !pass ? static_cast<float>(-a) : 0.0f;
      b_[k] = enabled && !pass ? static_cast<float>(b) : 0.0f;
      minus_e_[k] = enabled ? (pass ? 1.0f : static_cast<float>(-e)) : -1.0f;
    }
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
    return orient2d(smallest_, largest_, p);
  }

  /// True when p is certified strictly left of every edge between distinct corners (the class
  /// comment's bound). p must be finite.
  __device__ bool strictly_inside(const Point2<T>& p) const {
    float x, y;
    if constexpr (std::is_same_v<T, float>) {
      x = fmaf(p.x, scale_x_, shift_x_), y = fmaf(p.y, scale_y_, shift_y_);
    } else if constexpr (kFromCornerZero) {
      // The difference exact (within the box), rounded to double once, scaled exactly (the shifts 0).
      x = static_cast<float>(static_cast<double>(wagener::detail::wrapped_difference(p.x, smallest_.x)) *
                             scale_x_);
      y = static_cast<float>(static_cast<double>(wagener::detail::wrapped_difference(p.y, smallest_.y)) *
                             scale_y_);
    } else {
      x = static_cast<float>(fma(static_cast<double>(p.x), scale_x_, shift_x_));
      y = static_cast<float>(fma(static_cast<double>(p.y), scale_y_, shift_y_));
    }
    bool inside = true;
#pragma unroll
    for (int k = 0; k < 8; ++k) inside &= fmaf(minus_a_[k], x, fmaf(b_[k], y, minus_e_[k])) > kFloatBound;
    return inside;
  }

 private:
  // 64-bit integers: the corners and the points are taken as differences to corner 0 (smallest_).
  static constexpr bool kFromCornerZero = std::is_same_v<T, std::int64_t>;
  // The keys: in T for float and double; in double for 32-bit integers (exact, sums cannot
  // overflow); 64-bit integers in 64 bits, x + y and y - x as sums of halves (no overflow; floor's
  // rounding only chooses another corner), y exact.
  using Key =
      std::conditional_t<kFromCornerZero, std::int64_t, std::conditional_t<std::is_integral_v<T>, double, T>>;
  using Scale = std::conditional_t<std::is_same_v<T, float>, float, double>;
  static constexpr float kFloatBound = 0x1p-20f;  // 16 eps, eps = 2^-24 (the class comment)

  __device__ static void keys(const Point2<T>& p, Key (&key)[4]) {
    if constexpr (kFromCornerZero) {
      const std::int64_t half_x = p.x >> 1, half_y = p.y >> 1;  // floor(v / 2)
      key[0] = p.x, key[1] = half_x + half_y, key[2] = p.y, key[3] = half_y - half_x;
    } else {
      const Key x = static_cast<Key>(p.x), y = static_cast<Key>(p.y);
      key[0] = x, key[1] = x + y, key[2] = y, key[3] = y - x;  // key[0] unused: x is compared in T
    }
  }

  float minus_a_[8], b_[8], minus_e_[8];  // edge k's line, scaled (the class comment)
  Scale scale_x_, scale_y_, shift_x_, shift_y_;
  Point2<T> smallest_, largest_;          // corners 0 and 4
  unsigned lower_splits_, upper_splits_;  // store_splits' positions, a byte each
  int first_bad_;                         // the first point that is not finite; n if none
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

}  // namespace wagener::cuda::grouped_team
