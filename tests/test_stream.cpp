// Streamed hulls (wagener/stream.hpp) against compute_hull() of all the points: every family, chunk
// sizes from one point up, both parts and precisions; memory sizes; the errors the stream reports.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "generators.hpp"
#include "wagener/error.hpp"
#include "wagener/hull.hpp"
#include "wagener/io.hpp"
#include "wagener/stream.hpp"

namespace wagener {
namespace {

/// A source handing out `points` in chunks of random sizes up to the streamed hull's `max_points`
/// (some empty), as a reader of a file in pieces would.
template <class T>
ChunkSource<T> random_chunks(const std::vector<Point2<T>>& points, std::mt19937_64& rng) {
  return [&points, &rng, at = std::size_t{0}](std::vector<Point2<T>>& chunk, std::size_t max_points) mutable {
    if (at == points.size()) return false;
    const std::size_t most = std::min(max_points, std::size_t{1} << (rng() % 16));
    const std::size_t take =
        std::min(points.size() - at, std::uniform_int_distribution<std::size_t>(0, most)(rng));
    chunk.assign(points.begin() + static_cast<std::ptrdiff_t>(at),
                 points.begin() + static_cast<std::ptrdiff_t>(at + take));
    at += take;
    return true;
  };
}

class StreamedHull : public ::testing::Test {
 protected:
  void SetUp() override {
    seed_ = testing::fresh_seed();
    rng_.seed(seed_);
  }
  std::uint64_t seed_ = 0;
  std::mt19937_64 rng_;
};

template <class T>
void every_family(std::mt19937_64& rng) {
  for (const auto& family : testing::all_families<T>()) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3},
                                std::size_t{100}, std::size_t{5000}, std::size_t{200003}}) {
      const auto points = family.make(n, rng);
      const std::size_t hull_bytes =
          convex_hull<T>(points, {Backend::cpu, nullptr}).size() * sizeof(Point2<T>);
      for (const HullPart part : {HullPart::full, HullPart::upper}) {
        HullOptions options{Backend::cpu, nullptr};
        options.part = part;
        const auto expected = compute_hull<T>(points, options).vertices;
        for (const std::size_t limit : {std::size_t{0}, kMinMemoryLimit, std::size_t{64} << 20}) {
          options.memory_limit = limit;
          const std::string what = family.name + " n=" + std::to_string(n) +
                                   " limit=" + std::to_string(limit) +
                                   (part == HullPart::upper ? " upper" : " full");
          if (limit != 0 && hull_bytes > limit / 8) {
            // Hull-like (circle, parabola): the hull alone outgrows its eighth of the limit.
            EXPECT_THROW(hull_of_chunks<T>(random_chunks<T>(points, rng), options), memory_limit_error)
                << what;
            continue;
          }
          ASSERT_EQ(hull_of_chunks<T>(random_chunks<T>(points, rng), options).vertices, expected) << what;
        }
      }
    }
  }
}

TEST_F(StreamedHull, EqualsTheWholeHullOnEveryFamilyDouble) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  every_family<double>(rng_);
}

TEST_F(StreamedHull, EqualsTheWholeHullOnEveryFamilyFloat) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  every_family<float>(rng_);
}

TEST_F(StreamedHull, StatsCountEveryPointAndTheFilter) {
  const auto points = testing::uniform_disk<double>(1 << 20, rng_);
  HullStats stats;
  HullOptions options{Backend::cpu, &stats};
  options.memory_limit = kMinMemoryLimit;
  const auto hull = hull_of_chunks<double>(random_chunks<double>(points, rng_), options).vertices;
  EXPECT_EQ(stats.points, std::int64_t{1} << 20);
  EXPECT_EQ(stats.hull_vertices, static_cast<std::int64_t>(hull.size()));
  // The running hull drops most of a disk's points before they are hulled.
  EXPECT_LT(stats.survivors, stats.points / 4);
  EXPECT_GE(stats.survivors, stats.hull_vertices);
}

TEST_F(StreamedHull, ANonFinitePointIsNamedByItsIndexInTheStream) {
  auto points = testing::uniform_disk<double>(100000, rng_);
  const std::size_t bad = 70000 + rng_() % 20000;
  points[bad].x = std::numeric_limits<double>::infinity();
  HullOptions options{Backend::cpu, nullptr};
  try {
    hull_of_chunks<double>(random_chunks<double>(points, rng_), options);
    FAIL() << "a non-finite point was hulled";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), "point " + std::to_string(bad) + " is not finite");
  }
}

TEST_F(StreamedHull, AHullLikeInputBeyondTheLimitFailsNamingIt) {
  const auto points = testing::circle<double>(200000, rng_);  // about 200000 vertices: 3.2 MB
  HullOptions options{Backend::cpu, nullptr};
  options.memory_limit = kMinMemoryLimit;
  try {
    hull_of_chunks<double>(random_chunks<double>(points, rng_), options);
    FAIL() << "the hull cannot fit an eighth of 1 MiB";
  } catch (const memory_limit_error& e) {
    EXPECT_NE(std::string(e.what()).find("memory limit of 1048576 bytes"), std::string::npos) << e.what();
  }
  options.memory_limit = std::size_t{64} << 20;  // an eighth: 8 MiB holds the hull
  EXPECT_EQ(hull_of_chunks<double>(random_chunks<double>(points, rng_), options).vertices,
            convex_hull<double>(points, {Backend::cpu, nullptr}));
}

