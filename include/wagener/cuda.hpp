// Entry points for data already in GPU memory (CUDA builds only; throws unsupported_error otherwise).
#pragma once

#include <cstdint>

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

}  // namespace wagener::cuda
