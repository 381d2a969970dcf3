// What every picture of points shares, whatever draws it (the SVG and PostScript figure, the rounds
// page): the data range and its padding, the plot's aspect, and the density raster that stands for
// the points when they are too many to draw one by one.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "wagener/point.hpp"
#include "wagener/render.hpp"

namespace wagener::draw {

struct Box {
  double x0 = std::numeric_limits<double>::infinity(), y0 = x0;
  double x1 = -x0, y1 = -x0;
  bool empty() const { return !(x0 <= x1); }
  template <class T>
  void add(const Point2<T>& p) {
    x0 = std::min(x0, static_cast<double>(p.x));
    x1 = std::max(x1, static_cast<double>(p.x));
    y0 = std::min(y0, static_cast<double>(p.y));
    y1 = std::max(y1, static_cast<double>(p.y));
  }
};

/// The box a picture shows: a convex hull spans the points' bounding box; an upper hull does not, so
/// then the points are scanned.
template <class T>
Box data_box(std::span<const Point2<T>> points, std::span<const Point2<T>> hull, bool closed) {
  Box box;
  for (const auto& p : closed && !hull.empty() ? hull : points) box.add(p);
  return box;
}

constexpr double kPadFraction = 0.04;  // the data range is widened by this much on each side

/// Widens a degenerate range (one point, a vertical or horizontal line) and pads it, so that
/// nothing sits on the frame and every division below is by a positive width. Computed as
/// half-widths around the centre, so that ranges near the largest doubles do not overflow.
inline Box padded(Box box) {
  if (box.empty()) box = {0, 0, 1, 1};
  const double cx = box.x0 / 2 + box.x1 / 2, cy = box.y0 / 2 + box.y1 / 2;
  double hx = box.x1 / 2 - box.x0 / 2, hy = box.y1 / 2 - box.y0 / 2;
  if (hx == 0 && hy == 0) hx = hy = std::max(1.0, std::abs(cx) + std::abs(cy)) * 0.5;
  if (hx == 0) hx = hy;
  if (hy == 0) hy = hx;
  hx *= 1 + 2 * kPadFraction;
  hy *= 1 + 2 * kPadFraction;
  constexpr double kMax = std::numeric_limits<double>::max();
  return {std::max(cx - hx, -kMax), std::max(cy - hy, -kMax), std::min(cx + hx, kMax),
          std::min(cy + hy, kMax)};
}

/// Where a point falls in the view, as fractions of its width and height (0 at x0 and at y0). In
/// halves: differences of coordinates near the largest doubles would overflow.
template <class T>
double view_u(const Box& view, const Point2<T>& p) {
  return (static_cast<double>(p.x) / 2 - view.x0 / 2) / (view.x1 / 2 - view.x0 / 2);
}
template <class T>
double view_v(const Box& view, const Point2<T>& p) {
  return (static_cast<double>(p.y) / 2 - view.y0 / 2) / (view.y1 / 2 - view.y0 / 2);
}

/// The plot's size for a data range: one scale for x and y unless the aspect is extreme.
/// Returns false when the axes are scaled independently.
inline bool plot_size(const Box& view, double max_width, double& width, double& height) {
  const double aspect = (view.y1 / 2 - view.y0 / 2) / (view.x1 / 2 - view.x0 / 2);
  if (aspect >= 1 / RenderOptions::kMaxAspect && aspect <= RenderOptions::kMaxAspect) {
    // The plot fits in a max_width square; the longer data side spans it.
    width = aspect <= 1 ? max_width : max_width / aspect;
    height = aspect <= 1 ? max_width * aspect : max_width;
    return true;
  }
  width = max_width;
  height = aspect > 1 ? max_width : max_width / RenderOptions::kMaxAspect;
  return false;
}

/// A density raster: grey levels, row-major from the top, 255 = white (no point in the bin).
struct GreyRaster {
  int columns = 0, rows = 0;
  std::vector<std::uint8_t> grey;
};

/// Counts of points per bin over the view, one pass over the points, on a grid of `bins` along the
/// plot's longer side. Shaded by the count relative to the fullest bin, within a light range so
/// that the hull stays the darkest thing on the page; any non-empty bin is at least kLightest, so
/// lone points still show.
template <class T>
GreyRaster density_raster(std::span<const Point2<T>> points, const Box& view, double plot_width,
                          double plot_height, int bins) {
  GreyRaster r;
  r.columns = plot_width >= plot_height ? bins : std::max(1, static_cast<int>(bins * plot_width / plot_height));
  r.rows = plot_height >= plot_width ? bins : std::max(1, static_cast<int>(bins * plot_height / plot_width));
  std::vector<std::uint32_t> count(static_cast<std::size_t>(r.columns) * r.rows, 0);
  for (const auto& p : points) {
    const int cx = std::clamp(static_cast<int>(view_u(view, p) * r.columns), 0, r.columns - 1);
    const int cy = std::clamp(static_cast<int>((1 - view_v(view, p)) * r.rows), 0, r.rows - 1);
    ++count[static_cast<std::size_t>(cy) * r.columns + cx];
  }
  const double top = static_cast<double>(*std::max_element(count.begin(), count.end()));
  r.grey.resize(count.size());
  for (std::size_t i = 0; i < count.size(); ++i) {
    constexpr double kLightest = 225, kDarkest = 80;
    const double level = static_cast<double>(count[i]) / std::max(top, 1.0);
    r.grey[i] = count[i] == 0 ? 255 : static_cast<std::uint8_t>(kLightest - (kLightest - kDarkest) * level);
  }
  return r;
}

}  // namespace wagener::draw
