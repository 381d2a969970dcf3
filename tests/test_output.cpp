// Hull files out: the exact bytes of each format, that every coordinate reads back to the same bits,
// that the geometries follow GeoJSON and WKT, and that the bytes do not depend on the thread count.
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "generators.hpp"
#include "io/ordered_blocks.hpp"
#include "point_checks.hpp"
#include "wagener/error.hpp"
#include "wagener/io.hpp"
#include "wagener/output.hpp"

namespace wagener {
namespace {

namespace fs = std::filesystem;

constexpr OutputFormat kAllFormats[] = {OutputFormat::text,    OutputFormat::csv, OutputFormat::json,
                                        OutputFormat::geojson, OutputFormat::wkt, OutputFormat::f32,
                                        OutputFormat::f64};
constexpr OutputFormat kTextualFormats[] = {OutputFormat::text, OutputFormat::csv, OutputFormat::json,
                                            OutputFormat::geojson, OutputFormat::wkt};

using point_checks::same_bits;
using point_checks::to_vector;

// Bit-exact equality of two values.
template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Finite values of T from random bits (every exponent, sign and subnormal equally likely), with the
// extremes mixed in.
template <class T>
std::vector<Point2<T>> random_points(std::mt19937_64& rng, std::size_t n) {
  using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  const auto random_value = [&]() {
    for (;;) {
      const T value = std::bit_cast<T>(static_cast<Bits>(rng()));
      if (std::isfinite(value)) return value;
    }
  };
  std::vector<Point2<T>> points = {
      {T{0}, -T{0}},
      {std::numeric_limits<T>::denorm_min(), -std::numeric_limits<T>::denorm_min()},
      {std::numeric_limits<T>::min(), std::numeric_limits<T>::max()},
      {std::numeric_limits<T>::lowest(), static_cast<T>(-0.1)},
      {static_cast<T>(1) / 3, std::numeric_limits<T>::epsilon()}};
  if constexpr (std::is_same_v<T, double>) points.push_back({1e-300, -1e300});
  while (points.size() < n) points.push_back({random_value(), random_value()});
  return points;
}

// A number read back from text with the reader's own precision.
template <class T>
T parse_number(std::string_view token) {
  T value{};
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  EXPECT_TRUE(error == std::errc() && end == token.data() + token.size()) << "not a number: " << token;
  return value;
}

// A strict JSON reader, enough to take the JSON and GeoJSON output apart: anything it cannot read is
// a test failure. Numbers keep their text, so that they can be read back as float or as double.
struct Json {
  enum class Kind { null, number, string, array, object } kind = Kind::null;
  std::string text;  // a number's token, a string's contents
  std::vector<Json> items;
  // An object's members, member_names[i] naming member_values[i]: two vectors, as a std::pair of the
  // incomplete Json is refused by clang with libstdc++ (the sanitizer builds use clang).
  std::vector<std::string> member_names;
  std::vector<Json> member_values;

  const Json& operator[](std::string_view key) const {
    for (std::size_t i = 0; i < member_names.size(); ++i) {
      if (member_names[i] == key) return member_values[i];
    }
    ADD_FAILURE() << "no member \"" << key << "\"";
    static const Json missing;
    return missing;
  }
};

class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : text_(text) {}

  // The one value the text holds; false if anything is wrong or anything follows it.
  bool read_document(Json& value) { return read_value(value) && (skip_blanks(), position_ == text_.size()); }

 private:
  void skip_blanks() {
    while (position_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[position_])))
      ++position_;
  }
  bool take(char c) {
    skip_blanks();
    if (position_ < text_.size() && text_[position_] == c) {
      ++position_;
      return true;
    }
    return false;
  }
  bool peek(char c) {
    skip_blanks();
    return position_ < text_.size() && text_[position_] == c;
  }
  bool read_string(std::string& out) {
    if (!take('"')) return false;
    const std::size_t end = text_.find('"', position_);
    if (end == std::string_view::npos) return false;
    out = std::string(text_.substr(position_, end - position_));
    position_ = end + 1;
    return out.find('\\') == std::string::npos;  // the writer never escapes
  }
  bool read_value(Json& value) {
    skip_blanks();
    if (text_.substr(position_, 4) == "null") {
      position_ += 4;
      value.kind = Json::Kind::null;
      return true;
    }
    if (peek('"')) {
      value.kind = Json::Kind::string;
      return read_string(value.text);
    }
    if (take('[')) {
      value.kind = Json::Kind::array;
      if (take(']')) return true;
      do {
        if (!read_value(value.items.emplace_back())) return false;
      } while (take(','));
      return take(']');
    }
    if (take('{')) {
      value.kind = Json::Kind::object;
      if (take('}')) return true;
      do {
        std::string& name = value.member_names.emplace_back();
        Json& member = value.member_values.emplace_back();
        if (!read_string(name) || !take(':') || !read_value(member)) return false;
      } while (take(','));
      return take('}');
    }
    // A JSON number: -?digits(.digits)?([eE][+-]?digits)?; from_chars accepts a superset, so check.
    const std::size_t start = position_;
    if (position_ < text_.size() && text_[position_] == '-') ++position_;
    const auto digits = [&] {
      const std::size_t first = position_;
      while (position_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[position_])))
        ++position_;
      return position_ > first;
    };
    if (!digits()) return false;
    if (position_ < text_.size() && text_[position_] == '.' && (++position_, !digits())) return false;
    if (position_ < text_.size() && (text_[position_] == 'e' || text_[position_] == 'E')) {
      ++position_;
      if (position_ < text_.size() && (text_[position_] == '+' || text_[position_] == '-')) ++position_;
      if (!digits()) return false;
    }
    value.kind = Json::Kind::number;
    value.text = std::string(text_.substr(start, position_ - start));
    return true;
  }

  std::string_view text_;
  std::size_t position_ = 0;
};

Json read_json(std::string_view text) {
  Json value;
  EXPECT_TRUE(JsonReader(text).read_document(value)) << "not JSON: " << text.substr(0, 300);
  return value;
}

// A JSON position [x, y] as a point.
template <class T>
Point2<T> position_of(const Json& position) {
  EXPECT_EQ(position.kind, Json::Kind::array);
  EXPECT_EQ(position.items.size(), 2u);
  if (position.items.size() != 2) return {};
  return {parse_number<T>(position.items[0].text), parse_number<T>(position.items[1].text)};
}

template <class T>
std::vector<Point2<T>> positions_of(const Json& positions) {
  EXPECT_EQ(positions.kind, Json::Kind::array);
  std::vector<Point2<T>> points;
  for (const Json& position : positions.items) points.push_back(position_of<T>(position));
  return points;
}

// A WKT geometry taken apart: its type and its points in order ("POLYGON ((0 0, 1 0, 0 0))").
template <class T>
struct Wkt {
  std::string type;
  std::vector<Point2<T>> points;
  std::string open, close;  // the parentheses around the points
};

template <class T>
Wkt<T> read_wkt(std::string_view text) {
  Wkt<T> wkt;
  EXPECT_TRUE(text.ends_with('\n')) << text;
  text.remove_suffix(text.ends_with('\n') ? 1 : 0);
  const std::size_t space = text.find(' ');
  wkt.type = std::string(text.substr(0, space));
  if (space == std::string_view::npos) return wkt;
  text.remove_prefix(space + 1);
  const std::size_t first = text.find_first_not_of('(');
  const std::size_t last = text.find_last_not_of(')');
  if (first == std::string_view::npos || last == std::string_view::npos) return wkt;
  wkt.open = std::string(text.substr(0, first));
  wkt.close = std::string(text.substr(last + 1));
  std::string_view body = text.substr(first, last + 1 - first);
  while (!body.empty()) {
    const std::size_t comma = body.find(", ");
    const std::string_view pair = body.substr(0, comma);
    const std::size_t blank = pair.find(' ');
    EXPECT_NE(blank, std::string_view::npos) << "not an x y pair: " << pair;
    if (blank == std::string_view::npos) break;
    wkt.points.push_back({parse_number<T>(pair.substr(0, blank)), parse_number<T>(pair.substr(blank + 1))});
    body.remove_prefix(comma == std::string_view::npos ? body.size() : comma + 2);
  }
  return wkt;
}

template <class T>
std::vector<Point2<T>> closed_ring(std::vector<Point2<T>> vertices) {
  vertices.push_back(vertices.front());
  return vertices;
}

// Twice the signed area of a closed ring: positive when counter-clockwise.
template <class T>
double twice_signed_area(const std::vector<Point2<T>>& ring) {
  double sum = 0;
  for (std::size_t i = 0; i + 1 < ring.size(); ++i) {
    sum += double{ring[i].x} * double{ring[i + 1].y} - double{ring[i + 1].x} * double{ring[i].y};
  }
  return sum;
}

std::string slurp(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A fresh seed each run, printed with any failure (WAGENER_TEST_SEED=N replays it).
class SeededTest : public ::testing::Test {
 protected:
  const std::uint64_t seed_ = testing::fresh_seed();
  ::testing::ScopedTrace seed_trace_{__FILE__, __LINE__, "random seed " + std::to_string(seed_)};
  std::mt19937_64 rng_{seed_};
};

// --- names -------------------------------------------------------------------------------------

TEST(OutputFormatNames, RoundTripAndUnknownNamesListTheChoices) {
  for (const OutputFormat format : kAllFormats) {
    EXPECT_EQ(parse_output_format(output_format_name(format)), format);
  }
  try {
    parse_output_format("xml");
    FAIL() << "\"xml\" was accepted";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    for (const OutputFormat format : kAllFormats) {
      EXPECT_NE(message.find(output_format_name(format)), std::string::npos) << message;
    }
    EXPECT_NE(message.find("xml"), std::string::npos) << message;
  }
  EXPECT_THROW(parse_output_format("auto"), std::invalid_argument);
  EXPECT_THROW(parse_output_format("CSV"), std::invalid_argument);
}

TEST(OutputFormatNames, GuessedFromTheExtensionInAnyCase) {
  EXPECT_EQ(guess_output_format("hull.csv"), OutputFormat::csv);
  EXPECT_EQ(guess_output_format("dir.d/HULL.CSV"), OutputFormat::csv);
  EXPECT_EQ(guess_output_format("hull.json"), OutputFormat::json);
  EXPECT_EQ(guess_output_format("hull.GeoJSON"), OutputFormat::geojson);
  EXPECT_EQ(guess_output_format("hull.wkt"), OutputFormat::wkt);
  EXPECT_EQ(guess_output_format("hull.f32"), OutputFormat::f32);
  EXPECT_EQ(guess_output_format("hull.F64"), OutputFormat::f64);
  EXPECT_EQ(guess_output_format("-"), OutputFormat::text);
  EXPECT_EQ(guess_output_format("hull.txt"), OutputFormat::text);
  EXPECT_EQ(guess_output_format("hull"), OutputFormat::text);
  EXPECT_EQ(guess_output_format("hull.json.txt"), OutputFormat::text);
  EXPECT_EQ(guess_output_format("json"), OutputFormat::text);
}

// --- exact bytes -------------------------------------------------------------------------------

struct Expected {
  OutputFormat format;
  bool closed;
  std::vector<Point2<double>> vertices;
  std::string bytes;
};

TEST(FormatHull, EveryFormatOfSmallAndDegenerateHulls) {
  const std::vector<Point2<double>> none;
  const std::vector<Point2<double>> one = {{1.5, -2}};
  const std::vector<Point2<double>> two = {{0, 0}, {1e-300, 0.1}};
  const std::vector<Point2<double>> three = {{0, 0}, {1, 0}, {-0.0, 2.5}};
  const std::vector<Expected> cases = {
      {OutputFormat::text, true, none, ""},
      {OutputFormat::text, true, one, "1.5 -2\n"},
      {OutputFormat::text, true, two, "0 0\n1e-300 0.1\n"},
      {OutputFormat::text, true, three, "0 0\n1 0\n-0 2.5\n"},
      {OutputFormat::csv, true, none, "x,y\n"},
      {OutputFormat::csv, true, one, "x,y\n1.5,-2\n"},
      {OutputFormat::csv, true, three, "x,y\n0,0\n1,0\n-0,2.5\n"},
      {OutputFormat::json, true, none, "[]\n"},
      {OutputFormat::json, true, one, "[[1.5,-2]]\n"},
      {OutputFormat::json, true, three, "[[0,0],[1,0],[-0,2.5]]\n"},
      {OutputFormat::geojson, true, none,
       R"({"type":"Feature","geometry":null,"properties":{"vertices":0}})"
       "\n"},
      {OutputFormat::geojson, true, one,
       R"({"type":"Feature","geometry":{"type":"Point","coordinates":[1.5,-2]},"properties":{"vertices":1}})"
       "\n"},
      {OutputFormat::geojson, true, two,
       R"({"type":"Feature","geometry":{"type":"LineString","coordinates":[[0,0],[1e-300,0.1]]},)"
       R"("properties":{"vertices":2}})"
       "\n"},
      {OutputFormat::geojson, true, three,
       R"({"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[-0,2.5],[0,0]]]},)"
       R"("properties":{"vertices":3}})"
       "\n"},
      {OutputFormat::geojson, false, three,
       R"({"type":"Feature","geometry":{"type":"LineString","coordinates":[[0,0],[1,0],[-0,2.5]]},)"
       R"("properties":{"vertices":3}})"
       "\n"},
      {OutputFormat::wkt, true, none, "GEOMETRYCOLLECTION EMPTY\n"},
      {OutputFormat::wkt, true, one, "POINT (1.5 -2)\n"},
      {OutputFormat::wkt, false, one, "POINT (1.5 -2)\n"},
      {OutputFormat::wkt, true, two, "LINESTRING (0 0, 1e-300 0.1)\n"},
      {OutputFormat::wkt, true, three, "POLYGON ((0 0, 1 0, -0 2.5, 0 0))\n"},
      {OutputFormat::wkt, false, three, "LINESTRING (0 0, 1 0, -0 2.5)\n"},
      {OutputFormat::f64, true, none, ""},
      {OutputFormat::f32, true, none, ""},
  };
  for (const Expected& expected : cases) {
    SCOPED_TRACE(std::string(output_format_name(expected.format)) +
                 (expected.closed ? " closed " : " open ") + std::to_string(expected.vertices.size()) +
                 " vertices");
    for (const unsigned threads : {1u, 3u}) {
      EXPECT_EQ(format_hull<double>(expected.vertices, {expected.format, expected.closed, threads}),
                expected.bytes);
    }
  }
}

TEST(FormatHull, FloatVerticesPrintAsShortestFloats) {
  const std::vector<Point2<float>> vertices = {{0.1f, -1e-45f}, {3.4028235e38f, 1.0f / 3}};
  EXPECT_EQ(format_hull<float>(vertices, {OutputFormat::text}), "0.1 -1e-45\n3.4028235e+38 0.33333334\n");
  EXPECT_EQ(format_hull<float>(vertices, {OutputFormat::json}),
            "[[0.1,-1e-45],[3.4028235e+38,0.33333334]]\n");
}

TEST_F(SeededTest, TextIsWhatFormatPointsWrites) {
  const auto vertices = random_points<double>(rng_, 1000);
  EXPECT_EQ(format_hull<double>(vertices, {OutputFormat::text}), format_points<double>(vertices));
}

TEST(FormatHull, BinaryIsTheVerticesLittleEndian) {
  const std::vector<Point2<double>> vertices = {{1.0, -2.0}, {0.1, 1.0 + 0x1p-30}};
  const std::string f64 = format_hull<double>(vertices, {OutputFormat::f64});
  ASSERT_EQ(f64.size(), 32u);
  EXPECT_EQ(std::memcmp(f64.data(), vertices.data(), f64.size()), 0);
  // f32 rounds each coordinate to the nearest float.
  const std::string f32 = format_hull<double>(vertices, {OutputFormat::f32});
  const float expected[] = {1.0f, -2.0f, 0.1f, 1.0f};
  ASSERT_EQ(f32.size(), sizeof expected);
  EXPECT_EQ(std::memcmp(f32.data(), expected, f32.size()), 0);
  // The first byte of 1.0 as a little-endian double is the low byte of its mantissa: zero.
  EXPECT_EQ(f64[0], '\0');
  EXPECT_EQ(static_cast<unsigned char>(f64[7]), 0x3fu);
}

TEST(FormatHull, F32RefusesDoublesBeyondFloatRange) {
  const std::vector<Point2<double>> vertices = {{0, 0}, {1, 1e300}};
  try {
    format_hull<double>(vertices, {OutputFormat::f32});
    FAIL() << "1e300 was written as a float";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("vertex 1: 1e+300"), std::string::npos) << e.what();
  }
  // Where rounding ends: half a unit in the last place above FLT_MAX rounds (to even) to infinity,
  // the double just below it to FLT_MAX.
  const double overflow = double{std::numeric_limits<float>::max()} + 0x1p103;
  const std::vector<Point2<double>> largest = {{0, -std::nextafter(overflow, 0.0)}};
  const std::string f32 = format_hull<double>(largest, {OutputFormat::f32});
  const float expected[] = {0.0f, -std::numeric_limits<float>::max()};
  ASSERT_EQ(f32.size(), sizeof expected);
  EXPECT_EQ(std::memcmp(f32.data(), expected, f32.size()), 0);
  const std::vector<Point2<double>> beyond = {{0, -overflow}};
  EXPECT_THROW(format_hull<double>(beyond, {OutputFormat::f32}), std::invalid_argument);
}

// --- reading back ------------------------------------------------------------------------------

template <class T>
class RoundTrip : public SeededTest {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RoundTrip, Precisions);

TYPED_TEST(RoundTrip, TextCsvAndBinaryReadBackToTheSameBits) {
  using T = TypeParam;
  const auto vertices = random_points<T>(this->rng_, 5000);
  const auto read = [&](OutputFormat out, Format in) {
    return to_vector(parse_points<T>(format_hull<T>(vertices, {out}), "hull", {in}));
  };
  EXPECT_TRUE(same_bits(read(OutputFormat::text, Format::text), vertices));
  EXPECT_TRUE(same_bits(read(OutputFormat::csv, Format::csv), vertices));
  EXPECT_TRUE(same_bits(read(OutputFormat::f64, Format::f64), vertices));
  if constexpr (std::is_same_v<T, float>) {
    EXPECT_TRUE(same_bits(read(OutputFormat::f32, Format::f32), vertices));
  } else {
    // f32 of doubles holds each coordinate rounded to float (the ones in float's range).
    std::vector<Point2<double>> in_range;
    for (const Point2<double>& v : vertices) {
      if (std::abs(v.x) <= std::numeric_limits<float>::max() &&
          std::abs(v.y) <= std::numeric_limits<float>::max()) {
        in_range.push_back(v);
      }
    }
    ASSERT_GT(in_range.size(), 100u);
    const auto floats = to_vector(
        parse_points<float>(format_hull<double>(in_range, {OutputFormat::f32}), "hull", {Format::f32}));
    ASSERT_EQ(floats.size(), in_range.size());
    for (std::size_t i = 0; i < floats.size(); ++i) {
      ASSERT_TRUE(same_bits(floats[i].x, static_cast<float>(in_range[i].x)) &&
                  same_bits(floats[i].y, static_cast<float>(in_range[i].y)))
          << "vertex " << i;
    }
  }
}

TYPED_TEST(RoundTrip, JsonHoldsEveryVertexToTheBit) {
  using T = TypeParam;
  const auto vertices = random_points<T>(this->rng_, 3000);
  EXPECT_TRUE(
      same_bits(positions_of<T>(read_json(format_hull<T>(vertices, {OutputFormat::json}))), vertices));
}

