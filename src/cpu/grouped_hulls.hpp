// The CPU's grouped hulls: every small group on one core, the groups spread over all cores.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cpu/filter_pass.hpp"
#include "wagener/grouped.hpp"
#include "wagener/hull.hpp"

namespace wagener::cpu {

/// Groups of more than this many points are left to the parallel single-hull path (the caller's):
/// one core per group would leave the other cores idle on a huge group among tiny ones.
inline constexpr std::int64_t kLargeGroupPoints = std::int64_t{1} << 16;

/// The hull of every group of at most kLargeGroupPoints points (validated offsets), in parallel
/// across groups. Large groups get empty hulls here and their numbers in `large_groups`, ascending.
/// Throws input_error for a non-finite point of a small group (not necessarily the first overall).
/// `sort_kernel` sorts each side's few survivors (lex_ranks, or by insertion for scalar); every
/// kernel gives the same hulls, and the tests run each this processor supports.
template <class T>
GroupedHulls<T> small_group_hulls(std::span<const Point2<T>> points, std::span<const std::int64_t> offsets,
                                  HullPart part, bool with_indices, std::vector<std::int64_t>& large_groups,
                                  FilterKernel sort_kernel = FilterKernel::widest);

}  // namespace wagener::cpu
