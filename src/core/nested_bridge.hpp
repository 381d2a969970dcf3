// The optimal-work variant of the match-and-merge step (the seed's conclusion), written once for
// every backend: hoods kept in place as ranges of strips, and the bridge found by nested sampling.
//
// Hoods in place. The input is cut into strips of `stride` slots; strip t keeps the vertices of its
// part of a hood at base[t * stride + lo[t] .. t * stride + hi[t]). A strip with lo == hi is dead.
// A hood is the concatenation of the live strips between two strips `first` and `last` (both live).
// A merge never moves a point: it trims the strip holding the bridge's left end (hi), the strip
// holding its right end (lo), and kills the strips in between. Dead strips keep two links,
// prev_live[t] (the last live strip <= t) and next_live[t] (the first live strip >= t), so that a
// hood's neighbours and samples are found in O(1); a live strip links to itself. The links stay
// right because strips only die: a merge relinks exactly the strips it kills, and every other dead
// strip's links point at live strips outside the killed run.
//
// Virtual positions. Position u in [0, U) of a hood is slot u % stride of strip first + u / stride,
// U = (last - first) * stride + hi[last]; rep(u) is the first hood vertex at or after u. A classifier
// that is monotone over the hood's vertices is monotone over the positions through rep, and the last
// position u whose classification is <= EQUAL has rep(u) = the last vertex with that property: the
// nested search brackets positions, never needing a vertex's rank (which would need a prefix sum).
//
// Nested sampling. t(p) (bridge.hpp) is the last vertex of Q with classify_q <= EQUAL and the bridge's
// left end a is the last vertex i of P with classify_p(i, t(P[i])) <= EQUAL. Both are found by
// bracketing: g samples of the current bracket, one processor each, and the unique processor whose
// sample is <= EQUAL while the next sample is HIGH (or absent) writes the new bracket, 1/g as long.
// With g^depth >= U a bracket shrinks to one position in `depth` levels. The outer search brackets a
// with g samples of P; before each of its levels, `depth` inner levels find the tangent point of every
// P sample with g processors each (g * g in all). So a merge takes depth * (depth + 1) synchronous
// steps on at most g * g processors: with depth 4 (the seed's h = k^(1/4)), 20 steps on sqrt(k)
// processors, where the sampling of bridge.hpp takes 5 steps on k.
#pragma once

#include "core/bridge.hpp"

namespace wagener::core {

/// The strips' live ranges and links (device or host arrays, one entry per strip).
struct StripRanges {
  index_t* lo = nullptr;
  index_t* hi = nullptr;
  index_t* prev_live = nullptr;
  index_t* next_live = nullptr;
  index_t stride = 0;  ///< slots per strip
};

/// A vertex of a hood in place: strip and slot.
struct HoodSlot {
  index_t strip = -1;
  index_t slot = -1;
  WAGENER_HD bool valid() const { return strip >= 0; }
};

/// One hood in place, strips [first, last] (both live), read through the strips' ranges and links.
template <class T>
struct InPlaceHood {
  const Point2<T>* base = nullptr;
  StripRanges r = {};
  index_t first = 0;
  index_t last = -1;

  /// Virtual positions: U.
  WAGENER_HD index_t positions() const { return (last - first) * r.stride + r.hi[last]; }
  WAGENER_HD Point2<T> at(const HoodSlot& v) const { return base[v.strip * r.stride + v.slot]; }

