// bench_cpu_floor [--sizes N,N,...] [--families F,F,...] [--precisions f64,f32,i64] [--runs R]
//                 [--peers-up-to N] [--kernel widest|avx512|avx2|scalar] [--threads T] [--phases 1]
// wagener's cpu backend in memory (the hull call alone) against the floor: reading the same array
// once with the same number of threads the backend uses, in the same process, the two timed in
// turn, run by run, so that both see the same state of the machine. With
// --peers-up-to N (default 10^7; 0: none), CGAL's convex_hull_2 and Qhull on the f64 inputs up to N
// points (where the benchmark was built with them). --threads T (default: one per hardware thread) caps the
// backend's threads and the floor's alike; the public convex_hull() column always uses every hardware thread.
// Where CMake was given WAGENER_PBBS_DIR, PBBS's parallel quickhull on every f64 row too, on T workers
// (PARLAY_NUM_THREADS wins where set); its hulls are checked against wagener's, and a difference is
// listed under the table (PBBS is not exact: a finding, not a failure).
// --phases 1 times each row's calls once more, phase by phase (FilterPhases: the sample, the filter
// region, its slowest thread's pass and survivors' hull, the join), medians on stderr.
// --presorted 1: each row's points sorted first, and the presorted upper hull timed instead: the
// backend's call (cpu::upper_chain_filtered) against the floor, the serial monotone chain (the cpu
// backend's way before it), and the public upper_hull() with its check of the promise; every call's
// chain checked against the serial one's (exit 1 on a difference). No peers.
// --precisions i64: the same families as 64-bit integers, each coordinate times 2^58 (clamped to
// +-2^62), almost every point beyond double's 2^53; each hull checked against the serial chain's in
// int64 up to --peers-up-to points.
// Prints a markdown table on stdout (progress on stderr); exits 1 when CGAL's hull differs from wagener's.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(WAGENER_BENCH_PEERS)
#include "cgal_peer.hpp"
#include "qhull_peer.hpp"
#endif
#if defined(WAGENER_BENCH_PBBS)
#include "pbbs_peer.hpp"
#endif
#include "core/parallel_slices.hpp"
#include "cpu/filter_pass.hpp"
#include "cpu/lex_sort.hpp"
#include "cpu/monotone_chain.hpp"
#include "families.hpp"
#include "wagener/hull.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using wagener::Point2;
static_assert(sizeof(Point2<double>) == 2 * sizeof(double), "Qhull is handed the points as a flat array");

// The cpu backend's slicing (src/cpu/parallel_hull.cpp: kMinPointsPerThread): the floor uses the
// thread count the backend uses for the same n.
constexpr std::size_t kMinPointsPerThread = 1 << 16;

struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
};

/// The process's minor page faults so far (a freshly mapped page costs one on first touch).
long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

/// One timed call of run(), appended to ms; its digest must be the warm-up's.
template <class Run>
void time_one(const std::string& what, std::uint64_t digest, Run& run, std::vector<double>& ms) {
  const auto start = Clock::now();
  const std::uint64_t d = run();
  ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  if (d != digest) throw std::runtime_error(what + " gave different results on identical runs");
}

/// Median, least and most of the timed calls.
Timing summarise(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  const std::size_t m = ms.size() / 2;
  return {ms.size() % 2 ? ms[m] : (ms[m - 1] + ms[m]) / 2, ms.front(), ms.back()};
}

/// One untimed warm-up, then `runs` timed calls; the median is robust to the odd preempted run on a
/// shared machine. run() returns a digest of its result, which every run must reproduce.
template <class Run>
Timing time_runs(const std::string& what, int runs, Run&& run) {
  std::fprintf(stderr, "  %s\n", what.c_str());
  const std::uint64_t digest = run();
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) time_one(what, digest, run, ms);
  return summarise(std::move(ms));
}

