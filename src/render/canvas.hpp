// The few drawing primitives a picture needs, so that the layout (src/render/figure.cpp) is written
// once and the SVG and PostScript writers only translate primitives. Coordinates are in pixels (or
// PostScript points), origin at the top left, y growing downwards, as in SVG; the PostScript writer
// flips them.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wagener::draw {

struct Vec2 {
  double x = 0, y = 0;
};

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
};

struct Stroke {
  Rgb color;
  double width = 1;
};

enum class Anchor { start, middle, end };

class Canvas {
 public:
  virtual ~Canvas() = default;
  /// A polyline (closed: a polygon), stroked; `fill` paints the inside first when set.
  virtual void path(std::span<const Vec2> points, bool closed, const Stroke& stroke, const Rgb* fill) = 0;
  /// Round dots of one colour.
  virtual void dots(std::span<const Vec2> centres, double radius, Rgb color) = 0;
  virtual void text(Vec2 at, std::string_view text, double size, Anchor anchor, Rgb color) = 0;
  /// A grey raster (row-major from the top, 255 = white) stretched over the rectangle.
  virtual void raster(Vec2 top_left, Vec2 size, int columns, int rows,
                      std::span<const std::uint8_t> grey) = 0;
  /// Drawing after this is clipped to the rectangle until end_clip().
  virtual void begin_clip(Vec2 top_left, Vec2 size) = 0;
  virtual void end_clip() = 0;
  /// A named group (SVG id, PostScript comment), so that tests and readers can find the parts.
  virtual void begin_group(std::string_view id) = 0;
  virtual void end_group() = 0;
  /// The finished document.
  virtual std::string finish() = 0;
};

/// Appends v with two decimals, as both writers write every length: a hundredth of a pixel (or point)
/// is far below anything a screen or printer shows, and the hull's vertices keep their order and their
/// convexity on the page.
inline void append_two_decimals(std::string& out, double v) {
  char buffer[32];
  const int len = std::snprintf(buffer, sizeof buffer, "%.2f", v);
  out.append(buffer, static_cast<std::size_t>(len));
}

std::unique_ptr<Canvas> make_svg_canvas(double width, double height);
std::unique_ptr<Canvas> make_postscript_canvas(double width, double height);

/// A PNG file of an 8-bit grey image (stored, uncompressed deflate: no zlib needed).
std::string encode_grey_png(int columns, int rows, std::span<const std::uint8_t> grey);
std::string base64(std::string_view bytes);
/// Text as XML and HTML take it in content and in quoted attributes: < > & " escaped.
void append_markup_escaped(std::string& out, std::string_view text);

}  // namespace wagener::draw
