// Reading a file at the storage's speed whether or not the page cache holds it: how much of it the
// cache holds, and reads of many blocks at once. One sequential reader (cat, or the page faults of a
// mapping walked front to back) keeps one request in flight and reaches a fraction of what the
// storage gives many (bench/NOTES.md, "Reading cold files").
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace wagener::reading {

/// Of a regular file's first `size` bytes, the share the page cache holds now (0..1), from the
/// residency of a sample of its pages (mincore); 1 for an empty file, 0 where it cannot be told.
double cached_share(int fd, std::uint64_t size);

/// What the kernel reports it can give without swapping (MemAvailable), in bytes; 0 if unknown.
std::uint64_t available_memory();

/// Reads to keep in flight, each on a thread of its own (they wait on the storage, not on a core):
/// WAGENER_READ_THREADS when set to 1..64, else 8.
unsigned read_threads();

/// The block size of those reads: WAGENER_READ_BLOCK_MIB when set to 1..1024 (MiB), else 16 MiB.
std::size_t read_block_bytes();

/// Reads bytes [offset, offset + size) of fd into dest, `readers` blocks at once. Throws input_error
/// naming `name` for a read error or a file that ends early.
void read_in_parallel(int fd, std::string_view name, char* dest, std::uint64_t offset, std::size_t size,
                      unsigned readers);

/// Bytes [0, size) of a regular file, read front to back in blocks, `readers` at once, into buffers of
/// its own (readers + 2 blocks of memory in all), and handed out in file order.
class ReadAhead {
 public:
  struct Block {
    std::uint64_t offset = 0;      ///< in the file
    std::span<const char> bytes;   ///< valid until the next call of next(); 64-byte aligned
  };

  ReadAhead(int fd, std::string name, std::uint64_t size, std::size_t block_bytes, unsigned readers);
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;
  /// Stops the readers (a block being read is finished first).
  ~ReadAhead();

  /// The next block in file order, or nullopt after the last. Rethrows a reader's input_error.
  std::optional<Block> next();

 private:
  void serve();
  void stop();

  const int fd_;
  const std::string name_;
  const std::uint64_t size_;
  const std::size_t block_bytes_;
  const std::size_t blocks_;
  std::vector<std::unique_ptr<char, void (*)(char*)>> buffers_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::size_t> free_;              // buffers no block holds
  std::map<std::size_t, std::size_t> ready_;   // block -> buffer, read and not yet handed out
  std::size_t next_to_read_ = 0;
  std::size_t next_to_hand_out_ = 0;
  std::optional<std::size_t> handed_out_;      // the buffer the caller holds
  std::exception_ptr error_;
  bool stopping_ = false;
  std::vector<std::thread> readers_;
};

}  // namespace wagener::reading
