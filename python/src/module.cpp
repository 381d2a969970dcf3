// wagener._wagener: the Python adapter. Arrays in, one library call, arrays out; no geometry here.
//
// The package (python/wagener/__init__.py) brings every input to what these functions take: a
// C-contiguous (n, 2) array of float32, float64, int32 or int64 for the host, raw device pointers
// (and the dtype's name) for CUDA arrays.
// The overloads below take their arrays without conversion (noconvert), so an array reaches the
// library as the caller's own memory, never as a copy made behind the package's back.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "array_hull.hpp"
#include "numpy_arrays.hpp"
#include "pictures.hpp"
#include "wagener/cuda.hpp"
#include "wagener/error.hpp"
#include "wagener/grouped.hpp"
#include "wagener/hull.hpp"
#include "wagener/io.hpp"
#include "wagener/predicates.hpp"

namespace py = pybind11;

namespace wagener::python {
void bind_hull_queries(py::module_& m);  // hull_queries.cpp: what wagener.ConvexHull needs
}

namespace {

template <class T>
using PointArray = py::array_t<T, py::array::c_style>;

using wagener::python::copy_to_array;

/// compute_hull() on the array's own memory (array_hull.hpp), without the GIL.
template <class T>
py::tuple hull(const PointArray<T>& array, bool upper, bool presorted, const std::string& backend,
               bool indices) {
  const std::vector<std::int64_t> shape(array.shape(), array.shape() + array.ndim());
  wagener::HullResult<T> result;
  {
    py::gil_scoped_release release;
    result = wagener::python::hull_of_array<T>(array.data(), shape, {upper, presorted, backend, indices});
  }
  py::object index_array = py::none();
  if (indices) index_array = copy_to_array(result.indices);
  return py::make_tuple(copy_to_array<T>(result.vertices), index_array);
}

using IndexArray = py::array_t<std::int64_t, py::array::c_style>;

/// convex_hulls() (offsets) or convex_hulls_by_id() (ids) on the array's own memory: exactly one of
/// offsets and ids is given (the package checks). Returns (vertices, hull offsets, indices or None,
/// group ids or None).
template <class T>
py::tuple grouped_hulls(const PointArray<T>& array, const std::optional<IndexArray>& offsets,
                        const std::optional<IndexArray>& ids, bool upper, bool presorted,
                        const std::string& backend, bool indices) {
  if (array.ndim() != 2 || array.shape(1) != 2) throw py::value_error("points must have shape (n, 2)");
  const IndexArray& groups = offsets ? *offsets : *ids;
  if (groups.ndim() != 1)
    throw py::value_error(std::string(offsets ? "offsets" : "groups") + " must be one-dimensional");
  wagener::HullOptions options;
  options.backend = wagener::parse_backend(backend);
  options.part = upper ? wagener::HullPart::upper : wagener::HullPart::full;
  options.presorted = presorted;
  options.indices = indices;
  const auto n = static_cast<std::size_t>(array.shape(0));
  const T* data = array.data();
  const std::span<const std::int64_t> group_span(groups.data(), static_cast<std::size_t>(groups.shape(0)));
  wagener::GroupedHulls<T> result;
  {
    py::gil_scoped_release release;
    std::vector<wagener::Point2<T>> storage;
    const auto points = wagener::python::aligned_points(data, n, storage);
    result = offsets ? wagener::convex_hulls<T>(points, group_span, options)
                     : wagener::convex_hulls_by_id<T>(points, group_span, options);
  }
  py::object index_array = py::none();
  if (indices) index_array = copy_to_array(result.indices);
  py::object id_array = py::none();
  if (ids) id_array = copy_to_array(result.group_ids);
  return py::make_tuple(copy_to_array<T>(result.vertices), copy_to_array(result.offsets), index_array,
                        id_array);
}

template <class T>
const wagener::Point2<T>* device_points(std::uintptr_t address) {
  return reinterpret_cast<const wagener::Point2<T>*>(address);
}

template <class T>
wagener::Point2<T>* device_hull(std::uintptr_t address) {
  return reinterpret_cast<wagener::Point2<T>*>(address);
}

/// Calls f(T{}) for the coordinate type named by a device array's dtype; TypeError for any other.
template <class F>
wagener::index_t with_coordinate_type(const std::string& dtype, F&& f) {
  if (dtype == "float32") return f(float{});
  if (dtype == "float64") return f(double{});
  if (dtype == "int32") return f(std::int32_t{});
  if (dtype == "int64") return f(std::int64_t{});
  throw py::type_error("device points must be float32, float64, int32 or int64, not " + dtype);
}

/// wagener::cuda::convex_hull_device on (n, 2) points at `points` (C order), `hull` holding n points.
wagener::index_t convex_hull_device(std::uintptr_t points, wagener::index_t n, std::uintptr_t hull,
                                    std::uintptr_t stream, const std::string& dtype) {
  return with_coordinate_type(dtype, [&]<class T>(T) {
    py::gil_scoped_release release;
    return wagener::cuda::convex_hull_device<T>(device_points<T>(points), n, device_hull<T>(hull),
                                                reinterpret_cast<void*>(stream));
  });
}

/// The same for points as two device arrays, x[i] and y[i] (an (n, 2) array in Fortran order).
wagener::index_t convex_hull_device_soa(std::uintptr_t x, std::uintptr_t y, wagener::index_t n,
                                        std::uintptr_t hull, std::uintptr_t stream,
                                        const std::string& dtype) {
  return with_coordinate_type(dtype, [&]<class T>(T) {
    py::gil_scoped_release release;
    return wagener::cuda::convex_hull_device<T>(reinterpret_cast<const T*>(x), reinterpret_cast<const T*>(y),
                                                n, device_hull<T>(hull), reinterpret_cast<void*>(stream));
  });
}

/// wagener::cuda::upper_hull_device on (n, 2) points sorted by (x, y) (checked by the library).
wagener::index_t upper_hull_device(std::uintptr_t points, wagener::index_t n, std::uintptr_t hull,
                                   std::uintptr_t stream, const std::string& dtype) {
  return with_coordinate_type(dtype, [&]<class T>(T) {
    py::gil_scoped_release release;
    return wagener::cuda::upper_hull_device<T>(device_points<T>(points), n, device_hull<T>(hull),
                                               reinterpret_cast<void*>(stream));
  });
}

/// wagener::cuda::convex_hulls_device on (n, 2) points at `points` (C order) and groups + 1 int64
/// offsets at `offsets` (validated by the package on the host), writing the vertices to `hull` (n
/// points), the hull offsets to `hull_offsets` (groups + 1) and, unless `indices` is 0, each vertex's
/// input row to `indices` (n entries). Returns the number of vertices.
wagener::index_t convex_hulls_device(std::uintptr_t points, std::uintptr_t offsets, wagener::index_t n,
                                     wagener::index_t groups, std::uintptr_t hull,
                                     std::uintptr_t hull_offsets, std::uintptr_t indices, bool upper,
                                     std::uintptr_t stream, const std::string& dtype) {
  const auto* d_offsets = reinterpret_cast<const std::int64_t*>(offsets);
  auto* d_hull_offsets = reinterpret_cast<std::int64_t*>(hull_offsets);
  auto* d_indices = reinterpret_cast<std::int64_t*>(indices);
  const wagener::HullPart part = upper ? wagener::HullPart::upper : wagener::HullPart::full;
  return with_coordinate_type(dtype, [&]<class T>(T) {
    py::gil_scoped_release release;
    return wagener::cuda::convex_hulls_device<T>(device_points<T>(points), d_offsets, n, groups,
                                                 device_hull<T>(hull), d_hull_offsets, d_indices, part,
                                                 reinterpret_cast<void*>(stream));
  });
}

/// The points of a file as an (n, 2) array. Points the reader owns are handed to numpy without a
/// copy; a memory-mapped file (binary of the requested precision) is read-only and may be unmapped,
/// so its points are copied into an ordinary, writable array.
template <class T>
py::array read_points(const std::string& path, const std::string& format,
                      const std::optional<std::pair<std::string, std::string>>& columns) {
  wagener::ReadOptions options;
  options.format = wagener::parse_format(format);
  if (columns) options.columns = {columns->first, columns->second};
  wagener::PointSet<T> set;
  {
    py::gil_scoped_release release;
    set = wagener::read_points<T>(path, options);
  }
  if (set.mapped()) return copy_to_array<T>(set.points());
  auto* owner = new wagener::PointSet<T>(std::move(set));
  py::capsule base(owner, [](void* p) { delete static_cast<wagener::PointSet<T>*>(p); });
  const auto n = static_cast<py::ssize_t>(owner->size());
  const T* data = owner->size() ? &owner->points().data()->x : nullptr;
  constexpr auto item = static_cast<py::ssize_t>(sizeof(T));
  return py::array_t<T>({n, py::ssize_t{2}}, {2 * item, item}, data, base);
}

/// wagener::merge_hulls of (k, 2) arrays of one dtype: the hull of all their points. Each array
/// is copied into aligned points (hulls are small; any point set is accepted and is exact).
template <class T>
py::array_t<T> merge_hulls(const std::vector<PointArray<T>>& arrays) {
  std::vector<std::vector<wagener::Point2<T>>> hulls;
  hulls.reserve(arrays.size());
  for (std::size_t a = 0; a < arrays.size(); ++a) {
    const PointArray<T>& array = arrays[a];
    if (array.ndim() != 2 || array.shape(1) != 2) {
      throw py::value_error("hull " + std::to_string(a) + " must have shape (k, 2)");
    }
    const auto k = static_cast<std::size_t>(array.shape(0));
    const T* data = array.data();
    for (std::size_t i = 0; i < 2 * k && !std::is_integral_v<T>; ++i) {
      if (!std::isfinite(static_cast<double>(data[i]))) {
        throw py::value_error("hull " + std::to_string(a) + ", row " + std::to_string(i / 2) +
                              " is not finite");
      }
    }
    auto& points = hulls.emplace_back(k);
    if (k > 0) std::memcpy(points.data(), data, k * sizeof(wagener::Point2<T>));
  }
  std::vector<wagener::Point2<T>> merged;
  {
    py::gil_scoped_release release;
    const std::vector<std::span<const wagener::Point2<T>>> spans(hulls.begin(), hulls.end());
    merged = wagener::merge_hulls<T>(spans);
  }
  return copy_to_array<T>(merged);
}

int orient2d(const std::array<double, 2>& a, const std::array<double, 2>& b, const std::array<double, 2>& c) {
  for (double v : {a[0], a[1], b[0], b[1], c[0], c[1]}) {
    if (!std::isfinite(v)) throw py::value_error("orient2d needs finite coordinates");
  }
  return wagener::orient2d(a[0], a[1], b[0], b[1], c[0], c[1]);
}

/// Registers hull, grouped_hulls and merge_hulls for coordinate type T (arrays of exactly that dtype:
/// noconvert, so that nothing is converted behind the package's back).
template <class T>
void define_array_functions(py::module_& m, const char* dtype) {
  const std::string name(dtype);
  m.def("hull", &hull<T>, py::arg("points").noconvert(), py::arg("upper"), py::arg("presorted"),
        py::arg("backend"), py::arg("indices"),
        ("(vertices, indices or None) of a C-contiguous (n, 2) " + name + " array").c_str());
  m.def("grouped_hulls", &grouped_hulls<T>, py::arg("points").noconvert(), py::arg("offsets").noconvert(),
        py::arg("ids").noconvert(), py::arg("upper"), py::arg("presorted"), py::arg("backend"),
        py::arg("indices"),
        ("(vertices, hull offsets, indices or None, group ids or None) of a C-contiguous (n, 2) " + name +
         " array and int64 offsets (groups + 1) or ids (one per point)")
            .c_str());
  m.def("merge_hulls", &merge_hulls<T>, py::arg("hulls").noconvert(),
        ("The hull of " + name + " (k, 2) arrays' points (the library's hull-of-hulls merge)").c_str());
}

}  // namespace