TYPED_TEST(RoundTrip, GeoJsonPolygonIsOneClosedCounterClockwiseRing) {
  using T = TypeParam;
  // A hull as convex_hull gives it: counter-clockwise; with random coordinates mixed into the ring to
  // check that each number reads back.
  std::vector<Point2<T>> vertices = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
  const Json square = read_json(format_hull<T>(vertices, {OutputFormat::geojson}));
  EXPECT_EQ(square["type"].text, "Feature");
  EXPECT_EQ(square["geometry"]["type"].text, "Polygon");
  ASSERT_EQ(square["geometry"]["coordinates"].items.size(), 1u);
  const auto ring = positions_of<T>(square["geometry"]["coordinates"].items[0]);
  EXPECT_TRUE(same_bits(ring, closed_ring(vertices)));
  EXPECT_GT(twice_signed_area(ring), 0.0);
  EXPECT_EQ(square["properties"]["vertices"].text, "4");

  vertices = random_points<T>(this->rng_, 2000);
  const Json random = read_json(format_hull<T>(vertices, {OutputFormat::geojson}));
  ASSERT_EQ(random["geometry"]["coordinates"].items.size(), 1u);
  EXPECT_TRUE(same_bits(positions_of<T>(random["geometry"]["coordinates"].items[0]), closed_ring(vertices)));
  EXPECT_EQ(random["properties"]["vertices"].text, "2000");
}

TYPED_TEST(RoundTrip, GeoJsonUpperHullIsALineStringLeftToRight) {
  using T = TypeParam;
  const auto vertices = random_points<T>(this->rng_, 1000);
  const Json feature = read_json(format_hull<T>(vertices, {OutputFormat::geojson, false}));
  EXPECT_EQ(feature["geometry"]["type"].text, "LineString");
  EXPECT_TRUE(same_bits(positions_of<T>(feature["geometry"]["coordinates"]), vertices));
  EXPECT_EQ(feature["properties"]["vertices"].text, "1000");
}

TYPED_TEST(RoundTrip, GeoJsonOfDegenerateHulls) {
  using T = TypeParam;
  const std::vector<Point2<T>> vertices = {{static_cast<T>(0.1), -T{0}},
                                           {T{2}, std::numeric_limits<T>::denorm_min()}};
  for (const bool closed : {true, false}) {
    const Json none =
        read_json(format_hull<T>(std::span(vertices).first(0), {OutputFormat::geojson, closed}));
    EXPECT_EQ(none["type"].text, "Feature");
    EXPECT_EQ(none["geometry"].kind, Json::Kind::null);
    EXPECT_EQ(none["properties"]["vertices"].text, "0");

    const Json one = read_json(format_hull<T>(std::span(vertices).first(1), {OutputFormat::geojson, closed}));
    EXPECT_EQ(one["geometry"]["type"].text, "Point");
    EXPECT_TRUE(same_bits(std::vector{position_of<T>(one["geometry"]["coordinates"])}, {vertices[0]}));

    const Json two = read_json(format_hull<T>(vertices, {OutputFormat::geojson, closed}));
    EXPECT_EQ(two["geometry"]["type"].text, "LineString");
    EXPECT_TRUE(same_bits(positions_of<T>(two["geometry"]["coordinates"]), vertices));
  }
}

TYPED_TEST(RoundTrip, WktPolygonLineStringPointAndEmpty) {
  using T = TypeParam;
  const auto vertices = random_points<T>(this->rng_, 2000);
  const Wkt<T> polygon = read_wkt<T>(format_hull<T>(vertices, {OutputFormat::wkt}));
  EXPECT_EQ(polygon.type, "POLYGON");
  EXPECT_EQ(polygon.open, "((");
  EXPECT_EQ(polygon.close, "))");
  EXPECT_TRUE(same_bits(polygon.points, closed_ring(vertices)));

  const Wkt<T> upper = read_wkt<T>(format_hull<T>(vertices, {OutputFormat::wkt, false}));
  EXPECT_EQ(upper.type, "LINESTRING");
  EXPECT_EQ(upper.open, "(");
  EXPECT_TRUE(same_bits(upper.points, vertices));

  for (const bool closed : {true, false}) {
    const Wkt<T> two = read_wkt<T>(format_hull<T>(std::span(vertices).first(2), {OutputFormat::wkt, closed}));
    EXPECT_EQ(two.type, "LINESTRING");
    EXPECT_TRUE(same_bits(two.points, std::vector(vertices.begin(), vertices.begin() + 2)));
    const Wkt<T> one = read_wkt<T>(format_hull<T>(std::span(vertices).first(1), {OutputFormat::wkt, closed}));
    EXPECT_EQ(one.type, "POINT");
    EXPECT_TRUE(same_bits(one.points, std::vector{vertices[0]}));
    EXPECT_EQ(format_hull<T>(std::span(vertices).first(0), {OutputFormat::wkt, closed}),
              "GEOMETRYCOLLECTION EMPTY\n");
  }
}

