// CUDA backend: device discovery and dispatch (the kernels are being written).
#include <cuda_runtime.h>

#include "cuda/cuda_backend.hpp"
#include "wagener/error.hpp"

namespace wagener::cuda {

bool device_available() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

template <class T>
std::vector<Point2<T>> upper_hull(std::span<const Point2<T>>, HullStats*) {
  throw unsupported_error("the CUDA backend is not implemented yet; use --backend cpu or pram");
}

template <class T>
std::vector<Point2<T>> convex_hull(std::span<const Point2<T>>, HullStats*) {
  throw unsupported_error("the CUDA backend is not implemented yet; use --backend cpu or pram");
}

template std::vector<Point2<float>> upper_hull(std::span<const Point2<float>>, HullStats*);
template std::vector<Point2<double>> upper_hull(std::span<const Point2<double>>, HullStats*);
template std::vector<Point2<float>> convex_hull(std::span<const Point2<float>>, HullStats*);
template std::vector<Point2<double>> convex_hull(std::span<const Point2<double>>, HullStats*);

}  // namespace wagener::cuda
