// Grouped hulls on the CPU: contiguous runs of groups, one per core, balanced by points; in each
// group the extreme-quadrilateral filter, a sort of the survivors and the monotone chain
// (src/core/small_hull.hpp), all in a scratch buffer reused from group to group.
#include "cpu/grouped_hulls.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/parallel_slices.hpp"
#include "core/small_hull.hpp"
#include "wagener/error.hpp"

namespace wagener::cpu {
namespace {

// Below this many points per thread, starting a thread costs more than it saves.
constexpr std::size_t kMinPointsPerThread = std::size_t{1} << 14;
// Below this many points the filter's extra pass costs more than the sort it saves.
constexpr std::size_t kMinPointsToFilter = 16;

/// A point with its index within its group: sorting by (x, y, index) puts the first of equal points
/// first, which the chain keeps, so the kept copy carries the smallest index.
template <class T>
struct Keyed {
  Point2<T> p;
  std::uint32_t index;
};

template <class T>
bool keyed_less(const Keyed<T>& a, const Keyed<T>& b) {
  if (a.p.x != b.p.x) return a.p.x < b.p.x;
  if (a.p.y != b.p.y) return a.p.y < b.p.y;
  return a.index < b.index;
}

template <class T>
[[noreturn]] void not_finite(std::int64_t index) {
  throw input_error("point " + std::to_string(index) + " is not finite");
}

/// One core's run of groups [first, last): their vertices (and global indices) appended to `vertices`
/// (`indices`), each group's vertex count in counts[g].
template <class T>
struct Slice {
  std::vector<Point2<T>> vertices;
  std::vector<std::int64_t> indices;
  std::vector<std::int64_t> large_groups;
};

template <class T>
void hull_groups(std::span<const Point2<T>> points, std::span<const std::int64_t> offsets, std::size_t first,
                 std::size_t last, HullPart part, bool with_indices, std::vector<std::int64_t>& counts,
                 Slice<T>& slice) {
  std::vector<Keyed<T>> kept;
  std::vector<Keyed<T>> chain;
  const auto point_of = [](const Keyed<T>& e) -> const Point2<T>& { return e.p; };
  for (std::size_t g = first; g < last; ++g) {
    const std::int64_t begin = offsets[g];
    const std::int64_t size = offsets[g + 1] - begin;
    counts[g] = 0;
    if (size == 0) continue;
    if (size > kLargeGroupPoints) {
      slice.large_groups.push_back(static_cast<std::int64_t>(g));
      continue;
    }
    const Point2<T>* group = points.data() + begin;
    const auto n = static_cast<std::uint32_t>(size);
    kept.resize(n);
    std::uint32_t m = 0;
    if (n < kMinPointsToFilter) {
      for (std::uint32_t i = 0; i < n; ++i) {
        if (!std::isfinite(group[i].x) || !std::isfinite(group[i].y)) not_finite<T>(begin + i);
        kept[m++] = {group[i], i};
      }
    } else {
      core::ExtremeQuad<T> quad;
      quad.start(group[0]);
      for (std::uint32_t i = 0; i < n; ++i) {
        if (!std::isfinite(group[i].x) || !std::isfinite(group[i].y)) not_finite<T>(begin + i);
        quad.add(group[i]);
      }
      for (std::uint32_t i = 0; i < n; ++i) {
        if (!quad.strictly_inside(group[i])) kept[m++] = {group[i], i};
      }
    }
    std::sort(kept.begin(), kept.begin() + m, keyed_less<T>);
    chain.resize(m + 1);
    const int k = core::chain_sorted(kept.data(), static_cast<int>(m), chain.data(), part, point_of);
    counts[g] = k;
    for (int v = 0; v < k; ++v) {
      slice.vertices.push_back(chain[static_cast<std::size_t>(v)].p);
      if (with_indices) slice.indices.push_back(begin + chain[static_cast<std::size_t>(v)].index);
    }
  }
}

}  // namespace

template <class T>
GroupedHulls<T> small_group_hulls(std::span<const Point2<T>> points, std::span<const std::int64_t> offsets,
                                  HullPart part, bool with_indices, std::vector<std::int64_t>& large_groups) {
  const std::size_t groups = offsets.size() - 1;
  const std::size_t n = points.size();
  const std::size_t slices =
      std::min(std::max<std::size_t>(groups, 1),
               detail::slice_count(n, detail::resolve_threads(0), kMinPointsPerThread));
  // Slice s takes the groups that start in its share of the points, so that each core hulls about
  // n / slices points whatever the sizes of the groups.
  std::vector<std::size_t> first_group(slices + 1, groups);
  for (std::size_t s = 0; s < slices; ++s) {
    const auto start = static_cast<std::int64_t>(detail::slice_begin(n, slices, s));
    first_group[s] = static_cast<std::size_t>(std::lower_bound(offsets.begin(), offsets.end() - 1, start) -
                                              offsets.begin());
  }
  first_group[0] = 0;
  std::vector<std::int64_t> counts(groups);
  std::vector<Slice<T>> parts(slices);
  detail::run_slices(slices, slices, [&](std::size_t s, std::size_t, std::size_t) {
    hull_groups(points, offsets, first_group[s], first_group[s + 1], part, with_indices, counts, parts[s]);
  });

  GroupedHulls<T> out;
  out.offsets.resize(groups + 1);
  out.offsets[0] = 0;
  for (std::size_t g = 0; g < groups; ++g) out.offsets[g + 1] = out.offsets[g] + counts[g];
  const auto total = static_cast<std::size_t>(out.offsets[groups]);
  out.vertices.reserve(total);
  if (with_indices) out.indices.reserve(total);
  large_groups.clear();
  for (auto& slice : parts) {
    out.vertices.insert(out.vertices.end(), slice.vertices.begin(), slice.vertices.end());
    out.indices.insert(out.indices.end(), slice.indices.begin(), slice.indices.end());
    large_groups.insert(large_groups.end(), slice.large_groups.begin(), slice.large_groups.end());
  }
  return out;
}

#define WAGENER_INSTANTIATE(T)                                                                          \
  template GroupedHulls<T> small_group_hulls(std::span<const Point2<T>>, std::span<const std::int64_t>, \
                                             HullPart, bool, std::vector<std::int64_t>&);
WAGENER_INSTANTIATE(float)
WAGENER_INSTANTIATE(double)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::cpu
