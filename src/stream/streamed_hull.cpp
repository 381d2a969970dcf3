// Hulls of inputs larger than memory (wagener/stream.hpp): chunk by chunk, each chunk filtered
// against the running hull and merged into it by the one hull-of-hulls merge.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include "cpu/monotone_chain.hpp"
#include "io/binary_points.hpp"
#include "io/point_pieces.hpp"
#include "stream/read_ahead_hull.hpp"
#include "stream/running_hull.hpp"
#include "wagener/error.hpp"
#include "wagener/stream.hpp"

namespace wagener {
namespace {

// How a memory limit L is shared (bench/NOTES.md, "Streaming in bounded memory"): a chunk's points
// take L/4, the hull of its survivors (a sorted copy in the worst case) another L/4, the bytes read
// for it at most L/4 (binary: a record is no larger than its point; text: a piece of L/16 bytes
// holds at most L/64 points of four bytes, "0 0\n", which take L/4 as doubles), and the running hull
// with the merge's output at most L/8 each.
constexpr std::size_t kChunkShare = 4;
constexpr std::size_t kTextPieceShare = 16;
constexpr std::size_t kHullShare = 8;
// Without a limit: chunks of this many points (about what a core's caches and a merge amortise).
constexpr std::size_t kUnlimitedChunkPoints = std::size_t{1} << 20;

template <class T>
std::size_t chunk_points(std::size_t memory_limit) {
  return memory_limit == 0 ? kUnlimitedChunkPoints : memory_limit / kChunkShare / sizeof(Point2<T>);
}

void check_limit(std::size_t memory_limit) {
  if (memory_limit != 0 && memory_limit < kMinMemoryLimit) {
    throw std::invalid_argument("memory limit of " + std::to_string(memory_limit) + " bytes is below the " +
                                std::to_string(kMinMemoryLimit >> 20) + " MiB the streamed hull needs");
  }
}

void check_options(const HullOptions& options) {
  if (options.trace) throw std::invalid_argument("a streamed hull (memory limit) takes no trace");
  if (options.indices) throw std::invalid_argument("a streamed hull (memory limit) reports no indices");
  check_limit(options.memory_limit);
}

std::string bytes_text(std::size_t bytes) {
  return std::to_string(bytes) + " bytes";
}

}  // namespace

std::size_t parse_memory_size(std::string_view text) {
  const auto bad = [&] {
    return std::invalid_argument("bad memory size \"" + std::string(text) +
                                 "\" (expected a number of bytes with an optional K, M, G or T, e.g. 512M)");
  };
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end == text.data()) throw bad();
  std::string suffix(end, text.data() + text.size());
  for (char& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (suffix.ends_with("IB"))
    suffix.resize(suffix.size() - 2);
  else if (suffix.size() > 1 && suffix.ends_with("B"))
    suffix.pop_back();
  else if (suffix == "B")
    suffix.clear();
  int shift = 0;
  if (suffix == "K")
    shift = 10;
  else if (suffix == "M")
    shift = 20;
  else if (suffix == "G")
    shift = 30;
  else if (suffix == "T")
    shift = 40;
  else if (!suffix.empty())
    throw bad();
  if (value == 0 || value > (std::numeric_limits<std::size_t>::max() >> shift)) throw bad();
  return value << shift;
}

template <class T>
HullResult<T> hull_of_chunks(const ChunkSource<T>& source, const HullOptions& options) {
  check_options(options);
  const auto start = std::chrono::steady_clock::now();
  const std::size_t max_points = std::max<std::size_t>(1, chunk_points<T>(options.memory_limit));
  const std::size_t hull_budget = options.memory_limit / kHullShare;
  // With a limit, each chunk is hulled as it comes (its survivors never wait beside the next chunk).
  detail::RunningHull<T> running(options, options.memory_limit == 0 ? kUnlimitedChunkPoints : 0);
  running.after_merge = [&](const std::vector<Point2<T>>& hull) {
    if (hull_budget != 0 && hull.size() * sizeof(Point2<T>) > hull_budget) {
      throw memory_limit_error("the hull of the first " + std::to_string(running.seen()) +
                               " points already has " + std::to_string(hull.size()) + " vertices (" +
                               bytes_text(hull.size() * sizeof(Point2<T>)) +
                               "), more than the memory limit of " + bytes_text(options.memory_limit) +
                               " leaves for it (an eighth): the input is "
                               "hull-like; raise the limit, or hull it without one");
    }
  };
  std::vector<Point2<T>> chunk;
  while (source(chunk, max_points)) {
    // A non-finite point is named by its index in the whole stream.
    const std::int64_t before = running.seen();
    running.add_in_place(chunk, [before](std::size_t i) {
      throw input_error("point " + std::to_string(before + static_cast<std::int64_t>(i)) + " is not finite");
    });
  }
  return detail::running_result(running, options, start, "");
}

namespace {

std::string display_name(const std::string& path) {
  return path == "-" ? "<stdin>" : path;
}

/// A file read front to back in windows; standard input for "-".
class SequentialFile {
 public:
  SequentialFile(const std::string& path, std::string name) : name_(std::move(name)) {
    fd_ = path == "-" ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) fail("cannot open", errno);
    struct stat info {};
    if (::fstat(fd_, &info) == 0 && S_ISDIR(info.st_mode)) fail("cannot read", EISDIR);
    if (S_ISREG(info.st_mode)) size_ = static_cast<std::int64_t>(info.st_size);
  }

