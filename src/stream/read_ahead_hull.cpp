// Binary files the page cache does not hold, hulled as they are read (read_ahead_hull.hpp).
#include "stream/read_ahead_hull.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "io/binary_points.hpp"
#include "io/point_pieces.hpp"
#include "io/read_ahead.hpp"
#include "stream/running_hull.hpp"
#include "wagener/error.hpp"

namespace wagener::detail {
namespace {

// A binary file the page cache holds less of than this is read by ReadAhead and filtered block by
// block as the blocks arrive; a cached one is mapped and hulled whole (reading::read_file).
constexpr double kColdShare = 0.9;
// Survivors of the filter wait for this many before they are hulled and merged.
constexpr std::size_t kColdPendingPoints = std::size_t{1} << 20;

/// A regular file open for reading, and how much of it the page cache holds.
class ColdFile {
 public:
  /// A regular file, whatever the cache holds of it; nullopt for anything else.
  static std::optional<ColdFile> open(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;  // read_points() names the problem
    ColdFile file(fd);
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || info.st_size == 0) return std::nullopt;
    file.size = static_cast<std::uint64_t>(info.st_size);
    file.cached_share = reading::cached_share(fd, file.size);
    return file;
  }
  ColdFile(ColdFile&& other) noexcept
      : fd(std::exchange(other.fd, -1)), size(other.size), cached_share(other.cached_share) {}
  ColdFile(const ColdFile&) = delete;
  ColdFile& operator=(const ColdFile&) = delete;
  ColdFile& operator=(ColdFile&&) = delete;
  ~ColdFile() {
    if (fd >= 0) ::close(fd);
  }

  int fd = -1;
  std::uint64_t size = 0;
  double cached_share = 0;

 private:
  explicit ColdFile(int descriptor) : fd(descriptor) {}
};

std::string percent(double share) {
  return std::to_string(static_cast<int>(share * 100 + 0.5)) + " %";
}

/// The hull of a binary file the page cache does not hold: many reads in flight at once
/// (reading::ReadAhead), each block filtered against the hull so far on all cores as it arrives, so
/// that the whole takes about as long as reading the file does.
template <class T>
HullResult<T> hull_of_open_file(const ColdFile& file, const std::string& name, Format format,
                                const HullOptions& options, std::size_t block_bytes, unsigned readers) {
  const auto start = std::chrono::steady_clock::now();
  const std::size_t record = binary_record_bytes(format);
  // The check depends on the record's size only (i32 records are f32's, i64's f64's).
  if (record == reading::kRecordBytes<float>) {
    reading::check_whole_records<float>(static_cast<std::size_t>(file.size), name);
  } else {
    reading::check_whole_records<double>(static_cast<std::size_t>(file.size), name);
  }
  reading::ReadAhead ahead(file.fd, name, file.size, block_bytes, readers);
  RunningHull<T> running(options, kColdPendingPoints);
  running.expect_points(static_cast<std::size_t>(file.size / record));
  std::vector<Point2<T>> decoded;
  while (const auto block = ahead.next()) {
    const std::string_view bytes(block->bytes.data(), block->bytes.size());
    // The decoder names the file and byte of a bad value, as a whole-file read does.
    const auto name_bad = [&](std::size_t i) {
      detail::decode_binary_piece<T>(bytes.substr(i * record, record), format, block->offset + i * record,
                                     name, decoded);
      throw std::logic_error("hull_of_file: a point the filter found not finite passed its decoding");
    };
    if (format == reading::kNativeFormat<T>) {
      // Blocks are whole records and 64-byte aligned: the points are the bytes.
      running.add({reinterpret_cast<const Point2<T>*>(bytes.data()), bytes.size() / record}, name_bad);
    } else {
      detail::decode_binary_piece<T>(bytes, format, block->offset, name, decoded);  // checks every value
      running.add(decoded, name_bad);
    }
  }
  return running_result(running, options, start,
                        "cold (" + percent(file.cached_share) + " in the page cache): " +
                            std::to_string(readers) + " reads of " + std::to_string(block_bytes >> 20) +
                            " MiB in flight, each block filtered as it arrived");
}

}  // namespace

template <class T>
HullResult<T> hull_of_binary_read_ahead(const std::string& path, Format format, const HullOptions& options,
                                        std::size_t block_bytes, unsigned readers) {
  const auto file = ColdFile::open(path);
  if (!file) {
    (void)read_points<T>(path, ReadOptions{format});  // names why it cannot be read
    throw input_error(path + ": cannot read: not a regular file");
  }
  return hull_of_open_file<T>(*file, path, format, options, block_bytes, readers);
}

template <class T>
std::optional<HullResult<T>> hull_of_file_if_cold(const std::string& path, Format format,
                                                  const HullOptions& options) {
  const auto file = ColdFile::open(path);
  if (!file || file->cached_share >= kColdShare) return std::nullopt;
  return hull_of_open_file<T>(*file, path, format, options, reading::read_block_bytes(),
                              reading::read_threads());
}

#define WAGENER_INSTANTIATE(T)                                                                     \
  template HullResult<T> hull_of_binary_read_ahead(const std::string&, Format, const HullOptions&, \
                                                   std::size_t, unsigned);                         \
  template std::optional<HullResult<T>> hull_of_file_if_cold(const std::string&, Format, const HullOptions&);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener::detail
