// An exact reference for integer points, independent of the library's predicate (the orientation of
// 64-bit points in 128-bit pieces, and Andrew's monotone chain over it), and the integer families.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "generators.hpp"
#include "wagener/point.hpp"

namespace wagener::testing {

__extension__ typedef __int128 Int128;

/// The sign of (b - a) x (c - a) for any 64-bit coordinates. The differences (65 bits) are exact in
/// 128 bits; each is split as d = q 2^32 + r (0 <= r < 2^32), so that every partial product fits, and
/// the determinant is carried as H 2^64 + L with 0 <= L < 2^64.
inline int reference_orientation(std::int64_t ax, std::int64_t ay, std::int64_t bx, std::int64_t by,
                                 std::int64_t cx, std::int64_t cy) {
  const Int128 d[4] = {Int128{bx} - ax, Int128{cy} - ay, Int128{by} - ay, Int128{cx} - ax};
  Int128 q[4], r[4];
  for (int i = 0; i < 4; ++i) {
    r[i] = d[i] & 0xffffffff;  // two's complement: d = q 2^32 + r with r in [0, 2^32)
    q[i] = (d[i] - r[i]) / (Int128{1} << 32);
  }
  // d0 d1 - d2 d3 = A 2^64 + B 2^32 + C.
  const Int128 a = q[0] * q[1] - q[2] * q[3];
  const Int128 b = q[0] * r[1] + r[0] * q[1] - q[2] * r[3] - r[2] * q[3];
  const Int128 c = r[0] * r[1] - r[2] * r[3];
  const Int128 b_low = b & 0xffffffff, b_high = (b - b_low) / (Int128{1} << 32);
  const Int128 low = b_low * (Int128{1} << 32) + c;  // |low| < 2^65
  const Int128 low_low = low & ((Int128{1} << 64) - 1), low_high = (low - low_low) / (Int128{1} << 64);
  const Int128 high = a + b_high + low_high;
  if (high != 0) return high > 0 ? 1 : -1;
  return low_low != 0 ? 1 : 0;
}

template <class T>
int reference_orientation(const Point2<T>& a, const Point2<T>& b, const Point2<T>& c) {
  return reference_orientation(a.x, a.y, b.x, b.y, c.x, c.y);
}

/// The full hull (strict vertices, counter-clockwise from the lexicographically smallest) or the upper
/// chain (smallest to largest, over the top) by Andrew's monotone chain on reference_orientation.
template <class T>
std::vector<Point2<T>> reference_hull(std::vector<Point2<T>> pts, bool upper_only = false) {
  std::sort(pts.begin(), pts.end(), lex_less<T>);
  pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
  if (pts.size() <= 1) return pts;
  const auto chain = [&](int keep, bool backward) {
    std::vector<Point2<T>> out;
    for (std::size_t s = 0; s < pts.size(); ++s) {
      const Point2<T>& p = pts[backward ? pts.size() - 1 - s : s];
      while (out.size() >= 2 && reference_orientation(out[out.size() - 2], out.back(), p) * keep <= 0)
        out.pop_back();
      out.push_back(p);
    }
    return out;
  };
  if (upper_only) return chain(-1, false);
  std::vector<Point2<T>> lower = chain(1, false), upper = chain(1, true);
  if (lower.size() == 2 && upper.size() == 2) return lower;  // collinear
  lower.insert(lower.end(), upper.begin() + 1, upper.end() - 1);
  return lower;
}

/// For each vertex, the smallest index of an equal point.
template <class T>
std::vector<std::int64_t> reference_indices(const std::vector<Point2<T>>& pts,
                                            const std::vector<Point2<T>>& hull) {
  std::vector<std::int64_t> out;
  for (const auto& v : hull) {
    out.push_back(std::find(pts.begin(), pts.end(), v) - pts.begin());
  }
  return out;
}

/// Uniform over the whole range of T.
template <class T>
std::vector<Point2<T>> whole_range(std::size_t n, std::mt19937_64& rng) {
  std::uniform_int_distribution<T> u(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  std::vector<Point2<T>> pts(n);
  for (auto& p : pts) p = {u(rng), u(rng)};
  return pts;
}

/// A disk of radius r around (cx, cy), rounded to integers.
template <class T>
std::vector<Point2<T>> integer_disk(std::size_t n, double r, double cx, double cy, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Point2<T>> pts;
  pts.reserve(n);
  while (pts.size() < n) {
    const double x = u(rng), y = u(rng);
    if (x * x + y * y <= 1) pts.push_back({static_cast<T>(cx + r * x), static_cast<T>(cy + r * y)});
  }
  return pts;
}

/// Points on a small grid (collinear runs, duplicates) scaled by `step` and shifted by `origin`.
template <class T>
std::vector<Point2<T>> grid(std::size_t n, int side, T step, T origin, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> u(0, side);
  std::vector<Point2<T>> pts(n);
  for (auto& p : pts) {
    p = {static_cast<T>(origin + static_cast<T>(u(rng)) * step),
         static_cast<T>(origin + static_cast<T>(u(rng)) * step)};
  }
  return pts;
}

/// Points on the line y = slope x + offset for |x| <= span (|slope span| + |offset| must stay below
/// 2^63), each nudged off it by one unit in y or in x, or not at all: near-collinear triples whose
/// determinants are tiny beside their products (2^124 at the 2^62 scale).
inline std::vector<Point2<std::int64_t>> nudged_line(std::size_t n, std::int64_t slope, std::int64_t offset,
                                                     std::int64_t span, std::mt19937_64& rng) {
  std::uniform_int_distribution<std::int64_t> x(-span, span);
  std::uniform_int_distribution<int> nudge(-1, 1), axis(0, 3);
  std::vector<Point2<std::int64_t>> pts(n);
  for (auto& p : pts) {
    const std::int64_t px = x(rng);
    p = {px, px * slope + offset};
    if (axis(rng) == 0) {
      p.x += nudge(rng);
    } else {
      p.y += nudge(rng);
    }
  }
  return pts;
}

template <class T>
struct IntegerFamily {
  std::string name;
  std::function<std::vector<Point2<T>>(std::size_t, std::mt19937_64&)> make;
};

/// The integer families: the whole range, disks at several scales (all exact in double, all beyond
/// it, and a mix), grids with collinear runs and duplicates, the extremes of the range, and (int64)
/// nudged lines at the 2^62 scale.
template <class T>
std::vector<IntegerFamily<T>> integer_families() {
  using L = std::numeric_limits<T>;
  std::vector<IntegerFamily<T>> families = {
      {"whole_range", whole_range<T>},
      {"disk_2^20",
       [](std::size_t n, std::mt19937_64& rng) { return integer_disk<T>(n, 1 << 20, 7, -3, rng); }},
      {"disk_full",
       [](std::size_t n, std::mt19937_64& rng) {
         return integer_disk<T>(n, static_cast<double>(L::max()) * 0.999, 0, 0, rng);
       }},
      {"grid_collinear_runs",
       [](std::size_t n, std::mt19937_64& rng) {
         return grid<T>(n, 12, static_cast<T>(L::max() / 16), static_cast<T>(L::min() / 4 * 3), rng);
       }},
      {"small_grid", [](std::size_t n, std::mt19937_64& rng) { return grid<T>(n, 3, 1, 0, rng); }},
      {"extremes",
       [](std::size_t n, std::mt19937_64& rng) {
         // The range's corners and edges, and points a unit inside them.
         const T lo = L::min(), hi = L::max();
         const T values[] = {lo, static_cast<T>(lo + 1), static_cast<T>(-1), 0, 1, static_cast<T>(hi - 1),
                             hi};
         std::uniform_int_distribution<std::size_t> pick(0, std::size(values) - 1);
         std::vector<Point2<T>> pts(n);
         for (auto& p : pts) p = {values[pick(rng)], values[pick(rng)]};
         return pts;
       }},
  };
  if constexpr (sizeof(T) == 8) {
    families.push_back({"disk_2^60", [](std::size_t n, std::mt19937_64& rng) {
                          return integer_disk<T>(n, 0x1p60, 0x1p61, -0x1p60, rng);
                        }});
    // Most points exact in double, a few far beyond 2^53: the filters' samples and survivors must
    // take the exact ones only.
    families.push_back(
        {"disk_2^40_with_far_points", [](std::size_t n, std::mt19937_64& rng) {
           auto pts = integer_disk<T>(n, 0x1p40, 0, 0, rng);
           std::uniform_int_distribution<std::size_t> at(0, n ? n - 1 : 0);
           const T far = (T{1} << 53) + 1;
           const Point2<T> outliers[] = {{far, 3}, {-far, 5}, {7, far}, {far + 2, far}, {-far, -far}};
           for (std::size_t k = 0; k < std::size(outliers) && k < n; ++k) pts[at(rng)] = outliers[k];
           return pts;
         }});
    families.push_back({"nudged_line_2^62", [](std::size_t n, std::mt19937_64& rng) {
                          return nudged_line(n, 3, std::int64_t{1} << 60, std::int64_t{1} << 60, rng);
                        }});
    families.push_back({"steep_nudged_line", [](std::size_t n, std::mt19937_64& rng) {
                          return nudged_line(n, std::int64_t{1} << 40, 0, std::int64_t{1} << 21, rng);
                        }});
  }
  return families;
}

/// 64-bit families beyond double's 2^53, for the filters that take differences to a corner (the
/// octagons, the extreme polygon): octagons nudged by units at 2^60 with sides of 2^41 (differences
/// double holds) and of 2^59 (differences it rounds), each with points to both sides of the tests'
/// bounds; and an octagon 128 units across and a disk 600 across, built near the origin and moved to
/// 2^60 in 64 bits (a generator's doubles would round them: double's ulp there, 256, is wider than
/// their steps).
inline std::vector<IntegerFamily<std::int64_t>> far_int64_families() {
  using T = std::int64_t;
  const auto moved = [](std::vector<Point2<T>> pts) {
    for (auto& p : pts) p.x += T{1} << 60, p.y -= (T{1} << 60) - 12345;
    return pts;
  };
  return {
      {"octagon_nudged_2^60",
       [](std::size_t n, std::mt19937_64& rng) { return octagon_nudged<T>(n, rng, 0x1p60, 0x1p40, 24); }},
      {"octagon_nudged_2^60_wide",
       [](std::size_t n, std::mt19937_64& rng) { return octagon_nudged<T>(n, rng, 0x1p60, 0x1p58, 44); }},
      {"octagon_nudged_64_at_2^60",
       [moved](std::size_t n, std::mt19937_64& rng) { return moved(octagon_nudged<T>(n, rng, 0, 64, 5)); }},
      {"disk_300_at_2^60",
       [moved](std::size_t n, std::mt19937_64& rng) { return moved(integer_disk<T>(n, 300, 0, 0, rng)); }},
  };
}

/// The families of a coordinate type: integer_families for an integer one, all_families otherwise.
template <class T>
auto families_of() {
  if constexpr (std::is_integral_v<T>) {
    return integer_families<T>();
  } else {
    return all_families<T>();
  }
}

}  // namespace wagener::testing
