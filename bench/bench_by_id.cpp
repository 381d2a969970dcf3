// bench_by_id [--groups G] [--size S] [--runs N] [--ids sorted|numbered|labels|hash] [--indices]:
// wagener::convex_hulls_by_id on G groups of S f64 points (a uniform disk per group around its own
// centre), against convex_hulls on the same groups already in place, so that the difference is
// what grouping by id costs. The ids:
//   sorted    group after group, 0, 1, 2, ... (a file listing its groups one after another);
//   numbered  the rows shuffled, the groups numbered in order of first appearance (what the csv
//             reader makes of such a file);
//   labels    the rows shuffled, each group a distinct random label below 2G;
//   hash      the rows shuffled, each group a random 64-bit id.
// Prints one markdown row: medians and minima of wall time and processor time over N calls.
// Uses the public API only, so that any build since convex_hulls_by_id existed can run it.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "wagener/grouped.hpp"

namespace {

using Point = wagener::Point2<double>;

double process_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

struct Timing {
  double wall_median, wall_min, cpu_median, cpu_min;
};

template <class Call>
Timing time_calls(int runs, Call&& call) {
  std::vector<double> wall, cpu;
  call();  // warm-up: the worker threads started, the allocator's arenas grown
  for (int r = 0; r < runs; ++r) {
    const double c0 = process_ms();
    const auto t0 = std::chrono::steady_clock::now();
    call();
    wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    cpu.push_back(process_ms() - c0);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], wall.front(), cpu[cpu.size() / 2], cpu.front()};
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t groups = 100000, size = 100;
  int runs = 9;
  std::string ids_kind = "sorted";
  bool indices = false;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--indices")) {
      indices = true;
    } else if (has_value && !std::strcmp(argv[i], "--groups")) {
      groups = std::strtoull(argv[++i], nullptr, 10);
    } else if (has_value && !std::strcmp(argv[i], "--size")) {
      size = std::strtoull(argv[++i], nullptr, 10);
    } else if (has_value && !std::strcmp(argv[i], "--runs")) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (has_value && !std::strcmp(argv[i], "--ids")) {
      ids_kind = argv[++i];
    } else {
      std::fprintf(
          stderr,
          "usage: bench_by_id [--groups G] [--size S] [--runs N] [--ids sorted|numbered|labels|hash] "
          "[--indices]\n");
      return 2;
    }
  }
  if (ids_kind != "sorted" && ids_kind != "numbered" && ids_kind != "labels" && ids_kind != "hash") {
    std::fprintf(stderr, "bench_by_id: --ids is sorted, numbered, labels or hash\n");
    return 2;
  }
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> centre(-1000, 1000), unit(-1, 1);
  const std::size_t n = groups * size;
  std::vector<Point> points;
  std::vector<std::int64_t> group_of;
  points.reserve(n);
  group_of.reserve(n);
  for (std::size_t g = 0; g < groups; ++g) {
    const double cx = centre(rng), cy = centre(rng);
    while (points.size() < (g + 1) * size) {
      const double x = unit(rng), y = unit(rng);
      if (x * x + y * y > 1) continue;
      points.push_back({cx + x, cy + y});
      group_of.push_back(static_cast<std::int64_t>(g));
    }
  }
  // The same groups in place, for convex_hulls: the hulls' own cost.
  std::vector<std::int64_t> offsets(groups + 1);
  for (std::size_t g = 0; g <= groups; ++g) offsets[g] = static_cast<std::int64_t>(g * size);
  wagener::HullOptions options;
  options.backend = wagener::Backend::cpu;
  options.indices = indices;
  const Timing in_place =
      time_calls(runs, [&] { return wagener::convex_hulls<double>(points, offsets, options); });

  std::vector<std::int64_t> ids = group_of;
  if (ids_kind != "sorted") {
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<Point> shuffled(n);
    for (std::size_t i = 0; i < n; ++i) {
      shuffled[i] = points[order[i]];
      ids[i] = group_of[order[i]];
    }
    points.swap(shuffled);
    // Distinct names: labels drawn without repeats from [0, 2G), or random 64-bit values.
    std::vector<std::int64_t> name(2 * groups);
    for (std::size_t g = 0; g < name.size(); ++g) name[g] = static_cast<std::int64_t>(g);
    std::shuffle(name.begin(), name.end(), rng);
    std::uniform_int_distribution<std::int64_t> any;
    if (ids_kind == "numbered") {
      std::int64_t next = 0;
      std::vector<std::int64_t> number(groups, -1);
      for (auto& id : ids) {
        auto& slot = number[static_cast<std::size_t>(id)];
        if (slot < 0) slot = next++;
        id = slot;
      }
    } else {
      if (ids_kind == "hash")
        for (auto& v : name) v = any(rng);
      for (auto& id : ids) id = name[static_cast<std::size_t>(id)];
    }
  }
  std::size_t hull_groups = 0;
  const Timing by_id = time_calls(runs, [&] {
    const auto hulls = wagener::convex_hulls_by_id<double>(points, ids, options);
    hull_groups = hulls.groups();
  });
  std::printf("| %s | %zu | %zu | %s | %.3f (%.3f) | %.3f (%.3f) | %.3f (%.3f) | %.3f (%.3f) | %.3f |\n",
              ids_kind.c_str(), n, hull_groups, indices ? "yes" : "no", by_id.wall_median, by_id.wall_min,
              by_id.cpu_median, by_id.cpu_min, in_place.wall_median, in_place.wall_min, in_place.cpu_median,
              in_place.cpu_min, by_id.wall_median - in_place.wall_median);
  return 0;
}
