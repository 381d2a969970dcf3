// Properties every hull must have, checked independently of how it was computed.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <vector>

#include "wagener/point.hpp"
#include "wagener/predicates.hpp"

namespace wagener::testing {

/// The full-hull output convention: strictly convex, counter-clockwise, starting at the
/// lexicographically smallest vertex, no duplicates, every input point inside or on it.
template <class T>
::testing::AssertionResult is_convex_hull_of(std::span<const Point2<T>> hull,
                                             std::span<const Point2<T>> pts) {
  if (pts.empty()) {
    return hull.empty() ? ::testing::AssertionSuccess() : ::testing::AssertionFailure() << "non-empty hull";
  }
  if (hull.empty()) return ::testing::AssertionFailure() << "empty hull of non-empty input";
  const auto smallest = *std::min_element(pts.begin(), pts.end(), lex_less<T>);
  if (!(hull[0] == smallest)) return ::testing::AssertionFailure() << "does not start at the smallest point";
  const std::size_t h = hull.size();
  if (h == 2 && same_point(hull[0], hull[1])) return ::testing::AssertionFailure() << "duplicate vertex";
  if (h >= 3) {
    for (std::size_t i = 0; i < h; ++i) {
      if (orient2d(hull[i], hull[(i + 1) % h], hull[(i + 2) % h]) <= 0) {
        return ::testing::AssertionFailure() << "vertex " << (i + 1) % h << " is not a strict left turn";
      }
    }
  }
  for (std::size_t k = 0; k < pts.size(); ++k) {
    const auto& p = pts[k];
    if (h == 1) {
      if (!same_point(p, hull[0])) return ::testing::AssertionFailure() << "point " << k << " outside";
      continue;
    }
    for (std::size_t i = 0; i < h; ++i) {
      if (h == 2 && i == 1) break;
      const int o = orient2d(hull[i], hull[(i + 1) % h], p);
      if (o < 0 || (h == 2 && o != 0)) return ::testing::AssertionFailure() << "point " << k << " outside";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace wagener::testing
