// Named input families for the tests: random distributions and the degenerate cases that break
// naive hull code.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "wagener/point.hpp"

namespace wagener::testing {

/// A fresh seed per run (printed by the tests on failure); WAGENER_TEST_SEED=N replays run N.
inline std::uint64_t fresh_seed() {
  if (const char* replay = std::getenv("WAGENER_TEST_SEED")) return std::strtoull(replay, nullptr, 10);
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

template <class T>
using Points = std::vector<Point2<T>>;

template <class T>
Points<T> uniform_square(std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Points<T> pts(n);
  for (auto& p : pts) p = {static_cast<T>(u(rng)), static_cast<T>(u(rng))};
  return pts;
}

template <class T>
Points<T> uniform_disk(std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Points<T> pts;
  pts.reserve(n);
  while (pts.size() < n) {
    const double x = u(rng), y = u(rng);
    if (x * x + y * y <= 1.0) pts.push_back({static_cast<T>(x), static_cast<T>(y)});
  }
  return pts;
}

template <class T>
Points<T> gaussian(std::size_t n, std::mt19937_64& rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  Points<T> pts(n);
  for (auto& p : pts) p = {static_cast<T>(g(rng)), static_cast<T>(g(rng))};
  return pts;
}

/// Points on a circle, rounded to T: most are hull vertices, some end up collinear or inside.
template <class T>
Points<T> circle(std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 2 * M_PI);
  Points<T> pts(n);
  for (auto& p : pts) {
    const double a = u(rng);
    p = {static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a))};
  }
  return pts;
}

/// n points of an arc of the unit circle from angle `from`, as dense as 2^28 points over the whole
/// circle, rounded to T and sorted: hoods where the rounding leaves most points vertices, not all.
template <class T>
Points<T> dense_arc(std::size_t n, double from, std::mt19937_64& rng) {
  const double width = static_cast<double>(n) * 2 * M_PI / 0x1p28;
  std::uniform_real_distribution<double> u(from, from + width);
  Points<T> pts(n);
  for (auto& p : pts) {
    const double a = u(rng);
    p = {static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a))};
  }
  std::sort(pts.begin(), pts.end(), lex_less<T>);
  return pts;
}

/// n points (sorted) of V-shaped dents of the given depth side by side, their tops on y = 0. Each
/// V's sides bulge upwards, so that only its lowest point turns left and the peel (core/peel.hpp)
/// opens a dent by a pair of points a round. Small integers: exact in every T.
template <class T>
Points<T> v_dents(std::size_t n, int depth) {
  Points<T> pts(n);
  for (std::size_t k = 0; k < n; ++k) {
    const auto i = static_cast<std::int64_t>(k % (2 * static_cast<std::size_t>(depth)));
    const std::int64_t j = std::min<std::int64_t>(i, 2 * depth - i);
    pts[k] = {static_cast<T>(k), static_cast<T>(-j * (j + 1) / 2)};
  }
  return pts;
}

/// n points (sorted) of a concave chain of straight runs of `run` distinct points, integer
/// coordinates (exact in float while |y| < 2^24), point i repeated copies(i) times: only the runs'
/// ends are vertices; the rest are copies or exactly in line (the guide filter's thinning).
template <class T, class Copies>
Points<T> repeated_straight_runs(std::size_t n, std::size_t run, Copies&& copies) {
  Points<T> pts;
  double y = 0;
  for (std::size_t i = 0; pts.size() < n; ++i) {
    for (std::size_t k = copies(i); k > 0 && pts.size() < n; --k)
      pts.push_back({static_cast<T>(i), static_cast<T>(y)});
    y -= static_cast<double>(i / run);
  }
  return pts;
}

/// y = -x^2 on small integers: every point is exactly on the upper hull.
template <class T>
Points<T> parabola(std::size_t n, std::mt19937_64& rng) {
  Points<T> pts(n);
  const double half = static_cast<double>(n) / 2;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(i) - half;
    pts[i] = {static_cast<T>(x), static_cast<T>(-x * x)};
  }
  std::shuffle(pts.begin(), pts.end(), rng);
  return pts;
}

template <class T>
Points<T> all_identical(std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-10, 10);
  const Point2<T> p{static_cast<T>(u(rng)), static_cast<T>(u(rng))};
  return Points<T>(n, p);
}

template <class T>
Points<T> two_distinct(std::size_t n, std::mt19937_64& rng) {
  Points<T> pts(n, Point2<T>{T(1), T(2)});
  std::uniform_int_distribution<int> coin(0, 1);
  for (auto& p : pts) {
    if (coin(rng)) p = {T(-3), T(5)};
  }
  if (n >= 2) pts[0] = {T(-3), T(5)}, pts[1] = {T(1), T(2)};
  return pts;
}

