// The layout of a picture: data range, scale, axes, points (dots or density raster), the hull, the
// caption and, with a trace, one small panel per round. Written once against render::Canvas.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "render/canvas.hpp"
#include "render/layout.hpp"
#include "wagener/render.hpp"

namespace wagener {
namespace draw {
namespace {

constexpr Rgb kInk{0, 0, 0};
constexpr Rgb kAxis{90, 90, 90};
constexpr Rgb kFrame{170, 170, 170};
constexpr Rgb kPoint{110, 110, 110};
constexpr Rgb kHull{214, 39, 40};  // red: stands out from the grey points and the blue hoods
constexpr Rgb kHood{31, 90, 180};
constexpr Rgb kBridge{214, 39, 40};

constexpr double kMargin = 16;       // around the whole picture
constexpr double kAxisSpace = 56;    // left of the plot: tick labels
constexpr double kBottomSpace = 44;  // below the plot: tick labels and the caption
constexpr double kTickSpacing = 90;  // pixels between ticks, about
constexpr double kFontSize = 12;
constexpr int kPanelColumns = 3;
constexpr double kPanelGap = 14;
constexpr double kPanelTitle = 18;
constexpr std::size_t kMaxMarkedVertices = 100;  // beyond, vertex dots would blur the hull's edges

/// The data range (padded) and where it goes on the canvas.
struct Frame {
  Box view;
  double left = 0, top = 0, width = 1, height = 1;

