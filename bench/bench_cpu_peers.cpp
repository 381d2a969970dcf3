// bench_cpu_peers [--runs N]: wagener's cpu backend, CGAL::convex_hull_2 and Qhull on the same
// points in memory. Prints a markdown table on stdout (progress on stderr). Exits 1 when CGAL's hull
// (or Qhull's, on inputs without near-collinear vertices) differs from wagener's: a fast wrong answer
// is not a result.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iterator>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cgal_peer.hpp"
#include "qhull_peer.hpp"
#include "wagener/hull.hpp"

namespace {

using Point = wagener::Point2<double>;
using Clock = std::chrono::steady_clock;
static_assert(sizeof(Point) == 2 * sizeof(double), "Qhull is handed the points as a flat array of doubles");

/// The points `wagener generate --distribution D -n N --seed 1` writes, so that these in-memory
/// numbers and the whole-process ones in run_cpu.sh are taken on the same input.
std::vector<Point> generate(const std::string& distribution, std::size_t n, std::uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Point> pts;
  pts.reserve(n);
  while (pts.size() < n) {
    const double x = u(rng), y = u(rng);
    if (distribution == "disk") {
      if (x * x + y * y <= 1.0) pts.push_back({x, y});
    } else {  // circle: every point on the unit circle, so (nearly) all are hull vertices
      const double a = M_PI * x;
      pts.push_back({std::cos(a), std::sin(a)});
    }
  }
  return pts;
}

struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
};

/// One untimed warm-up (page faults of the tool's buffers, allocator, caches), then `runs` timed
/// calls; the median is robust to the odd preempted run on a shared 2-core machine. run() returns
/// a digest of its result (the vertex count, a sum): using it keeps the work from being optimised
/// away, and every run must return the warm-up's digest.
template <class Run>
Timing time_runs(const char* what, int runs, Run&& run) {
  std::fprintf(stderr, "  %s\n", what);
  const std::uint64_t digest = run();
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    const auto start = Clock::now();
    const std::uint64_t d = run();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    if (d != digest)
      throw std::runtime_error(std::string(what) + " gave different results on identical runs");
  }
  std::sort(ms.begin(), ms.end());
  const std::size_t m = ms.size() / 2;
  return {ms.size() % 2 ? ms[m] : (ms[m - 1] + ms[m]) / 2, ms.front(), ms.back()};
}

/// Rotates a counter-clockwise hull to start at its lexicographically smallest vertex (wagener's
/// convention), so hulls from different tools compare with ==.
std::vector<Point> canonical(std::vector<Point> hull) {
  const auto first = std::min_element(hull.begin(), hull.end(), wagener::lex_less<double>);
  std::rotate(hull.begin(), first, hull.end());
  return hull;
}

/// The floor: the time to read every byte of the array once, with `threads` threads. Summing the
/// raw bits as integers lets the compiler vectorise freely, so memory bandwidth is the only limit.
std::uint64_t sum_bits(std::span<const Point> pts, unsigned threads) {
  std::vector<std::uint64_t> partial(threads);
  auto body = [&](unsigned t) {
    const std::size_t begin = pts.size() * t / threads, end = pts.size() * (t + 1) / threads;
    std::uint64_t s = 0;
    for (std::size_t i = begin; i < end; ++i) {
      std::uint64_t bits[2];
      std::memcpy(bits, &pts[i], sizeof bits);
      s += bits[0] + bits[1];
    }
    partial[t] = s;
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(body, t);
  body(0);
  for (auto& th : pool) th.join();
  std::uint64_t s = 0;
  for (auto p : partial) s += p;
  return s;
}

struct Row {
  std::string distribution;
  std::size_t n = 0;
  std::string tool;
  Timing timing;
  std::string note;
  bool floor = false;  // a reference time, not a hull: no speedup
  double cgal_ms = 0;
};

std::string fmt(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

/// "N vertices", and when `hull` is not wagener's exact `reference`, how it differs.
std::string describe(const std::vector<Point>& hull, const std::vector<Point>& reference) {
  std::string text = std::to_string(hull.size()) + " vertices";
  if (canonical(hull) == reference) return text;
  auto a = reference, b = hull;
  std::sort(a.begin(), a.end(), wagener::lex_less<double>);
  std::sort(b.begin(), b.end(), wagener::lex_less<double>);
  std::vector<Point> missing, extra;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(missing),
                      wagener::lex_less<double>);
  std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(extra),
                      wagener::lex_less<double>);
  return text + " (vs the exact hull: " + std::to_string(missing.size()) + " missing, " +
         std::to_string(extra.size()) + " not strict vertices" +
         (missing.empty() && extra.empty() ? ", different order" : "") + ")";
}

