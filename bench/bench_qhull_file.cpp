// bench_qhull_file FILE.f64: the Qhull side of the whole-process benchmark. Maps the raw
// little-endian double x,y pairs, runs qhull on them in place and prints the hull vertices
// counter-clockwise as `wagener hull` does.
#include <array>
#include <cstdio>
#include <exception>
#include <span>

#include "f64_file.hpp"
#include "qhull_peer.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE.f64\n", argv[0]);
    return 2;
  }
  try {
    using Pair = std::array<double, 2>;
    const bench::MappedPoints<Pair> points(argv[1]);
    const auto hull = bench::qhull_hull(std::span<const double>(points.coordinates(), 2 * points.size()));
    bench::print_points(hull, [](const Pair& p) { return p; });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_qhull_file: %s\n", e.what());
    return 1;
  }
  return 0;
}