  template <class T>
  Vec2 map(const Point2<T>& p) const {
    // Halves: differences of coordinates near the largest doubles would overflow.
    return {left + (static_cast<double>(p.x) / 2 - view.x0 / 2) / (view.x1 / 2 - view.x0 / 2) * width,
            top + (view.y1 / 2 - static_cast<double>(p.y) / 2) / (view.y1 / 2 - view.y0 / 2) * height};
  }
  template <class T>
  std::vector<Vec2> map(std::span<const Point2<T>> points) const {
    std::vector<Vec2> out(points.size());
    std::transform(points.begin(), points.end(), out.begin(),
                   [this](const Point2<T>& p) { return this->map(p); });
    return out;
  }
};

std::string tick_label(double v, double step) {
  char buffer[40];
  if (std::abs(v) < step * 1e-9) v = 0;  // -0 and rounding noise print as 0
  const double magnitude = std::max(std::abs(v), step);
  if (magnitude >= 1e-4 && magnitude < 1e7) {
    const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.3g", v);
  }
  return buffer;
}

/// Ticks at 1, 2 or 5 times a power of ten, about kTickSpacing pixels apart.
std::vector<double> ticks(double lo, double hi, double pixels, double& step) {
  const double wanted = std::max(2.0, pixels / kTickSpacing);
  const double raw = (hi / wanted - lo / wanted);
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  step = power;
  for (const double f : {1.0, 2.0, 5.0, 10.0}) {
    step = f * power;
    if (step >= raw) break;
  }
  std::vector<double> out;
  for (double k = std::ceil(lo / step); k * step <= hi && out.size() < 64; k += 1) out.push_back(k * step);
  return out;
}

void draw_axes(Canvas& canvas, const Frame& f) {
  canvas.begin_group("axes");
  const Vec2 corners[] = {{f.left, f.top},
                          {f.left + f.width, f.top},
                          {f.left + f.width, f.top + f.height},
                          {f.left, f.top + f.height}};
  canvas.path(corners, true, {kFrame, 1}, nullptr);
  double step = 1;
  for (const double x : ticks(f.view.x0, f.view.x1, f.width, step)) {
    const double px = f.map(Point2<double>{x, f.view.y0}).x;
    const Vec2 tick[] = {{px, f.top + f.height}, {px, f.top + f.height + 5}};
    canvas.path(tick, false, {kAxis, 1}, nullptr);
    canvas.text({px, f.top + f.height + 18}, tick_label(x, step), kFontSize, Anchor::middle, kAxis);
  }
  for (const double y : ticks(f.view.y0, f.view.y1, f.height, step)) {
    const double py = f.map(Point2<double>{f.view.x0, y}).y;
    const Vec2 tick[] = {{f.left - 5, py}, {f.left, py}};
    canvas.path(tick, false, {kAxis, 1}, nullptr);
    canvas.text({f.left - 8, py + 4}, tick_label(y, step), kFontSize, Anchor::end, kAxis);
  }
  canvas.end_group();
}

template <class T>
void draw_density(Canvas& canvas, const Frame& f, std::span<const Point2<T>> points, int bins) {
  const GreyRaster r = density_raster(points, f.view, f.width, f.height, bins);
  canvas.raster({f.left, f.top}, {f.width, f.height}, r.columns, r.rows, r.grey);
}

template <class T>
void draw_points(Canvas& canvas, const Frame& f, std::span<const Point2<T>> points,
                 const RenderOptions& options) {
  canvas.begin_group("points");
  if (static_cast<index_t>(points.size()) <= options.max_dots) {
    canvas.dots(f.map(points), points.size() <= 1000 ? 2.0 : 1.2, kPoint);
  } else {
    draw_density(canvas, f, points, std::max(1, options.raster_bins));
  }
  canvas.end_group();
}

template <class T>
void draw_panel(Canvas& canvas, const Frame& f, std::span<const Point2<T>> points, const TraceRound<T>& r) {
  const std::string title = std::string(chain_name(r.chain)) + " chain, round " + std::to_string(r.round) +
                            ": " + std::to_string(r.hood_sizes.size()) +
                            (r.hood_sizes.size() == 1 ? " hood, block of " : " hoods, blocks of ") +
                            std::to_string(r.block_width);
  canvas.begin_group("round-" + std::string(chain_name(r.chain)) + "-" + std::to_string(r.round));
  canvas.text({f.left, f.top - 5}, title, 10, Anchor::start, kInk);
  const Vec2 corners[] = {{f.left, f.top},
                          {f.left + f.width, f.top},
                          {f.left + f.width, f.top + f.height},
                          {f.left, f.top + f.height}};
  canvas.path(corners, true, {kFrame, 1}, nullptr);
  canvas.begin_clip({f.left, f.top}, {f.width, f.height});
  canvas.dots(f.map(points), 1.2, Rgb{160, 160, 160});
  for (std::size_t k = 0; k < r.hood_sizes.size(); ++k) {
    const auto hood = f.map(r.hood(k));
    if (hood.size() > 1) canvas.path(hood, false, {kHood, 1}, nullptr);
    canvas.dots(hood, 1.8, kHood);
  }
  for (const auto& b : r.bridges) {
    const Vec2 bridge[] = {f.map(b.a), f.map(b.b)};
    canvas.path(bridge, false, {kBridge, 2.5}, nullptr);
  }
  canvas.end_clip();
  canvas.end_group();
}

std::unique_ptr<Canvas> make_canvas(ImageFormat format, double width, double height) {
  return format == ImageFormat::postscript ? make_postscript_canvas(width, height)
                                           : make_svg_canvas(width, height);
}

}  // namespace
}  // namespace draw

ImageFormat parse_image_format(std::string_view name) {
  if (name == "svg") return ImageFormat::svg;
  if (name == "ps" || name == "postscript" || name == "eps") return ImageFormat::postscript;
  throw std::invalid_argument("unknown image format \"" + std::string(name) + "\" (svg, ps)");
}

ImageFormat guess_image_format(std::string_view path) {
  auto ends_with = [&](std::string_view suffix) {
    return path.size() >= suffix.size() && path.substr(path.size() - suffix.size()) == suffix;
  };
  return ends_with(".ps") || ends_with(".eps") ? ImageFormat::postscript : ImageFormat::svg;
}

template <class T>
std::string render(std::span<const Point2<T>> points, std::span<const Point2<T>> hull,
                   std::span<const TraceRound<T>> trace, const RenderOptions& options) {
  using namespace draw;
  if (!trace.empty() && static_cast<index_t>(points.size()) > RenderOptions::kMaxTracePoints) {
    throw std::invalid_argument("a trace is drawn for at most " +
                                std::to_string(RenderOptions::kMaxTracePoints) + " points (got " +
                                std::to_string(points.size()) + ")");
  }
  Frame main;
  main.view = padded(data_box(points, hull, options.closed));
  const double width = std::max(200.0, static_cast<double>(options.width));
  const double max_plot = width - kAxisSpace - 2 * kMargin;
  const bool same_scale = plot_size(main.view, max_plot, main.width, main.height);
  main.left = kMargin + kAxisSpace + (max_plot - main.width) / 2;
  main.top = kMargin;
  double height = main.top + main.height + kBottomSpace + kMargin;

  // Small multiples: one panel per round, kPanelColumns to a row, all with the main view.
  Frame panel;
  panel.view = main.view;
  const double panel_max = (width - 2 * kMargin - (kPanelColumns - 1) * kPanelGap) / kPanelColumns;
  plot_size(panel.view, panel_max, panel.width, panel.height);
  const double panel_row = kPanelTitle + panel.height + kPanelGap;
  const double panels_top = height;
  if (!trace.empty()) {
    height += static_cast<double>((trace.size() + kPanelColumns - 1) / kPanelColumns) * panel_row + kMargin;
  }

  auto canvas = make_canvas(options.format, width, height);
  canvas->begin_clip({main.left, main.top}, {main.width, main.height});
  draw_points(*canvas, main, points, options);
  canvas->begin_group("hull");
  const auto polygon = main.map(hull);
  canvas->path(polygon, options.closed, {kHull, 2}, nullptr);
  if (hull.size() <= kMaxMarkedVertices) canvas->dots(polygon, 2.5, kHull);
  canvas->end_group();
  canvas->end_clip();
  draw_axes(*canvas, main);

  std::string caption = options.caption;
  const bool raster = static_cast<index_t>(points.size()) > options.max_dots;
  caption += caption.empty() ? "" : "; ";
  caption += raster ? "points as a density raster" : "every point drawn";
  if (!same_scale) caption += "; x and y scaled independently";
  canvas->begin_group("caption");
  canvas->text({kMargin, main.top + main.height + 38}, caption, kFontSize, Anchor::start, kInk);
  canvas->end_group();

  for (std::size_t i = 0; i < trace.size(); ++i) {
    panel.left = kMargin + static_cast<double>(i % kPanelColumns) * (panel_max + kPanelGap);
    panel.top = panels_top + static_cast<double>(i / kPanelColumns) * panel_row + kPanelTitle;
    draw_panel(*canvas, panel, points, trace[i]);
  }
  return canvas->finish();
}

// Integer points are drawn at their doubles' places (a picture needs no more).
#define WAGENER_INSTANTIATE(T)                                                           \
  template std::string render<T>(std::span<const Point2<T>>, std::span<const Point2<T>>, \
                                 std::span<const TraceRound<T>>, const RenderOptions&);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener
