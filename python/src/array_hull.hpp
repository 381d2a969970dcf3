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
  TraceSink* trace = nullptr;  ///< Wagener's rounds, for wagener.trace (pram and cuda only)
};

/// The n points at `data` (2n values, C order) as Point2<T>: the caller's memory where it is aligned
/// for Point2<T>, else a copy in `storage`. Point2<T> asks for an alignment of 2*sizeof(T); numpy
/// guarantees only sizeof(T), so an array that starts between two points (a view at an odd offset
/// into a buffer) is copied. numpy's own allocations are aligned.
template <class T>
std::span<const Point2<T>> aligned_points(const T* data, std::size_t n, std::vector<Point2<T>>& storage) {
  if (n == 0) return {};
  if (reinterpret_cast<std::uintptr_t>(data) % alignof(Point2<T>) == 0)
    return {reinterpret_cast<const Point2<T>*>(data), n};
  storage.resize(n);
  std::memcpy(storage.data(), data, n * sizeof(Point2<T>));
  return storage;
}

/// compute_hull() on the array's own memory (aligned_points): `data` holds shape[0] rows of 2 values
/// each, C order.
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
  options.trace = request.trace;
  std::vector<Point2<T>> storage;
  return compute_hull<T>(aligned_points(data, static_cast<std::size_t>(shape[0]), storage), options);
}

}  // namespace wagener::python
