// Device level: the full hull of unsorted points already on the device.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "wagener/point.hpp"

namespace wagener::cuda {

/// Full hull (counter-clockwise from the lexicographically smallest vertex) of d_points[0..n), any
/// order, on `stream`. Throws input_error for a non-finite point. `survivors` (optional) receives
/// how many points the interior filter kept.
template <class T>
std::vector<Point2<T>> convex_hull_on_device(const Point2<T>* d_points, index_t n, cudaStream_t stream,
                                             index_t* survivors);

}  // namespace wagener::cuda
