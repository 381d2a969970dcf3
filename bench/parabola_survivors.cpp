// The presorted float guide filter on bench_cuda's parabola (`--input parabola --precision float`),
// modelled on the host step for step: the bigger sample's evenly spaced points, their exact upper
// hull as the guide, the filter's float test of each point against its guide edge
// (core::certainly_right_in_float, the kernel's own), then the thinning of what it keeps
// (core::thinned_by_neighbours with the neighbours a warp sees: the point before it within the warp,
// and the next point unlike it in its row of 32 or the next). It prints the survivors the GPU's
// filter leaves with --filter-thinning off, repeats and in-line, and, as design bounds, what each
// warp's or each row's own exact upper hull would leave of them, and what a guide of the sample's
// first tile level's hoods (without the levels that join them) would leave. The model's count with no
// thinning is the GPU's to the point (29,532,287 at 2^28, bench/NOTES.md).
//
// Usage: parabola_survivors [LOG2N (default 28)] [DENSE_SAMPLE_SHIFT ... (default the policy's)]
// Memory: the sample (n >> shift points) only; each warp's points are generated as it is judged.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/float_orientation.hpp"
#include "core/neighbour_thinning.hpp"
#include "cpu/monotone_chain.hpp"
#include "cuda/policy.cuh"
#include "families.hpp"
#include "wagener/predicates.hpp"

