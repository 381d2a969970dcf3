// The CPU backend's chains on several threads (slices chained, hoods merged in place by their
// bridges) against the serial monotone chain, on every family, at sizes that put slice boundaries
// everywhere: slices of one point, of repeated points only, inside collinear runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>

#include "core/chains.hpp"
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

// The scatter by which the GPU joins chains left in their tiles (core::joined_place): each chain's
// points placed one by one give core::join_chains' hull, every place written once, on every family
// at small sizes (chains of one and two points among them).
template <class T>
void joined_places_give_the_joined_hull() {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  // Integers (reflected by their complement) from the floating families, scaled and rounded.
  using Source = std::conditional_t<std::is_integral_v<T>, double, T>;
  for (const auto& family : testing::all_families<Source>()) {
    for (std::size_t n = 1; n <= 300; n += 1 + n / 3) {
      Points<T> pts;
      for (const auto& p : family.make(n, rng)) {
        if constexpr (std::is_integral_v<T>) {
          pts.push_back(
              {static_cast<T>(std::llround(p.x * 0x1p20)), static_cast<T>(std::llround(p.y * 0x1p20))});
        } else {
          pts.push_back(p);
        }
      }
      const auto sorted = testing::sorted_copy(pts);
      const auto upper = cpu::upper_chain<T>(sorted);
      Points<T> mirrored(sorted.rbegin(), sorted.rend());
      for (auto& p : mirrored) p = core::reflected(p);
      const auto lower_reflected = cpu::upper_chain<T>(mirrored);  // as the device's lower chain
      auto lower = lower_reflected;
      core::unreflect_chain(lower);
      const auto expected = core::join_chains<T>(lower, upper);
      const auto l = static_cast<index_t>(lower_reflected.size()), u = static_cast<index_t>(upper.size());
      const std::string what = family.name + " n=" + std::to_string(n);
      Points<T> hull(expected.size());
      std::vector<int> writes(expected.size(), 0);
      const auto place = [&](bool is_lower, index_t j, const Point2<T>& p) {
        if (!is_lower && !core::upper_point_joins(j, u)) {
          EXPECT_TRUE(j == 0 || j == u - 1) << what << ": only the upper chain's ends stay out";
          return;
        }
        const index_t at = core::joined_place(is_lower, j, l, u);
        ASSERT_GE(at, 0) << what;
        ASSERT_LT(at, static_cast<index_t>(hull.size())) << what;
        hull[static_cast<std::size_t>(at)] = is_lower ? core::reflected(p) : p;
        ++writes[static_cast<std::size_t>(at)];
      };
      for (index_t j = 0; j < l; ++j) place(true, j, lower_reflected[static_cast<std::size_t>(j)]);
      for (index_t j = 0; j < u; ++j) place(false, j, upper[static_cast<std::size_t>(j)]);
      ASSERT_EQ(hull, expected) << what;
      ASSERT_EQ(std::count(writes.begin(), writes.end(), 1), static_cast<std::ptrdiff_t>(writes.size()))
          << what;
    }
  }
}

TEST(ParallelChains, JoinedPlacesGiveTheJoinedHull) {
  joined_places_give_the_joined_hull<double>();
  joined_places_give_the_joined_hull<float>();
  joined_places_give_the_joined_hull<std::int64_t>();
}

}  // namespace
}  // namespace wagener
