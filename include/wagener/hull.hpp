// upper_hull() and convex_hull(): the library's two entry points.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wagener/point.hpp"
#include "wagener/trace.hpp"

namespace wagener {

enum class Backend {
  automatic,  ///< cuda when a device is present and n >= 2^16 (the measured crossover), else cpu
  cpu,        ///< serial exact reference for presorted upper hulls; multi-core filter for full hulls
  pram,       ///< Wagener's rounds on the CPU PRAM emulator (the seed's algorithm, instrumented)
  cuda,       ///< Wagener's rounds on the GPU
};

/// Parses "auto", "cpu", "pram", "cuda"; throws std::invalid_argument otherwise.
Backend parse_backend(std::string_view name);
std::string_view backend_name(Backend backend);

/// Counters a backend fills in when asked (HullOptions::stats). The PRAM counters make the seed's
/// claim visible: O(log n) rounds of O(1) parallel steps, O(n log n) work for the padded arrangement.
struct HullStats {
  Backend backend = Backend::cpu;    ///< the backend that actually ran
  std::int64_t points = 0;           ///< input points
  std::int64_t hull_vertices = 0;    ///< output vertices
  std::int64_t rounds = 0;           ///< PRAM: match-and-merge rounds (ceil(log2 n) per chain)
  std::int64_t parallel_steps = 0;   ///< PRAM: synchronous steps (phases separated by barriers)
  std::int64_t work = 0;             ///< PRAM: virtual-processor activations summed over all steps
  std::int64_t max_processors = 0;   ///< PRAM: largest number of processors active in one step
  std::int64_t survivors = 0;        ///< cpu/cuda full hull: points left after the interior filter
  double milliseconds = 0;           ///< wall time of the whole call
  double device_milliseconds = 0;    ///< cuda: the hull alone (CUDA events); full hull: after the filter
  double transfer_milliseconds = 0;  ///< cuda: copying the input in (full hull: with the filter overlapped)
};

struct HullOptions {
  Backend backend = Backend::automatic;
  HullStats* stats = nullptr;  ///< optional out-parameter
  /// Optional observer of Wagener's rounds (wagener/trace.hpp). The pram and cuda backends produce
  /// the same trace; automatic then picks pram, and cpu throws unsupported_error.
  TraceSink* trace = nullptr;
};

/// Upper hull ("hood") of points sorted lexicographically (x, then y).
/// Pre: points are sorted by (x, y) and finite (throws input_error, naming the first unsorted
///      index, when they are not sorted).
/// Post: the strict vertices (no duplicates, no three collinear) from the lexicographically smallest
///      point to the largest, clockwise over the top; empty for empty input.
template <class T>
std::vector<Point2<T>> upper_hull(std::span<const Point2<T>> sorted_points, const HullOptions& options = {});

/// Convex hull of points in any order.
/// Pre: points are finite.
/// Post: the strict vertices, counter-clockwise, starting at the lexicographically smallest vertex;
///      one vertex if all points coincide, two if they are collinear; empty for empty input.
template <class T>
std::vector<Point2<T>> convex_hull(std::span<const Point2<T>> points, const HullOptions& options = {});

/// True when this build has the CUDA backend and a CUDA device is usable.
bool cuda_available();

}  // namespace wagener