TYPED_TEST(RoundTrip, EmptyAndSingleVertexHullsReadBackInEveryReadableFormat) {
  using T = TypeParam;
  const std::vector<Point2<T>> one = {{-T{0}, std::numeric_limits<T>::denorm_min()}};
  const std::pair<OutputFormat, Format> readable[] = {{OutputFormat::text, Format::text},
                                                      {OutputFormat::csv, Format::csv},
                                                      {OutputFormat::f64, Format::f64},
                                                      {OutputFormat::f32, Format::f32}};
  for (const auto& [out, in] : readable) {
    SCOPED_TRACE(output_format_name(out));
    for (const std::size_t n : {0u, 1u}) {
      const std::vector<Point2<T>> vertices(one.begin(), one.begin() + static_cast<std::ptrdiff_t>(n));
      const auto read = to_vector(parse_points<T>(format_hull<T>(vertices, {out}), "hull", {in}));
      if (std::is_same_v<T, double> && out == OutputFormat::f32 && n == 1) {
        // The smallest subnormal double rounds to a float zero.
        ASSERT_EQ(read.size(), 1u);
        EXPECT_EQ(read[0].y, T{0});
      } else {
        EXPECT_TRUE(same_bits(read, vertices));
      }
    }
  }
}

// --- threads -----------------------------------------------------------------------------------

TEST_F(SeededTest, BytesDoNotDependOnTheThreadCount) {
  // Enough vertices for three slices of the parallel formatter.
  const auto doubles = random_points<double>(rng_, 100003);
  const auto floats = random_points<float>(rng_, 100003);
  for (const OutputFormat format : kTextualFormats) {
    for (const bool closed : {true, false}) {
      SCOPED_TRACE(std::string(output_format_name(format)) + (closed ? " closed" : " open"));
      const std::string one = format_hull<double>(doubles, {format, closed, 1});
      EXPECT_EQ(format_hull<double>(doubles, {format, closed, 7}), one);
      EXPECT_EQ(format_hull<double>(doubles, {format, closed, 2}), one);
      EXPECT_EQ(format_hull<float>(floats, {format, closed, 7}),
                format_hull<float>(floats, {format, closed, 1}));
    }
  }
  // The joined slices read back to the vertices: nothing lost or doubled where slices meet.
  EXPECT_TRUE(
      same_bits(to_vector(parse_points<double>(format_hull<double>(doubles, {OutputFormat::csv, true, 7}),
                                               "hull", {Format::csv})),
                doubles));
  EXPECT_TRUE(same_bits(
      positions_of<double>(read_json(format_hull<double>(doubles, {OutputFormat::json, true, 7}))), doubles));
  std::vector<std::int64_t> indices(100003);
  for (std::size_t i = 0; i < indices.size(); ++i) indices[i] = static_cast<std::int64_t>(i * 7919 % 100003);
  for (const OutputFormat format : {OutputFormat::text, OutputFormat::csv, OutputFormat::json}) {
    EXPECT_EQ(format_indices(indices, {format, true, 7}), format_indices(indices, {format, true, 1}));
  }
}

// --- blocks in order ----------------------------------------------------------------------------

TEST(ProduceBlocks, BlocksFinishedOutOfOrderAreConsumedInOrder) {
  // Block 0 is made only once block 1 has been: block 1 is ready first, and must still wait its turn.
  std::promise<void> block_one_made;
  std::shared_future<void> block_one_ready = block_one_made.get_future().share();
  std::vector<std::uint64_t> consumed;
  detail::produce_blocks(
      2, 2, /*ordered=*/true,
      [&] {
        return [&, text = std::string()](std::uint64_t block) mutable {
          if (block == 0) block_one_ready.wait();
          text = "block " + std::to_string(block);
          if (block == 1) block_one_made.set_value();
          return std::string_view(text);
        };
      },
      [&](std::uint64_t block, std::string_view bytes) {
        EXPECT_EQ(bytes, "block " + std::to_string(block));
        consumed.push_back(block);
      });
  EXPECT_EQ(consumed, (std::vector<std::uint64_t>{0, 1}));
}

TEST(ProduceBlocks, AFailedBlockStopsTheOnesAfterItAndIsRethrown) {
  for (const std::size_t threads : {1u, 2u, 5u}) {
    std::vector<std::uint64_t> consumed;
    EXPECT_THROW(detail::produce_blocks(
                     40, threads, /*ordered=*/true,
                     [] {
                       return [](std::uint64_t block) {
                         if (block == 3) throw std::runtime_error("block 3");
                         return std::string_view("x");
                       };
                     },
                     [&](std::uint64_t block, std::string_view) { consumed.push_back(block); }),
                 std::runtime_error);
    // Consumed in order, and never past the failed block.
    ASSERT_LE(consumed.size(), 3u);
    for (std::size_t i = 0; i < consumed.size(); ++i) EXPECT_EQ(consumed[i], i);
  }
}

// --- grouped hulls -----------------------------------------------------------------------------