/// All on one line (with duplicates): the hull is the two end points.
template <class T>
Points<T> collinear(std::size_t n, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> u(-1000, 1000);
  Points<T> pts(n);
  for (auto& p : pts) {
    const int t = u(rng);
    p = {static_cast<T>(3 * t + 1), static_cast<T>(-2 * t + 7)};
  }
  return pts;
}

/// Integer grid points: many collinear triples and equal coordinates.
template <class T>
Points<T> grid(std::size_t n, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> u(0, 7);
  Points<T> pts(n);
  for (auto& p : pts) p = {static_cast<T>(u(rng)), static_cast<T>(u(rng))};
  return pts;
}

/// A few vertical columns of many points each: equal x everywhere.
template <class T>
Points<T> equal_x_columns(std::size_t n, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> col(0, 3);
  std::uniform_real_distribution<double> u(-1, 1);
  Points<T> pts(n);
  for (auto& p : pts) p = {static_cast<T>(col(rng)), static_cast<T>(u(rng))};
  return pts;
}

/// Points on the line y = x/3 rounded, nudged by a few ulps: orientation is decided in the last bits.
template <class T>
Points<T> near_collinear_ulp(std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.5, 2.0);
  std::uniform_int_distribution<int> nudge(-2, 2);
  Points<T> pts(n);
  for (auto& p : pts) {
    const T x = static_cast<T>(u(rng));
    T y = static_cast<T>(x / T(3));
    for (int k = nudge(rng); k != 0; k += (k > 0 ? -1 : 1)) {
      y = std::nextafter(y, k > 0 ? T(10) : T(-10));
    }
    p = {x, y};
  }
  return pts;
}

/// Eight corners, one at a random angle in each octant of the circle of centre (cx, cy) and radius r,
/// counter-clockwise, rounded to T: each the extreme of its direction (x, x + y, y, y - x, ...).
template <class T>
Points<T> octagon_corners(double cx, double cy, double r, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Points<T> corners;
  for (int k = 0; k < 8; ++k) {
    const double angle = (k + 0.2 + 0.6 * u(rng)) * (M_PI / 4);
    corners.push_back({static_cast<T>(cx + r * std::cos(angle)), static_cast<T>(cy + r * std::sin(angle))});
  }
  return corners;
}

/// A filter's worst case: eight corners, one at a random angle in each octant of a circle (random
/// centre in [-1000, 1000]^2, random radius from 2^-10 to 2^9), and the other points at a random
/// rounded fraction along a random edge, moved by up to two ulps in x and y, so that each lies a few
/// ulps to either side of its edge (or on it). Fewer than 8 points: the first corners only.
template <class T>
Points<T> octagon_ulp_edges(std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0), centre(-1000.0, 1000.0);
  std::uniform_int_distribution<int> nudge(-2, 2), edge(0, 7), scale(-10, 9);
  const double cx = centre(rng), cy = centre(rng), r = std::ldexp(1.0, scale(rng));
  const Points<T> corners = octagon_corners<T>(cx, cy, r, rng);
  Points<T> pts(corners.begin(), corners.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(n, 8)));
  while (pts.size() < n) {
    const int e = edge(rng);
    const Point2<T> a = corners[static_cast<std::size_t>(e)],
                    b = corners[static_cast<std::size_t>((e + 1) % 8)];
    const T t = static_cast<T>(u(rng));
    Point2<T> q{a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)};
    for (int k = nudge(rng); k != 0; k += (k > 0 ? -1 : 1))
      q.x = std::nextafter(q.x, k > 0 ? T(INFINITY) : T(-INFINITY));
    for (int k = nudge(rng); k != 0; k += (k > 0 ? -1 : 1))
      q.y = std::nextafter(q.y, k > 0 ? T(INFINITY) : T(-INFINITY));
    pts.push_back(q);
  }
  std::shuffle(pts.begin(), pts.end(), rng);
  return pts;
}

