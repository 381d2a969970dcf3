// The match-and-merge step of Wagener's algorithm, written once for every backend.
//
// Two hoods (strict upper hulls) P = P[0..m) and Q = Q[0..n) with every point of P lexicographically
// smaller than every point of Q are merged into P[0..a] ++ Q[b..n), where (P[a], Q[b]) is the bridge:
// the upper common tangent, with P[a] the leftmost and Q[b] the rightmost hood vertex on it.
//
// The bridge is found in O(1) parallel steps by sampling (the seed's phases mam 1-5) on an s x s grid
// of virtual processors, s = ceil(sqrt(max(m, n))): every phase below is a pure function of one
// processor's coordinates that says whether that processor writes its cell and what it writes.
// The PRAM emulator runs each phase for all processors and checks that every cell gets exactly one
// writer; the CUDA kernels run the same functions on threads with a barrier between phases.
//
// Two classifiers carry the geometry (the seed's g and f):
//   t(p), for p lex-left of Q: the rightmost vertex of Q on the tangent from p (Q below the line);
//   classify_q(p, j) = LOW / EQUAL / HIGH as j < / = / > t(p); monotone along Q.
//   s(q), for q lex-right of P: the leftmost vertex of P on the tangent from q (P below the line);
//   classify_p(i, q) = LOW / EQUAL / HIGH as i < / = / > s(q); monotone along P.
// and one theorem (the seed's): classify_p(i, Q[t(P[i])]) is LOW / EQUAL / HIGH as i < / = / > a,
// so it is monotone in i and EQUAL exactly at the bridge.
#pragma once

#include "wagener/config.hpp"
#include "wagener/point.hpp"
#include "wagener/predicates.hpp"

