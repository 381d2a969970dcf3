// The SVG writer: each primitive becomes one element; dots share one path of round-capped
// zero-length strokes, so ten thousand dots cost a few hundred kilobytes, not megabytes.
#include <cstdio>
#include <string>

#include "render/canvas.hpp"

namespace wagener::draw {
namespace {

std::string colour(Rgb c) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x", c.r, c.g, c.b);
  return buffer;
}

class SvgCanvas final : public Canvas {
 public:
  SvgCanvas(double width, double height) {
    out_ =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"";
    append_two_decimals(out_, width);
    out_ += "\" height=\"";
    append_two_decimals(out_, height);
    out_ += "\" viewBox=\"0 0 ";
    append_two_decimals(out_, width);
    out_ += ' ';
    append_two_decimals(out_, height);
    out_ +=
        "\" font-family=\"Helvetica, Arial, sans-serif\">\n<rect width=\"100%\" height=\"100%\" "
        "fill=\"#ffffff\"/>\n";
  }

  void path(std::span<const Vec2> points, bool closed, const Stroke& stroke, const Rgb* fill) override {
    if (points.empty()) return;
    out_ += "<path fill=\"";
    out_ += fill ? colour(*fill) : "none";
    out_ += "\" stroke=\"" + colour(stroke.color) + "\" stroke-width=\"";
    append_two_decimals(out_, stroke.width);
    out_ += "\" stroke-linejoin=\"round\" stroke-linecap=\"round\" d=\"";
    char command = 'M';
    for (const Vec2& p : points) {
      out_ += command;
      append_two_decimals(out_, p.x);
      out_ += ' ';
      append_two_decimals(out_, p.y);
      command = 'L';
    }
    if (points.size() == 1) out_ += "h0.01";  // a single vertex still shows as a dot
    if (closed) out_ += 'Z';
    out_ += "\"/>\n";
  }

  void dots(std::span<const Vec2> centres, double radius, Rgb color) override {
    if (centres.empty()) return;
    out_ += "<path fill=\"none\" stroke=\"" + colour(color) + "\" stroke-linecap=\"round\" stroke-width=\"";
    append_two_decimals(out_, 2 * radius);
    out_ += "\" d=\"";
    for (const Vec2& p : centres) {
      out_ += 'M';
      append_two_decimals(out_, p.x);
      out_ += ' ';
      append_two_decimals(out_, p.y);
      out_ += "h0.01";  // renderers differ on zero-length subpaths; a hundredth of a pixel is drawn by all
    }
    out_ += "\"/>\n";
  }

  void text(Vec2 at, std::string_view text, double size, Anchor anchor, Rgb color) override {
    out_ += "<text x=\"";
    append_two_decimals(out_, at.x);
    out_ += "\" y=\"";
    append_two_decimals(out_, at.y);
    out_ += "\" font-size=\"";
    append_two_decimals(out_, size);
    out_ += "\" fill=\"" + colour(color) + "\"";
    if (anchor == Anchor::middle) out_ += " text-anchor=\"middle\"";
    if (anchor == Anchor::end) out_ += " text-anchor=\"end\"";
    out_ += '>';
    append_markup_escaped(out_, text);
    out_ += "</text>\n";
  }

  void raster(Vec2 top_left, Vec2 size, int columns, int rows, std::span<const std::uint8_t> grey) override {
    out_ += "<image ";
    append_box(top_left, size);
    out_ +=
        " preserveAspectRatio=\"none\" style=\"image-rendering:pixelated\" "
        "xlink:href=\"data:image/png;base64,";
    out_ += base64(encode_grey_png(columns, rows, grey));
    out_ += "\"/>\n";
  }

  void begin_clip(Vec2 top_left, Vec2 size) override {
    const std::string id = "clip" + std::to_string(++clips_);
    out_ += "<clipPath id=\"" + id + "\"><rect ";
    append_box(top_left, size);
    out_ += "/></clipPath>\n<g clip-path=\"url(#" + id + ")\">\n";
  }
  void end_clip() override { out_ += "</g>\n"; }

  void begin_group(std::string_view id) override {
    out_ += "<g id=\"";
    append_markup_escaped(out_, id);
    out_ += "\">\n";
  }
  void end_group() override { out_ += "</g>\n"; }

  std::string finish() override {
    out_ += "</svg>\n";
    return std::move(out_);
  }

 private:
  // The attributes of a rectangle: x="..." y="..." width="..." height="...".
  void append_box(Vec2 top_left, Vec2 size) {
    out_ += "x=\"";
    append_two_decimals(out_, top_left.x);
    out_ += "\" y=\"";
    append_two_decimals(out_, top_left.y);
    out_ += "\" width=\"";
    append_two_decimals(out_, size.x);
    out_ += "\" height=\"";
    append_two_decimals(out_, size.y);
    out_ += '"';
  }

  std::string out_;
  int clips_ = 0;
};

}  // namespace

void append_markup_escaped(std::string& out, std::string_view text) {
  for (const char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
}

std::unique_ptr<Canvas> make_svg_canvas(double width, double height) {
  return std::make_unique<SvgCanvas>(width, height);
}

}  // namespace wagener::draw
