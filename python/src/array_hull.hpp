// The C++ behind the Python module's hull(): an (n, 2) C-contiguous array of float or double in, one
// compute_hull() call. Plain C++ (no pybind11), so that the array fuzzer (fuzz/) calls exactly what
// the module calls.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "wagener/hull.hpp"
#include "wagener/point.hpp"

namespace wagener::python {

/// The module's keyword arguments, as plain values.
struct ArrayHullRequest {
  bool upper = false;
  bool presorted = false;
  std::string backend = "auto";
  bool indices = false;
};

/// compute_hull() on the array's own memory: `data` holds shape[0] rows of 2 values each, C order.
/// Point2<T> asks for an alignment of 2*sizeof(T); numpy guarantees only sizeof(T), so an array that
/// starts between two points (a view at an odd offset into a buffer) is copied into aligned storage
/// first. numpy's own allocations are aligned.
/// Throws std::invalid_argument (Python's ValueError) for a shape other than (n, 2) or an unknown
/// backend, and what compute_hull() throws (input_error for non-finite or, presorted, unsorted
/// points).
template <class T>
HullResult<T> hull_of_array(const T* data, std::span<const std::int64_t> shape,
                            const ArrayHullRequest& request) {
  if (shape.size() != 2 || shape[1] != 2 || shape[0] < 0)
    throw std::invalid_argument("points must have shape (n, 2)");
  HullOptions options;
  options.backend = parse_backend(request.backend);
  options.part = request.upper ? HullPart::upper : HullPart::full;
  options.presorted = request.presorted;
  options.indices = request.indices;
  const auto n = static_cast<std::size_t>(shape[0]);
  if (n == 0) return compute_hull<T>(std::span<const Point2<T>>(), options);
  if (reinterpret_cast<std::uintptr_t>(data) % alignof(Point2<T>) == 0)
    return compute_hull<T>(std::span<const Point2<T>>(reinterpret_cast<const Point2<T>*>(data), n), options);
  std::vector<Point2<T>> aligned(n);
  std::memcpy(aligned.data(), data, n * sizeof(Point2<T>));
  return compute_hull<T>(aligned, options);
}

}  // namespace wagener::python
