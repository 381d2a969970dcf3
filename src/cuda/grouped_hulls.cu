// Grouped hulls on the device: one pipeline for all the groups, never a launch per group.
//  1. hull_small_groups: a warp per group reads the group's points (coalesced), checks them, finds
//     the eight extreme points (src/core/small_hull.hpp), compacts the points the extreme polygon
//     cannot discard into shared memory, sorts them by rank across the warp, and one lane runs the
//     monotone chain there;
//     the warp writes the hull into the group's own range of a scratch array. A group too large for
//     this (more points than kWarpGroupPoints, or more survivors than kWarpSurvivors) is deferred.
//  2. Deferred groups, listed by the kernel: the large ones on the device's single-hull pipeline
//     (convex_hull_on_device), the rest on the host's (compute_hull). Rare for the inputs this is for
//     (many small groups); hull-like groups of hundreds of points take this path.
//  3. An inclusive scan of the hull sizes (CUB) gives the hull offsets, and a warp per group copies
//     its hull into place.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cub/device/device_scan.cuh>
#include <string>
#include <vector>

#include "core/small_hull.hpp"
#include "cuda/buffers.cuh"
#include "cuda/check.cuh"
#include "cuda/convex_hull.cuh"
#include "cuda/cuda_backend.hpp"
#include "cuda/grouped_backend.hpp"
#include "cuda/launch.cuh"
#include "wagener/cuda.hpp"
#include "wagener/error.hpp"
#include "wagener/hull.hpp"

