// The dispatcher: picks a backend and keeps the statistics. The only file that knows them all.
#include "wagener/hull.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/chains.hpp"
#include "core/parallel_slices.hpp"
#include "cost_model.hpp"
#include "cpu/monotone_chain.hpp"
#include "cuda/cuda_backend.hpp"
#include "pram/pram_hull.hpp"
#include "wagener/calibration.hpp"
#include "wagener/error.hpp"

namespace wagener {
namespace {

// Below this many points auto never considers the GPU: its fixed costs (a few ms even with a warm
// context) exceed the CPU's whole call (2^20 f64 points: about 5 ms on 16 cores, bench/RESULTS.md).
constexpr std::size_t kMinPointsForGpu = std::size_t{1} << 20;
// The survivor estimate hulls about this many evenly spaced points: about 0.3 ms, where 8192 cost
// auto 2-3 ms against the CPU's whole 14 ms at 10^7 points (bench/RESULTS.md).
constexpr std::size_t kEstimateSample = 2048;
// A sample hull holding at least this fraction of the sample is hull-like (a circle): the filter
// keeps nearly everything (the CPU backend's own rule for disabling its filter).
constexpr double kHullLikeFraction = 0.1;
// Otherwise the full call's larger sample (32k points) discards more than this one: a uniform disk's
// 2048-point sample hull holds about 2.1 % of it, the CPU's filter keeps 0.35 % of the points.
constexpr double kSurvivorsPerSampleVertex = 0.17;

/// Of a strided sample of kEstimateSample points, the share not exact in double (64-bit integers
/// beyond 2^53): the device's filter keeps every such point (cost::Workload).
template <class T>
double share_not_exact_in_double(std::span<const Point2<T>> points) {
  if constexpr (exact_in_double_v<T>) {
    return 0;
  } else {
    const std::size_t stride = std::max<std::size_t>(1, points.size() / kEstimateSample);
    std::size_t inexact = 0, sampled = 0;
    for (std::size_t i = 0; i < points.size(); i += stride, ++sampled)
      inexact += converts_exactly(points[i]) ? 0 : 1;
    return sampled > 0 ? static_cast<double>(inexact) / static_cast<double>(sampled) : 0;
  }
}

template <class T>
double estimated_survivor_fraction(std::span<const Point2<T>> points) {
  const std::size_t stride = std::max<std::size_t>(1, points.size() / kEstimateSample);
  std::vector<Point2<T>> sample;
  sample.reserve(points.size() / stride + 1);
  for (std::size_t i = 0; i < points.size(); i += stride) sample.push_back(points[i]);
  const double share =
      static_cast<double>(cpu::convex_hull_serial<T>(sample).size()) / static_cast<double>(sample.size());
  return share >= kHullLikeFraction ? 1.0 : share * kSurvivorsPerSampleVertex;
}

// Whether this process has run a hull on the device: its first call pays for pinned staging and
// workspaces (GpuRates::first_call_ms).
std::atomic<bool> device_used{false};

std::string prediction_basis(const cost::Workload& work, const MachineRates& rates, bool estimated) {
  char survivors[96], source[64], numbers[256];
  if (estimated) {
    std::snprintf(survivors, sizeof survivors, "survivors ~%.3g %% (a sample of %zu points)",
                  work.survivor_fraction * 100, kEstimateSample);
  } else {
    std::snprintf(survivors, sizeof survivors, "survivors not estimated (they could not change the choice)");
  }
  std::snprintf(source, sizeof source, "rates of this machine, %s %s",
                rates.measuring_ms > 0 ? "measured" : "cached", rates.measured_at.c_str());
  std::snprintf(
      numbers, sizeof numbers,
      "cpu %.3g GB/s, %.3g ns a survivor; cuda start %.0f ms, first call %.0f ms, %.3g GB/s, %.3g ns a "
      "survivor",
      rates.cpu.stream_gbs, rates.cpu.ns_per_survivor, rates.gpu.startup_ms, rates.gpu.first_call_ms,
      rates.gpu.copy_gbs,
      work.single_precision ? rates.gpu.ns_per_survivor_float : rates.gpu.ns_per_survivor_double);
  std::string device_keeps;
  if (work.device_unfiltered_fraction > 0) {
    char line[96];
    std::snprintf(line, sizeof line, "; the device's filter keeps ~%.3g %% (beyond 2^53)",
                  work.device_unfiltered_fraction * 100);
    device_keeps = line;
  }
  return std::string(survivors) + device_keeps + "; " + source +
         (rates.cache_path.empty() ? std::string(" (no cache folder)") : " (" + rates.cache_path + ")") +
         ": " + numbers;
}

/// auto without a trace: the GPU when the cost model, with the rates measured on this machine,
/// predicts it finishes first, counting what is left of the device's start-up; the CPU for small
/// inputs, without a device, or while the device's start-up alone would outlast the CPU's whole call.
template <class T>
Backend choose_backend(std::span<const Point2<T>> points, bool sorted_upper, HullStats& stats) {
  const std::size_t n = points.size();
  if (n < kMinPointsForGpu) return Backend::cpu;
  if (cuda::device_startup().state == cuda::DeviceStartup::State::failed) return Backend::cpu;
  // Cached rates cost a file read; missing ones are measured now (the device's with it, so the
  // device is started and waited for only on a machine whose GPU rates are not known yet).
  const MachineRates rates = machine_rates(/*with_gpu=*/true);
  if (!rates.gpu.measured()) return Backend::cpu;  // no usable device when they were measured
  cost::Workload work;
  work.points = static_cast<double>(n);
  work.point_bytes = sizeof(Point2<T>);
  work.sorted_upper = sorted_upper;
  // The device's survivors cost float's rate for floats only: int32 points are tested in double.
  work.single_precision = std::is_same_v<T, float>;
  if (!sorted_upper) work.device_unfiltered_fraction = share_not_exact_in_double(points);
  const bool first_call = !device_used.load(std::memory_order_relaxed);
  auto startup = cuda::device_startup();
  // Survivors cost the CPU more than the GPU. Spend a sample on estimating them only when they can
  // change the answer: the GPU loses with none and would win with all.
  const auto gpu_wins = [&](double fraction) {
    cost::Workload w = work;
    w.survivor_fraction = fraction;
    return cost::predict(w, rates, startup.elapsed_milliseconds, first_call).cuda_first();
  };
  const bool estimate = !sorted_upper && !gpu_wins(0.0) && gpu_wins(1.0);
  if (estimate) work.survivor_fraction = estimated_survivor_fraction(points);
  startup = cuda::device_startup();
  const cost::Prediction prediction = cost::predict(work, rates, startup.elapsed_milliseconds, first_call);
  stats.predicted_cpu_milliseconds = prediction.cpu_ms;
  stats.predicted_cuda_milliseconds = prediction.cuda_ms;
  stats.prediction_basis = prediction_basis(work, rates, estimate);
  if (!prediction.cuda_first()) return Backend::cpu;
  // Worth waiting for: the start-up finishes (or fails) inside device_available().
  return cuda::device_available() ? Backend::cuda : Backend::cpu;
}

template <class T>
Backend resolve(const HullOptions& options, std::span<const Point2<T>> points, bool sorted_upper,
                HullStats& stats) {
  if (options.trace && options.pram_merge == PramMerge::optimal) {
    throw unsupported_error("a trace shows the seed's rounds; the optimal-work merge has other rounds");
  }
  if (options.trace) {
    // The emulator and the CUDA backend report rounds (the same ones: the trace is defined by the
    // input alone; tests/test_trace*.cpp check it). auto picks the emulator, the reference.
    if (options.backend == Backend::automatic || options.backend == Backend::pram) return Backend::pram;
    if (options.backend == Backend::cuda) {
      cuda::require_device();
      return Backend::cuda;
    }
    throw unsupported_error("a trace needs the pram or cuda backend (the " +
                            std::string(backend_name(options.backend)) + " backend does not report rounds)");
  }
  if (options.backend == Backend::cuda) cuda::require_device();
  if (options.backend != Backend::automatic) return options.backend;
  return choose_backend(points, sorted_upper, stats);
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

/// Throws the input_error for what a check of the presorted promise found, if anything.
void require_promise_kept(const cpu::PresortedCheck& found) {
  if (found.non_finite >= 0)
    throw input_error("point " + std::to_string(found.non_finite) + " is not finite");
  if (found.unsorted >= 0) {
    throw input_error("points are not sorted by (x, y): point " + std::to_string(found.unsorted) +
                      " is smaller than point " + std::to_string(found.unsorted - 1));
  }
}

/// A presorted input's promise, checked in one read on all cores: every point finite, then sorted.
template <class T>
void require_finite_and_sorted(std::span<const Point2<T>> points) {
  require_promise_kept(cpu::check_presorted(points));
}

/// The pram backend's upper hull: the merge options.pram_merge names (the trace needs the seed's).
template <class T>
std::vector<Point2<T>> pram_upper_hull(std::span<const Point2<T>> sorted, const HullOptions& options,
                                       pram::Counters* counters,
                                       const std::function<void(TraceRound<T>&&)>& observer) {
  if (options.pram_merge == PramMerge::optimal) return pram::upper_hull_optimal(sorted, counters);
  return pram::upper_hull(sorted, counters, observer);
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

/// Upper chain of a full hull (counter-clockwise from the lexicographically smallest vertex): the
/// smallest vertex, then the vertices from the last back to the largest one. The largest point is
/// always a vertex, and a hull of one or two vertices is its own upper chain. In place: a new vector
/// for a hull of 10^7 vertices cost more in page faults than the rest of the step.
template <class T>
std::vector<Point2<T>> upper_chain_of_hull(std::vector<Point2<T>> hull) {
  if (hull.size() <= 2) return hull;
  const auto largest = std::max_element(hull.begin(), hull.end(), lex_less<T>);
  hull.erase(hull.begin() + 1, largest);  // the lower chain's interior
  std::reverse(hull.begin() + 1, hull.end());
  return hull;
}

/// The upper hull of sorted points on the chosen backend: validated, unless `check` asks the cpu
/// backend to check the promise as it reads them.
template <class T>
std::vector<Point2<T>> upper_hull_of_sorted(std::span<const Point2<T>> sorted, const HullOptions& options,
                                            HullStats& stats, bool check = false) {
  switch (stats.backend) {
    case Backend::pram: {
      pram::Counters counters;
      auto h = pram_upper_hull(sorted, options, &counters, trace_observer<T>(options.trace, Chain::upper));
      add_pram_counters(stats, counters);
      return h;
    }
    case Backend::cuda:
      if (options.trace)
        return cuda::upper_hull_traced(sorted, trace_observer<T>(options.trace, Chain::upper));
      return cuda::upper_hull(sorted, &stats);
    default: {
      if (!check) return cpu::upper_chain_filtered(sorted, &stats.survivors);
      cpu::PresortedCheck found;
      auto chain = cpu::upper_chain_filtered(sorted, &stats.survivors, &found);
      require_promise_kept(found);
      return chain;
    }
  }
}

/// The full hull of points in any order on the chosen backend.
template <class T>
std::vector<Point2<T>> full_hull(std::span<const Point2<T>> points, const HullOptions& options,
                                 HullStats& stats) {
  switch (stats.backend) {
    case Backend::pram:
      return chains_by_upper_hulls<T>(points, options.trace,
                                      [&](std::span<const Point2<T>> s, auto&& observer) {
                                        pram::Counters counters;
                                        auto h = pram_upper_hull(s, options, &counters, observer);
                                        add_pram_counters(stats, counters);
                                        return h;
                                      });
    case Backend::cuda:
      if (options.trace) return chains_by_upper_hulls<T>(points, options.trace, cuda::upper_hull_traced<T>);
      return cuda::convex_hull(points, &stats);
    default: return cpu::convex_hull_parallel(points, &stats.survivors);
  }
}

/// A device list asks for the cuda backend (auto may still pick the CPU) and for no trace, which
/// follows the rounds of one device.
void require_devices_usable(const HullOptions& options) {
  if (options.devices.empty()) return;
  if (options.backend == Backend::cpu || options.backend == Backend::pram) {
    throw std::invalid_argument("a device list (--devices) needs the cuda or auto backend, not " +
                                std::string(backend_name(options.backend)));
  }
  if (options.trace)
    throw std::invalid_argument("a trace follows one device: it takes no device list (--devices)");
}

template <class T>
std::vector<Point2<T>> hull_vertices(std::span<const Point2<T>> points, const HullOptions& options,
                                     HullStats& stats) {
  const bool upper = options.part == HullPart::upper;
  require_devices_usable(options);
  stats.backend = resolve(options, points, upper && options.presorted, stats);
  // The cpu backend's presorted upper chain checks the promise in the read that filters the points
  // (one read of memory, not two); every other path checks it first.
  const bool checked_by_chain = options.presorted && upper && stats.backend == Backend::cpu;
  if (options.presorted && !checked_by_chain) require_finite_and_sorted(points);
  if (stats.backend == Backend::cuda && !options.devices.empty()) {
    // Several devices: the slices' hulls are merged into the full hull, whose upper chain is the hood.
    return timed(stats, [&] {
      auto hull = cuda::convex_hull_on_devices(points, options.devices, &stats);
      return upper ? upper_chain_of_hull(std::move(hull)) : hull;
    });
  }
  if (stats.backend == Backend::cuda) device_used.store(true, std::memory_order_relaxed);
  return timed(stats, [&] {
    if (!upper) return full_hull(points, options, stats);
    if (options.presorted) return upper_hull_of_sorted(points, options, stats, checked_by_chain);
    if (stats.backend == Backend::pram || options.trace) {
      // Wagener's rounds are defined on sorted input (and a trace shows them): sort first.
      require_finite(points);
      std::vector<Point2<T>> sorted(points.begin(), points.end());
      std::sort(sorted.begin(), sorted.end(), lex_less<T>);
      return upper_hull_of_sorted(std::span<const Point2<T>>(sorted), options, stats);
    }
    // The full hull's filtered pipeline, which sorts only the survivors, holds the upper chain.
    return upper_chain_of_hull(full_hull(points, options, stats));
  });
}

}  // namespace

Backend parse_backend(std::string_view name) {
  if (name == "auto") return Backend::automatic;
  if (name == "cpu") return Backend::cpu;
  if (name == "pram") return Backend::pram;
  if (name == "cuda") return Backend::cuda;
  throw std::invalid_argument("unknown backend \"" + std::string(name) + "\" (auto, cpu, pram, cuda)");
}

PramMerge parse_pram_merge(std::string_view name) {
  if (name == "seed") return PramMerge::seed;
  if (name == "optimal") return PramMerge::optimal;
  throw std::invalid_argument("unknown pram merge \"" + std::string(name) + "\" (seed, optimal)");
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

std::vector<int> parse_devices(std::string_view list) {
  const auto bad = [&](const std::string& why) {
    return std::invalid_argument("bad device list \"" + std::string(list) + "\": " + why +
                                 " (expected all, or device numbers separated by commas such as 0,1)");
  };
  if (list == "all") return {all_devices};
  std::vector<int> devices;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view item = list.substr(start, comma - start);
    int device = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), device);
    if (item.empty() || error != std::errc{} || end != item.data() + item.size() || device < 0) {
      throw bad("\"" + std::string(item) + "\" is not a device number");
    }
    if (std::find(devices.begin(), devices.end(), device) != devices.end()) {
      throw bad("device " + std::to_string(device) + " is named twice");
    }
    devices.push_back(device);
    if (comma == list.size()) break;
    start = comma + 1;
  }
  return devices;
}

bool cuda_available() {
  return cuda::device_available();
}

template <class T>
HullResult<T> compute_hull(std::span<const Point2<T>> points, const HullOptions& options) {
  HullStats stats;
  stats.points = static_cast<std::int64_t>(points.size());
  HullResult<T> result;
  result.vertices = hull_vertices(points, options, stats);
  stats.hull_vertices = static_cast<std::int64_t>(result.vertices.size());
  if (options.indices) result.indices = vertex_indices<T>(points, result.vertices);
  if (options.stats) *options.stats = stats;
  return result;
}

template <class T>
std::vector<Point2<T>> upper_hull(std::span<const Point2<T>> sorted, const HullOptions& options) {
  HullOptions o = options;
  o.part = HullPart::upper;
  o.presorted = true;
  o.indices = false;
  return compute_hull(sorted, o).vertices;
}

template <class T>
std::vector<Point2<T>> convex_hull(std::span<const Point2<T>> points, const HullOptions& options) {
  HullOptions o = options;
  o.part = HullPart::full;
  o.indices = false;
  return compute_hull(points, o).vertices;
}

void warm_up(Backend backend) {
  if (backend == Backend::automatic || backend == Backend::cuda) cuda::start_device();
}

bool warm_up_pending() {
  return cuda::device_startup().state == cuda::DeviceStartup::State::pending;
}

#define WAGENER_INSTANTIATE(T)                                                                \
  template HullResult<T> compute_hull(std::span<const Point2<T>>, const HullOptions&);        \
  template std::vector<Point2<T>> upper_hull(std::span<const Point2<T>>, const HullOptions&); \
  template std::vector<Point2<T>> convex_hull(std::span<const Point2<T>>, const HullOptions&);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener
