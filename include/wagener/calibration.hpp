// The rates behind Backend::automatic, measured on the machine where it runs and kept between
// processes in a small cache file, in the spirit of FFTW's wisdom: a cost model whose constants were
// measured on another machine picks the slower backend where cores, memory or the device differ.
#pragma once

#include <string>

namespace wagener {

/// The CPU backend on this machine, with all of its threads.
struct CpuRates {
  double fixed_ms = 0;          ///< a call on a few points: the thread team, the sample, the merges
  double stream_gbs = 0;        ///< the filter pass over points in memory, GB/s of input
  double sorted_upper_gbs = 0;  ///< the presorted upper chain (filtered, all cores), GB/s of input
  double ns_per_survivor = 0;   ///< sorting and chaining one point the filter kept (the whole machine)
  bool measured() const { return stream_gbs > 0 && sorted_upper_gbs > 0 && ns_per_survivor > 0; }
};

/// The CUDA backend on this machine's device, from host memory, as a fresh process meets it.
struct GpuRates {
  double startup_ms = 0;              ///< the driver and the primary context
  double first_call_ms = 0;           ///< a process's first hull on the device pays this on top
                                      ///< (pinned staging buffers, workspaces)
  double fixed_ms = 0;                ///< a later call on a few points: launches, copies back
  double copy_gbs = 0;                ///< the staged copy in with the filter overlapped, GB/s of input
  double ns_per_survivor_double = 0;  ///< sorting and chaining one surviving point, double
  double ns_per_survivor_float = 0;   ///< the same, float
  bool measured() const {
    return startup_ms > 0 && copy_gbs > 0 && ns_per_survivor_double > 0 && ns_per_survivor_float > 0;
  }
};

/// This machine's rates and where they came from.
struct MachineRates {
  CpuRates cpu;
  GpuRates gpu;             ///< all 0 when no device was usable
  std::string machine;      ///< what the rates belong to: host, processor, threads, build
  std::string device;       ///< the device the GPU rates belong to ("" without one)
  std::string measured_at;  ///< when, UTC (ISO 8601)
  std::string cache_path;   ///< the file that keeps them ("" where no cache folder is known)
  double measuring_ms = 0;  ///< time this process spent measuring them (0: all from the cache)
};

/// The cache file for this machine and build: $XDG_CACHE_HOME/wagener/rates-HASH.txt, else
/// ~/.cache/wagener/rates-HASH.txt; "" when neither variable is set. HASH names the machine (host
/// name, processor, hardware threads) and the build (the library's binary), so one home folder
/// shared by several hosts keeps one file each, and a new build measures afresh.
std::string calibration_cache_path();

/// The rates auto decides with. From the cache file when it holds rates of this machine and build;
/// otherwise (missing, unreadable, corrupt, or written for another machine or build) measured now,
/// about 0.2-1 s of synthetic hulls, and written back atomically (a temporary file renamed into
/// place, so concurrent writers leave one whole file). With `with_gpu`, the device's rates too: cached
/// ones are used without starting the device; missing ones are measured where a device is usable
/// (its start-up is then waited for). The file names the device they were measured on; a machine
/// whose device changes keeps them until `remeasure` (`wagener calibrate`), which ignores the cache.
/// Measured once per process at most; safe to call from several threads at once. A cache that
/// cannot be written is not an error: the rates then last as long as the process.
MachineRates machine_rates(bool with_gpu = true, bool remeasure = false);

}  // namespace wagener
