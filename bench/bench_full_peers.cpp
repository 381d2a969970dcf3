// bench_full_peers [--max-log2 N] [--qhull-limit-s S]: CGAL's convex_hull_2 and Qhull, the CPU peers
// of the GPU full-hull table, at the GPU benchmark's sizes (n = 2^20, 2^24) on the GPU benchmark's
// inputs, with wagener's cpu backend on the same machine for scale. The GPU machine has no CGAL or
// Qhull, so these rows come from another machine. Prints a markdown table on stdout (progress on
// stderr). Exits 1 when CGAL's hull (or Qhull's, on inputs without near-collinear vertices) differs
// from wagener's: a fast wrong answer is not a result.
//
// The points are generate_full_kernel's in bench_cuda.cu, computed here on the host with the same
// formulas and the same unit_hash. The hash, the square and the sqrt are bit-identical on both sides;
// the host's cos, sin and log (glibc) and the device's (CUDA's libdevice) may differ in the last ulp,
// so a disk, gaussian or circle point in double can differ by an ulp from the GPU run's and a hull
// count by a vertex or so. Rounded to float, the points almost always coincide.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cgal_peer.hpp"
#include "families.hpp"
#include "qhull_peer.hpp"
#include "wagener/hull.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using wagener::Point2;
static_assert(sizeof(Point2<double>) == 2 * sizeof(double), "Qhull is handed the points as a flat array");

using bench::kCircle;
constexpr auto& kFamilies = bench::kFullFamilies;

/// bench_cuda's full-hull inputs, point for point (bench/families.hpp).
template <class T>
std::vector<Point2<T>> generate(std::size_t n, int family) {
  std::vector<Point2<T>> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = bench::full_family_point<T>(i, family);
  return out;
}

struct Timing {
  double median_ms = -1, min_ms = 0, max_ms = 0;  // median -1: not measured
};

/// One untimed warm-up, then `runs` timed calls (median; robust to the odd preempted run on a shared
/// machine). run() returns a digest of its result (the vertex count): using it keeps the work from
/// being optimised away, and every run must return the warm-up's digest. When the warm-up alone takes
/// longer than `limit_ms`, the tool is not timed at all (the median stays -1).
template <class Run>
Timing time_runs(const char* what, int runs, double limit_ms, double* warm_up_ms, Run&& run) {
  std::fprintf(stderr, "  %s\n", what);
  const auto start = Clock::now();
  const std::uint64_t digest = run();
  *warm_up_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (*warm_up_ms > limit_ms) return {};
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = Clock::now();
    const std::uint64_t d = run();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    if (d != digest)
      throw std::runtime_error(std::string(what) + " gave different results on identical runs");
  }
  std::sort(ms.begin(), ms.end());
  const std::size_t m = ms.size() / 2;
  return {ms.size() % 2 ? ms[m] : (ms[m - 1] + ms[m]) / 2, ms.front(), ms.back()};
}

/// Rotates a counter-clockwise hull to start at its lexicographically smallest vertex (wagener's
/// convention), so hulls from different tools compare with ==.
std::vector<Point2<double>> canonical(std::vector<Point2<double>> hull) {
  const auto first = std::min_element(hull.begin(), hull.end(), wagener::lex_less<double>);
  std::rotate(hull.begin(), first, hull.end());
  return hull;
}

/// "" when `hull` is wagener's exact `reference`, else how it differs.
std::string difference(const std::vector<Point2<double>>& hull,
                       const std::vector<Point2<double>>& reference) {
  if (canonical(hull) == reference) return "";
  auto a = reference, b = hull;
  std::sort(a.begin(), a.end(), wagener::lex_less<double>);
  std::sort(b.begin(), b.end(), wagener::lex_less<double>);
  std::vector<Point2<double>> missing, extra;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(missing),
                      wagener::lex_less<double>);
  std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(extra),
                      wagener::lex_less<double>);
  return std::to_string(hull.size()) + " vertices: " + std::to_string(missing.size()) + " missing, " +
         std::to_string(extra.size()) + " not strict vertices" +
         (missing.empty() && extra.empty() ? ", different order" : "");
}

struct Row {
  std::string precision, family;
  int log2n = 0;
  std::size_t hull = 0;
  Timing wagener, cgal, qhull;
  std::string note;
};

std::string cell(const Timing& t) {
  if (t.median_ms < 0) return "-";
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.1f (%.1f–%.1f)", t.median_ms, t.min_ms, t.max_ms);
  return buf;
}

