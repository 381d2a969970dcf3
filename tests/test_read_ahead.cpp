// Reading files at the storage's speed (io/read_ahead.hpp, io/input_bytes.hpp) and hulling a binary
// file as it is read (stream/read_ahead_hull.hpp): every byte in file order across every seam, the
// hull that the whole file gives, and read_points()'s messages for bad input. Small blocks put many
// seams into small files.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/monotone_chain.hpp"
#include "generators.hpp"
#include "integer_reference.hpp"
#include "io/input_bytes.hpp"
#include "io/read_ahead.hpp"
#include "stream/read_ahead_hull.hpp"
#include "wagener/error.hpp"
#include "wagener/io.hpp"
#include "wagener/stream.hpp"

namespace wagener {
namespace {

namespace fs = std::filesystem;

class ReadAheadTest : public ::testing::Test {
 public:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "wagener_read_ahead_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    folder_ = pattern;
    seed_ = testing::fresh_seed();
    rng_.seed(seed_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(folder_, ignored);
  }
  std::string write(const std::string& name, const std::string& bytes) {
    const std::string path = folder_ + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  template <class F, class T>
  std::string write_points(const std::string& name, const std::vector<Point2<T>>& points) {
    std::string bytes(points.size() * 2 * sizeof(F), '\0');
    for (std::size_t i = 0; i < points.size(); ++i) {
      const F xy[2] = {static_cast<F>(points[i].x), static_cast<F>(points[i].y)};
      std::memcpy(bytes.data() + i * sizeof xy, xy, sizeof xy);
    }
    return write(name, bytes);
  }
  std::string random_bytes(std::size_t n) {
    std::string bytes(n, '\0');
    for (char& c : bytes) c = static_cast<char>(rng_());
    return bytes;
  }

  std::string folder_;
  std::uint64_t seed_ = 0;
  std::mt19937_64 rng_;
};

struct Fd {
  explicit Fd(const std::string& path) : fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  int fd;
};

TEST_F(ReadAheadTest, HandsOutEveryByteInFileOrder) {
  for (const std::size_t size : {std::size_t{1}, std::size_t{4095}, std::size_t{4096}, std::size_t{4097},
                                 std::size_t{40003}, std::size_t{1} << 20}) {
    const std::string bytes = random_bytes(size);
    const std::string path = write("bytes", bytes);
    for (const std::size_t block : {std::size_t{4096}, std::size_t{12288}}) {
      for (const unsigned readers : {1u, 3u, 8u}) {
        const Fd file(path);
        reading::ReadAhead ahead(file.fd, path, size, block, readers);
        std::string seen;
        while (const auto b = ahead.next()) {
          EXPECT_EQ(b->offset, seen.size());
          EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b->bytes.data()) % 64, 0u);
          EXPECT_LE(b->bytes.size(), block);
          seen.append(b->bytes.data(), b->bytes.size());
        }
        EXPECT_FALSE(ahead.next()) << "the end stays the end";
        EXPECT_EQ(seen, bytes) << "size " << size << ", blocks of " << block << ", " << readers << " readers";
      }
    }
  }
}

TEST_F(ReadAheadTest, StoppingEarlyLeavesNoReaderBehind) {
  const std::string path = write("bytes", random_bytes(1 << 20));
  for (int i = 0; i < 20; ++i) {
    const Fd file(path);
    reading::ReadAhead ahead(file.fd, path, 1 << 20, 4096, 8);
    if (i % 2 == 0) {
      ASSERT_TRUE(ahead.next());
    }
  }  // the destructor joins readers that are waiting for buffers
}

TEST_F(ReadAheadTest, AFileThatEndsEarlyIsAnInputErrorNamingIt) {
  const std::string path = write("short", random_bytes(10000));
  const Fd file(path);
  reading::ReadAhead ahead(file.fd, path, 20000, 4096, 3);
  try {
    while (ahead.next()) {
    }
    FAIL() << "no error";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("the file ended at byte"), std::string::npos) << e.what();
  }
  std::string dest(20000, '\0');
  EXPECT_THROW(reading::read_in_parallel(file.fd, path, dest.data(), 0, dest.size(), 4), input_error);
}

TEST_F(ReadAheadTest, ReadInParallelReadsTheRangeAsked) {
  const std::string bytes = random_bytes((std::size_t{5} << 20) + 17);
  const std::string path = write("bytes", bytes);
  const Fd file(path);
  for (const unsigned readers : {1u, 2u, 8u}) {
    std::string dest(bytes.size() - 1000, '\0');
    reading::read_in_parallel(file.fd, path, dest.data(), 1000, dest.size(), readers);
    EXPECT_EQ(dest, bytes.substr(1000)) << readers;
  }
}

