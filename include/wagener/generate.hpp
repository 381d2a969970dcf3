// Random point sets for tests and benchmarks (`wagener generate`).
//
// Point i of a set is a function of (distribution, seed, i) alone (and, for the parabola, of the set's
// size): each point draws its random bits from a counter-based generator keyed by the seed and
// indexed by i, never from a stream shared with other points. So a set comes out byte for byte the
// same whatever the number of threads, and any part of it can be generated on its own.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "wagener/io.hpp"
#include "wagener/point.hpp"

namespace wagener {

/// disk      uniform in the unit disk (rejection from the square)
/// square    uniform in [-1, 1)^2
/// gaussian  x and y independent standard normal (Box-Muller)
/// circle    (cos a, sin a), a uniform in [-pi, pi)
/// parabola  (t, -t^2), t = i / count * 2 - 1: sorted by x, every point on the upper hull
enum class Distribution { disk, square, gaussian, circle, parabola };

/// Parses "disk", "square", "gaussian", "circle", "parabola"; throws std::invalid_argument, listing
/// the choices, otherwise.
Distribution parse_distribution(std::string_view name);
std::string_view distribution_name(Distribution distribution);

struct GenerateOptions {
  Distribution distribution = Distribution::disk;
  /// The size of the whole set, points [0, count): the parabola spaces its points by it, and no
  /// index may reach it. At most kMaxGeneratedPoints.
  std::uint64_t count = 0;
  std::uint64_t seed = 1;
  /// Threads to generate with; 0: one per hardware thread. The points do not depend on it.
  unsigned threads = 0;
};

/// The largest set the generator indexes (2^56 points): each point owns 256 consecutive counters of
/// a 64-bit counter space.
inline constexpr std::uint64_t kMaxGeneratedPoints = std::uint64_t{1} << 56;

/// Points [first_index, first_index + out.size()) of the set into out. Computed in double; float
/// points are the double points rounded to nearest (the parabola's y is then computed from the
/// rounded x, so that it stays sorted where neighbouring x round to the same float). Throws
/// std::invalid_argument when the range reaches beyond options.count or count beyond
/// kMaxGeneratedPoints.
template <class T>
void generate_points(std::span<Point2<T>> out, std::uint64_t first_index, const GenerateOptions& options);

/// Writes the whole set, points [0, options.count), to path ("-": standard output) in `format`: text
/// ("x y" lines of doubles, as format_points writes them), csv (a header "x,y", then "x,y" lines), f64,
/// or f32 (the float points of generate_points<float>); automatic picks by the path's extension, as
/// guess_format does. Threads generate and format blocks of points in parallel and the blocks are
/// written in order, so memory stays bounded (a few MiB per thread) whatever the count. Like
/// write_file_atomically, a file is written to a temporary beside it and renamed into place.
/// Throws input_error when the file cannot be written, std::invalid_argument for a bad count or an
/// integer format (i32, i64: generated points are not integers).
void write_generated(const std::string& path, const GenerateOptions& options,
                     Format format = Format::automatic);

}  // namespace wagener
