// Bytes in (input_bytes.hpp): file mapping and the stdin buffer.
#include "io/input_bytes.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <utility>

#include "io/read_ahead.hpp"
#include "io/read_errors.hpp"

namespace wagener::reading {

std::size_t page_size() {
  static const auto size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

namespace {

class UniqueFd {
 public:
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

std::size_t round_up_to_pages(std::size_t bytes) {
  return (bytes + page_size() - 1) / page_size() * page_size();
}

// A file the page cache holds at least this share of is mapped; a colder one is read.
constexpr double kMappedCachedShare = 0.9;

// Maps bytes [offset, offset + size) of a regular file; nullopt where the file system cannot map.
std::optional<InputBytes> map_file(int fd, std::uint64_t offset, std::size_t size, bool populate) {
  const std::uint64_t start = offset / page_size() * page_size();  // mmap's offset must be page-aligned
  const auto length = static_cast<std::size_t>(offset - start) + size;
  // Every byte is about to be validated, so fault a cached file in now rather than page by page.
  // This runs on one thread, before the validation's; leaving the faults to those threads was no
  // faster (2-core KVM guest, file in the page cache: `wagener hull FILE.f64 --backend cpu` median
  // 54 ms for 10^7 points either way, 218 against 220 ms for 10^8): populating 1.6 GB of cached
  // file took 0.5 ms, the page cache holding it in large folios. A file larger than memory is not
  // populated: its first pages would be evicted before they are read, and read twice.
  void* address = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd,
                         static_cast<off_t>(start));
  if (address == MAP_FAILED) return std::nullopt;
  // Under memory pressure, read ahead aggressively and drop pages behind the parser.
  ::madvise(address, length, MADV_SEQUENTIAL);
  InputBytes input;
  input.owner = std::shared_ptr<const void>(
      address, [length](const void* p) { ::munmap(const_cast<void*>(p), length); });
  input.bytes = {static_cast<const char*>(address) + (offset - start), size};
  return input;
}

// A file the page cache does not hold, read into anonymous memory by many reads at once: one
// sequential reader, and the page faults of a mapping walked front to back, keep one request in
// flight and reach a fraction of the storage's speed (bench/NOTES.md, "Reading cold files").
InputBytes read_cold_file(int fd, std::string_view name, std::size_t size) {
  const std::size_t capacity = round_up_to_pages(size);
  void* address = ::mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (address == MAP_FAILED) fail_system(name, "cannot read", errno);
  InputBytes input;
  input.owner = std::shared_ptr<const void>(
      address, [capacity](const void* p) { ::munmap(const_cast<void*>(p), capacity); });
#ifdef MADV_HUGEPAGE
  ::madvise(address, capacity, MADV_HUGEPAGE);
#endif
  read_in_parallel(fd, name, static_cast<char*>(address), 0, size, read_threads());
  ::mprotect(address, capacity, PROT_READ);  // from here on it is input
  input.bytes = {static_cast<const char*>(address), size};
  return input;
}

// A stream (pipe, terminal, socket, a file that cannot be mapped) read to its end into an anonymous
// mapping that doubles as it fills. mremap moves the pages rather than their bytes, so growing copies
// nothing, and the input is held once: text is parsed in place and binary points are a view of it.
class StreamBuffer {
 public:
  StreamBuffer() = default;
  StreamBuffer(const StreamBuffer&) = delete;
  StreamBuffer& operator=(const StreamBuffer&) = delete;
  ~StreamBuffer() {
    if (data_ != nullptr) ::munmap(data_, capacity_);
  }

  // `expected_size` (what fstat says, when anything) saves the doublings up to it.
  InputBytes read_all(int fd, std::string_view name, std::size_t expected_size = 0) && {
    constexpr std::size_t kInitialCapacity = std::size_t{1} << 20;
    // One byte beyond the expected size, so that end of file is seen without growing.
    reserve(std::max(kInitialCapacity, expected_size + 1), name);
    for (;;) {
      if (size_ == capacity_) reserve(2 * capacity_, name);
      const ssize_t got = ::read(fd, data_ + size_, capacity_ - size_);
      if (got < 0) {
        if (errno == EINTR) continue;
        fail_system(name, "cannot read", errno);
      }
      if (got == 0) break;
      size_ += static_cast<std::size_t>(got);
    }
    return release();
  }

 private:
  void reserve(std::size_t capacity, std::string_view name) {
    capacity = round_up_to_pages(capacity);
    void* address = data_ == nullptr ? ::mmap(nullptr, capacity, PROT_READ | PROT_WRITE,
                                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                                     : ::mremap(data_, capacity_, capacity, MREMAP_MAYMOVE);
    if (address == MAP_FAILED) fail_system(name, "cannot read", errno);
    data_ = static_cast<char*>(address);
    capacity_ = capacity;
  }

  InputBytes release() {
    if (size_ == 0) return {};
    // Give back the unused tail (shrinking never moves), and make the rest read-only: from here on
    // it is input, and perhaps the points themselves.
    if (const std::size_t needed = round_up_to_pages(size_); needed < capacity_) {
      if (::mremap(data_, capacity_, needed, 0) != MAP_FAILED) capacity_ = needed;
    }
    ::mprotect(data_, capacity_, PROT_READ);
    InputBytes input;
    input.owner = std::shared_ptr<const void>(
        data_, [length = capacity_](const void* p) { ::munmap(const_cast<void*>(p), length); });
    input.bytes = {data_, size_};
    data_ = nullptr;
    return input;
  }

  char* data_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t size_ = 0;
};

// Standard input is read from file descriptor 0, not through stdio: nothing else in a process that
// reads points should have consumed part of it. Redirected from a regular file (`< points.f64`) it is
// mapped like a named file, from where its offset stands, and the offset is then moved to the end,
// as reading would have.
InputBytes read_stdin() {
  constexpr std::string_view kName = "<stdin>";
  constexpr int kStdin = 0;
  struct stat info {};
  if (::fstat(kStdin, &info) != 0) fail_system(kName, "cannot read", errno);
  if (S_ISDIR(info.st_mode)) fail_system(kName, "cannot read", EISDIR);
  if (S_ISREG(info.st_mode) && info.st_size > 0) {
    const off_t offset = ::lseek(kStdin, 0, SEEK_CUR);
    if (offset >= 0) {
      const auto size = static_cast<std::size_t>(std::max<off_t>(info.st_size - offset, 0));
      if (size == 0) return {};
      if (auto input = map_file(kStdin, static_cast<std::uint64_t>(offset), size, /*populate=*/true)) {
        ::lseek(kStdin, info.st_size, SEEK_SET);
        return std::move(*input);
      }
    }
  }
  return StreamBuffer().read_all(kStdin, kName);
}

// Populating a mapping runs on one thread. Up to this size it is cheap (a cached 1.6 GB file took
// 0.5 ms on the 2-core guest); beyond, the threads that read the points fault their own parts in, at
// once (bench/NOTES.md, "Reading cold files"). WAGENER_MAP_POPULATE=0 or 1 overrides it, for
// measurements.
constexpr std::uint64_t kMaxPopulatedBytes = std::uint64_t{2} << 30;

bool populate_mapping(std::uint64_t size, double cached_share) {
  if (const char* forced = std::getenv("WAGENER_MAP_POPULATE"); forced != nullptr && forced[0] != '\0') {
    return forced[0] == '1';
  }
  return cached_share >= kMappedCachedShare && size <= kMaxPopulatedBytes;
}

}  // namespace

FileAccess choose_file_access(std::uint64_t size, double cached_share, std::uint64_t available) {
  // Half of the free memory at most: the hull's own work needs the rest. A larger file is mapped
  // and read by its page faults, whatever they cost.
  return cached_share < kMappedCachedShare && size <= available / 2 ? FileAccess::read : FileAccess::mapped;
}

InputBytes read_file(const std::string& path, FileAccess access) {
  if (path == "-") return read_stdin();
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) fail_system(path, "cannot open", errno);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) fail_system(path, "cannot open", errno);
  if (S_ISDIR(info.st_mode)) fail_system(path, "cannot open", EISDIR);

  std::size_t expected_size = 0;
  if (S_ISREG(info.st_mode) && info.st_size > 0) {
    expected_size = static_cast<std::size_t>(info.st_size);
    const double cached = access == FileAccess::read ? 0 : cached_share(fd.get(), expected_size);
    if (access == FileAccess::automatic) access = choose_file_access(expected_size, cached, available_memory());
    if (access == FileAccess::read) return read_cold_file(fd.get(), path, expected_size);
    if (auto input = map_file(fd.get(), 0, expected_size, populate_mapping(expected_size, cached))) {
      return std::move(*input);
    }
    // Some file systems cannot map; reading works everywhere.
  }
  // Pipes, devices, and procfs files that report size 0.
  return StreamBuffer().read_all(fd.get(), path, expected_size);
}

}  // namespace wagener::reading
