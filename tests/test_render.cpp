// Pictures: the documents' structure, the exact hull polygon, the density raster's switch-over, the
// PNG and base64 encoders, and inputs that would break naive scaling. Pixels are checked by
// tests/render/test_render.sh, which needs rsvg-convert and Ghostscript.
#include <gtest/gtest.h>

#include <random>
#include <regex>
#include <string>

#include "generators.hpp"
#include "render/canvas.hpp"
#include "wagener/hull.hpp"
#include "wagener/render.hpp"

namespace wagener {
namespace {

using P = Point2<double>;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// The hull's path in the SVG: the vertices of its "d" attribute.
std::size_t hull_vertices_in_svg(const std::string& svg) {
  const auto group = svg.find("<g id=\"hull\">");
  const auto d = svg.find(" d=\"", group);
  const auto end = svg.find('"', d + 4);
  const std::string path = svg.substr(d + 4, end - d - 4);
  return count(path, "M") + count(path, "L");
}

TEST(Render, SvgDrawsEveryHullVertexAndEveryPointWhenFew) {
  std::mt19937_64 rng(testing::fresh_seed());
  const auto pts = testing::uniform_disk<double>(500, rng);
  const auto hull = convex_hull<double>(pts);
  RenderOptions options;
  options.caption = "a caption & <escapes>";
  const std::string svg = render<double>(pts, hull, {}, options);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_EQ(hull_vertices_in_svg(svg), hull.size());
  EXPECT_NE(svg.find("a caption &amp; &lt;escapes&gt;"), std::string::npos);
  EXPECT_NE(svg.find("every point drawn"), std::string::npos);
  const auto points = svg.substr(svg.find("<g id=\"points\">"));
  EXPECT_EQ(count(points.substr(0, points.find("</g>")), "h0.01"), pts.size());
  EXPECT_EQ(svg.find("<image"), std::string::npos);
}

TEST(Render, ManyPointsBecomeADensityRaster) {
  std::mt19937_64 rng(testing::fresh_seed());
  const auto pts = testing::uniform_square<double>(30000, rng);
  const auto hull = convex_hull<double>(pts);
  const std::string svg = render<double>(pts, hull, {}, {});
  EXPECT_EQ(count(svg, "<image"), 1u);
  EXPECT_NE(svg.find("data:image/png;base64,iVBORw0KGgo"), std::string::npos);  // the PNG signature
  EXPECT_LT(svg.size(), 300000u);
  EXPECT_EQ(hull_vertices_in_svg(svg), hull.size());
}

TEST(Render, PostScriptIsOnePageWithTheSameParts) {
  const std::vector<P> pts = {{0, 0}, {4, 0}, {0, 3}, {1, 1}};
  const auto hull = convex_hull<double>(pts);
  RenderOptions options;
  options.format = ImageFormat::postscript;
  options.caption = "parentheses (and \\ backslashes)";
  const std::string ps = render<double>(pts, hull, {}, options);
  EXPECT_EQ(ps.rfind("%!PS-Adobe-3.0\n", 0), 0u);
  EXPECT_NE(ps.find("% begin hull"), std::string::npos);
  EXPECT_NE(ps.find("(parentheses \\(and \\\\ backslashes\\);"), std::string::npos);
  EXPECT_EQ(ps.substr(ps.size() - 15), "showpage\n%%EOF\n");
}

TEST(Render, TraceAddsOnePanelPerRoundAndIsRefusedForLargeInputs) {
  const std::vector<P> pts = {{0, 0}, {1, 2}, {2, 1}, {3, 3}, {4, 0}};
  TraceLog<double> log;
  const auto hull = convex_hull<double>(pts, {Backend::pram, nullptr, &log});
  const std::string svg = render<double>(pts, hull, log.rounds(), {});
  EXPECT_EQ(count(svg, "id=\"round-upper-"), 4u);  // rounds 0..3 for 5 points
  EXPECT_EQ(count(svg, "id=\"round-lower-"), 4u);

  std::mt19937_64 rng(1);
  const auto many = testing::uniform_disk<double>(RenderOptions::kMaxTracePoints + 1, rng);
  EXPECT_THROW(render<double>(many, convex_hull<double>(many), log.rounds(), {}), std::invalid_argument);
}

TEST(Render, DegenerateAndExtremeRangesStayFinite) {
  const std::vector<std::vector<P>> inputs = {
      {},
      {{3, 3}},
      {{0, 0}, {0, 5}},                                     // vertical: no x range
      {{-1e308, -1e308}, {1e308, 1e308}, {1e308, -1e308}},  // the range itself overflows a double
      {{0, 0}, {1e-310, 1e-310}, {2e-310, 0}},              // subnormal
      {{0, 0}, {1000, 1}, {500, 0.5}},                      // extreme aspect: axes scaled independently
  };
  for (const auto& pts : inputs) {
    const auto hull = convex_hull<double>(pts);
    for (const auto format : {ImageFormat::svg, ImageFormat::postscript}) {
      RenderOptions options;
      options.format = format;
      const std::string doc = render<double>(pts, hull, {}, options);
      EXPECT_EQ(doc.find("nan"), std::string::npos) << doc.substr(0, 2000);
      EXPECT_EQ(doc.find("inf"), std::string::npos) << doc.substr(0, 2000);
    }
  }
  const std::vector<P> wide = {{0, 0}, {1000, 1}, {500, 0.5}};
  EXPECT_NE(render<double>(wide, convex_hull<double>(wide), {}, {}).find("scaled independently"),
            std::string::npos);
}

TEST(Render, FormatsByNameAndExtension) {
  EXPECT_EQ(guess_image_format("a/b.ps"), ImageFormat::postscript);
  EXPECT_EQ(guess_image_format("b.eps"), ImageFormat::postscript);
  EXPECT_EQ(guess_image_format("b.svg"), ImageFormat::svg);
  EXPECT_EQ(guess_image_format("-"), ImageFormat::svg);
  EXPECT_EQ(parse_image_format("ps"), ImageFormat::postscript);
  EXPECT_THROW(parse_image_format("png"), std::invalid_argument);
}

TEST(RenderEncoders, Base64MatchesRfc4648Vectors) {
  EXPECT_EQ(draw::base64(""), "");
  EXPECT_EQ(draw::base64("f"), "Zg==");
  EXPECT_EQ(draw::base64("fo"), "Zm8=");
  EXPECT_EQ(draw::base64("foo"), "Zm9v");
  EXPECT_EQ(draw::base64("foobar"), "Zm9vYmFy");
}

TEST(RenderEncoders, PngHasSignatureChunksAndStoredBlocks) {
  // 300 x 300 needs two stored deflate blocks (90300 bytes of scanlines > 65535).
  std::vector<std::uint8_t> grey(300 * 300, 128);
  const std::string png = draw::encode_grey_png(300, 300, grey);
  EXPECT_EQ(png.substr(0, 8), "\x89PNG\r\n\x1a\n");
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  EXPECT_NE(png.find("IDAT"), std::string::npos);
  // IEND with its fixed CRC ends every PNG.
  EXPECT_EQ(png.substr(png.size() - 12), std::string("\0\0\0\0IEND\xae\x42\x60\x82", 12));
  const std::size_t scanlines = 300 * 301;
  EXPECT_EQ(png.size(), 8 + 25 + 12 + 2 + scanlines + 2 * 5 + 4 + 12);
}

}  // namespace
}  // namespace wagener
