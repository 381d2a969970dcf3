// Writing point files. Output is "x y" lines in shortest round-trip decimal, so that reading a
// written file gives back the very same bits; files are replaced atomically, so that a failure (disk
// full, killed process) never leaves a half-written hull where a complete one was expected.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "wagener/error.hpp"
#include "wagener/io.hpp"

namespace wagener {
namespace {

[[noreturn]] void fail_write(std::string_view name, int error) {
  throw input_error(std::string(name) + ": cannot write: " + std::strerror(error));
}

// Owns a descriptor and, until commit(), the temporary file behind it.
class TempFile {
 public:
  explicit TempFile(std::string path_template) : path_(std::move(path_template)) {
    fd_ = ::mkstemp(path_.data());
    if (fd_ < 0) path_.clear();
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!path_.empty()) ::unlink(path_.c_str());
  }

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

  // Closes the descriptor (reporting write-back errors close() may reveal); returns errno or 0.
  int close() {
    const int result = ::close(fd_);
    fd_ = -1;
    return result == 0 ? 0 : errno;
  }
  // The file now lives under another name: nothing left to clean up.
  void commit() { path_.clear(); }

 private:
  std::string path_;
  int fd_ = -1;
};

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

void write_stdout(std::string_view bytes) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size() || std::fflush(stdout) != 0) {
    fail_write("<stdout>", errno);
  }
}

// Devices and pipes (/dev/null, /dev/stdout, a FIFO) are written in place: renaming a file over them
// would replace the device node itself.
void write_in_place(const std::string& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) fail_write(path, errno);
  const int error = write_all(fd, bytes);
  const int close_error = ::close(fd) == 0 ? 0 : errno;
  if (error != 0 || close_error != 0) fail_write(path, error != 0 ? error : close_error);
}

}  // namespace

template <class T>
std::string format_points(std::span<const Point2<T>> points) {
  // Shortest round-trip decimal needs at most max_digits10 significant digits plus a sign, a point,
  // and an exponent ("e-308"): 8 characters cover all but the digits.
  constexpr std::size_t kMaxCoordinate = std::numeric_limits<T>::max_digits10 + 8;
  constexpr std::size_t kMaxLine = 2 * kMaxCoordinate + 2;  // plus ' ' and '\n'
  std::string out(points.size() * kMaxLine, '\0');
  char* p = out.data();
  char* const end = p + out.size();
  for (const Point2<T>& point : points) {
    p = std::to_chars(p, end, point.x).ptr;
    *p++ = ' ';
    p = std::to_chars(p, end, point.y).ptr;
    *p++ = '\n';
  }
  out.resize(static_cast<std::size_t>(p - out.data()));
  return out;
}

template <class T>
void write_points(const std::string& path, std::span<const Point2<T>> points) {
  write_file_atomically(path, format_points(points));
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
  if (path == "-") return write_stdout(bytes);

  struct stat existing {};
  const bool exists = ::stat(path.c_str(), &existing) == 0;
  if (exists && S_ISDIR(existing.st_mode)) fail_write(path, EISDIR);
  if (exists && !S_ISREG(existing.st_mode)) return write_in_place(path, bytes);

  // Beside the target, so that rename() stays within one file system and is atomic.
  TempFile temp(path + ".tmp.XXXXXX");
  if (temp.fd() < 0) fail_write(path, errno);
  // A replaced file keeps its permissions; a new one gets the usual ones.
  const mode_t mode = exists ? (existing.st_mode & 07777) : default_file_mode();
  if (::fchmod(temp.fd(), mode) != 0) fail_write(path, errno);
  if (const int error = write_all(temp.fd(), bytes); error != 0) fail_write(path, error);
  if (const int error = temp.close(); error != 0) fail_write(path, error);
  if (::rename(temp.path().c_str(), path.c_str()) != 0) fail_write(path, errno);
  temp.commit();
}

template std::string format_points<float>(std::span<const Point2<float>>);
template std::string format_points<double>(std::span<const Point2<double>>);
template void write_points<float>(const std::string&, std::span<const Point2<float>>);
template void write_points<double>(const std::string&, std::span<const Point2<double>>);

}  // namespace wagener
