// The GPU full hull's filter, modelled on the host: which points of a bench_cuda family survive the
// inner polygon (the extremes of every (n >> 18)-th point in 256 directions, their exact hull, and
// core::InnerPolygon's tests, as convex_hull.cu builds it), and how many of those would survive a
// second polygon built the same way from the survivors' own extremes in D directions. The survivors
// of the first polygon are the GPU's (bench_cuda --input full prints them); the second is a design
// question: how few points the sort and the chains could be left with. Scoring every survivor in
// every direction is the costly part, so beside it: each survivor scored only in the 5 directions
// nearest its own from the centre, then the exact hull of the bests, or (no hull) their star
// through core::ChordFan, the dense guide's fan. Last, the survivors' polygon as the GPU builds it
// (src/cuda/survivor_polygon.cu): the bests peeled in the directions' order, and their chord fan.
//
// Usage: filter_survivors [LOG2N (default 28)] [FAMILY ...]   (square, disk, gaussian; default all three)
// Memory: 2^LOG2N points of 16 bytes (4 GiB at 2^28).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/chord_fan.hpp"
#include "core/inner_polygon.hpp"
#include "cpu/filter_pass.hpp"
#include "cpu/monotone_chain.hpp"
#include "families.hpp"
#include "wagener/predicates.hpp"

namespace {

using wagener::Point2;
using P = Point2<double>;

/// Each direction's best point (any maximiser) among points[0, stride, 2 stride, ...), in the order
/// of the directions, NaN where a direction has none. With `window` (>= 0), each point is scored only
/// in the 2 window + 1 directions nearest its own direction from c (any choice of points is sound: it
/// only moves the polygon).
template <class T>
std::vector<P> direction_slots(std::span<const Point2<T>> points, std::size_t stride, int directions,
                               int window = -1, P c = {0, 0}) {
  std::vector<double> best(static_cast<std::size_t>(directions), -INFINITY), ux(best.size()), uy(best.size());
  std::vector<P> arg(best.size(), P{NAN, NAN});
  for (std::size_t d = 0; d < best.size(); ++d) {
    ux[d] = std::cos(2 * M_PI * static_cast<double>(d) / directions);
    uy[d] = std::sin(2 * M_PI * static_cast<double>(d) / directions);
  }
  const auto score_in = [&](std::size_t d, double x, double y) {
    const double score = ux[d] * x + uy[d] * y;
    if (score > best[d]) best[d] = score, arg[d] = {x, y};
  };
  for (std::size_t i = 0; i < points.size(); i += stride) {
    const double x = static_cast<double>(points[i].x), y = static_cast<double>(points[i].y);
    if (window < 0) {
      for (std::size_t d = 0; d < best.size(); ++d) score_in(d, x, y);
      continue;
    }
    const long nearest = std::lround(std::atan2(y - c.y, x - c.x) / (2 * M_PI) * directions);
    for (long k = nearest - window; k <= nearest + window; ++k)
      score_in(static_cast<std::size_t>((k % directions + directions) % directions), x, y);
  }
  return arg;
}

/// The same, the directions without a best left out.
template <class T>
std::vector<P> direction_bests(std::span<const Point2<T>> points, std::size_t stride, int directions,
                               int window = -1, P c = {0, 0}) {
  std::vector<P> found;
  for (const P& p : direction_slots(points, stride, directions, window, c)) {
    if (std::isfinite(p.x) && std::isfinite(p.y)) found.push_back(p);
  }
  return found;
}

/// The GPU's peel of the survivors' bests (survivor_polygon.cu, survivor_fan_kernel), one slot a
/// direction (NaN: none): rounds in which each live point drops, all at once, when it repeats the one
/// before or does not turn strictly left between its live neighbours; first up to 16 rounds within
/// each run of 32 slots (a warp: only points with live neighbours in it are judged), then up to 32
/// over all of them, cyclically. Returns the polygon left, and in *block_rounds the rounds over all
/// that judged something.
std::vector<P> peeled_as_on_the_gpu(const std::vector<P>& slots, int* block_rounds) {
  const auto drops = [](const P& before, const P& p, const P& after) {
    const auto same = [](const P& a, const P& b) { return a.x == b.x && a.y == b.y; };
    return same(p, before) || (!same(p, after) && wagener::orient2d(before, p, after) <= 0);
  };
  std::vector<P> point = slots;
  std::vector<char> live(slots.size());
  for (std::size_t i = 0; i < slots.size(); ++i) live[i] = std::isfinite(slots[i].x) ? 1 : 0;
  for (std::size_t warp = 0; warp < slots.size(); warp += 32) {
    const std::size_t end = std::min(slots.size(), warp + 32);
    for (int round = 0; round < 16; ++round) {
      std::vector<std::size_t> alive;
      for (std::size_t i = warp; i < end; ++i) {
        if (live[i]) alive.push_back(i);
      }
      std::vector<std::size_t> dropped;
      for (std::size_t j = 1; j + 1 < alive.size(); ++j) {
        if (drops(point[alive[j - 1]], point[alive[j]], point[alive[j + 1]])) dropped.push_back(alive[j]);
      }
      for (const std::size_t i : dropped) live[i] = 0;
      if (dropped.empty()) break;
    }
  }
  std::vector<P> vertex;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (live[i]) vertex.push_back(point[i]);
  }
  *block_rounds = 0;
  for (int round = 0; round < 32 && vertex.size() >= 3; ++round) {
    const std::size_t k = vertex.size();
    std::vector<P> kept;
    for (std::size_t i = 0; i < k; ++i) {
      if (!drops(vertex[(i + k - 1) % k], vertex[i], vertex[(i + 1) % k])) kept.push_back(vertex[i]);
    }
    if (kept.size() == k) break;
    ++*block_rounds;
    vertex = std::move(kept);
  }
  return vertex;
}

