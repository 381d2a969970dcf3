// Point sets compared as the readers, writers and generators promise: bit for bit.
#pragma once

#include <cstring>
#include <vector>

#include "wagener/io.hpp"
#include "wagener/point.hpp"

namespace wagener::point_checks {

/// The points of a set read from a file, as a vector.
template <class T>
std::vector<Point2<T>> to_vector(const PointSet<T>& set) {
  return {set.points().begin(), set.points().end()};
}

/// Bit-exact equality: tells -0.0 from 0.0.
template <class T>
bool same_bits(const std::vector<Point2<T>>& a, const std::vector<Point2<T>>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(Point2<T>)) == 0);
}

}  // namespace wagener::point_checks
