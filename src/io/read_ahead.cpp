// Reading a file at the storage's speed (read_ahead.hpp).
#include "io/read_ahead.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <string>

#include "io/input_bytes.hpp"
#include "io/read_errors.hpp"
#include "wagener/error.hpp"

namespace wagener::reading {
namespace {

// Pages whose residency cached_share() asks for: windows spread evenly over the file, enough that a
// file half in the cache reads as about half, few enough that the question costs microseconds.
constexpr std::size_t kSampleWindows = 64;
constexpr std::size_t kPagesPerWindow = 16;

void pread_fully(int fd, std::string_view name, char* dest, std::uint64_t offset, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t got = ::pread(fd, dest + done, size - done, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      fail_system(name, "cannot read", errno);
    }
    if (got == 0) {
      throw input_error(std::string(display_name(name)) + ": cannot read: the file ended at byte " +
                        std::to_string(offset + done) + " while it was read (it shrank)");
    }
    done += static_cast<std::size_t>(got);
  }
}

char* allocate_block(std::size_t bytes) {
  constexpr std::size_t kAlignment = std::size_t{2} << 20;  // a huge page: one fault per 2 MiB
  const std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* p = std::aligned_alloc(kAlignment, rounded);
  if (p == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  ::madvise(p, rounded, MADV_HUGEPAGE);
#endif
  return static_cast<char*>(p);
}

}  // namespace

double cached_share(int fd, std::uint64_t size) {
  if (size == 0) return 1;
  const std::size_t page = page_size();
  const std::size_t length = static_cast<std::size_t>(size);
  void* address = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE, fd, 0);
  if (address == MAP_FAILED) return 0;
  const std::size_t pages = (length + page - 1) / page;
  const std::size_t windows = std::min(kSampleWindows, (pages + kPagesPerWindow - 1) / kPagesPerWindow);
  unsigned char resident[kPagesPerWindow];
  std::size_t asked = 0, held = 0;
  for (std::size_t w = 0; w < windows; ++w) {
    const std::size_t first = pages / windows * w;
    const std::size_t count = std::min(kPagesPerWindow, pages - first);
    if (::mincore(static_cast<char*>(address) + first * page, count * page, resident) != 0) continue;
    for (std::size_t i = 0; i < count; ++i) held += resident[i] & 1;
    asked += count;
  }
  ::munmap(address, length);
  return asked == 0 ? 0 : static_cast<double>(held) / static_cast<double>(asked);
}

std::uint64_t available_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib << 10;
  }
  return 0;
}

unsigned read_threads() {
  if (const char* text = std::getenv("WAGENER_READ_THREADS")) {
    const long value = std::strtol(text, nullptr, 10);
    if (value >= 1 && value <= 64) return static_cast<unsigned>(value);
  }
  return 8;
}

std::size_t read_block_bytes() {
  if (const char* text = std::getenv("WAGENER_READ_BLOCK_MIB")) {
    const long value = std::strtol(text, nullptr, 10);
    if (value >= 1 && value <= 1024) return static_cast<std::size_t>(value) << 20;
  }
  return std::size_t{16} << 20;
}

namespace {

void advise_sequential(int fd) {
  // The kernel's read-ahead window doubles for each read (and for the readers' next blocks).
  (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
}

}  // namespace

void read_in_parallel(int fd, std::string_view name, char* dest, std::uint64_t offset, std::size_t size,
                      unsigned readers) {
  advise_sequential(fd);
  const std::size_t block_bytes = read_block_bytes();
  const std::size_t blocks = (size + block_bytes - 1) / block_bytes;
  readers = static_cast<unsigned>(std::clamp<std::size_t>(blocks, 1, std::max(1u, readers)));
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(readers);
  const auto serve = [&](unsigned r) {
    try {
      for (std::size_t b; (b = next.fetch_add(1)) < blocks;) {
        const std::size_t begin = b * block_bytes, length = std::min(block_bytes, size - begin);
        pread_fully(fd, name, dest + begin, offset + begin, length);
      }
    } catch (...) {
      errors[r] = std::current_exception();
      next = blocks;  // the others stop after their current block
    }
  };
  {
    std::vector<std::jthread> threads;
    for (unsigned r = 1; r < readers; ++r) threads.emplace_back(serve, r);
    serve(0);
  }  // joins
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

ReadAhead::ReadAhead(int fd, std::string name, std::uint64_t size, std::size_t block_bytes, unsigned readers)
    : fd_(fd),
      name_(std::move(name)),
      size_(size),
      block_bytes_(block_bytes),
      blocks_(static_cast<std::size_t>((size + block_bytes - 1) / block_bytes)) {
  advise_sequential(fd);
  readers = static_cast<unsigned>(std::clamp<std::size_t>(blocks_, 1, std::max(1u, readers)));
  const std::size_t buffers = std::min<std::size_t>(blocks_, readers + 2);
  for (std::size_t b = 0; b < buffers; ++b) {
    buffers_.emplace_back(allocate_block(block_bytes_), [](char* p) { std::free(p); });
    free_.push_back(b);
  }
  try {
    for (unsigned r = 0; r < readers && blocks_ > 0; ++r) readers_.emplace_back([this] { serve(); });
  } catch (...) {
    stop();
    throw;
  }
}

ReadAhead::~ReadAhead() {
  stop();
}

void ReadAhead::stop() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : readers_) {
    if (t.joinable()) t.join();
  }
}

void ReadAhead::serve() {
  for (;;) {
    std::size_t block = 0, buffer = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || error_ || (next_to_read_ < blocks_ && !free_.empty()); });
      if (stopping_ || error_) return;
      block = next_to_read_++;
      buffer = free_.back();
      free_.pop_back();
    }
    const std::uint64_t offset = static_cast<std::uint64_t>(block) * block_bytes_;
    const std::size_t length = static_cast<std::size_t>(std::min<std::uint64_t>(block_bytes_, size_ - offset));
    std::exception_ptr error;
    try {
      pread_fully(fd_, name_, buffers_[buffer].get(), offset, length);
    } catch (...) {
      error = std::current_exception();
    }
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (error) {
        if (!error_) error_ = error;
        free_.push_back(buffer);
      } else {
        ready_.emplace(block, buffer);
      }
    }
    changed_.notify_all();
  }
}

std::optional<ReadAhead::Block> ReadAhead::next() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (handed_out_) {
    free_.push_back(*handed_out_);
    handed_out_.reset();
    changed_.notify_all();
  }
  if (next_to_hand_out_ == blocks_) return std::nullopt;
  changed_.wait(lock, [&] { return error_ || ready_.count(next_to_hand_out_) != 0; });
  if (error_) std::rethrow_exception(error_);
  const auto found = ready_.find(next_to_hand_out_);
  const std::size_t buffer = found->second;
  ready_.erase(found);
  handed_out_ = buffer;
  const std::uint64_t offset = static_cast<std::uint64_t>(next_to_hand_out_) * block_bytes_;
  ++next_to_hand_out_;
  Block block;
  block.offset = offset;
  block.bytes = {buffers_[buffer].get(),
                 static_cast<std::size_t>(std::min<std::uint64_t>(block_bytes_, size_ - offset))};
  return block;
}

}  // namespace wagener::reading
