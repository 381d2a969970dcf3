// Row-wise library calls that wagener.ConvexHull's scipy attributes need (coplanar, good, add_points):
// arrays in, one library call per row or one call for the whole array, arrays out; no geometry here.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "wagener/hull.hpp"
#include "wagener/point.hpp"
#include "wagener/predicates.hpp"

namespace py = pybind11;

namespace {

using Rows = py::array_t<double, py::array::c_style>;

std::size_t rows_of(const Rows& array, const char* name) {
  if (array.ndim() != 2 || array.shape(1) != 2) throw py::value_error(std::string(name) + " must have shape (k, 2)");
  return static_cast<std::size_t>(array.shape(0));
}

/// orient2d(a[i], b[i], c[i]) for every row i of three (k, 2) float64 arrays: +1, -1 or 0, exactly.
py::array_t<std::int8_t> orientations_of_rows(const Rows& a, const Rows& b, const Rows& c) {
  const std::size_t k = rows_of(a, "a");
  if (rows_of(b, "b") != k || rows_of(c, "c") != k) throw py::value_error("a, b and c must have as many rows");
  const double* pa = a.data();
  const double* pb = b.data();
  const double* pc = c.data();
  for (const double* p : {pa, pb, pc}) {
    for (std::size_t i = 0; i < 2 * k; ++i) {
      if (!std::isfinite(p[i])) throw py::value_error("orientations need finite coordinates");
    }
  }
  py::array_t<std::int8_t> signs(static_cast<py::ssize_t>(k));
  std::int8_t* out = signs.mutable_data();
  {
    py::gil_scoped_release release;
    for (std::size_t i = 0; i < k; ++i) {
      out[i] = static_cast<std::int8_t>(
          wagener::orient2d(pa[2 * i], pa[2 * i + 1], pb[2 * i], pb[2 * i + 1], pc[2 * i], pc[2 * i + 1]));
    }
  }
  return signs;
}

/// wagener::vertex_indices: for each vertex, the smallest row of `points` equal to it (int64).
/// ValueError when a vertex is not among the points.
py::array_t<std::int64_t> rows_of_vertices(const Rows& points, const Rows& vertices) {
  const std::size_t n = rows_of(points, "points");
  const std::size_t h = rows_of(vertices, "vertices");
  // Point2<double> is 16-byte aligned; numpy promises 8: copy an array that starts between two points.
  auto as_points = [](const Rows& array, std::size_t rows, std::vector<wagener::Point2<double>>& copy) {
    const double* data = array.data();
    if (reinterpret_cast<std::uintptr_t>(data) % alignof(wagener::Point2<double>) == 0)
      return std::span<const wagener::Point2<double>>(reinterpret_cast<const wagener::Point2<double>*>(data), rows);
    copy.resize(rows);
    if (rows > 0) std::memcpy(copy.data(), data, rows * sizeof(wagener::Point2<double>));
    return std::span<const wagener::Point2<double>>(copy);
  };
  std::vector<std::int64_t> indices;
  {
    py::gil_scoped_release release;
    std::vector<wagener::Point2<double>> point_copy, vertex_copy;
    const auto point_span = as_points(points, n, point_copy);
    const auto vertex_span = as_points(vertices, h, vertex_copy);
    // std::invalid_argument (a vertex not among the points) reaches Python as ValueError.
    indices = wagener::vertex_indices<double>(point_span, vertex_span);
  }
  py::array_t<std::int64_t> out(static_cast<py::ssize_t>(indices.size()));
  if (!indices.empty()) std::memcpy(out.mutable_data(), indices.data(), indices.size() * sizeof(std::int64_t));
  return out;
}

}  // namespace

namespace wagener::python {

void bind_hull_queries(py::module_& m) {
  m.def("orientations", &orientations_of_rows, py::arg("a").noconvert(), py::arg("b").noconvert(),
        py::arg("c").noconvert(), "orient2d of each row of three C-contiguous (k, 2) float64 arrays (int8)");
  m.def("vertex_indices", &rows_of_vertices, py::arg("points").noconvert(), py::arg("vertices").noconvert(),
        "For each vertex, the smallest row of points equal to it (int64), by wagener::vertex_indices");
}

}  // namespace wagener::python
