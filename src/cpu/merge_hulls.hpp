// merge_hulls() with its slab count chosen, for the CPU backend's join and the tests.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "wagener/point.hpp"

namespace wagener::cpu {

/// merge_hulls() cut into `slabs` lexicographic ranges, one a thread (0: as many as the vertices pay
/// for; 1: serially). `in_convention` promises that every polygon is a hull in convex_hull()'s
/// convention, strictly convex, lower chain ascending from vertex 0 to the largest, then descending
/// (the backend's own hulls): nothing is checked, and the lower chain of the merge walks only the
/// polygons' lower chains, the upper only their upper ones. Without it, any point sets are merged
/// exactly (checked, and sorted where not so).
template <class T>
std::vector<Point2<T>> merge_hulls_in_slabs(std::span<const std::span<const Point2<T>>> hulls,
                                            std::size_t slabs, bool in_convention);

}  // namespace wagener::cpu
