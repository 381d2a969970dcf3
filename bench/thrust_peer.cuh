// The Thrust peer of the GPU full hull: the straightforward pipeline a CUDA user writes first, as
// the issue describes it. The four axis-extreme points (two thrust::minmax_element calls) come back
// to the host; thrust::copy_if keeps the points not strictly inside their quadrilateral;
// thrust::sort orders the survivors lexicographically; they come back to the host, where Andrew's
// monotone chain (cpu::hull_of_sorted) builds the hull. Every decision is exact (orient2d filter,
// exact chain), so its hull must equal wagener's: bench_cuda checks that before reporting a time.
#pragma once

#include <cuda_runtime.h>
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/sort.h>

#include <vector>

#include "cpu/monotone_chain.hpp"
#include "cuda/buffers.cuh"
#include "cuda/check.cuh"
#include "wagener/point.hpp"
#include "wagener/predicates.hpp"

namespace bench {

struct ByX {
  template <class T>
  __host__ __device__ bool operator()(const wagener::Point2<T>& a, const wagener::Point2<T>& b) const {
    return a.x < b.x;
  }
};

struct ByY {
  template <class T>
  __host__ __device__ bool operator()(const wagener::Point2<T>& a, const wagener::Point2<T>& b) const {
    return a.y < b.y;
  }
};

struct ByXY {
  template <class T>
  __host__ __device__ bool operator()(const wagener::Point2<T>& a, const wagener::Point2<T>& b) const {
    return wagener::lex_less(a, b);
  }
};

/// True unless p is strictly left of all four directed edges left -> bottom -> right -> top -> left.
///
/// Dropping such a p is safe whatever the four points are: seen from a point strictly left of every
/// edge of a closed polygon, each edge turns counter-clockwise by less than pi, so the polygon winds
/// around p, which puts p strictly inside the convex hull of the polygon's vertices -- input points
/// -- and so strictly inside the input's hull: not a vertex. A degenerate quadrilateral (two extremes
/// coincide, e.g. one point is both leftmost and lowest, or all four are collinear) has an edge of
/// length zero or antiparallel edges; no point is strictly left of all of them, and every point is
/// kept, which is the correct fallback.
template <class T>
struct OutsideQuadrilateral {
  wagener::Point2<T> corner[4];  // left, bottom, right, top: counter-clockwise around the hull

  __host__ __device__ bool operator()(const wagener::Point2<T>& p) const {
    for (int e = 0; e < 4; ++e) {
      if (wagener::orient2d(corner[e], corner[(e + 1) % 4], p) <= 0) return true;
    }
    return false;
  }
};

/// Full hull of d_points[0..n) by the Thrust pipeline, counter-clockwise from the lexicographically
/// smallest vertex (wagener's convention, so the two compare with ==). Allocates its buffers on every
/// call, as wagener's convex_hull_on_device does; Thrust's temporary storage comes from its default
/// allocator. `survivors` (optional) receives how many points copy_if kept.
template <class T>
std::vector<wagener::Point2<T>> thrust_convex_hull(const wagener::Point2<T>* d_points, wagener::index_t n,
                                                   cudaStream_t stream,
                                                   wagener::index_t* survivors = nullptr) {
  using Point = wagener::Point2<T>;
  if (n == 0) return {};
  const auto policy = thrust::cuda::par.on(stream);
  const auto x_range = thrust::minmax_element(policy, d_points, d_points + n, ByX{});
  const auto y_range = thrust::minmax_element(policy, d_points, d_points + n, ByY{});
  OutsideQuadrilateral<T> outside;
  const Point* extreme[4] = {x_range.first, y_range.first, x_range.second, y_range.second};
  for (int e = 0; e < 4; ++e) {
    WAGENER_CUDA_CHECK(
        cudaMemcpyAsync(&outside.corner[e], extreme[e], sizeof(Point), cudaMemcpyDeviceToHost, stream));
  }
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));

  wagener::cuda::DeviceBuffer<Point> kept(static_cast<std::size_t>(n));
  Point* const kept_end = thrust::copy_if(policy, d_points, d_points + n, kept.data(), outside);
  const wagener::index_t m = kept_end - kept.data();
  if (survivors) *survivors = m;
  thrust::sort(policy, kept.data(), kept_end, ByXY{});

  std::vector<Point> sorted(static_cast<std::size_t>(m));
  WAGENER_CUDA_CHECK(cudaMemcpyAsync(sorted.data(), kept.data(), sorted.size() * sizeof(Point),
                                     cudaMemcpyDeviceToHost, stream));
  WAGENER_CUDA_CHECK(cudaStreamSynchronize(stream));
  return wagener::cpu::hull_of_sorted<T>(sorted);
}

}  // namespace bench
