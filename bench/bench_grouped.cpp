// bench_grouped [--groups G] [--size S] [--runs N] [--wagener-only] [--int64-scale-log2 L]: the hulls of G
// groups of S f64 points each (a uniform disk per group around its own centre), by wagener::convex_hulls on
// all cores against a loop of CGAL::convex_hull_2 over the groups (on one core, and split over all cores).
// Prints a markdown table on stdout. Exits 1 when any group's CGAL hull differs from wagener's.
// --wagener-only times convex_hulls alone (after the same check) and prints its median and minimum
// processor time per point: the figure to compare two builds by on a shared machine.
// --int64-scale-log2 L: the same disks as 64-bit integers, each coordinate times 2^L, rounded, plus
// random low bits below the double's last (from L = 43 on, about 2^53 and beyond); timed as
// --wagener-only, each group's hull checked against wagener::convex_hull of the group alone.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cgal_peer.hpp"
#include "wagener/grouped.hpp"
#include "wagener/hull.hpp"

namespace {

using Point = wagener::Point2<double>;
using Clock = std::chrono::steady_clock;

struct Input {
  std::vector<Point> points;
  std::vector<std::int64_t> offsets;
};

Input generate(std::size_t groups, std::size_t size, std::uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_real_distribution<double> centre(-1000.0, 1000.0);
  Input in;
  in.points.reserve(groups * size);
  in.offsets.reserve(groups + 1);
  in.offsets.push_back(0);
  for (std::size_t g = 0; g < groups; ++g) {
    const double cx = centre(rng), cy = centre(rng);
    for (std::size_t i = 0; i < size;) {
      const double x = u(rng), y = u(rng);
      if (x * x + y * y > 1.0) continue;
      in.points.push_back({cx + x, cy + y});
      ++i;
    }
    in.offsets.push_back(static_cast<std::int64_t>(in.points.size()));
  }
  return in;
}

struct Timing {
  double wall_ms = 0;      ///< median wall time
  double cpu_ms = 0;       ///< median processor time of the process, all threads: less exposed than wall
                           ///< time to other processes' load on a shared machine
  double min_wall_ms = 0;  ///< the fastest run's wall time
  double min_cpu_ms = 0;   ///< the least processor time of a run
};

/// One untimed warm-up, then `runs` timed calls; the medians (the machine is shared). Every run must
/// give the warm-up's digest.
template <class Run>
Timing median_ms(const char* what, int runs, Run&& run) {
  std::fprintf(stderr, "  %s\n", what);
  const std::uint64_t digest = run();
  std::vector<double> wall, cpu;
  for (int i = 0; i < runs; ++i) {
    const auto start = Clock::now();
    const std::clock_t cpu_start = std::clock();
    if (run() != digest)
      throw std::runtime_error(std::string(what) + " gave different results on identical runs");
    cpu.push_back(1000.0 * static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC);
    wall.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2], wall.front(), cpu.front()};
}

/// CGAL's hulls of groups [first, last), each rotated to start at its lexicographically smallest
/// vertex (wagener's convention), appended to `out`; returns the number of vertices.
std::size_t cgal_groups(const Input& in, std::size_t first, std::size_t last, std::vector<Point>* out) {
  std::vector<bench::CgalPoint> group;
  std::size_t vertices = 0;
  for (std::size_t g = first; g < last; ++g) {
    group.clear();
    for (auto i = in.offsets[g]; i < in.offsets[g + 1]; ++i)
      group.emplace_back(in.points[static_cast<std::size_t>(i)].x, in.points[static_cast<std::size_t>(i)].y);
    const auto hull = bench::cgal_hull(group.begin(), group.end());
    vertices += hull.size();
    if (out) {
      std::vector<Point> h;
      for (const auto& p : hull) h.push_back({p.x(), p.y()});
      std::rotate(h.begin(), std::min_element(h.begin(), h.end(), wagener::lex_less<double>), h.end());
      out->insert(out->end(), h.begin(), h.end());
    }
  }
  return vertices;
}

/// The disks of `in` as 64-bit integers: v 2^scale_log2 rounded, then its bits below double's
/// precision there (the centres reach 2^10, so from bit scale_log2 - 43 down) made random.
std::vector<wagener::Point2<std::int64_t>> as_int64(const Input& in, int scale_log2) {
  std::mt19937_64 rng(2);
  const int free_bits = std::clamp(scale_log2 - 43, 0, 20);
  const std::int64_t low_mask = (std::int64_t{1} << free_bits) - 1;
  const auto scaled = [&](double v) {
    return (std::llround(std::ldexp(v, scale_log2)) & ~low_mask) |
           (static_cast<std::int64_t>(rng()) & low_mask);
  };
  std::vector<wagener::Point2<std::int64_t>> out;
  out.reserve(in.points.size());
  for (const auto& p : in.points) out.push_back({scaled(p.x), scaled(p.y)});
  return out;
}

