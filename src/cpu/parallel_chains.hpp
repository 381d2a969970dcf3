// The chains of sorted points on several threads: each thread chains its slice, the slices' hoods are
// merged in place by their bridges (core/nested_bridge.hpp), and one parallel copy compacts them.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "wagener/point.hpp"

namespace wagener::cpu {

/// Upper chain of sorted points (duplicates allowed) on `threads` threads (at least 1): the strict
/// vertices from the smallest to the largest point, as upper_chain() gives them.
template <class T>
std::vector<Point2<T>> upper_chain_parallel(std::span<const Point2<T>> sorted, std::size_t threads);

/// Full hull of sorted points on `threads` threads: lower and upper chain, each from per-thread
/// slices merged in place, joined counter-clockwise from the smallest point (as hull_of_sorted()).
template <class T>
std::vector<Point2<T>> hull_of_sorted_threads(std::span<const Point2<T>> sorted, std::size_t threads);

}  // namespace wagener::cpu
