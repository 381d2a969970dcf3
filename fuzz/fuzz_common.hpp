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
#include <type_traits>
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

/// Up to max_points integer points in one of a few shapes, chosen by the data: a small grid scaled
/// by any factor that keeps it in range, a line y = k x + c through the range nudged by a unit, the
/// range's extremes, any values.
template <class T>
std::vector<Point2<T>> fuzz_integer_points(FuzzedDataProvider& data, std::size_t max_points) {
  using L = std::numeric_limits<T>;
  const int shape = data.ConsumeIntegralInRange<int>(0, 3);
  const T step = data.ConsumeIntegralInRange<T>(1, L::max() / 8);
  const T slope = data.ConsumeIntegralInRange<T>(-1000, 1000);
  const auto n = data.ConsumeIntegralInRange<std::size_t>(0, max_points);
  std::vector<Point2<T>> points;
  points.reserve(n);
  while (points.size() < n && data.remaining_bytes() > 0) {
    switch (shape) {
      case 0: {  // a grid of 17 x 17 places, `step` apart: duplicates, collinear runs, equal x
        const auto x = static_cast<T>(data.ConsumeIntegralInRange<int>(-8, 8));
        const auto y = static_cast<T>(data.ConsumeIntegralInRange<int>(-8, 8));
        points.push_back({static_cast<T>(x * step), static_cast<T>(y * step)});
        break;
      }
      case 1: {  // y = slope x, nudged by a unit: orientation at the last bit of large products
        const T x = data.ConsumeIntegralInRange<T>(L::min() / 1024, L::max() / 1024);
        const auto nudge = static_cast<T>(data.ConsumeIntegralInRange<int>(-1, 1));
        points.push_back({x, static_cast<T>(x * slope + nudge)});
        break;
      }
      case 2: {  // the range's ends and their neighbours
        const T values[] = {L::min(), static_cast<T>(L::min() + 1), -1,      0,
                            1,        static_cast<T>(L::max() - 1), L::max()};
        points.push_back(
            {values[data.ConsumeIntegralInRange<int>(0, 6)], values[data.ConsumeIntegralInRange<int>(0, 6)]});
        break;
      }
      default: points.push_back({data.ConsumeIntegral<T>(), data.ConsumeIntegral<T>()});
    }
  }
  return points;
}

/// Up to max_points finite floating-point points in one of a few shapes, chosen by the data.
template <class T>
std::vector<Point2<T>> fuzz_float_points(FuzzedDataProvider& data, std::size_t max_points) {
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

/// Up to max_points finite points of type T in one of a few shapes, chosen by the data.
template <class T>
std::vector<Point2<T>> fuzz_points(FuzzedDataProvider& data, std::size_t max_points) {
  if constexpr (std::is_integral_v<T>) {
    return fuzz_integer_points<T>(data, max_points);
  } else {
    return fuzz_float_points<T>(data, max_points);
  }
}

}  // namespace wagener::fuzz
