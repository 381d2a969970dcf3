// Hulls of inputs larger than memory: the points come in chunks, each filtered against the hull of
// those before it and merged into it, so that memory holds a chunk and the hull, not the input.
#pragma once

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "wagener/hull.hpp"
#include "wagener/io.hpp"
#include "wagener/point.hpp"

namespace wagener {

/// The hull alone outgrew its share of HullOptions::memory_limit: hull-like input (a circle: every
/// point a vertex) cannot be hulled in memory that holds less than its hull.
class memory_limit_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Parses a size in bytes as the command line's --memory-limit takes it: a whole number with an
/// optional binary suffix K, M, G or T (KiB, MiB, ...; "B" or "iB" may follow, any case), e.g. 512M,
/// 2G, 1048576. Throws std::invalid_argument otherwise, and for 0.
std::size_t parse_memory_size(std::string_view text);

/// The smallest HullOptions::memory_limit the streamed entry points take: below it the chunks
/// would be too small to amortise a merge each.
inline constexpr std::size_t kMinMemoryLimit = std::size_t{1} << 20;

/// Fills `chunk` (replacing what it held) with the next points of a stream, at most `max_points` of
/// them; returns false when the stream has ended. A chunk may be empty without ending the stream.
template <class T>
using ChunkSource = std::function<bool(std::vector<Point2<T>>& chunk, std::size_t max_points)>;

/// The hull of every point a source gives, in memory bounded by options.memory_limit (0: chunks of
/// 2^20 points, and no bound on the hull). Each chunk is filtered against the running hull (a
/// point is dropped only when certified strictly inside it, the test of src/core/inner_polygon.hpp),
/// the survivors are hulled by compute_hull() on options.backend (and options.devices), and that
/// hull merged into the running one by merge_hulls().
/// Pre: options.trace is null and options.indices false (std::invalid_argument otherwise).
/// Post: vertices as compute_hull() of all the points gives them (options.part); input_error
///       names the index of a non-finite point in the whole stream; memory_limit_error when the
///       running hull needs more than an eighth of the limit.
template <class T>
HullResult<T> hull_of_chunks(const ChunkSource<T>& source, const HullOptions& options);

/// The hull of a point file (as read_points() reads it; "-": standard input) in memory bounded by
/// options.memory_limit: binary files are read a window of whole records at a time, text and csv a
/// run of whole lines at a time, with read_points()'s checks and messages (file:line, or the byte
/// offset in the file). With memory_limit 0 the whole file is read at once and hulled by
/// compute_hull(); read.require_sorted then takes the promise of sorted points (options.presorted),
/// checked by the hull's own pass and, where it is broken, named by the file's line or byte as
/// read_points() names it. The chunks are hulled as hull_of_chunks() says.
/// Pre: as hull_of_chunks(); with a memory limit, read.require_sorted is false
///      (std::invalid_argument otherwise: the streamed hull does not need sorted input, and does not
///      check it).
template <class T>
HullResult<T> hull_of_file(const std::string& path, const ReadOptions& read, const HullOptions& options);

}  // namespace wagener