/// Two things timed in turn, a then b, `runs` times after one untimed warm-up each, as time_runs
/// times one: each row's floor and calls then share whatever state the machine is in. Timed one
/// after the other, the floors of two processes in one run on the 16-core machine differed 1.5-2x,
/// either way round (bench/NOTES.md).
template <class RunA, class RunB>
std::pair<Timing, Timing> time_in_turn(const std::string& what_a, const std::string& what_b, int runs,
                                       RunA&& run_a, RunB&& run_b) {
  std::fprintf(stderr, "  %s and %s, in turn\n", what_a.c_str(), what_b.c_str());
  const std::uint64_t digest_a = run_a(), digest_b = run_b();
  std::vector<double> ms_a, ms_b;
  for (int i = 0; i < runs; ++i) {
    time_one(what_a, digest_a, run_a, ms_a);
    time_one(what_b, digest_b, run_b, ms_b);
  }
  return {summarise(std::move(ms_a)), summarise(std::move(ms_b))};
}

/// The floor: every byte of the array read once, on `threads` threads started the way the backend
/// starts its own (core/parallel_slices.hpp). Summing the raw bits as integers lets the compiler
/// vectorise freely, so memory bandwidth is the only limit.
template <class T>
std::uint64_t read_once(std::span<const Point2<T>> pts, std::size_t threads) {
  std::vector<std::uint64_t> partial(threads);
  wagener::detail::run_slices(pts.size() * sizeof(Point2<T>) / 8, threads,
                              [&](std::size_t t, std::size_t begin, std::size_t end) {
                                const auto* words = reinterpret_cast<const unsigned char*>(pts.data());
                                std::uint64_t s = 0;
                                for (std::size_t i = begin; i < end; ++i) {
                                  std::uint64_t w;
                                  std::memcpy(&w, words + 8 * i, 8);
                                  s += w;
                                }
                                partial[t] = s;
                              });
  std::uint64_t s = 0;
  for (const std::uint64_t p : partial) s += p;
  return s;
}

[[maybe_unused]] std::vector<Point2<double>> canonical(std::vector<Point2<double>> hull) {
  std::rotate(hull.begin(), std::min_element(hull.begin(), hull.end(), wagener::lex_less<double>),
              hull.end());
  return hull;
}

[[maybe_unused]] std::string fmt(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

struct Options {
  std::vector<std::size_t> sizes = {1'000'000, 10'000'000, 100'000'000};
  std::vector<std::string> families = {"disk", "square", "gaussian", "in-circle", "kuzmin"};
  std::vector<std::string> precisions = {"f64", "f32"};
  int runs = 9;
  std::size_t peers_up_to = 10'000'000;
  wagener::cpu::FilterKernel kernel = wagener::cpu::FilterKernel::widest;
  unsigned threads = 0;  // 0: one per hardware thread
  bool phases = false;
  bool presorted = false;
};

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) items.push_back(item);
  return items;
}

int family_index(const std::string& name) {
  for (int f = 0; f < static_cast<int>(std::size(bench::kAllFamilies)); ++f) {
    if (name == bench::kAllFamilies[f]) return f;
  }
  throw std::invalid_argument("unknown family " + name);
}

const char* kernel_name(wagener::cpu::FilterKernel kernel) {
  switch (kernel) {
    case wagener::cpu::FilterKernel::widest: return "widest";
    case wagener::cpu::FilterKernel::avx512: return "avx512";
    case wagener::cpu::FilterKernel::avx2: return "avx2";
    case wagener::cpu::FilterKernel::scalar: return "scalar";
  }
  return "?";
}