namespace wagener::core {

enum Side : int { kLow = -1, kEqual = 0, kHigh = 1 };

/// Where Q[j] lies relative to t(p). Pre: p lex-less than Q[0], 0 <= j < n.
template <class T>
WAGENER_HD inline int classify_q(const Point2<T>& p, const Point2<T>* q, index_t n, index_t j) {
  // Q[j+1] on or above the line p->Q[j]: the tangent touches further right (ties go right).
  if (j + 1 < n && orient2d(p, q[j], q[j + 1]) >= 0) return kLow;
  // Q[j-1] strictly above: the tangent touches further left.
  if (j > 0 && orient2d(p, q[j], q[j - 1]) > 0) return kHigh;
  return kEqual;
}

/// Where P[i] lies relative to s(q). Pre: q lex-greater than P[m-1], 0 <= i < m.
template <class T>
WAGENER_HD inline int classify_p(const Point2<T>* p, index_t m, index_t i, const Point2<T>& q) {
  // P[i-1] on or above the line P[i]->q: the tangent touches further left (ties go left).
  if (i > 0 && orient2d(p[i], q, p[i - 1]) >= 0) return kHigh;
  // P[i+1] strictly above: the tangent touches further right.
  if (i + 1 < m && orient2d(p[i], q, p[i + 1]) > 0) return kLow;
  return kEqual;
}

/// Smallest s with s * s >= k (k >= 1): the side of the processor grid and the sample spacing.
WAGENER_HD constexpr index_t ceil_sqrt(index_t k) {
  index_t s = 1;
  while (s * s < k) s *= 2;  // power-of-two bracket, then bisect
  index_t lo = s / 2, hi = s;
  while (lo + 1 < hi) {
    const index_t mid = (lo + hi) / 2;
    if (mid * mid >= k) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return k <= 1 ? 1 : hi;
}

/// The two hoods of one merge and the sampling geometry.
template <class T>
struct MergeView {
  const Point2<T>* p;
  index_t m;
  const Point2<T>* q;
  index_t n;
  index_t s;  ///< sample spacing and processor-grid side

  WAGENER_HD MergeView(const Point2<T>* p_, index_t m_, const Point2<T>* q_, index_t n_)
      : p(p_), m(m_), q(q_), n(n_), s(ceil_sqrt(m_ > n_ ? m_ : n_)) {}
  /// With the spacing already known (s == ceil_sqrt(max(m, n))), as the GPU rounds keep it.
  WAGENER_HD MergeView(const Point2<T>* p_, index_t m_, const Point2<T>* q_, index_t n_, index_t s_)
      : p(p_), m(m_), q(q_), n(n_), s(s_) {}

  /// Processors in each phase's grid (s * s >= max(m, n)).
  WAGENER_HD index_t processors() const { return s * s; }
};

/// Scratch cells of one merge: arrays of s cells, then single cells.
struct BridgeCells {
  index_t* tangent_block;    ///< mam 1: [x] = first index of the Q block of length s holding t(P[x s])
  index_t* tangent;          ///< mam 2: [x] = t(P[x s])
  index_t* k0;               ///< mam 3: the last P sample at or left of the bridge
  index_t* candidate_block;  ///< mam 4: [y] = first index of the Q block holding t(P[k0 + y])
  index_t* bridge;           ///< mam 5: [0] = a, [1] = b
};

/// Is [j, j + s) the block of Q holding t(p)? Shared by mam 1 and mam 4.
template <class T>
WAGENER_HD inline bool holds_tangent(const MergeView<T>& v, const Point2<T>& p, index_t j) {
  return classify_q(p, v.q, v.n, j) <= kEqual &&
         (j + v.s >= v.n || classify_q(p, v.q, v.n, j + v.s) == kHigh);
}

// Each phase: processor (x, y) of the s x s grid; returns true when it is the (unique) writer and
// stores what to write in *value.

/// mam 1: for each P sample x, the Q sample block holding its tangent point. Writes tangent_block[x].
template <class T>
WAGENER_HD inline bool mam1_tangent_block(const MergeView<T>& v, index_t x, index_t y, index_t* value) {
  const index_t i = x * v.s, j = y * v.s;
  if (i >= v.m || j >= v.n) return false;
  if (!holds_tangent(v, v.p[i], j)) return false;
  *value = j;
  return true;
}

/// mam 2: for each P sample x, its tangent point t(P[x s]) inside the block. Writes tangent[x].
template <class T>
WAGENER_HD inline bool mam2_tangent(const MergeView<T>& v, const BridgeCells& c, index_t x, index_t y,
                                    index_t* value) {
  const index_t i = x * v.s;
  if (i >= v.m) return false;
  const index_t j = c.tangent_block[x] + y;
  if (j >= v.n || classify_q(v.p[i], v.q, v.n, j) != kEqual) return false;
  *value = j;
  return true;
}

/// mam 3: k0 = the last P sample i with classify_p(i, Q[t(P[i])]) <= EQUAL, so a in [k0, k0 + s).
/// One processor per sample (y == 0). Writes *k0.
template <class T>
WAGENER_HD inline bool mam3_last_sample_left_of_bridge(const MergeView<T>& v, const BridgeCells& c, index_t x,
                                                       index_t y, index_t* value) {
  const index_t i = x * v.s;
  if (y != 0 || i >= v.m) return false;
  if (classify_p(v.p, v.m, i, v.q[c.tangent[x]]) > kEqual) return false;
  const index_t next = i + v.s;
  if (next < v.m && classify_p(v.p, v.m, next, v.q[c.tangent[x + 1]]) != kHigh) return false;
  *value = i;
  return true;
}

/// mam 4: for each candidate P[k0 + y], the Q sample block x s holding its tangent point.
/// Writes candidate_block[y].
template <class T>
WAGENER_HD inline bool mam4_candidate_block(const MergeView<T>& v, const BridgeCells& c, index_t x, index_t y,
                                            index_t* value) {
  const index_t i = *c.k0 + y, j = x * v.s;
  if (i >= v.m || j >= v.n) return false;
  if (!holds_tangent(v, v.p[i], j)) return false;
  *value = j;
  return true;
}

/// mam 5: the unique pair (P[k0 + y], Q[candidate_block[y] + x]) on which both classifiers say
/// EQUAL is the bridge. Writes bridge[0..1].
template <class T>
WAGENER_HD inline bool mam5_bridge(const MergeView<T>& v, const BridgeCells& c, index_t x, index_t y,
                                   index_t* a, index_t* b) {
  const index_t i = *c.k0 + y;
  if (i >= v.m) return false;
  const index_t j = c.candidate_block[y] + x;
  if (j >= v.n) return false;
  if (classify_q(v.p[i], v.q, v.n, j) != kEqual || classify_p(v.p, v.m, i, v.q[j]) != kEqual) return false;
  *a = i;
  *b = j;
  return true;
}

/// mam 6: where hood vertex k of the concatenation P ++ Q goes in the merged hood P[0..a] ++ Q[b..n),
/// or -1 when it is dropped. One processor per vertex.
WAGENER_HD inline index_t mam6_destination(index_t k, index_t m, index_t a, index_t b) {
  if (k < m) return k <= a ? k : -1;
  const index_t j = k - m;
  return j >= b ? a + 1 + (j - b) : -1;
}

/// The merged hood's size.
WAGENER_HD inline index_t merged_size(index_t n, index_t a, index_t b) {
  return a + 1 + (n - b);
}

/// A duplicate across the seam (P's last vertex equal to Q's first) is dropped from Q before the
/// bridge search: Q[1..n) is still a strict hood and lies strictly lex-right of P.
template <class T>
WAGENER_HD inline index_t seam_duplicates(const Point2<T>* p, index_t m, const Point2<T>* q, index_t n) {
  return (m > 0 && n > 0 && same_point(p[m - 1], q[0])) ? 1 : 0;
}

/// t(p) by binary search with one orientation test a step: Q[j+1] is on or above the line p->Q[j]
/// (classify_q's LOW) exactly when j < t(p), so t(p) is the first j where that fails, or n - 1.
/// Pre: p lex-less than Q[0], n >= 1. The trip count depends on n only, not on the answer.
template <class T, class I>
WAGENER_HD inline I tangent_index(const Point2<T>& p, const Point2<T>* q, I n) {
  I lo = 0, count = n - 1;  // t(p) in [lo, lo + count]
  while (count > 0) {
    const I half = count / 2;
    if (orient2d(p, q[lo + half], q[lo + half + 1]) >= 0) {
      lo += half + 1;
      count -= half + 1;
    } else {
      count = half;
    }
  }
  return lo;
}

/// classify_p(i, Q[t(P[i])]) == HIGH, which the theorem above makes true exactly when i > a: a
/// monotone predicate (false ... false true ... true) over P, false at i = 0. O(log n) tests.
/// With `tangent`: also sets *tangent = t(P[i]) for i > 0 (left alone for i = 0), so that a search
/// whose bridge end a it probed needs no second tangent search for t(P[a]).
template <class T, class I>
WAGENER_HD inline bool past_bridge(const Point2<T>* p, I i, const Point2<T>* q, I n, I* tangent = nullptr) {
  if (i == 0) return false;
  const Point2<T> pi = p[i];
  const I t = tangent_index(pi, q, n);
  if (tangent) *tangent = t;
  return orient2d(pi, q[t], p[i - 1]) >= 0;
}

// A k-ary search for the first true of a monotone predicate over [lo, hi) (hi when none is true):
// each step probes k positions at once, one processor a probe, and keeps the gap between the last
// false probe and the first true one. With k = 1 it is binary search.

/// Probe r (0 <= r < k) of the step over [lo, hi), lo < hi: nondecreasing in r, inside [lo, hi).
template <class I>
WAGENER_HD inline I kary_probe(I lo, I hi, int k, int r) {
  return lo + static_cast<I>(static_cast<long long>(r + 1) * (hi - lo) / (k + 1));
}

/// After the probes: first = the first probe that said true (k when none did). Shrinks [lo, hi)
/// to at most (hi - lo) / (k + 1) positions.
template <class I>
WAGENER_HD inline void kary_narrow(I* lo, I* hi, int k, int first) {
  const I l = *lo, h = *hi;
  if (first < k) *hi = kary_probe(l, h, k, first);
  if (first > 0) *lo = kary_probe(l, h, k, first - 1) + 1;
}

/// The bridge by a k-ary search over P for the first i past the bridge, each probe a binary search
/// for a tangent on Q: ceil(log_{k+1} m) steps of log2(n) + 1 orientation tests, all k probes of a
/// step independent (the GPU tile kernel gives each to a thread of the merge), then t(P[a]).
/// Here the probes of a step run one after another. Pre: m >= 1, n >= 1, P strictly lex-left of Q.
template <class T, class I>
WAGENER_HD inline void kary_bridge(const Point2<T>* p, I m, const Point2<T>* q, I n, int k, I* a, I* b) {
  I lo = 1, hi = m;  // the first index past the bridge, a + 1, is in [lo, hi]
  while (lo < hi) {
    int first = k;
    for (int r = 0; r < k && first == k; ++r)
      if (past_bridge(p, kary_probe(lo, hi, k, r), q, n)) first = r;
    kary_narrow(&lo, &hi, k, first);
  }
  *a = lo - 1;
  *b = tangent_index(p[*a], q, n);
}

/// The bridge by a serial scan (two pointer walk), for reference and for tiny merges.
template <class T>
WAGENER_HD inline void serial_bridge(const MergeView<T>& v, index_t* a, index_t* b) {
  index_t i = v.m - 1, j = 0;
  // Walk both ends until neither moves: i left while classify_p says HIGH, j right while LOW.
  bool moved = true;
  while (moved) {
    moved = false;
    while (classify_q(v.p[i], v.q, v.n, j) == kLow) {
      ++j;
      moved = true;
    }
    while (classify_p(v.p, v.m, i, v.q[j]) == kHigh) {
      --i;
      moved = true;
    }
  }
  *a = i;
  *b = j;
}

/// The walk out from the seam, bounded, for any layout of the two hoods: a steps back from P's last
/// vertex while classify_p_at(a, b) (classify_p of a against Q's b) says HIGH, to back(a); b steps
/// on from Q's first while classify_q_at(a, b) says LOW, to on(b); until both say EQUAL, which is
/// the bridge (the one kary_bridge and the nested search find, so the trim is the same). Returns
/// false, a and b untouched, after max_steps steps or where a classification points the other way;
/// then a search decides. Where two hoods meet but for a few dents at the seam (sorted points mostly
/// on the hull), a few dependent tests replace the search's.
template <class Vertex, class ClassifyP, class ClassifyQ, class Back, class On>
WAGENER_HD inline bool walk_from_seam(Vertex i, Vertex j, int max_steps, ClassifyP classify_p_at,
                                      ClassifyQ classify_q_at, Back back, On on, Vertex* a, Vertex* b) {
  for (int step = 0; step < max_steps; ++step) {
    const int side_p = classify_p_at(i, j);
    if (side_p == kHigh) {
      i = back(i);  // valid: HIGH needs a vertex before i
      continue;
    }
    const int side_q = classify_q_at(i, j);
    if (side_q == kLow) {
      j = on(j);  // valid: LOW needs a vertex after j
      continue;
    }
    if (side_p != kEqual || side_q != kEqual) return false;
    *a = i;
    *b = j;
    return true;
  }
  return false;
}

/// walk_from_seam over hoods side by side in arrays, P = p[0..m) and Q = q[0..n): serial_bridge's
/// walk, bounded.
template <class T, class I>
WAGENER_HD inline bool walk_bridge(const Point2<T>* p, I m, const Point2<T>* q, I n, int max_steps, I* a,
                                   I* b) {
  return walk_from_seam(
      m - 1, I{0}, max_steps,
      [&](I i, I j) { return classify_p(p, static_cast<index_t>(m), static_cast<index_t>(i), q[j]); },
      [&](I i, I j) { return classify_q(p[i], q, static_cast<index_t>(n), static_cast<index_t>(j)); },
      [](I i) { return i - 1; }, [](I j) { return j + 1; }, a, b);
}

}  // namespace wagener::core