PYBIND11_MODULE(_wagener, m) {
  m.doc() = "wagener's C++ library, as the wagener package calls it (use the package, not this module)";
  m.attr("__version__") = WAGENER_VERSION;

  // Library errors become Python exceptions derived from the built-in ones a caller expects.
  py::register_exception<wagener::input_error>(m, "InputError", PyExc_ValueError);
  py::register_exception<wagener::cuda_error>(m, "CudaError", PyExc_RuntimeError);
  py::register_exception<wagener::unsupported_error>(m, "UnsupportedError", PyExc_RuntimeError);

  define_array_functions<float>(m, "float32");
  define_array_functions<double>(m, "float64");
  define_array_functions<std::int32_t>(m, "int32");
  define_array_functions<std::int64_t>(m, "int64");
  m.def("convex_hull_device", &convex_hull_device, py::arg("points"), py::arg("n"), py::arg("hull"),
        py::arg("stream"), py::arg("dtype"), "wagener::cuda::convex_hull_device on device pointers");
  m.def("convex_hull_device_soa", &convex_hull_device_soa, py::arg("x"), py::arg("y"), py::arg("n"),
        py::arg("hull"), py::arg("stream"), py::arg("dtype"),
        "wagener::cuda::convex_hull_device on two device arrays x and y");
  m.def("upper_hull_device", &upper_hull_device, py::arg("points"), py::arg("n"), py::arg("hull"),
        py::arg("stream"), py::arg("dtype"), "wagener::cuda::upper_hull_device on device pointers");
  m.def("convex_hulls_device", &convex_hulls_device, py::arg("points"), py::arg("offsets"), py::arg("n"),
        py::arg("groups"), py::arg("hull"), py::arg("hull_offsets"), py::arg("indices"), py::arg("upper"),
        py::arg("stream"), py::arg("dtype"),
        "wagener::cuda::convex_hulls_device on device pointers (indices 0: none)");
  m.def(
      "read_points",
      [](const std::string& path, const std::string& precision, const std::string& format,
         const std::optional<std::pair<std::string, std::string>>& columns) -> py::array {
        if (precision == "float") return read_points<float>(path, format, columns);
        if (precision == "int32") return read_points<std::int32_t>(path, format, columns);
        if (precision == "int64") return read_points<std::int64_t>(path, format, columns);
        return read_points<double>(path, format, columns);
      },
      py::arg("path"), py::arg("precision"), py::arg("format"), py::arg("columns"));
  m.def("orient2d", &orient2d, py::arg("a"), py::arg("b"), py::arg("c"));
  wagener::python::add_pictures(m);
  m.def(
      "cuda_available",
      [] {
        py::gil_scoped_release release;
        return wagener::cuda_available();
      },
      "True when this build has the CUDA backend and a CUDA device is usable");
  wagener::python::bind_hull_queries(m);
}
