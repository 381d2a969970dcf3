// Points grouped by id (cpu/group_by_id.hpp). One pass over the ids, in slices on all cores, tells
// which of three kinds they are:
//  - never decreasing: the points are grouped already; the groups start where the id changes;
//  - numbered in the order of their first appearance from the smallest, as the csv reader numbers a
//    --group-by column: an id less the smallest is its group's number;
//  - anything else: numbered on one thread, through a table over the ids' range where it is small,
//    a flat hash table otherwise.
// The last two are sorted by a stable counting sort on all cores: each slice counts its points per
// group, a prefix over (group, slice) gives each slice its first slot in each group, and each slice
// scatters its points in input order.
#include "cpu/group_by_id.hpp"

#include <algorithm>
#include <limits>

#include "core/id_table.hpp"
#include "core/parallel_slices.hpp"

namespace wagener::cpu {
namespace {

// Below this many points per slice a thread costs more than its share of a pass saves
// (bench/NOTES.md, "convex_hulls_by_id on all cores").
constexpr std::size_t kMinPointsPerSlice = std::size_t{1} << 16;
// Every slice counts every group, and the prefix over (group, slice) runs on one thread: more slices
// only where each (group, slice) pair stands for a few points on average.
constexpr std::size_t kMinPointsPerGroupAndSlice = 4;

/// How many slices to cut n items into. Below two slices' worth the system is not asked for its
/// number of cores: on the project's VMs two such calls made a call on 1000 points 0.033 -> 0.045 ms
/// (bench_by_id).
std::size_t slices_for(std::size_t n) {
  if (n < 2 * kMinPointsPerSlice) return 1;
  return detail::slice_count(n, detail::resolve_threads(0), kMinPointsPerSlice);
}

/// What one slice [begin, end) of the ids says about them (begin < end).
struct IdSummary {
  std::int64_t lo = 0;           // the smallest id
  std::int64_t hi = 0;           // the largest id
  bool never_decreasing = true;  // ids[i] >= ids[i - 1] for every i of the slice but 0
  std::size_t run_starts = 0;    // the i of the slice with i == 0 or ids[i] != ids[i - 1]
  // The last id of the slice more than one above every id before it in the slice (its first id
  // counts as such): the ids number their groups in order of first appearance only if the ids
  // before the slice reach at least this less one.
  std::int64_t needs = 0;
};

IdSummary summarize(std::span<const std::int64_t> ids, std::size_t begin, std::size_t end) {
  IdSummary s;
  std::int64_t previous = ids[begin];
  s.lo = s.hi = s.needs = previous;
  s.run_starts = begin == 0 || ids[begin - 1] != previous;
  s.never_decreasing = begin == 0 || ids[begin - 1] <= previous;
  for (std::size_t i = begin + 1; i < end; ++i) {
    const std::int64_t id = ids[i];
    s.never_decreasing &= id >= previous;
    s.run_starts += id != previous;
    s.lo = std::min(s.lo, id);
    if (id > s.hi) {
      // As unsigned: the difference of two int64 may not fit one.
      if (static_cast<std::uint64_t>(id) - static_cast<std::uint64_t>(s.hi) > 1) s.needs = id;
      s.hi = id;
    }
    previous = id;
  }
  return s;
}

/// The input is grouped already (its ids never decrease): the groups are its runs of equal ids.
template <class T>
void take_runs(std::span<const Point2<T>> points, std::span<const std::int64_t> ids,
               const std::vector<IdSummary>& slices, PointsById<T>& out) {
  const std::size_t n = points.size();
  std::vector<std::size_t> first_group(slices.size() + 1, 0);
  for (std::size_t s = 0; s < slices.size(); ++s) first_group[s + 1] = first_group[s] + slices[s].run_starts;
  out.ids.resize(first_group.back());
  out.offsets.resize(first_group.back() + 1);
  out.offsets.back() = static_cast<std::int64_t>(n);
  detail::run_slices(n, slices.size(), [&](std::size_t s, std::size_t begin, std::size_t end) {
    std::size_t g = first_group[s];
    for (std::size_t i = begin; i < end; ++i) {
      if (i == 0 || ids[i] != ids[i - 1]) {
        out.offsets[g] = static_cast<std::int64_t>(i);
        out.ids[g++] = ids[i];
      }
    }
  });
  out.points = points;
}

/// The stable counting sort of the points into `out` by group_of(i) < groups, on `slices` slices at
/// most; origin (when not null) receives each slot's input index.
template <class T, class Index, class GroupOf>
void counting_sort(std::span<const Point2<T>> points, std::size_t groups, const GroupOf& group_of,
                   std::size_t slices, Index* origin, PointsById<T>& out) {
  const std::size_t n = points.size();
  slices =
      std::clamp<std::size_t>(n / (kMinPointsPerGroupAndSlice * std::max<std::size_t>(groups, 1)), 1, slices);
  // next[s][g]: first the number of group g's points in slice s, then the slot of the next of them.
  // Each slice allocates and writes its own row.
  std::vector<std::vector<Index>> next(slices);
  detail::run_slices(n, slices, [&](std::size_t s, std::size_t begin, std::size_t end) {
    std::vector<Index>& count = next[s];
    count.assign(groups, 0);
    for (std::size_t i = begin; i < end; ++i) ++count[group_of(i)];
  });
  out.offsets.resize(groups + 1);
  Index slot = 0;
  for (std::size_t g = 0; g < groups; ++g) {
    out.offsets[g] = static_cast<std::int64_t>(slot);
    for (std::vector<Index>& count : next) {
      const Index points_here = count[g];
      count[g] = slot;
      slot += points_here;
    }
  }
  out.offsets[groups] = static_cast<std::int64_t>(n);
  // Uninitialised: the slices' writes are the first touches of the pages, so that the kernel zeroes
  // them on every core rather than on this thread in a resize().
  out.grouped = detail::huge_page_array<Point2<T>>(n);
  Point2<T>* const grouped = out.grouped.get();
  detail::run_slices(n, slices, [&](std::size_t s, std::size_t begin, std::size_t end) {
    Index* const slot_of = next[s].data();
    if (origin) {
      for (std::size_t i = begin; i < end; ++i) {
        const Index at = slot_of[group_of(i)]++;
        grouped[at] = points[i];
        origin[at] = static_cast<Index>(i);
      }
    } else {
      for (std::size_t i = begin; i < end; ++i) grouped[slot_of[group_of(i)]++] = points[i];
    }
  });
  out.points = std::span<const Point2<T>>(grouped, n);
}

template <class T, class GroupOf>
void sort_by_group(std::span<const Point2<T>> points, std::size_t groups, const GroupOf& group_of,
                   std::size_t slices, bool with_origin, PointsById<T>& out) {
  const std::size_t n = points.size();
  if (n < (std::uint64_t{1} << 32)) {
    if (with_origin) out.origin32 = detail::huge_page_array<std::uint32_t>(n);
    counting_sort<T, std::uint32_t>(points, groups, group_of, slices, out.origin32.get(), out);
  } else {
    if (with_origin) out.origin64 = detail::huge_page_array<std::uint64_t>(n);
    counting_sort<T, std::uint64_t>(points, groups, group_of, slices, out.origin64.get(), out);
  }
}

/// Numbers the groups in the order of first appearance on one thread: dense[i] is point i's group.
std::vector<std::int64_t> number_groups(std::span<const std::int64_t> ids, std::int64_t lo,
                                        std::uint64_t range, std::uint32_t* dense) {
  const std::size_t n = ids.size();
  std::vector<std::int64_t> numbered;
  constexpr std::uint32_t kUnseen = ~std::uint32_t{0};
  if (range < std::max<std::uint64_t>(2 * n, 1 << 16)) {
    // A table over the ids' range when it is small (integer labels).
    std::vector<std::uint32_t> number(static_cast<std::size_t>(range) + 1, kUnseen);
    for (std::size_t i = 0; i < n; ++i) {
      auto& slot = number[static_cast<std::size_t>(static_cast<std::uint64_t>(ids[i]) -
                                                   static_cast<std::uint64_t>(lo))];
      if (slot == kUnseen) {
        slot = static_cast<std::uint32_t>(numbered.size());
        numbered.push_back(ids[i]);
      }
      dense[i] = slot;
    }
  } else {
    // The flat table, keyed on each id's eight bytes (held in its slot): a node-based
    // std::unordered_map took 220 ms for 10^7 shuffled random 64-bit ids (bench_by_id --ids hash).
    detail::IdTable number;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t g = number.intern({reinterpret_cast<const char*>(&ids[i]), sizeof(std::int64_t)});
      if (g == numbered.size()) numbered.push_back(ids[i]);
      dense[i] = static_cast<std::uint32_t>(g);
    }
  }
  return numbered;
}

}  // namespace

