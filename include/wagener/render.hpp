// Pictures of a point set and its hull, as SVG or PostScript (the seed's hood2ps, grown up).
//
// The hull is drawn exactly: every vertex, as one polygon (or, for an upper hull, one polyline).
// The points are drawn as dots when there are at most RenderOptions::max_dots of them, otherwise as a
// density raster (a grid of bins, darker where more points fell, any non-empty bin visibly grey),
// built in one pass over the points, so a picture of 10^8 points is as small and as quick to display
// as one of 10^4. Axes carry ticks at 1-2-5 steps; x and y share one scale unless the data's aspect
// ratio is beyond kMaxAspect, when each axis is scaled on its own (the caption says so).
//
// With a trace (wagener/trace.hpp), the rounds follow the main picture as small multiples, one
// panel per round: the current hoods, and each merge's bridge (the common tangent) highlighted.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "wagener/config.hpp"
#include "wagener/point.hpp"
#include "wagener/trace.hpp"

namespace wagener {

enum class ImageFormat { svg, postscript };

/// Parses "svg", "ps"; throws std::invalid_argument otherwise.
ImageFormat parse_image_format(std::string_view name);
/// By extension: .ps and .eps are PostScript, anything else SVG.
ImageFormat guess_image_format(std::string_view path);

struct RenderOptions {
  ImageFormat format = ImageFormat::svg;
  /// Width of the picture in pixels (SVG) or PostScript points; the height follows the data.
  int width = 800;
  /// Up to this many points each is drawn as a dot; beyond, a density raster stands for them.
  index_t max_dots = 20000;
  /// Bins along the longer side of the density raster.
  int raster_bins = 320;
  /// The hull is a closed polygon (convex hull) or an open chain (upper hull, left to right).
  bool closed = true;
  /// One line under the picture, e.g. "1000000 points, hull of 104 vertices, cpu backend, 12 ms".
  std::string caption;
  /// Panels drawn for a trace (rounds); more points than kMaxTracePoints is refused.
  static constexpr index_t kMaxTracePoints = 4096;
  /// Beyond this ratio of the data's width and height, each axis gets its own scale.
  static constexpr double kMaxAspect = 8.0;
};

/// The picture as a complete SVG or PostScript document.
/// Pre: points finite; hull the hull of points (any backend's); trace empty or the rounds of the
///      same points, at most kMaxTracePoints of them (std::invalid_argument otherwise).
template <class T>
std::string render(std::span<const Point2<T>> points, std::span<const Point2<T>> hull,
                   std::span<const TraceRound<T>> trace, const RenderOptions& options);

/// What a rounds page (render_rounds_page) holds. Its size grows with the hoods it draws, not with n:
/// beyond max_dots the points are a density raster, and the hoods' corners are drawn up to
/// max_corners in all, the rounds with the fewest corners first.
struct RoundsPageOptions {
  /// Up to this many points each is drawn as a dot (a canvas keeps 10^5 of them smooth through
  /// zooming and panning); beyond, a density raster of raster_bins along the plot's longer side.
  index_t max_dots = 100000;
  int raster_bins = 400;
  /// The corners of the hoods (of every round but round 0, whose hoods are the points) and the
  /// hull's vertices drawn as lines, at most; a round left out says so and shows its counts.
  index_t max_corners = 100000;
  /// The hull is a closed polygon (convex hull: upper, then lower chain) or an upper hull.
  bool closed = true;
  /// The page's title and one line under it (as RenderOptions::caption).
  std::string title = "Wagener's rounds";
  std::string caption;
};

/// One self-contained HTML page (no network, no external script or style) that steps through the
/// rounds: a slider, buttons and the arrow keys; each round's hoods, its bridges highlighted, the
/// pairs of blocks it merged; then the hull. Zoom (wheel) and pan (drag). A legend names the
/// seed's phases, mam 0-6 (docs/algorithm.md). The layout is in docs/formats.md.
/// Pre: points finite; hull the hull of points in the convention `closed` names (any backend's);
///      rounds empty or the trace of the same points (a pram or cuda trace).
template <class T>
std::string render_rounds_page(std::span<const Point2<T>> points, std::span<const Point2<T>> hull,
                               std::span<const TraceRound<T>> rounds, const RoundsPageOptions& options);

}  // namespace wagener