// What `wagener hull --group-by` writes in csv, the grouped reader reads back: the same id column
// name, ids and vertices, whatever the names hold. The id column's name is the file's first field, so
// one that starts with a UTF-16 byte-order mark's bytes must not be taken for the mark (it was, and
// the file was refused as UTF-16).
TEST(FormatGroupedHulls, CsvReadsBackWhateverTheIdsAndTheirColumnName) {
  const std::vector<std::string> ids = {"a,b",        "say \"hi\"", "#x", "", "\xEF\xBB\xBFid",
                                        "\xFF\xFEid", "plain"};
  std::vector<Point2<double>> vertices;
  std::vector<std::int64_t> offsets = {0};
  for (std::size_t g = 0; g < ids.size(); ++g) {
    const double at = static_cast<double>(g);
    vertices.push_back({at, -0.0});
    vertices.push_back({at + 1e-300, 1e300});
    if (g % 2 == 0) vertices.push_back({-at, 0.1});
    offsets.push_back(static_cast<std::int64_t>(vertices.size()));
  }
  GroupedOutput<double> output;
  output.ids = ids;
  output.offsets = offsets;
  output.vertices = vertices;
  ReadOptions by_index;
  by_index.columns = {"1", "2"};  // the id column may be named x
  for (const std::string header : {"track", "\xFF\xFEtrack", "\xFE\xFFtrack", "tr,ack", "x", ""}) {
    SCOPED_TRACE(header);
    output.id_header = header;
    const std::string written = format_grouped_hulls<double>(output, {OutputFormat::csv});
    const GroupedPoints<double> read = parse_grouped_points<double>(written, "out.csv", "0", by_index);
    EXPECT_EQ(read.group_column, header.empty() ? "id" : header);
    EXPECT_EQ(read.group_names, ids);
    ASSERT_EQ(read.points.size(), vertices.size());
    EXPECT_EQ(std::memcmp(read.points.data(), vertices.data(), vertices.size() * sizeof(vertices[0])), 0);
    for (std::size_t g = 0; g < ids.size(); ++g) {
      for (auto v = offsets[g]; v < offsets[g + 1]; ++v)
        EXPECT_EQ(read.group_ids[static_cast<std::size_t>(v)], static_cast<std::int64_t>(g));
    }
  }
  // A UTF-8 mark in a column name is refused by the readers; written unquoted at the file's start it
  // would be skipped instead, and the column read back under another name.
  output.id_header = "\xEF\xBB\xBFtrack";
  const std::string written = format_grouped_hulls<double>(output, {OutputFormat::csv});
  EXPECT_THROW(parse_grouped_points<double>(written, "out.csv", "0", by_index), input_error);
}

// Groups are formatted in blocks on all cores: the bytes of one group after the other, each as the
// single hull's csv, text or json lines with its id in front, written to a file or to a string alike.
TEST(FormatGroupedHulls, BlocksOnAllCoresGiveTheGroupsInOrder) {
  std::mt19937_64 rng(20261125);
  std::uniform_real_distribution<double> coordinate(-1e3, 1e3);
  std::vector<std::string> ids;
  std::vector<Point2<double>> vertices;
  std::vector<std::int64_t> offsets = {0};
  // 2 * 10^4 groups of 0 to 7 vertices, and one of 3 * 10^4 among them: blocks of many groups, and a
  // block of one.
  for (int g = 0; g < 20000; ++g) {
    char id[32];
    std::snprintf(id, sizeof id, g % 97 == 0 ? "q\"%d" : "t%d", g);
    ids.emplace_back(id);
    const int size = g == 777 ? 30000 : static_cast<int>(rng() % 8);
    for (int v = 0; v < size; ++v) vertices.push_back({coordinate(rng), coordinate(rng)});
    offsets.push_back(static_cast<std::int64_t>(vertices.size()));
  }
  GroupedOutput<double> output;
  output.ids = ids;
  output.id_header = "track";
  output.offsets = offsets;
  output.vertices = vertices;
  const auto group = [&](std::size_t g) {
    return std::span<const Point2<double>>(vertices).subspan(
        static_cast<std::size_t>(offsets[g]), static_cast<std::size_t>(offsets[g + 1] - offsets[g]));
  };
  // Each line of the single hull's text with `id` in front; `skip` header lines dropped.
  const auto prefixed = [](const std::string& hull, const std::string& id, std::size_t skip) {
    std::string out;
    for (std::size_t at = 0; at < hull.size();) {
      const std::size_t end = hull.find('\n', at) + 1;
      if (skip > 0) {
        --skip;
      } else {
        out += id + hull.substr(at, end - at);
      }
      at = end;
    }
    return out;
  };
  std::string csv = "track,x,y\n";
  std::string text;
  std::string json = "{";
  for (std::size_t g = 0; g < ids.size(); ++g) {
    const bool quoted = ids[g].find('"') != std::string::npos;
    const std::string csv_id = quoted ? "\"q\"\"" + ids[g].substr(2) + "\"" : ids[g];
    csv += prefixed(format_hull<double>(group(g), {OutputFormat::csv}), csv_id + ",", 1);
    text += prefixed(format_hull<double>(group(g), {OutputFormat::text}), ids[g] + " ", 0);
    std::string hull = format_hull<double>(group(g), {OutputFormat::json});
    hull.pop_back();  // its newline
    json += (g > 0 ? "," : "") + ("\"" + (quoted ? "q\\\"" + ids[g].substr(2) : ids[g]) + "\":") + hull;
  }
  json += "}\n";
  EXPECT_EQ(format_grouped_hulls<double>(output, {OutputFormat::csv}), csv);
  EXPECT_EQ(format_grouped_hulls<double>(output, {OutputFormat::json}), json);
  const std::string file = (std::filesystem::path(::testing::TempDir()) / "grouped_blocks.csv").string();
  write_grouped_hulls<double>(file, output, {OutputFormat::csv});
  std::ifstream in(file, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()), csv);
  std::filesystem::remove(file);
  EXPECT_EQ(format_grouped_hulls<double>(output, {OutputFormat::text}), text);
  // An id text cannot hold is refused before the file is made.
  std::vector<std::string> blank_id = ids;
  blank_id[15000] = "t 15000";
  output.ids = blank_id;
  EXPECT_THROW(write_grouped_hulls<double>(file, output, {OutputFormat::text}), std::invalid_argument);
  EXPECT_FALSE(std::filesystem::exists(file));
}