#if defined(WAGENER_BENCH_PEERS)
/// CGAL and Qhull on the same f64 points; their medians into `cgal` and `qhull`. False when CGAL's
/// hull is not wagener's.
bool run_peers(const Options& o, const std::vector<Point2<double>>& pts,
               const std::vector<Point2<double>>& hull, std::string& cgal, std::string& qhull) {
  const std::size_t n = pts.size();
  bool ok = true;
  std::vector<bench::CgalPoint> cgal_pts;
  cgal_pts.reserve(n);
  for (const auto& p : pts) cgal_pts.emplace_back(static_cast<double>(p.x), static_cast<double>(p.y));
  std::vector<Point2<double>> cgal_hull;
  const Timing c = time_runs("CGAL", std::min(o.runs, 5), [&] {
    const auto h = bench::cgal_hull(cgal_pts.begin(), cgal_pts.end());
    cgal_hull.clear();
    for (const auto& p : h) cgal_hull.push_back({p.x(), p.y()});
    return h.size();
  });
  if (canonical(cgal_hull) != hull) {
    std::fprintf(stderr, "*** MISMATCH: CGAL %zu vertices, wagener %zu ***\n", cgal_hull.size(), hull.size());
    ok = false;
  }
  cgal = fmt("%.1f", c.median_ms);
  const std::span<const double> flat(&pts.data()->x, 2 * n);
  const Timing q = time_runs("Qhull", std::min(o.runs, 5), [&] { return bench::qhull_hull(flat).size(); });
  qhull = fmt("%.1f", q.median_ms);
  return ok;
}

#endif

/// Rows where a peer that is not exact gave a hull other than wagener's, listed under the table.
std::vector<std::string> hull_notes;

#if defined(WAGENER_BENCH_PBBS)
/// PBBS's quickhull on the same f64 points, converted to its point type before the clock starts; its
/// median into `pbbs`. A vertex set other than wagener's goes into hull_notes.
void run_pbbs(const Options& o, const std::string& family, const std::vector<Point2<double>>& pts,
              const std::vector<Point2<double>>& hull, std::string& pbbs) {
  bench::PbbsQuickhull quickhull(pts.data(), pts.size());
  const Timing t = time_runs("PBBS quickhull", o.runs, [&] { return quickhull.run(); });
  pbbs = fmt("%.2f", t.median_ms);
  std::vector<Point2<double>> theirs = quickhull.vertices(), ours = hull;
  std::sort(theirs.begin(), theirs.end(), wagener::lex_less<double>);
  std::sort(ours.begin(), ours.end(), wagener::lex_less<double>);
  if (theirs != ours) {
    const std::size_t missing =
        static_cast<std::size_t>(std::count_if(ours.begin(), ours.end(), [&](const auto& p) {
          return !std::binary_search(theirs.begin(), theirs.end(), p, wagener::lex_less<double>);
        }));
    hull_notes.push_back(family + " f64 n=" + std::to_string(pts.size()) + ": PBBS quickhull " +
                         std::to_string(theirs.size()) + " vertices, wagener " + std::to_string(ours.size()) +
                         "; " + std::to_string(missing) + " of wagener's vertices not in PBBS's hull");
    std::fprintf(stderr, "  note: %s\n", hull_notes.back().c_str());
  }
}
#endif

