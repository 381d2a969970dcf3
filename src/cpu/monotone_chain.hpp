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

/// What check_presorted found: the index of the first point that is not finite, and of the first
/// lexicographically smaller than its predecessor (-1 where there is none). Where non_finite >= 0,
/// unsorted may be any point's or -1: the first problem to name is the non-finite point.
struct PresortedCheck {
  std::int64_t non_finite = -1;
  std::int64_t unsorted = -1;
};

/// Upper chain of sorted points on all cores, as upper_chain() gives it: the inner polygon of a
/// sample (as convex_hull_parallel's) discards the points it certifies strictly inside while each
/// thread reads its slice, the thread chains the rest in place, and the slices' hoods are merged by
/// their bridges. Nothing is sorted. Where the sample shows a hull-like input (a parabola) every
/// point is chained: by the serial chain on one or two threads, in slices on more. `survivors`
/// (optional) receives how many points the filter kept (all of them where it did not run). Pre: the
/// points are finite and sorted, unless
/// `check` is given: the promise is then checked in the same read as the filter (else first, as
/// check_presorted checks it), and where it is broken *check names the first problem as
/// check_presorted would and the chain returned is empty.
template <class T>
std::vector<Point2<T>> upper_chain_filtered(std::span<const Point2<T>> sorted,
                                            std::int64_t* survivors = nullptr,
                                            PresortedCheck* check = nullptr);

/// Index of the first point that is not finite, or -1.
template <class T>
std::int64_t first_non_finite(std::span<const Point2<T>> points);

/// Index of the first point lexicographically smaller than its predecessor, or -1.
template <class T>
std::int64_t first_unsorted(std::span<const Point2<T>> points);

/// first_non_finite, then first_unsorted where all are finite, in one read on all cores (a large
/// input's slices on threads of their own).
template <class T>
PresortedCheck check_presorted(std::span<const Point2<T>> points);

/// check_presorted's scan of one range, points[begin, end): each point's coordinates and each pair
/// (i - 1, i) for i in [max(begin, 1), end). Adds to `found` the first problem of each kind that it
/// does not hold yet (a first unsorted point it holds is kept, and pairs are then not tested), and
/// stops at a non-finite point. Returns whether the range added nothing and found held nothing
/// non-finite. The scans of a range's pieces in order find what one scan of the range finds.
template <class T>
bool check_presorted_range(std::span<const Point2<T>> points, std::size_t begin, std::size_t end,
                           PresortedCheck& found);

/// What a scan of a whole input found, from the scans of its consecutive ranges (`found`, in order):
/// the first non-finite point of any, else the first point out of order.
PresortedCheck first_presorted_problem(std::span<const PresortedCheck> found);

}  // namespace wagener::cpu
