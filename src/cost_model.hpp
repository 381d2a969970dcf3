// The cost model behind Backend::automatic: predicted milliseconds of one hull call on the CPU and
// on the GPU, from host memory, for the process as it stands (cores, the device's start-up so far).
// Every constant is a measurement on the H100 machine (16 cores) or the 2-core machine, named in
// bench/NOTES.md ("auto's cost model"); bench/RESULTS.md shows the choices against both backends.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace wagener::cost {

/// What the call must do, as far as it can be known before doing it.
struct Workload {
  double points = 0;             ///< n
  double point_bytes = 16;       ///< sizeof(Point2<T>)
  double survivor_fraction = 0;  ///< of the points, those the interior filter is expected to keep
  bool sorted_upper = false;     ///< a presorted upper hull (serial scan on the CPU, no filter)
  bool single_precision = false;
};

// CPU: the filter pass streams the input at about 3.5 GB/s per core up to 21 GB/s (10^7 f64 points
// in 23 ms on 2 cores; 10^8 in 75 ms on 16), the presorted upper chain at 4 GB/s on one core; each
// survivor costs about 110 ns to sort and chain (a 10^7-point circle in 1.11 s on 16 cores).
constexpr double kCpuStreamPerCoreGBs = 3.5;
constexpr double kCpuStreamMaxGBs = 21;
constexpr double kCpuSerialScanGBs = 4;
constexpr double kCpuNsPerSurvivor = 110;
constexpr double kCpuFixedMs = 0.2;

// GPU from host memory: the driver and context start in 320-350 ms; the two pinned staging
// buffers (64 MB each) cost about 0.55 ms per MB to allocate; the staged copy with the filter overlapped runs
// at about 25 GB/s; each survivor costs about 25 ns (double: a 10^7-point circle's sort and chains took 321
// ms) or 1 ns (float); the launches, sample polygon and copies back about 3 ms.
constexpr double kDeviceStartupMs = 350;
constexpr double kStagingMsPerMB = 0.55;
constexpr double kStagingMaxMB = 128;
constexpr double kCopyGBs = 25;
constexpr double kCudaNsPerSurvivorDouble = 25;
constexpr double kCudaNsPerSurvivorFloat = 1;
constexpr double kCudaFixedMs = 3;

inline double input_megabytes(const Workload& w) {
  return w.points * w.point_bytes / 1e6;
}

inline double cpu_milliseconds(const Workload& w, unsigned cores) {
  if (w.sorted_upper) return kCpuFixedMs + input_megabytes(w) / kCpuSerialScanGBs;
  const double stream_gbs = std::min(kCpuStreamMaxGBs, kCpuStreamPerCoreGBs * std::max(1u, cores));
  return kCpuFixedMs + input_megabytes(w) / stream_gbs +
         w.points * w.survivor_fraction * kCpuNsPerSurvivor * 1e-6;
}

/// `startup_elapsed_ms`: how long the device has been starting (0 if not yet begun).
inline double cuda_milliseconds(const Workload& w, double startup_elapsed_ms) {
  const double startup = std::max(0.0, kDeviceStartupMs - startup_elapsed_ms);
  const double staging = kStagingMsPerMB * std::min(kStagingMaxMB, 2 * input_megabytes(w));
  const double per_survivor = w.single_precision ? kCudaNsPerSurvivorFloat : kCudaNsPerSurvivorDouble;
  const double survivors = w.sorted_upper ? 0 : w.points * w.survivor_fraction * per_survivor * 1e-6;
  return startup + staging + input_megabytes(w) / kCopyGBs + survivors + kCudaFixedMs;
}

}  // namespace wagener::cost