/// One row of --presorted: the points sorted, the presorted upper hull's calls against the floor and
/// the serial chain. Returns false where a chain differs from the serial one.
template <class T>
bool bench_presorted_case(const Options& o, const std::string& family, std::vector<Point2<T>>& pts,
                          const char* precision) {
  const std::size_t n = pts.size();
  std::fprintf(stderr, "  sorting\n");
  wagener::cpu::sort_lexicographic(pts.data(), n);
  const std::size_t threads =
      wagener::detail::slice_count(n, wagener::detail::resolve_threads(o.threads), kMinPointsPerThread);
  const std::span<const Point2<T>> span(pts);
  std::vector<Point2<T>> chain, serial, api_chain;
  std::int64_t survivors = 0;
  const wagener::cpu::FilterPolicy policy{wagener::cpu::FilterUse::automatic, o.kernel, o.threads};
  const auto [floor, ours] = time_in_turn(
      "floor: read once, " + std::to_string(threads) + " threads", "wagener cpu presorted", o.runs,
      [&] { return read_once(span, threads); },
      [&] {
        chain = wagener::cpu::upper_chain_filtered<T>(span, &survivors, policy);
        return chain.size();
      });
  const Timing before = time_runs("serial chain", std::min(o.runs, 5), [&] {
    serial = wagener::cpu::upper_chain<T>(span);
    return serial.size();
  });
  const Timing api = time_runs("wagener::upper_hull", o.runs, [&] {
    api_chain = wagener::upper_hull<T>(span, {wagener::Backend::cpu, nullptr});
    return api_chain.size();
  });
  const bool ok = chain == serial && api_chain == serial;
  if (!ok)
    std::fprintf(stderr, "*** MISMATCH: %s %s n=%zu: a chain differs from the serial one ***\n",
                 family.c_str(), precision, n);
  std::printf("| %s | %s | %zu | %zu | %.2f | %.2f (%.2f–%.2f) | **%.2f×** | %.2f | %.2f | %.3f %% | %zu |\n",
              family.c_str(), precision, n, threads, floor.median_ms, ours.median_ms, ours.min_ms,
              ours.max_ms, ours.median_ms / floor.median_ms, before.median_ms, api.median_ms,
              100.0 * static_cast<double>(survivors) / static_cast<double>(n), chain.size());
  std::fflush(stdout);
  return ok;
}

