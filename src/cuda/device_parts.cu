// Data already spread over several devices (wagener/cuda.hpp's convex_hull_of_parts): each part
// hulled where it lies by a host thread of its own, the hulls merged on the host.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/check.cuh"
#include "cuda/convex_hull.cuh"
#include "cuda/cuda_backend.hpp"
#include "cuda/device_workers.cuh"
#include "wagener/cuda.hpp"
#include "wagener/error.hpp"
#include "wagener/hull.hpp"

namespace wagener::cuda {
namespace {

/// The device whose memory holds `pointer`; std::invalid_argument for host or unknown memory.
int device_of(const void* pointer, std::size_t part) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) cudaGetLastError();
  if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged) {
    throw std::invalid_argument("part " + std::to_string(part) +
                                ": its points are not in device memory (convex_hull_of_parts hulls data "
                                "already on the devices; compute_hull takes host points)");
  }
  return attributes.device;
}

}  // namespace

template <class T>
std::vector<Point2<T>> convex_hull_of_parts(std::span<const DevicePoints<T>> parts, HullStats* stats) {
  require_device();
  const std::size_t k = parts.size();
  std::vector<int> devices(k, -1);
  for (std::size_t i = 0; i < k; ++i) {
    if (parts[i].count < 0) throw std::invalid_argument("part " + std::to_string(i) + ": a negative count");
    if (parts[i].count > 0) devices[i] = device_of(parts[i].points, i);
  }
  std::vector<std::vector<Point2<T>>> hulls(k);
  std::vector<index_t> survivors(k, 0);
  std::vector<double> milliseconds(k, 0);
  std::vector<std::exception_ptr> errors(k);
  std::vector<std::pair<int, std::function<void()>>> jobs;
  for (std::size_t i = 0; i < k; ++i) {
    if (parts[i].count == 0) continue;
    // Each device's worker keeps its streams and workspaces from call to call.
    jobs.emplace_back(devices[i], [&, i] {
      try {
        const auto start = std::chrono::steady_clock::now();
        hulls[i] = convex_hull_on_device(parts[i].points, parts[i].count,
                                         static_cast<cudaStream_t>(parts[i].stream), &survivors[i]);
        milliseconds[i] =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  }
  run_on_devices(std::move(jobs));
  for (std::size_t i = 0; i < k; ++i) {
    if (!errors[i]) continue;
    try {
      std::rethrow_exception(errors[i]);
    } catch (const input_error& e) {
      throw input_error("part " + std::to_string(i) + ": " + e.what());
    }
  }
  if (stats) {
    *stats = HullStats{};  // this call's figures only, however often the caller passes the same stats
    stats->backend = Backend::cuda;
    for (std::size_t i = 0; i < k; ++i) {
      stats->points += parts[i].count;
      stats->survivors += survivors[i];
      stats->device_milliseconds = std::max(stats->device_milliseconds, milliseconds[i]);
    }
  }
  std::vector<std::span<const Point2<T>>> spans(hulls.begin(), hulls.end());
  auto hull = merge_hulls<T>(spans);
  if (stats) stats->hull_vertices = static_cast<std::int64_t>(hull.size());
  return hull;
}

#define WAGENER_INSTANTIATE(T) \
  template std::vector<Point2<T>> convex_hull_of_parts(std::span<const DevicePoints<T>>, HullStats*);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::cuda