TEST_F(StreamedHull, RefusesWhatNeedsEveryPoint) {
  const std::vector<Point2<double>> points = {{0, 0}, {1, 0}, {0, 1}};
  HullOptions options{Backend::cpu, nullptr};
  options.indices = true;
  EXPECT_THROW(hull_of_chunks<double>(random_chunks<double>(points, rng_), options), std::invalid_argument);
  options.indices = false;
  options.memory_limit = kMinMemoryLimit - 1;
  EXPECT_THROW(hull_of_chunks<double>(random_chunks<double>(points, rng_), options), std::invalid_argument);
}

// A promise of sorted points through hull_of_file without a memory limit: the hull's own pass checks
// it (the reader does not), the hull is the promised hull's, and a broken promise is named by the
// file and the byte (binary) or line (text) as the reader names it, on the cpu and pram backends and
// for both parts. With a memory limit the promise is refused.
TEST_F(StreamedHull, APromiseOfSortedPointsIsCheckedByTheHullAndNamedInTheFile) {
  namespace fs = std::filesystem;
  std::string pattern = (fs::path(::testing::TempDir()) / "wagener_sorted_XXXXXX").string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  const fs::path dir = pattern;
  const auto write = [&](const std::string& name, const std::string& bytes) {
    const std::string file = (dir / name).string();
    std::ofstream(file, std::ios::binary) << bytes;
    return file;
  };
  auto points = testing::sorted_copy(testing::uniform_disk<double>(200003, rng_));
  const auto bytes_of = [](const std::vector<Point2<double>>& p) {
    return std::string(reinterpret_cast<const char*>(p.data()), p.size() * sizeof(p[0]));
  };
  ReadOptions read;
  read.require_sorted = true;
  read.check_values = false;  // as the command line reads a named binary file
  const std::string sorted = write("sorted.f64", bytes_of(points));
  // Two neighbours swapped where they differ: point `at` is then smaller than point at - 1.
  std::size_t at = 1 + rng_() % (points.size() - 2);
  while (points[at - 1] == points[at]) ++at;
  std::swap(points[at - 1], points[at]);
  const std::string unsorted = write("unsorted.f64", bytes_of(points));
  std::string text;
  for (const auto& p : std::vector<Point2<double>>{{0, 0}, {1, 2}, {3, 1}, {2, 5}, {4, 4}})
    text += std::to_string(p.x) + " " + std::to_string(p.y) + "\n";
  const std::string unsorted_text = write("unsorted.txt", text);
  for (const Backend backend : {Backend::cpu, Backend::pram}) {
    for (const HullPart part : {HullPart::upper, HullPart::full}) {
      HullOptions options{backend, nullptr};
      options.part = part;
      const std::string what =
          std::string(backend_name(backend)) + (part == HullPart::upper ? " upper" : " full");
      HullOptions promised = options;
      promised.presorted = true;
      const auto expected = compute_hull<double>(read_points<double>(sorted).points(), promised).vertices;
      EXPECT_EQ(hull_of_file<double>(sorted, read, options).vertices, expected) << what;
      const auto message_of = [&](const std::string& file) {
        try {
          hull_of_file<double>(file, read, options);
        } catch (const input_error& e) {
          return std::string(e.what());
        }
        return std::string("no error");
      };
      const std::string byte =
          "unsorted.f64: byte " + std::to_string(at * sizeof(Point2<double>)) + ": points not sorted";
      EXPECT_NE(message_of(unsorted).find(byte), std::string::npos) << what << ": " << message_of(unsorted);
      EXPECT_NE(message_of(unsorted_text).find("unsorted.txt:4: points not sorted"), std::string::npos)
          << what << ": " << message_of(unsorted_text);
      options.memory_limit = kMinMemoryLimit;
      EXPECT_THROW(hull_of_file<double>(sorted, read, options), std::invalid_argument) << what;
    }
  }
  std::error_code ignored;
  fs::remove_all(dir, ignored);
}

TEST(ParseMemorySize, SuffixesAreBinary) {
  EXPECT_EQ(parse_memory_size("1048576"), std::size_t{1} << 20);
  EXPECT_EQ(parse_memory_size("512K"), std::size_t{512} << 10);
  EXPECT_EQ(parse_memory_size("8M"), std::size_t{8} << 20);
  EXPECT_EQ(parse_memory_size("8m"), std::size_t{8} << 20);
  EXPECT_EQ(parse_memory_size("8MB"), std::size_t{8} << 20);
  EXPECT_EQ(parse_memory_size("8MiB"), std::size_t{8} << 20);
  EXPECT_EQ(parse_memory_size("2G"), std::size_t{2} << 30);
  EXPECT_EQ(parse_memory_size("1T"), std::size_t{1} << 40);
  EXPECT_EQ(parse_memory_size("100B"), std::size_t{100});
}

TEST(ParseMemorySize, RejectsWhatIsNotASize) {
  for (const char* bad : {"", "M", "0", "0M", "-1M", "1.5G", "12Q", "8 M", "8MM", "99999999999999T"}) {
    EXPECT_THROW(parse_memory_size(bad), std::invalid_argument) << '"' << bad << '"';
  }
}

}  // namespace
}  // namespace wagener