/// Times the three tools on one input and checks the peers' hulls against wagener's. CGAL (exact
/// predicates) must always agree. Qhull works in floating point and by default merges nearly
/// collinear edges: on the circle it is expected to drop vertices, which is reported, not fatal.
template <class T>
bool bench_case(int family, int log2n, int runs, double qhull_limit_ms, std::vector<Row>& rows) {
  const std::size_t n = std::size_t{1} << log2n;
  const char* precision = sizeof(T) == 4 ? "float" : "double";
  std::fprintf(stderr, "%s %s 2^%d: generating\n", precision, kFamilies[family], log2n);
  const std::vector<Point2<T>> pts = generate<T>(n, family);
  // The peers take doubles: float input is widened (exactly) here, outside the timed region.
  std::vector<Point2<double>> wide(n);
  std::transform(pts.begin(), pts.end(), wide.begin(), [](const Point2<T>& p) {
    return Point2<double>{static_cast<double>(p.x), static_cast<double>(p.y)};
  });
  std::vector<bench::CgalPoint> cgal_pts;
  cgal_pts.reserve(n);
  for (const auto& p : wide) cgal_pts.emplace_back(p.x, p.y);
  const std::span<const double> flat(&wide.data()->x, 2 * n);  // x0 y0 x1 y1 ...: see the static_assert

  // Each tool's hull from its warm-up run, for the check below; the timed runs return only counts.
  std::vector<Point2<double>> reference, cgal_hull, qhull_hull;
  wagener::HullStats stats;
  const double no_limit = 1e300;
  double warm_up_ms = 0;
  const Timing wagener_t = time_runs("wagener cpu", runs, no_limit, &warm_up_ms, [&] {
    const auto hull = wagener::convex_hull<T>(pts, {wagener::Backend::cpu, &stats});
    if (reference.empty()) {
      for (const auto& p : hull) reference.push_back({static_cast<double>(p.x), static_cast<double>(p.y)});
    }
    return hull.size();
  });
  const Timing cgal_t = time_runs("CGAL", runs, no_limit, &warm_up_ms, [&] {
    const auto hull = bench::cgal_hull(cgal_pts.begin(), cgal_pts.end());
    if (cgal_hull.empty()) {
      for (const auto& p : hull) cgal_hull.push_back({p.x(), p.y()});
    }
    return hull.size();
  });
  const Timing qhull_t = time_runs("Qhull", runs, qhull_limit_ms, &warm_up_ms, [&] {
    const auto hull = bench::qhull_hull(flat);
    if (qhull_hull.empty()) {
      for (const auto& p : hull) qhull_hull.push_back({p[0], p[1]});
    }
    return hull.size();
  });

  std::string note;
  bool ok = true;
  const auto check = [&](const char* tool, const std::vector<Point2<double>>& hull, bool must_agree) {
    const std::string diff = difference(hull, reference);
    if (diff.empty()) return;
    ok &= !must_agree;
    note += std::string(note.empty() ? "" : "; ") + tool + ": " + diff;
    std::fprintf(stderr, "\n*** %s (%s %s 2^%d): %s reports %s; wagener %zu ***\n\n",
                 must_agree ? "MISMATCH" : "expected difference", precision, kFamilies[family], log2n, tool,
                 diff.c_str(), reference.size());
  };
  check("CGAL", cgal_hull, true);
  check("Qhull", qhull_hull, family != kCircle);
  if (qhull_t.median_ms < 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "Qhull not timed: its warm-up run alone took %.0f s (limit %.0f s)",
                  warm_up_ms / 1e3, qhull_limit_ms / 1e3);
    note += std::string(note.empty() ? "" : "; ") + buf;
  }
  rows.push_back({precision, kFamilies[family], log2n, reference.size(), wagener_t, cgal_t, qhull_t, note});
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  int max_log2 = 24;
  double qhull_limit_s = 120;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--max-log2") == 0 && i + 1 < argc) {
      max_log2 = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--qhull-limit-s") == 0 && i + 1 < argc) {
      qhull_limit_s = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--max-log2 20|24] [--qhull-limit-s S (default 120)]\n", argv[0]);
      return 2;
    }
  }
  // Median of 5 runs at 2^20; 3 at 2^24, where one CGAL or Qhull run on the circle takes seconds.
  const auto runs_at = [](int log2n) { return log2n >= 24 ? 3 : 5; };
  try {
    std::vector<Row> rows;
    bool ok = true;
    for (int log2n : {20, 24}) {
      if (log2n > max_log2) continue;
      for (int family = 0; family < 4; ++family) {
        ok &= bench_case<float>(family, log2n, runs_at(log2n), qhull_limit_s * 1e3, rows);
        ok &= bench_case<double>(family, log2n, runs_at(log2n), qhull_limit_s * 1e3, rows);
      }
    }
    std::printf(
        "| precision | input | n | hull | wagener cpu ms | CGAL convex_hull_2 (Epick) ms | Qhull ms | notes "
        "|\n");
    std::printf("|---|---|---|---:|---:|---:|---:|---|\n");
    for (const Row& r : rows) {
      std::printf("| %s | %s | 2^%d | %zu | %s | %s | %s | %s |\n", r.precision.c_str(), r.family.c_str(),
                  r.log2n, r.hull, cell(r.wagener).c_str(), cell(r.cgal).c_str(), cell(r.qhull).c_str(),
                  r.note.c_str());
    }
    std::printf(
        "\nms: median (min–max) of %d timed runs at 2^20, %d at 2^24, after one warm-up; hardware threads: "
        "%u.\n",
        runs_at(20), runs_at(24), std::thread::hardware_concurrency());
    if (!ok) {
      std::fprintf(stderr, "bench_full_peers: hull mismatch (see above)\n");
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_full_peers: %s\n", e.what());
    return 1;
  }
  return 0;
}