template <class T>
void PointsById<T>::map_to_input(std::span<std::int64_t> indices) const {
  if (!origin32 && !origin64) return;  // not sorted: the grouped points are the input
  const std::size_t slices = slices_for(indices.size());
  detail::run_slices(indices.size(), slices, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t v = begin; v < end; ++v) {
      const auto j = static_cast<std::size_t>(indices[v]);
      indices[v] = static_cast<std::int64_t>(origin32 ? origin32[j] : origin64[j]);
    }
  });
}

template <class T>
PointsById<T> group_by_id(std::span<const Point2<T>> points, std::span<const std::int64_t> group_ids,
                          bool with_origin) {
  const std::size_t n = points.size();
  PointsById<T> out;
  if (n == 0) {
    out.offsets = {0};
    out.points = points;
    return out;
  }
  const std::size_t slices = slices_for(n);
  std::vector<IdSummary> summaries(slices);
  detail::run_slices(n, slices, [&](std::size_t s, std::size_t begin, std::size_t end) {
    summaries[s] = summarize(group_ids, begin, end);
  });
  std::int64_t lo = summaries[0].lo, hi = summaries[0].hi;
  bool never_decreasing = true;
  for (const IdSummary& s : summaries) {
    lo = std::min(lo, s.lo);
    hi = std::max(hi, s.hi);
    never_decreasing &= s.never_decreasing;
  }
  if (never_decreasing) {
    take_runs(points, group_ids, summaries, out);
    return out;
  }
  const std::uint64_t range = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  // Numbered in order of first appearance from lo: each slice's jumps reach at most one above the
  // ids before it. `seen` is the number of ids lo, lo + 1, ... met so far.
  bool numbered = range < n;
  std::uint64_t seen = 0;
  for (const IdSummary& s : summaries) {
    if (!numbered) break;
    numbered = static_cast<std::uint64_t>(s.needs) - static_cast<std::uint64_t>(lo) <= seen;
    seen = std::max(seen, static_cast<std::uint64_t>(s.hi) - static_cast<std::uint64_t>(lo) + 1);
  }
  if (numbered) {
    out.ids.resize(static_cast<std::size_t>(range) + 1);
    for (std::size_t g = 0; g < out.ids.size(); ++g)
      out.ids[g] = static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + g);
    const auto group_of = [&](std::size_t i) {
      return static_cast<std::size_t>(static_cast<std::uint64_t>(group_ids[i]) -
                                      static_cast<std::uint64_t>(lo));
    };
    sort_by_group(points, out.ids.size(), group_of, slices, with_origin, out);
    return out;
  }
  const auto dense = detail::huge_page_array<std::uint32_t>(n);
  out.ids = number_groups(group_ids, lo, range, dense.get());
  const std::uint32_t* const group = dense.get();
  sort_by_group(
      points, out.ids.size(), [group](std::size_t i) { return std::size_t{group[i]}; }, slices, with_origin,
      out);
  return out;
}

#define WAGENER_INSTANTIATE(T)   \
  template struct PointsById<T>; \
  template PointsById<T> group_by_id(std::span<const Point2<T>>, std::span<const std::int64_t>, bool);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::cpu