/// --int64-scale-log2: every group's hull against convex_hull of the group alone, then the timing.
int run_int64(const Input& in, int scale_log2, int runs) {
  const auto points = as_int64(in, scale_log2);
  const std::span<const wagener::Point2<std::int64_t>> all(points);
  const auto hulls = wagener::convex_hulls<std::int64_t>(all, in.offsets);
  const std::size_t groups = in.offsets.size() - 1;
  for (std::size_t g = 0; g < groups; ++g) {
    const auto begin = static_cast<std::size_t>(in.offsets[g]),
               end = static_cast<std::size_t>(in.offsets[g + 1]);
    const auto alone = wagener::convex_hull<std::int64_t>(all.subspan(begin, end - begin));
    const auto first = hulls.vertices.begin() + hulls.offsets[g],
               last = hulls.vertices.begin() + hulls.offsets[g + 1];
    if (!std::equal(first, last, alone.begin(), alone.end())) {
      std::fprintf(stderr, "bench_grouped: group %zu's hull differs from its convex_hull\n", g);
      return 1;
    }
  }
  const Timing t = median_ms("wagener convex_hulls<int64_t>", runs, [&] {
    return wagener::convex_hulls<std::int64_t>(all, in.offsets).vertices.size();
  });
  const double n = static_cast<double>(points.size());
  std::printf(
      "| groups | points per group | int64 scale | runs | wagener wall ms (median, min) | cpu ns per point "
      "(median, min) |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|\n");
  std::printf("| %zu | %zu | 2^%d | %d | %.0f, %.0f | %.2f, %.2f |\n", groups,
              static_cast<std::size_t>(in.offsets[1]), scale_log2, runs, t.wall_ms, t.min_wall_ms,
              1e6 * t.cpu_ms / n, 1e6 * t.min_cpu_ms / n);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t groups = 1000000, size = 100;
  int runs = 5;
  bool wagener_only = false;
  int int64_scale_log2 = -1;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--wagener-only"))
      wagener_only = true;
    else if (has_value && !std::strcmp(argv[i], "--groups"))
      groups = std::strtoull(argv[++i], nullptr, 10);
    else if (has_value && !std::strcmp(argv[i], "--size"))
      size = std::strtoull(argv[++i], nullptr, 10);
    else if (has_value && !std::strcmp(argv[i], "--runs"))
      runs = std::atoi(argv[++i]);
    else if (has_value && !std::strcmp(argv[i], "--int64-scale-log2"))
      int64_scale_log2 = std::atoi(argv[++i]);
  }
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::fprintf(stderr, "bench_grouped: %zu groups of %zu points, %u cores, %d runs\n", groups, size, cores,
               runs);
  const Input in = generate(groups, size);
  if (int64_scale_log2 >= 0) {
    if (int64_scale_log2 > 52) {
      std::fprintf(stderr, "bench_grouped: --int64-scale-log2 takes 0 to 52 (the centres reach 2^10)\n");
      return 2;
    }
    return run_int64(in, int64_scale_log2, runs);
  }

  const auto wagener_hulls = wagener::convex_hulls<double>(in.points, in.offsets);
  std::vector<Point> cgal_vertices;
  cgal_groups(in, 0, groups, &cgal_vertices);
  if (cgal_vertices != wagener_hulls.vertices) {
    std::fprintf(stderr, "bench_grouped: CGAL's hulls differ from wagener's\n");
    return 1;
  }

  const Timing wagener = median_ms("wagener convex_hulls", runs, [&] {
    return wagener::convex_hulls<double>(in.points, in.offsets).vertices.size();
  });
  if (wagener_only) {
    const double points = static_cast<double>(in.points.size());
    std::printf(
        "| groups | points per group | runs | wagener wall ms (median, min) | cpu ns per point (median, min) "
        "|\n");
    std::printf("|---:|---:|---:|---:|---:|\n");
    std::printf("| %zu | %zu | %d | %.0f, %.0f | %.2f, %.2f |\n", groups, size, runs, wagener.wall_ms,
                wagener.min_wall_ms, 1e6 * wagener.cpu_ms / points, 1e6 * wagener.min_cpu_ms / points);
    return 0;
  }
  const Timing cgal =
      median_ms("CGAL loop, 1 core", runs, [&] { return cgal_groups(in, 0, groups, nullptr); });
  const Timing cgal_all = median_ms("CGAL loop, all cores", runs, [&] {
    std::vector<std::size_t> counts(cores);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < cores; ++t)
      pool.emplace_back(
          [&, t] { counts[t] = cgal_groups(in, groups * t / cores, groups * (t + 1) / cores, nullptr); });
    for (auto& th : pool) th.join();
    std::size_t total = 0;
    for (const auto c : counts) total += c;
    return total;
  });
  std::printf(
      "| groups | points per group | wagener convex_hulls (%u cores) ms | CGAL loop (1 core) ms | CGAL loop "
      "(%u cores) ms | CGAL 1 core / wagener | CGAL %u cores / wagener |\n",
      cores, cores, cores);
  std::printf("|---:|---:|---:|---:|---:|---:|---:|\n");
  std::printf("| %zu | %zu | %.0f (cpu %.0f) | %.0f (cpu %.0f) | %.0f (cpu %.0f) | %.1fx | %.1fx |\n", groups,
              size, wagener.wall_ms, wagener.cpu_ms, cgal.wall_ms, cgal.cpu_ms, cgal_all.wall_ms,
              cgal_all.cpu_ms, cgal.wall_ms / wagener.wall_ms, cgal_all.wall_ms / wagener.wall_ms);
  return 0;
}
