// The dispatcher: picks a backend and keeps the statistics. The only file that knows them all.
#include "wagener/hull.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>

#include "core/chains.hpp"
#include "cpu/monotone_chain.hpp"
#include "cuda/cuda_backend.hpp"
#include "pram/pram_hull.hpp"
#include "wagener/error.hpp"

namespace wagener {
namespace {

// auto: the GPU when a device is present and the input has at least this many points, else the
// CPU. Measured for full hulls from host memory (bench_cuda --crossover, H100 against 16 cores,
// bench/RESULTS.md): the GPU is faster from 2^15 float and 2^16 double points on a uniform disk,
// slower below (fixed costs of about 0.2-0.3 ms). Presorted upper hulls take the same threshold: the
// CPU scan wins at 2^11, the GPU by 90x at 2^20.
constexpr std::size_t kMinPointsForGpu = std::size_t{1} << 16;

Backend resolve(const HullOptions& options, std::size_t n) {
  if (options.trace) {
    // The emulator and the CUDA backend report rounds (the same ones: the trace is defined by the
    // input alone; tests/test_trace*.cpp check it). auto picks the emulator, the reference.
    if (options.backend == Backend::automatic || options.backend == Backend::pram) return Backend::pram;
    if (options.backend == Backend::cuda) return Backend::cuda;
    throw unsupported_error("a trace needs the pram or cuda backend (the " +
                            std::string(backend_name(options.backend)) + " backend does not report rounds)");
  }
  if (options.backend != Backend::automatic) return options.backend;
  return n >= kMinPointsForGpu && cuda::device_available() ? Backend::cuda : Backend::cpu;
}

/// A backend's rounds of one chain, relabelled for the sink. A lower chain ran on the reflected,
/// reversed points: map its hoods back so that they read left to right in the input's coordinates.
template <class T>
std::function<void(TraceRound<T>&&)> trace_observer(TraceSink* sink, Chain chain) {
  if (!sink) return {};
  return [sink, chain](TraceRound<T>&& r) {
    r.chain = chain;
    if (chain == Chain::lower) {
      std::reverse(r.corners.begin(), r.corners.end());
      for (auto& p : r.corners) p = core::reflected(p);
      std::reverse(r.hood_sizes.begin(), r.hood_sizes.end());
      const auto hoods = static_cast<index_t>(r.hood_sizes.size());
      for (auto& b : r.bridges) b = {hoods - 1 - b.hood, core::reflected(b.b), core::reflected(b.a)};
      std::reverse(r.bridges.begin(), r.bridges.end());
    }
    sink->on_round(r);
  };
}

template <class T>
void require_finite(std::span<const Point2<T>> points) {
  const auto bad = cpu::first_non_finite(points);
  if (bad >= 0) throw input_error("point " + std::to_string(bad) + " is not finite");
}

template <class T>
void require_sorted(std::span<const Point2<T>> points) {
  const auto bad = cpu::first_unsorted(points);
  if (bad >= 0) {
    throw input_error("points are not sorted by (x, y): point " + std::to_string(bad) +
                      " is smaller than point " + std::to_string(bad - 1));
  }
}

void add_pram_counters(HullStats& stats, const pram::Counters& c) {
  stats.rounds += c.rounds;
  stats.parallel_steps += c.parallel_steps;
  stats.work += c.work;
  stats.max_processors = std::max(stats.max_processors, c.max_processors);
}

/// Full hull from an upper-hull routine upper_hull_of(sorted, observer): sort, the upper chain, then
/// the lower chain by reflection, each chain's rounds reported to `sink` (if any) under its label.
template <class T, class UpperHull>
std::vector<Point2<T>> chains_by_upper_hulls(std::span<const Point2<T>> points, TraceSink* sink,
                                             UpperHull&& upper_hull_of) {
  require_finite(points);
  std::vector<Point2<T>> sorted(points.begin(), points.end());
  std::sort(sorted.begin(), sorted.end(), lex_less<T>);
  const auto upper = upper_hull_of(std::span<const Point2<T>>(sorted), trace_observer<T>(sink, Chain::upper));
  const auto lower = core::lower_chain_by_reflection<T>(sorted, [&](std::span<const Point2<T>> s) {
    return upper_hull_of(s, trace_observer<T>(sink, Chain::lower));
  });
  return core::join_chains<T>(lower, upper);
}

template <class F>
auto timed(HullStats& stats, F&& f) {
  const auto start = std::chrono::steady_clock::now();
  auto result = f();
  stats.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace

Backend parse_backend(std::string_view name) {
  if (name == "auto") return Backend::automatic;
  if (name == "cpu") return Backend::cpu;
  if (name == "pram") return Backend::pram;
  if (name == "cuda") return Backend::cuda;
  throw std::invalid_argument("unknown backend \"" + std::string(name) + "\" (auto, cpu, pram, cuda)");
}

std::string_view backend_name(Backend backend) {
  switch (backend) {
    case Backend::automatic: return "auto";
    case Backend::cpu: return "cpu";
    case Backend::pram: return "pram";
    case Backend::cuda: return "cuda";
  }
  return "?";
}

bool cuda_available() {
  return cuda::device_available();
}

template <class T>
std::vector<Point2<T>> upper_hull(std::span<const Point2<T>> sorted, const HullOptions& options) {
  HullStats stats;
  stats.backend = resolve(options, sorted.size());
  stats.points = static_cast<std::int64_t>(sorted.size());
  require_finite(sorted);
  require_sorted(sorted);
  auto hull = timed(stats, [&] {
    switch (stats.backend) {
      case Backend::pram: {
        pram::Counters counters;
        auto h = pram::upper_hull(sorted, &counters, trace_observer<T>(options.trace, Chain::upper));
        add_pram_counters(stats, counters);
        return h;
      }
      case Backend::cuda:
        if (options.trace)
          return cuda::upper_hull_traced(sorted, trace_observer<T>(options.trace, Chain::upper));
        return cuda::upper_hull(sorted, &stats);
      default: return cpu::upper_chain(sorted);
    }
  });
  stats.hull_vertices = static_cast<std::int64_t>(hull.size());
  if (options.stats) *options.stats = stats;
  return hull;
}

template <class T>
std::vector<Point2<T>> convex_hull(std::span<const Point2<T>> points, const HullOptions& options) {
  HullStats stats;
  stats.backend = resolve(options, points.size());
  stats.points = static_cast<std::int64_t>(points.size());
  auto hull = timed(stats, [&] {
    switch (stats.backend) {
      case Backend::pram:
        return chains_by_upper_hulls<T>(points, options.trace,
                                        [&](std::span<const Point2<T>> s, auto&& observer) {
                                          pram::Counters counters;
                                          auto h = pram::upper_hull(s, &counters, observer);
                                          add_pram_counters(stats, counters);
                                          return h;
                                        });
      case Backend::cuda:
        if (options.trace) return chains_by_upper_hulls<T>(points, options.trace, cuda::upper_hull_traced<T>);
        return cuda::convex_hull(points, &stats);
      default: return cpu::convex_hull_parallel(points, &stats.survivors);
    }
  });
  stats.hull_vertices = static_cast<std::int64_t>(hull.size());
  if (options.stats) *options.stats = stats;
  return hull;
}

template std::vector<Point2<float>> upper_hull(std::span<const Point2<float>>, const HullOptions&);
template std::vector<Point2<double>> upper_hull(std::span<const Point2<double>>, const HullOptions&);
template std::vector<Point2<float>> convex_hull(std::span<const Point2<float>>, const HullOptions&);
template std::vector<Point2<double>> convex_hull(std::span<const Point2<double>>, const HullOptions&);

}  // namespace wagener
