// numpy arrays made from the library's results: copies, so that numpy owns what it hands out.
#pragma once

#include <pybind11/numpy.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "wagener/point.hpp"

namespace wagener::python {

/// An (n, 2) array of the points' coordinates.
template <class T>
pybind11::array_t<T> copy_to_array(std::span<const Point2<T>> points) {
  pybind11::array_t<T> out({static_cast<pybind11::ssize_t>(points.size()), pybind11::ssize_t{2}});
  if (!points.empty()) std::memcpy(out.mutable_data(), points.data(), points.size_bytes());
  return out;
}

/// A one-dimensional int64 array.
inline pybind11::array_t<std::int64_t> copy_to_array(std::span<const std::int64_t> values) {
  pybind11::array_t<std::int64_t> out(static_cast<pybind11::ssize_t>(values.size()));
  if (!values.empty()) std::memcpy(out.mutable_data(), values.data(), values.size_bytes());
  return out;
}

}  // namespace wagener::python
