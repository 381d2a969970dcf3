// Writing point files. Output is "x y" lines in shortest round-trip decimal, so that reading a
// written file gives back the very same bits; files are replaced atomically (output_file.cpp).
#include <charconv>
#include <limits>
#include <span>
#include <string>

#include "wagener/io.hpp"

namespace wagener {

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

template std::string format_points<float>(std::span<const Point2<float>>);
template std::string format_points<double>(std::span<const Point2<double>>);
template void write_points<float>(const std::string&, std::span<const Point2<float>>);
template void write_points<double>(const std::string&, std::span<const Point2<double>>);

}  // namespace wagener
