// The multi-core full hull: an Akl-Toussaint interior filter over all cores, then chains.
#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <thread>
#include <vector>

#include "cpu/monotone_chain.hpp"
#include "wagener/error.hpp"
#include "wagener/predicates.hpp"

namespace wagener::cpu {
namespace {

// Below this many points per thread, starting a thread costs more than it saves.
constexpr std::size_t kMinPointsPerThread = 1 << 16;

std::size_t thread_count(std::size_t n) {
  const std::size_t hw = std::max(1u, std::thread::hardware_concurrency());
  return std::clamp<std::size_t>(n / kMinPointsPerThread, 1, hw);
}

/// Runs body(t, begin, end) on `threads` contiguous slices of [0, n).
template <class Body>
void parallel_slices(std::size_t n, std::size_t threads, Body&& body) {
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) {
    pool.emplace_back([&, t] { body(t, n * t / threads, n * (t + 1) / threads); });
  }
  body(std::size_t{0}, std::size_t{0}, n / threads);
  for (auto& th : pool) th.join();
}

// Extreme points in eight directions (the octagon of Akl and Toussaint) and the bounding box.
template <class T>
struct Extremes {
  static constexpr int kDirections = 8;
  std::array<Point2<T>, kDirections> point{};
  std::array<double, kDirections> score{};
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  std::int64_t non_finite = -1;

  // Directions (cos, sin) up to scale, counter-clockwise from -x: the octagon's vertex order.
  static constexpr double kDir[kDirections][2] = {{-1, 0}, {-1, -1}, {0, -1}, {1, -1},
                                                  {1, 0},  {1, 1},   {0, 1},  {-1, 1}};

  void init(const Point2<T>& p) {
    for (int d = 0; d < kDirections; ++d) {
      point[d] = p;
      score[d] = kDir[d][0] * p.x + kDir[d][1] * p.y;
    }
  }
  void add(const Point2<T>& p) {
    const double x = p.x, y = p.y;
    xmin = std::min(xmin, x);
    xmax = std::max(xmax, x);
    ymin = std::min(ymin, y);
    ymax = std::max(ymax, y);
    for (int d = 0; d < kDirections; ++d) {
      // The score may round or overflow: that only changes which input point is picked, and every
      // pick is an input point, so the octagon stays inside the hull.
      const double s = kDir[d][0] * x + kDir[d][1] * y;
      if (s > score[d]) score[d] = s, point[d] = p;
    }
  }
  void absorb(const Extremes& o) {
    xmin = std::min(xmin, o.xmin);
    xmax = std::max(xmax, o.xmax);
    ymin = std::min(ymin, o.ymin);
    ymax = std::max(ymax, o.ymax);
    for (int d = 0; d < kDirections; ++d) {
      if (o.score[d] > score[d]) score[d] = o.score[d], point[d] = o.point[d];
    }
  }
};

/// A convex polygon strictly inside which no point can be a hull vertex, with a certified test.
template <class T>
class InteriorFilter {
 public:
  /// Builds the filter from the octagon; it stays disabled (discards nothing) when the octagon is
  /// degenerate or its arithmetic would overflow.
  explicit InteriorFilter(const Extremes<T>& ext) {
    std::vector<Point2<T>> octagon(ext.point.begin(), ext.point.end());
    std::sort(octagon.begin(), octagon.end(), lex_less<T>);
    const auto poly = hull_of_sorted<T>(octagon);  // exact, counter-clockwise, strict
    if (poly.size() < 3) return;
    const double width = ext.xmax - ext.xmin, height = ext.ymax - ext.ymin;
    for (std::size_t i = 0; i < poly.size(); ++i) {
      const auto& a = poly[i];
      const auto& b = poly[(i + 1) % poly.size()];
      Edge e;
      e.ax = a.x;
      e.ay = a.y;
      e.dx = static_cast<double>(b.x) - static_cast<double>(a.x);
      e.dy = static_cast<double>(b.y) - static_cast<double>(a.y);
      // |computed - exact| of dx*(py-ay) - dy*(px-ax) is below 3 eps (|dx||py-ay| + |dy||px-ax|)
      // (rounded differences and products, one subtraction), and |py-ay| <= height, |px-ax| <= width
      // for every input point. Twice that, plus room for underflowed products, is a safe margin.
      e.margin = 8 * DBL_EPSILON * (std::fabs(e.dx) * height + std::fabs(e.dy) * width) + 16 * DBL_MIN;
      if (!std::isfinite(e.margin) || !std::isfinite(e.dx) || !std::isfinite(e.dy)) return;
      edges_.push_back(e);
    }
    enabled_ = true;
  }

