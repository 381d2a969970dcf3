// bench_grouped [--groups G] [--size S] [--runs N] [--wagener-only]: the hulls of G groups of S f64
// points each (a uniform disk per group around its own centre), by wagener::convex_hulls on all cores
// against a loop of CGAL::convex_hull_2 over the groups (on one core, and split over all cores).
// Prints a markdown table on stdout. Exits 1 when any group's CGAL hull differs from wagener's.
// --wagener-only times convex_hulls alone (after the same check) and prints its median and minimum
// processor time per point: the figure to compare two builds by on a shared machine.
#include <algorithm>
#include <chrono>
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

}  // namespace

int main(int argc, char** argv) {
  std::size_t groups = 1000000, size = 100;
  int runs = 5;
  bool wagener_only = false;
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
  }
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::fprintf(stderr, "bench_grouped: %zu groups of %zu points, %u cores, %d runs\n", groups, size, cores,
               runs);
  const Input in = generate(groups, size);

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
