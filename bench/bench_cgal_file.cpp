// bench_cgal_file FILE.f64: the CGAL side of the whole-process benchmark. Maps the raw little-endian
// double x,y pairs, runs CGAL::convex_hull_2 on them in place and prints the hull as `wagener hull` does.
#include <cstdio>
#include <exception>

#include "cgal_peer.hpp"
#include "f64_file.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE.f64\n", argv[0]);
    return 2;
  }
  try {
    const bench::MappedPoints<bench::CgalPoint> points(argv[1]);
    const auto hull = bench::cgal_hull(points.begin(), points.end());
    bench::print_points(hull, [](const bench::CgalPoint& p) { return std::array<double, 2>{p.x(), p.y()}; });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cgal_file: %s\n", e.what());
    return 1;
  }
  return 0;
}
