// Integer points in and out: decimal integers in text and csv at int32 and int64 (anything else, and
// anything beyond the type's range, refused naming the line), i32 and i64 binary files, exact
// conversions between every binary type and every precision (or a refusal naming the byte), hull
// files of integers in every format, and the streamed hull of an i64 file beyond 2^53.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "generators.hpp"
#include "integer_reference.hpp"
#include "point_checks.hpp"
#include "wagener/error.hpp"
#include "wagener/io.hpp"
#include "wagener/output.hpp"
#include "wagener/stream.hpp"

namespace wagener {
namespace {

namespace fs = std::filesystem;
using point_checks::to_vector;
using P64 = Point2<std::int64_t>;
using P32 = Point2<std::int32_t>;

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

template <class V>
std::string binary_bytes(const std::vector<Point2<V>>& points) {
  std::string bytes(points.size() * sizeof(Point2<V>), '\0');
  if (!points.empty()) std::memcpy(bytes.data(), points.data(), bytes.size());
  return bytes;
}

class IntegerIo : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "wagener_int_io_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    seed_ = testing::fresh_seed();
    rng_.seed(seed_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  std::string write(const std::string& name, std::string_view bytes) const {
    const std::string file = (dir_ / name).string();
    std::ofstream out(file, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return file;
  }

  /// Reading `bytes` as T fails with one line that starts with the file and `where` (":LINE" or
  /// ": byte N") and holds `text`; the in-memory parser says the same.
  template <class T>
  void expect_error(const std::string& name, std::string_view bytes, const std::string& where,
                    const std::string& text, ReadOptions options = {}) {
    const std::string file = write(name, bytes);
    SCOPED_TRACE("input \"" + std::string(bytes.substr(0, 100)) + "\"");
    std::string message;
    try {
      read_points<T>(file, options);
      ADD_FAILURE() << "no error";
    } catch (const input_error& e) {
      message = e.what();
      EXPECT_EQ(message.rfind(file + where, 0), 0u) << message;
      EXPECT_NE(message.find(text), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
    try {
      parse_points<T>(bytes, file, options);
      ADD_FAILURE() << "parse_points: no error";
    } catch (const input_error& e) {
      EXPECT_EQ(e.what(), message);
    }
  }

  fs::path dir_;
  std::uint64_t seed_ = 0;
  std::mt19937_64 rng_;
};

TEST(IntegerFormats, NamesAndExtensions) {
  for (const Format format : {Format::i32, Format::i64}) {
    EXPECT_EQ(parse_format(format_name(format)), format);
    EXPECT_TRUE(is_binary_format(format));
  }
  EXPECT_EQ(guess_format("points.i32"), Format::i32);
  EXPECT_EQ(guess_format("dir/POINTS.I64"), Format::i64);
  EXPECT_EQ(binary_record_bytes(Format::i32), 8u);
  EXPECT_EQ(binary_record_bytes(Format::i64), 16u);
  EXPECT_FALSE(is_binary_format(Format::csv));
  EXPECT_EQ(parse_output_format("i64"), OutputFormat::i64);
  EXPECT_EQ(guess_output_format("hull.i32"), OutputFormat::i32);
}

TEST_F(IntegerIo, DecimalIntegersInEveryTextLayoutOverTheWholeRange) {
  const std::string extremes =
      "-9223372036854775808 9223372036854775807\n+5 -0\n9223372036854775807 -9223372036854775808\n";
  const std::vector<P64> expected = {{kMin, kMax}, {5, 0}, {kMax, kMin}};
  EXPECT_EQ(to_vector(read_points<std::int64_t>(write("lines.txt", extremes))), expected);
  EXPECT_EQ(to_vector(read_points<std::int64_t>(write("seed.txt", "3\n" + extremes))), expected);
  EXPECT_EQ(to_vector(read_points<std::int64_t>(write("header.csv",
                                                      "x,y\n-9223372036854775808,9223372036854775807\n"
                                                      "5, 0\n9223372036854775807,-9223372036854775808\n"))),
            expected);
  EXPECT_EQ(
      to_vector(read_points<std::int32_t>(write("bare.csv", "-2147483648,2147483647\n7,-7\n"))),
      (std::vector<P32>{{std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()},
                        {7, -7}}));
  ReadOptions columns;
  columns.columns = {"lat", "lon"};
  EXPECT_EQ(
      to_vector(read_points<std::int64_t>(write("wide.csv", "id,lon,lat\n\"a,b\",1,2\nc,3,4\n"), columns)),
      (std::vector<P64>{{2, 1}, {4, 3}}));
}

TEST_F(IntegerIo, TokensThatAreNotIntegersOrOutOfRangeNameTheirLine) {
  expect_error<std::int64_t>("frac.txt", "1 2\n3 1.5\n", ":2:", "not an integer: \"1.5\" (int64 points)");
  expect_error<std::int64_t>("exp.txt", "1e3 2\n", ":1:", "not an integer: \"1e3\"");
  expect_error<std::int64_t>("point.csv", "1,2\n3,4.0\n", ":2:", "not an integer: \"4.0\"");
  expect_error<std::int32_t>("big.txt", "0 0\n2147483648 1\n", ":2:", "out of range for int32");
  expect_error<std::int64_t>("huge.txt", "0 0\n\n-9223372036854775809 1\n", ":3:", "out of range for int64");
  expect_error<std::int64_t>("word.txt", "1 x\n", ":1:", "not a number: \"x\"");
  expect_error<std::int64_t>("nan.csv", "x,y\n1,nan\n", ":2:", "not an integer");
  expect_error<std::int64_t>("seed.txt", "2\n1 2 3 4.5\n", ":2:", "not an integer");
  // A first csv line of decimal fractions is data, refused as such, never taken for a header.
  expect_error<std::int64_t>("fractions.csv", "1.5,2.5\n3,4\n", ":1:", "not an integer: \"1.5\"");
}

TEST_F(IntegerIo, LargeTextFilesReadOnEveryCoreReadBackEveryValue) {
  std::uniform_int_distribution<std::int64_t> any(kMin, kMax);
  std::vector<P64> points(300000);
  for (auto& p : points) p = {any(rng_), any(rng_)};
  const std::string text = format_points<std::int64_t>(points);
  EXPECT_EQ(to_vector(read_points<std::int64_t>(write("many.txt", text))), points);
  std::string csv = "x,y\n";
  for (const auto& p : points) csv += std::to_string(p.x) + "," + std::to_string(p.y) + "\n";
  EXPECT_EQ(to_vector(read_points<std::int64_t>(write("many.csv", csv))), points);
  // A bad token deep in a chunked file names its line.
  std::string broken = text;
  const std::size_t at = broken.find('\n', broken.size() / 2) + 1;
  broken.insert(at, "7 0.5\n");
  const auto line = 1 + std::count(broken.begin(), broken.begin() + static_cast<std::ptrdiff_t>(at), '\n');
  expect_error<std::int64_t>("broken.txt", broken, ":" + std::to_string(line) + ":",
                             "not an integer: \"0.5\"");
}

TEST_F(IntegerIo, BinaryFilesConvertExactlyOrNameTheByte) {
  const std::vector<P64> wide = {{kMin, kMax}, {0, -1}, {std::int64_t{1} << 53, std::int64_t{1} << 60}};
  // Native: a view of the file, the whole range.
  const std::string i64 = write("w.i64", binary_bytes(wide));
  const auto native = read_points<std::int64_t>(i64);
  EXPECT_TRUE(native.mapped());
  EXPECT_EQ(to_vector(native), wide);
  // Into int32: in range only.
  const std::vector<P64> small = {
      {-5, 7}, {std::numeric_limits<std::int32_t>::max(), std::numeric_limits<std::int32_t>::min()}};
  EXPECT_EQ(
      to_vector(read_points<std::int32_t>(write("s.i64", binary_bytes(small)))),
      (std::vector<P32>{
          {-5, 7}, {std::numeric_limits<std::int32_t>::max(), std::numeric_limits<std::int32_t>::min()}}));
  expect_error<std::int32_t>("w.i64", binary_bytes(wide), ": byte 0:", "out of range for int32");
  // Into double: only integers double holds (2^53 and 2^60 do, 2^53 + 1 does not).
  const std::vector<P64> held = {{std::int64_t{1} << 53, -(std::int64_t{1} << 60)}, {3, kMin}};
  EXPECT_EQ(to_vector(read_points<double>(write("held.i64", binary_bytes(held)))),
            (std::vector<Point2<double>>{{0x1p53, -0x1p60}, {3, -0x1p63}}));
  expect_error<double>("odd.i64", binary_bytes(std::vector<P64>{{0, 0}, {1, (std::int64_t{1} << 53) + 1}}),
                       ": byte 24:", "has no exact double");
  expect_error<double>("max.i64", binary_bytes(std::vector<P64>{{kMax, 0}}),
                       ": byte 0:", "has no exact double");
  expect_error<float>("f.i32", binary_bytes(std::vector<P32>{{(1 << 24) + 1, 0}}),
                      ": byte 0:", "has no exact float");
  // From f64 and f32: integers only, in range.
  EXPECT_EQ(to_vector(read_points<std::int64_t>(
                write("ok.f64", binary_bytes(std::vector<Point2<double>>{{-3, 0x1p62}})))),
            (std::vector<P64>{{-3, std::int64_t{1} << 62}}));
  expect_error<std::int64_t>("half.f64", binary_bytes(std::vector<Point2<double>>{{1, 2}, {3.5, 4}}),
                             ": byte 16:", "not an integer");
  expect_error<std::int64_t>("far.f64", binary_bytes(std::vector<Point2<double>>{{0x1p63, 0}}),
                             ": byte 0:", "out of range for int64");
  expect_error<std::int32_t>(
      "nan.f32", binary_bytes(std::vector<Point2<float>>{{0, std::numeric_limits<float>::quiet_NaN()}}),
      ": byte 4:", "non-finite");
  // Sortedness is checked on the native view too.
  ReadOptions sorted;
  sorted.require_sorted = true;
  expect_error<std::int64_t>("unsorted.i64", binary_bytes(std::vector<P64>{{1, 1}, {0, 0}}),
                             ": byte 16:", "points not sorted", sorted);
  expect_error<std::int64_t>("cut.i64", std::string(20, '\0'), ": byte 16:", "truncated binary");
}

TEST_F(IntegerIo, HullFilesOfIntegersInEveryFormat) {
  const std::vector<P64> hull = {{kMin, kMin}, {kMax, 0}, {0, kMax}};
  EXPECT_EQ(format_hull<std::int64_t>(hull),
            "-9223372036854775808 -9223372036854775808\n9223372036854775807 0\n0 9223372036854775807\n");
  EXPECT_EQ(
      format_hull<std::int64_t>(hull, {OutputFormat::json}),
      "[[-9223372036854775808,-9223372036854775808],[9223372036854775807,0],[0,9223372036854775807]]\n");
  EXPECT_EQ(format_hull<std::int32_t>(std::vector<P32>{{1, 2}, {3, 4}, {-5, 6}}, {OutputFormat::wkt}),
            "POLYGON ((1 2, 3 4, -5 6, 1 2))\n");
  EXPECT_EQ(format_hull<std::int64_t>(hull, {OutputFormat::i64}), binary_bytes(hull));
  // Every textual format reads back as the same integers.
  const std::string text = write("hull.csv", format_hull<std::int64_t>(hull, {OutputFormat::csv}));
  EXPECT_EQ(to_vector(read_points<std::int64_t>(text)), hull);
  // Binary conversions are exact or refused, naming the vertex.
  EXPECT_THROW(format_hull<std::int64_t>(std::vector<P64>{{0, 0}, {(std::int64_t{1} << 53) + 1, 1}},
                                         {OutputFormat::f64}),
               std::invalid_argument);
  EXPECT_EQ(format_hull<std::int64_t>(std::vector<P64>{{std::int64_t{1} << 60, 1}}, {OutputFormat::f64}),
            binary_bytes(std::vector<Point2<double>>{{0x1p60, 1}}));
  EXPECT_THROW(format_hull<std::int64_t>(std::vector<P64>{{std::int64_t{1} << 40, 0}}, {OutputFormat::i32}),
               std::invalid_argument);
  EXPECT_THROW(format_hull<double>(std::vector<Point2<double>>{{1.5, 0}}, {OutputFormat::i64}),
               std::invalid_argument);
  try {
    format_hull<std::int64_t>(std::vector<P64>{{0, 0}, {1, kMax}}, {OutputFormat::f64});
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("vertex 1: 9223372036854775807 has no exact value in f64"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(format_hull<double>(std::vector<Point2<double>>{{-4, 0x1p62}}, {OutputFormat::i64}),
            binary_bytes(std::vector<P64>{{-4, std::int64_t{1} << 62}}));
}

TEST_F(IntegerIo, GroupedCsvOfIntegers) {
  const auto grouped = read_grouped_points<std::int64_t>(
      write("groups.csv", "id,x,y\na,9223372036854775807,1\nb,-9223372036854775808,2\na,3,4\n"), "id");
  EXPECT_EQ(grouped.points, (std::vector<P64>{{kMax, 1}, {kMin, 2}, {3, 4}}));
  EXPECT_EQ(grouped.group_ids, (std::vector<std::int64_t>{0, 1, 0}));
  EXPECT_THROW(read_grouped_points<std::int64_t>(write("bad.csv", "id,x,y\na,1,2.5\n"), "id"), input_error);
}

// Chunk by chunk, each filtered against the hull so far, whose vertices beyond 2^53 the filter must
// leave out: the exact hull of the whole file.
TEST_F(IntegerIo, StreamedHullOfAnI64FileBeyond2To53) {
  std::vector<P64> points = testing::integer_disk<std::int64_t>(400000, 0x1p40, 0, 0, rng_);
  std::uniform_int_distribution<std::size_t> at(0, points.size() - 1);
  for (int k = 0; k < 200; ++k)
    points[at(rng_)] = {(std::int64_t{1} << 53) + k, (std::int64_t{1} << 55) - 3 * k};
  points[at(rng_)] = {kMin, kMin};
  points[at(rng_)] = {kMax, 7};
  const std::string file = write("stream.i64", binary_bytes(points));
  HullOptions options;
  options.backend = Backend::cpu;
  options.memory_limit = std::size_t{1} << 20;
  const auto expected = testing::reference_hull(points);
  EXPECT_EQ(hull_of_file<std::int64_t>(file, {}, options).vertices, expected) << "seed " << seed_;
  const std::string text = write("stream.txt", format_points<std::int64_t>(points));
  EXPECT_EQ(hull_of_file<std::int64_t>(text, {}, options).vertices, expected) << "seed " << seed_;
}

}  // namespace
}  // namespace wagener