  /// The first vertex at or after position u (0 <= u < positions()).
  WAGENER_HD HoodSlot rep(index_t u) const {
    const index_t strip = first + u / r.stride, slot = u % r.stride;
    if (r.lo[strip] < r.hi[strip] && slot < r.hi[strip])
      return {strip, slot > r.lo[strip] ? slot : r.lo[strip]};
    const index_t next = r.next_live[strip + 1];  // strip < last here: slot < hi[last] by positions()
    return {next, r.lo[next]};
  }
  WAGENER_HD HoodSlot next(const HoodSlot& v) const {
    if (v.slot + 1 < r.hi[v.strip]) return {v.strip, v.slot + 1};
    if (v.strip == last) return {};
    const index_t next = r.next_live[v.strip + 1];
    return {next, r.lo[next]};
  }
  WAGENER_HD HoodSlot prev(const HoodSlot& v) const {
    if (v.slot > r.lo[v.strip]) return {v.strip, v.slot - 1};
    if (v.strip == first) return {};
    const index_t prev = r.prev_live[v.strip - 1];
    return {prev, r.hi[prev] - 1};
  }
};

/// classify_q of bridge.hpp for a hood in place: where vertex j of Q lies relative to t(p).
template <class T>
WAGENER_HD inline int classify_q_in_place(const Point2<T>& p, const InPlaceHood<T>& q, const HoodSlot& j) {
  const Point2<T> qj = q.at(j);
  const HoodSlot after = q.next(j);
  if (after.valid() && orient2d(p, qj, q.at(after)) >= 0) return kLow;
  const HoodSlot before = q.prev(j);
  if (before.valid() && orient2d(p, qj, q.at(before)) > 0) return kHigh;
  return kEqual;
}

/// classify_p of bridge.hpp for a hood in place: where vertex i of P lies relative to s(q).
template <class T>
WAGENER_HD inline int classify_p_in_place(const InPlaceHood<T>& p, const HoodSlot& i, const Point2<T>& q) {
  const Point2<T> pi = p.at(i);
  const HoodSlot before = p.prev(i);
  if (before.valid() && orient2d(pi, q, p.at(before)) >= 0) return kHigh;
  const HoodSlot after = p.next(i);
  if (after.valid() && orient2d(pi, q, p.at(after)) > 0) return kLow;
  return kEqual;
}

/// Smallest g >= 1 with g^depth >= k (k >= 1, depth >= 1): the samples per bracket.
WAGENER_HD inline index_t samples_for_depth(index_t k, int depth) {
  index_t g = 1;
  auto reaches = [&](index_t base) {
    index_t power = 1;
    for (int d = 0; d < depth; ++d) {
      if (power >= (k + base - 1) / base) return true;  // power * base >= k, without overflow
      power *= base;
    }
    return power >= k;
  };
  while (!reaches(g)) g *= 2;
  index_t lo = g / 2, hi = g;  // reaches(hi); not reaches(lo) unless lo == 0
  while (lo + 1 < hi) {
    const index_t mid = (lo + hi) / 2;
    if (reaches(mid)) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return k <= 1 ? 1 : hi;
}

/// A bracket [lo, lo + len) of positions and its g samples lo + x * spacing, x * spacing < len.
struct Bracket {
  index_t lo = 0;
  index_t len = 0;
};

WAGENER_HD inline index_t spacing_of(const Bracket& b, index_t g) {
  return (b.len + g - 1) / g;
}

/// The bracket one level down from sample x, if x is a sample.
WAGENER_HD inline Bracket narrowed(const Bracket& b, index_t g, index_t x) {
  const index_t d = spacing_of(b, g), off = x * d;
  return {b.lo + off, b.len - off < d ? b.len - off : d};
}

/// The cells of one merge: the outer bracket of a's position, each P sample's tangent bracket, and
/// the answer (the last outer writer's sample and its tangent position).
struct NestedCells {
  Bracket* outer = nullptr;    ///< one cell
  Bracket* tangent = nullptr;  ///< g cells
  index_t* bridge = nullptr;   ///< [0] a's position in P, [1] b's position in Q
};

/// The merge: two hoods in place (P's strips all left of Q's) and the search's shape.
template <class T>
struct NestedMerge {
  InPlaceHood<T> p = {};
  InPlaceHood<T> q = {};
  index_t g = 1;  ///< samples per bracket
  int depth = 1;  ///< levels per search; g^depth >= max(U_P, U_Q)

  NestedMerge() = default;
  WAGENER_HD NestedMerge(const InPlaceHood<T>& p_, const InPlaceHood<T>& q_, int depth_)
      : p(p_), q(q_), depth(depth_) {
    const index_t up = p.positions(), uq = q.positions();
    g = samples_for_depth(up > uq ? up : uq, depth_);
  }
  /// Synchronous steps of one merge.
  WAGENER_HD int steps() const { return depth * (depth + 1); }
  /// The outer bracket before the first step.
  WAGENER_HD Bracket whole_p() const { return {0, p.positions()}; }
};

/// Step `level` (0 .. depth-1) of the tangent searches of the outer level's P samples: processor
/// (x, y), x, y < g. Bracket of sample x's tangent: all of Q at level 0, else tangent[x]. Returns true
/// when it is the unique writer of tangent[x], with the new bracket in *value. Reads before any write.
template <class T>
WAGENER_HD inline bool nested_tangent_step(const NestedMerge<T>& mg, const NestedCells& c, int level,
                                           index_t x, index_t y, Bracket* value) {
  const Bracket outer = *c.outer;
  const index_t da = spacing_of(outer, mg.g);
  if (x * da >= outer.len) return false;
  const Bracket br = level == 0 ? Bracket{0, mg.q.positions()} : c.tangent[x];
  const index_t dt = spacing_of(br, mg.g);
  if (y * dt >= br.len) return false;
  const Point2<T> p = mg.p.at(mg.p.rep(outer.lo + x * da));
  const index_t j = br.lo + y * dt;
  if (classify_q_in_place(p, mg.q, mg.q.rep(j)) > kEqual) return false;
  if ((y + 1) * dt < br.len && classify_q_in_place(p, mg.q, mg.q.rep(j + dt)) != kHigh) return false;
  *value = narrowed(br, mg.g, y);
  return true;
}

/// The outer step after the tangent searches (every tangent[x] one position long): processor x < g.
/// The unique processor whose sample of P is <= EQUAL (against its tangent point) while the next
/// sample is HIGH (or absent) writes the new outer bracket and, in bridge[], its sample and tangent:
/// after the last outer level, the bridge's two ends.
template <class T>
WAGENER_HD inline bool nested_outer_step(const NestedMerge<T>& mg, const NestedCells& c, index_t x,
                                         Bracket* value, index_t* a, index_t* b) {
  const Bracket outer = *c.outer;
  const index_t da = spacing_of(outer, mg.g);
  if (x * da >= outer.len) return false;
  const index_t i = outer.lo + x * da;
  if (classify_p_in_place(mg.p, mg.p.rep(i), mg.q.at(mg.q.rep(c.tangent[x].lo))) > kEqual) return false;
  if ((x + 1) * da < outer.len &&
      classify_p_in_place(mg.p, mg.p.rep(i + da), mg.q.at(mg.q.rep(c.tangent[x + 1].lo))) != kHigh)
    return false;
  *value = narrowed(outer, mg.g, x);
  *a = i;
  *b = c.tangent[x].lo;
  return true;
}

/// The strips of one merge after its bridge: strip t's new range and links, one processor a strip
/// (strips of P's first to Q's last). a and b are the bridge's ends (vertices, not positions).
struct StripUpdate {
  index_t lo, hi, prev_live, next_live;
};

WAGENER_HD inline StripUpdate strip_after_merge(const StripRanges& r, index_t t, const HoodSlot& a,
                                                const HoodSlot& b) {
  StripUpdate u{r.lo[t], r.hi[t], r.prev_live[t], r.next_live[t]};
  if (t == a.strip) {
    u.hi = a.slot + 1;
  } else if (t == b.strip) {
    u.lo = b.slot;
  } else if (t > a.strip && t < b.strip) {
    u.hi = u.lo;  // dead
    u.prev_live = a.strip;
    u.next_live = b.strip;
  }
  return u;
}

/// The merge's shortcut before any search: when P's last vertex and Q's first meet in strict right
/// turns (P's last two vertices then Q's first, and P's last vertex then Q's first two), the bridge
/// is (P's last vertex, Q's first) and the merge keeps both hoods whole. Why: P and Q are strict
/// hoods, so with those two turns every three consecutive vertices of P then Q turn strictly right;
/// Andrew's chain over them, in lexicographic order, then never pops, so P then Q is the hood of
/// their union. Conversely, a bridge at the two ends has both turns strict, so nothing is missed:
/// the shortcut is taken exactly when the bridge is there. A side of one vertex has no turn to test.
/// This is what a merge of two full hoods meets at every level (every point a vertex), where the
/// search would cost depth * (depth + 1) steps of dependent loads for an answer two tests give.
template <class T>
WAGENER_HD inline bool seam_bridge(const InPlaceHood<T>& p, const InPlaceHood<T>& q, HoodSlot* a,
                                   HoodSlot* b) {
  const HoodSlot pl{p.last, p.r.hi[p.last] - 1}, qf{q.first, q.r.lo[q.first]};
  const Point2<T> pv = p.at(pl), qv = q.at(qf);
  const HoodSlot before = p.prev(pl);
  if (before.valid() && orient2d(p.at(before), pv, qv) >= 0) return false;
  const HoodSlot after = q.next(qf);
  if (after.valid() && orient2d(pv, qv, q.at(after)) >= 0) return false;
  *a = pl;
  *b = qf;
  return true;
}

/// The walk's steps before a merge leaves the bridge to the search: at 2^28 points, the double
/// circle's tile hoods that fail the seam settle in 2-4 steps (bench/NOTES.md, "The bridge walked
/// from the seam"); a bridge far from the seam costs this many dependent steps before the search's.
inline constexpr int kWalkSteps = 16;

/// The bridge by walking out from the seam (core::walk_from_seam), the textbook merge of two hulls
/// apart in x, over hoods in place: a from P's last vertex, b from Q's first. Where seam_bridge fails
/// only by a few dents at the seam (the double circle's hoods, whose rounded points leave about one
/// in eight off the hull), a few dependent steps replace the search's depth * (depth + 1) synced
/// ones. Returns false, a and b untouched, where it has not settled within max_steps steps, or
/// where a classification points the other way (not met from the seam; then the search decides).
template <class T>
WAGENER_HD inline bool walk_bridge(const InPlaceHood<T>& p, const InPlaceHood<T>& q, int max_steps,
                                   HoodSlot* a, HoodSlot* b) {
  return walk_from_seam(
      HoodSlot{p.last, p.r.hi[p.last] - 1}, HoodSlot{q.first, q.r.lo[q.first]}, max_steps,
      [&](const HoodSlot& i, const HoodSlot& j) { return classify_p_in_place(p, i, q.at(j)); },
      [&](const HoodSlot& i, const HoodSlot& j) { return classify_q_in_place(p.at(i), q, j); },
      [&](const HoodSlot& i) { return p.prev(i); }, [&](const HoodSlot& j) { return q.next(j); }, a, b);
}

/// A tile level's hoods side by side (hood t of size[t] >= 1 vertices at base + t * stride, t <
/// tiles, as the tile level leaves them): whether their chain turns strictly right at seam s, between
/// hood s's last vertex v and hood s + 1's first w. The turns tested are those of the chain's
/// vertex before v, v, w, and of v, w, the chain's vertex after w; a hood of one vertex lends its
/// neighbours' (the vertex before v is hood s - 1's last when hood s is v alone). So every three
/// consecutive vertices of the chain that a hood does not hold are tested at some seam, and every
/// seam passes exactly when the whole chain turns strictly right: then, by seam_bridge's argument
/// applied seam after seam, the hoods side by side are the hood of all the tiles' points, and no
/// merge is needed. A point repeated across a seam fails (v equals w).
template <class T>
WAGENER_HD inline bool tile_seam_turns_right(const Point2<T>* base, const index_t* size, index_t stride,
                                             index_t tiles, index_t s) {
  const index_t left = size[s], right = size[s + 1];
  if (left < 1 || right < 1) return false;
  const Point2<T> v = base[s * stride + left - 1], w = base[(s + 1) * stride];
  if (same_point(v, w)) return false;
  if (left >= 2 || s > 0) {
    const Point2<T> before =
        left >= 2 ? base[s * stride + left - 2] : base[(s - 1) * stride + size[s - 1] - 1];
    if (orient2d(before, v, w) >= 0) return false;
  }
  if (right >= 2 || s + 2 < tiles) {
    const Point2<T> after = right >= 2 ? base[(s + 1) * stride + 1] : base[(s + 2) * stride];
    if (orient2d(v, w, after) >= 0) return false;
  }
  return true;
}

/// The bridge by running the steps serially, in order, reads before writes (for tests and for
/// small merges): returns a and b as vertices.
template <class T>
WAGENER_HD inline void nested_bridge_serial(const NestedMerge<T>& mg, Bracket* tangent_cells, HoodSlot* a,
                                            HoodSlot* b) {
  Bracket outer = mg.whole_p();
  index_t bridge[2] = {0, 0};
  const NestedCells c{&outer, tangent_cells, bridge};
  for (int level = 0; level < mg.depth; ++level) {
    for (int inner = 0; inner < mg.depth; ++inner) {
      // Every processor (x, y) writes only tangent[x] and reads only tangent[x]: x by x, the reads of
      // one column precede its single write.
      for (index_t x = 0; x < mg.g; ++x) {
        Bracket found{};
        bool written = false;
        for (index_t y = 0; y < mg.g && !written; ++y)
          written = nested_tangent_step(mg, c, inner, x, y, &found);
        if (written) tangent_cells[x] = found;
      }
    }
    Bracket next{};
    index_t ea = 0, eb = 0;
    bool written = false;
    for (index_t x = 0; x < mg.g && !written; ++x) written = nested_outer_step(mg, c, x, &next, &ea, &eb);
    if (written) outer = next, bridge[0] = ea, bridge[1] = eb;
  }
  *a = mg.p.rep(bridge[0]);
  *b = mg.q.rep(bridge[1]);
}

}  // namespace wagener::core

namespace wagener::core {

/// The chain of one strip of sorted points, serially (one processor, the seed's first stage): with
/// kTurn = -1 the upper hood (strict right turns), with +1 the lower chain (strict left turns);
/// vertices written to out (out == in allowed: the chain never overtakes its input). Returns the
/// chain's size; *operations (optional) gets the pushes and pops, the strip's serial steps.
template <int kTurn, class T>
WAGENER_HD inline index_t strip_chain(const Point2<T>* in, index_t count, Point2<T>* out,
                                      index_t* operations = nullptr) {
  static_assert(kTurn == -1 || kTurn == 1, "upper (-1) or lower (+1)");
  index_t size = 0, ops = 0;
  for (index_t i = 0; i < count; ++i) {
    const Point2<T> p = in[i];
    ++ops;
    if (size > 0 && same_point(out[size - 1], p)) continue;
    while (size >= 2 && orient2d(out[size - 2], out[size - 1], p) * kTurn <= 0) --size, ++ops;
    out[size++] = p;
  }
  if (operations) *operations = ops;
  return size;
}

/// The upper hood of one strip (strip_chain with strict right turns).
template <class T>
WAGENER_HD inline index_t strip_upper_chain(const Point2<T>* in, index_t count, Point2<T>* out,
                                            index_t* operations = nullptr) {
  return strip_chain<-1>(in, count, out, operations);
}

}  // namespace wagener::core
