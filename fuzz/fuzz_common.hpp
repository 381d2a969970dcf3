// What the fuzz targets share: failing loudly on a wrong answer, and point sets built from fuzz bytes
// in the shapes that break hull code (duplicates, collinear runs, equal x, the last ulp, 1e±300).
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "wagener/point.hpp"

namespace wagener::fuzz {

/// A property does not hold: a wrong answer is a finding like a crash, so end the run the way a
/// crash does (libFuzzer saves the input as crash-<sha1>).
[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "property violated: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

inline void require(bool holds, const std::string& what) {
  if (!holds) fail(what);
}

/// Bit-for-bit equality (so -0.0 and 0.0 differ, and the comparison has no tolerance).
template <class T>
bool same_bits(std::span<const Point2<T>> a, std::span<const Point2<T>> b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size_bytes()) == 0);
}

/// Up to max_points finite points in one of a few shapes, chosen by the data.
template <class T>
std::vector<Point2<T>> fuzz_points(FuzzedDataProvider& data, std::size_t max_points) {
  const int shape = data.ConsumeIntegralInRange<int>(0, 3);
  // A power of two scales small integers exactly: the same geometry at 1e-300 or 1e+300.
  const int max_exponent = std::numeric_limits<T>::max_exponent - 8;
  const int exponent = data.ConsumeIntegralInRange<int>(-max_exponent, max_exponent);
  const T scale = std::ldexp(T(1), shape == 1 ? exponent : 0);
  const auto n = data.ConsumeIntegralInRange<std::size_t>(0, max_points);
  std::vector<Point2<T>> points;
  points.reserve(n);
  while (points.size() < n && data.remaining_bytes() > 0) {
    switch (shape) {
      case 0:  // a small grid: duplicates, collinear runs, equal x
      case 1: {
        const auto x = static_cast<T>(data.ConsumeIntegralInRange<int>(-8, 8));
        const auto y = static_cast<T>(data.ConsumeIntegralInRange<int>(-8, 8));
        points.push_back({x * scale, y * scale});
        break;
      }
      case 2: {  // a line y = x / 3 rounded, moved by a few ulps: orientation at the last bit
        const auto x = static_cast<T>(data.ConsumeIntegralInRange<int>(-1000, 1000)) / T(7);
        T y = x / T(3);
        for (int steps = data.ConsumeIntegralInRange<int>(-2, 2); steps != 0; steps += steps > 0 ? -1 : 1)
          y = std::nextafter(y, steps > 0 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest());
        points.push_back({x, y});
        break;
      }
      default: {  // any finite values
        const T x = data.ConsumeFloatingPoint<T>();
        const T y = data.ConsumeFloatingPoint<T>();
        if (std::isfinite(x) && std::isfinite(y)) points.push_back({x, y});
        break;
      }
    }
  }
  return points;
}

}  // namespace wagener::fuzz
