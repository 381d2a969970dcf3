// Sorting points lexicographically (x, then y) by distributing them on x into buckets first: the
// hulls of a few thousand survivors near the hull spent most of their time in std::sort, whose every
// comparison of points in random order is a branch mispredicted about half the time (10^7 disk
// points on 2 threads: 3,500 points a thread, 190 us of sort; bench/NOTES.md).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "wagener/predicates.hpp"

namespace wagener::cpu {

/// Sorts points[0, m) into lex_less() order, exactly, for any finite points. A point's bucket is
/// floor((x - min x) * scale), computed in double: rounding is monotone, so a smaller x never lands
/// in a later bucket, and equal x share a bucket; sorting each bucket (by insertion when small)
/// finishes the order. Spread-out points cost three linear passes; points bunched into a few
/// buckets (equal x, say) cost what std::sort costs, plus one pass.
template <class T>
void sort_lexicographic(Point2<T>* points, std::size_t m) {
  // Lambdas, not the function pointer, so that the comparison is inlined into the sorts.
  const auto less = [](const Point2<T>& a, const Point2<T>& b) { return lex_less(a, b); };
  // Below this many points std::sort's few levels cost less than the passes over the buckets.
  constexpr std::size_t kMinPoints = 256;
  // Buckets hold about this many points each on average, and never more than kMaxBuckets in all, so
  // that the counts stay in the L2 cache.
  constexpr std::size_t kPointsPerBucket = 2;
  constexpr std::size_t kMaxBuckets = std::size_t{1} << 16;
  // A bucket of more points than this (a crowd at one x) is sorted by std::sort, not by insertion.
  constexpr std::size_t kMaxInsertion = 16;
  if (m < kMinPoints || m > UINT32_MAX) return std::sort(points, points + m, less);
  double lo = static_cast<double>(points[0].x), hi = lo;
  for (std::size_t i = 1; i < m; ++i) {
    const auto x = static_cast<double>(points[i].x);
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  const std::size_t buckets = std::min(kMaxBuckets, m / kPointsPerBucket);
  const double scale = static_cast<double>(buckets) / (hi - lo);
  // One x for all (range 0), a range too wide for a double (near 1e308) or too narrow for its
  // reciprocal (subnormal): nothing to distribute.
  if (!(hi > lo) || !std::isfinite(hi - lo) || !std::isfinite(scale))
    return std::sort(points, points + m, less);
  const auto bucket_of = [&](const Point2<T>& p) {
    const double at = (static_cast<double>(p.x) - lo) * scale;
    // At most buckets * (1 + a few ulps) by rounding; a NaN (no input may have one) also goes last.
    return at < static_cast<double>(buckets) ? static_cast<std::size_t>(at) : buckets - 1;
  };
  std::vector<std::uint32_t> start(buckets + 1, 0);
  for (std::size_t i = 0; i < m; ++i) ++start[bucket_of(points[i]) + 1];
  for (std::size_t b = 0; b < buckets; ++b) start[b + 1] += start[b];
  std::unique_ptr<Point2<T>[]> spread(new Point2<T>[m]);
  {
    std::vector<std::uint32_t> next(start.begin(), start.end() - 1);
    for (std::size_t i = 0; i < m; ++i) spread[next[bucket_of(points[i])]++] = points[i];
  }
  for (std::size_t b = 0; b < buckets; ++b) {
    Point2<T>* first = spread.get() + start[b];
    Point2<T>* last = spread.get() + start[b + 1];
    if (static_cast<std::size_t>(last - first) > kMaxInsertion) {
      std::sort(first, last, less);
      continue;
    }
    for (Point2<T>* p = first + 1; p < last; ++p) {
      const Point2<T> moving = *p;
      Point2<T>* q = p;
      for (; q > first && less(moving, q[-1]); --q) *q = q[-1];
      *q = moving;
    }
  }
  std::copy(spread.get(), spread.get() + m, points);
}

}  // namespace wagener::cpu
