// Output files replaced atomically (temporary file + rename), standard output, and devices written in
// place.
#include "io/output_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

#include "wagener/error.hpp"
#include "wagener/io.hpp"

namespace wagener {
namespace detail {
namespace {

[[noreturn]] void fail_write(std::string_view name, int error) {
  throw input_error(std::string(name) + ": cannot write: " + std::strerror(error));
}

// Writes all bytes, retrying short writes and interruptions; returns errno or 0.
int write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t wrote = ::write(fd, bytes.data(), bytes.size());
    if (wrote < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    bytes.remove_prefix(static_cast<std::size_t>(wrote));
  }
  return 0;
}

// The same at an offset, leaving the descriptor's position alone.
int write_all_at(int fd, std::uint64_t offset, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t wrote = ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (wrote < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    bytes.remove_prefix(static_cast<std::size_t>(wrote));
    offset += static_cast<std::uint64_t>(wrote);
  }
  return 0;
}

// The permissions a plain open(O_CREAT, 0666) would give: mkstemp creates 0600, and an output file
// should be as readable as any other. The umask is read from procfs because umask(2) can only be
// read by setting it, which races with other threads creating files.
mode_t default_file_mode() {
  constexpr mode_t kCreateMode = 0666;
  constexpr mode_t kUsualUmask = 022;
  mode_t mask = kUsualUmask;
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Umask:", 0) == 0) {
      const std::string_view digits = std::string_view(line).substr(line.find_first_not_of(" \t", 6));
      unsigned value = 0;
      if (std::from_chars(digits.data(), digits.data() + digits.size(), value, 8).ec == std::errc()) {
        mask = static_cast<mode_t>(value);
      }
      break;
    }
  }
  return kCreateMode & ~mask;
}

}  // namespace

OutputFile::OutputFile(const std::string& path) : path_(path) {
  if (path == "-") {
    kind_ = Kind::standard_output;
    return;
  }
  struct stat existing {};
  const bool exists = ::stat(path.c_str(), &existing) == 0;
  if (exists && S_ISDIR(existing.st_mode)) fail_write(path, EISDIR);
  if (exists && !S_ISREG(existing.st_mode)) {
    kind_ = Kind::in_place;
    fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) fail_write(path, errno);
    return;
  }
  // Beside the target, so that rename() stays within one file system and is atomic.
  temp_path_ = path + ".tmp.XXXXXX";
  fd_ = ::mkstemp(temp_path_.data());
  if (fd_ < 0) {
    const int error = errno;
    temp_path_.clear();
    fail_write(path, error);
  }
  // A replaced file keeps its permissions; a new one gets the usual ones. On failure the destructor
  // does not run (the constructor throws), so clean up here.
  const mode_t mode = exists ? (existing.st_mode & 07777) : default_file_mode();
  if (::fchmod(fd_, mode) != 0) {
    const int error = errno;
    ::close(fd_);
    ::unlink(temp_path_.c_str());
    fail_write(path, error);
  }
}

OutputFile::~OutputFile() {
  if (mapped_ != nullptr) ::munmap(mapped_, static_cast<std::size_t>(mapped_bytes_));
  if (fd_ >= 0) ::close(fd_);
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
}

void OutputFile::append(std::string_view bytes) {
  if (kind_ == Kind::standard_output) {
    if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size()) fail_write("<stdout>", errno);
    return;
  }
  if (const int error = write_all(fd_, bytes); error != 0) fail_write(path_, error);
}

void OutputFile::write_at(std::uint64_t offset, std::string_view bytes) {
  if (const int error = write_all_at(fd_, offset, bytes); error != 0) fail_write(path_, error);
}

char* OutputFile::map_for_writing(std::uint64_t max_bytes) {
  if (kind_ != Kind::temporary || max_bytes == 0) return nullptr;
  // fallocate reserves the blocks (a full disk fails here, not as SIGBUS in a page fault later); a
  // file system without it (EOPNOTSUPP) is written the ordinary way.
  if (::fallocate(fd_, 0, 0, static_cast<off_t>(max_bytes)) != 0) return nullptr;
  void* address = ::mmap(nullptr, static_cast<std::size_t>(max_bytes), PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (address == MAP_FAILED) {
    if (::ftruncate(fd_, 0) != 0) fail_write(path_, errno);
    return nullptr;
  }
  mapped_ = static_cast<char*>(address);
  mapped_bytes_ = max_bytes;
  return mapped_;
}

void OutputFile::finish_mapped(std::uint64_t size) {
  ::munmap(mapped_, static_cast<std::size_t>(mapped_bytes_));
  mapped_ = nullptr;
  if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) fail_write(path_, errno);
}

void OutputFile::commit() {
  if (kind_ == Kind::standard_output) {
    if (std::fflush(stdout) != 0) fail_write("<stdout>", errno);
    return;
  }
  // close() may be where a write-back error (a full disk over NFS) first shows.
  const int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0) fail_write(path_, errno);
  if (kind_ == Kind::temporary) {
    if (::rename(temp_path_.c_str(), path_.c_str()) != 0) fail_write(path_, errno);
    temp_path_.clear();
  }
}

}  // namespace detail

void write_file_atomically(const std::string& path, std::string_view bytes) {
  detail::OutputFile file(path);
  file.append(bytes);
  file.commit();
}

}  // namespace wagener
