// The peel: rounds that drop, all at once, every point of a sorted run that cannot be a vertex of
// its hood, each judged from its nearest kept neighbours.
//
// A point p with input points a and b lexicographically before and after it, and a, p, b not a
// strict right turn, is on or below the segment ab: it is no vertex of the upper hull of any set
// holding a, p and b (Andrew's chain would pop it). The neighbours a and b are input points whether
// or not they are dropped in the same round, so every point of a round can be judged at once. A
// round that drops nothing leaves a run whose every inner point turns strictly right, with no two
// points equal: a strictly concave chain from the first point to the last holding every vertex of
// the hood, which is therefore the hood itself.
//
// On a hood whose points are nearly all vertices, but not quite (a double circle of 2^28 points,
// rounded), a few rounds drop the rest and the hood needs no merges; on a run of random points each
// round drops about half of them. A chain that needs many rounds (each round exposing one more dent)
// is left to the merges after a bounded number (BlockUpperHull).
#pragma once

#include "wagener/config.hpp"
#include "wagener/point.hpp"
#include "wagener/predicates.hpp"

namespace wagener::core {

/// Whether point p of a lexicographically sorted run stays in a round of the peel, from its nearest
/// kept neighbours a before it and b after it (has_a, has_b: whether there is one). The run's first
/// point stays (its hood's first vertex); of equal points the first stays; the last point stays
/// unless it repeats the one before it.
template <class T>
WAGENER_HD inline bool peel_keeps(bool has_a, const Point2<T>& a, const Point2<T>& p, bool has_b,
                                  const Point2<T>& b) {
  if (!has_a) return true;
  if (same_point(a, p)) return false;
  // b equal to p is dropped in this round; p is judged again in the next, against b's successor.
  if (!has_b || same_point(p, b)) return true;
  return orient2d(a, p, b) < 0;
}

}  // namespace wagener::core