namespace wagener::cuda {
namespace {

// One warp per group, four warps per block: the shared buffers of four warps (double: 2 x 129
// elements of 32 bytes each) stay within the 48 KB a block may take statically.
constexpr int kWarp = 32;
constexpr int kWarpsPerBlock = 4;
// Groups of more points than this are deferred: a warp would take too long over them.
constexpr index_t kWarpGroupPoints = 4096;
// Survivors of the filter one warp sorts and chains in shared memory (a 100-point disk leaves ~10).
constexpr int kWarpSurvivors = 128;
// Deferred groups above this size run on the device's single-hull pipeline, the others on the host.
constexpr index_t kDeviceGroupPoints = index_t{1} << 16;

template <class T>
struct Keyed {
  Point2<T> p;
  int index;  // within the group (< kWarpGroupPoints)
};

template <class T>
__device__ bool keyed_less(const Keyed<T>& a, const Keyed<T>& b) {
  if (a.p.x != b.p.x) return a.p.x < b.p.x;
  if (a.p.y != b.p.y) return a.p.y < b.p.y;
  return a.index < b.index;
}

template <class T>
__device__ void shuffle_point(Point2<T>& p, int lane) {
  p.x = __shfl_sync(0xffffffffu, p.x, lane);
  p.y = __shfl_sync(0xffffffffu, p.y, lane);
}

/// Kernel 1 (see the file comment). Writes counts[g] (-1: deferred, listed in deferred[]) and the
/// hull of each group it finishes at scratch[offsets[g] ...] (indices at scratch_index, global).
template <class T>
__global__ void hull_small_groups(const Point2<T>* points, const std::int64_t* offsets, index_t groups,
                                  HullPart part, Point2<T>* scratch, std::int64_t* scratch_index,
                                  std::int64_t* counts, std::int64_t* deferred,
                                  unsigned long long* deferred_count, unsigned long long* first_bad) {
  __shared__ Keyed<T> kept_all[kWarpsPerBlock][kWarpSurvivors];
  __shared__ Keyed<T> chain_all[kWarpsPerBlock][kWarpSurvivors + 1];
  const int warp = static_cast<int>(threadIdx.x) / kWarp;
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const index_t g = static_cast<index_t>(blockIdx.x) * kWarpsPerBlock + warp;
  if (g >= groups) return;  // the whole warp leaves together
  Keyed<T>* kept = kept_all[warp];
  Keyed<T>* chain = chain_all[warp];
  const std::int64_t begin = offsets[g];
  const index_t n = offsets[g + 1] - begin;
  const Point2<T>* group = points + begin;
  if (n == 0) {
    if (lane == 0) counts[g] = 0;
    return;
  }

  // Pass 1: finiteness and this lane's extremes.
  core::ExtremePolygon<T> polygon;
  polygon.start(group[0]);
  bool finite = true;
  index_t bad = LLONG_MAX;
  for (index_t i = lane; i < n; i += kWarp) {
    const Point2<T> p = group[i];
    if (!(isfinite(p.x) && isfinite(p.y))) {
      finite = false;
      bad = min(bad, i);
    } else {
      polygon.add(p);
    }
  }
  if (!finite) atomicMin(first_bad, static_cast<unsigned long long>(begin + bad));
  if (__any_sync(0xffffffffu, !finite)) return;  // reported; the call fails
  if (n > kWarpGroupPoints) {
    if (lane == 0) {
      counts[g] = -1;
      deferred[atomicAdd(deferred_count, 1ull)] = g;
    }
    return;
  }
  // The warp's extremes: each corner is the best of the lanes' (ties: any; every choice of input
  // points as corners is a valid filter, so lanes need not agree).
  polygon.reduce_warp();
  polygon.finish();

  // Pass 2: compact the survivors into shared memory, in index order.
  int m = 0;
  for (index_t base = 0; base < n; base += kWarp) {
    const index_t i = base + lane;
    const bool keep = i < n && !polygon.strictly_inside(group[i]);
    const unsigned ballot = __ballot_sync(0xffffffffu, keep);
    const int at = m + __popc(ballot & ((1u << lane) - 1u));
    if (keep && at < kWarpSurvivors) kept[at] = {group[i], static_cast<int>(i)};
    m += __popc(ballot);
  }
  if (m > kWarpSurvivors) {
    if (lane == 0) {
      counts[g] = -1;
      deferred[atomicAdd(deferred_count, 1ull)] = g;
    }
    return;
  }
  __syncwarp();
  // Sorted by rank across the warp: each survivor's place is the number of survivors less than it
  // (all keys differ: the index breaks ties), m steps of broadcast reads a lane. Lane 0 alone,
  // sorting by insertion and chaining, issued about 70 % of the kernel's warp instructions with one
  // thread active (ncu, bench/NOTES.md).
  for (int i = lane; i < m; i += kWarp) {
    const Keyed<T> e = kept[i];
    int rank = 0;
    for (int j = 0; j < m; ++j) rank += keyed_less(kept[j], e) ? 1 : 0;
    chain[rank] = e;
  }
  __syncwarp();
  for (int i = lane; i < m; i += kWarp) kept[i] = chain[i];
  __syncwarp();
  int k = 0;
  if (lane == 0) {
    k = core::chain_sorted(kept, m, chain, part, [](const Keyed<T>& e) -> const Point2<T>& { return e.p; });
    counts[g] = k;
  }
  k = __shfl_sync(0xffffffffu, k, 0);
  __syncwarp();
  for (int v = lane; v < k; v += kWarp) {
    scratch[begin + v] = chain[v].p;
    if (scratch_index) scratch_index[begin + v] = begin + chain[v].index;
  }
}

/// Kernel 3: a warp per group copies its hull from its input range of the scratch into place.
template <class T>
__global__ void gather_hulls(const Point2<T>* scratch, const std::int64_t* scratch_index,
                             const std::int64_t* offsets, const std::int64_t* hull_offsets, index_t groups,
                             Point2<T>* hull, std::int64_t* indices) {
  const index_t g = (static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  if (g >= groups) return;
  const std::int64_t from = offsets[g], to = hull_offsets[g], k = hull_offsets[g + 1] - to;
  for (std::int64_t v = lane; v < k; v += kWarp) {
    hull[to + v] = scratch[from + v];
    if (indices) indices[to + v] = scratch_index[from + v];
  }
}

/// The hull of a deferred group, by the single-hull paths, into the group's range of the scratch.
template <class T>
std::int64_t hull_deferred_group(const Point2<T>* d_group, std::int64_t begin, index_t n, HullPart part,
                                 bool with_indices, Point2<T>* scratch, std::int64_t* scratch_index,
                                 cudaStream_t stream) {
  std::vector<Point2<T>> vertices;
  std::vector<std::int64_t> indices;
  if (n > kDeviceGroupPoints && part == HullPart::full && !with_indices) {
    vertices = convex_hull_on_device(d_group, n, stream, nullptr);
  } else {
    std::vector<Point2<T>> group(static_cast<std::size_t>(n));
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(group.data(), d_group, group.size() * sizeof(Point2<T>),
                                       cudaMemcpyDeviceToHost, stream));
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    HullOptions options;
    options.backend = Backend::cpu;
    options.part = part;
    options.indices = with_indices;
    HullResult<T> r = compute_hull<T>(group, options);
    vertices = std::move(r.vertices);
    for (const std::int64_t i : r.indices) indices.push_back(begin + i);
  }
  if (!vertices.empty()) {
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(scratch + begin, vertices.data(), vertices.size() * sizeof(Point2<T>),
                                       cudaMemcpyHostToDevice, stream));
  }
  if (with_indices && !indices.empty()) {
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(scratch_index + begin, indices.data(),
                                       indices.size() * sizeof(std::int64_t), cudaMemcpyHostToDevice,
                                       stream));
  }
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host vectors go out of scope
  return static_cast<std::int64_t>(vertices.size());
}

}  // namespace

