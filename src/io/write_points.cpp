// Point files out: "x y" lines in shortest round-trip decimal, so that reading a written file gives
// back the very same bits. The text layout is the hull writer's (format_output.cpp), so the two can
// never drift apart; files are replaced atomically (output_file.cpp).
#include <span>
#include <string>

#include "wagener/io.hpp"
#include "wagener/output.hpp"

namespace wagener {

template <class T>
std::string format_points(std::span<const Point2<T>> points) {
  return format_hull<T>(points, {.format = OutputFormat::text});
}

template <class T>
void write_points(const std::string& path, std::span<const Point2<T>> points) {
  write_hull<T>(path, points, {.format = OutputFormat::text});
}

#define WAGENER_INSTANTIATE(T)                                       \
  template std::string format_points<T>(std::span<const Point2<T>>); \
  template void write_points<T>(const std::string&, std::span<const Point2<T>>);
WAGENER_FOR_EACH_COORDINATE(WAGENER_INSTANTIATE)
#undef WAGENER_INSTANTIATE

}  // namespace wagener
