// wagener._wagener's pictures (pictures.hpp): arrays in, one library call, arrays or a document out.
#include "pictures.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "array_hull.hpp"
#include "numpy_arrays.hpp"
#include "wagener/render.hpp"
#include "wagener/trace.hpp"

namespace py = pybind11;

namespace wagener::python {
namespace {

template <class T>
using PointArray = py::array_t<T, py::array::c_style>;
/// What the package hands back from a Round: converted to T (or int64) and C order where needed.
template <class T>
using AnyArray = py::array_t<T, py::array::c_style | py::array::forcecast>;

/// The points and their hull as the library takes them (aligned_points: a copy only where needed).
template <class T>
struct PointsAndHull {
  std::vector<Point2<T>> point_storage, hull_storage;
  std::span<const Point2<T>> points, hull;

  PointsAndHull(const PointArray<T>& point_array, const PointArray<T>& hull_array) {
    for (const auto* array : {&point_array, &hull_array}) {
      if (array->ndim() != 2 || array->shape(1) != 2)
        throw py::value_error(std::string(array == &point_array ? "points" : "hull") + " must have shape (n, 2)");
    }
    points = aligned_points(point_array.data(), static_cast<std::size_t>(point_array.shape(0)), point_storage);
    hull = aligned_points(hull_array.data(), static_cast<std::size_t>(hull_array.shape(0)), hull_storage);
  }
};

/// The hull and its rounds: (vertices, [(chain, round, block width, corners (c, 2), hood sizes (h,),
/// bridge hoods (b,), bridges (b, 2, 2)), ...]), upper chain first.
template <class T>
py::tuple trace(const PointArray<T>& array, bool upper, bool presorted, const std::string& backend) {
  const std::vector<std::int64_t> shape(array.shape(), array.shape() + array.ndim());
  TraceLog<T> log;
  HullResult<T> result;
  {
    py::gil_scoped_release release;
    result = hull_of_array<T>(array.data(), shape, {upper, presorted, backend, false, &log});
  }
  py::list rounds;
  for (const TraceRound<T>& r : log.rounds()) {
    std::vector<std::int64_t> bridge_hoods;
    py::array_t<T> bridges({static_cast<py::ssize_t>(r.bridges.size()), py::ssize_t{2}, py::ssize_t{2}});
    T* out = bridges.mutable_data();
    for (const Bridge<T>& b : r.bridges) {
      bridge_hoods.push_back(b.hood);
      for (const T v : {b.a.x, b.a.y, b.b.x, b.b.y}) *out++ = v;
    }
    rounds.append(py::make_tuple(std::string(chain_name(r.chain)), r.round, r.block_width,
                                 copy_to_array<T>(r.corners), copy_to_array(r.hood_sizes),
                                 copy_to_array(bridge_hoods), bridges));
  }
  return py::make_tuple(copy_to_array<T>(result.vertices), rounds);
}

/// TraceRounds from what trace() returned (or the package's Round tuples).
template <class T>
std::vector<TraceRound<T>> rounds_of(const py::list& list) {
  std::vector<TraceRound<T>> rounds;
  for (const py::handle item : list) {
    const auto t = item.cast<py::tuple>();
    if (t.size() != 7) throw py::value_error("a round is (chain, round, block_width, corners, hood_sizes, bridge_hoods, bridges)");
    TraceRound<T>& r = rounds.emplace_back();
    const auto chain = t[0].cast<std::string>();
    if (chain != "upper" && chain != "lower") throw py::value_error("a round's chain is \"upper\" or \"lower\"");
    r.chain = chain == "upper" ? Chain::upper : Chain::lower;
    r.round = t[1].cast<int>();
    r.block_width = t[2].cast<index_t>();
    const auto corners = t[3].cast<AnyArray<T>>();
    const auto sizes = t[4].cast<AnyArray<std::int64_t>>();
    const auto hoods = t[5].cast<AnyArray<std::int64_t>>();
    const auto bridges = t[6].cast<AnyArray<T>>();
    if (corners.ndim() != 2 || corners.shape(1) != 2) throw py::value_error("a round's corners must have shape (c, 2)");
    if (sizes.ndim() != 1 || hoods.ndim() != 1) throw py::value_error("hood sizes and bridge hoods are one-dimensional");
    if (bridges.ndim() != 3 || bridges.shape(0) != hoods.shape(0) || bridges.shape(1) != 2 || bridges.shape(2) != 2)
      throw py::value_error("a round's bridges must have shape (b, 2, 2), one per bridge hood");
    const T* c = corners.data();
    for (py::ssize_t i = 0; i < corners.shape(0); ++i) r.corners.push_back({c[2 * i], c[2 * i + 1]});
    r.hood_sizes.assign(sizes.data(), sizes.data() + sizes.shape(0));
    const T* b = bridges.data();
    for (py::ssize_t i = 0; i < hoods.shape(0); ++i, b += 4) r.bridges.push_back({hoods.data()[i], {b[0], b[1]}, {b[2], b[3]}});
  }
  return rounds;
}

template <class T>
std::string rounds_page(const PointArray<T>& points, const PointArray<T>& hull, const py::list& list, bool closed,
                        const std::string& title, const std::string& caption, std::optional<index_t> max_dots,
                        std::optional<index_t> max_corners) {
  const std::vector<TraceRound<T>> rounds = rounds_of<T>(list);
  const PointsAndHull<T> picture(points, hull);
  RoundsPageOptions options;
  options.closed = closed;
  options.title = title;
  options.caption = caption;
  if (max_dots) options.max_dots = *max_dots;  // else the library's defaults
  if (max_corners) options.max_corners = *max_corners;
  py::gil_scoped_release release;
  return render_rounds_page<T>(picture.points, picture.hull, rounds, options);
}

template <class T>
std::string render_svg(const PointArray<T>& points, const PointArray<T>& hull, bool closed, int width,
                       index_t max_dots, const std::string& caption) {
  const PointsAndHull<T> picture(points, hull);
  RenderOptions options;
  options.closed = closed;
  options.width = width;
  options.max_dots = max_dots;
  options.caption = caption;
  py::gil_scoped_release release;
  return render<T>(picture.points, picture.hull, {}, options);
}

template <class T>
void add_pictures_for(py::module_& m, const char* trace_doc, const char* rounds_page_doc, const char* svg_doc) {
  m.def("trace", &trace<T>, py::arg("points").noconvert(), py::arg("upper"), py::arg("presorted"),
        py::arg("backend"), trace_doc);
  m.def("rounds_page", &rounds_page<T>, py::arg("points").noconvert(), py::arg("hull").noconvert(),
        py::arg("rounds"), py::arg("closed"), py::arg("title"), py::arg("caption"), py::arg("max_dots"),
        py::arg("max_corners"), rounds_page_doc);
  m.def("render_svg", &render_svg<T>, py::arg("points").noconvert(), py::arg("hull").noconvert(),
        py::arg("closed"), py::arg("width"), py::arg("max_dots"), py::arg("caption"), svg_doc);
}

}  // namespace

void add_pictures(py::module_& m) {
  // One overload per coordinate type (noconvert: an array of another dtype tries the next one).
  add_pictures_for<float>(m, "", "", "");
  add_pictures_for<double>(m, "", "", "");
  add_pictures_for<std::int32_t>(m, "", "", "");
  add_pictures_for<std::int64_t>(
      m,
      "(vertices, rounds) of a C-contiguous (n, 2) float32, float64, int32 or int64 array: Wagener's rounds as "
      "(chain, round, block_width, corners, hood_sizes, bridge_hoods, bridges) tuples",
      "wagener::render_rounds_page: the rounds as one self-contained HTML page",
      "wagener::render: the points and their hull as an SVG document");
}

}  // namespace wagener::python
