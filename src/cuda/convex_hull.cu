// The full hull of unsorted points on the device: extreme points bound an inner polygon, points
// certified strictly inside it are discarded while they stream past (CUB select), the survivors are
// sorted and both chains are built by the upper-hull machinery.
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <algorithm>
#include <climits>
#include <cub/device/device_select.cuh>
#include <string>
#include <vector>

#include "core/chains.hpp"
#include "cpu/monotone_chain.hpp"
#include "cuda/buffers.cuh"
#include "cuda/check.cuh"
#include "cuda/convex_hull.cuh"
#include "cuda/upper_hull.cuh"
#include "wagener/error.hpp"

namespace wagener::cuda {
namespace {

// Directions whose extreme input points span the inner polygon: 16 directions cover 97% of a disk.
constexpr int kDirections = 16;
constexpr int kExtremeThreads = 256;
constexpr int kMaxEdges = kDirections;

struct Direction {
  double dx, dy;
};

__constant__ Direction kDirectionTable[kDirections];

struct Extreme {
  double score;
  index_t index;
};

/// Per block: for each direction the input point with the largest score (first index on ties), and
/// the first non-finite index.
template <class T>
__global__ void __launch_bounds__(kExtremeThreads)
    extremes_kernel(const Point2<T>* points, index_t n, Extreme* block_best, unsigned long long* first_bad) {
  Extreme best[kDirections];
#pragma unroll
  for (int d = 0; d < kDirections; ++d) best[d] = {-INFINITY, -1};
  for (index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const Point2<T> p = points[i];
    if (!isfinite(p.x) || !isfinite(p.y)) {
      atomicMin(first_bad, static_cast<unsigned long long>(i));
      continue;
    }
#pragma unroll
    for (int d = 0; d < kDirections; ++d) {
      const double s =
          kDirectionTable[d].dx * static_cast<double>(p.x) + kDirectionTable[d].dy * static_cast<double>(p.y);
      if (s > best[d].score) best[d] = {s, i};
    }
  }
  __shared__ Extreme shared[kExtremeThreads];
  for (int d = 0; d < kDirections; ++d) {
    shared[threadIdx.x] = best[d];
    __syncthreads();
    for (int half = kExtremeThreads / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) {
        const Extreme o = shared[threadIdx.x + half];
        Extreme& m = shared[threadIdx.x];
        if (o.score > m.score || (o.score == m.score && o.index >= 0 && o.index < m.index)) m = o;
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) block_best[static_cast<index_t>(blockIdx.x) * kDirections + d] = shared[0];
    __syncthreads();
  }
}

/// Edges of the inner polygon (counter-clockwise) in the form certainly_left needs.
struct InnerPolygon {
  int edges = 0;  ///< 0: filter disabled, every point survives
  double ax[kMaxEdges], ay[kMaxEdges], bx[kMaxEdges], by[kMaxEdges];
};

/// True only if p is certainly strictly inside the polygon: strictly left of every edge, each
/// decided with Shewchuk's bound plus slack (the same argument as the CPU filter's certainly_left:
/// margin 4 eps (|l| + |r|) + 2^-1000; overflow or NaN compare false and keep the point).
template <class T>
struct KeepPoint {
  InnerPolygon poly;
  __device__ bool operator()(const Point2<T>& p) const {
    if (poly.edges == 0) return true;
    const double px = p.x, py = p.y;
    bool inside = true;
    for (int e = 0; e < poly.edges; ++e) {
      const double l = (poly.ax[e] - px) * (poly.by[e] - py);
      const double r = (poly.ay[e] - py) * (poly.bx[e] - px);
      inside &= (l - r) > 0x1p-51 * (fabs(l) + fabs(r)) + 0x1p-1000;
    }
    return !inside;
  }
};

struct LexLess {
  template <class T>
  __device__ bool operator()(const Point2<T>& a, const Point2<T>& b) const {
    return lex_less(a, b);
  }
};

template <class T>
std::vector<Point2<T>> to_host(const Point2<T>* d, index_t n, cudaStream_t stream) {
  std::vector<Point2<T>> out(static_cast<std::size_t>(n));
  if (n > 0) {
    WAGENER_CUDA_CHECK(
        cudaMemcpyAsync(out.data(), d, out.size() * sizeof(Point2<T>), cudaMemcpyDeviceToHost, stream));
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  return out;
}

}  // namespace

template <class T>
std::vector<Point2<T>> convex_hull_on_device(const Point2<T>* d_points, index_t n, cudaStream_t stream,
                                             index_t* survivors) {
  if (n == 0) return {};
  static const bool directions_loaded = [] {
    Direction table[kDirections];
    for (int d = 0; d < kDirections; ++d) {
      const double a = 2 * M_PI * d / kDirections;
      table[d] = {std::cos(a), std::sin(a)};
    }
    WAGENER_CUDA_CHECK(cudaMemcpyToSymbol(kDirectionTable, table, sizeof table));
    return true;
  }();
  (void)directions_loaded;

  // Pass 1: extremes (and the finiteness check).
  int device = 0, sms = 0;
  WAGENER_CUDA_CHECK(cudaGetDevice(&device));
  WAGENER_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const index_t blocks = std::min<index_t>(index_t{sms} * 4, (n + kExtremeThreads - 1) / kExtremeThreads);
  DeviceBuffer<Extreme> block_best(static_cast<std::size_t>(blocks * kDirections));
  DeviceBuffer<unsigned long long> first_bad(1);
  WAGENER_CUDA_CHECK(cudaMemsetAsync(first_bad.data(), 0xff, sizeof(unsigned long long), stream));
  extremes_kernel<T><<<static_cast<unsigned>(blocks), kExtremeThreads, 0, stream>>>(
      d_points, n, block_best.data(), first_bad.data());
  WAGENER_CUDA_CHECK_LAUNCH();
  std::vector<Extreme> best(static_cast<std::size_t>(blocks * kDirections));
  unsigned long long bad = ULLONG_MAX;
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(best.data(), block_best.data(), best.size() * sizeof(Extreme),
                                     cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(&bad, first_bad.data(), sizeof bad, cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (bad != ULLONG_MAX) throw input_error("point " + std::to_string(bad) + " is not finite");

  // The inner polygon: the exact hull of the extreme points (they are input points).
  std::vector<Point2<double>> extremes;
  for (int d = 0; d < kDirections; ++d) {
    Extreme e{-INFINITY, -1};
    for (index_t b = 0; b < blocks; ++b) {
      const Extreme& o = best[static_cast<std::size_t>(b * kDirections + d)];
      if (o.index >= 0 && (o.score > e.score || (o.score == e.score && o.index < e.index))) e = o;
    }
    if (e.index < 0) continue;
    Point2<T> p;
    WAGENER_CUDA_CHECK(cudaMemcpyAsync(&p, d_points + e.index, sizeof p, cudaMemcpyDeviceToHost, stream));
    WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
    extremes.push_back({static_cast<double>(p.x), static_cast<double>(p.y)});
  }
  std::sort(extremes.begin(), extremes.end(), lex_less<double>);
  const auto poly = cpu::hull_of_sorted<double>(extremes);
  InnerPolygon inner;
  if (poly.size() >= 3) {
    inner.edges = static_cast<int>(poly.size());
    for (std::size_t e = 0; e < poly.size(); ++e) {
      inner.ax[e] = poly[e].x;
      inner.ay[e] = poly[e].y;
      inner.bx[e] = poly[(e + 1) % poly.size()].x;
      inner.by[e] = poly[(e + 1) % poly.size()].y;
    }
  }

  // Pass 2: keep the points not certified inside.
  DeviceBuffer<Point2<T>> kept(static_cast<std::size_t>(n));
  DeviceBuffer<index_t> kept_count(1);
  std::size_t temp_bytes = 0;
  WAGENER_CUDA_CHECK(cub::DeviceSelect::If(nullptr, temp_bytes, d_points, kept.data(), kept_count.data(), n,
                                           KeepPoint<T>{inner}, stream));
  DeviceBuffer<unsigned char> temp(temp_bytes);
  WAGENER_CUDA_CHECK(cub::DeviceSelect::If(temp.data(), temp_bytes, d_points, kept.data(), kept_count.data(),
                                           n, KeepPoint<T>{inner}, stream));
  index_t m = 0;
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(&m, kept_count.data(), sizeof m, cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (survivors) *survivors = m;

  // Sort the survivors, then both chains on the device.
  thrust::sort(thrust::cuda::par.on(stream), kept.data(), kept.data() + m, LexLess{});
  UpperHullWorkspace<T> ws;
  const auto upper_d = upper_hull_on_device(kept.data(), m, ws, stream, false);
  const auto upper = to_host(upper_d.data, upper_d.size, stream);
  DeviceBuffer<Point2<T>> mirrored(static_cast<std::size_t>(m));
  reflect_reversed(kept.data(), m, mirrored.data(), stream);
  const auto lower_d = upper_hull_on_device(mirrored.data(), m, ws, stream, false);
  auto lower = to_host(lower_d.data, lower_d.size, stream);
  std::reverse(lower.begin(), lower.end());
  for (auto& p : lower) p = core::reflected(p);
  return core::join_chains<T>(lower, upper);
}

template std::vector<Point2<float>> convex_hull_on_device(const Point2<float>*, index_t, cudaStream_t,
                                                          index_t*);
template std::vector<Point2<double>> convex_hull_on_device(const Point2<double>*, index_t, cudaStream_t,
                                                           index_t*);

}  // namespace wagener::cuda
