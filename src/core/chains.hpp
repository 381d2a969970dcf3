// Building a full hull from chains, and the lower chain from the upper-hull machinery.
#pragma once

#include <algorithm>
#include <span>
#include <type_traits>
#include <vector>

#include "core/huge_pages.hpp"
#include "wagener/config.hpp"
#include "wagener/point.hpp"

namespace wagener::core {

/// The point reflected through a centre (a half-turn): maps lower chains to upper chains, keeps
/// every orientation and reverses the lexicographic order. Floating point negates (exact); integers
/// take the complement, -1 - v, a half-turn about (-1/2, -1/2) that every value survives (the
/// negation of the most negative integer overflows). An involution either way.
template <class T>
WAGENER_HD Point2<T> reflected(const Point2<T>& p) {
  if constexpr (std::is_integral_v<T>) {
    return {static_cast<T>(~p.x), static_cast<T>(~p.y)};
  } else {
    return {-p.x, -p.y};
  }
}

/// Turns the upper chain of the reflected, reversed points back into the lower chain of the points.
template <class T>
void unreflect_chain(std::vector<Point2<T>>& chain) {
  std::reverse(chain.begin(), chain.end());
  for (auto& p : chain) p = reflected(p);
}

/// Lower chain (lexicographically smallest to largest, under the bottom) of sorted points, computed
/// by any upper-hull routine `upper` applied to the reflected, reversed input.
template <class T, class UpperHull>
std::vector<Point2<T>> lower_chain_by_reflection(std::span<const Point2<T>> sorted, UpperHull&& upper) {
  std::vector<Point2<T>> mirrored(sorted.size());
  std::transform(sorted.rbegin(), sorted.rend(), mirrored.begin(), reflected<T>);
  std::vector<Point2<T>> chain = upper(std::span<const Point2<T>>(mirrored));
  unreflect_chain(chain);
  return chain;
}

/// Joins the lower chain and the upper chain (both from the smallest to the largest point) into the
/// counter-clockwise hull starting at the smallest point.
template <class T>
std::vector<Point2<T>> join_chains(std::span<const Point2<T>> lower, std::span<const Point2<T>> upper) {
  const std::size_t inner_upper = upper.size() > 2 ? upper.size() - 2 : 0;
  std::vector<Point2<T>> hull;
  hull.reserve(lower.size() + inner_upper);
  // A hull of every point (a circle) is as large as its input: in huge pages it costs few faults.
  detail::want_huge_pages(hull);
  hull.insert(hull.end(), lower.begin(), lower.end());
  if (inner_upper > 0) hull.insert(hull.end(), upper.rbegin() + 1, upper.rend() - 1);
  return hull;
}

/// Where join_chains puts a chain's point, for a join that scatters each chain's points to their
/// places (the GPU's join from the tiles where the in-place rounds left its chains): point j of the
/// lower chain as the upper-hull machinery returns it (the upper chain of the reflected, reversed
/// points, l of them), reflected back, goes to l - 1 - j; point j of the upper chain (u points) to
/// l + u - 2 - j, where upper_point_joins(j, u).
WAGENER_HD inline index_t joined_place(bool lower, index_t j, index_t l, index_t u) {
  return lower ? l - 1 - j : l + u - 2 - j;
}

/// Whether the upper chain's point j (of u) is in the joined hull: all but its two ends, which the
/// lower chain holds.
WAGENER_HD inline bool upper_point_joins(index_t j, index_t u) {
  return j >= 1 && j + 2 <= u;
}

}  // namespace wagener::core
