// Many hoods side by side joined into their upper hull in one step (the merge of many hulls in
// Atallah and Goodrich's parallel hull): every pair's bridge is found on its own, independently of
// the others, and then each hood's part of the hull follows from its own bridges alone. Where
// Wagener's rounds merge k hoods in log2 k rounds, each waiting for the last, this is two steps of
// k (k - 1) / 2 and k independent tasks: the GPU's last level over a few hundred tile hoods, whose
// rounds in one block are a chain of barriers (bench/NOTES.md, "The last levels as one join").
//
// Hoods j < i: every point of hood j is lexicographically at or below every point of hood i (tiles
// of sorted points, so equal only where a run of one point crosses tiles). Their bridge (core::
// kary_bridge after dropping a seam duplicate) keeps hood j up to `left` and hood i from `right`.
// Hood i's part of the hull is then hood i[u..v], u the largest `right` of its bridges to the
// hoods before it, v the smallest `left` of its bridges to those after it:
//   - a vertex outside [u, v] is dropped by some pair's merge, so by the whole's;
//   - where u < v, every vertex of [u, v] is kept: each lies on an edge of hood i kept by every
//     pair's merge, and every other point is strictly below that edge's line (both merges are
//     strict hoods), so strictly below the vertex;
//   - where u == v, the vertex p = hood i[u] has bridges that touch it from both sides; it is a
//     vertex of the whole exactly when the turn from the steepest of those on its left (the end whose
//     bridge to p leaves every other such end on or below) to the steepest on its right is strictly
//     right. The bridges that touch hood i elsewhere lie under p's two edges in hood i, which turn
//     right already.
// Exact: orientation tests only.
#pragma once

#include <cstdint>

#include "core/bridge.hpp"
#include "wagener/config.hpp"
#include "wagener/point.hpp"
#include "wagener/predicates.hpp"

namespace wagener::core {

/// k hoods side by side: hood j is points[j * stride ..) of size[j] points (0: an empty hood).
template <class T>
struct HoodRow {
  const Point2<T>* points;
  index_t stride;
  const index_t* size;
  index_t count;

  WAGENER_HD const Point2<T>* hood(index_t j) const { return points + j * stride; }
};

/// The bridge of hoods j < i, both nonempty: the merge of the two keeps hood j[0..left] and hood
/// i[right..). right is hood i's size where hood i keeps nothing (its one point equal to hood j's
/// last).
struct PairBridge {
  std::int32_t left;
  std::int32_t right;
};

/// Where bridges (k x k, row j column i for j < i) keeps the bridge of hoods j < i.
WAGENER_HD inline index_t pair_slot(index_t j, index_t i, index_t k) {
  return j * k + i;
}

/// The bridge of P = p[0..m) and Q = q[0..n) (m, n >= 1, P at or below Q lexicographically), with
/// `searchers` probes a step of the search (core::kary_bridge); the GPU's warps run the same search
/// with a lane a probe.
template <class T>
WAGENER_HD inline PairBridge pair_bridge(const Point2<T>* p, index_t m, const Point2<T>* q, index_t n,
                                         int searchers = 1) {
  const index_t dup = seam_duplicates(p, m, q, n);
  if (n == dup) return {static_cast<std::int32_t>(m - 1), static_cast<std::int32_t>(n)};
  index_t a = 0, b = 0;
  kary_bridge(p, m, q + dup, n - dup, searchers, &a, &b);
  return {static_cast<std::int32_t>(a), static_cast<std::int32_t>(b + dup)};
}

/// Hood i's part of the upper hull of the row: hood(i)[first, first + count).
struct HoodSpan {
  index_t first = 0;
  index_t count = 0;
};

/// What some of hood i's bridges say about its part of the hull, gathered one bridge at a time and
/// merged (joined_span gathers them all in turn; the GPU's lanes each gather some, then merge):
/// the span [u, v] they allow, and the steepest end, among the bridges that start at u, on the
/// left, and among those that end at v, on the right.
template <class T>
struct SpanBounds {
  index_t size;   ///< the hood's
  index_t u = 0;  ///< the largest start allowed by the bridges from the hoods before (size: none)
  index_t v;      ///< the smallest end allowed by the bridges to the hoods after
  bool has_a = false, has_b = false;
  Point2<T> a{}, b{};  ///< the steepest ends touching u from the left and v from the right