/// One table row: the floor, wagener, and (f64, small enough) the peers. Returns false on a mismatch.
template <class T>
bool bench_case(const Options& o, const std::string& family, std::size_t n, const char* precision) {
  std::fprintf(stderr, "%s %s n=%zu: generating\n", family.c_str(), precision, n);
  const int f = family_index(family);
  std::vector<Point2<T>> pts(n);
  const auto point = [f](std::size_t i) {
    if constexpr (std::is_same_v<T, std::int64_t>) {
      const auto scaled = [](double v) {
        return static_cast<std::int64_t>(std::clamp(std::ldexp(v, 58), -0x1p62, 0x1p62));
      };
      const auto p = bench::full_family_point<double>(i, f);
      return Point2<T>{scaled(p.x), scaled(p.y)};
    } else {
      return bench::full_family_point<T>(i, f);
    }
  };
  wagener::detail::run_slices(n, wagener::detail::resolve_threads(0),
                              [&](std::size_t, std::size_t b, std::size_t e) {
                                for (std::size_t i = b; i < e; ++i) pts[i] = point(i);
                              });
  if (o.presorted) return bench_presorted_case(o, family, pts, precision);
  const std::size_t threads =
      wagener::detail::slice_count(n, wagener::detail::resolve_threads(o.threads), kMinPointsPerThread);
  const std::span<const Point2<T>> span(pts);

  std::vector<Point2<T>> hull;
  std::int64_t survivors = 0;
  const wagener::cpu::FilterPolicy policy{wagener::cpu::FilterUse::automatic, o.kernel, o.threads};
  const auto [floor, ours] = time_in_turn(
      "floor: read once, " + std::to_string(threads) + " threads", "wagener cpu", o.runs,
      [&] { return read_once(span, threads); },
      [&] {
        hull = wagener::cpu::convex_hull_parallel<T>(span, &survivors, policy);
        return hull.size();
      });
  if (o.phases) {
    // Medians over the row's calls once more, each phase on its own (they need not add up to the
    // median call: each is the median of its own column).
    std::vector<wagener::cpu::FilterPhases> calls(static_cast<std::size_t>(o.runs));
    std::vector<long> faults;  // minor page faults of the whole process during each call
    for (auto& call : calls) {
      wagener::cpu::FilterPolicy timed = policy;
      timed.phases = &call;
      const long before = minor_faults();
      wagener::cpu::convex_hull_parallel<T>(span, nullptr, timed);
      faults.push_back(minor_faults() - before);
    }
    std::sort(faults.begin(), faults.end());
    const auto median_ms = [&](double wagener::cpu::FilterPhases::*field) {
      std::vector<double> v;
      for (const auto& call : calls) v.push_back(call.*field * 1e3);
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    using P = wagener::cpu::FilterPhases;
    std::fprintf(stderr,
                 "  phases (ms, medians of %d): sample %.3f | filter region %.3f (slowest pass %.3f, slowest "
                 "survivors' hull %.3f) | join %.3f | minor page faults %ld\n",
                 o.runs, median_ms(&P::sample), median_ms(&P::pass), median_ms(&P::slowest_pass),
                 median_ms(&P::slowest_survivors), median_ms(&P::join), faults[faults.size() / 2]);
  }
  // The public entry point (input checks, dispatch) on top of the backend call, for comparison.
  const Timing api = time_runs("wagener::convex_hull", o.runs, [&] {
    return wagener::convex_hull<T>(span, {wagener::Backend::cpu, nullptr}).size();
  });

  std::string cgal = "—", qhull = "—", pbbs = "—";
  bool ok = true;
  if constexpr (std::is_same_v<T, std::int64_t>) {
    if (n <= o.peers_up_to && hull != wagener::cpu::convex_hull_serial<T>(span)) {
      std::fprintf(stderr, "*** MISMATCH: %s i64 n=%zu: the serial chain's hull differs ***\n",
                   family.c_str(), n);
      ok = false;
    }
  }
#if defined(WAGENER_BENCH_PEERS)
  if constexpr (std::is_same_v<T, double>) {
    if (n <= o.peers_up_to) ok = run_peers(o, pts, hull, cgal, qhull);
  }
#endif
#if defined(WAGENER_BENCH_PBBS)
  // Last in the row: ParlayLib's idle workers keep stealing for up to 10 ms before they sleep, and
  // the next thing timed is a row's floor, after its generation.
  if constexpr (std::is_same_v<T, double>) run_pbbs(o, family, pts, hull, pbbs);
#endif
  std::printf(
      "| %s | %s | %zu | %zu | %.2f | %.2f (%.2f–%.2f) | **%.2f×** | %.2f | %.3f %% | %zu | %s | %s | %s |\n",
      family.c_str(), precision, n, threads, floor.median_ms, ours.median_ms, ours.min_ms, ours.max_ms,
      ours.median_ms / floor.median_ms, api.median_ms,
      100.0 * static_cast<double>(survivors) / static_cast<double>(n), hull.size(), cgal.c_str(),
      qhull.c_str(), pbbs.c_str());
  std::fflush(stdout);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (i + 1 >= argc) throw std::invalid_argument("missing value after " + arg);
      const std::string value = argv[++i];
      if (arg == "--sizes") {
        o.sizes.clear();
        for (const auto& s : split(value)) o.sizes.push_back(static_cast<std::size_t>(std::stod(s)));
      } else if (arg == "--families") {
        o.families = split(value);
        for (const auto& f : o.families) family_index(f);
      } else if (arg == "--precisions") {
        o.precisions = split(value);
      } else if (arg == "--runs") {
        o.runs = std::stoi(value);
      } else if (arg == "--threads") {
        o.threads = static_cast<unsigned>(std::stoul(value));
      } else if (arg == "--phases") {
        o.phases = std::stoi(value) != 0;
      } else if (arg == "--presorted") {
        o.presorted = std::stoi(value) != 0;
      } else if (arg == "--peers-up-to") {
        o.peers_up_to = static_cast<std::size_t>(std::stod(value));
      } else if (arg == "--kernel") {
        using wagener::cpu::FilterKernel;
        const FilterKernel kernels[] = {FilterKernel::widest, FilterKernel::avx512, FilterKernel::avx2,
                                        FilterKernel::scalar};
        bool found = false;
        for (const FilterKernel k : kernels) {
          if (value == kernel_name(k)) o.kernel = k, found = true;
        }
        if (!found || !wagener::cpu::filter_kernel_supported(o.kernel))
          throw std::invalid_argument("kernel " + value + " is unknown or not supported here");
      } else {
        throw std::invalid_argument("unknown option " + arg);
      }
    }
    if (o.runs < 5) throw std::invalid_argument("--runs must be at least 5 for a meaningful median");
  } catch (const std::exception& e) {
    std::fprintf(
        stderr,
        "bench_cpu_floor: %s\nusage: bench_cpu_floor [--sizes 1e6,1e7,1e8] [--families "
        "disk,square,gaussian,in-circle,kuzmin] [--precisions f64,f32,i64] [--runs 9] [--peers-up-to 1e7] "
        "[--kernel widest|avx512|avx2|scalar] [--threads T] [--phases 1] [--presorted 1]\n",
        e.what());
    return 2;
  }
  const auto kernel =
      o.kernel == wagener::cpu::FilterKernel::widest ? wagener::cpu::widest_filter_kernel() : o.kernel;
  std::printf(
      "Filter kernel: %s; hardware threads: %u; median of %d runs after one warm-up (CGAL, Qhull: %d).\n",
      kernel_name(kernel), std::thread::hardware_concurrency(), o.runs, std::min(o.runs, 5));
