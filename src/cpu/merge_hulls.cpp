// The hull of hulls: the one merge that the CPU backend's slices, several GPUs, MPI ranks and
// streamed chunks end with. A polygon in convex_hull()'s convention is two sorted runs (its lower
// chain ascending, its upper chain descending). The merge cuts the lexicographic order into slabs
// at a sample of the vertices; each slab's parts of every run are merged and chained on a thread of
// its own, and the slabs' chains, concatenated in order, are chained once more. Exact for any point
// sets: a vertex of the hull of the union is a vertex of its slab's chains, and the concatenation is
// sorted. Polygons trusted to be convex give each chain only the runs that can hold its vertices.
#include "cpu/merge_hulls.hpp"

#include <algorithm>
#include <iterator>
#include <span>
#include <vector>

#include "core/chains.hpp"
#include "core/parallel_slices.hpp"
#include "cpu/monotone_chain.hpp"
#include "wagener/hull.hpp"
#include "wagener/predicates.hpp"

namespace wagener::cpu {
namespace {

// A slab of fewer vertices than this costs more to hand to a thread than to merge with the others.
// Sixteen hulls of ~290 vertices (the backend's join at 10^7 points on 16 threads) merged serially
// in 0.27-0.29 ms inside the hull call, four times their merge on warm caches: the join follows the
// pass's stream through the whole input, and a serial merge pays the cold caches alone.
constexpr std::size_t kMinVerticesPerSlab = 256;
// The slabs' cuts are taken from about this many sampled vertices a slab.
constexpr std::size_t kSamplesPerSlab = 16;

/// lex_less() as a lambda, so that the algorithms below inline it: passed as a function pointer, it
/// was called out of line, a seventh of a merge's time.
template <class T>
constexpr auto kLexLess = [](const Point2<T>& a, const Point2<T>& b) { return lex_less(a, b); };

/// A lexicographically sorted run of a polygon's vertices, ascending or descending in memory.
/// `side`: which chain of the merge it may hold vertices of (both, unless its polygon is trusted to be
/// convex).
enum class Side { both, lower, upper };
template <class T>
struct Run {
  const Point2<T>* first = nullptr;
  std::size_t size = 0;
  bool descending = false;
  Side side = Side::both;
};

/// The runs of `polygon`, appended to `runs`: its lower chain (vertex 0 to the largest) and the
/// rest, descending. `in_convention` trusts the polygon to be so (the largest found by a binary
/// search); otherwise it is checked, and a point set that is not so is sorted into `copies`.
template <class T>
void append_runs(std::span<const Point2<T>> polygon, bool in_convention, std::vector<Run<T>>& runs,
                 std::vector<std::vector<Point2<T>>>& copies) {
  const std::size_t n = polygon.size();
  if (n == 0) return;
  std::size_t largest = 0;
  bool runs_hold = true;
  if (in_convention) {
    // Ascending up to the largest vertex, descending after it.
    const auto first = polygon.begin();
    largest = static_cast<std::size_t>(
        std::partition_point(first, first + static_cast<std::ptrdiff_t>(n - 1),
                             [&](const Point2<T>& p) { return lex_less(p, *(&p + 1)); }) -
        first);
  } else {
    largest = static_cast<std::size_t>(std::max_element(polygon.begin(), polygon.end(), kLexLess<T>) -
                                       polygon.begin());
    const auto ascending = [](auto from, auto to) { return std::is_sorted(from, to, kLexLess<T>); };
    runs_hold = ascending(polygon.begin(), polygon.begin() + static_cast<std::ptrdiff_t>(largest) + 1) &&
                ascending(polygon.rbegin(), polygon.rend() - static_cast<std::ptrdiff_t>(largest));
  }
  if (runs_hold && in_convention) {
    // A convex polygon's lower chain holds every vertex it can give the lower chain of the union,
    // its upper chain (the rest, with both ends) every one for the upper: each chain of the merge
    // walks only its own runs, with no split of the points by a line (a turn test a point).
    runs.push_back({polygon.data(), largest + 1, false, Side::lower});
    if (largest + 1 < n) runs.push_back({polygon.data() + largest + 1, n - largest - 1, true, Side::upper});
    runs.push_back({polygon.data() + largest, 1, false, Side::upper});
    runs.push_back({polygon.data(), 1, false, Side::upper});
    return;
  }
  if (runs_hold) {
    runs.push_back({polygon.data(), largest + 1, false});
    if (largest + 1 < n) runs.push_back({polygon.data() + largest + 1, n - largest - 1, true});
    return;
  }
  copies.emplace_back(polygon.begin(), polygon.end());
  std::sort(copies.back().begin(), copies.back().end(), kLexLess<T>);
  runs.push_back({copies.back().data(), n, false});
}

/// The points of `run` in [*lo, *hi) (no bound where null), ascending, appended to `out`.
template <class T>
void append_slab_part(const Run<T>& run, const Point2<T>* lo, const Point2<T>* hi,
                      std::vector<Point2<T>>& out) {
  const auto part = [&](auto first, auto last) {
    if (lo != nullptr) first = std::lower_bound(first, last, *lo, kLexLess<T>);
    if (hi != nullptr) last = std::lower_bound(first, last, *hi, kLexLess<T>);
    out.insert(out.end(), first, last);
  };
  if (run.descending) {
    part(std::make_reverse_iterator(run.first + run.size), std::make_reverse_iterator(run.first));
  } else {
    part(run.first, run.first + run.size);
  }
}

/// Sorts `points`, whose sorted runs end at `ends` (after a leading 0), by merging neighbouring
/// runs pairwise: log(runs) passes.
template <class T>
void merge_runs(std::vector<Point2<T>>& points, std::vector<std::size_t>& ends) {
  while (ends.size() > 2) {
    std::vector<std::size_t> merged{0};
    for (std::size_t r = 0; r + 1 < ends.size(); r += 2) {
      const auto first = points.begin() + static_cast<std::ptrdiff_t>(ends[r]);
      if (r + 2 < ends.size()) {
        std::inplace_merge(first, points.begin() + static_cast<std::ptrdiff_t>(ends[r + 1]),
                           points.begin() + static_cast<std::ptrdiff_t>(ends[r + 2]), kLexLess<T>);
        merged.push_back(ends[r + 2]);
      } else {
        merged.push_back(ends[r + 1]);
      }
    }
    ends.swap(merged);
  }
}

/// Appends a slab's chain (strict turns of sign kKeepSign) to the chain `out` of the slabs before
/// it, as the monotone chain would push each point. Once two of its points stand last in `out`,
/// its remaining turns are the chain's own, strict, and nothing more can be popped: the rest is
/// copied.
template <class T, int kKeepSign>
void append_chain(std::vector<Point2<T>>& out, std::span<const Point2<T>> chain) {
  std::size_t j = 0;
  while (j < chain.size()) {
    const Point2<T>& p = chain[j];
    while (out.size() >= 2 && orient2d(out[out.size() - 2], out.back(), p) * kKeepSign <= 0) out.pop_back();
    out.push_back(p);
    ++j;
    if (j >= 2 && out.size() >= 2 && same_point(out[out.size() - 2], chain[j - 2])) break;
  }
  out.insert(out.end(), chain.begin() + static_cast<std::ptrdiff_t>(j), chain.end());
}

}  // namespace

template <class T>
std::vector<Point2<T>> merge_hulls_in_slabs(std::span<const std::span<const Point2<T>>> hulls,
                                            std::size_t slabs, bool in_convention) {
  std::vector<Run<T>> runs;
  std::vector<std::vector<Point2<T>>> copies;
  copies.reserve(hulls.size());  // the runs point into the copies: no reallocation
  std::size_t total = 0;
  for (const auto& polygon : hulls) {
    append_runs<T>(polygon, in_convention, runs, copies);
    total += polygon.size();
  }
  if (total == 0) return {};
  if (slabs == 0) slabs = detail::slice_count(total, detail::hardware_threads(), kMinVerticesPerSlab);
  slabs = std::clamp<std::size_t>(slabs, 1, total);

  // The cuts: slab s holds the points in [cuts[s - 1], cuts[s]). Equal cuts leave a slab empty.
  std::vector<Point2<T>> cuts;
  if (slabs > 1) {
    std::vector<Point2<T>> sample;
    const std::size_t step = std::max<std::size_t>(1, total / (kSamplesPerSlab * slabs));
    std::size_t skip = 0;
    for (const Run<T>& run : runs) {
      for (; skip < run.size; skip += step) sample.push_back(run.first[skip]);
      skip -= run.size;
    }
    std::sort(sample.begin(), sample.end(), kLexLess<T>);
    for (std::size_t s = 1; s < slabs; ++s) cuts.push_back(sample[s * sample.size() / slabs]);
  }

  std::vector<std::vector<Point2<T>>> lowers(slabs), uppers(slabs);
  detail::run_slices_or_here(slabs, slabs, [&](std::size_t s, std::size_t, std::size_t) {
    const Point2<T>* lo = s > 0 ? &cuts[s - 1] : nullptr;
    const Point2<T>* hi = s + 1 < slabs ? &cuts[s] : nullptr;
    // The slab's parts of the runs of one side (both: all of them), merged into one sorted array.
    const auto slab_points = [&](Side side) {
      std::vector<Point2<T>> points;
      std::vector<std::size_t> ends{0};
      for (const Run<T>& run : runs) {
        if (run.side != side) continue;
        append_slab_part(run, lo, hi, points);
        if (points.size() > ends.back()) ends.push_back(points.size());
      }
      merge_runs(points, ends);
      return points;
    };
    if (in_convention) {
      lowers[s] = lower_chain<T>(slab_points(Side::lower));
      uppers[s] = upper_chain<T>(slab_points(Side::upper));
    } else {
      chains_of_sorted<T>(slab_points(Side::both), lowers[s], uppers[s]);
    }
  });

  std::vector<Point2<T>> lower, upper;
  std::size_t lower_size = 0, upper_size = 0;
  for (std::size_t s = 0; s < slabs; ++s) lower_size += lowers[s].size(), upper_size += uppers[s].size();
  lower.reserve(lower_size);
  upper.reserve(upper_size);
  for (std::size_t s = 0; s < slabs; ++s) {
    append_chain<T, +1>(lower, lowers[s]);
    append_chain<T, -1>(upper, uppers[s]);
  }
  return core::join_chains<T>(lower, upper);
}

#define WAGENER_INSTANTIATE(T)                                                                      \
  template std::vector<Point2<T>> merge_hulls_in_slabs(std::span<const std::span<const Point2<T>>>, \
                                                       std::size_t, bool);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::cpu

namespace wagener {

template <class T>
std::vector<Point2<T>> merge_hulls(std::span<const std::span<const Point2<T>>> hulls) {
  return cpu::merge_hulls_in_slabs<T>(hulls, 0, false);
}

template std::vector<Point2<float>> merge_hulls(std::span<const std::span<const Point2<float>>>);
template std::vector<Point2<double>> merge_hulls(std::span<const std::span<const Point2<double>>>);
template std::vector<Point2<std::int32_t>> merge_hulls(
    std::span<const std::span<const Point2<std::int32_t>>>);
template std::vector<Point2<std::int64_t>> merge_hulls(
    std::span<const std::span<const Point2<std::int64_t>>>);

}  // namespace wagener
