// Random point sets from a counter-based generator: the random bits of point i are SplitMix64's
// outputs at positions [256 i, 256 i + 256) of the stream keyed by the seed. SplitMix64's output at
// any position is one multiply-add and a mix, so a thread can start anywhere without running the
// stream up to there, and the set does not depend on how it is cut among threads.
#include "wagener/generate.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/parallel_slices.hpp"
#include "io/decimal.hpp"
#include "io/ordered_blocks.hpp"
#include "io/output_file.hpp"
#include "wagener/io.hpp"

namespace wagener {
namespace {

static_assert(std::endian::native == std::endian::little, "binary point files are little-endian");

constexpr Distribution kDistributions[] = {Distribution::disk, Distribution::square, Distribution::gaussian,
                                           Distribution::circle, Distribution::parabola};

// Below this many points per thread, starting a thread costs more than generating them.
constexpr std::size_t kMinPointsPerThread = std::size_t{1} << 14;
// write_generated's unit of work: small enough that every thread holding a block (and its text) stays
// within a few MiB, large enough that a write and a turn in the queue cost nothing next to it.
constexpr std::size_t kBlockPoints = std::size_t{1} << 17;

constexpr std::uint64_t kCountersPerPoint = 256;
static_assert(kMaxGeneratedPoints * kCountersPerPoint == 0, "the counters of all points fill 2^64 exactly");
// Two counters an attempt. The disk rejects an attempt with probability 1 - pi/4 < 0.22, so all 128
// fail with probability below 1e-84: never, in practice; the fallback only keeps the loop bounded.
constexpr unsigned kMaxDiskAttempts = kCountersPerPoint / 2;

// SplitMix64 (Steele, Lea and Flood, 2014): the golden-ratio increment and the output mix.
constexpr std::uint64_t kGoldenGamma = 0x9e3779b97f4a7c15;
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
  z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
  return z ^ (z >> 31);
}

// The random bits of one point: draw(k) is output 256 i + k of the seed's stream. The stream starts
// at mix64(seed), not at the seed, so that seeds differing by a multiple of the increment do not give
// shifted copies of one another's points.
class PointBits {
 public:
  PointBits(std::uint64_t seed, std::uint64_t index)
      : base_(mix64(seed) + index * kCountersPerPoint * kGoldenGamma) {}
  std::uint64_t draw(unsigned k) const { return mix64(base_ + k * kGoldenGamma); }

 private:
  std::uint64_t base_;
};

// Uniform in [-1, 1): the top 53 bits as a multiple of 2^-52, shifted; exact.
double uniform_symmetric(std::uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1p-52 - 1.0;
}

// Uniform in (0, 1]: never 0, so that its logarithm is finite.
double uniform_positive(std::uint64_t bits) {
  return static_cast<double>((bits >> 11) + 1) * 0x1p-53;
}

Point2<double> disk_point(std::uint64_t seed, std::uint64_t index) {
  const PointBits bits(seed, index);
  for (unsigned attempt = 0; attempt < kMaxDiskAttempts; ++attempt) {
    const double x = uniform_symmetric(bits.draw(2 * attempt));
    const double y = uniform_symmetric(bits.draw(2 * attempt + 1));
    if (x * x + y * y <= 1.0) return {x, y};
  }
  return {0.0, 0.0};
}

Point2<double> square_point(std::uint64_t seed, std::uint64_t index) {
  const PointBits bits(seed, index);
  return {uniform_symmetric(bits.draw(0)), uniform_symmetric(bits.draw(1))};
}

Point2<double> gaussian_point(std::uint64_t seed, std::uint64_t index) {
  const PointBits bits(seed, index);
  const double radius = std::sqrt(-2.0 * std::log(uniform_positive(bits.draw(0))));
  const double angle = std::numbers::pi * uniform_symmetric(bits.draw(1));
  return {radius * std::cos(angle), radius * std::sin(angle)};
}

Point2<double> circle_point(std::uint64_t seed, std::uint64_t index) {
  const double angle = std::numbers::pi * uniform_symmetric(PointBits(seed, index).draw(0));
  return {std::cos(angle), std::sin(angle)};
}

template <class T, class Draw>
void fill(std::span<Point2<T>> out, std::uint64_t first_index, const Draw& draw) {
  for (std::size_t k = 0; k < out.size(); ++k) {
    const Point2<double> point = draw(first_index + k);
    out[k] = {static_cast<T>(point.x), static_cast<T>(point.y)};
  }
}

// Points [first_index, first_index + out.size()) on the calling thread.
template <class T>
void generate_serially(std::span<Point2<T>> out, std::uint64_t first_index, const GenerateOptions& options) {
  const std::uint64_t seed = options.seed;
  switch (options.distribution) {
    case Distribution::disk:
      return fill(out, first_index, [&](std::uint64_t i) { return disk_point(seed, i); });
    case Distribution::square:
      return fill(out, first_index, [&](std::uint64_t i) { return square_point(seed, i); });
    case Distribution::gaussian:
      return fill(out, first_index, [&](std::uint64_t i) { return gaussian_point(seed, i); });
    case Distribution::circle:
      return fill(out, first_index, [&](std::uint64_t i) { return circle_point(seed, i); });
    case Distribution::parabola: {
      const double count = static_cast<double>(options.count);
      for (std::size_t k = 0; k < out.size(); ++k) {
        // y from the x actually stored: points whose t round to the same float x then coincide, rather
        // than coming out in decreasing y.
        const T x = static_cast<T>(static_cast<double>(first_index + k) / count * 2.0 - 1.0);
        const double wide_x = x;
        out[k] = {x, static_cast<T>(-wide_x * wide_x)};
      }
      return;
    }
  }
}

void check_count(std::uint64_t count) {
  if (count > kMaxGeneratedPoints) {
    throw std::invalid_argument("cannot generate " + std::to_string(count) + " points (at most 2^56)");
  }
}

// The points in a block of a set of `count`: a small set needs no full-sized buffers.
std::size_t block_size(std::uint64_t count) {
  return static_cast<std::size_t>(std::min<std::uint64_t>(count, kBlockPoints));
}

// Writes points [0, count) block by block: threads claim blocks in turn, make_producer() gives each
// thread a producer whose produce(first, size) turns points [first, first + size) into bytes (in the
// thread's own buffers), and the blocks reach the file in order. With fixed_block_bytes (binary: every
// full block is as long) and a regular file, each block is written at its own offset instead, and no
// thread waits for another.
template <class MakeProducer>
void write_blocks(detail::OutputFile& file, std::uint64_t count, unsigned threads,
                  std::uint64_t fixed_block_bytes, const MakeProducer& make_producer) {
  const bool positional = fixed_block_bytes != 0 && file.positional();
  detail::produce_blocks(
      (count + kBlockPoints - 1) / kBlockPoints, detail::resolve_threads(threads), !positional,
      [&] {
        return [&, produce = make_producer()](std::uint64_t block) mutable {
          const std::uint64_t first = block * kBlockPoints;
          return produce(first,
                         static_cast<std::size_t>(std::min<std::uint64_t>(kBlockPoints, count - first)));
        };
      },
      [&](std::uint64_t block, std::string_view bytes) {
        if (positional) {
          file.write_at(block * fixed_block_bytes, bytes);
        } else {
          file.append(bytes);
        }
      });
}

// Blocks of generate_points<F> as raw little-endian pairs.
template <class F>
void write_binary(detail::OutputFile& file, const GenerateOptions& options) {
  write_blocks(file, options.count, options.threads, kBlockPoints * sizeof(Point2<F>), [&] {
    return [&options, points = std::vector<Point2<F>>(block_size(options.count))](std::uint64_t first,
                                                                                  std::size_t size) mutable {
      const std::span<Point2<F>> block(points.data(), size);
      generate_serially<F>(block, first, options);
      return std::string_view(reinterpret_cast<const char*>(block.data()), block.size_bytes());
    };
  });
}

// Blocks of generate_points<double> as lines "x<separator>y\n", each coordinate in shortest
// round-trip decimal: with ' ', the very bytes format_points writes.
void write_lines(detail::OutputFile& file, const GenerateOptions& options, char separator) {
  constexpr std::size_t kMaxLine = 2 * detail::kMaxDecimalChars<double> + 2;
  write_blocks(file, options.count, options.threads, 0, [&] {
    return [&options, separator, points = std::vector<Point2<double>>(block_size(options.count)),
            text = std::string(block_size(options.count) * kMaxLine, '\0')](std::uint64_t first,
                                                                            std::size_t size) mutable {
      const std::span<Point2<double>> block(points.data(), size);
      generate_serially<double>(block, first, options);
      char* p = text.data();
      for (const Point2<double>& point : block) {
        p = detail::write_decimal(p, point.x);
        *p++ = separator;
        p = detail::write_decimal(p, point.y);
        *p++ = '\n';
      }
      return std::string_view(text.data(), static_cast<std::size_t>(p - text.data()));
    };
  });
}

}  // namespace

Distribution parse_distribution(std::string_view name) {
  for (const Distribution distribution : kDistributions) {
    if (name == distribution_name(distribution)) return distribution;
  }
  throw std::invalid_argument("unknown distribution \"" + std::string(name) +
                              "\" (expected disk, square, gaussian, circle or parabola)");
}

std::string_view distribution_name(Distribution distribution) {
  switch (distribution) {
    case Distribution::disk: return "disk";
    case Distribution::square: return "square";
    case Distribution::gaussian: return "gaussian";
    case Distribution::circle: return "circle";
    case Distribution::parabola: return "parabola";
  }
  return "unknown";
}

template <class T>
void generate_points(std::span<Point2<T>> out, std::uint64_t first_index, const GenerateOptions& options) {
  check_count(options.count);
  if (first_index > options.count || out.size() > options.count - first_index) {
    throw std::invalid_argument("points [" + std::to_string(first_index) + ", " +
                                std::to_string(first_index + out.size()) + ") are not all in a set of " +
                                std::to_string(options.count));
  }
  const std::size_t slices =
      detail::slice_count(out.size(), detail::resolve_threads(options.threads), kMinPointsPerThread);
  detail::run_slices(out.size(), slices, [&](std::size_t, std::size_t begin, std::size_t end) {
    generate_serially<T>(out.subspan(begin, end - begin), first_index + begin, options);
  });
}

void write_generated(const std::string& path, const GenerateOptions& options, Format format) {
  check_count(options.count);
  if (format == Format::automatic) format = guess_format(path);
  if (format == Format::i32 || format == Format::i64) {
    throw std::invalid_argument("generated points are floating point: text, csv, f32 or f64, not " +
                                std::string(format_name(format)));
  }
  detail::OutputFile file(path);
  switch (format) {
    case Format::f32: write_binary<float>(file, options); break;
    case Format::f64: write_binary<double>(file, options); break;
    case Format::csv:
      file.append("x,y\n");
      write_lines(file, options, ',');
      break;
    case Format::automatic:
    case Format::text: write_lines(file, options, ' '); break;
    case Format::i32:
    case Format::i64: break;  // refused above
  }
  file.commit();
}

template void generate_points<float>(std::span<Point2<float>>, std::uint64_t, const GenerateOptions&);
template void generate_points<double>(std::span<Point2<double>>, std::uint64_t, const GenerateOptions&);

}  // namespace wagener
