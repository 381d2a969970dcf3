// The serial exact reference: Andrew's monotone chain; the multi-core full hull and presorted upper chain.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "wagener/point.hpp"

namespace wagener::cpu {

/// Upper chain of lexicographically sorted points (duplicates allowed): strict vertices from the
/// smallest to the largest point, clockwise over the top. O(n).
template <class T>
std::vector<Point2<T>> upper_chain(std::span<const Point2<T>> sorted);

/// Lower chain of lexicographically sorted points: strict vertices from the smallest to the
/// largest point, counter-clockwise under the bottom. O(n).
template <class T>
std::vector<Point2<T>> lower_chain(std::span<const Point2<T>> sorted);

/// Lower and upper chain of sorted points at once (each walks only its side of the line from the
/// smallest point to the largest), into `lower` and `upper`.
template <class T>
void chains_of_sorted(std::span<const Point2<T>> sorted, std::vector<Point2<T>>& lower,
                      std::vector<Point2<T>>& upper);

/// Full hull of sorted points: lower chain then upper chain, counter-clockwise from the smallest.
template <class T>
std::vector<Point2<T>> hull_of_sorted(std::span<const Point2<T>> sorted);

/// Full hull of points in any order by sorting a copy: the serial reference. O(n log n).
template <class T>
std::vector<Point2<T>> convex_hull_serial(std::span<const Point2<T>> points);

/// Full hull on all cores: extreme points bound an inner polygon, points certified strictly inside
/// it are discarded while they stream past, the survivors are sorted in parallel and chained.
/// `survivors` (optional) receives how many points passed the filter.
template <class T>
std::vector<Point2<T>> convex_hull_parallel(std::span<const Point2<T>> points,
                                            std::int64_t* survivors = nullptr);

/// Upper chain of sorted points on all cores, as upper_chain() gives it: the inner polygon of a
/// sample (as convex_hull_parallel's) discards the points it certifies strictly inside while each
/// thread reads its slice, the thread chains the rest in place, and the slices' hoods are merged by
/// their bridges. Nothing is sorted. Where the sample shows a hull-like input (a parabola) every
/// point is chained: by the serial chain on one or two threads, in slices on more. `survivors`
/// (optional) receives how many points
/// the filter kept (all of them where it did not run). Pre: the points are finite and sorted.
template <class T>
std::vector<Point2<T>> upper_chain_filtered(std::span<const Point2<T>> sorted,
                                            std::int64_t* survivors = nullptr);

/// Index of the first point that is not finite, or -1.
template <class T>
std::int64_t first_non_finite(std::span<const Point2<T>> points);

/// Index of the first point lexicographically smaller than its predecessor, or -1.
template <class T>
std::int64_t first_unsorted(std::span<const Point2<T>> points);

/// What check_presorted found: the index of the first point that is not finite, and of the first
/// lexicographically smaller than its predecessor (-1 where there is none). Where non_finite >= 0,
/// unsorted may be any point's or -1: the first problem to name is the non-finite point.
struct PresortedCheck {
  std::int64_t non_finite = -1;
  std::int64_t unsorted = -1;
};

/// first_non_finite, then first_unsorted where all are finite, in one read on all cores (a large
/// input's slices on threads of their own).
template <class T>
PresortedCheck check_presorted(std::span<const Point2<T>> points);

}  // namespace wagener::cpu
