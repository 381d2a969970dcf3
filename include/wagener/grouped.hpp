// convex_hulls(): many hulls in one call, one per group of points (a hull per track, cluster or mask).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "wagener/hull.hpp"
#include "wagener/point.hpp"

namespace wagener {

/// The hulls of several groups, in compressed-sparse-row form: group g's hull is
/// vertices[offsets[g], offsets[g + 1]), in the convention compute_hull() gives for the part that
/// HullOptions::part names (an empty group has an empty hull).
template <class T>
struct GroupedHulls {
  std::vector<Point2<T>> vertices;
  std::vector<std::int64_t> offsets;  ///< groups + 1 entries, offsets[0] == 0
  /// With HullOptions::indices: for each vertex, the smallest index into the whole input array of a
  /// point of its group equal to it (-0.0 equals 0.0). Empty otherwise.
  std::vector<std::int64_t> indices;
  /// convex_hulls_by_id() only: the id of each group, in the order of each id's first appearance
  /// in the input. Empty from convex_hulls().
  std::vector<std::int64_t> group_ids;

  std::size_t groups() const { return offsets.empty() ? 0 : offsets.size() - 1; }
  std::span<const Point2<T>> hull(std::size_t g) const {
    return std::span<const Point2<T>>(vertices).subspan(
        static_cast<std::size_t>(offsets[g]), static_cast<std::size_t>(offsets[g + 1] - offsets[g]));
  }
};

/// The hull of each group of points, the groups given as consecutive ranges: group g is
/// points[offsets[g], offsets[g + 1]).
/// Pre: offsets has at least one entry, offsets[0] == 0, offsets.back() == points.size(), and the
///      offsets do not decrease (empty groups are allowed); throws std::invalid_argument naming the
///      first bad entry otherwise. Points are finite (throws input_error naming the first that is
///      not). With options.presorted, each group is sorted by (x, y) (checked, input_error).
/// Post: hull g equals compute_hull() of group g with the same options; indices (when asked) index
///       the whole points array.
/// Backends: cpu runs the groups in parallel, each small group serially (a filter, a sort of the
/// survivors, Andrew's monotone chain) and each large one on the parallel single-hull path; cuda
/// runs every group in one device pipeline (a team of lanes per small group, a warp per larger one); pram
/// runs the groups one after another on the emulator; automatic picks cpu. options.stats receives the totals
/// (points, hull vertices, time, backend). options.trace is refused (unsupported_error).
template <class T>
GroupedHulls<T> convex_hulls(std::span<const Point2<T>> points, std::span<const std::int64_t> offsets,
                             const HullOptions& options = {});

/// The hull of each group of points, the groups given by one id per point, in any order. The points
/// are grouped by a stable counting sort on all cores (no comparison sort of the points), or not
/// moved at all where the ids never decrease; the result lists the groups in the order of each id's
/// first appearance, and group_ids names them.
/// Pre: group_ids.size() == points.size() (std::invalid_argument otherwise); as convex_hulls().
/// Post: hull g equals compute_hull() of the points whose id is group_ids[g], in input order.
template <class T>
GroupedHulls<T> convex_hulls_by_id(std::span<const Point2<T>> points, std::span<const std::int64_t> group_ids,
                                   const HullOptions& options = {});

}  // namespace wagener
