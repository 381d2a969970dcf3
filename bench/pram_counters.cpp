// The PRAM emulator's counters for the seed's merge and for the optimal-work variant, on inputs with
// every point on the hood (a parabola), as the Markdown table of docs/algorithm.md. Counters, not
// times: the output is the same on every machine.
//   pram_counters [max_log2]   (default 20)
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "pram/pram_hull.hpp"

namespace {

using wagener::Point2;

/// n points on y = -x^2 at integer x: every point is a vertex, exactly (no rounding at these sizes).
std::vector<Point2<double>> parabola(std::int64_t n) {
  std::vector<Point2<double>> pts(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const auto x = static_cast<double>(i - n / 2);
    pts[static_cast<std::size_t>(i)] = {x, -x * x};
  }
  return pts;
}

}  // namespace

int main(int argc, char** argv) {
  const int max_log2 = argc > 1 ? std::atoi(argv[1]) : 20;
  std::printf(
      "| n | seed: rounds | seed: steps | seed: work | seed: work / n | optimal: rounds | optimal: steps "
      "| optimal: work | optimal: work / n | optimal: max processors |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (int k = 10; k <= max_log2; k += 2) {
    const std::int64_t n = std::int64_t{1} << k;
    const auto pts = parabola(n);
    wagener::pram::Counters seed, optimal;
    const auto a = wagener::pram::upper_hull<double>(pts, &seed);
    const auto b = wagener::pram::upper_hull_optimal<double>(pts, &optimal);
    if (a != b || static_cast<std::int64_t>(a.size()) != n) {
      std::fprintf(stderr, "n = 2^%d: the two merges disagree (%zu and %zu vertices)\n", k, a.size(),
                   b.size());
      return 1;
    }
    const auto per_n = [n](std::int64_t work) { return static_cast<double>(work) / static_cast<double>(n); };
    std::printf("| 2^%d | %lld | %lld | %lld | %.1f | %lld | %lld | %lld | %.2f | %lld |\n", k,
                static_cast<long long>(seed.rounds), static_cast<long long>(seed.parallel_steps),
                static_cast<long long>(seed.work), per_n(seed.work), static_cast<long long>(optimal.rounds),
                static_cast<long long>(optimal.parallel_steps), static_cast<long long>(optimal.work),
                per_n(optimal.work), static_cast<long long>(optimal.max_processors));
  }
  return 0;
}
