// The benchmark's input families, one formula for the GPU generator (bench_cuda) and the host one
// (bench_full_peers): point i depends on i alone. Host and device cos/sin/log may differ in the last
// ulp, so the two sides' points can differ by an ulp.
#pragma once

#include <cmath>
#include <cstdint>

#include "wagener/config.hpp"
#include "wagener/point.hpp"

namespace bench {

/// splitmix64 of i, top 53 bits as a double in [0, 1).
WAGENER_HD inline double unit_hash(std::uint64_t i) {
  std::uint64_t z = i + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1p-53;
}

inline constexpr const char* kFullFamilies[] = {"square", "disk", "gaussian", "circle"};
inline constexpr int kCircle = 3;
// PBBS's two other random inputs (its convex hull benchmark's "in circle" and "kuzmin"), beyond
// kFullFamilies so that the GPU tables keep their rows; full_family_point(i, kInCircle) and so on.
inline constexpr int kInCircle = 4, kKuzmin = 5;
inline constexpr const char* kAllFamilies[] = {"square", "disk", "gaussian", "circle", "in-circle", "kuzmin"};

/// Point i of an unsorted family: 0 uniform square, 1 disk (area-preserving map), 2 gaussian
/// (Box-Muller), 3 circle (cos, sin of a uniform angle: every point on or next to the hull),
/// 4 in-circle (uniform in the unit disk by rejection from the square, as PBBS draws it), 5 kuzmin
/// (a uniform direction at radius sqrt(1 / (1 - s)^2 - 1), s uniform: a dense core and a heavy tail,
/// PBBS's Kuzmin distribution).
template <class T>
WAGENER_HD wagener::Point2<T> full_family_point(std::uint64_t i, int family) {
  const double u = unit_hash(2 * i), v = unit_hash(2 * i + 1);
  double x = 2 * u - 1, y = 2 * v - 1;
  if (family == kInCircle) {
    // Attempt k of point i draws from its own stream; 64 misses in a row have probability 1e-43.
    for (std::uint64_t k = 1; k < 64 && x * x + y * y > 1; ++k) {
      x = 2 * unit_hash(2 * (i << 6 | k) + (1ull << 62)) - 1;
      y = 2 * unit_hash(2 * (i << 6 | k) + 1 + (1ull << 62)) - 1;
    }
  } else if (family == kKuzmin) {
    const double r = sqrt(1 / ((1 - u) * (1 - u)) - 1), a = 2 * M_PI * v;
    x = r * cos(a);
    y = r * sin(a);
  } else if (family == 1) {
    const double r = sqrt(u), a = 2 * M_PI * v;
    x = r * cos(a);
    y = r * sin(a);
  } else if (family == 2) {
    const double r = sqrt(-2 * log(fmax(u, 1e-300))), a = 2 * M_PI * v;
    x = r * cos(a);
    y = r * sin(a);
  } else if (family == kCircle) {
    x = cos(2 * M_PI * u);
    y = sin(2 * M_PI * u);
  }
  return {static_cast<T>(x), static_cast<T>(y)};
}

/// Point i of n of the presorted parabola (bench_cuda --input parabola): x evenly spaced in (-1, 1)
/// and rounded to T, y = -x^2 computed in T. Every point lies on the parabola's hull before the
/// rounding of y; in float, several x steps round to one float at |x| >= 1/2, and points whose y
/// rounds down drop off the hull.
template <class T>
WAGENER_HD wagener::Point2<T> sorted_parabola_point(std::uint64_t i, std::uint64_t n) {
  const double x = -1.0 + 2.0 * (static_cast<double>(i) + 0.5) / static_cast<double>(n);
  const T xt = static_cast<T>(x);
  return {xt, static_cast<T>(-(xt * xt))};
}

}  // namespace bench
