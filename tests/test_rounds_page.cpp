// The rounds page (render_rounds_page): one self-contained document, its data the trace's rounds
// (decoded back here), the density raster and the corner budget beyond which it stops growing with n,
// and refusals. tests/browser/test_rounds_page.py loads pages in a real browser.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "generators.hpp"
#include "render/layout.hpp"
#include "wagener/hull.hpp"
#include "wagener/render.hpp"

namespace wagener {
namespace {

using P = Point2<double>;

std::ptrdiff_t count(const std::string& text, const std::string& what) {
  const std::regex literal(std::regex_replace(what, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)"));
  return std::distance(std::sregex_iterator(text.begin(), text.end(), literal), std::sregex_iterator());
}

/// The JSON the page's script reads.
std::string data_of(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"wagener-rounds\">";
  const auto from = page.find(open) + open.size();
  return page.substr(from, page.find("</script>", from) - from);
}

/// Every value of a key whose value is a string ("key":"...") or a number, in order.
std::vector<std::string> values(const std::string& json, const std::string& key) {
  std::vector<std::string> out;
  const std::regex pattern("\"" + key + "\":\"?([^\",}]*)");
  for (auto it = std::sregex_iterator(json.begin(), json.end(), pattern); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

std::vector<std::uint32_t> words_of(const std::string& base64) {
  static const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string bytes;
  std::uint32_t bits = 0;
  int held = 0;
  for (const char c : base64) {
    if (c == '=') break;
    bits = (bits << 6) | static_cast<std::uint32_t>(alphabet.find(c));
    held += 6;
    if (held >= 8) {
      held -= 8;
      bytes += static_cast<char>((bits >> held) & 0xff);
    }
  }
  std::vector<std::uint32_t> words(bytes.size() / 4);
  for (std::size_t i = 0; i < words.size(); ++i) {
    for (int k = 0; k < 4; ++k) words[i] |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(bytes[4 * i + k])) << (8 * k);
  }
  return words;
}

std::vector<float> floats_of(const std::string& base64) {
  std::vector<float> out;
  for (const std::uint32_t w : words_of(base64)) out.push_back(std::bit_cast<float>(w));
  return out;
}

const std::vector<P> kEight = {{0, 0}, {1, 2}, {2, 1}, {3, 3}, {4, 0}, {5, 2}, {6, 1}, {7, 4}};

TEST(RoundsPage, IsOneSelfContainedDocument) {
  TraceLog<double> log;
  const auto hull = convex_hull<double>(kEight, {Backend::pram, nullptr, &log});
  RoundsPageOptions options;
  options.title = "rounds <b>&</b>";
  options.caption = "a caption that ends a script: </script><script>alert(1)</script>";
  const std::string page = render_rounds_page<double>(kEight, hull, log.rounds(), options);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("Content-Security-Policy"), std::string::npos);
  for (const char* external : {"src=", "href=", "http:", "https:", "@import", "url("})
    EXPECT_EQ(page.find(external), std::string::npos) << external;
  for (const char* marker : {"@TITLE@", "@DATA@", "/*@STYLE@*/", "/*@SCRIPT@*/"})
    EXPECT_EQ(page.find(marker), std::string::npos) << marker;
  EXPECT_EQ(count(page, "</script>"), 2);  // the caption cannot end the data early
  EXPECT_NE(page.find("<title>rounds &lt;b&gt;&amp;&lt;/b&gt;</title>"), std::string::npos);
  for (int phase = 0; phase <= 6; ++phase)
    EXPECT_NE(page.find("<b>mam " + std::to_string(phase) + "</b>"), std::string::npos) << phase;
  const std::string data = data_of(page);
  EXPECT_EQ(values(data, "chain").size(), log.rounds().size());
  EXPECT_EQ(values(data, "hullVertices"), std::vector<std::string>{std::to_string(hull.size())});
  EXPECT_EQ(count(data, "\"dots\":"), 1);
  EXPECT_EQ(count(data, "\"density\":"), 0);
}

TEST(RoundsPage, DataDecodesToTheTrace) {
  std::mt19937_64 rng(testing::fresh_seed());
  const auto pts = testing::gaussian<double>(300, rng);
  TraceLog<double> log;
  const auto hull = convex_hull<double>(pts, {Backend::pram, nullptr, &log});
  const std::string data = data_of(render_rounds_page<double>(pts, hull, log.rounds(), {}));
  const draw::Box view = draw::padded(draw::data_box<double>(pts, hull, true));
  const auto drawn = values(data, "drawn");
  const auto xy = values(data, "xy");
  const auto sizes = values(data, "sizes");
  const auto bridges = values(data, "bridgeXy");
  ASSERT_EQ(drawn.size(), log.rounds().size());
  std::size_t k = 0;  // the k-th round drawn as hoods
  for (std::size_t i = 0; i < drawn.size(); ++i) {
    const auto& r = log.rounds()[i];
    ASSERT_EQ(drawn[i], r.round == 0 ? "points" : "hoods") << "300 points fit the default budget";
    if (r.round == 0) continue;
    const auto corners = floats_of(xy[k]);
    ASSERT_EQ(corners.size(), 2 * r.corners.size());
    for (std::size_t c = 0; c < r.corners.size(); ++c) {
      EXPECT_EQ(corners[2 * c], static_cast<float>(draw::view_u(view, r.corners[c])));
      EXPECT_EQ(corners[2 * c + 1], static_cast<float>(draw::view_v(view, r.corners[c])));
    }
    const auto hood_sizes = words_of(sizes[k]);
    EXPECT_TRUE(std::equal(hood_sizes.begin(), hood_sizes.end(), r.hood_sizes.begin(), r.hood_sizes.end()));
    const auto ends = floats_of(bridges[k]);
    ASSERT_EQ(ends.size(), 4 * r.bridges.size());
    for (std::size_t b = 0; b < r.bridges.size(); ++b) {
      EXPECT_EQ(ends[4 * b], static_cast<float>(draw::view_u(view, r.bridges[b].a)));
      EXPECT_EQ(ends[4 * b + 3], static_cast<float>(draw::view_v(view, r.bridges[b].b)));
    }
    ++k;
  }
  EXPECT_EQ(floats_of(values(data, "hull")[0]).size(), 2 * hull.size());
}

TEST(RoundsPage, MergedBlocksPairFromTheLeftUpperAndFromTheRightLower) {
  // Five points: the upper chain's round 1 pairs {0,1} {2,3} and carries {4}; the lower chain
  // counts its blocks from the right, so it carries the leftmost point and pairs {1,2} {3,4}.
  const std::vector<P> five = {{0, 0}, {1, 2}, {2, 1}, {3, 3}, {4, 0}};
  TraceLog<double> log;
  const auto hull = convex_hull<double>(five, {Backend::pram, nullptr, &log});
  const std::string data = data_of(render_rounds_page<double>(five, hull, log.rounds(), {}));
  const draw::Box view = draw::padded(draw::data_box<double>(five, hull, true));
  const auto u = [&](double x) { return static_cast<float>(draw::view_u(view, P{x, 0})); };
  const auto merged = values(data, "merged");
  ASSERT_EQ(merged.size(), 6u);  // rounds 1..3 of each chain
  const auto upper = floats_of(merged[0]);
  ASSERT_EQ(upper.size(), 6u);
  EXPECT_EQ(upper[0], u(0));
  EXPECT_EQ(upper[1], u(1));
  EXPECT_EQ(upper[2], u(2));
  EXPECT_EQ(upper[3], u(3));
  EXPECT_TRUE(std::isnan(upper[4]) && std::isnan(upper[5]));
  const auto lower = floats_of(merged[3]);
  ASSERT_EQ(lower.size(), 6u);
  EXPECT_TRUE(std::isnan(lower[0]) && std::isnan(lower[1]));
  EXPECT_EQ(lower[2], u(1));
  EXPECT_EQ(lower[3], u(2));
  EXPECT_EQ(lower[4], u(3));
  EXPECT_EQ(lower[5], u(4));
}

TEST(RoundsPage, ManyPointsBecomeARasterAndThePageStopsGrowingWithN) {
  RoundsPageOptions options;
  options.max_dots = 2000;
  options.max_corners = 4000;
  std::mt19937_64 rng(testing::fresh_seed());
  for (const std::size_t n : {20000u, 80000u}) {
    const auto pts = testing::uniform_disk<double>(n, rng);
    TraceLog<double> log;
    const auto hull = convex_hull<double>(pts, {Backend::pram, nullptr, &log});
    const std::string page = render_rounds_page<double>(pts, hull, log.rounds(), options);
    const std::string data = data_of(page);
    EXPECT_EQ(count(data, "\"dots\":"), 0);
    EXPECT_NE(data.find("\"png\":\"iVBORw0KGgo"), std::string::npos);  // the PNG signature
    // The hoods drawn are the smallest rounds, within the budget (the hull's vertices come first).
    const auto drawn = values(data, "drawn");
    const auto corners = values(data, "corners");
    std::int64_t spent = static_cast<std::int64_t>(hull.size()), smallest_left_out = -1;
    for (std::size_t i = 0; i < drawn.size(); ++i) {
      if (drawn[i] == "hoods") spent += std::stoll(corners[i]);
      if (drawn[i] == "counts" && (smallest_left_out < 0 || std::stoll(corners[i]) < smallest_left_out))
        smallest_left_out = std::stoll(corners[i]);
    }
    EXPECT_LE(spent, options.max_corners);
    EXPECT_GT(smallest_left_out + spent, options.max_corners) << "a round that fits was left out";
    // Bytes: the template, a stored PNG of at most raster_bins^2 bins (4/3 in base64), 8 bytes per
    // corner and at most 8 + 4 + 10 per hood of at least one corner (block ends, size, half a
    // bridge), also 4/3 in base64, and a line of counts per round: nothing that grows with n.
    const double bins = options.raster_bins;
    const double bound = 60000 + 1.34 * (bins * (bins + 1) + 1000) + 1.34 * 30 * static_cast<double>(options.max_corners) +
                         200.0 * static_cast<double>(drawn.size());
    EXPECT_LT(static_cast<double>(page.size()), bound) << n << " points";
  }
}

TEST(RoundsPage, DegenerateAndExtremeInputsGiveFiniteData) {
  const std::vector<std::vector<P>> inputs = {
      {}, {{3, 3}}, {{3, 3}, {3, 3}, {3, 3}}, {{0, 0}, {0, 5}, {0, 2}},
      {{-1e308, -1e308}, {1e308, 1e308}, {1e308, -1e308}},
  };
  for (const auto& pts : inputs) {
    TraceLog<double> log;
    const auto hull = convex_hull<double>(pts, {Backend::pram, nullptr, &log});
    const std::string data = data_of(render_rounds_page<double>(pts, hull, log.rounds(), {}));
    EXPECT_EQ(data.find("nan"), std::string::npos) << data.substr(0, 400);
    EXPECT_EQ(data.find("inf"), std::string::npos) << data.substr(0, 400);
    EXPECT_EQ(values(data, "chain").size(), log.rounds().size());
  }
}

TEST(RoundsPage, RefusesRoundsWhoseHoodsDoNotAddUp) {
  TraceRound<double> round;
  round.round = 1;
  round.corners = {{0, 0}, {1, 1}};
  round.hood_sizes = {1, 2};
  const std::vector<TraceRound<double>> rounds = {round};
  EXPECT_THROW(render_rounds_page<double>(kEight, kEight, rounds, {}), std::invalid_argument);
  round.hood_sizes = {2, 0};
  const std::vector<TraceRound<double>> empty_hood = {round};
  EXPECT_THROW(render_rounds_page<double>(kEight, kEight, empty_hood, {}), std::invalid_argument);
}

TEST(TraceFormats, ByNameAndExtension) {
  EXPECT_EQ(guess_trace_format("rounds.html"), TraceFormat::html);
  EXPECT_EQ(guess_trace_format("ROUNDS.HTM"), TraceFormat::html);
  EXPECT_EQ(guess_trace_format("rounds.json"), TraceFormat::json);
  EXPECT_EQ(guess_trace_format("rounds.txt"), TraceFormat::text);
  EXPECT_EQ(guess_trace_format("html"), TraceFormat::text);
  EXPECT_EQ(parse_trace_format("html"), TraceFormat::html);
  EXPECT_EQ(parse_trace_format("json"), TraceFormat::json);
  EXPECT_EQ(parse_trace_format("text"), TraceFormat::text);
  EXPECT_THROW(parse_trace_format("svg"), std::invalid_argument);
}

}  // namespace
}  // namespace wagener
