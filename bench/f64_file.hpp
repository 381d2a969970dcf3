// Raw f64 point files in and "x y" hull lines out, for the peer programs of the whole-process
// benchmark. Independent of wagener's reader, but with the same I/O strategy (a populated read-only
// mapping, no copy), so that the comparison measures the hull algorithms rather than file reading.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <charconv>
#include <cstddef>
#include <cstdio>
#include <iterator>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace bench {

/// The points of a file of little-endian double x,y pairs, viewed in place as P: any trivially
/// copyable pair of doubles, e.g. CGAL::Epick::Point_2, so each peer gets its native type for free.
template <class P>
class MappedPoints {
  static_assert(std::is_trivially_copyable_v<P> && sizeof(P) == 2 * sizeof(double),
                "P must be exactly two doubles to be viewed straight from the file");

 public:
  explicit MappedPoints(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) throw std::runtime_error(path + ": cannot open");
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_size % static_cast<off_t>(sizeof(P)) != 0) {
      ::close(fd);
      throw std::runtime_error(path + ": not a whole number of f64 x,y pairs");
    }
    bytes_ = static_cast<std::size_t>(st.st_size);
    if (bytes_ > 0) {
      // MAP_POPULATE maps every page up front, as wagener's reader does: one call instead of a
      // page fault per 4 KiB. PROT_READ also proves that the peer never writes its input.
      data_ = ::mmap(nullptr, bytes_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    }
    ::close(fd);
    if (data_ == MAP_FAILED) throw std::runtime_error(path + ": cannot map");
    if (data_) ::madvise(data_, bytes_, MADV_SEQUENTIAL);
  }
  MappedPoints(const MappedPoints&) = delete;
  MappedPoints& operator=(const MappedPoints&) = delete;
  ~MappedPoints() {
    if (data_) ::munmap(data_, bytes_);
  }

  const P* begin() const { return static_cast<const P*>(data_); }
  const P* end() const { return begin() + size(); }
  std::size_t size() const { return bytes_ / sizeof(P); }
  /// The same bytes as x0 y0 x1 y1 ..., the layout C libraries such as Qhull take.
  const double* coordinates() const { return static_cast<const double*>(data_); }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Prints one "x y" line per vertex in shortest round-trip decimal (what `wagener hull` prints),
/// with a single write.
template <class Range, class GetXY>
void print_points(const Range& vertices, GetXY xy) {
  std::string out;
  out.reserve(std::size(vertices) * 52);  // two shortest doubles are at most 2 * 24 chars + 2
  char buf[64];
  for (const auto& v : vertices) {
    const std::array<double, 2> c = xy(v);
    char* p = std::to_chars(buf, buf + sizeof buf, c[0]).ptr;
    *p++ = ' ';
    p = std::to_chars(p, buf + sizeof buf, c[1]).ptr;
    *p++ = '\n';
    out.append(buf, p);
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
}

}  // namespace bench
