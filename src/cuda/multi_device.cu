// Several GPUs in one process: one slice of the points per device, each hulled by a host thread of
// its own on its device, the hulls merged on the host by the one hull-of-hulls merge.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cpu/monotone_chain.hpp"
#include "cuda/check.cuh"
#include "cuda/cuda_backend.hpp"
#include "cuda/device_workers.cuh"
#include "wagener/error.hpp"
#include "wagener/hull.hpp"

namespace wagener::cuda {
namespace {

/// The devices a list names, {all_devices} resolved; every one must exist.
std::vector<int> resolve_devices(std::span<const int> devices) {
  int count = 0;
  WAGENER_CUDA_CHECK(cudaGetDeviceCount(&count));
  std::vector<int> out;
  if (devices.size() == 1 && devices[0] == all_devices) {
    for (int d = 0; d < count; ++d) out.push_back(d);
    return out;
  }
  for (const int d : devices) {
    if (d < 0 || d >= count) {
      throw std::invalid_argument(
          "CUDA device " + std::to_string(d) + " does not exist: this machine has " + std::to_string(count) +
          (count == 1 ? " device (0)" : " devices (0-" + std::to_string(count - 1) + ")"));
    }
    out.push_back(d);
  }
  return out;
}

}  // namespace

template <class T>
std::vector<Point2<T>> convex_hull_on_devices(std::span<const Point2<T>> points, std::span<const int> devices,
                                              HullStats* stats) {
  const std::vector<int> ids = resolve_devices(devices);
  // Contiguous slices of equal size: the hull does not care which points go together, and a file's
  // points are then read from memory in order. Fewer points than devices leaves devices idle.
  const std::size_t k = ids.size();
  std::vector<std::vector<Point2<T>>> hulls(k);
  std::vector<HullStats> slice_stats(k);
  std::vector<std::exception_ptr> errors(k);
  std::vector<std::pair<int, std::function<void()>>> jobs;
  for (std::size_t i = 0; i < k; ++i) {
    const std::size_t first = points.size() / k * i + std::min(i, points.size() % k);
    const std::size_t count = points.size() / k + (i < points.size() % k ? 1 : 0);
    if (count == 0) continue;
    // Each device's worker keeps its streams, workspaces and staging from call to call.
    jobs.emplace_back(ids[i], [&, i, first, count] {
      try {
        hulls[i] = convex_hull(points.subspan(first, count), &slice_stats[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  }
  run_on_devices(std::move(jobs));
  for (const auto& error : errors) {
    if (!error) continue;
    try {
      std::rethrow_exception(error);
    } catch (const input_error&) {
      // A slice names a non-finite point by its index in the slice: name it in the whole input.
      if (const std::int64_t bad = cpu::first_non_finite(points); bad >= 0) {
        throw input_error("point " + std::to_string(bad) + " is not finite");
      }
      throw;
    }
  }
  if (stats) {
    for (const HullStats& s : slice_stats) {
      stats->survivors += s.survivors;
      // The devices run at once: the slowest one's times are the call's.
      stats->transfer_milliseconds = std::max(stats->transfer_milliseconds, s.transfer_milliseconds);
      stats->device_milliseconds = std::max(stats->device_milliseconds, s.device_milliseconds);
    }
  }
  std::vector<std::span<const Point2<T>>> parts(hulls.begin(), hulls.end());
  return merge_hulls<T>(parts);
}

#define WAGENER_INSTANTIATE(T)                                                                             \
  template std::vector<Point2<T>> convex_hull_on_devices(std::span<const Point2<T>>, std::span<const int>, \
                                                         HullStats*);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::cuda
