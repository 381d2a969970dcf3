// Row-wise library calls that wagener.ConvexHull's scipy attributes need (coplanar, good, add_points):
// arrays in, one library call per row or one call for the whole array, arrays out; no geometry here.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "wagener/hull.hpp"
#include "wagener/point.hpp"
#include "wagener/predicates.hpp"

namespace py = pybind11;

namespace {

template <class T>
using Rows = py::array_t<T, py::array::c_style>;

template <class T>
std::size_t rows_of(const Rows<T>& array, const char* name) {
  if (array.ndim() != 2 || array.shape(1) != 2) throw py::value_error(std::string(name) + " must have shape (k, 2)");
  return static_cast<std::size_t>(array.shape(0));
}

/// Point2<T> is aligned to its size (16 bytes for double and int64); numpy promises only the
/// element's: an array that starts between two points is copied.
template <class T>
std::span<const wagener::Point2<T>> as_points(const Rows<T>& array, std::size_t rows,
                                              std::vector<wagener::Point2<T>>& copy) {
  const T* data = array.data();
  if (reinterpret_cast<std::uintptr_t>(data) % alignof(wagener::Point2<T>) == 0)
    return {reinterpret_cast<const wagener::Point2<T>*>(data), rows};
  copy.resize(rows);
  if (rows > 0) std::memcpy(copy.data(), data, rows * sizeof(wagener::Point2<T>));
  return copy;
}

/// orient2d(a[i], b[i], c[i]) for every row i of three (k, 2) arrays of one coordinate type (float64,
/// int32 or int64): +1, -1 or 0, exactly.
template <class T>
py::array_t<std::int8_t> orientations_of_rows(const Rows<T>& a, const Rows<T>& b, const Rows<T>& c) {
  const std::size_t k = rows_of(a, "a");
  if (rows_of(b, "b") != k || rows_of(c, "c") != k) throw py::value_error("a, b and c must have as many rows");
  const T* pa = a.data();
  const T* pb = b.data();
  const T* pc = c.data();
  if constexpr (std::is_floating_point_v<T>) {
    for (const T* p : {pa, pb, pc}) {
      for (std::size_t i = 0; i < 2 * k; ++i) {
        if (!std::isfinite(p[i])) throw py::value_error("orientations need finite coordinates");
      }
    }
  }
  py::array_t<std::int8_t> signs(static_cast<py::ssize_t>(k));
  std::int8_t* out = signs.mutable_data();
  {
    py::gil_scoped_release release;
    for (std::size_t i = 0; i < k; ++i) {
      const wagener::Point2<T> pa_i{pa[2 * i], pa[2 * i + 1]}, pb_i{pb[2 * i], pb[2 * i + 1]},
          pc_i{pc[2 * i], pc[2 * i + 1]};
      out[i] = static_cast<std::int8_t>(wagener::orient2d(pa_i, pb_i, pc_i));
    }
  }
  return signs;
}

/// wagener::vertex_indices: for each vertex, the smallest row of `points` equal to it (int64).
/// ValueError when a vertex is not among the points.
template <class T>
py::array_t<std::int64_t> rows_of_vertices(const Rows<T>& points, const Rows<T>& vertices) {
  const std::size_t n = rows_of(points, "points");
  const std::size_t h = rows_of(vertices, "vertices");
  std::vector<std::int64_t> indices;
  {
    py::gil_scoped_release release;
    std::vector<wagener::Point2<T>> point_copy, vertex_copy;
    const auto point_span = as_points(points, n, point_copy);
    const auto vertex_span = as_points(vertices, h, vertex_copy);
    // std::invalid_argument (a vertex not among the points) reaches Python as ValueError.
    indices = wagener::vertex_indices<T>(point_span, vertex_span);
  }
  py::array_t<std::int64_t> out(static_cast<py::ssize_t>(indices.size()));
  if (!indices.empty()) std::memcpy(out.mutable_data(), indices.data(), indices.size() * sizeof(std::int64_t));
  return out;
}

template <class T>
void bind_for(py::module_& m, const char* orientations_doc, const char* vertex_indices_doc) {
  m.def("orientations", &orientations_of_rows<T>, py::arg("a").noconvert(), py::arg("b").noconvert(),
        py::arg("c").noconvert(), orientations_doc);
  m.def("vertex_indices", &rows_of_vertices<T>, py::arg("points").noconvert(), py::arg("vertices").noconvert(),
        vertex_indices_doc);
}

}  // namespace

namespace wagener::python {

void bind_hull_queries(py::module_& m) {
  // Overloads by dtype (noconvert: an array of another dtype tries the next, never a rounding cast).
  bind_for<std::int32_t>(m, "", "");
  bind_for<std::int64_t>(m, "", "");
  bind_for<double>(m,
                   "orient2d of each row of three C-contiguous (k, 2) arrays, all float64, all int32 or all "
                   "int64 (int8)",
                   "For each vertex, the smallest row of points equal to it (int64), by wagener::vertex_indices; "
                   "points and vertices float64, int32 or int64 alike");
}

}  // namespace wagener::python
