// The PostScript writer (the seed's hood2ps): one page the size of the picture, y flipped so that
// the layout can think in SVG's top-left coordinates. Dots are one short procedure call each.
#include <cstdio>
#include <string>

#include "render/canvas.hpp"

namespace wagener::draw {
namespace {

void append_colour(std::string& out, Rgb c) {
  char buffer[48];
  const int len = std::snprintf(buffer, sizeof buffer, "%.3f %.3f %.3f setrgbcolor\n", c.r / 255.0,
                                c.g / 255.0, c.b / 255.0);
  out.append(buffer, static_cast<std::size_t>(len));
}

class PostScriptCanvas final : public Canvas {
 public:
  PostScriptCanvas(double width, double height) : height_(height) {
    std::string w, h;
    append_two_decimals(w, width);
    append_two_decimals(h, height);
    out_ = "%!PS-Adobe-3.0\n%%Creator: wagener\n%%BoundingBox: 0 0 " +
           std::to_string(static_cast<long>(width + 0.999)) + ' ' +
           std::to_string(static_cast<long>(height + 0.999)) + "\n%%Pages: 1\n%%EndComments\n" +
           "%%BeginSetup\n<< /PageSize [" + w + ' ' + h + "] >> setpagedevice\n%%EndSetup\n" +
           "%%Page: 1 1\n"
           "/m { moveto } bind def\n/l { lineto } bind def\n"
           "/d { newpath 2 copy moveto r 0 360 arc fill } bind def\n"
           "/tm { stringwidth pop 2 div neg 0 rmoveto } bind def\n"
           "/te { stringwidth pop neg 0 rmoveto } bind def\n"
           "1 setlinejoin 1 setlinecap\n"
           "1 1 1 setrgbcolor 0 0 " +
           w + ' ' + h + " rectfill\n";
  }

  void path(std::span<const Vec2> points, bool closed, const Stroke& stroke, const Rgb* fill) override {
    if (points.empty()) return;
    out_ += "newpath\n";
    const char* op = " m\n";
    for (const Vec2& p : points) {
      point(p);
      out_ += op;
      op = " l\n";
    }
    if (points.size() == 1) out_ += "0.01 0 rlineto\n";
    if (closed) out_ += "closepath\n";
    if (fill) {
      out_ += "gsave ";
      append_colour(out_, *fill);
      out_ += "fill grestore\n";
    }
    append_colour(out_, stroke.color);
    append_two_decimals(out_, stroke.width);
    out_ += " setlinewidth stroke\n";
  }

  void dots(std::span<const Vec2> centres, double radius, Rgb color) override {
    if (centres.empty()) return;
    append_colour(out_, color);
    out_ += "/r ";
    append_two_decimals(out_, radius);
    out_ += " def\n";
    for (const Vec2& p : centres) {
      point(p);
      out_ += " d\n";
    }
  }

  void text(Vec2 at, std::string_view text, double size, Anchor anchor, Rgb color) override {
    append_colour(out_, color);
    out_ += "/Helvetica findfont ";
    append_two_decimals(out_, size);
    out_ += " scalefont setfont ";
    point(at);
    out_ += " m ";
    std::string literal = "(";
    for (const char c : text) {
      if (c == '(' || c == ')' || c == '\\') literal += '\\';
      literal += c;
    }
    literal += ')';
    if (anchor == Anchor::middle) out_ += literal + " tm ";
    if (anchor == Anchor::end) out_ += literal + " te ";
    out_ += literal + " show\n";
  }

  void raster(Vec2 top_left, Vec2 size, int columns, int rows, std::span<const std::uint8_t> grey) override {
    static constexpr char kHex[] = "0123456789abcdef";
    gsave_at_box(top_left, size, " translate ");
    const std::string c = std::to_string(columns), r = std::to_string(rows);
    out_ += " scale\n/picstr " + c + " string def\n" + c + ' ' + r + " 8 [" + c + " 0 0 -" + r + " 0 " + r +
            "] { currentfile picstr readhexstring pop } image\n";
    for (std::size_t i = 0; i < grey.size(); ++i) {
      out_ += kHex[grey[i] >> 4];
      out_ += kHex[grey[i] & 15];
      if (i % 40 == 39 || i + 1 == grey.size()) out_ += '\n';
    }
    out_ += "grestore\n";
  }

  void begin_clip(Vec2 top_left, Vec2 size) override {
    gsave_at_box(top_left, size, " ");
    out_ += " rectclip\n";
  }
  void end_clip() override { out_ += "grestore\n"; }

  void begin_group(std::string_view id) override { out_ += "% begin " + std::string(id) + '\n'; }
  void end_group() override { out_ += "% end\n"; }

  std::string finish() override {
    out_ += "showpage\n%%EOF\n";
    return std::move(out_);
  }

 private:
  // "gsave", then a rectangle's bottom-left corner, `between`, and its width and height.
  void gsave_at_box(Vec2 top_left, Vec2 size, std::string_view between) {
    out_ += "gsave ";
    point({top_left.x, top_left.y + size.y});
    out_ += between;
    append_two_decimals(out_, size.x);
    out_ += ' ';
    append_two_decimals(out_, size.y);
  }

  void point(Vec2 p) {
    append_two_decimals(out_, p.x);
    out_ += ' ';
    append_two_decimals(out_, height_ - p.y);
  }

  double height_;
  std::string out_;
};

}  // namespace

std::unique_ptr<Canvas> make_postscript_canvas(double width, double height) {
  return std::make_unique<PostScriptCanvas>(width, height);
}

}  // namespace wagener::draw