  /// True only if p is strictly inside the polygon (certified); false when in doubt.
  bool certainly_inside(const Point2<T>& p) const {
    if (!enabled_) return false;
    const double px = p.x, py = p.y;
    bool inside = true;
    for (const Edge& e : edges_) {
      const double det = e.dx * (py - e.ay) - e.dy * (px - e.ax);
      inside &= det > e.margin;  // NaN (overflow) compares false: the point is kept
    }
    return inside;
  }

 private:
  struct Edge {
    double ax, ay, dx, dy, margin;
  };
  std::vector<Edge> edges_;
  bool enabled_ = false;
};

}  // namespace

template <class T>
std::vector<Point2<T>> convex_hull_parallel(std::span<const Point2<T>> points, std::int64_t* survivors) {
  const std::size_t n = points.size();
  if (n == 0) return {};
  const std::size_t threads = thread_count(n);

  // Pass 1: extremes, bounding box and the finiteness check.
  std::vector<Extremes<T>> partial(threads);
  parallel_slices(n, threads, [&](std::size_t t, std::size_t begin, std::size_t end) {
    Extremes<T>& ext = partial[t];
    ext.init(points[begin]);
    for (std::size_t i = begin; i < end; ++i) {
      if (!std::isfinite(points[i].x) || !std::isfinite(points[i].y)) {
        ext.non_finite = static_cast<std::int64_t>(i);
        return;
      }
      ext.add(points[i]);
    }
  });
  for (const auto& ext : partial) {
    if (ext.non_finite >= 0) {
      throw input_error("point " + std::to_string(ext.non_finite) + " is not finite");
    }
  }
  Extremes<T> all = partial[0];
  for (std::size_t t = 1; t < threads; ++t) all.absorb(partial[t]);
  const InteriorFilter<T> filter(all);

  // Pass 2: keep every point not certified inside; each slice sorts its own survivors.
  std::vector<std::vector<Point2<T>>> kept(threads);
  parallel_slices(n, threads, [&](std::size_t t, std::size_t begin, std::size_t end) {
    auto& out = kept[t];
    for (std::size_t i = begin; i < end; ++i) {
      if (!filter.certainly_inside(points[i])) out.push_back(points[i]);
    }
    std::sort(out.begin(), out.end(), lex_less<T>);
  });

  // Merge the sorted slices pairwise, then chain.
  while (kept.size() > 1) {
    std::vector<std::vector<Point2<T>>> next((kept.size() + 1) / 2);
    parallel_slices(next.size(), next.size(), [&](std::size_t t, std::size_t, std::size_t) {
      if (2 * t + 1 < kept.size()) {
        next[t].resize(kept[2 * t].size() + kept[2 * t + 1].size());
        std::merge(kept[2 * t].begin(), kept[2 * t].end(), kept[2 * t + 1].begin(), kept[2 * t + 1].end(),
                   next[t].begin(), lex_less<T>);
      } else {
        next[t] = std::move(kept[2 * t]);
      }
    });
    kept.swap(next);
  }
  if (survivors) *survivors = static_cast<std::int64_t>(kept[0].size());
  return hull_of_sorted<T>(kept[0]);
}

template std::vector<Point2<float>> convex_hull_parallel(std::span<const Point2<float>>, std::int64_t*);
template std::vector<Point2<double>> convex_hull_parallel(std::span<const Point2<double>>, std::int64_t*);

}  // namespace wagener::cpu