// --- indices -----------------------------------------------------------------------------------

TEST(FormatIndices, TextCsvAndJson) {
  const std::vector<std::int64_t> indices = {0, 5, 42, 9223372036854775807};
  EXPECT_EQ(format_indices(indices, {OutputFormat::text}), "0\n5\n42\n9223372036854775807\n");
  EXPECT_EQ(format_indices(indices, {OutputFormat::csv}), "index\n0\n5\n42\n9223372036854775807\n");
  EXPECT_EQ(format_indices(indices, {OutputFormat::json}), "[0,5,42,9223372036854775807]\n");
  const std::vector<std::int64_t> one = {7};
  EXPECT_EQ(format_indices(one, {OutputFormat::json}), "[7]\n");
  EXPECT_EQ(format_indices({}, {OutputFormat::text}), "");
  EXPECT_EQ(format_indices({}, {OutputFormat::csv}), "index\n");
  EXPECT_EQ(format_indices({}, {OutputFormat::json}), "[]\n");
}

TEST(FormatIndices, FormatsThatHoldCoordinatesAreRefused) {
  const std::vector<std::int64_t> indices = {0, 1, 2};
  for (const OutputFormat format :
       {OutputFormat::geojson, OutputFormat::wkt, OutputFormat::f32, OutputFormat::f64}) {
    SCOPED_TRACE(output_format_name(format));
    try {
      format_indices(indices, {format});
      ADD_FAILURE() << "indices were written as " << output_format_name(format);
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(output_format_name(format)), std::string::npos) << e.what();
    }
    // Refused before anything is written, even with nothing to write.
    EXPECT_THROW(format_indices({}, {format}), std::invalid_argument);
  }
}

// --- files -------------------------------------------------------------------------------------

class WriteHull : public SeededTest {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "wagener_output_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << std::strerror(errno);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  fs::path dir_;
};

TEST_F(WriteHull, FilesHoldWhatFormatHullGives) {
  const auto vertices = random_points<double>(rng_, 70000);
  // Only doubles within float range can be written as f32: floats, widened.
  std::vector<Point2<double>> widened;
  for (const Point2<float>& v : random_points<float>(rng_, 70000)) widened.push_back({v.x, v.y});
  for (const OutputFormat format : kAllFormats) {
    SCOPED_TRACE(output_format_name(format));
    const fs::path file = dir_ / ("hull." + std::string(output_format_name(format)));
    const std::vector<Point2<double>>& written = format == OutputFormat::f32 ? widened : vertices;
    write_hull<double>(file.string(), written, {format, true, 2});
    EXPECT_EQ(slurp(file), format_hull<double>(written, {format, true, 1}));
  }
  const std::vector<std::int64_t> indices = {3, 1, 4, 1, 5};
  write_indices((dir_ / "indices.csv").string(), indices, {OutputFormat::csv});
  EXPECT_EQ(slurp(dir_ / "indices.csv"), "index\n3\n1\n4\n1\n5\n");
  // Enough items for several threads and rounds of blocks: the file is written in place, mapped.
  std::vector<std::int64_t> many(200003);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = static_cast<std::int64_t>(i * 7919 % 200003);
  write_indices((dir_ / "indices.json").string(), many, {OutputFormat::json, true, 3});
  EXPECT_EQ(slurp(dir_ / "indices.json"), format_indices(many, {OutputFormat::json, true, 1}));
  // Nothing left beside the files.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()),
            std::ssize(kAllFormats) + 2);
}

TEST_F(WriteHull, FailuresLeaveTheOldFileAndNoTemporaries) {
  const fs::path file = dir_ / "hull.f32";
  std::ofstream(file) << "old";
  const std::vector<Point2<double>> too_large = {{1e300, 0}};
  EXPECT_THROW(write_hull<double>(file.string(), too_large, {OutputFormat::f32}), std::invalid_argument);
  EXPECT_THROW(write_indices(file.string(), std::vector<std::int64_t>{1}, {OutputFormat::f32}),
               std::invalid_argument);
  EXPECT_EQ(slurp(file), "old");
  const std::vector<Point2<double>> vertices = {{0, 0}};
  EXPECT_THROW(write_hull<double>((dir_ / "missing" / "hull.txt").string(), vertices), input_error);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

}  // namespace
}  // namespace wagener