/// Runs every tool on one input, checks the hulls against wagener's, appends the rows. CGAL (exact
/// predicates) must always agree. Qhull works in floating point and by default merges nearly
/// collinear edges, so it must agree only where no such near-degeneracy exists (`qhull_exact`); on
/// the circle it is expected to drop vertices, and the difference is reported, not fatal.
bool bench_case(const std::string& distribution, std::size_t n, bool qhull_exact, int runs, bool with_floor,
                std::vector<Row>& rows) {
  std::fprintf(stderr, "%s n=%zu: generating\n", distribution.c_str(), n);
  const std::vector<Point> pts = generate(distribution, n);
  // Each peer gets the input in its native form, prepared outside the timed region.
  std::vector<bench::CgalPoint> cgal_pts;
  cgal_pts.reserve(n);
  for (const Point& p : pts) cgal_pts.emplace_back(p.x, p.y);
  const std::span<const double> flat(&pts.data()->x, 2 * n);  // x0 y0 x1 y1 ...: see the static_assert

  // Each tool's hull from its warm-up run, for the check below; the timed runs return only counts.
  std::vector<Point> reference, cgal_hull, qhull_hull;
  wagener::HullStats stats;
  const Timing wagener_t = time_runs("wagener cpu", runs, [&] {
    auto hull = wagener::convex_hull<double>(pts, {wagener::Backend::cpu, &stats});
    if (reference.empty()) reference = hull;
    return hull.size();
  });
  const Timing cgal_t = time_runs("CGAL", runs, [&] {
    auto hull = bench::cgal_hull(cgal_pts.begin(), cgal_pts.end());
    if (cgal_hull.empty()) {
      for (const auto& p : hull) cgal_hull.push_back({p.x(), p.y()});
    }
    return hull.size();
  });
  const Timing qhull_t = time_runs("Qhull", runs, [&] {
    auto hull = bench::qhull_hull(flat);
    if (qhull_hull.empty()) {
      for (const auto& p : hull) qhull_hull.push_back({p[0], p[1]});
    }
    return hull.size();
  });

  const double kept = 100.0 * static_cast<double>(stats.survivors) / static_cast<double>(n);
  rows.push_back(
      {distribution, n, "wagener cpu", wagener_t,
       fmt("%.2f", kept) + " % survive the filter; " + std::to_string(reference.size()) + " vertices"});
  rows.push_back({distribution, n, "CGAL convex_hull_2 (Epick)", cgal_t, describe(cgal_hull, reference)});
  rows.push_back(
      {distribution, n, "Qhull (qh_new_qhull, defaults)", qhull_t, describe(qhull_hull, reference)});
  for (std::size_t i = rows.size() - 3; i < rows.size(); ++i) rows[i].cgal_ms = cgal_t.median_ms;

  if (with_floor) {
    for (unsigned threads : {1u, 2u}) {
      const std::string what = "floor: read the array once, " + std::to_string(threads) + " thread(s)";
      const Timing t = time_runs(what.c_str(), runs, [&] { return sum_bits(pts, threads); });
      const double gb_per_s = static_cast<double>(n * sizeof(Point)) / (t.median_ms * 1e6);
      rows.push_back({distribution, n, what, t, fmt("%.1f GB/s", gb_per_s), true});
    }
  }
  bool ok = true;
  const auto check = [&](const char* tool, const std::vector<Point>& hull, bool must_agree) {
    if (canonical(hull) == reference) return;
    ok &= !must_agree;
    std::fprintf(stderr, "\n*** %s (%s n=%zu): %s reports %s; wagener %zu ***\n\n",
                 must_agree ? "MISMATCH" : "expected difference", distribution.c_str(), n, tool,
                 describe(hull, reference).c_str(), reference.size());
  };
  check("CGAL", cgal_hull, true);
  check("Qhull", qhull_hull, qhull_exact);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 7;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--runs N]   (N >= 5; default 7)\n", argv[0]);
      return 2;
    }
  }
  if (runs < 5) {
    std::fprintf(stderr, "bench_cpu_peers: --runs must be at least 5 for a meaningful median\n");
    return 2;
  }
  try {
    std::vector<Row> rows;
    bool ok = true;
    ok &= bench_case("disk", 10'000'000, true, runs, true, rows);
    ok &= bench_case("disk", 1'000'000, true, runs, false, rows);
    ok &= bench_case("circle", 1'000'000, false, runs, false, rows);

    std::printf("| distribution | n | tool | median ms | min–max ms | speedup vs CGAL | notes |\n");
    std::printf("|---|---:|---|---:|---:|---:|---|\n");
    for (const Row& r : rows) {
      const std::string speedup = r.floor ? "—" : fmt("%.2f×", r.cgal_ms / r.timing.median_ms);
      std::printf("| %s | %zu | %s | %.1f | %.1f–%.1f | %s | %s |\n", r.distribution.c_str(), r.n,
                  r.tool.c_str(), r.timing.median_ms, r.timing.min_ms, r.timing.max_ms, speedup.c_str(),
                  r.note.c_str());
    }
    std::printf("\n%d timed runs per row after one warm-up; hardware threads: %u.\n", runs,
                std::thread::hardware_concurrency());
    if (!ok) {
      std::fprintf(stderr, "bench_cpu_peers: hull mismatch (see above)\n");
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cpu_peers: %s\n", e.what());
    return 1;
  }
  return 0;
}