TEST_F(ReadAheadTest, AFileJustWrittenIsInThePageCache) {
  const std::string path = write("bytes", random_bytes(1 << 20));
  const Fd file(path);
  const double share = reading::cached_share(file.fd, 1 << 20);
  EXPECT_GE(share, 0.9);
  EXPECT_LE(share, 1.0);
  EXPECT_EQ(reading::cached_share(file.fd, 0), 1.0);
}

// Mapped where the page cache holds the file or memory is short; read where it is cold and fits.
TEST_F(ReadAheadTest, FileAccessFollowsTheCacheAndTheFreeMemory) {
  using reading::FileAccess;
  EXPECT_EQ(reading::choose_file_access(1 << 30, 1.0, std::uint64_t{64} << 30), FileAccess::mapped);
  EXPECT_EQ(reading::choose_file_access(1 << 30, 0.0, std::uint64_t{64} << 30), FileAccess::read);
  EXPECT_EQ(reading::choose_file_access(1 << 30, 0.5, std::uint64_t{64} << 30), FileAccess::read);
  EXPECT_EQ(reading::choose_file_access(std::uint64_t{40} << 30, 0.0, std::uint64_t{64} << 30),
            FileAccess::mapped);  // larger than half the free memory
  EXPECT_EQ(reading::choose_file_access(1 << 30, 0.0, 0), FileAccess::mapped);  // free memory unknown
  const std::string bytes = random_bytes((std::size_t{3} << 20) + 5);
  const std::string path = write("bytes", bytes);
  for (const FileAccess access : {FileAccess::automatic, FileAccess::mapped, FileAccess::read}) {
    const reading::InputBytes input = reading::read_file(path, access);
    EXPECT_EQ(input.bytes, bytes);
  }
}

// The hull of a file read block by block equals the hull of all its points, for every family, with
// the seams of tiny blocks anywhere in it.
template <class T, class F>
void hulls_every_family(ReadAheadTest& test, std::mt19937_64& rng) {
  const Format format = sizeof(F) == sizeof(float) ? Format::f32 : Format::f64;
  for (const auto& family : testing::all_families<T>()) {
    for (const std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{1000}, std::size_t{20001}}) {
      const auto points = family.make(n, rng);
      const std::string path = test.write_points<F>("points", points);
      // The file's values in T, from its bytes: GCC 12's SLP vectorizer folds the round trip
      // static_cast<double>(static_cast<float>(v)) of a pair of values into v (bench/NOTES.md).
      std::vector<Point2<T>> as_read(points.size());
      {
        std::ifstream in(path, std::ios::binary);
        for (auto& p : as_read) {
          F xy[2];
          in.read(reinterpret_cast<char*>(xy), sizeof xy);
          p = {static_cast<T>(xy[0]), static_cast<T>(xy[1])};
        }
      }
      if (sizeof(F) < sizeof(T) && (family.name == "huge" || family.name == "tiny")) continue;  // not floats
      for (const HullPart part : {HullPart::full, HullPart::upper}) {
        HullOptions options{Backend::cpu, nullptr};
        options.part = part;
        const auto expected = compute_hull<T>(as_read, options).vertices;
        EXPECT_EQ(expected, part == HullPart::full ? cpu::convex_hull_serial<T>(as_read)
                                                   : cpu::upper_chain<T>(testing::sorted_copy(as_read)));
        for (const std::size_t block : {std::size_t{4096}, std::size_t{1} << 16}) {
          const auto got = detail::hull_of_binary_read_ahead<T>(path, format, options, block, 3).vertices;
          EXPECT_EQ(got, expected) << family.name << " n=" << n << " block " << block << " record values of " << sizeof(F)
                                   << (part == HullPart::upper ? " upper" : "");
        }
      }
    }
  }
}

TEST_F(ReadAheadTest, HullsEveryFamilyAsTheWholeFileDoes) {
  hulls_every_family<double, double>(*this, rng_);
  hulls_every_family<float, float>(*this, rng_);
  hulls_every_family<double, float>(*this, rng_);  // an f32 file at double precision
  SCOPED_TRACE("WAGENER_TEST_SEED=" + std::to_string(seed_));
}

// Whether T holds the integer v exactly (T as wide as F, or double).
template <class T, class F>
bool holds(F v) {
  if constexpr (std::is_integral_v<T>) {
    return v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max();
  } else {
    const T rounded = static_cast<T>(v);  // 2^63 at most, which has no int64: compared first
    return rounded < -static_cast<T>(std::numeric_limits<F>::min()) && static_cast<F>(rounded) == v;
  }
}

