// The match-and-merge phases on the PRAM emulator, exhaustively on small grids and on every named
// family: the emulator also checks that every phase has exactly one writer per cell.
#include <gtest/gtest.h>

#include <bit>
#include <random>

#include "core/bridge.hpp"
#include "cpu/monotone_chain.hpp"
#include "generators.hpp"
#include "pram/pram_hull.hpp"

namespace wagener {
namespace {

using testing::Points;

template <class T>
void expect_pram_equals_reference(const Points<T>& sorted, const std::string& what) {
  const auto expected = cpu::upper_chain<T>(sorted);
  std::vector<Point2<T>> got;
  ASSERT_NO_THROW(got = pram::upper_hull<T>(sorted)) << what;
  ASSERT_EQ(got, expected) << what;
}

std::string describe(const Points<int>& pts) {
  std::string s;
  for (const auto& p : pts) s += "(" + std::to_string(p.x) + "," + std::to_string(p.y) + ")";
  return s;
}

// Every subset of a W x H integer grid, as sorted input: collinear runs, equal x, vertical edges,
// full hoods and single points all occur.
void every_grid_subset(int width, int height) {
  const int cells = width * height;
  for (std::uint32_t mask = 1; mask < (1u << cells); ++mask) {
    Points<double> pts;
    Points<int> shown;
    for (int c = 0; c < cells; ++c) {  // cell order is x-major: already lexicographic
      if (mask & (1u << c)) {
        pts.push_back({static_cast<double>(c / height), static_cast<double>(c % height)});
        shown.push_back({c / height, c % height});
      }
    }
    expect_pram_equals_reference(pts, describe(shown));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(PramMerge, EverySubsetOfA4x4Grid) {
  every_grid_subset(4, 4);
}

TEST(PramMerge, EverySubsetOfA6x3Grid) {
  every_grid_subset(6, 3);
}

TEST(PramMerge, EverySubsetOfA2x8Grid) {
  every_grid_subset(2, 8);
}

// Every multiset with up to two copies of each point of a 3x3 grid: duplicates across every seam.
TEST(PramMerge, EveryMultisetOfA3x3GridWithDuplicates) {
  constexpr int kCells = 9;
  int total = 1;
  for (int c = 0; c < kCells; ++c) total *= 3;
  for (int code = 1; code < total; ++code) {
    Points<double> pts;
    Points<int> shown;
    int rest = code;
    for (int c = 0; c < kCells; ++c, rest /= 3) {
      for (int k = 0; k < rest % 3; ++k) {
        pts.push_back({static_cast<double>(c / 3), static_cast<double>(c % 3)});
        shown.push_back({c / 3, c % 3});
      }
    }
    expect_pram_equals_reference(pts, describe(shown));
    if (HasFatalFailure()) return;
  }
}

template <class T>
void every_family_every_n(std::size_t max_n, std::size_t step) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : testing::all_families<T>()) {
    for (std::size_t n = 1; n <= max_n; n += step) {
      const auto pts = testing::sorted_copy(family.make(n, rng));
      expect_pram_equals_reference(pts, family.name + " n=" + std::to_string(n));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(PramMerge, EveryFamilyEveryNUpTo300Double) {
  every_family_every_n<double>(300, 1);
}

TEST(PramMerge, EveryFamilyEveryNUpTo300Float) {
  every_family_every_n<float>(300, 1);
}

TEST(PramMerge, LargerNonPowersOfTwo) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (std::size_t n : {1000u, 1023u, 1025u, 4097u, 10007u, 65537u}) {
    for (const auto& family : testing::all_families<double>()) {
      const auto pts = testing::sorted_copy(family.make(n, rng));
      expect_pram_equals_reference(pts, family.name + " n=" + std::to_string(n));
    }
  }
}

TEST(PramCounters, RoundsAreCeilLog2NAndStepsAreConstantPerRound) {
  std::mt19937_64 rng(testing::fresh_seed());
  for (std::size_t n : {2u, 3u, 64u, 1000u, 4096u}) {
    const auto pts = testing::sorted_copy(testing::uniform_disk<double>(n, rng));
    pram::Counters c;
    pram::upper_hull<double>(pts, &c);
    const auto log2n = static_cast<std::int64_t>(std::bit_width(n - 1));
    EXPECT_EQ(c.rounds, log2n) << n;
    EXPECT_EQ(c.parallel_steps, 7 * log2n) << n;
    EXPECT_GE(c.work, static_cast<std::int64_t>(n)) << n;
  }
}

TEST(PramCounters, WorkGrowsAsNLogNOnAFullHood) {
  // Every point on the hood: no round shrinks the hoods, so the work per round stays near n.
  std::mt19937_64 rng(testing::fresh_seed());
  pram::Counters small, large;
  pram::upper_hull<double>(testing::sorted_copy(testing::parabola<double>(1 << 10, rng)), &small);
  pram::upper_hull<double>(testing::sorted_copy(testing::parabola<double>(1 << 14, rng)), &large);
  const double ratio = static_cast<double>(large.work) / static_cast<double>(small.work);
  // n grows 16x, log n grows 1.4x: n log n predicts 22x; allow slack for the sqrt rounding.
  EXPECT_GT(ratio, 16.0 * 1.2);
  EXPECT_LT(ratio, 16.0 * 1.8);
}

TEST(SerialBridge, AgreesWithTheSampledBridgeOnRandomHoods) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 2000; ++trial) {
    auto pts = testing::sorted_copy(testing::grid<double>(2 + trial % 40, rng));
    const std::size_t cut = pts.size() / 2;
    // Split where x changes so both halves are lex-separated even with duplicates.
    std::span<const Point2<double>> all(pts);
    const auto left = cpu::upper_chain(all.subspan(0, cut));
    auto right = cpu::upper_chain(all.subspan(cut));
    const index_t dup = core::seam_duplicates(left.data(), static_cast<index_t>(left.size()), right.data(),
                                              static_cast<index_t>(right.size()));
    if (right.size() - static_cast<std::size_t>(dup) == 0 || left.empty()) continue;
    const core::MergeView<double> v(left.data(), static_cast<index_t>(left.size()), right.data() + dup,
                                    static_cast<index_t>(right.size()) - dup);
    index_t a = -1, b = -1;
    core::serial_bridge(v, &a, &b);
    std::vector<Point2<double>> merged(left.begin(), left.begin() + a + 1);
    merged.insert(merged.end(), right.begin() + dup + b, right.end());
    EXPECT_EQ(merged, cpu::upper_chain<double>(pts)) << "trial " << trial;
  }
}

TEST(CeilSqrt, IsTheSmallestRootBound) {
  for (index_t k = 1; k < 5000; ++k) {
    const index_t s = core::ceil_sqrt(k);
    EXPECT_GE(s * s, k);
    EXPECT_LT((s - 1) * (s - 1), k);
  }
}

}  // namespace
}  // namespace wagener