  WAGENER_HD explicit SpanBounds(index_t h) : size(h), v(h - 1) {}
};

/// A bridge from a hood before: it keeps hood[start..) (start == size: nothing), its other end at
/// `end`. Another end touching the same vertex p is steeper when it lies strictly above the line
/// through the current one and p.
template <class T>
WAGENER_HD inline void from_left(SpanBounds<T>& s, const Point2<T>* hood, index_t start,
                                 const Point2<T>& end) {
  if (start < s.u) return;
  if (start >= s.size) {  // the hood keeps nothing: no end to keep
    s.u = start;
    return;
  }
  if (start > s.u || !s.has_a || orient2d(s.a, hood[s.u], end) > 0) s.a = end;
  s.u = start;
  s.has_a = true;
}

/// A bridge to a hood after: it keeps hood[0..stop], its other end at `end` (keeps_end false: the
/// other hood keeps nothing, its one point equal to hood's last).
template <class T>
WAGENER_HD inline void to_right(SpanBounds<T>& s, const Point2<T>* hood, index_t stop, const Point2<T>& end,
                                bool keeps_end) {
  if (stop > s.v) return;
  if (!keeps_end) {
    s.v = stop;
    return;
  }
  if (stop < s.v || !s.has_b || orient2d(hood[s.v], s.b, end) > 0) s.b = end;
  s.v = stop;
  s.has_b = true;
}

/// Both gatherings of one hood's bridges in one (into s).
template <class T>
WAGENER_HD inline void merge_bounds(SpanBounds<T>& s, const Point2<T>* hood, const SpanBounds<T>& other) {
  if (other.has_a) {
    from_left(s, hood, other.u, other.a);
  } else if (other.u > s.u) {
    s.u = other.u;
    s.has_a = false;
  }
  if (other.has_b) {
    to_right(s, hood, other.v, other.b, true);
  } else if (other.v < s.v) {
    s.v = other.v;
    s.has_b = false;
  }
}

/// The span that all of a hood's bridges allow: [u, v], but for its one vertex p (u == v) when the
/// steepest ends touching it from both sides turn on or left of it.
template <class T>
WAGENER_HD inline HoodSpan span_of(const SpanBounds<T>& s, const Point2<T>* hood) {
  if (s.u > s.v) return {};
  if (s.u == s.v && s.has_a && s.has_b && orient2d(s.a, hood[s.u], s.b) >= 0) return {};
  return {s.u, s.v - s.u + 1};
}

/// Hood i's bridge with hood j (j != i, both nonempty) into s.
template <class T>
WAGENER_HD inline void gather_bridge(SpanBounds<T>& s, const HoodRow<T>& row, const PairBridge* bridges,
                                     index_t i, index_t j) {
  const Point2<T>* hood = row.hood(i);
  if (j < i) {
    const PairBridge bridge = bridges[pair_slot(j, i, row.count)];
    from_left(s, hood, index_t{bridge.right}, row.hood(j)[bridge.left]);
  } else {
    const PairBridge bridge = bridges[pair_slot(i, j, row.count)];
    const bool keeps_end = bridge.right < row.size[j];
    to_right(s, hood, index_t{bridge.left}, keeps_end ? row.hood(j)[bridge.right] : Point2<T>{}, keeps_end);
  }
}

/// Hood i's part of the hull of the row, from the bridges of every pair of nonempty hoods (at
/// pair_slot). O(k) tests.
template <class T>
WAGENER_HD inline HoodSpan joined_span(const HoodRow<T>& row, const PairBridge* bridges, index_t i) {
  const index_t h = row.size[i];
  if (h == 0) return {};
  SpanBounds<T> s(h);
  for (index_t j = 0; j < row.count; ++j) {
    if (j != i && row.size[j] > 0) gather_bridge(s, row, bridges, i, j);
  }
  return span_of(s, row.hood(i));
}

}  // namespace wagener::core