#if defined(WAGENER_BENCH_PBBS)
  const char* parlay_env = std::getenv("PARLAY_NUM_THREADS");
  const std::string parlay_source = parlay_env != nullptr
                                        ? std::string("PARLAY_NUM_THREADS=") + parlay_env
                                        : (o.threads > 0 ? "from --threads" : "every hardware thread");
  try {
    const unsigned workers = bench::pbbs_start_workers(o.threads);
    std::printf(
        "PBBS quickhull: ParlayLib scheduler with %u workers (%s); median of %d runs after one warm-up.\n",
        workers, parlay_source.c_str(), o.runs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cpu_floor: PARLAY_NUM_THREADS: %s\n", e.what());
    return 2;
  }
#endif
  std::printf("\n");
  if (o.presorted) {
    std::printf(
        "| family (sorted) | type | n | threads | floor ms | wagener cpu ms (min–max) | ratio to floor | "
        "serial "
        "chain ms | upper_hull() ms | survivors | vertices |\n");
    std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  } else {
    std::printf(
        "| family | type | n | threads | floor ms | wagener cpu ms (min–max) | ratio to floor | "
        "convex_hull() "
        "ms | "
        "survivors | vertices | CGAL ms | Qhull ms | PBBS quickhull ms |\n");
    std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  }
  bool ok = true;
  try {
    for (const std::size_t n : o.sizes) {
      for (const auto& precision : o.precisions) {
        for (const auto& family : o.families) {
          if (precision == "f64") {
            ok &= bench_case<double>(o, family, n, "f64");
          } else if (precision == "f32") {
            ok &= bench_case<float>(o, family, n, "f32");
          } else if (precision == "i64") {
            ok &= bench_case<std::int64_t>(o, family, n, "i64");
          } else {
            throw std::invalid_argument("unknown precision " + precision);
          }
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cpu_floor: %s\n", e.what());
    return 1;
  }
#if defined(WAGENER_BENCH_PBBS)
  if (hull_notes.empty()) {
    std::printf("\nPBBS's quickhull gave wagener's vertices on every f64 row.\n");
  } else {
    std::printf("\nPBBS's quickhull (not exact) differs from wagener's hull on %zu row(s):\n",
                hull_notes.size());
    for (const auto& note : hull_notes) std::printf("- %s\n", note.c_str());
  }
#endif
  if (!ok) {
    std::fprintf(stderr, "bench_cpu_floor: hull mismatch (see above)\n");
    return 1;
  }
  return 0;
}
