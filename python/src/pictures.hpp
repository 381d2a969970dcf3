// The module's pictures: a hull as SVG (ConvexHull._repr_svg_) and Wagener's rounds as arrays and as
// the rounds page (wagener.trace). The library draws; this file only moves arrays in and out.
#pragma once

#include <pybind11/pybind11.h>

namespace wagener::python {

/// Adds trace(), rounds_page() and render_svg() to the module.
void add_pictures(pybind11::module_& m);

}  // namespace wagener::python