namespace {

using wagener::index_t;
using P = wagener::Point2<float>;
using Policy = wagener::cuda::UpperHullPolicy<float>;

constexpr int kWarp = 32, kWarpPoints = kWarp * Policy::kFilterItems;

/// How many of points[from, to) are strict vertices of their own upper hull and marked in `kept`.
index_t kept_vertices(const std::vector<P>& points, std::size_t from, std::size_t to,
                      const std::vector<char>& kept) {
  std::vector<std::size_t> hull;
  for (std::size_t r = from; r < to; ++r) {
    if (!hull.empty() && wagener::same_point(points[hull.back()], points[r])) continue;
    while (hull.size() >= 2 &&
           wagener::orient2d(points[hull[hull.size() - 2]], points[hull.back()], points[r]) >= 0)
      hull.pop_back();
    hull.push_back(r);
  }
  index_t count = 0;
  for (const std::size_t r : hull) count += kept[r];
  return count;
}

struct Survivors {
  index_t off = 0, repeats = 0, in_line = 0, warp_hulls = 0, row_hulls = 0;
};

/// What the filter keeps of the parabola's n points behind `guide`, thinned or not, and the bounds.
Survivors survivors_behind(index_t n, const std::vector<P>& guide) {
  Survivors out;
  const auto k = static_cast<index_t>(guide.size());
  index_t e = 0;  // the guide edge (e, e + 1) whose stretch holds the point: it only moves right
  std::vector<P> warp(kWarpPoints);
  std::vector<char> kept(kWarpPoints);
  for (index_t first = 0; first < n; first += kWarpPoints) {
    const auto count = static_cast<std::size_t>(std::min<index_t>(kWarpPoints, n - first));
    for (std::size_t r = 0; r < count; ++r)
      warp[r] = bench::sorted_parabola_point<float>(static_cast<std::uint64_t>(first) + r,
                                                    static_cast<std::uint64_t>(n));
    for (std::size_t r = 0; r < count; ++r) {
      const P b = warp[r];
      while (e + 1 < k && !wagener::lex_less(b, guide[static_cast<std::size_t>(e + 1)])) ++e;
      kept[r] =
          !(e + 1 < k && wagener::core::certainly_right_in_float(guide[static_cast<std::size_t>(e)],
                                                                 guide[static_cast<std::size_t>(e + 1)], b));
      if (!kept[r]) continue;
      ++out.off;
      std::size_t c = r + 1;
      while (c < count && wagener::same_point(warp[c], b)) ++c;
      const bool has_a = r > 0, has_c = c < count && c < r / kWarp * kWarp + 2 * kWarp;
      const P a = has_a ? warp[r - 1] : b, after = has_c ? warp[c] : b;
      out.repeats += !wagener::core::thinned_by_neighbours<false>(has_a, a, b, has_c, after);
      out.in_line += !wagener::core::thinned_by_neighbours<true>(has_a, a, b, has_c, after);
    }
    out.warp_hulls += kept_vertices(warp, 0, count, kept);
    for (std::size_t row = 0; row < count; row += kWarp)
      out.row_hulls += kept_vertices(warp, row, std::min(count, row + kWarp), kept);
  }
  return out;
}

void model(int log2n, int shift) {
  const auto n = index_t{1} << log2n;
  // UpperHullWorkspace::sample_count with the policy's bounds.
  const index_t m = std::clamp(n >> shift, std::min<index_t>(n, Policy::kMinSample),
                               std::min<index_t>(n, Policy::kMaxSample));
  std::vector<P> sample(static_cast<std::size_t>(m));
  for (index_t k = 0; k < m; ++k)  // direction_guide::sample_place
    sample[static_cast<std::size_t>(k)] = bench::sorted_parabola_point<float>(
        static_cast<std::uint64_t>(m > 1 ? k * (n - 1) / (m - 1) : 0), static_cast<std::uint64_t>(n));
  const std::vector<P> guide = wagener::cpu::upper_chain<float>(sample);  // the device's sample hull
  const auto k = static_cast<index_t>(guide.size());
  std::printf("2^%d points, a sample of n >> %d = %lld, its hull %lld vertices (%.3f of it)", log2n, shift,
              static_cast<long long>(m), static_cast<long long>(k),
              static_cast<double>(k) / static_cast<double>(m));
  if (static_cast<double>(k) > Policy::kMaxGuideFraction * static_cast<double>(m)) {
    std::printf(": above kMaxGuideFraction, so no filter\n");
    return;
  }
  // A design bound: the sample's first tile level's hoods, one after another, as the guide (any
  // sorted input points serve as a guide: the filter's argument needs no convexity), without the
  // levels that join them.
  std::vector<P> first_level;
  for (std::size_t t = 0; t < sample.size(); t += Policy::kTile) {
    const std::vector<P> tile(
        sample.begin() + static_cast<std::ptrdiff_t>(t),
        sample.begin() + static_cast<std::ptrdiff_t>(std::min(sample.size(), t + Policy::kTile)));
    for (const P& p : wagener::cpu::upper_chain<float>(tile))
      if (first_level.empty() || wagener::lex_less(first_level.back(), p)) first_level.push_back(p);
  }
  std::printf("; its first tile level's hoods %zu points\n", first_level.size());
  std::printf(
      "| 2^%d, shift %d: the guide | off | repeats | in line | a warp's own hull | a row's own hull |\n",
      log2n, shift);
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  const auto row = [](const char* what, const Survivors& c) {
    std::printf("| %s | %lld | %lld | %lld | %lld | %lld |\n", what, static_cast<long long>(c.off),
                static_cast<long long>(c.repeats), static_cast<long long>(c.in_line),
                static_cast<long long>(c.warp_hulls), static_cast<long long>(c.row_hulls));
  };
  row("the sample's hull", survivors_behind(n, guide));
  row("its first level's hoods", survivors_behind(n, first_level));
}

/// A whole number in [lo, hi], or lo - 1.
int parse_int(const char* text, int lo, int hi) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  return end != text && *end == '\0' && value >= lo && value <= hi ? static_cast<int>(value) : lo - 1;
}

}  // namespace

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? parse_int(argv[1], 1, 34) : 28;
  if (log2n < 1) {
    std::fprintf(stderr, "usage: parabola_survivors [LOG2N in 1..34] [DENSE_SAMPLE_SHIFT ...]\n");
    return 2;
  }
  if (argc <= 2) model(log2n, Policy::kDenseSampleShift);
  for (int i = 2; i < argc; ++i) {
    const int shift = parse_int(argv[i], 0, log2n - 1);
    if (shift < 0) {
      std::fprintf(stderr, "parabola_survivors: a sample shift in 0..%d, not \"%s\"\n", log2n - 1, argv[i]);
      return 2;
    }
    model(log2n, shift);
  }
  return 0;
}
