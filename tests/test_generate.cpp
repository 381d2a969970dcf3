// Generated point sets: the same bytes whatever the thread count or however the set is cut into pieces,
// the right distributions, and files that read back to exactly the generated points.
//
// The generator is deterministic, so the statistical checks below use fixed seeds: their bounds (five
// standard deviations) hold or fail the same way on every run.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "point_checks.hpp"
#include "wagener/error.hpp"
#include "wagener/generate.hpp"
#include "wagener/io.hpp"
#include "wagener/output.hpp"

namespace wagener {
namespace {

namespace fs = std::filesystem;

constexpr Distribution kAllDistributions[] = {Distribution::disk, Distribution::square,
                                              Distribution::gaussian, Distribution::circle,
                                              Distribution::parabola};

template <class T>
std::vector<Point2<T>> generated(const GenerateOptions& options) {
  std::vector<Point2<T>> points(options.count);
  generate_points<T>(points, 0, options);
  return points;
}

using point_checks::same_bits;
using point_checks::to_vector;

std::string slurp(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Moments {
  double mean_x = 0, mean_y = 0, variance_x = 0, variance_y = 0, correlation = 0;
};

Moments moments_of(const std::vector<Point2<double>>& points) {
  Moments m;
  const double n = static_cast<double>(points.size());
  for (const auto& p : points) {
    m.mean_x += p.x / n;
    m.mean_y += p.y / n;
  }
  double covariance = 0;
  for (const auto& p : points) {
    m.variance_x += (p.x - m.mean_x) * (p.x - m.mean_x) / n;
    m.variance_y += (p.y - m.mean_y) * (p.y - m.mean_y) / n;
    covariance += (p.x - m.mean_x) * (p.y - m.mean_y) / n;
  }
  m.correlation = covariance / std::sqrt(m.variance_x * m.variance_y);
  return m;
}

// Five standard deviations of a proportion p estimated from n samples.
double five_sigma(double p, double n) {
  return 5 * std::sqrt(p * (1 - p) / n);
}

constexpr std::uint64_t kSamples = 100000;
constexpr std::uint64_t kFixedSeeds[] = {1, 2, 20240611};

// --- names -------------------------------------------------------------------------------------

TEST(DistributionNames, RoundTripAndUnknownNamesListTheChoices) {
  for (const Distribution distribution : kAllDistributions) {
    EXPECT_EQ(parse_distribution(distribution_name(distribution)), distribution);
  }
  try {
    parse_distribution("uniform");
    FAIL() << "\"uniform\" was accepted";
  } catch (const std::invalid_argument& e) {
    for (const Distribution distribution : kAllDistributions) {
      EXPECT_NE(std::string(e.what()).find(distribution_name(distribution)), std::string::npos) << e.what();
    }
  }
}

// --- determinism -------------------------------------------------------------------------------

TEST(GeneratePoints, TheSameWhateverTheThreadCount) {
  for (const Distribution distribution : kAllDistributions) {
    SCOPED_TRACE(distribution_name(distribution));
    // Enough points for five threads' slices.
    GenerateOptions options{.distribution = distribution, .count = 100003, .seed = 7, .threads = 1};
    const auto one_double = generated<double>(options);
    const auto one_float = generated<float>(options);
    options.threads = 5;
    EXPECT_TRUE(same_bits(generated<double>(options), one_double));
    EXPECT_TRUE(same_bits(generated<float>(options), one_float));
  }
}

TEST(GeneratePoints, AnyPieceOnItsOwnIsThatPartOfTheWhole) {
  for (const Distribution distribution : kAllDistributions) {
    SCOPED_TRACE(distribution_name(distribution));
    const GenerateOptions options{.distribution = distribution, .count = 50000, .seed = 3};
    const auto whole = generated<double>(options);
    std::vector<Point2<double>> pieces(options.count);
    const std::span<Point2<double>> all(pieces);
    generate_points<double>(all.subspan(31111), 31111, options);
    generate_points<double>(all.subspan(7, 31104), 7, options);
    generate_points<double>(all.first(7), 0, options);
    EXPECT_TRUE(same_bits(pieces, whole));
  }
}

TEST(GeneratePoints, FloatPointsAreTheDoublePointsRounded) {
  for (const Distribution distribution :
       {Distribution::disk, Distribution::square, Distribution::gaussian, Distribution::circle}) {
    SCOPED_TRACE(distribution_name(distribution));
    const GenerateOptions options{.distribution = distribution, .count = 10000, .seed = 5};
    const auto doubles = generated<double>(options);
    const auto floats = generated<float>(options);
    for (std::size_t i = 0; i < doubles.size(); ++i) {
      ASSERT_EQ(floats[i].x, static_cast<float>(doubles[i].x)) << i;
      ASSERT_EQ(floats[i].y, static_cast<float>(doubles[i].y)) << i;
    }
  }
}

TEST(GeneratePoints, DifferentSeedsGiveDifferentPoints) {
  for (const Distribution distribution :
       {Distribution::disk, Distribution::square, Distribution::gaussian, Distribution::circle}) {
    SCOPED_TRACE(distribution_name(distribution));
    const auto a = generated<double>({.distribution = distribution, .count = 1000, .seed = 1});
    const auto b = generated<double>({.distribution = distribution, .count = 1000, .seed = 2});
    EXPECT_EQ(std::count(a.begin(), a.end(), Point2<double>{}), 0);
    std::size_t shared = 0;
    for (const auto& p : a) shared += static_cast<std::size_t>(std::count(b.begin(), b.end(), p));
    EXPECT_EQ(shared, 0u);
  }
}

TEST(GeneratePoints, RangesBeyondTheSetAreRefused) {
  std::vector<Point2<double>> points(10);
  EXPECT_THROW(generate_points<double>(points, 0, {.count = 9}), std::invalid_argument);
  EXPECT_THROW(generate_points<double>(points, 5, {.count = 14}), std::invalid_argument);
  EXPECT_THROW(generate_points<double>(points, ~std::uint64_t{0} - 3, {.count = 9}), std::invalid_argument);
  EXPECT_THROW(generate_points<double>(points, 0, {.count = kMaxGeneratedPoints + 1}), std::invalid_argument);
  EXPECT_NO_THROW(generate_points<double>(points, 5, {.count = 15}));
  EXPECT_NO_THROW(generate_points<double>(points, kMaxGeneratedPoints - 10, {.count = kMaxGeneratedPoints}));
}

// --- distributions -----------------------------------------------------------------------------

TEST(Distributions, DiskIsUniformInTheUnitDisk) {
  for (const std::uint64_t seed : kFixedSeeds) {
    const auto points =
        generated<double>({.distribution = Distribution::disk, .count = kSamples, .seed = seed});
    std::size_t inner = 0;  // within radius 1/2: a quarter of the area
    for (const auto& p : points) {
      ASSERT_LE(p.x * p.x + p.y * p.y, 1.0);
      inner += p.x * p.x + p.y * p.y <= 0.25;
    }
    EXPECT_NEAR(static_cast<double>(inner) / kSamples, 0.25, five_sigma(0.25, kSamples));
    const Moments m = moments_of(points);
    // x of a uniform point in the unit disk: mean 0, variance 1/4.
    EXPECT_NEAR(m.mean_x, 0.0, 5 * std::sqrt(0.25 / kSamples));
    EXPECT_NEAR(m.mean_y, 0.0, 5 * std::sqrt(0.25 / kSamples));
    EXPECT_NEAR(m.variance_x, 0.25, 0.01);
  }
}

TEST(Distributions, SquareIsUniformInTheSquare) {
  for (const std::uint64_t seed : kFixedSeeds) {
    const auto points =
        generated<double>({.distribution = Distribution::square, .count = kSamples, .seed = seed});
    std::size_t in_disk = 0;  // pi/4 of the square
    for (const auto& p : points) {
      ASSERT_TRUE(p.x >= -1 && p.x < 1 && p.y >= -1 && p.y < 1) << p.x << " " << p.y;
      in_disk += p.x * p.x + p.y * p.y <= 1;
    }
    EXPECT_NEAR(static_cast<double>(in_disk) / kSamples, M_PI / 4, five_sigma(M_PI / 4, kSamples));
    const Moments m = moments_of(points);
    // Uniform on [-1, 1): variance 1/3.
    EXPECT_NEAR(m.mean_x, 0.0, 5 * std::sqrt(1.0 / 3 / kSamples));
    EXPECT_NEAR(m.mean_y, 0.0, 5 * std::sqrt(1.0 / 3 / kSamples));
    EXPECT_NEAR(m.variance_x, 1.0 / 3, 0.01);
    EXPECT_NEAR(m.correlation, 0.0, 5 / std::sqrt(kSamples));
  }
}

TEST(Distributions, GaussianHasStandardNormalCoordinates) {
  for (const std::uint64_t seed : kFixedSeeds) {
    const auto points =
        generated<double>({.distribution = Distribution::gaussian, .count = kSamples, .seed = seed});
    const Moments m = moments_of(points);
    const double n = kSamples;
    EXPECT_NEAR(m.mean_x, 0.0, 5 / std::sqrt(n));
    EXPECT_NEAR(m.mean_y, 0.0, 5 / std::sqrt(n));
    // The sample variance of n normal values has standard deviation sqrt(2 / n).
    EXPECT_NEAR(m.variance_x, 1.0, 5 * std::sqrt(2 / n));
    EXPECT_NEAR(m.variance_y, 1.0, 5 * std::sqrt(2 / n));
    EXPECT_NEAR(m.correlation, 0.0, 5 / std::sqrt(n));
    // The tails: P(|x| > 2) = 0.0455 for a standard normal (not for a uniform of the same variance).
    std::size_t beyond_two = 0;
    for (const auto& p : points) beyond_two += std::abs(p.x) > 2;
    EXPECT_NEAR(static_cast<double>(beyond_two) / n, 0.0455, five_sigma(0.0455, n));
  }
}

TEST(Distributions, CircleIsOnTheUnitCircleAllAround) {
  for (const std::uint64_t seed : kFixedSeeds) {
    const auto points =
        generated<double>({.distribution = Distribution::circle, .count = kSamples, .seed = seed});
    std::size_t upper = 0, right = 0;
    for (const auto& p : points) {
      ASSERT_NEAR(p.x * p.x + p.y * p.y, 1.0, 1e-15);
      upper += p.y > 0;
      right += p.x > 0;
    }
    EXPECT_NEAR(static_cast<double>(upper) / kSamples, 0.5, five_sigma(0.5, kSamples));
    EXPECT_NEAR(static_cast<double>(right) / kSamples, 0.5, five_sigma(0.5, kSamples));
  }
}

TEST(Distributions, ParabolaIsSortedAndExactlyOnTheParabola) {
  const GenerateOptions options{.distribution = Distribution::parabola, .count = 1000};
  const auto points = generated<double>(options);
  EXPECT_EQ(points.front().x, -1.0);
  EXPECT_EQ(points.front().y, -1.0);
  EXPECT_EQ(points[500].x, 0.0);
  EXPECT_DOUBLE_EQ(points.back().x, 1.0 - 2.0 / 1000);
  for (std::size_t i = 0; i < points.size(); ++i) {
    ASSERT_EQ(points[i].y, -points[i].x * points[i].x) << i;
    if (i > 0) {
      ASSERT_LT(points[i - 1].x, points[i].x) << i;
    }
  }
  // The seed does not move it.
  EXPECT_TRUE(same_bits(
      generated<double>({.distribution = Distribution::parabola, .count = 1000, .seed = 99}), points));
}

TEST(Distributions, FloatParabolaStaysSortedWhereNeighboursRoundToTheSameX) {
  // Near x = 1 floats are 2^-24 apart; 2^26 points are 2^-25 apart, so neighbours share a float x. Only
  // the last stretch is generated: every point is a function of its index.
  const GenerateOptions options{.distribution = Distribution::parabola, .count = std::uint64_t{1} << 26};
  std::vector<Point2<float>> tail(100000);
  generate_points<float>(tail, options.count - tail.size(), options);
  std::size_t ties = 0;
  for (std::size_t i = 1; i < tail.size(); ++i) {
    ASSERT_FALSE(lex_less(tail[i], tail[i - 1])) << "unsorted at " << i;
    ties += tail[i].x == tail[i - 1].x;
  }
  EXPECT_GT(ties, tail.size() / 4);
  EXPECT_TRUE(std::is_sorted(tail.begin(), tail.end(), lex_less<float>));
}

// --- files -------------------------------------------------------------------------------------

class WriteGenerated : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "wagener_generate_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << std::strerror(errno);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

// Several blocks of write_generated, the last one short.
constexpr std::uint64_t kSeveralBlocks = 3 * (std::uint64_t{1} << 17) + 5;

TEST_F(WriteGenerated, BinaryFilesReadBackToTheGeneratedPoints) {
  const GenerateOptions options{
      .distribution = Distribution::gaussian, .count = kSeveralBlocks, .seed = 11, .threads = 3};
  write_generated(path("g.f64"), options, Format::f64);
  EXPECT_TRUE(same_bits(to_vector(read_points<double>(path("g.f64"))), generated<double>(options)));
  write_generated(path("g.f32"), options);  // automatic: by the extension
  EXPECT_TRUE(same_bits(to_vector(read_points<float>(path("g.f32"))), generated<float>(options)));
  EXPECT_EQ(fs::file_size(path("g.f32")), kSeveralBlocks * sizeof(Point2<float>));
}

TEST_F(WriteGenerated, TextIsWhatFormatPointsWritesAndReadsBack) {
  const GenerateOptions options{
      .distribution = Distribution::disk, .count = kSeveralBlocks, .seed = 4, .threads = 3};
  const auto points = generated<double>(options);
  write_generated(path("d.txt"), options, Format::text);
  EXPECT_EQ(slurp(path("d.txt")), format_points<double>(points));
  write_generated(path("d.csv"), options);
  const std::string csv = slurp(path("d.csv"));
  EXPECT_EQ(csv.substr(0, 4), "x,y\n");
  EXPECT_TRUE(same_bits(to_vector(read_points<double>(path("d.csv"))), points));
}

TEST_F(WriteGenerated, FilesAreTheSameWhateverTheThreadCount) {
  for (const Format format : {Format::text, Format::f64, Format::f32}) {
    SCOPED_TRACE(format_name(format));
    GenerateOptions options{
        .distribution = Distribution::circle, .count = kSeveralBlocks, .seed = 8, .threads = 1};
    write_generated(path("one"), options, format);
    options.threads = 4;
    write_generated(path("four"), options, format);
    EXPECT_EQ(slurp(path("one")), slurp(path("four")));
  }
}

TEST_F(WriteGenerated, BinaryThroughAPipeArrivesInOrder) {
  // A pipe cannot be written at offsets: the blocks must go out one after another, in order.
  const std::string fifo = path("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  auto received = std::async(std::launch::async, [&] { return slurp(fifo); });
  const GenerateOptions options{
      .distribution = Distribution::square, .count = kSeveralBlocks, .seed = 9, .threads = 4};
  write_generated(fifo, options, Format::f64);
  const std::string bytes = received.get();
  const auto points = generated<double>(options);
  ASSERT_EQ(bytes.size(), points.size() * sizeof(Point2<double>));
  EXPECT_EQ(std::memcmp(bytes.data(), points.data(), bytes.size()), 0);
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST_F(WriteGenerated, EmptySetsAndFailures) {
  write_generated(path("none.txt"), {.count = 0});
  EXPECT_EQ(slurp(path("none.txt")), "");
  EXPECT_TRUE(fs::exists(path("none.txt")));
  write_generated(path("none.csv"), {.count = 0});
  EXPECT_EQ(slurp(path("none.csv")), "x,y\n");
  EXPECT_THROW(write_generated(path("missing/points.f64"), {.count = 10}), input_error);
  EXPECT_THROW(write_generated(path("huge.f64"), {.count = kMaxGeneratedPoints + 1}), std::invalid_argument);
  EXPECT_FALSE(fs::exists(path("huge.f64")));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 2);
}

}  // namespace
}  // namespace wagener