// Integer files (i32, i64) read block by block: the exact hull of every integer family, in the file's
// own type and in wider ones. An i64 file read as double has records of a double's size: its values
// must be converted (exactly), never taken as the bytes of doubles.
template <class T, class F>
void hulls_every_integer_family(ReadAheadTest& test, std::mt19937_64& rng) {
  const Format format = sizeof(F) == 4 ? Format::i32 : Format::i64;
  for (const auto& family : testing::integer_families<F>()) {
    for (const std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{1000}, std::size_t{20001}}) {
      const auto points = family.make(n, rng);
      const std::string path = test.write_points<F>("points", points);
      std::vector<Point2<T>> as_t(points.size());
      bool exact = true;  // every value held by T exactly, else the read refuses the file
      for (std::size_t i = 0; i < points.size(); ++i) {
        as_t[i] = {static_cast<T>(points[i].x), static_cast<T>(points[i].y)};
        exact = exact && holds<T>(points[i].x) && holds<T>(points[i].y);
      }
      for (const HullPart part : {HullPart::full, HullPart::upper}) {
        HullOptions options{Backend::cpu, nullptr};
        options.part = part;
        for (const std::size_t block : {std::size_t{4096}, std::size_t{1} << 16}) {
          const std::string what = family.name + " n=" + std::to_string(n) + " block " +
                                   std::to_string(block) + (part == HullPart::upper ? " upper" : "") + " (" +
                                   std::string(format_name(format)) + " as " + std::to_string(sizeof(T)) +
                                   "-byte " + (std::is_integral_v<T> ? "integers)" : "floats)");
          if (!exact) {
            EXPECT_THROW(detail::hull_of_binary_read_ahead<T>(path, format, options, block, 3), input_error)
                << what;
            continue;
          }
          const auto got = detail::hull_of_binary_read_ahead<T>(path, format, options, block, 3).vertices;
          if constexpr (std::is_integral_v<T>) {
            EXPECT_EQ(got, testing::reference_hull(as_t, part == HullPart::upper)) << what;
          } else {
            EXPECT_EQ(got, compute_hull<T>(as_t, options).vertices) << what;
          }
        }
      }
    }
  }
}

TEST_F(ReadAheadTest, HullsEveryIntegerFamilyExactly) {
  hulls_every_integer_family<std::int32_t, std::int32_t>(*this, rng_);
  hulls_every_integer_family<std::int64_t, std::int64_t>(*this, rng_);
  hulls_every_integer_family<std::int64_t, std::int32_t>(*this, rng_);  // an i32 file at int64
  hulls_every_integer_family<double, std::int64_t>(*this, rng_);        // 16-byte records, not doubles
  hulls_every_integer_family<double, std::int32_t>(*this, rng_);
  SCOPED_TRACE("WAGENER_TEST_SEED=" + std::to_string(seed_));
}

// The filter of the blocks after the first is the hull so far, whose vertices beyond 2^53 (which
// double would round) it must leave out: the hull stays exact.
TEST_F(ReadAheadTest, AnI64FileWithVerticesBeyond2To53IsHulledExactly) {
  using P64 = Point2<std::int64_t>;
  std::vector<P64> points;
  constexpr std::int64_t kBig = std::int64_t{1} << 53;
  for (std::int64_t k = 0; k < 64; ++k) {  // in the first block: the first hull's vertices
    points.push_back({kBig + 2 * k + 1, (kBig >> 3) + k * k});
    points.push_back({-kBig - 2 * k - 1, (kBig >> 3) - k * k});
  }
  points.push_back({0, kBig * 4 + 1});
  points.push_back({1, -kBig * 4 - 1});
  const auto disk = testing::integer_disk<std::int64_t>(200000, 0x1p52, 0, 0, rng_);
  points.insert(points.end(), disk.begin(), disk.end());
  // Points one unit off the first hull's edges, outside it, late in the file.
  const auto first_hull = testing::reference_hull(std::vector<P64>(points.begin(), points.begin() + 130));
  for (std::size_t i = 0; i < first_hull.size(); ++i) {
    const P64 a = first_hull[i], b = first_hull[(i + 1) % first_hull.size()];
    points.push_back({a.x / 2 + b.x / 2 + (b.y > a.y ? 1 : -1), a.y / 2 + b.y / 2 + (b.x < a.x ? 1 : -1)});
  }
  const std::string path = write_points<std::int64_t>("beyond.i64", points);
  const auto expected = testing::reference_hull(points);
  for (const std::size_t block : {std::size_t{4096}, std::size_t{1} << 16}) {
    EXPECT_EQ(
        detail::hull_of_binary_read_ahead<std::int64_t>(path, Format::i64, {Backend::cpu, nullptr}, block, 3)
            .vertices,
        expected)
        << "block " << block << ", seed " << seed_;
  }
}