  /// The size of a regular file, else -1 (a pipe's size is known at its end).
  std::int64_t size() const { return size_; }
  SequentialFile(const SequentialFile&) = delete;
  SequentialFile& operator=(const SequentialFile&) = delete;
  ~SequentialFile() {
    if (fd_ > STDIN_FILENO) ::close(fd_);
  }

  /// Appends up to `want` bytes to buffer; returns how many (0 at the end of the file).
  std::size_t read_into(std::string& buffer, std::size_t want) {
    const std::size_t old = buffer.size();
    buffer.resize(old + want);
    std::size_t got = 0;
    while (got < want) {
      const ssize_t n = ::read(fd_, buffer.data() + old + got, want - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail("cannot read", errno);
      if (n == 0) break;
      got += static_cast<std::size_t>(n);
    }
    buffer.resize(old + got);
    return got;
  }

 private:
  [[noreturn]] void fail(const char* what, int error) const {
    throw input_error(name_ + ": " + what + ": " + std::strerror(error));
  }
  int fd_ = -1;
  std::int64_t size_ = -1;
  std::string name_;
};

template <class T>
ChunkSource<T> binary_source(SequentialFile& file, Format format, const std::string& name) {
  const std::size_t record = binary_record_bytes(format);
  const auto check_whole_records = [name, record](std::uint64_t size) {
    if (size % record != 0) {
      throw input_error(name + ": byte " + std::to_string(size - size % record) +
                        ": truncated binary: " + std::to_string(size) +
                        " bytes is not a whole number of points (" + std::to_string(record) + " bytes each)");
    }
  };
  // As read_points(): a file that is not whole records is reported before any value in it.
  if (file.size() >= 0) check_whole_records(static_cast<std::uint64_t>(file.size()));
  return [&file, format, name, record, check_whole_records, buffer = std::string(),
          offset = std::uint64_t{0}](std::vector<Point2<T>>& chunk, std::size_t max_points) mutable {
    buffer.clear();
    // Records wider than the points (f64 read as float) take no more than the points would.
    const std::size_t records =
        std::max<std::size_t>(1, max_points * sizeof(Point2<T>) / std::max(record, sizeof(Point2<T>)));
    const std::size_t got = file.read_into(buffer, records * record);
    if (got == 0) return false;
    check_whole_records(offset + got);
    detail::decode_binary_piece<T>(buffer, format, offset, name, chunk);  // in the chunk's storage
    offset += got;
    return true;
  };
}

template <class T>
ChunkSource<T> text_source(SequentialFile& file, bool csv, const ReadOptions& read, const std::string& name,
                           std::size_t piece_bytes) {
  auto parser = std::make_shared<detail::TextPieceParser<T>>(name, csv, read.columns);
  return [&file, parser, piece_bytes, buffer = std::string(), done = false](std::vector<Point2<T>>& chunk,
                                                                            std::size_t) mutable {
    if (done) return false;
    // The bytes after the last newline wait for the rest of their line; a line longer than a piece
    // grows the buffer until it ends.
    std::size_t cut = std::string::npos;
    while (cut == std::string::npos) {
      if (file.read_into(buffer, piece_bytes) == 0) {
        done = true;
        cut = buffer.size();
        break;
      }
      const std::size_t newline = buffer.rfind('\n');
      if (newline != std::string::npos) cut = newline + 1;
    }
    std::vector<Point2<T>>().swap(chunk);  // the old chunk goes before the new one comes
    chunk = parser->parse(std::string_view(buffer).substr(0, cut));
    buffer.erase(0, cut);
    if (done) parser->finish();
    return true;
  };
}

/// The whole file in memory (mapped where the page cache holds it), then compute_hull(). A promise of
/// sorted points (read.require_sorted) is checked by compute_hull()'s own pass (the cpu backend's
/// presorted upper chain checks it in the read that filters), not by the reader too: one pass over
/// memory instead of two. A named file is read again, with every check, to name the line or byte
/// at fault; standard input, which cannot be, is checked as it is read.
template <class T>
HullResult<T> hull_of_whole_file(const std::string& path, const ReadOptions& read,
                                 const HullOptions& options) {
  ReadOptions checked = read;
  HullOptions hull_options = options;
  hull_options.presorted = options.presorted || read.require_sorted;
  if (path != "-") checked.require_sorted = false;
  const auto start = std::chrono::steady_clock::now();
  const auto points = read_points<T>(path, checked);
  const double read_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  HullResult<T> result;
  try {
    result = compute_hull<T>(points.points(), hull_options);
  } catch (const input_error&) {
    // Points handed over unchecked (ReadOptions::check_values, require_sorted): the checking read
    // names the file and the line or byte offset of the problem.
    const bool read_checked_all = checked.check_values && checked.require_sorted == read.require_sorted;
    if (read_checked_all) throw;
    checked.check_values = true;
    checked.require_sorted = read.require_sorted;
    read_points<T>(path, checked);
    throw;
  }
  if (options.stats) {
    char note[96];
    std::snprintf(note, sizeof note, "%s in %.1f ms",
                  points.mapped() ? "mapped or buffered whole" : "parsed whole", read_ms);
    options.stats->reading = note;
  }
  return result;
}

}  // namespace

template <class T>
HullResult<T> hull_of_file(const std::string& path, const ReadOptions& read, const HullOptions& options) {
  if (read.require_sorted && options.memory_limit != 0) {
    throw std::invalid_argument(
        "a streamed hull (memory limit) does not check that the input is sorted "
        "(--presorted): it needs no sorted input");
  }
  check_options(options);
  const std::string name = display_name(path);
  const Format format = read.format == Format::automatic ? guess_format(path) : read.format;
  const bool binary = is_binary_format(format);
  if (!read.columns.empty() && binary) {
    throw input_error(name + ": a column selection (--columns) applies to text and csv, not to binary " +
                      std::string(format_name(format)) + " input");
  }
  if (options.memory_limit == 0) {
    // A cold binary file is filtered block by block as it arrives, which checks no order.
    if (binary && path != "-" && !read.require_sorted) {
      if (auto result = detail::hull_of_file_if_cold<T>(path, format, options)) return std::move(*result);
    }
    return hull_of_whole_file<T>(path, read, options);
  }
  SequentialFile file(path, name);
  const ChunkSource<T> source = binary ? binary_source<T>(file, format, name)
                                       : text_source<T>(file, format == Format::csv, read, name,
                                                        options.memory_limit / kTextPieceShare);
  return hull_of_chunks<T>(source, options);
}

#define WAGENER_INSTANTIATE(T)                                                      \
  template HullResult<T> hull_of_chunks(const ChunkSource<T>&, const HullOptions&); \
  template HullResult<T> hull_of_file(const std::string&, const ReadOptions&, const HullOptions&);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener
