// Bytes in: the whole content of a point file, or of standard input, in memory, for the parsers to
// read in place. Regular files are memory-mapped (standard input too, when it is redirected from
// one); streams are read once into memory that grows without copying.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace wagener::reading {

/// The whole content of an input, read-only, in memory that `owner` keeps alive: a mapping of a regular
/// file, or an anonymous mapping that a stream was read into. Either way it starts on a page boundary
/// (unless a redirected standard input had been read from part way), so binary points of the requested
/// precision can be handed out as a view of it without a copy.
struct InputBytes {
  std::shared_ptr<const void> owner;  // null for empty input
  std::string_view bytes;
};

/// How a regular file's bytes get into memory.
enum class FileAccess {
  automatic,  ///< mapped where the page cache holds it (or it is larger than half the free memory),
              ///< else read
  mapped,     ///< a mapping (populated when cached)
  read,       ///< read into anonymous memory by many reads at once (read_ahead.hpp)
};

/// The content of the file at `path`, or of standard input for "-". Throws input_error naming the
/// file when it cannot be opened or read.
InputBytes read_file(const std::string& path, FileAccess access = FileAccess::automatic);

/// automatic's choice for a regular file of `size` bytes of which the page cache holds
/// `cached_share`, with `available` bytes of memory free.
FileAccess choose_file_access(std::uint64_t size, double cached_share, std::uint64_t available);

/// The size of a memory page, read once.
std::size_t page_size();

}  // namespace wagener::reading
