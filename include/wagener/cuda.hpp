// Entry points for data already in GPU memory (CUDA builds only; throws unsupported_error otherwise).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "wagener/config.hpp"
#include "wagener/hull.hpp"
#include "wagener/point.hpp"

namespace wagener::cuda {

/// Upper hull of d_sorted[0..n), points in device memory sorted by (x, y), on the given CUDA stream
/// (a cudaStream_t; nullptr for the default stream). Writes the hull's vertices (same convention as
/// wagener::upper_hull) to d_hull, which must hold n points, and returns their number. Blocks until
/// the hull is written. Throws input_error for unsorted or non-finite input, cuda_error on a CUDA
/// failure.
template <class T>
index_t upper_hull_device(const Point2<T>* d_sorted, index_t n, Point2<T>* d_hull, void* stream = nullptr);

/// Convex hull of d_points[0..n), points in device memory in any order (same convention as
/// wagener::convex_hull). Writes the vertices to d_hull, which must hold n points (at most n
/// vertices), and returns their number. Blocks until done. Throws input_error for a non-finite
/// point, cuda_error on a CUDA failure.
template <class T>
index_t convex_hull_device(const Point2<T>* d_points, index_t n, Point2<T>* d_hull, void* stream = nullptr);

/// The same for points given as two device arrays (structure of arrays): point i is (d_x[i], d_y[i]).
template <class T>
index_t convex_hull_device(const T* d_x, const T* d_y, index_t n, Point2<T>* d_hull, void* stream = nullptr);

/// The hull of every group of points in device memory, in one device pipeline (never one launch per
/// group): group g is d_points[d_offsets[g], d_offsets[g + 1]), d_offsets (device memory, groups + 1
/// entries) as convex_hulls() takes them (not checked here: validate them on the host). Writes the
/// vertices of all the hulls to d_hull (which must hold n points; the call also uses the part
/// beyond the hulls as working memory), group g's at
/// d_hull[d_hull_offsets[g], d_hull_offsets[g + 1]) (d_hull_offsets: groups + 1 entries, device
/// memory), each hull as compute_hull() gives `part`, and, unless d_indices is nullptr, each vertex's
/// smallest input index within its group (into d_points, n entries). Returns the number of
/// vertices. Blocks until done. Throws input_error for a non-finite point, cuda_error on a CUDA
/// failure. See wagener/grouped.hpp.
template <class T>
index_t convex_hulls_device(const Point2<T>* d_points, const std::int64_t* d_offsets, index_t n,
                            index_t groups, Point2<T>* d_hull, std::int64_t* d_hull_offsets,
                            std::int64_t* d_indices, HullPart part = HullPart::full, void* stream = nullptr);

/// One device's share of a point set already in GPU memory (data spread over several GPUs, e.g. a
/// CuPy or PyTorch array per device).
template <class T>
struct DevicePoints {
  const Point2<T>* points = nullptr;  ///< in the memory of the device that holds them (found from the pointer)
  index_t count = 0;
  void* stream = nullptr;  ///< a cudaStream_t of that device on which the points are ready (nullptr: default)
};

/// The convex hull of the union of several parts in device memory, each hulled on the device that
/// holds it, all at once (a host thread each: two devices take about half the time of one), the
/// hulls merged by merge_hulls(). The vertices come back to the host, in convex_hull()'s convention.
/// Parts may share a device. Throws input_error for a non-finite point (naming its part and index),
/// std::invalid_argument for a pointer that is not device memory, cuda_error on a CUDA failure.
/// `stats` (optional): survivors summed, device time the slowest part's.
template <class T>
std::vector<Point2<T>> convex_hull_of_parts(std::span<const DevicePoints<T>> parts, HullStats* stats = nullptr);

}  // namespace wagener::cuda
