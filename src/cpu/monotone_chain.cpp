#include "cpu/monotone_chain.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "core/chains.hpp"
#include "core/parallel_slices.hpp"
#include "core/point_checks.hpp"
#include "wagener/predicates.hpp"

namespace wagener::cpu {
namespace {

// Keeps strict turns of one sign: upper chains keep right turns (orient < 0), lower chains left.
template <class T, int kKeepSign>
std::vector<Point2<T>> monotone_chain(std::span<const Point2<T>> sorted) {
  std::vector<Point2<T>> chain;
  // At most every point is kept; reserving up front avoids the copies and the page faults of fresh
  // memory that doubling growth pays on hull-like inputs (only the pages written are touched).
  chain.reserve(sorted.size());
  for (const auto& p : sorted) {
    if (!chain.empty() && same_point(chain.back(), p)) continue;
    while (chain.size() >= 2 && orient2d(chain[chain.size() - 2], chain.back(), p) * kKeepSign <= 0) {
      chain.pop_back();
    }
    chain.push_back(p);
  }
  return chain;
}

}  // namespace

template <class T>
std::vector<Point2<T>> upper_chain(std::span<const Point2<T>> sorted) {
  return monotone_chain<T, -1>(sorted);
}

template <class T>
std::vector<Point2<T>> lower_chain(std::span<const Point2<T>> sorted) {
  return monotone_chain<T, +1>(sorted);
}

template <class T>
void chains_of_sorted(std::span<const Point2<T>> sorted, std::vector<Point2<T>>& lower,
                      std::vector<Point2<T>>& upper) {
  if (sorted.size() < 3) {
    lower = lower_chain(sorted);
    upper = upper_chain(sorted);
    return;
  }
  // Every lower-chain vertex lies on or below the line from the smallest point to the largest, every
  // upper-chain vertex on or above it, so each chain walks only its own side (exact for any points).
  // Over all the points each chain pushed and popped again every point of the other side, at about
  // one mispredicted branch a point: merging sixteen hulls of ~280 vertices (merge_hulls) took 129
  // us, 69 with the split. The sides are filled without a branch: along x they alternate.
  const Point2<T> smallest = sorted.front(), largest = sorted.back();
  std::unique_ptr<Point2<T>[]> below(new Point2<T>[sorted.size()]), above(new Point2<T>[sorted.size()]);
  std::size_t n_below = 0, n_above = 0;
  for (const Point2<T>& p : sorted) {
    const int side = orient2d(smallest, largest, p);
    below[n_below] = p;
    above[n_above] = p;
    n_below += side <= 0;
    n_above += side >= 0;
  }
  lower = lower_chain(std::span<const Point2<T>>(below.get(), n_below));
  upper = upper_chain(std::span<const Point2<T>>(above.get(), n_above));
}

template <class T>
std::vector<Point2<T>> hull_of_sorted(std::span<const Point2<T>> sorted) {
  std::vector<Point2<T>> lower, upper;
  chains_of_sorted(sorted, lower, upper);
  return core::join_chains<T>(lower, upper);
}

template <class T>
std::vector<Point2<T>> convex_hull_serial(std::span<const Point2<T>> points) {
  std::vector<Point2<T>> sorted(points.begin(), points.end());
  std::sort(sorted.begin(), sorted.end(), lex_less<T>);
  return hull_of_sorted<T>(sorted);
}

template <class T>
std::int64_t first_non_finite(std::span<const Point2<T>> points) {
  if constexpr (std::is_integral_v<T>) return -1;  // integers are always finite
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!is_finite(points[i])) return static_cast<std::int64_t>(i);
  }
  return -1;
}

template <class T>
std::int64_t first_unsorted(std::span<const Point2<T>> points) {
  for (std::size_t i = 1; i < points.size(); ++i) {
    if (lex_less(points[i], points[i - 1])) return static_cast<std::int64_t>(i);
  }
  return -1;
}

namespace {

// Blocks scanned by core/point_checks.hpp; only a flagged block is scanned again, point by point.
constexpr std::size_t kCheckBlock = 1024;
// Below this many points a slice, a thread costs more than it saves.
constexpr std::size_t kMinCheckSlice = std::size_t{1} << 16;

}  // namespace

template <class T>
bool check_presorted_range(std::span<const Point2<T>> points, std::size_t begin, std::size_t end,
                           PresortedCheck& found) {
  if (found.non_finite >= 0) return false;
  bool clean = true;
  for (std::size_t block = begin; block < end; block += kCheckBlock) {
    const std::size_t stop = std::min(end, block + kCheckBlock);
    const std::size_t from = std::max<std::size_t>(block, 1);
    const bool flagged = core::any_non_finite_point(points.data(), block, stop) ||
                         (found.unsorted < 0 && core::any_out_of_order(points.data(), from, stop));
    if (!flagged) [[likely]]
      continue;
    for (std::size_t i = block; i < stop; ++i) {
      if (!is_finite(points[i])) {
        found.non_finite = static_cast<std::int64_t>(i);
        return false;  // nothing after it matters
      }
      if (found.unsorted < 0 && i >= from && lex_less(points[i], points[i - 1])) {
        found.unsorted = static_cast<std::int64_t>(i);
        clean = false;
      }
    }
  }
  return clean;
}

PresortedCheck first_presorted_problem(std::span<const PresortedCheck> found) {
  // The first non-finite point wherever it is, else the first out of order: what a serial scan for
  // each in turn finds.
  PresortedCheck all;
  for (const PresortedCheck& f : found) {
    if (all.non_finite < 0 && f.non_finite >= 0) all.non_finite = f.non_finite;
    if (all.unsorted < 0 && f.unsorted >= 0) all.unsorted = f.unsorted;
  }
  return all;
}

template <class T>
PresortedCheck check_presorted(std::span<const Point2<T>> points) {
  const std::size_t n = points.size();
  const std::size_t slices = detail::slice_count(n, detail::hardware_threads(), kMinCheckSlice);
  std::vector<PresortedCheck> found(slices);
  detail::run_slices(n, slices, [&](std::size_t s, std::size_t begin, std::size_t end) {
    check_presorted_range(points, begin, end, found[s]);
  });
  return first_presorted_problem(found);
}

#define WAGENER_INSTANTIATE(T)                                                        \
  template std::vector<Point2<T>> upper_chain(std::span<const Point2<T>>);            \
  template std::vector<Point2<T>> lower_chain(std::span<const Point2<T>>);            \
  template std::vector<Point2<T>> hull_of_sorted(std::span<const Point2<T>>);         \
  template void chains_of_sorted(std::span<const Point2<T>>, std::vector<Point2<T>>&, \
                                 std::vector<Point2<T>>&);                            \
  template std::vector<Point2<T>> convex_hull_serial(std::span<const Point2<T>>);     \
  template std::int64_t first_non_finite(std::span<const Point2<T>>);                 \
  template std::int64_t first_unsorted(std::span<const Point2<T>>);                   \
  template PresortedCheck check_presorted(std::span<const Point2<T>>);                \
  template bool check_presorted_range(std::span<const Point2<T>>, std::size_t, std::size_t, PresortedCheck&);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::cpu
