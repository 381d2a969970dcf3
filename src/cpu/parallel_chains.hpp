// The chains of sorted points on several threads: each thread chains its slice, the slices' hoods are
// merged in place by their bridges (core/nested_bridge.hpp), and one parallel copy compacts them.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "wagener/point.hpp"

namespace wagener::cpu {

/// Upper chain of sorted points (duplicates allowed) on `threads` threads (at least 1): the strict
/// vertices from the smallest to the largest point, as upper_chain() gives them.
template <class T>
std::vector<Point2<T>> upper_chain_parallel(std::span<const Point2<T>> sorted, std::size_t threads);

/// What a thread keeps of its slice of sorted points: keep(begin, end, out) writes to out, in order,
/// the points of sorted[begin, end) that may be vertices of the hull (it may leave out only points
/// strictly inside the hull of all the points) and returns how many; or nullopt to give up (it found
/// the input wanting: unsorted, say).
template <class T>
using SliceKeep =
    std::function<std::optional<std::size_t>(std::size_t begin, std::size_t end, Point2<T>* out)>;

/// upper_chain_parallel, each thread chaining only the points `keep` keeps of its slice (the same
/// chain: the points left out are no vertices). Where a slice gave up: an empty chain, nothing merged.
template <class T>
std::vector<Point2<T>> upper_chain_parallel(std::span<const Point2<T>> sorted, std::size_t threads,
                                            const SliceKeep<T>& keep);

/// Full hull of sorted points on `threads` threads: lower and upper chain, each from per-thread
/// slices merged in place, joined counter-clockwise from the smallest point (as hull_of_sorted()).
template <class T>
std::vector<Point2<T>> hull_of_sorted_threads(std::span<const Point2<T>> sorted, std::size_t threads);

}  // namespace wagener::cpu