template <class T>
std::string read_points_message(const std::string& path, Format format) {
  try {
    read_points<T>(path, ReadOptions{format});
  } catch (const input_error& e) {
    return e.what();
  }
  return "(no error)";
}

template <class T>
std::string read_ahead_message(const std::string& path, Format format) {
  try {
    detail::hull_of_binary_read_ahead<T>(path, format, {}, 4096, 4);
  } catch (const input_error& e) {
    return e.what();
  }
  return "(no error)";
}

// Bad values anywhere, at a block's seam too, and a cut record: the words of a whole-file read.
TEST_F(ReadAheadTest, BadInputIsNamedAsAWholeFileReadNamesIt) {
  constexpr std::size_t n = 2000;  // 256 f64 points a 4096-byte block
  const auto points = testing::uniform_disk<double>(n, rng_);
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (const std::size_t at : {std::size_t{0}, std::size_t{255}, std::size_t{256}, std::size_t{1000}, n - 1}) {
    for (const double bad : {nan, inf, -inf}) {
      auto spoiled = points;
      (at % 2 ? spoiled[at].y : spoiled[at].x) = bad;
      const std::string path = write_points<double>("bad.f64", spoiled);
      const std::string expected = read_points_message<double>(path, Format::f64);
      ASSERT_NE(expected, "(no error)");
      EXPECT_EQ(read_ahead_message<double>(path, Format::f64), expected) << at;
      const std::string path32 = write_points<float>("bad.f32", spoiled);
      EXPECT_EQ(read_ahead_message<float>(path32, Format::f32), read_points_message<float>(path32, Format::f32)) << at;
      EXPECT_EQ(read_ahead_message<double>(path32, Format::f32), read_points_message<double>(path32, Format::f32))
          << at;
    }
  }
  // A double beyond float's range, read as float.
  auto large = points;
  large[700].x = 1e300;
  const std::string path = write_points<double>("large.f64", large);
  EXPECT_EQ(read_ahead_message<float>(path, Format::f64), read_points_message<float>(path, Format::f64));
  // A cut record, and a file that is not there.
  const std::string cut = write("cut.f64", random_bytes(16 * 300 + 9));
  EXPECT_EQ(read_ahead_message<double>(cut, Format::f64), read_points_message<double>(cut, Format::f64));
  // Integers: a value the precision cannot hold exactly, at a seam too.
  std::vector<Point2<std::int64_t>> integers(2000, {5, -5});
  integers[256].y = std::int64_t{1} << 40;         // beyond int32
  integers[1500].x = (std::int64_t{1} << 53) + 1;  // beyond double
  const std::string i64 = write_points<std::int64_t>("bad.i64", integers);
  EXPECT_EQ(read_ahead_message<std::int32_t>(i64, Format::i64),
            read_points_message<std::int32_t>(i64, Format::i64));
  EXPECT_EQ(read_ahead_message<double>(i64, Format::i64), read_points_message<double>(i64, Format::i64));
  std::vector<Point2<double>> fractions(2000, {1, 2});
  fractions[300].x = 0.5;
  const std::string half = write_points<double>("half.f64", fractions);
  EXPECT_EQ(read_ahead_message<std::int64_t>(half, Format::f64),
            read_points_message<std::int64_t>(half, Format::f64));
  const std::string cut64 = write("cut.i64", random_bytes(16 * 300 + 8));
  EXPECT_EQ(read_ahead_message<std::int64_t>(cut64, Format::i64),
            read_points_message<std::int64_t>(cut64, Format::i64));
  const std::string missing = folder_ + "/missing.f64";
  EXPECT_EQ(read_ahead_message<double>(missing, Format::f64),
            read_points_message<double>(missing, Format::f64));
}

// hull_of_file picks its way by the page cache; either way the hull is the same.
TEST_F(ReadAheadTest, HullOfFileGivesTheSameHullWhateverTheCacheHolds) {
  const auto points = testing::uniform_disk<double>(300000, rng_);
  const std::string path = write_points<double>("disk.f64", points);
  const auto expected = cpu::convex_hull_serial<double>(points);
  HullStats stats;
  HullOptions options{Backend::cpu, &stats};
  EXPECT_EQ(hull_of_file<double>(path, {}, options).vertices, expected);
  EXPECT_FALSE(stats.reading.empty());
  // Dropped from the cache where the file system lets go of it (tmpfs does not): then read ahead.
  {
    const Fd file(path);
    ::fdatasync(file.fd);
    ::posix_fadvise(file.fd, 0, 0, POSIX_FADV_DONTNEED);
  }
  EXPECT_EQ(hull_of_file<double>(path, {}, options).vertices, expected) << stats.reading;
}

}  // namespace
}  // namespace wagener
