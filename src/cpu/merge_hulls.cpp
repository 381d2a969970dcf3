// The hull of hulls: the one merge that several GPUs, MPI ranks, streamed chunks and grouped hulls
// end with. A polygon in convex_hull()'s convention is two sorted runs (its lower chain ascending,
// its upper chain descending), so the union of k polygons is sorted by merging 2k runs, and one
// monotone chain pass gives the exact hull: O(m log k) for m vertices, no general sort.
#include <algorithm>
#include <span>
#include <vector>

#include "core/parallel_slices.hpp"
#include "cpu/monotone_chain.hpp"
#include "cpu/parallel_chains.hpp"
#include "wagener/hull.hpp"

namespace wagener {
namespace {

// Below this many points per thread, a thread costs more than its share of the chains (the CPU
// backend's own threshold, src/cpu/parallel_hull.cpp).
constexpr std::size_t kMinPointsPerThread = std::size_t{1} << 16;

/// lex_less() as a lambda, so that the algorithms below inline it: passed as a function pointer, it
/// was called out of line, a seventh of a merge's time.
template <class T>
constexpr auto kLexLess = [](const Point2<T>& a, const Point2<T>& b) { return lex_less(a, b); };

/// Appends the points of `polygon` to `out` in lexicographic order, as one or two runs recorded in
/// `runs` (end offsets). A polygon in the full-hull convention splits at its largest vertex into an
/// ascending and a descending run; anything else (any point set) is sorted, so the merge is exact
/// for every input and only its speed depends on the convention.
template <class T>
void append_sorted_runs(std::span<const Point2<T>> polygon, std::vector<Point2<T>>& out,
                        std::vector<std::size_t>& runs) {
  if (polygon.empty()) return;
  const std::size_t n = polygon.size();
  const auto largest = static_cast<std::size_t>(
      std::max_element(polygon.begin(), polygon.end(), kLexLess<T>) - polygon.begin());
  const auto ascending = [](auto first, auto last) { return std::is_sorted(first, last, kLexLess<T>); };
  const bool lower_ascends =
      ascending(polygon.begin(), polygon.begin() + static_cast<std::ptrdiff_t>(largest) + 1);
  const bool upper_descends =
      ascending(polygon.rbegin(), polygon.rend() - static_cast<std::ptrdiff_t>(largest));
  const std::size_t start = out.size();
  if (lower_ascends && upper_descends) {
    out.insert(out.end(), polygon.begin(), polygon.begin() + static_cast<std::ptrdiff_t>(largest) + 1);
    runs.push_back(out.size());
    if (largest + 1 < n) {
      out.insert(out.end(), polygon.rbegin(), polygon.rend() - static_cast<std::ptrdiff_t>(largest) - 1);
      runs.push_back(out.size());
    }
    return;
  }
  out.insert(out.end(), polygon.begin(), polygon.end());
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(start), out.end(), kLexLess<T>);
  runs.push_back(out.size());
}

}  // namespace

template <class T>
std::vector<Point2<T>> merge_hulls(std::span<const std::span<const Point2<T>>> hulls) {
  std::vector<Point2<T>> points;
  std::size_t total = 0;
  for (const auto& h : hulls) total += h.size();
  points.reserve(total);
  std::vector<std::size_t> runs{0};
  for (const auto& h : hulls) append_sorted_runs<T>(h, points, runs);
  // Merge neighbouring runs pairwise until one is left: log(2k) passes over the vertices.
  while (runs.size() > 2) {
    std::vector<std::size_t> merged{0};
    for (std::size_t r = 0; r + 1 < runs.size(); r += 2) {
      const auto first = points.begin() + static_cast<std::ptrdiff_t>(runs[r]);
      if (r + 2 < runs.size()) {
        std::inplace_merge(first, points.begin() + static_cast<std::ptrdiff_t>(runs[r + 1]),
                           points.begin() + static_cast<std::ptrdiff_t>(runs[r + 2]), kLexLess<T>);
        merged.push_back(runs[r + 2]);
      } else {
        merged.push_back(runs[r + 1]);
      }
    }
    runs.swap(merged);
  }
  // Large hull-like merges (every rank's hull a circle) chain on every core, slices merged in place.
  const std::size_t threads =
      detail::slice_count(points.size(), detail::resolve_threads(0), kMinPointsPerThread);
  if (threads >= 2) return cpu::hull_of_sorted_threads<T>(points, threads);
  return cpu::hull_of_sorted<T>(points);
}

template std::vector<Point2<float>> merge_hulls(std::span<const std::span<const Point2<float>>>);
template std::vector<Point2<double>> merge_hulls(std::span<const std::span<const Point2<double>>>);

}  // namespace wagener
