// The grouped dispatcher: checks the groups, has the points grouped by id (cpu/group_by_id.hpp), picks the
// backend, and hands the large groups of the CPU path to the single-hull path.
#include "wagener/grouped.hpp"

#include <chrono>
#include <stdexcept>
#include <string>

#include "cpu/group_by_id.hpp"
#include "cpu/grouped_hulls.hpp"
#include "cpu/monotone_chain.hpp"
#include "cuda/grouped_backend.hpp"
#include "wagener/error.hpp"

namespace wagener {
namespace {

void check_offsets(std::span<const std::int64_t> offsets, std::size_t points) {
  if (offsets.empty())
    throw std::invalid_argument("offsets is empty: it needs groups + 1 entries, from 0 to n");
  if (offsets.front() != 0) {
    throw std::invalid_argument("offsets[0] is " + std::to_string(offsets.front()) + ", not 0");
  }
  for (std::size_t g = 1; g < offsets.size(); ++g) {
    if (offsets[g] < offsets[g - 1]) {
      throw std::invalid_argument("offsets[" + std::to_string(g) + "] = " + std::to_string(offsets[g]) +
                                  " is smaller than offsets[" + std::to_string(g - 1) +
                                  "] = " + std::to_string(offsets[g - 1]));
    }
  }
  if (offsets.back() != static_cast<std::int64_t>(points)) {
    throw std::invalid_argument("offsets[" + std::to_string(offsets.size() - 1) +
                                "] = " + std::to_string(offsets.back()) + " is not the number of points, " +
                                std::to_string(points));
  }
}

template <class T>
void check_presorted(std::span<const Point2<T>> points, std::span<const std::int64_t> offsets) {
  for (std::size_t g = 0; g + 1 < offsets.size(); ++g) {
    const auto begin = static_cast<std::size_t>(offsets[g]);
    const auto group = points.subspan(begin, static_cast<std::size_t>(offsets[g + 1]) - begin);
    const auto bad = cpu::first_unsorted(group);
    if (bad >= 0) {
      const auto at = static_cast<std::int64_t>(begin) + bad;
      throw input_error("group " + std::to_string(g) + " is not sorted by (x, y): point " +
                        std::to_string(at) + " is smaller than point " + std::to_string(at - 1));
    }
  }
}

/// The options one group's own compute_hull() call gets: no statistics, no trace.
HullOptions single_group_options(const HullOptions& options) {
  HullOptions o = options;
  o.stats = nullptr;
  o.trace = nullptr;
  return o;
}

/// Replaces the (empty) hulls of `large_groups` in `hulls` by their compute_hull() results.
template <class T>
void fill_large_groups(std::span<const Point2<T>> points, std::span<const std::int64_t> offsets,
                       const std::vector<std::int64_t>& large_groups, const HullOptions& options,
                       GroupedHulls<T>& hulls) {
  if (large_groups.empty()) return;
  const HullOptions single = single_group_options(options);
  GroupedHulls<T> out;
  out.offsets.reserve(hulls.offsets.size());
  out.offsets.push_back(0);
  std::size_t next_large = 0;
  for (std::size_t g = 0; g + 1 < hulls.offsets.size(); ++g) {
    if (next_large < large_groups.size() && large_groups[next_large] == static_cast<std::int64_t>(g)) {
      ++next_large;
      const auto begin = static_cast<std::size_t>(offsets[g]);
      const auto group = points.subspan(begin, static_cast<std::size_t>(offsets[g + 1]) - begin);
      const HullResult<T> r = compute_hull(group, single);
      out.vertices.insert(out.vertices.end(), r.vertices.begin(), r.vertices.end());
      for (const std::int64_t i : r.indices) out.indices.push_back(static_cast<std::int64_t>(begin) + i);
    } else {
      const auto from = static_cast<std::size_t>(hulls.offsets[g]),
                 to = static_cast<std::size_t>(hulls.offsets[g + 1]);
      out.vertices.insert(out.vertices.end(), hulls.vertices.begin() + static_cast<std::ptrdiff_t>(from),
                          hulls.vertices.begin() + static_cast<std::ptrdiff_t>(to));
      if (options.indices) {
        out.indices.insert(out.indices.end(), hulls.indices.begin() + static_cast<std::ptrdiff_t>(from),
                           hulls.indices.begin() + static_cast<std::ptrdiff_t>(to));
      }
    }
    out.offsets.push_back(static_cast<std::int64_t>(out.vertices.size()));
  }
  hulls = std::move(out);
}

/// Every group through compute_hull(), one after another (the pram backend: the emulator's rounds
/// are what it is for, not speed).
template <class T>
GroupedHulls<T> one_group_at_a_time(std::span<const Point2<T>> points, std::span<const std::int64_t> offsets,
                                    const HullOptions& options) {
  GroupedHulls<T> out;
  out.offsets.assign(offsets.size(), 0);
  std::vector<std::int64_t> all_groups(offsets.size() - 1);
  for (std::size_t g = 0; g < all_groups.size(); ++g) all_groups[g] = static_cast<std::int64_t>(g);
  fill_large_groups(points, offsets, all_groups, options, out);
  return out;
}

template <class T>
GroupedHulls<T> grouped_vertices(std::span<const Point2<T>> points, std::span<const std::int64_t> offsets,
                                 const HullOptions& options, HullStats& stats) {
  if (options.trace) throw unsupported_error("a trace shows the rounds of one hull: grouped hulls take none");
  if (options.presorted) check_presorted(points, offsets);
  switch (options.backend) {
    case Backend::pram: stats.backend = Backend::pram; return one_group_at_a_time(points, offsets, options);
    case Backend::cuda: {
      stats.backend = Backend::cuda;
      GroupedHulls<T> hulls = cuda::grouped_hulls(points, offsets, options.part, options.indices, &stats);
      return hulls;
    }
    default: {
      // automatic: the CPU. Small groups are latency-bound on a GPU unless they are already there
      // (cuda::convex_hulls_device); the large groups still choose their own backend below.
      stats.backend = Backend::cpu;
      std::vector<std::int64_t> large_groups;
      GroupedHulls<T> hulls =
          cpu::small_group_hulls(points, offsets, options.part, options.indices, large_groups);
      fill_large_groups(points, offsets, large_groups, options, hulls);
      return hulls;
    }
  }
}

}  // namespace

template <class T>
GroupedHulls<T> convex_hulls(std::span<const Point2<T>> points, std::span<const std::int64_t> offsets,
                             const HullOptions& options) {
  check_offsets(offsets, points.size());
  HullStats stats;
  stats.points = static_cast<std::int64_t>(points.size());
  const auto start = std::chrono::steady_clock::now();
  GroupedHulls<T> hulls;
  try {
    hulls = grouped_vertices(points, offsets, options, stats);
  } catch (const input_error&) {
    // Groups run in parallel and out of order: name the first non-finite point of all, as
    // compute_hull() would.
    const auto bad = cpu::first_non_finite(points);
    if (bad >= 0) throw input_error("point " + std::to_string(bad) + " is not finite");
    throw;
  }
  stats.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  stats.hull_vertices = static_cast<std::int64_t>(hulls.vertices.size());
  if (options.stats) *options.stats = stats;
  return hulls;
}

template <class T>
GroupedHulls<T> convex_hulls_by_id(std::span<const Point2<T>> points, std::span<const std::int64_t> group_ids,
                                   const HullOptions& options) {
  if (group_ids.size() != points.size()) {
    throw std::invalid_argument("group_ids has " + std::to_string(group_ids.size()) + " entries for " +
                                std::to_string(points.size()) + " points");
  }
  cpu::PointsById<T> by_id = cpu::group_by_id(points, group_ids, options.indices);
  GroupedHulls<T> hulls;
  try {
    hulls = convex_hulls<T>(by_id.points, by_id.offsets, options);
  } catch (const input_error&) {
    const auto bad = cpu::first_non_finite(points);
    if (bad >= 0) throw input_error("point " + std::to_string(bad) + " is not finite");
    throw;
  }
  by_id.map_to_input(hulls.indices);
  hulls.group_ids = std::move(by_id.ids);
  return hulls;
}

#define WAGENER_INSTANTIATE(T)                                                                           \
  template GroupedHulls<T> convex_hulls(std::span<const Point2<T>>, std::span<const std::int64_t>,       \
                                        const HullOptions&);                                             \
  template GroupedHulls<T> convex_hulls_by_id(std::span<const Point2<T>>, std::span<const std::int64_t>, \
                                              const HullOptions&);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener
