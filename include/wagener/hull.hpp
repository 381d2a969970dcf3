// upper_hull() and convex_hull(): the library's two entry points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wagener/point.hpp"
#include "wagener/trace.hpp"

namespace wagener {

enum class Backend {
  automatic,  ///< the backend a cost model predicts to finish first (see choose_backend), cpu without a
              ///< device
  cpu,        ///< multi-core: an interior filter, then the survivors' chains (sorted first unless presorted)
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
  std::int64_t survivors = 0;        ///< cpu, cuda full hull: points left after the interior filter
  double milliseconds = 0;           ///< wall time of the whole call
  double device_milliseconds = 0;    ///< cuda: the hull alone (CUDA events); full hull: after the filter
  double transfer_milliseconds = 0;  ///< cuda: copying the input in (full hull: with the filter overlapped)
  /// automatic: the cost model's predictions for the two candidates (0 when no prediction was made,
  /// e.g. for small inputs or without a device).
  double predicted_cpu_milliseconds = 0;
  double predicted_cuda_milliseconds = 0;
  /// automatic, with a prediction: why. The survivor estimate, and the measured rates the model
  /// used (wagener/calibration.hpp): where they came from and what they are.
  std::string prediction_basis;
  /// hull_of_file() (wagener/stream.hpp): how the file was read ("" when compute_hull() alone ran).
  std::string reading;
};

/// The merge the pram backend emulates.
enum class PramMerge {
  seed,     ///< the seed's rounds: blocks of 1, 2, 4, ... points, each bridge by sampling on k processors
            ///< for hoods of k points, hoods copied every round: O(log n) steps, O(n log n) work
  optimal,  ///< the seed's optimal-work variant: strips of log n points chained serially, then merges
            ///< of hoods kept in place whose bridges are found by nested sampling on k^(1/2)
            ///< processors: O(log n) steps, O(n) work (docs/algorithm.md has both counters)
};

/// Parses "seed", "optimal"; throws std::invalid_argument otherwise.
PramMerge parse_pram_merge(std::string_view name);

/// Which part of the hull a call returns.
enum class HullPart {
  full,   ///< the strict vertices, counter-clockwise, starting at the lexicographically smallest
  upper,  ///< the hood: from the lexicographically smallest point to the largest, clockwise over the top
};

struct HullOptions {
  Backend backend = Backend::automatic;
  HullStats* stats = nullptr;  ///< optional out-parameter
  /// Optional observer of Wagener's rounds (wagener/trace.hpp). The pram and cuda backends produce
  /// the same trace; automatic then picks pram, and cpu throws unsupported_error.
  TraceSink* trace = nullptr;
  /// compute_hull() only (upper_hull() and convex_hull() say which part they return).
  HullPart part = HullPart::full;
  /// The points are promised sorted by (x, y); checked (input_error names the first unsorted index).
  /// Unsorted input is fine without it: the upper hull of unsorted points then comes from the full
  /// hull's filtered pipeline, not from sorting everything.
  bool presorted = false;
  /// compute_hull() only: also return, for each vertex, the smallest input index holding it.
  bool indices = false;
  /// pram backend only: the merge it emulates. A trace shows the seed's rounds: with a trace, optimal
  /// throws unsupported_error.
  PramMerge pram_merge = PramMerge::seed;
  /// The cuda backend (and automatic, when it picks cuda) on several GPUs of this process: the points
  /// are split into one contiguous slice per device, each hulled on its device by a host thread of its
  /// own, and the slices' hulls merged by merge_hulls(). Empty: the current device alone, as without
  /// this option. {all_devices}: every device. parse_devices() reads the command line's form. A
  /// device that does not exist is an std::invalid_argument; a list with the cpu or pram backend,
  /// or with a trace, is an std::invalid_argument too.
  std::vector<int> devices = {};
  /// hull_of_file() (wagener/stream.hpp): the most bytes of points and buffers it may hold at once;
  /// 0: no limit (the whole file is read, as read_points() does). compute_hull() ignores it.
  std::size_t memory_limit = 0;
};

/// HullOptions::devices holding only this value means every device of the machine.
inline constexpr int all_devices = -1;

/// Parses the command line's --devices: "all" ({all_devices}) or device numbers separated by commas
/// ("0,1"), each at most once. Throws std::invalid_argument otherwise. Whether the devices exist is
/// checked when a hull runs on them.
std::vector<int> parse_devices(std::string_view list);

/// What compute_hull() returns: the vertices and, when asked (HullOptions::indices), their input
/// indices (what scipy's ConvexHull.vertices gives).
template <class T>
struct HullResult {
  std::vector<Point2<T>> vertices;
  std::vector<std::int64_t> indices;
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

/// The one general entry point: the part of the hull that options.part names, of points in any order
/// (or, with options.presorted, sorted by (x, y), which is checked), with input indices when asked.
/// Pre: points are finite (throws input_error naming the first that is not).
/// Post: vertices as upper_hull() (part upper) or convex_hull() (part full) give them; indices[i]
///       is the smallest j with points[j] == vertices[i] (when options.indices).
/// The CLI, the Python module and the grouped and distributed entry points all call this.
template <class T>
HullResult<T> compute_hull(std::span<const Point2<T>> points, const HullOptions& options = {});

/// For each vertex, the smallest index j with points[j] == vertex (-0.0 equals 0.0), in one parallel
/// pass over the points. Throws std::invalid_argument when a vertex is not among the points.
template <class T>
std::vector<std::int64_t> vertex_indices(std::span<const Point2<T>> points,
                                         std::span<const Point2<T>> vertices);

/// The convex hull of the union of point sets, each given by its hull ("hull of hulls"): the one
/// merge behind grouped hulls, several GPUs, MPI ranks and streamed chunks.
/// Pre: points are finite. Each polygon is best given in convex_hull()'s convention
///      (counter-clockwise from its lexicographically smallest vertex); any other point set is
///      sorted first, so the result is exact for every input and only the speed depends on it.
/// Post: convex_hull() of all the polygons' points. O(m log k) for m vertices in k hulls; where the
///       vertices are many, on several threads (lexicographic slabs, one a thread).
///       Safe to call from several threads at once.
template <class T>
std::vector<Point2<T>> merge_hulls(std::span<const std::span<const Point2<T>>> hulls);

/// True when this build has the CUDA backend and a CUDA device is usable (waits for the device's
/// start-up if warm_up() began it).
bool cuda_available();

/// Starts making `backend` ready in the background and returns at once: for cuda and automatic, the
/// CUDA driver and the device's context, which take about 0.35 s. For a long-lived process that will
/// use the GPU (auto then counts the device as ready). The start-up slows other work of the process
/// while it runs (by 40-130 ms on the H100 machine: bench/NOTES.md), so a short process that may
/// well stay on the CPU is better off without it; the CLI does not call it. Idempotent; a no-op for
/// cpu and pram and without CUDA.
void warm_up(Backend backend = Backend::automatic);

/// True while a warm_up() is still starting the device. A process that exits then should leave with
/// std::_Exit after flushing its output: static destructors would race the driver's start-up.
bool warm_up_pending();

}  // namespace wagener
