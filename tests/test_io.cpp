// Point-file I/O: what the readers accept, how they fail, and that writing then reading gives back
// the same bits.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "core/id_table.hpp"
#include "io/read_grouped.hpp"
#include "point_checks.hpp"
#include "wagener/error.hpp"
#include "wagener/io.hpp"

namespace wagener::detail {
// Defined in src/io/binary_points.cpp (no header: only tests ask): where the slices that binary input
// of n points, `bytes` bytes, is scanned in on several threads start, then n.
std::vector<std::size_t> binary_slice_bounds(std::size_t n, std::size_t bytes);
}  // namespace wagener::detail

namespace wagener {
namespace {

namespace fs = std::filesystem;

using point_checks::same_bits;
using point_checks::to_vector;

template <class F>
std::string binary_bytes(const std::vector<Point2<F>>& points) {
  std::string bytes(points.size() * sizeof(Point2<F>), '\0');
  if (!points.empty()) std::memcpy(bytes.data(), points.data(), bytes.size());
  return bytes;
}

// Finite values of T from random bits (every exponent, sign and subnormal equally likely), with the
// extremes mixed in.
template <class T>
std::vector<Point2<T>> random_points(std::mt19937_64& rng, std::size_t n) {
  using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  const std::vector<T> extremes = {T{0},
                                   -T{0},
                                   std::numeric_limits<T>::denorm_min(),
                                   -std::numeric_limits<T>::denorm_min(),
                                   std::numeric_limits<T>::min(),
                                   std::numeric_limits<T>::max(),
                                   std::numeric_limits<T>::lowest(),
                                   std::numeric_limits<T>::epsilon(),
                                   static_cast<T>(0.1),
                                   static_cast<T>(1) / 3};
  const auto random_value = [&]() {
    for (;;) {
      const T value = std::bit_cast<T>(static_cast<Bits>(rng()));
      if (std::isfinite(value)) return value;
    }
  };
  std::vector<Point2<T>> points;
  for (const T extreme : extremes) points.push_back({extreme, random_value()});
  if constexpr (std::is_same_v<T, double>) points.push_back({1e-300, 1e300});
  while (points.size() < n) points.push_back({random_value(), random_value()});
  return points;
}

class IoTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(testing::TempDir()) / "wagener_io_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << std::strerror(errno);
    dir_ = pattern;
    // Fresh each run; WAGENER_TEST_SEED replays the seed a failure printed.
    std::uint64_t seed = (std::uint64_t{std::random_device{}()} << 32) | std::random_device{}();
    if (const char* fixed = std::getenv("WAGENER_TEST_SEED")) seed = std::stoull(fixed);
    rng_.seed(seed);
    seed_trace_ =
        std::make_unique<testing::ScopedTrace>(__FILE__, __LINE__, "random seed " + std::to_string(seed));
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::string write(const std::string& name, std::string_view bytes) const {
    const std::string file = path(name);
    std::ofstream out(file, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    EXPECT_TRUE(out.good()) << file;
    return file;
  }

  static std::string slurp(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  // Reads `bytes` stored under `name`; must fail with one line that starts as `expected_prefix`
  // (file and line, or byte offset) and contains `expected_text`.
  template <class T>
  void expect_error(const std::string& name, std::string_view bytes, const std::string& expected_prefix,
                    const std::string& expected_text, ReadOptions options = {}) {
    const std::string file = write(name, bytes);
    SCOPED_TRACE("input: \"" + std::string(bytes.substr(0, 200)) + "\"");
    std::string message;
    try {
      const auto points = read_points<T>(file, options);
      ADD_FAILURE() << "no error; read " << points.size() << " points";
    } catch (const input_error& error) {
      message = error.what();
      EXPECT_EQ(message.rfind(file + expected_prefix, 0), 0u) << message;
      EXPECT_NE(message.find(expected_text), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
    // The in-memory parser reports the same error.
    try {
      parse_points<T>(bytes, file, options);
      ADD_FAILURE() << "parse_points: no error";
    } catch (const input_error& error) {
      EXPECT_EQ(error.what(), message);
    }
  }

  fs::path dir_;
  std::mt19937_64 rng_;
  std::unique_ptr<testing::ScopedTrace> seed_trace_;
};

// One fixture, several suites: the names read as specifications (ReadPoints.CsvWithHeader).
class ReadPoints : public IoTest {};
class WritePoints : public IoTest {};
class RoundTrip : public IoTest {};
class PointSetTest : public IoTest {};

using Pd = Point2<double>;
using Pf = Point2<float>;

// The UTF-8 byte-order mark spreadsheets start their exports with.
constexpr std::string_view kBom = "\xEF\xBB\xBF";

// ---------------------------------------------------------------------------------------------
// Formats

TEST(Format, NamesRoundTrip) {
  for (const Format format : {Format::automatic, Format::text, Format::csv, Format::f32, Format::f64}) {
    EXPECT_EQ(parse_format(format_name(format)), format);
  }
  EXPECT_EQ(parse_format("auto"), Format::automatic);
  EXPECT_THROW(parse_format("f16"), std::invalid_argument);
  EXPECT_THROW(parse_format(""), std::invalid_argument);
}

TEST(Format, GuessedFromExtension) {
  EXPECT_EQ(guess_format("points.f32"), Format::f32);
  EXPECT_EQ(guess_format("dir/points.f64"), Format::f64);
  EXPECT_EQ(guess_format("points.csv"), Format::csv);
  EXPECT_EQ(guess_format("POINTS.CSV"), Format::csv);
  EXPECT_EQ(guess_format("points.txt"), Format::text);
  EXPECT_EQ(guess_format("points"), Format::text);
  EXPECT_EQ(guess_format("f64"), Format::text);
  EXPECT_EQ(guess_format("-"), Format::text);
}

// ---------------------------------------------------------------------------------------------
// Text

TEST_F(ReadPoints, SeedFormatWithCount) {
  const auto set = read_points<double>(write("seed.txt", "3\n0 0\n1 1\n2 0\n"));
  EXPECT_EQ(to_vector(set), (std::vector<Pd>{{0, 0}, {1, 1}, {2, 0}}));
}

TEST_F(ReadPoints, SeedFormatValuesMayBeLaidOutAnyWay) {
  const auto set = read_points<double>(write("seed.txt", "# made by seed\n3  # points\n0\n0 1\n\t1 2 0"));
  EXPECT_EQ(to_vector(set), (std::vector<Pd>{{0, 0}, {1, 1}, {2, 0}}));
}

TEST_F(ReadPoints, SeedFormatWithZeroCountIsEmpty) {
  EXPECT_EQ(read_points<double>(write("zero.txt", "0\n")).size(), 0u);
  EXPECT_EQ(read_points<double>(write("zero2.txt", "# nothing\n0\n# still nothing\n")).size(), 0u);
}

TEST_F(ReadPoints, SeedFormatCountLargerThanData) {
  // Named at the count: that is where the claim the data fails to meet was made.
  expect_error<double>("few.txt", "# header\n3\n0 0\n1 1\n",
                       ":2: ", "count says 3 points but the file holds 4 values");
  expect_error<double>("none.txt", "1\n", ":1: ", "count says 1 point but the file holds 0 values");
}

TEST_F(ReadPoints, SeedFormatCountSmallerThanData) {
  // Named at the first value too many, with the total.
  expect_error<double>("many.txt", "2\n0 0\n1 1\n2 2\n3\n",
                       ":4: ", "count says 2 points but the file holds 7 values");
  expect_error<double>("many2.txt", "1\n0 0 5\n", ":2: ", "count says 1 point but the file holds 3 values");
}

TEST_F(ReadPoints, SeedFormatHugeCountNeitherAllocatesNorPasses) {
  expect_error<double>("huge.txt", "99999999999\n1 2\n",
                       ":1: ", "count says 99999999999 points but the file holds 2");
  expect_error<double>("huger.txt", "99999999999999999999999\n1 2\n", ":1: ", "is too large");
}

TEST_F(ReadPoints, EmptyFileHasNoPoints) {
  EXPECT_EQ(read_points<double>(write("empty.txt", "")).size(), 0u);
  EXPECT_EQ(read_points<float>(write("blank.txt", "\n\n  \r\n# just a comment\n")).size(), 0u);
  EXPECT_EQ(read_points<double>(write("empty.csv", "")).size(), 0u);
  EXPECT_EQ(read_points<double>(write("empty.f64", "")).size(), 0u);
  EXPECT_EQ(read_points<float>(write("empty.f32", "")).size(), 0u);
}

TEST_F(ReadPoints, PlainPairsWithCommentsBlankLinesAndCrlf) {
  const auto set = read_points<double>(write("pairs.txt",
                                             "# x y\r\n"
                                             "1 2\r\n"
                                             "\r\n"
                                             "  -3.5\t+4e2   # trailing comment\r\n"
                                             "#\r\n"
                                             ".5 5.\n"
                                             "-0 1e-320#comment right after a value\n"
                                             "7 8"));
  const std::vector<Pd> expected = {{1, 2}, {-3.5, 400}, {0.5, 5}, {-0.0, 1e-320}, {7, 8}};
  EXPECT_TRUE(same_bits(to_vector(set), expected));
  EXPECT_FALSE(set.mapped());
}

TEST_F(ReadPoints, PlainPairsNeedTwoValuesPerLine) {
  expect_error<double>("one.txt", "0 0\n1\n", ":2: ", "expected 2 values (x y), found 1");
  expect_error<double>("three.txt", "0 0\n1 1\n1 2 3 # c\n", ":3: ", "expected 2 values (x y), found 3");
  // A line of many values is not the seed's format: the count must stand alone on its line.
  expect_error<double>("inline.txt", "3 0 0 1 1 2 0\n", ":1: ", "expected 2 values (x y), found 7");
  // An odd number of values overall.
  expect_error<float>("odd.txt", "1 2\n3 4\n5\n", ":3: ", "found 1");
}

TEST_F(ReadPoints, NonFiniteTextValuesAreRejected) {
  for (const std::string token :
       {"nan", "NaN", "-nan", "nan(123)", "inf", "-inf", "+inf", "Infinity", "INF"}) {
    SCOPED_TRACE(token);
    expect_error<double>("nonfinite.txt", "0 0\n1 1\n2 2\n" + token + " 3\n",
                         ":4: ", "non-finite value \"" + token + "\"");
    expect_error<float>("nonfinite.csv", "x,y\n0," + token + "\n",
                        ":2: ", "non-finite value \"" + token + "\"");
  }
}

TEST_F(ReadPoints, LiteralsOutOfRangeForTheTypeAreRejected) {
  expect_error<double>("big.txt", "0 0\n1 1e400\n", ":2: ", "value \"1e400\" is out of range for double");
  expect_error<double>("tiny.txt", "0 0\n1 1e-400\n", ":2: ", "value \"1e-400\" is out of range for double");
  expect_error<float>("bigf.txt", "0 0\n\n1e39 1\n", ":3: ", "value \"1e39\" is out of range for float");
  expect_error<float>("bigf.csv", "1e39,1\n", ":1: ", "value \"1e39\" is out of range for float");
  // In range for double, and subnormal results are kept.
  EXPECT_EQ(to_vector(read_points<double>(write("ok.txt", "1e39 4.9e-324\n"))),
            (std::vector<Pd>{{1e39, 4.9e-324}}));
}

// An integer literal a double cannot hold exactly would be rounded silently: it is bad input naming
// the line (and int64 reads it exactly). Integers a double holds, however long, are kept.
TEST_F(ReadPoints, IntegersADoubleCannotHoldAreRejectedNotRounded) {
  const std::string hint = "is not exactly a double (beyond 2^53)";
  expect_error<double>("above.txt", "0 0\n9007199254740993 1\n",
                       ":2: ", "integer \"9007199254740993\" " + hint);
  expect_error<double>("below.csv", "x,y\n0,0\n1,-9007199254740993\n",
                       ":3: ", "integer \"-9007199254740993\" " + hint);
  expect_error<double>("huge.txt", "1 2\n3 123456789012345678901234567890\n", ":2: ", hint);
  expect_error<double>("grouped.csv", "x,y\n0,0\n+18014398509481985,0\n", ":3: ", hint);
  // Exactly doubles: 2^53, 2^53 + 2, 10^22, 2^70, with leading zeros and signs; a decimal point or an
  // exponent makes a decimal, rounded as decimals are.
  EXPECT_EQ(to_vector(read_points<double>(write("exact.txt",
                                                "9007199254740992 -9007199254740994\n"
                                                "10000000000000000000000 +1180591620717411303424\n"
                                                "00000000000000000000001 9007199254740993.0\n"
                                                "9007199254740993e0 0\n"))),
            (std::vector<Pd>{{9007199254740992.0, -9007199254740994.0},
                             {1e22, 1180591620717411303424.0},
                             {1.0, 9007199254740992.0},
                             {9007199254740992.0, 0.0}}));
  EXPECT_EQ(to_vector(read_points<std::int64_t>(write("exact64.txt", "9007199254740993 1\n"))),
            (std::vector<Point2<std::int64_t>>{{9007199254740993, 1}}));
}

// The same at float precision, from 2^24 on: 16777217 is no float; 16777216, 16777218 and 123456792
// (a float, printed whole by the writers) are kept, a decimal is rounded as decimals are.
TEST_F(ReadPoints, IntegersAFloatCannotHoldAreRejectedNotRounded) {
  const std::string hint = "is not exactly a float (beyond 2^24): read it as double or int64";
  expect_error<float>("above.txt", "0 0\n16777217 1\n", ":2: ", "integer \"16777217\" " + hint);
  expect_error<float>("below.csv", "x,y\n0,0\n1,-123456789\n", ":3: ", "integer \"-123456789\" " + hint);
  EXPECT_EQ(to_vector(read_points<float>(write("exactf.txt", "16777216 -16777218\n123456792 16777217.0\n"))),
            (std::vector<Pf>{{16777216.0f, -16777218.0f}, {123456792.0f, 16777216.0f}}));
  EXPECT_EQ(to_vector(read_points<double>(write("exactd.txt", "16777217 1\n"))),
            (std::vector<Pd>{{16777217.0, 1.0}}));
}

TEST_F(ReadPoints, GarbageTokensAreRejected) {
  expect_error<double>("abc.txt", "0 0\n1 1\nabc 2\n", ":3: ", "not a number: \"abc\"");
  expect_error<double>("tail.txt", "0 1.5abc\n", ":1: ", "not a number: \"1.5abc\"");
  expect_error<double>("hex.txt", "0x1p3 0\n", ":1: ", "not a number: \"0x1p3\"");
  expect_error<double>("signs.txt", "+-1 0\n", ":1: ", "not a number: \"+-1\"");
  expect_error<double>("plus.txt", "+ 0\n", ":1: ", "not a number: \"+\"");
  expect_error<double>("comma.txt", "1,5 0\n", ":1: ", "not a number: \"1,5\"");
  expect_error<double>("exp.txt", "1e 0\n", ":1: ", "not a number: \"1e\"");
  expect_error<double>("infx.txt", "1 infinityx\n", ":1: ", "not a number: \"infinityx\"");
  // Bytes that would break the one-line message are escaped, and long tokens cut short.
  expect_error<double>("control.txt", std::string("1 a\0b\x01\n", 7),
                       ":1: ", "not a number: \"a\\x00b\\x01\"");
  expect_error<double>("long.txt", "1 " + std::string(500, 'z') + "\n", ":1: ", "zzz...\"");
}

TEST_F(ReadPoints, UnsortedInputFailsWhenSortedIsRequired) {
  ReadOptions sorted;
  sorted.require_sorted = true;
  expect_error<double>(
      "unsorted.txt", "0 0\n1 1\n3 0\n\n1 2\n",
      ":5: ", "points not sorted: (1, 2) comes after (3, 0) (--presorted promises lexicographic order)",
      sorted);
  expect_error<double>("ties.txt", "0 0\n1 1\n1 0.5\n", ":3: ", "(1, 0.5) comes after (1, 1)", sorted);
  // In the seed's format, a point is named by the line of its x.
  expect_error<double>("seed.txt", "3\n0 0 2\n1 1\n 1\n", ":3: ", "(1, 1) comes after (2, 1)", sorted);
  expect_error<float>("unsorted.csv", "x,y\n0,0\n-1,5\n", ":3: ", "(-1, 5) comes after (0, 0)", sorted);
  // Equal points are in order; without the promise any order is fine.
  EXPECT_EQ(read_points<double>(write("dups.txt", "0 0\n0 0\n0 1\n2 -1\n"), sorted).size(), 4u);
  EXPECT_EQ(read_points<double>(write("free.txt", "3 0\n1 2\n")).size(), 2u);
}

TEST_F(ReadPoints, MissingFileIsNamed) {
  const std::string missing = path("no_such_file.txt");
  try {
    read_points<double>(missing);
    ADD_FAILURE() << "no error";
  } catch (const input_error& error) {
    EXPECT_EQ(std::string(error.what()), missing + ": cannot open: No such file or directory");
  }
  try {
    read_points<double>(dir_.string());
    ADD_FAILURE() << "no error";
  } catch (const input_error& error) {
    EXPECT_EQ(std::string(error.what()), dir_.string() + ": cannot open: Is a directory");
  }
}

TEST_F(ReadPoints, StandardInputIsReadFullyAndShownAsStdin) {
  const std::string good = write("stdin.txt", "2\n1 2\n3 4\n");
  ASSERT_NE(std::freopen(good.c_str(), "rb", stdin), nullptr);
  EXPECT_EQ(to_vector(read_points<double>("-")), (std::vector<Pd>{{1, 2}, {3, 4}}));

  const std::string bad = write("stdin_bad.txt", "1 2\nnan 4\n");
  ASSERT_NE(std::freopen(bad.c_str(), "rb", stdin), nullptr);
  try {
    read_points<double>("-");
    ADD_FAILURE() << "no error";
  } catch (const input_error& error) {
    EXPECT_EQ(std::string(error.what()), "<stdin>:2: non-finite value \"nan\"");
  }
}

// ---------------------------------------------------------------------------------------------
// Standard input

// Puts `fd` in the place of standard input (file descriptor 0) for the life of the object.
class StdinRedirect {
 public:
  explicit StdinRedirect(int fd) : saved_(::dup(0)) { EXPECT_EQ(::dup2(fd, 0), 0) << std::strerror(errno); }
  StdinRedirect(const StdinRedirect&) = delete;
  StdinRedirect& operator=(const StdinRedirect&) = delete;
  ~StdinRedirect() {
    if (saved_ >= 0) {
      ::dup2(saved_, 0);
      ::close(saved_);
    } else {
      ::close(0);  // it was closed before
    }
  }

 private:
  int saved_;
};

// `producer | wagener hull -`: the bytes reach standard input through a pipe, written by another
// thread, since they are more than a pipe holds.
template <class T>
PointSet<T> read_from_pipe(std::string_view bytes, const ReadOptions& options = {}) {
  int ends[2];
  if (::pipe(ends) != 0) throw std::runtime_error(std::strerror(errno));
  std::jthread writer([&bytes, write_end = ends[1]] {
    for (std::size_t done = 0; done < bytes.size();) {
      const ssize_t wrote = ::write(write_end, bytes.data() + done, bytes.size() - done);
      if (wrote <= 0) break;  // the reader is gone; it has its own assertions to fail
      done += static_cast<std::size_t>(wrote);
    }
    ::close(write_end);
  });
  const StdinRedirect redirect(ends[0]);
  ::close(ends[0]);
  return read_points<T>("-", options);
}

// `wagener hull - < file`, the file's offset at `offset`.
template <class T>
PointSet<T> read_from_redirect(const std::string& file, off_t offset, const ReadOptions& options = {}) {
  const int fd = ::open(file.c_str(), O_RDONLY);
  if (fd < 0) throw std::runtime_error(file + ": " + std::strerror(errno));
  EXPECT_EQ(::lseek(fd, offset, SEEK_SET), offset);
  const StdinRedirect redirect(fd);
  ::close(fd);
  auto points = read_points<T>("-", options);
  EXPECT_EQ(::lseek(0, 0, SEEK_CUR), static_cast<off_t>(fs::file_size(file))) << "stdin is consumed";
  return points;
}

std::string stdin_error(const std::function<void()>& read) {
  try {
    read();
  } catch (const input_error& error) {
    return error.what();
  }
  return "no error";
}

TEST_F(ReadPoints, StandardInputThroughAPipe) {
  // Several MiB: more than the first buffer, so it grows while the writer is still writing.
  const auto points = random_points<double>(rng_, 100000);
  const std::string text = format_points<double>(points);
  ASSERT_GT(text.size(), std::size_t{3} << 20);
  EXPECT_TRUE(same_bits(to_vector(read_from_pipe<double>(text)), points));
  EXPECT_TRUE(same_bits(to_vector(read_from_pipe<double>(std::string(kBom) + text)), points));
  EXPECT_EQ(read_from_pipe<double>("").size(), 0u);
  EXPECT_EQ(stdin_error([] { read_from_pipe<double>("1 2\n3 x\n"); }), "<stdin>:2: not a number: \"x\"");
}

TEST_F(ReadPoints, BinaryOfTheRequestedPrecisionThroughAPipeIsAViewOfTheBuffer) {
  const auto points = random_points<double>(rng_, 200000);
  ReadOptions f64;
  f64.format = Format::f64;
  const auto set = read_from_pipe<double>(binary_bytes(points), f64);
  EXPECT_TRUE(set.mapped()) << "the points are the buffer stdin was read into, not a copy of it";
  EXPECT_TRUE(same_bits(to_vector(set), points));
  // Another precision is converted, and validated as from a file.
  const auto floats = read_from_pipe<float>(binary_bytes<double>({{0.5, -1}, {3, 1e-3}}), f64);
  EXPECT_FALSE(floats.mapped());
  EXPECT_EQ(to_vector(floats), (std::vector<Pf>{{0.5f, -1}, {3, 1e-3f}}));
  EXPECT_EQ(stdin_error([&] {
              read_from_pipe<float>(binary_bytes<double>({{0, 1e300}}), f64);
            }),
            "<stdin>: byte 8: value 1e+300 is out of range for float");
  EXPECT_EQ(stdin_error([&] { read_from_pipe<double>("123456789", f64); }),
            "<stdin>: byte 0: truncated binary: 9 bytes is not a whole number of points (16 bytes each)");
}

TEST_F(ReadPoints, StandardInputRedirectedFromAFileIsMapped) {
  const auto points = random_points<double>(rng_, 5000);
  const std::string f64_file = write("redirect.f64", binary_bytes(points));
  ReadOptions f64;
  f64.format = Format::f64;
  const auto set = read_from_redirect<double>(f64_file, 0, f64);
  EXPECT_TRUE(set.mapped());
  EXPECT_TRUE(same_bits(to_vector(set), points));
  const std::string text_file = write("redirect.txt", "2\n1 2\n3 4\n");
  EXPECT_EQ(to_vector(read_from_redirect<double>(text_file, 0)), (std::vector<Pd>{{1, 2}, {3, 4}}));
}

TEST_F(ReadPoints, StandardInputRedirectedFromAFileIsReadFromItsOffset) {
  // `(read header; wagener hull -) < file`: what was consumed before is not read again.
  const std::string text_file = write("offset.txt", "9 9\n1 2\n3 4\n");
  EXPECT_EQ(to_vector(read_from_redirect<double>(text_file, 4)), (std::vector<Pd>{{1, 2}, {3, 4}}));
  EXPECT_EQ(read_from_redirect<double>(text_file, 12).size(), 0u);

  // Binary from an offset: a view where the offset keeps the points aligned, a copy where not.
  const auto points = random_points<double>(rng_, 1000);
  ReadOptions f64;
  f64.format = Format::f64;
  const std::string aligned_file = write("offset.f64", std::string(16, 'h') + binary_bytes(points));
  const auto aligned = read_from_redirect<double>(aligned_file, 16, f64);
  EXPECT_TRUE(aligned.mapped());
  EXPECT_TRUE(same_bits(to_vector(aligned), points));
  const std::string unaligned_file = write("offset8.f64", std::string(8, 'h') + binary_bytes(points));
  const auto unaligned = read_from_redirect<double>(unaligned_file, 8, f64);
  EXPECT_FALSE(unaligned.mapped());
  EXPECT_TRUE(same_bits(to_vector(unaligned), points));
}

TEST_F(ReadPoints, UnreadableStandardInputIsNamed) {
  const int directory = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(directory, 0) << std::strerror(errno);
  {
    const StdinRedirect redirect(directory);
    EXPECT_EQ(stdin_error([] { read_points<double>("-"); }), "<stdin>: cannot read: Is a directory");
  }
  ::close(directory);
  const int saved = ::dup(0);
  ::close(0);
  EXPECT_EQ(stdin_error([] { read_points<double>("-"); }), "<stdin>: cannot read: Bad file descriptor");
  if (saved >= 0) {
    ::dup2(saved, 0);
    ::close(saved);
  }
}

// Files of a few MiB are parsed in chunks on several threads (where there are several cores); the
// results and the errors must be those of the sequential parser.
TEST_F(ReadPoints, LargeFilesParseTheSameInEveryFormat) {
  const auto points = random_points<double>(rng_, 150000);  // about 5 MiB of text
  const std::string text = format_points<double>(points);
  EXPECT_TRUE(same_bits(to_vector(read_points<double>(write("big.txt", "# big\n" + text))), points));
  const std::string seed = std::to_string(points.size()) + "\n" + text;
  EXPECT_TRUE(same_bits(to_vector(read_points<double>(write("big_seed.txt", seed))), points));
  std::string csv = "x,y\n" + text;
  std::replace(csv.begin(), csv.end(), ' ', ',');
  EXPECT_TRUE(same_bits(to_vector(read_points<double>(write("big.csv", csv))), points));
}

TEST_F(ReadPoints, LargeSeedFilesPairValuesAcrossChunks) {
  // The seed's layout allows one value a line, so a chunk (split after a newline) may start on a y.
  // Lines of 8 bytes, 2.5 MiB and more: each count moves the splits, by a line or more where they
  // fall late, so that with two chunks or more some start on an odd value.
  ReadOptions sorted;
  sorted.require_sorted = true;
  for (int count = 163840; count < 163844; ++count) {
    SCOPED_TRACE(std::to_string(count) + " points");
    std::string seed = std::to_string(count) + "\n";
    std::vector<Pd> points;
    for (int i = 0; i < count; ++i) {
      char lines[32];
      std::snprintf(lines, sizeof lines, "%07d\n%07d\n", i, count - i);
      seed += lines;
      points.push_back({static_cast<double>(i), static_cast<double>(count - i)});
    }
    ASSERT_GT(seed.size(), std::size_t{5} << 19);
    EXPECT_EQ(to_vector(read_points<double>(write("values.txt", seed), sorted)), points);
  }
}

TEST_F(ReadPoints, ErrorsInLargeFilesNameTheirLine) {
  std::string text;
  for (int i = 0; i < 300000; ++i) text += std::to_string(i) + " " + std::to_string(i % 7) + "\n";
  std::string bad = text + "1 nan\n" + text;
  expect_error<double>("late_nan.txt", bad, ":300001: ", "non-finite value \"nan\"");
  expect_error<double>("late_short.txt", text + text + "5\n",
                       ":600001: ", "expected 2 values (x y), found 1");
  expect_error<double>("seed_few.txt", "# c\n600001\n" + text + text,
                       ":2: ", "count says 600001 points but the file holds 1200000 values");
  expect_error<double>("seed_many.txt", "599999\n" + text + text,
                       ":600001: ", "count says 599999 points but the file holds 1200000 values");
  ReadOptions sorted;
  sorted.require_sorted = true;
  EXPECT_EQ(read_points<double>(write("sorted.txt", text), sorted).size(), 300000u);
  expect_error<double>("twice.txt", text + text, ":300001: ", "(0, 0) comes after (299999, 0)", sorted);
  expect_error<double>("twice_seed.txt", "600000\n" + text + text,
                       ":300002: ", "(0, 0) comes after (299999, 0)", sorted);
}

TEST_F(ReadPoints, UnsortedWhereParallelChunksMeetIsFound) {
  // Lines of 10 bytes, 2.5 MiB in all: two chunks (where there are two cores or more), the first
  // ending with line 125001. Each chunk is sorted; the order breaks where they meet.
  constexpr int kLines = 250000;
  std::string text;
  for (int i = 1; i <= kLines; ++i) {
    char line[16];
    std::snprintf(line, sizeof line, "%07d 0\n", i <= 125001 ? i : i - 150000);
    text += line;
  }
  ASSERT_EQ(text.size(), 10u * kLines);
  ReadOptions sorted;
  sorted.require_sorted = true;
  expect_error<double>("meet.txt", text, ":125002: ", "(-24998, 0) comes after (125001, 0)", sorted);
}

// ---------------------------------------------------------------------------------------------
// Byte-order mark

TEST_F(ReadPoints, ByteOrderMarkStartingTextIsSkipped) {
  const std::string bom(kBom);
  EXPECT_EQ(to_vector(read_points<double>(write("bom.txt", bom + "1 2\n3 4\n"))),
            (std::vector<Pd>{{1, 2}, {3, 4}}));
  EXPECT_EQ(to_vector(read_points<double>(write("bom_seed.txt", bom + "2\n1 2\n3 4\n"))),
            (std::vector<Pd>{{1, 2}, {3, 4}}));
  EXPECT_EQ(to_vector(read_points<double>(write("bom_comment.txt", bom + "# made by a spreadsheet\n5 6\n"))),
            (std::vector<Pd>{{5, 6}}));
  EXPECT_EQ(read_points<double>(write("bom_only.txt", bom)).size(), 0u);
  // Line numbers count from the line the mark is on.
  expect_error<double>("bom_line.txt", bom + "1 2\n3 x\n", ":2: ", "not a number: \"x\"");
}

TEST_F(ReadPoints, ByteOrderMarkStartingCsvIsSkipped) {
  const std::string bom(kBom);
  EXPECT_EQ(to_vector(read_points<float>(write("bom.csv", bom + "x,y\r\n1,2\r\n"))),
            (std::vector<Pf>{{1, 2}}));
  // Without a header the mark sits right before the first number.
  EXPECT_EQ(to_vector(read_points<float>(write("bom_data.csv", bom + "1,2\n3,4\n"))),
            (std::vector<Pf>{{1, 2}, {3, 4}}));
  ReadOptions csv;
  csv.format = Format::csv;
  EXPECT_EQ(to_vector(parse_points<float>(bom + "7,8\n", "buffer", csv)), (std::vector<Pf>{{7, 8}}));
}

TEST_F(ReadPoints, ByteOrderMarkAnywhereElseIsAnError) {
  const std::string bom(kBom);
  expect_error<double>("bom_mid.txt", "1 2\n" + bom + "3 4\n", ":2: ",
                       "not a number: \"\\xef\\xbb\\xbf3\" (a byte-order mark may only begin the file)");
  expect_error<double>("bom_twice.txt", bom + bom + "1 2\n",
                       ":1: ", "a byte-order mark may only begin the file");
  expect_error<double>("bom_mid.csv", "1,2\n3," + bom + "4\n", ":2: ", "a byte-order mark may only begin");
  expect_error<double>("bom_count.txt", "1\n" + bom + "3 4\n", ":2: ", "a byte-order mark may only begin");
}

TEST_F(ReadPoints, Utf16IsNamedNotMistakenForNumbers) {
  expect_error<double>("utf16le.txt",
                       std::string("\xFF\xFE"
                                   "1\0 \0"
                                   "2\0",
                                   8),
                       ":1: ", "UTF-16 text (byte-order mark FF FE) is not supported");
  expect_error<double>("utf16be.csv",
                       std::string("\xFE\xFF\0"
                                   "1\0,\0"
                                   "2",
                                   8),
                       ":1: ", "UTF-16 text (byte-order mark FE FF) is not supported");
}

TEST_F(ReadPoints, ByteOrderMarkBeforeBinaryIsData) {
  // Binary is raw: three more bytes make a file that is not a whole number of points.
  const std::string bytes = std::string(kBom) + binary_bytes<double>({{1, 2}});
  expect_error<double>("bom.f64", bytes, ": byte 16: ", "truncated binary: 19 bytes");
  // And where the sizes happen to fit, the mark's bytes are part of the first value.
  const float y = 2;
  std::string f32 = std::string(kBom) + "\x3f";
  f32.append(reinterpret_cast<const char*>(&y), sizeof y);
  const auto set = read_points<float>(write("bom.f32", f32));
  ASSERT_EQ(set.size(), 1u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(set.points()[0].x), 0x3fbfbbefu);
  EXPECT_EQ(set.points()[0].y, 2.0f);
}

// Large enough for the chunked parser (see LargeFilesParseTheSameInEveryFormat): the mark is
// skipped once, before the preamble, and an error after it still names its line.
TEST_F(ReadPoints, ByteOrderMarkInLargeFiles) {
  const auto points = random_points<double>(rng_, 150000);
  const std::string text = format_points<double>(points);
  const std::string bom(kBom);
  EXPECT_TRUE(same_bits(to_vector(read_points<double>(write("big.txt", bom + text))), points));
  EXPECT_TRUE(
      same_bits(to_vector(read_points<double>(write("big_seed.txt", bom + "150000\n" + text))), points));
  std::string csv = "x,y\n" + text;
  std::replace(csv.begin(), csv.end(), ' ', ',');
  EXPECT_TRUE(same_bits(to_vector(read_points<double>(write("big.csv", bom + csv))), points));
  expect_error<double>("big_mid.txt", bom + text + bom + "1 2\n" + text,
                       ":150001: ", "a byte-order mark may only begin the file");
}

// ---------------------------------------------------------------------------------------------
// CSV

TEST_F(ReadPoints, CsvWithHeader) {
  const auto set = read_points<double>(write("h.csv", "x,y\r\n1,2\r\n 3 , -4.5 \r\n\r\n5,6"));
  EXPECT_EQ(to_vector(set), (std::vector<Pd>{{1, 2}, {3, -4.5}, {5, 6}}));
  EXPECT_EQ(read_points<double>(write("quoted.csv", "\"x\",\"y\"\n1,2\n")).size(), 1u);
  EXPECT_EQ(read_points<double>(write("only_header.csv", "x,y\n")).size(), 0u);
}

TEST_F(ReadPoints, CsvWithoutHeader) {
  const auto set = read_points<float>(write("n.csv", "# comment\n1,2\n+3,4e1 # trailing\n\t5 ,\t-6\t\r\n"));
  EXPECT_EQ(to_vector(set), (std::vector<Pf>{{1, 2}, {3, 40}, {5, -6}}));
  expect_error<float>("blank_fields.csv", "1,2\n  ,\n", ":2: ", "not a number: \"\"");
}

TEST_F(ReadPoints, CsvWithoutSelectionNeedsTwoColumns) {
  expect_error<double>("extra.csv", "x,y\n1,2\n1,2,3\n", ":3: ", "expected 2 fields (x,y), found 3");
  expect_error<double>("one.csv", "1,2\n\n5\n", ":3: ", "expected 2 fields (x,y), found 1");
  expect_error<double>("header.csv", "# c\nx\n1,2\n", ":2: ", "header must name 2 columns (x,y), found 1");
  // A first row of more fields says how to pick two.
  expect_error<double>("three.csv", "# c\n1,2,3\n",
                       ":2: ", "expected 2 fields (x,y), found 3; --columns X,Y picks two of them");
  // Only the first line may be a header; a later non-number is a bad value.
  expect_error<double>("late.csv", "x,y\n1,2\nx,y\n", ":3: ", "not a number: \"x\"");
  expect_error<double>("empty_field.csv", "1,\n", ":1: ", "not a number: \"\"");
  expect_error<double>("spaced.csv", "1 2,3\n", ":1: ", "not a number: \"1 2\"");
  expect_error<double>("spaced2.csv", "1,2\nab c , 3\n", ":2: ", "not a number: \"ab c\"");
  expect_error<double>("trailing.csv", "1,2,\n", ":1: ", "expected 2 fields (x,y), found 3");
  expect_error<double>("comment.csv", "1#,2\n", ":1: ", "expected 2 fields (x,y), found 1");
  expect_error<float>("nan.csv", "1,2\n3 , nan # c\n", ":2: ", "non-finite value \"nan\"");
  // A first line with a number in it is data, not a header: a typo must not silently drop a point.
  expect_error<double>("typo.csv", "1,2o\n3,4\n", ":1: ", "not a number: \"2o\"");
}

// ---------------------------------------------------------------------------------------------
// Columns

ReadOptions selecting(std::string x, std::string y, Format format = Format::automatic) {
  ReadOptions options;
  options.format = format;
  options.columns = {std::move(x), std::move(y)};
  return options;
}

TEST(ColumnSelection, ParsedFromXCommaY) {
  EXPECT_EQ(parse_column_selection("lon,lat"), (ColumnSelection{"lon", "lat"}));
  EXPECT_EQ(parse_column_selection(" 2 , 0 "), (ColumnSelection{"2", "0"}));
  for (const char* bad : {"", "lon", "lon,", ",lat", " , ", "a,b,c"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(parse_column_selection(bad), std::invalid_argument);
  }
}

TEST_F(ReadPoints, CsvHeaderOfMoreColumnsNamingXAndYIsReadByThem) {
  // Names are matched ignoring case, blanks and quotes; the other columns may hold anything.
  const auto set =
      read_points<double>(write("xy.csv", "id, Y ,label,\"X\"\n1,4,a,3\n2,6,\"b, c\",5\n3,8,,7\n"));
  EXPECT_EQ(to_vector(set), (std::vector<Pd>{{3, 4}, {5, 6}, {7, 8}}));
  // Behind a byte-order mark the first name is still "id", and x still found.
  const auto bom = read_points<double>(write("bom_xy.csv", std::string(kBom) + "x,id,y\n1,abc,2\n"));
  EXPECT_EQ(to_vector(bom), (std::vector<Pd>{{1, 2}}));
}

TEST_F(ReadPoints, CsvHeaderOfMoreColumnsWithoutXAndYListsThem) {
  expect_error<double>("lonlat.csv", "# c\nlon,lat,\"alt, m\"\n1,2,3\n", ":2: ",
                       "header names 3 columns, not one x and one y among them: 0 \"lon\", 1 \"lat\", "
                       "2 \"alt, m\"; --columns X,Y picks two (by name or 0-based index)");
  expect_error<double>("twice.csv", "x,X,y\n1,2,3\n", ":1: ", "not one x and one y among them");
}

TEST_F(ReadPoints, ColumnsSelectedByName) {
  const std::string csv =
      "id,name,lat,lon\n"
      "1,\"Smith, J.\",52.5,13.25\n"
      "2,  \"said \"\"hi\"\", #2\"  , 48.5 , 2.25 # a comment\n";
  const std::vector<Pd> expected = {{13.25, 52.5}, {2.25, 48.5}};
  EXPECT_EQ(to_vector(read_points<double>(write("named.csv", csv), selecting("lon", "lat"))), expected);
  EXPECT_EQ(to_vector(read_points<double>(write("named.csv", csv), selecting(" LON", "Lat "))), expected);
  // A header name holding a quote is named without the doubling.
  EXPECT_EQ(to_vector(read_points<double>(write("quote.csv", "\"a \"\"b\"\"\",c\n1,2\n"),
                                          selecting("a \"b\"", "c"))),
            (std::vector<Pd>{{1, 2}}));
}

TEST_F(ReadPoints, ColumnsSelectedByIndex) {
  const std::vector<Pd> expected = {{3, 1}, {6, 4}};
  EXPECT_EQ(to_vector(read_points<double>(write("noheader.csv", "1,2,3\n4,abc,6\n"), selecting("2", "0"))),
            expected);
  EXPECT_EQ(to_vector(read_points<double>(write("header.csv", "a,b,c\n1,2,3\n4,,6\n"), selecting("2", "0"))),
            expected);
  // Names and indices mix; the same column may be both coordinates.
  EXPECT_EQ(to_vector(read_points<double>(write("mixed.csv", "a,b,c\n1,2,3\n"), selecting("c", "0"))),
            (std::vector<Pd>{{3, 1}}));
  EXPECT_EQ(to_vector(read_points<double>(write("same.csv", "1,2\n"), selecting("1", "1"))),
            (std::vector<Pd>{{2, 2}}));
  // A plain two-column file may be read the other way round.
  EXPECT_EQ(to_vector(read_points<double>(write("swap.csv", "x,y\n1,2\n"), selecting("y", "x"))),
            (std::vector<Pd>{{2, 1}}));
}

TEST_F(ReadPoints, QuotedFieldsInCsv) {
  // Selected fields may be quoted numbers, in a plain two-column file too; a first line of quoted
  // numbers is data, not a header.
  EXPECT_EQ(to_vector(read_points<double>(write("q.csv", "\"1.5\", \" -2 \"\n3,\"4\"\n"))),
            (std::vector<Pd>{{1.5, -2}, {3, 4}}));
  EXPECT_EQ(to_vector(read_points<double>(write("q3.csv", "\"a,b\",\"1\",2\n,3,4\n"), selecting("1", "2"))),
            (std::vector<Pd>{{1, 2}, {3, 4}}));
  // A quoted comma does not make a field.
  expect_error<double>("q2.csv", "x,y\n\"1,5\",2\n", ":2: ", "not a number: \"1,5\"");
  expect_error<double>("open.csv", "x,y,z\n1,2,\"no end\n3,4,5\n",
                       ":2: ", "quoted field \"\\\"no end\" does not end on its line");
  expect_error<double>("after.csv", "a,b,c\n1,\"x\"y,3\n",
                       ":2: ", "text after the quoted field \"\\\"x\\\"\": \"y,3\"", selecting("a", "c"));
  expect_error<double>("quoted_bad.csv", "a,b,c\n1,2,\"3x\"\n", ":2: ", "not a number: \"3x\"",
                       selecting("a", "c"));
}

TEST_F(ReadPoints, UnknownColumnsAreNamedWithTheHeader) {
  expect_error<double>("unknown.csv", "# c\nx,y,z\n1,2,3\n",
                       ":2: ", "no column named \"lon\" in the header: 0 \"x\", 1 \"y\", 2 \"z\"",
                       selecting("lon", "y"));
  expect_error<double>("range.csv", "a,b,c\n1,2,3\n", ":1: ",
                       "column 3 is out of range: the header has 3 columns: 0 \"a\", 1 \"b\", 2 \"c\"",
                       selecting("0", "3"));
  expect_error<double>("range2.csv", "\n1,2,3\n",
                       ":2: ", "column 7 is out of range: the line has 3 fields (0-based indices 0 to 2)",
                       selecting("7", "0"));
  expect_error<double>("noheader.csv", "1,2,3\n", ":1: ",
                       "column \"lon\" is not a 0-based index, and there is no header to find the name in",
                       selecting("0", "lon"));
  expect_error<double>(
      "ambiguous.csv", "a,A,b\n1,2,3\n",
      ":1: ", "2 columns of the header are named \"a\": 0 \"a\", 1 \"A\", 2 \"b\"; select one by its",
      selecting("a", "b"));
  expect_error<double>("bomheader.csv", "# c\n" + std::string(kBom) + "a,b\n1,2\n",
                       ":2: ", "byte-order mark in the header", selecting("a", "b"));
}

TEST_F(ReadPoints, RowsOfAnotherWidthAreNamed) {
  const ReadOptions lon_lat = selecting("lon", "lat");
  expect_error<double>("short.csv", "lon,lat,name\n1,2,a\n\n# c\n3,4\n",
                       ":5: ", "expected 3 fields (as many as the header on line 1), found 2", lon_lat);
  expect_error<double>("long.csv", "lon,lat,name\n1,2,a\n3,4,b,c\n",
                       ":3: ", "expected 3 fields (as many as the header on line 1), found 4", lon_lat);
  expect_error<double>("ragged.csv", "# c\n1,2,3\n4,5,6,7\n",
                       ":3: ", "expected 3 fields (as many as line 2), found 4", selecting("0", "1"));
  // Auto-picked x and y set the width the same way.
  expect_error<double>("auto.csv", "id,x,y\n1,2,3\n1,2\n",
                       ":3: ", "expected 3 fields (as many as the header on line 1), found 2");
  // Selected fields must be numbers; the others need not be.
  expect_error<double>("bad.csv", "lon,lat,name\n1,2,a\n3,?,b\n", ":3: ", "not a number: \"?\"", lon_lat);
  expect_error<double>("empty.csv", "lon,lat,name\n1,,a\n", ":2: ", "not a number: \"\"", lon_lat);
  expect_error<float>("range.csv", "lon,lat,name\n1,1e39,a\n",
                      ":2: ", "value \"1e39\" is out of range for float", lon_lat);
}

TEST_F(ReadPoints, SelectedColumnsKeepTheSortedPromise) {
  ReadOptions sorted = selecting("b", "a");
  sorted.require_sorted = true;
  EXPECT_EQ(read_points<double>(write("sorted.csv", "a,b,c\n0,1,x\n5,2,x\n"), sorted).size(), 2u);
  expect_error<double>("unsorted.csv", "a,b,c\n0,1,x\n5,0,x\n", ":3: ", "(0, 5) comes after (1, 0)", sorted);
}

TEST_F(ReadPoints, TextColumnsSelectedByIndex) {
  EXPECT_EQ(to_vector(read_points<double>(write("xyz.txt", "# x y z\n1 2 3\n\n4\tabc 6 # c\n"),
                                          selecting("2", "0"))),
            (std::vector<Pd>{{3, 1}, {6, 4}}));
  expect_error<double>("width.txt", "1 2 3\n4 5\n", ":2: ", "expected 3 values (as many as line 1), found 2",
                       selecting("0", "1"));
  expect_error<double>("range.txt", "1 2 3\n",
                       ":1: ", "column 3 is out of range: the line has 3 values (0-based indices 0 to 2)",
                       selecting("3", "1"));
  expect_error<double>("bad.txt", "1 2 3\n4 5 x\n", ":2: ", "not a number: \"x\"", selecting("0", "2"));
  expect_error<double>("seed.txt", "# c\n2\n1 2\n3 4\n",
                       ":2: ", "a column selection needs lines of values, but this is the seed's format",
                       selecting("0", "1"));
  // Text has no header: names select nothing.
  expect_error<double>(
      "named.txt", "1 2 3\n", ": ",
      "text input has no header to find column \"x\" in: select its columns by 0-based index",
      selecting("x", "1"));
  // Without a selection, a first line of more values says how to pick two.
  expect_error<double>("xyz.txt", "1 2 3\n",
                       ":1: ", "expected 2 values (x y), found 3; --columns X,Y picks two of them");
}

TEST_F(ReadPoints, ColumnSelectionIsForTextAndCsvOnly) {
  expect_error<double>("p.f64", binary_bytes<double>({{1, 2}}), ": ",
                       "a column selection (--columns) applies to text and csv, not to binary f64 input",
                       selecting("0", "1"));
  ReadOptions half;
  half.columns.x = "lon";
  EXPECT_THROW(read_points<double>(write("half.csv", "lon,lat\n1,2\n"), half), std::invalid_argument);
  EXPECT_THROW(parse_points<double>("lon,lat\n1,2\n", "half.csv", half), std::invalid_argument);
}

// Large enough for the chunked parser: selected columns give the points the sequential parser does
// (those of the plain two-column file), and an error in a late row still names its line.
TEST_F(ReadPoints, ColumnsSelectedInLargeFiles) {
  const auto points = random_points<double>(rng_, 100000);
  std::string csv = "id,\"label, quoted\",Y,note,X\n";
  std::string text;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string x = format_points<double>(std::vector<Pd>{{points[i].x, 0}});
    const std::string y = format_points<double>(std::vector<Pd>{{points[i].y, 0}});
    const std::string x_value = x.substr(0, x.find(' '));
    const std::string y_value = y.substr(0, y.find(' '));
    csv += std::to_string(i) + ",\"p, " + std::to_string(i) + "\"," + y_value + ",," + x_value + "\n";
    text += std::to_string(i) + " " + x_value + " " + y_value + "\n";
  }
  ASSERT_GT(csv.size(), std::size_t{4} << 20);
  EXPECT_TRUE(same_bits(to_vector(read_points<double>(write("big.csv", csv), selecting("X", "Y"))), points));
  EXPECT_TRUE(same_bits(to_vector(read_points<double>(write("big.csv", csv), selecting("4", "2"))), points));
  EXPECT_TRUE(same_bits(to_vector(read_points<double>(write("big_auto.csv", csv))), points));
  EXPECT_TRUE(same_bits(to_vector(read_points<double>(write("big.txt", text), selecting("1", "2"))), points));
  // Row 90001 (line 90002, after the header) is short.
  std::string short_row = csv;
  std::size_t at = 0;
  for (int line = 0; line < 90001; ++line) at = short_row.find('\n', at) + 1;
  short_row.insert(at, "1,2\n");
  expect_error<double>("big_short.csv", short_row,
                       ":90002: ", "expected 5 fields (as many as the header on line 1), found 2",
                       selecting("X", "Y"));
}

// ---------------------------------------------------------------------------------------------
// Grouped csv (--group-by): rows parsed in chunks, each on a thread of its own, read as one thread
// reads them (the same points, group numbers, ids and messages), wherever the chunks meet.

// Grouped csv as the test wrote it, with what the reader must make of it: the groups numbered in the
// order of their first rows.
struct GroupedCsv {
  std::string text;
  std::vector<Pd> points;
  std::vector<std::int64_t> group_ids;
  std::vector<std::string> group_names;

  void add(const std::string& id, const std::string& written_id, Pd point) {
    const auto found = std::find(group_names.begin(), group_names.end(), id);
    group_ids.push_back(found - group_names.begin());
    if (found == group_names.end()) group_names.push_back(id);
    points.push_back(point);
    text += std::to_string(static_cast<long long>(point.x)) + "," + written_id + "," +
            std::to_string(static_cast<long long>(point.y)) + "\n";
  }
};

// `rows` rows "x,track,y" in runs of one id (which the reader numbers without hashing), the ids
// drawn from a pool that grows down the file: each chunk brings ids of its own and ids that earlier
// chunks had, and the first ids come back to the end. Ids are written in every form that reads as
// the same id (blanks around, quotes) and in forms that read as others: `q""1` unquoted is not
// `"q""1"`, which is q"1.
GroupedCsv grouped_csv(std::mt19937_64& rng, int rows) {
  GroupedCsv csv;
  csv.text = "# tracks\nx,track,y\n";
  std::string id = "t0";
  for (int row = 0; row < rows; ++row) {
    if (rng() % 6 == 0) {
      char track[32];
      std::snprintf(track, sizeof track, "t%d", static_cast<int>(rng() % (1 + 30 * row / rows)));
      id = std::string(track);
    }
    const Pd point{static_cast<double>(row), static_cast<double>(static_cast<int>(rng() % 1000) - 500)};
    switch (rng() % 16) {
      case 0: csv.add(id, "\"" + id + "\"", point); break;
      case 1: csv.add(id, " " + id + "\t", point); break;
      case 2: csv.add(id, "\" " + id + " \"", point); break;
      case 3: csv.add("q\"" + id, "\"q\"\"" + id + "\"", point); break;
      case 4: csv.add("q\"\"" + id, "q\"\"" + id, point); break;
      case 5: csv.add("c," + id, "\"c," + id + "\"", point); break;
      case 6: csv.text += row % 2 == 0 ? "\n" : "  # a comment\n"; [[fallthrough]];
      default: csv.add(id, id, point);
    }
  }
  return csv;
}

template <class T>
void expect_grouped(const GroupedPoints<T>& read, const GroupedCsv& csv) {
  ASSERT_EQ(read.points.size(), csv.points.size());
  for (std::size_t i = 0; i < csv.points.size(); ++i) {
    ASSERT_EQ(read.points[i], (Point2<T>{static_cast<T>(csv.points[i].x), static_cast<T>(csv.points[i].y)}))
        << "row " << i;
  }
  EXPECT_EQ(read.group_ids, csv.group_ids);
  EXPECT_EQ(read.group_names, csv.group_names);
  EXPECT_EQ(read.group_column, "track");
}

TEST_F(ReadPoints, GroupedRowsInChunksAreNumberedAsInOne) {
  const GroupedCsv csv = grouped_csv(rng_, 4000);
  for (const std::size_t chunks : {0, 1, 2, 3, 7, 16, 61, 256}) {
    SCOPED_TRACE(std::to_string(chunks) + " chunks");
    expect_grouped(detail::parse_grouped_points_in_chunks<double>(csv.text, "g.csv", "track", {}, chunks),
                   csv);
    expect_grouped(detail::parse_grouped_points_in_chunks<float>(csv.text, "g.csv", "1", {}, chunks), csv);
  }
}

// The grouped reader's id table against std::unordered_map: ids of every size about the 8 bytes a
// slot holds, ids that differ only in a trailing zero byte (the slot's padding) or beyond byte 8,
// the empty id, and enough of them to grow the table many times, met in a shuffled order with
// repeats.
TEST_F(ReadPoints, IdTableNumbersIdsInTheOrderOfFirstAppearance) {
  // First, while the table is small: ids whose slot words are equal and only their sizes differ.
  std::vector<std::string> pool{"12345678", "123456789", "12345678X", "12345679X"};
  for (std::size_t zeros = 0; zeros <= 8; ++zeros) {
    pool.push_back(std::string(zeros, '\0'));
    if (zeros < 8) pool.push_back("a" + std::string(zeros, '\0'));
  }
  std::vector<std::string> rows(pool);
  const std::string alphabet("ab\0z9", 5);
  for (int i = 0; i < 30000; ++i) {
    std::string id(rng_() % 20, ' ');
    for (char& c : id) c = alphabet[rng_() % alphabet.size()];
    pool.push_back(id);
  }
  for (int i = 0; i < 200000; ++i) rows.push_back(pool[rng_() % pool.size()]);
  for (const std::string& id : pool) rows.push_back(id);  // every id at least once
  std::unordered_map<std::string, std::uint64_t> expected;
  std::vector<std::string_view> expected_order;
  detail::IdTable table;
  for (const std::string& id : rows) {
    const auto [it, fresh] = expected.try_emplace(id, expected.size());
    if (fresh) expected_order.push_back(id);
    ASSERT_EQ(table.intern(id), it->second) << "id of " << id.size() << " bytes";
  }
  EXPECT_EQ(table.ids(), expected_order);
}

TEST_F(ReadPoints, GroupedIdsSeenInEarlierChunksKeepTheirNumbers) {
  // Every chunk count up to one a row: each cut falls between every two rows in some run, so that
  // an id a later chunk sees first is one an earlier chunk had (b, c), or new to the file (d, e), and
  // group a spreads over every chunk.
  GroupedCsv csv;
  csv.text = "x,track,y\n";
  int x = 0;
  for (const char* id : {"a", "b", "a", "c", "b", "d", "a", "c", "e", "b", "a"})
    csv.add(id, id, {x++ * 1.0, 0});
  for (std::size_t chunks = 1; chunks <= csv.points.size() + 2; ++chunks) {
    SCOPED_TRACE(std::to_string(chunks) + " chunks");
    expect_grouped(detail::parse_grouped_points_in_chunks<double>(csv.text, "g.csv", "track", {}, chunks),
                   csv);
  }
  EXPECT_EQ(csv.group_ids, (std::vector<std::int64_t>{0, 1, 0, 2, 1, 3, 0, 2, 4, 1, 0}));
  // A header and nothing else, and no header at all: no rows, in any number of chunks.
  for (const std::size_t chunks : {1, 4}) {
    const auto header_only =
        detail::parse_grouped_points_in_chunks<double>("x,id,y\n", "h.csv", "id", {}, chunks);
    EXPECT_TRUE(header_only.points.empty() && header_only.group_names.empty());
    EXPECT_EQ(header_only.group_column, "id");
    EXPECT_TRUE(
        detail::parse_grouped_points_in_chunks<double>("# c\n\n", "e.csv", "id", {}, chunks).points.empty());
  }
}

// The message of reading `text` on one thread, which every chunk count must give.
std::string grouped_error(std::string_view text, std::size_t chunks) {
  try {
    detail::parse_grouped_points_in_chunks<double>(text, "g.csv", "track", {}, chunks);
  } catch (const input_error& error) {
    return error.what();
  }
  return "no error";
}

TEST_F(ReadPoints, GroupedErrorsInChunksNameTheirLine) {
  const GroupedCsv csv = grouped_csv(rng_, 600);
  // Bad rows after line 300 of a file of 600 rows or more (blank and comment lines among them).
  std::size_t at = 0;
  for (int line = 0; line < 300; ++line) at = csv.text.find('\n', at) + 1;
  const struct {
    std::string row;
    std::string message;
  } bad_rows[] = {
      {"1,t1,2o\n", "g.csv:301: not a number: \"2o\""},
      {"1,t1,nan\n", "g.csv:301: non-finite value \"nan\""},
      {"1,t1,1e999\n", "g.csv:301: value \"1e999\" is out of range for double"},
      {"1,t1\n", "g.csv:301: expected 3 fields (as many as the header on line 2), found 2"},
      {"1,t1,2,\n", "g.csv:301: expected 3 fields (as many as the header on line 2), found 4"},
      {"1,\"t\n1\",2\n", "g.csv:301: quoted field \"\\\"t\" does not end on its line"},
      {"1,\"t1\"x,2\n", "g.csv:301: text after the quoted field \"\\\"t1\\\"\": \"x,2\""},
  };
  for (const auto& [row, message] : bad_rows) {
    const std::string text = csv.text.substr(0, at) + row + csv.text.substr(at);
    SCOPED_TRACE(row);
    EXPECT_EQ(grouped_error(text, 1), message);
    for (const std::size_t chunks : {2, 3, 5, 17, 64})
      EXPECT_EQ(grouped_error(text, chunks), message) << chunks;
  }
  // The first of several bad rows, wherever the chunks fall.
  const std::string two_bad = csv.text.substr(0, at) + "1,t1,x\n" + csv.text.substr(at) + "1,t1,y\n";
  for (const std::size_t chunks : {1, 2, 9})
    EXPECT_EQ(grouped_error(two_bad, chunks), "g.csv:301: not a number: \"x\"");
}

TEST_F(ReadPoints, LargeGroupedFilesParseAsOneThreadDoes) {
  // About 3 MiB: two chunks or more where there are two cores or more.
  const GroupedCsv csv = grouped_csv(rng_, 200000);
  ASSERT_GT(csv.text.size(), std::size_t{5} << 19);
  const std::string file = write("big.csv", csv.text);
  expect_grouped(read_grouped_points<double>(file, "track"), csv);
  expect_grouped(parse_grouped_points<float>(csv.text, file, "track"), csv);
  // A bad row deep inside: the file and its line.
  std::size_t at = 0;
  for (int line = 0; line < 120000; ++line) at = csv.text.find('\n', at) + 1;
  const std::string bad = write("big_bad.csv", csv.text.substr(0, at) + "1,t1,-\n" + csv.text.substr(at));
  try {
    read_grouped_points<double>(bad, "track");
    ADD_FAILURE() << "no error";
  } catch (const input_error& error) {
    EXPECT_EQ(std::string(error.what()), bad + ":120001: not a number: \"-\"");
  }
}

// ---------------------------------------------------------------------------------------------
// Binary

TEST_F(ReadPoints, F64ReadAsDoubleIsMappedAndBitExact) {
  const auto points = random_points<double>(rng_, 5000);
  const auto set = read_points<double>(write("p.f64", binary_bytes(points)));
  EXPECT_TRUE(set.mapped());
  EXPECT_TRUE(same_bits(to_vector(set), points));
}

TEST_F(ReadPoints, F32ReadAsFloatIsMappedAndBitExact) {
  const auto points = random_points<float>(rng_, 5000);
  const auto set = read_points<float>(write("p.f32", binary_bytes(points)));
  EXPECT_TRUE(set.mapped());
  EXPECT_TRUE(same_bits(to_vector(set), points));
}

TEST_F(ReadPoints, F32ReadAsDoubleIsWidenedExactly) {
  const auto points = random_points<float>(rng_, 3000);
  const auto set = read_points<double>(write("p.f32", binary_bytes(points)));
  ASSERT_EQ(set.size(), points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(set.points()[i].x),
              std::bit_cast<std::uint64_t>(double{points[i].x}));
    EXPECT_EQ(std::bit_cast<std::uint64_t>(set.points()[i].y),
              std::bit_cast<std::uint64_t>(double{points[i].y}));
  }
}

TEST_F(ReadPoints, F64ReadAsFloatIsRoundedWhenInRange) {
  const std::vector<Pd> points = {{0.1, -0.0}, {1e30, -1e-40}, {3.4028234663852886e38, 1.0 / 3}};
  const auto set = read_points<float>(write("p.f64", binary_bytes(points)));
  ASSERT_EQ(set.size(), points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(std::bit_cast<std::uint32_t>(set.points()[i].x),
              std::bit_cast<std::uint32_t>(static_cast<float>(points[i].x)));
    EXPECT_EQ(std::bit_cast<std::uint32_t>(set.points()[i].y),
              std::bit_cast<std::uint32_t>(static_cast<float>(points[i].y)));
  }
}

TEST_F(ReadPoints, F64OutOfRangeForFloatIsRejected) {
  expect_error<float>("big.f64", binary_bytes<double>({{0, 0}, {1, 1e300}}),
                      ": byte 24: ", "value 1e+300 is out of range for float");
  expect_error<float>("tiny.f64", binary_bytes<double>({{0, 0}, {-1e-300, 1}}),
                      ": byte 16: ", "value -1e-300 is out of range for float");
}

TEST_F(ReadPoints, F64ToFloatRangeEndsWhereRoundingDoes) {
  // Round to nearest, ties to even: FLT_MAX + half its ulp (2^103) rounds up to infinity, and half
  // the smallest subnormal (2^-150) rounds down to zero; the doubles just inside round to FLT_MAX
  // and to the smallest subnormal.
  const double overflow = static_cast<double>(std::numeric_limits<float>::max()) + 0x1p103;
  const double underflow = 0x1p-150;
  const double largest = std::nextafter(overflow, 0.0);
  const double smallest = std::nextafter(underflow, 1.0);
  const auto set = read_points<float>(write("edges.f64", binary_bytes<double>({{-largest, smallest}})));
  EXPECT_EQ(
      to_vector(set),
      (std::vector<Pf>{{-std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min()}}));
  expect_error<float>("over.f64", binary_bytes<double>({{0, 0}, {0, -overflow}}),
                      ": byte 24: ", "is out of range for float");
  expect_error<float>("under.f64", binary_bytes<double>({{0, 0}, {underflow, 0}}),
                      ": byte 16: ", "is out of range for float");
}

TEST_F(ReadPoints, TruncatedBinaryIsRejected) {
  std::string f64 = binary_bytes<double>({{1, 2}, {3, 4}});
  f64.resize(f64.size() - 4);
  expect_error<double>("t.f64", f64,
                       ": byte 16: ", "truncated binary: 28 bytes is not a whole number of points");
  expect_error<float>("t2.f64", f64, ": byte 16: ", "truncated binary: 28 bytes");
  expect_error<double>("t.f32", binary_bytes<float>({{1, 2}}) + "x",
                       ": byte 8: ", "truncated binary: 9 bytes is not a whole number of points");
  expect_error<double>("short.f64", "1234567", ": byte 0: ", "truncated binary: 7 bytes");
}

TEST_F(ReadPoints, NonFiniteBinaryValuesAreNamedByOffset) {
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // Across the validator's blocks, so that both the fast scan and the exact rescan are exercised.
  for (const std::size_t bad :
       {std::size_t{0}, std::size_t{1}, std::size_t{1023}, std::size_t{1024}, std::size_t{4999}}) {
    SCOPED_TRACE("bad point " + std::to_string(bad));
    std::vector<Pd> points(5000, Pd{1, 1});
    points[bad].y = kNan;
    expect_error<double>("nan.f64", binary_bytes(points), ": byte " + std::to_string(16 * bad + 8) + ": ",
                         "non-finite value nan");
    expect_error<float>("nan_as_float.f64", binary_bytes(points),
                        ": byte " + std::to_string(16 * bad + 8) + ": ", "non-finite value nan");
    points[bad].x = -kInf;
    expect_error<double>("inf.f64", binary_bytes(points), ": byte " + std::to_string(16 * bad) + ": ",
                         "non-finite value -inf");
  }
  std::vector<Pf> floats(3000, Pf{0, 0});
  floats[2500].x = std::numeric_limits<float>::infinity();
  expect_error<float>("inf.f32", binary_bytes(floats), ": byte 20000: ", "non-finite value inf");
  expect_error<double>("inf_as_double.f32", binary_bytes(floats), ": byte 20000: ", "non-finite value inf");
}

TEST_F(ReadPoints, UnsortedBinaryIsNamedByOffset) {
  ReadOptions sorted;
  sorted.require_sorted = true;
  for (const std::size_t bad : {std::size_t{1}, std::size_t{1023}, std::size_t{1024}, std::size_t{2999}}) {
    SCOPED_TRACE("bad point " + std::to_string(bad));
    std::vector<Pd> points;
    for (std::size_t i = 0; i < 3000; ++i) {
      points.push_back({static_cast<double>(i / 2), static_cast<double>(i % 2)});
    }
    // Below its predecessor: by x for odd indices, by y (equal x) for even ones.
    const auto x = static_cast<long long>(bad / 2) - 1;
    points[bad] = {static_cast<double>(x), -1};
    // Built by appending: GCC 12 warns falsely (-Wrestrict) on "literal" + std::to_string(...).
    std::string message = "(";
    message += std::to_string(x);
    message += ", -1) comes after";
    expect_error<double>("u.f64", binary_bytes(points), ": byte " + std::to_string(16 * bad) + ": ", message,
                         sorted);
    expect_error<float>("u_as_float.f64", binary_bytes(points), ": byte " + std::to_string(16 * bad) + ": ",
                        message, sorted);
    EXPECT_EQ(read_points<double>(write("free.f64", binary_bytes(points))).size(), points.size());
  }
}

TEST(ParsePoints, NamesTheBufferInMessages) {
  try {
    parse_points<double>("1 2\n3\n", "-");
    ADD_FAILURE() << "no error";
  } catch (const input_error& error) {
    EXPECT_EQ(std::string(error.what()), "<stdin>:2: expected 2 values (x y), found 1");
  }
  ReadOptions csv;
  csv.format = Format::csv;
  EXPECT_EQ(parse_points<float>("x,y\n1,2\n", "anything", csv).size(), 1u);
  EXPECT_THROW(parse_points<float>("1,2\n", "guessed.txt"), input_error);  // text by its name
}

TEST_F(ReadPoints, ParsingAnUnalignedBufferCopies) {
  const auto points = random_points<double>(rng_, 100);
  const std::string bytes = "x" + binary_bytes(points);
  const auto set = parse_points<double>(std::string_view(bytes).substr(1), "buffer.f64");
  EXPECT_FALSE(set.mapped());
  EXPECT_TRUE(same_bits(to_vector(set), points));
}

// ---------------------------------------------------------------------------------------------
// Binary input in slices: files of a few MiB are validated (and converted) on several threads, one
// contiguous slice each; what they report must be what one thread reading in file order would.

// As in binary_points.cpp: the least a slice holds (so a file needs twice this to be split), and the
// validation block, which slices start on.
constexpr std::size_t kMinSliceBytes = std::size_t{2} << 20;
constexpr std::size_t kValidationBlock = 1024;

std::size_t cores() {
  return std::max(1u, std::thread::hardware_concurrency());
}

TEST(BinarySlices, SmallInputIsOneSlice) {
  using detail::binary_slice_bounds;
  EXPECT_EQ(binary_slice_bounds(0, 0), (std::vector<std::size_t>{0, 0}));
  EXPECT_EQ(binary_slice_bounds(1000, 16000), (std::vector<std::size_t>{0, 1000}));
  const std::size_t n = (2 * kMinSliceBytes - 1) / 16;
  EXPECT_EQ(binary_slice_bounds(n, 16 * n), (std::vector<std::size_t>{0, n}));
}

TEST(BinarySlices, LargeInputIsSplitOneSliceACore) {
  // If this fails, the threshold moved: the tests below must still make files that are split.
  for (const std::size_t record : {std::size_t{8}, std::size_t{16}}) {
    for (const std::size_t worth : {std::size_t{2}, std::size_t{3}, std::size_t{7}, std::size_t{64}}) {
      const std::size_t n = (worth * kMinSliceBytes) / record + 77;
      SCOPED_TRACE(std::to_string(n) + " points of " + std::to_string(record) + " bytes");
      const auto bounds = detail::binary_slice_bounds(n, n * record);
      ASSERT_EQ(bounds.size(), std::min(worth, cores()) + 1);
      EXPECT_EQ(bounds.front(), 0u);
      EXPECT_EQ(bounds.back(), n);
      const std::size_t slices = bounds.size() - 1;
      for (std::size_t s = 0; s < slices; ++s) {
        EXPECT_EQ(bounds[s] % kValidationBlock, 0u);
        // Even, but for whole blocks.
        EXPECT_LE(bounds[s + 1] - bounds[s], n / slices + 2 * kValidationBlock);
        EXPECT_GE(bounds[s + 1] - bounds[s], n / slices - kValidationBlock);
      }
    }
  }
}

class BinarySlicesTest : public IoTest {
 protected:
  // A problem the tests place: a bad value or a point out of order, and what it must be reported as.
  enum class Kind { nan, infinity, huge, tiny, unsorted };

  template <class F>
  static std::string place(std::vector<Point2<F>>& points, std::size_t i, Kind kind, std::uint64_t& offset) {
    constexpr std::uint64_t record = 2 * sizeof(F);
    switch (kind) {
      case Kind::nan:
        points[i].y = std::numeric_limits<F>::quiet_NaN();
        offset = i * record + sizeof(F);
        return "non-finite value nan";
      case Kind::infinity:
        points[i].x = -std::numeric_limits<F>::infinity();
        offset = i * record;
        return "non-finite value -inf";
      case Kind::huge:  // out of range for float (double files only)
        points[i].y = static_cast<F>(1e300);
        offset = i * record + sizeof(F);
        return "value 1e+300 is out of range for float";
      case Kind::tiny:
        points[i].x = static_cast<F>(-1e-300);
        offset = i * record;
        return "value -1e-300 is out of range for float";
      case Kind::unsorted: {
        // Below its predecessor, by y; after it nothing changes (x keeps growing).
        points[i] = {points[i - 1].x, -1};
        offset = i * record;
        std::string message = "points not sorted: (";
        message += std::to_string(static_cast<long long>(points[i].x));
        message += ", -1) comes after";
        return message;
      }
    }
    return {};
  }

  // Reads F records as T with problems at `at` (file order need not be theirs); the first in file
  // order must be named, by its byte offset.
  template <class T, class F>
  void expect_first_named(std::size_t n, const std::vector<std::pair<std::size_t, Kind>>& problems) {
    std::vector<Point2<F>> points(n);
    for (std::size_t i = 0; i < n; ++i) points[i] = {static_cast<F>(i), static_cast<F>(i % 3)};
    std::uint64_t first_offset = std::numeric_limits<std::uint64_t>::max();
    std::string first_message;
    bool sorted = false;
    std::string where;
    for (const auto& [i, kind] : problems) {
      std::uint64_t offset = 0;
      const std::string message = place(points, i, kind, offset);
      if (offset < first_offset) {
        first_offset = offset;
        first_message = message;
      }
      sorted |= kind == Kind::unsorted;
      where += ' ';
      where += std::to_string(i);
    }
    // Built by appending: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string.
    std::string trace = sizeof(F) == 8 ? "f64" : "f32";
    trace += sizeof(T) == 8 ? " as double" : " as float";
    trace += ", problems at points";
    trace += where;
    SCOPED_TRACE(trace);
    std::string prefix = ": byte ";
    prefix += std::to_string(first_offset);
    prefix += ": ";
    ReadOptions options;
    options.require_sorted = sorted;
    expect_error<T>(sizeof(F) == 8 ? "bad.f64" : "bad.f32", binary_bytes(points), prefix, first_message,
                    options);
  }

  template <class T, class F>
  void check_placements() {
    // Three slices' worth and a ragged last block: two slices on two cores, three on more.
    const std::size_t n = 3 * kMinSliceBytes / (2 * sizeof(F)) + 333;
    const auto bounds = detail::binary_slice_bounds(n, n * 2 * sizeof(F));
    const std::size_t slices = bounds.size() - 1;
    if (cores() >= 2) {
      ASSERT_GE(slices, 2u);
    }
    const std::size_t second = slices >= 2 ? bounds[1] : n / 2;  // where the second slice starts
    const std::size_t last = slices >= 2 ? bounds[slices - 1] : n / 2;
    const std::size_t late = (last + n) / 2;  // inside the last slice

    std::vector<Kind> kinds = {Kind::nan, Kind::infinity, Kind::unsorted};
    if (std::is_same_v<F, double> && std::is_same_v<T, float>) {
      kinds.push_back(Kind::huge);
      kinds.push_back(Kind::tiny);
    }
    for (const Kind kind : kinds) {
      // (a) In the first slice: its first block, its last point.
      expect_first_named<T, F>(n, {{3, kind}});
      expect_first_named<T, F>(n, {{second - 1, kind}});
      // (b) In a later slice, alone and behind another in a still later one.
      expect_first_named<T, F>(n, {{late, kind}});
      expect_first_named<T, F>(n, {{n - 1, kind}});
      // (c) At a boundary: the first point of a slice (for unsorted, the pair across it), with a
      // later problem in another slice; and the last point of a slice with the next slice's first.
      expect_first_named<T, F>(n, {{late, Kind::nan}, {second, kind}});
      expect_first_named<T, F>(n, {{second, Kind::infinity}, {second - 1, kind}});
      expect_first_named<T, F>(n, {{last, kind}, {n - 1, Kind::nan}});
      // Listed out of file order: the problem in the first slice is named, not the one placed first.
      expect_first_named<T, F>(n, {{late, kind}, {second - 2, Kind::infinity}});
    }
  }
};

TEST_F(BinarySlicesTest, F64AsDoubleNamesTheFirstProblem) {
  check_placements<double, double>();
}
TEST_F(BinarySlicesTest, F32AsFloatNamesTheFirstProblem) {
  check_placements<float, float>();
}
TEST_F(BinarySlicesTest, F64AsFloatNamesTheFirstProblem) {
  check_placements<float, double>();
}
TEST_F(BinarySlicesTest, F32AsDoubleNamesTheFirstProblem) {
  check_placements<double, float>();
}

// Random files of a few slices' worth against one thread reading them in file order: valid ones give
// back the same points, bit for bit; invalid ones name the same first problem.
class BinaryReference : public IoTest {
 protected:
  // Whether a file value is read as T (what binary_points.cpp promises: finite, and for a double read as
  // float, rounding neither to infinity nor from nonzero to zero).
  template <class T, class F>
  static bool fits(F value) {
    if (!std::isfinite(value)) return false;
    if constexpr (sizeof(T) < sizeof(F)) {
      const double magnitude = std::fabs(static_cast<double>(value));
      return magnitude == 0 || (magnitude > 0x1p-150 &&
                                magnitude < static_cast<double>(std::numeric_limits<float>::max()) + 0x1p103);
    }
    return true;
  }

  // Byte offset of the first problem, in file order; nullopt for a valid file.
  template <class T, class F>
  static std::optional<std::uint64_t> first_problem(const std::vector<Point2<F>>& points, bool sorted) {
    constexpr std::uint64_t record = 2 * sizeof(F);
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (!fits<T>(points[i].x)) return i * record;
      if (!fits<T>(points[i].y)) return i * record + sizeof(F);
      if (sorted && i > 0) {
        const Point2<T> previous{static_cast<T>(points[i - 1].x), static_cast<T>(points[i - 1].y)};
        const Point2<T> current{static_cast<T>(points[i].x), static_cast<T>(points[i].y)};
        if (lex_less(current, previous)) return i * record;
      }
    }
    return std::nullopt;
  }

  template <class T, class F>
  void compare(int trials) {
    constexpr std::size_t record = 2 * sizeof(F);
    for (int trial = 0; trial < trials; ++trial) {
      const bool sorted = trial % 2 == 1;
      const std::size_t n = std::uniform_int_distribution<std::size_t>(2 * kMinSliceBytes / record,
                                                                       5 * kMinSliceBytes / record)(rng_);
      // Values every T holds exactly, so that order and bits survive the conversion.
      std::uniform_real_distribution<float> coordinate(-1e6f, 1e6f);
      std::vector<Point2<F>> points(n);
      for (auto& point : points) point = {static_cast<F>(coordinate(rng_)), static_cast<F>(coordinate(rng_))};
      if (sorted) std::sort(points.begin(), points.end(), lex_less<F>);

      // Up to three problems, most near where slices meet.
      const auto bounds = detail::binary_slice_bounds(n, n * record);
      const int problems = std::uniform_int_distribution<int>(0, 3)(rng_);
      for (int p = 0; p < problems; ++p) {
        std::size_t i = std::uniform_int_distribution<std::size_t>(1, n - 1)(rng_);
        if (rng_() % 4 != 0) {
          const std::size_t s = std::uniform_int_distribution<std::size_t>(1, bounds.size() - 2)(rng_);
          i = std::clamp<std::size_t>(bounds[s] - 1 + rng_() % 3, 1, n - 1);
        }
        F& value = rng_() % 2 == 0 ? points[i].x : points[i].y;
        switch (rng_() % 4) {
          case 0: value = std::numeric_limits<F>::quiet_NaN(); break;
          case 1: value = std::numeric_limits<F>::infinity(); break;
          case 2:
            if constexpr (std::is_same_v<F, double>) {
              value = rng_() % 2 == 0 ? 1e300 : -0x1p-150;
              break;
            }
            [[fallthrough]];
          default: points[i] = {points[i - 1].x, points[i - 1].y - 1}; break;  // out of order
        }
      }

      const auto expected = first_problem<T>(points, sorted);
      std::string trace = "trial ";
      trace += std::to_string(trial);
      trace += ": ";
      trace += std::to_string(n);
      trace += " points, ";
      trace += std::to_string(problems);
      trace += " problems, first at byte ";
      trace += expected ? std::to_string(*expected) : std::string("none");
      trace += sorted ? ", sorted" : "";
      SCOPED_TRACE(trace);
      ReadOptions options;
      options.require_sorted = sorted;
      const std::string file = write(sizeof(F) == 8 ? "random.f64" : "random.f32", binary_bytes(points));
      const std::string bytes = binary_bytes(points);
      for (const bool mapped : {true, false}) {
        try {
          const auto set = mapped ? read_points<T>(file, options) : parse_points<T>(bytes, file, options);
          EXPECT_FALSE(expected) << "no error";
          std::vector<Point2<T>> converted(n);
          for (std::size_t i = 0; i < n; ++i) {
            converted[i] = {static_cast<T>(points[i].x), static_cast<T>(points[i].y)};
          }
          EXPECT_TRUE(same_bits(to_vector(set), converted));
        } catch (const input_error& error) {
          ASSERT_TRUE(expected) << error.what();
          std::string prefix = file;
          prefix += ": byte ";
          prefix += std::to_string(*expected);
          prefix += ": ";
          EXPECT_EQ(std::string(error.what()).rfind(prefix, 0), 0u) << error.what();
        }
      }
    }
  }
};

TEST_F(BinaryReference, F64AsDouble) {
  compare<double, double>(6);
}
TEST_F(BinaryReference, F32AsFloat) {
  compare<float, float>(6);
}
TEST_F(BinaryReference, F64AsFloat) {
  compare<float, double>(6);
}
TEST_F(BinaryReference, F32AsDouble) {
  compare<double, float>(6);
}

// ---------------------------------------------------------------------------------------------
// Round trips

TEST_F(RoundTrip, TextRoundTripIsBitExactForDoubles) {
  const auto points = random_points<double>(rng_, 20000);
  const std::string file = path("round.txt");
  write_points<double>(file, points);
  EXPECT_TRUE(same_bits(to_vector(read_points<double>(file)), points));
}

TEST_F(RoundTrip, TextRoundTripIsBitExactForFloats) {
  const auto points = random_points<float>(rng_, 20000);
  const std::string file = path("round.txt");
  write_points<float>(file, points);
  EXPECT_TRUE(same_bits(to_vector(read_points<float>(file)), points));
}

TEST_F(RoundTrip, CsvRoundTripIsBitExact) {
  const auto points = random_points<double>(rng_, 5000);
  std::string csv = "x,y\n" + format_points<double>(points);
  std::replace(csv.begin(), csv.end(), ' ', ',');
  EXPECT_TRUE(same_bits(to_vector(read_points<double>(write("round.csv", csv))), points));
}

TEST_F(RoundTrip, SeedFormatRoundTripIsBitExact) {
  const auto points = random_points<float>(rng_, 5000);
  const std::string seed = "# seed\n" + std::to_string(points.size()) + "\n" + format_points<float>(points);
  EXPECT_TRUE(same_bits(to_vector(read_points<float>(write("round.txt", seed))), points));
}

TEST(FormatPoints, ShortestRoundTripDecimal) {
  EXPECT_EQ(format_points<double>(std::vector<Pd>{{0.1, -2}, {1e300, -0.0}}), "0.1 -2\n1e+300 -0\n");
  EXPECT_EQ(format_points<float>(std::vector<Pf>{{0.1f, 3}}), "0.1 3\n");
  EXPECT_EQ(format_points<double>(std::vector<Pd>{}), "");
}

// ---------------------------------------------------------------------------------------------
// Writing

TEST_F(WritePoints, WritingReplacesAFileAtomicallyAndLeavesNoTemporaries) {
  const std::string file = write("out.txt", "old content that is longer than the new\n");
  ASSERT_EQ(::chmod(file.c_str(), 0640), 0);
  write_points<double>(file, std::vector<Pd>{{1, 2}});
  EXPECT_EQ(slurp(file), "1 2\n");
  struct stat info {};
  ASSERT_EQ(::stat(file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0640u) << "a replaced file keeps its permissions";
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(WritePoints, NewFilesGetTheUsualPermissions) {
  const mode_t mask = ::umask(022);
  const std::string file = path("new.txt");
  write_file_atomically(file, "hello");
  ::umask(mask);
  struct stat info {};
  ASSERT_EQ(::stat(file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0644u);
  EXPECT_EQ(slurp(file), "hello");
}

TEST_F(WritePoints, WriteFailureNamesThePathAndLeavesNothing) {
  const std::string file = path("missing_dir/out.txt");
  try {
    write_file_atomically(file, "x");
    ADD_FAILURE() << "no error";
  } catch (const input_error& error) {
    EXPECT_EQ(std::string(error.what()), file + ": cannot write: No such file or directory");
  }
  try {
    write_file_atomically(dir_.string(), "x");
    ADD_FAILURE() << "no error";
  } catch (const input_error& error) {
    EXPECT_EQ(std::string(error.what()), dir_.string() + ": cannot write: Is a directory");
  }
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST(WritePointsToDevices, DevicesAreWrittenInPlaceNotReplaced) {
  write_file_atomically("/dev/null", "discarded");
  struct stat info {};
  ASSERT_EQ(::stat("/dev/null", &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));
}

TEST(WritePointsToDevices, StandardOutput) {
  testing::internal::CaptureStdout();
  write_points<double>("-", std::vector<Pd>{{1, 2}, {3, 4}});
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "1 2\n3 4\n");
}

// ---------------------------------------------------------------------------------------------
// PointSet

TEST_F(PointSetTest, PointSetCopiesOwnTheirPoints) {
  std::optional<PointSet<double>> original(PointSet<double>(std::vector<Pd>{{1, 2}, {3, 4}}));
  const PointSet<double> copy = *original;
  EXPECT_NE(copy.points().data(), original->points().data());
  original.reset();
  EXPECT_EQ(to_vector(copy), (std::vector<Pd>{{1, 2}, {3, 4}}));

  PointSet<double> moved_from(std::vector<Pd>{{5, 6}});
  const Pd* data = moved_from.points().data();
  const PointSet<double> moved = std::move(moved_from);
  EXPECT_EQ(moved.points().data(), data);
  EXPECT_EQ(moved_from.size(), 0u);  // NOLINT(bugprone-use-after-move): the moved-from state is specified

  // A mapped set outlives the PointSet it was copied from.
  const std::vector<Pd> points = {{7, 8}};
  std::optional<PointSet<double>> mapped(read_points<double>(write("m.f64", binary_bytes(points))));
  ASSERT_TRUE(mapped->mapped());
  const PointSet<double> mapped_copy = *mapped;
  mapped.reset();
  EXPECT_EQ(to_vector(mapped_copy), points);
}

// check_values = false: the native binary view comes back unchecked (the hull checks it), unless
// sortedness is asked for; other formats are checked as ever.
TEST_F(ReadPoints, UncheckedBinaryViewSkipsOnlyTheValueCheck) {
  const std::vector<Pd> points = {{0, 0}, {std::numeric_limits<double>::quiet_NaN(), 1}, {2, 2}};
  const std::string file = write("nan.f64", binary_bytes(points));
  ReadOptions unchecked;
  unchecked.check_values = false;
  const auto set = read_points<double>(file, unchecked);
  ASSERT_EQ(set.size(), 3u);
  EXPECT_TRUE(std::isnan(set.points()[1].x));
  EXPECT_THROW(read_points<double>(file), input_error);
  unchecked.require_sorted = true;
  EXPECT_THROW(read_points<double>(file, unchecked), input_error);
  unchecked.require_sorted = false;
  EXPECT_THROW(read_points<float>(file, unchecked), input_error);  // converted, hence checked
}

}  // namespace
}  // namespace wagener
