// The cost model behind Backend::automatic: predicted milliseconds of one hull call on the CPU and
// on the GPU, from host memory, for the process as it stands (the device's start-up so far). The
// rates are measured on the machine where it runs (src/calibration.hpp), not constants measured
// elsewhere: a model whose rates came from a 16-core host picked the slower backend on a 32-core one.
#pragma once

#include <algorithm>
#include <cstddef>

#include "wagener/calibration.hpp"

namespace wagener::cost {

/// What the call must do, as far as it can be known before doing it.
struct Workload {
  double points = 0;             ///< n
  double point_bytes = 16;       ///< sizeof(Point2<T>)
  double survivor_fraction = 0;  ///< of the points, those the interior filter is expected to keep
  bool sorted_upper = false;     ///< a presorted upper hull (CPU: the filter, then chains, no sort)
  bool single_precision = false;
  /// Of the points, those the device's full-hull filter keeps whatever the hull: 64-bit integers
  /// beyond 2^53, which its polygons never certify (their corners are points exact in double), so
  /// every one is sorted there, where the CPU's octagon drops most (bench/NOTES.md, "The CUDA
  /// backend on 64-bit integers beyond 2^53, measured").
  double device_unfiltered_fraction = 0;
};

inline double input_megabytes(const Workload& w) {
  return w.points * w.point_bytes / 1e6;
}

inline double cpu_milliseconds(const Workload& w, const wagener::CpuRates& r) {
  if (w.sorted_upper) return r.fixed_ms + input_megabytes(w) / r.sorted_upper_gbs;
  return r.fixed_ms + input_megabytes(w) / r.stream_gbs +
         w.points * w.survivor_fraction * r.ns_per_survivor * 1e-6;
}

/// `startup_elapsed_ms`: how long the device has been starting (0 if not yet begun); `first_call`:
/// whether this process has yet to run a hull on the device.
inline double cuda_milliseconds(const Workload& w, const wagener::GpuRates& r, double startup_elapsed_ms,
                                bool first_call) {
  const double startup = std::max(0.0, r.startup_ms - startup_elapsed_ms);
  const double per_survivor = w.single_precision ? r.ns_per_survivor_float : r.ns_per_survivor_double;
  const double survivors =
      w.sorted_upper
          ? 0
          : w.points * std::max(w.survivor_fraction, w.device_unfiltered_fraction) * per_survivor * 1e-6;
  return startup + (first_call ? r.first_call_ms : 0) + r.fixed_ms + input_megabytes(w) / r.copy_gbs +
         survivors;
}

/// Both predictions for one call, from this machine's rates.
struct Prediction {
  double cpu_ms = 0;
  double cuda_ms = 0;
  bool cuda_first() const { return cuda_ms < cpu_ms; }
};

inline Prediction predict(const Workload& w, const wagener::MachineRates& rates, double startup_elapsed_ms,
                          bool first_call) {
  return {cpu_milliseconds(w, rates.cpu), cuda_milliseconds(w, rates.gpu, startup_elapsed_ms, first_call)};
}

}  // namespace wagener::cost
