// The CPU backend's chains on several threads (slices chained, hoods merged in place by their
// bridges) against the serial monotone chain, on every family, at sizes that put slice boundaries
// everywhere: slices of one point, of repeated points only, inside collinear runs.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "cpu/monotone_chain.hpp"
#include "cpu/parallel_chains.hpp"
#include "generators.hpp"

namespace wagener {
namespace {

using testing::Points;

template <class T>
void expect_chains_equal(const Points<T>& sorted, std::size_t threads, const std::string& what) {
  ASSERT_EQ(cpu::upper_chain_parallel<T>(sorted, threads), cpu::upper_chain<T>(sorted)) << what;
  ASSERT_EQ(cpu::hull_of_sorted_threads<T>(sorted, threads), cpu::hull_of_sorted<T>(sorted)) << what;
}

template <class T>
void every_family_every_thread_count(std::size_t max_n) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : testing::all_families<T>()) {
    for (std::size_t n = 1; n <= max_n; n += 1 + n / 4) {
      const auto pts = testing::sorted_copy(family.make(n, rng));
      for (std::size_t threads : {2u, 3u, 11u}) {
        expect_chains_equal(pts, threads,
                            family.name + " n=" + std::to_string(n) + " threads=" + std::to_string(threads));
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

TEST(ParallelChains, EveryFamilyEveryThreadCountDouble) {
  every_family_every_thread_count<double>(3000);
}

TEST(ParallelChains, EveryFamilyEveryThreadCountFloat) {
  every_family_every_thread_count<float>(3000);
}

TEST(ParallelChains, EverySubsetOfA4x4GridOnFiveThreads) {
  for (std::uint32_t mask = 1; mask < (1u << 16); mask += 29) {  // a spread of 2260 subsets
    Points<double> pts;
    for (int c = 0; c < 16; ++c) {
      if (mask & (1u << c)) pts.push_back({static_cast<double>(c / 4), static_cast<double>(c % 4)});
    }
    expect_chains_equal(pts, 5, "mask " + std::to_string(mask));
    if (HasFatalFailure()) return;
  }
}

TEST(ParallelChains, FullHoodsAndRepeatedPointsAtLargeSizes) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (std::size_t n : {100003u, (1u << 19) + 1}) {
    for (std::size_t threads : {2u, 7u}) {
      const std::string at = " n=" + std::to_string(n) + " threads=" + std::to_string(threads);
      expect_chains_equal(testing::sorted_copy(testing::circle<double>(n, rng)), threads, "circle" + at);
      expect_chains_equal(testing::sorted_copy(testing::parabola<float>(n, rng)), threads, "parabola" + at);
      expect_chains_equal(testing::sorted_copy(testing::duplicates<double>(n, rng)), threads,
                          "duplicates" + at);
      expect_chains_equal(testing::sorted_copy(testing::collinear<double>(n, rng)), threads,
                          "collinear" + at);
      if (HasFatalFailure()) return;
    }
  }
}

}  // namespace
}  // namespace wagener