/// Points 1 to 2^max_bits steps (ulps, or units for integers) to either side of the edges of the
/// octagon octagon_corners(centre, -centre, r): a filter's certificate that is loose or wrong keeps
/// points well inside, or certifies points on or outside an edge. Fewer than 8 points: the first
/// corners only.
template <class T>
Points<T> octagon_nudged(std::size_t n, std::mt19937_64& rng, double centre, double r, int max_bits) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> edge(0, 7), bits(0, max_bits), sign(0, 1);
  const Points<T> corners = octagon_corners<T>(centre, -centre, r, rng);
  const auto nudge = [&](T v) {
    const double steps = std::ldexp(1.0, bits(rng)) * (sign(rng) ? 1 : -1);
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(v + static_cast<T>(steps));
    } else {
      const T ulp = std::nextafter(v, T(INFINITY)) - v;
      return static_cast<T>(v + static_cast<T>(steps) * ulp);
    }
  };
  Points<T> pts(corners.begin(), corners.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(n, 8)));
  while (pts.size() < n) {
    const int e = edge(rng);
    const Point2<T> a = corners[static_cast<std::size_t>(e)],
                    b = corners[static_cast<std::size_t>((e + 1) % 8)];
    const double t = u(rng), ax = static_cast<double>(a.x), ay = static_cast<double>(a.y);
    Point2<T> q{static_cast<T>(ax + t * (static_cast<double>(b.x) - ax)),
                static_cast<T>(ay + t * (static_cast<double>(b.y) - ay))};
    if (sign(rng))
      q.x = nudge(q.x);
    else
      q.y = nudge(q.y);
    pts.push_back(q);
  }
  std::shuffle(pts.begin(), pts.end(), rng);
  return pts;
}

/// octagon_nudged far from the origin, 1 to 2^21 steps from the edges.
template <class T>
Points<T> octagon_far_nudged(std::size_t n, std::mt19937_64& rng) {
  const double centre = std::is_integral_v<T> ? 1e8 : (sizeof(T) == 4 ? 3e4 : 1e12);
  const double r = std::is_integral_v<T> ? 1e7 : (sizeof(T) == 4 ? 1e3 : 1e5);
  return octagon_nudged<T>(n, rng, centre, r, 21);
}

/// Uniform disk scaled near the top of T's range (products overflow).
template <class T>
Points<T> huge(std::size_t n, std::mt19937_64& rng) {
  const T scale = std::is_same_v<T, float> ? T(1e37) : T(1e300);
  auto pts = uniform_disk<T>(n, rng);
  for (auto& p : pts) p = {p.x * scale, p.y * scale};
  return pts;
}

/// Uniform disk scaled near the bottom of T's range (products underflow, some subnormal).
template <class T>
Points<T> tiny(std::size_t n, std::mt19937_64& rng) {
  const T scale = std::is_same_v<T, float> ? T(1e-38) : T(1e-300);
  auto pts = uniform_disk<T>(n, rng);
  for (auto& p : pts) p = {p.x * scale, p.y * scale};
  return pts;
}

/// Random points with duplicates of each other: many repeated coordinates.
template <class T>
Points<T> duplicates(std::size_t n, std::mt19937_64& rng) {
  auto base = uniform_disk<T>(std::max<std::size_t>(1, n / 4), rng);
  std::uniform_int_distribution<std::size_t> pick(0, base.size() - 1);
  Points<T> pts(n);
  for (auto& p : pts) p = base[pick(rng)];
  return pts;
}

/// Every multiset of the 3x3 grid {0, 1, 2}^2 with at most two copies of each point, in lexicographic
/// order (3^9 - 1 of them, without the empty one): duplicates, vertical runs and collinear triples in
/// every arrangement. visit(points, code) returns false to stop; code names the multiset (the base-3
/// digits of code are the copies of the points (0, 0), (0, 1), ..., (2, 2)).
template <class T, class Visit>
void for_each_3x3_multiset(Visit&& visit) {
  constexpr int kCells = 9;
  int total = 1;
  for (int c = 0; c < kCells; ++c) total *= 3;
  for (int code = 1; code < total; ++code) {
    Points<T> pts;
    int rest = code;
    for (int c = 0; c < kCells; ++c, rest /= 3) {
      for (int copy = 0; copy < rest % 3; ++copy)
        pts.push_back({static_cast<T>(c / 3), static_cast<T>(c % 3)});
    }
    if (!visit(pts, code)) return;
  }
}

template <class T>
struct Family {
  std::string name;
  std::function<Points<T>(std::size_t, std::mt19937_64&)> make;
};

template <class T>
std::vector<Family<T>> all_families() {
  return {{"uniform_square", uniform_square<T>},
          {"uniform_disk", uniform_disk<T>},
          {"gaussian", gaussian<T>},
          {"circle", circle<T>},
          {"parabola", parabola<T>},
          {"all_identical", all_identical<T>},
          {"two_distinct", two_distinct<T>},
          {"collinear", collinear<T>},
          {"grid", grid<T>},
          {"equal_x_columns", equal_x_columns<T>},
          {"near_collinear_ulp", near_collinear_ulp<T>},
          {"huge", huge<T>},
          {"tiny", tiny<T>},
          {"duplicates", duplicates<T>}};
}

template <class T>
Points<T> sorted_copy(Points<T> pts) {
  std::sort(pts.begin(), pts.end(), lex_less<T>);
  return pts;
}

}  // namespace wagener::testing
