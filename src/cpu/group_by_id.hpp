// Points grouped by an id per point, for convex_hulls_by_id(): a stable counting sort on all cores,
// or no sort at all where the ids already come group after group.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/huge_pages.hpp"
#include "wagener/point.hpp"

namespace wagener::cpu {

/// The input's points group after group: group g is points[offsets[g], offsets[g + 1]), its points
/// in input order, the groups in the order of their ids' first appearance in the input.
template <class T>
struct PointsById {
  std::vector<std::int64_t> ids;      ///< group g's id
  std::vector<std::int64_t> offsets;  ///< ids.size() + 1 entries, from 0 to n
  /// The grouped points: the input itself where its ids never decrease (it is grouped already),
  /// else `grouped`.
  std::span<const Point2<T>> points;
  std::unique_ptr<Point2<T>[], detail::FreeDeleter> grouped;
  /// With `with_origin`, where the points were sorted: origin[j] is the input index of points[j], in
  /// 32 bits below 2^32 points (one of the two is set).
  std::unique_ptr<std::uint32_t[], detail::FreeDeleter> origin32;
  std::unique_ptr<std::uint64_t[], detail::FreeDeleter> origin64;

  /// Replaces each index into `points` by the input index of the same point. The sort is stable,
  /// so the smallest grouped index of a vertex maps to its smallest input index.
  void map_to_input(std::span<std::int64_t> indices) const;
};

/// Groups `points` by `group_ids` (the same size, checked by the caller). With `with_origin` the
/// result can map indices back to the input (map_to_input).
/// Post: the same groups, order and points, whatever the number of cores: slices are cut by points,
///       and each slice's points keep their order in each group.
template <class T>
PointsById<T> group_by_id(std::span<const Point2<T>> points, std::span<const std::int64_t> group_ids,
                          bool with_origin);

}  // namespace wagener::cpu