/// The exact hull of points.
std::vector<P> hull_of(std::vector<P> found) {
  std::sort(found.begin(), found.end(), wagener::lex_less<double>);
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return wagener::cpu::hull_of_sorted<double>(found);
}

/// The same points as a star around c, in the directions' order, repeats next to each other dropped:
/// no hull, which core::ChordFan does not need (only c strictly left of every edge).
std::vector<P> star_of(const std::vector<P>& found) {
  std::vector<P> star;
  for (const P& p : found) {
    if (star.empty() || !(star.back().x == p.x && star.back().y == p.y)) star.push_back(p);
  }
  while (star.size() > 1 && star.back().x == star.front().x && star.back().y == star.front().y)
    star.pop_back();
  return star;
}

/// The points that the polygon does not certify strictly inside, in order, compacted in place: the
/// CPU backend's own filter pass (cpu::keep_uncertified), which keeps what the GPU's tests keep.
template <class T>
std::vector<Point2<T>> survivors(std::vector<Point2<T>> points, const wagener::core::InnerPolygonView& view) {
  points.resize(wagener::cpu::keep_uncertified(view, points.data(), points.size(), points.data()));
  return points;
}

/// The same for the chord fan, which the CPU's pass does not take: one point at a time.
template <class T>
std::vector<Point2<T>> survivors(std::span<const Point2<T>> points, const wagener::core::ChordFanView& fan) {
  std::vector<Point2<T>> kept;
  for (const auto& p : points) {
    if (!fan.certainly_inside(static_cast<double>(p.x), static_cast<double>(p.y))) kept.push_back(p);
  }
  return kept;
}

template <class T>
void model(int family, int log2n) {
  const std::size_t n = std::size_t{1} << log2n;
  std::vector<Point2<T>> points(n);
  for (std::size_t i = 0; i < n; ++i) points[i] = bench::full_family_point<T>(i, family);
  constexpr int kDirections = 256;  // as convex_hull.cu's sample_extremes_kernel
  const std::size_t stride = std::max<std::size_t>(1, n >> 18);
  const auto first = hull_of(direction_bests<T>(points, stride, kDirections));
  const wagener::core::InnerPolygon inner(first, kDirections);
  const auto kept = survivors<T>(std::move(points), inner.view());
  std::printf("| %s | %s | 2^%d | %zu | %zu |", sizeof(T) == 4 ? "float" : "double",
              bench::kFullFamilies[family], log2n, first.size(), kept.size());
  const auto left_by = [&](const auto& view) { return survivors<T>(kept, view).size(); };
  for (const int directions : {256, 1024, 4096}) {
    const wagener::core::InnerPolygon polygon(hull_of(direction_bests<T>(kept, 1, directions)),
                                              static_cast<std::size_t>(directions));
    std::printf(" %zu |", left_by(polygon.view()));
  }
  // 1,024 directions, each survivor scored in the 5 nearest its own direction from the centre: the
  // hull of the bests, and their star through the chord fan.
  const P centre{inner.view().cx, inner.view().cy};
  const auto windowed = direction_bests<T>(kept, 1, 1024, 2, centre);
  const wagener::core::InnerPolygon hull(hull_of(windowed), 1024);
  const wagener::core::ChordFan star(star_of(windowed), centre);
  std::printf(" %zu | %zu |", left_by(hull.view()), star.enabled() ? left_by(star.view()) : kept.size());
  // As the GPU builds it: the bests peeled in the directions' order, and the chord fan of 4,096
  // buckets around the same centre (ChordFan checks it strictly inside).
  int block_rounds = 0;
  const auto peeled = peeled_as_on_the_gpu(direction_slots<T>(kept, 1, 1024, 2, centre), &block_rounds);
  const wagener::core::ChordFan fan(peeled, centre,
                                    peeled.empty() ? 4 : 4096 / static_cast<long>(peeled.size()));
  std::printf(" %zu | %d | %zu |", peeled.size(), block_rounds,
              fan.enabled() ? left_by(fan.view()) : kept.size());
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 28;
  if (log2n < 10 || log2n > 32) {
    std::fprintf(stderr, "filter_survivors: LOG2N must be 10-32, not %s\n", argv[1]);
    return 2;
  }
  std::vector<int> families;
  for (int a = 2; a < argc; ++a) {
    int f = 0;
    while (f < 3 && std::strcmp(argv[a], bench::kFullFamilies[f]) != 0) ++f;
    if (f == 3) {
      std::fprintf(stderr, "filter_survivors: family must be square, disk or gaussian, not %s\n", argv[a]);
      return 2;
    }
    families.push_back(f);
  }
  if (families.empty()) families = {0, 1, 2};
  std::printf(
      "| precision | family | n | first polygon's vertices | survivors | second polygon of 256 "
      "directions: survivors | 1024 | 4096 | 1024 directions, 5 a point: hull | star | as the GPU: peeled "
      "vertices | block rounds | survivors "
      "|\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const int f : families) {
    model<float>(f, log2n);
    model<double>(f, log2n);
  }
}
