// Host-side entry points of the CUDA backend: transfers, workspaces, timing.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>

#include "core/chains.hpp"
#include "cuda/buffers.cuh"
#include "cuda/check.cuh"
#include "cuda/cuda_backend.hpp"
#include "cuda/upper_hull.cuh"
#include "wagener/cuda.hpp"
#include "wagener/error.hpp"

namespace wagener::cuda {
namespace {

// Host data reaches the device through two pinned staging buffers of this many bytes, so the copy
// of one chunk into pinned memory overlaps the DMA of the previous one.
constexpr std::size_t kStagingBytes = std::size_t{32} << 20;

template <class T>
void copy_to_device(std::span<const Point2<T>> host, Point2<T>* device, cudaStream_t stream) {
  const std::size_t chunk = kStagingBytes / sizeof(Point2<T>);
  const std::size_t staging_points = std::min(chunk, host.size());
  PinnedBuffer<Point2<T>> staging[2] = {PinnedBuffer<Point2<T>>(staging_points),
                                        PinnedBuffer<Point2<T>>(staging_points)};
  Event done[2];
  bool pending[2] = {false, false};
  for (std::size_t off = 0, i = 0; off < host.size(); off += chunk, i ^= 1) {
    const std::size_t count = std::min(chunk, host.size() - off);
    if (pending[i]) WAGENER_CUDA_CHECK(cudaEventSynchronize(done[i].get()));
    std::memcpy(staging[i].data(), host.data() + off, count * sizeof(Point2<T>));
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(device + off, staging[i].data(), count * sizeof(Point2<T>),
                                       cudaMemcpyHostToDevice, stream));
    done[i].record(stream);
    pending[i] = true;
  }
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <class T>
std::vector<Point2<T>> copy_to_host(const DeviceHull<T>& hull, cudaStream_t stream) {
  std::vector<Point2<T>> out(static_cast<std::size_t>(hull.size));
  if (hull.size > 0) {
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(out.data(), hull.data, out.size() * sizeof(Point2<T>),
                                       cudaMemcpyDeviceToHost, stream));
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  return out;
}

template <class T>
UpperHullWorkspace<T>& thread_workspace() {
  thread_local UpperHullWorkspace<T> workspace;
  return workspace;
}

}  // namespace

bool device_available() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

template <class T>
std::vector<Point2<T>> upper_hull(std::span<const Point2<T>> sorted, HullStats* stats) {
  Stream stream;
  DeviceBuffer<Point2<T>> points(sorted.size());
  Event t0, t1, t2;
  t0.record(stream.get());
  copy_to_device(sorted, points.data(), stream.get());
  t1.record(stream.get());
  const auto hull = upper_hull_on_device(points.data(), static_cast<index_t>(sorted.size()),
                                         thread_workspace<T>(), stream.get(), /*validate=*/false);
  t2.record(stream.get());
  auto out = copy_to_host(hull, stream.get());
  if (stats) {
    stats->transfer_milliseconds = t1.since(t0);
    stats->device_milliseconds = t2.since(t1);
  }
  return out;
}

template <class T>
std::vector<Point2<T>> convex_hull(std::span<const Point2<T>> points, HullStats* stats) {
  // Until the device-side filter and sort exist: sort on the host, both chains on the device.
  std::vector<Point2<T>> sorted(points.begin(), points.end());
  std::sort(sorted.begin(), sorted.end(), lex_less<T>);
  const index_t n = static_cast<index_t>(sorted.size());
  Stream stream;
  DeviceBuffer<Point2<T>> d_sorted(sorted.size()), d_mirror(sorted.size());
  Event t0, t1, t2;
  t0.record(stream.get());
  copy_to_device<T>(sorted, d_sorted.data(), stream.get());
  t1.record(stream.get());
  auto& ws = thread_workspace<T>();
  const auto upper =
      copy_to_host(upper_hull_on_device(d_sorted.data(), n, ws, stream.get(), true), stream.get());
  reflect_reversed(d_sorted.data(), n, d_mirror.data(), stream.get());
  auto lower = copy_to_host(upper_hull_on_device(d_mirror.data(), n, ws, stream.get(), false), stream.get());
  t2.record(stream.get());
  std::reverse(lower.begin(), lower.end());
  for (auto& p : lower) p = core::reflected(p);
  if (stats) {
    stats->transfer_milliseconds = t1.since(t0);
    stats->device_milliseconds = t2.since(t1);
  }
  return core::join_chains<T>(lower, upper);
}

template <class T>
index_t upper_hull_device(const Point2<T>* d_sorted, index_t n, Point2<T>* d_hull, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  const auto hull = upper_hull_on_device(d_sorted, n, thread_workspace<T>(), s, /*validate=*/true);
  if (hull.size > 0) {
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(d_hull, hull.data,
                                       static_cast<std::size_t>(hull.size) * sizeof(Point2<T>),
                                       cudaMemcpyDeviceToDevice, s));
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(s));
  }
  return hull.size;
}

template std::vector<Point2<float>> upper_hull(std::span<const Point2<float>>, HullStats*);
template std::vector<Point2<double>> upper_hull(std::span<const Point2<double>>, HullStats*);
template std::vector<Point2<float>> convex_hull(std::span<const Point2<float>>, HullStats*);
template std::vector<Point2<double>> convex_hull(std::span<const Point2<double>>, HullStats*);
template index_t upper_hull_device(const Point2<float>*, index_t, Point2<float>*, void*);
template index_t upper_hull_device(const Point2<double>*, index_t, Point2<double>*, void*);

}  // namespace wagener::cuda