template <class T>
index_t convex_hulls_device(const Point2<T>* d_points, const std::int64_t* d_offsets, index_t n,
                            index_t groups, Point2<T>* d_hull, std::int64_t* d_hull_offsets,
                            std::int64_t* d_indices, HullPart part, void* stream_handle) {
  const auto stream = static_cast<cudaStream_t>(stream_handle);
  WAGENER_CUDA_CHECK(cudaMemsetAsync(d_hull_offsets, 0, sizeof(std::int64_t), stream));
  if (groups == 0) {
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    return 0;
  }
  const bool with_indices = d_indices != nullptr;
  DeviceBuffer<Point2<T>> scratch(static_cast<std::size_t>(std::max<index_t>(n, 1)));
  DeviceBuffer<std::int64_t> scratch_index(with_indices ? static_cast<std::size_t>(std::max<index_t>(n, 1))
                                                        : 0);
  DeviceBuffer<std::int64_t> deferred(static_cast<std::size_t>(groups));
  DeviceBuffer<unsigned long long> flags(2);  // [0] deferred groups, [1] first non-finite point
  const unsigned long long initial[2] = {0, ULLONG_MAX};
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(flags.data(), initial, sizeof initial, cudaMemcpyHostToDevice, stream));
  // The sizes go straight into the hull offsets (shifted by one), which the scan then sums in place.
  std::int64_t* counts = d_hull_offsets + 1;
  const auto blocks = static_cast<unsigned>(ceil_div(groups, kWarpsPerBlock));
  hull_small_groups<T><<<blocks, kWarpsPerBlock * kWarp, 0, stream>>>(
      d_points, d_offsets, groups, part, scratch.data(), scratch_index.data(), counts, deferred.data(),
      flags.data(), flags.data() + 1);
  WAGENER_CUDA_CHECK_LAUNCH();
  unsigned long long status[2] = {0, 0};
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(status, flags.data(), sizeof status, cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (status[1] != ULLONG_MAX) throw input_error("point " + std::to_string(status[1]) + " is not finite");

  if (status[0] > 0) {
    std::vector<std::int64_t> late(status[0]);
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(late.data(), deferred.data(), late.size() * sizeof(std::int64_t),
                                       cudaMemcpyDeviceToHost, stream));
    std::vector<std::int64_t> late_offsets(2 * late.size());
    for (std::size_t i = 0; i < late.size(); ++i) {
      WAGENER_CUDA_CHECK(cudaMemcpyAsync(&late_offsets[2 * i], d_offsets + late[i], 2 * sizeof(std::int64_t),
                                         cudaMemcpyDeviceToHost, stream));
    }
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (std::size_t i = 0; i < late.size(); ++i) {
      const std::int64_t begin = late_offsets[2 * i];
      const std::int64_t k =
          hull_deferred_group(d_points + begin, begin, late_offsets[2 * i + 1] - begin, part, with_indices,
                              scratch.data(), scratch_index.data(), stream);
      WAGENER_CUDA_CHECK(cudaMemcpyAsync(counts + late[i], &k, sizeof k, cudaMemcpyHostToDevice, stream));
      WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
  }

  std::size_t temp_bytes = 0;
  WAGENER_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, counts, counts, groups, stream));
  DeviceBuffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));
  WAGENER_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.data(), temp_bytes, counts, counts, groups, stream));
  constexpr int kGatherThreads = 256;
  gather_hulls<T>
      <<<static_cast<unsigned>(ceil_div(groups * kWarp, kGatherThreads)), kGatherThreads, 0, stream>>>(
          scratch.data(), scratch_index.data(), d_offsets, d_hull_offsets, groups, d_hull, d_indices);
  WAGENER_CUDA_CHECK_LAUNCH();
  std::int64_t total = 0;
  WAGENER_CUDA_CHECK(
      cudaMemcpyAsync(&total, d_hull_offsets + groups, sizeof total, cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  return total;
}

template <class T>
GroupedHulls<T> grouped_hulls(std::span<const Point2<T>> points, std::span<const std::int64_t> offsets,
                              HullPart part, bool with_indices, HullStats* stats) {
  require_device();
  Stream stream;
  Event start, copied, done;
  start.record(stream.get());
  const std::size_t n = points.size(), groups = offsets.size() - 1;
  DeviceBuffer<Point2<T>> d_points(std::max<std::size_t>(n, 1));
  DeviceBuffer<std::int64_t> d_offsets(offsets.size());
  DeviceBuffer<Point2<T>> d_hull(std::max<std::size_t>(n, 1));
  DeviceBuffer<std::int64_t> d_hull_offsets(offsets.size());
  DeviceBuffer<std::int64_t> d_indices(with_indices ? std::max<std::size_t>(n, 1) : 0);
  if (n > 0) {
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(d_points.data(), points.data(), n * sizeof(Point2<T>),
                                       cudaMemcpyHostToDevice, stream.get()));
  }
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(d_offsets.data(), offsets.data(), offsets.size() * sizeof(std::int64_t),
                                     cudaMemcpyHostToDevice, stream.get()));
  copied.record(stream.get());
  const index_t total = convex_hulls_device<T>(
      d_points.data(), d_offsets.data(), static_cast<index_t>(n), static_cast<index_t>(groups), d_hull.data(),
      d_hull_offsets.data(), with_indices ? d_indices.data() : nullptr, part, stream.get());
  done.record(stream.get());
  GroupedHulls<T> out;
  out.vertices.resize(static_cast<std::size_t>(total));
  out.offsets.resize(offsets.size());
  if (with_indices) out.indices.resize(static_cast<std::size_t>(total));
  if (total > 0) {
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(out.vertices.data(), d_hull.data(),
                                       out.vertices.size() * sizeof(Point2<T>), cudaMemcpyDeviceToHost,
                                       stream.get()));
    if (with_indices) {
      WAGENER_CUDA_CHECK(cudaMemcpyAsync(out.indices.data(), d_indices.data(),
                                         out.indices.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost,
                                         stream.get()));
    }
  }
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(out.offsets.data(), d_hull_offsets.data(),
                                     out.offsets.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost,
                                     stream.get()));
  stream.synchronize();
  if (stats) {
    stats->transfer_milliseconds = copied.since(start);
    stats->device_milliseconds = done.since(copied);
  }
  return out;
}

#define WAGENER_INSTANTIATE(T)                                                                              \
  template GroupedHulls<T> grouped_hulls(std::span<const Point2<T>>, std::span<const std::int64_t>,         \
                                         HullPart, bool, HullStats*);                                       \
  template index_t convex_hulls_device(const Point2<T>*, const std::int64_t*, index_t, index_t, Point2<T>*, \
                                       std::int64_t*, std::int64_t*, HullPart, void*);
WAGENER_INSTANTIATE(float)
WAGENER_INSTANTIATE(double)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::cuda
