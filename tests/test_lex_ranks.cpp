// lex_ranks(): with every kernel (a kernel this processor cannot run reports skipped), for every count
// it takes, the ranks place the points exactly where std::stable_sort by lex_less() puts them, on
// distinct, duplicate-heavy, equal-x, equal-y, signed-zero, presorted and tiny-or-huge inputs.
// sort_lexicographic(): on the same families and a ring, at counts around its buckets' thresholds, it
// orders the points as std::sort by lex_less() does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "cpu/lex_ranks.hpp"
#include "cpu/lex_sort.hpp"
#include "generators.hpp"
#include "wagener/point.hpp"

namespace wagener {
namespace {

using cpu::FilterKernel;

struct NamedPoints {
  std::string name;
  std::vector<Point2<double>> points;
};

/// Inputs of n points each, in random order where the family has no order of its own.
std::vector<NamedPoints> families(std::uint32_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<int> small(-2, 2);
  const double few[] = {-1.0, -0.0, 0.0, 0x1p-1074, 1.0};
  std::uniform_int_distribution<int> pick(0, 4);
  std::vector<NamedPoints> out;
  const auto make = [&](std::string name, auto point) {
    NamedPoints f{std::move(name), {}};
    for (std::uint32_t i = 0; i < n; ++i) f.points.push_back(point(i));
    out.push_back(std::move(f));
  };
  make("distinct", [&](std::uint32_t) { return Point2<double>{unit(rng), unit(rng)}; });
  make("duplicate-heavy", [&](std::uint32_t) {
    return Point2<double>{static_cast<double>(small(rng)), static_cast<double>(small(rng))};
  });
  make("equal x", [&](std::uint32_t) { return Point2<double>{0.5, unit(rng)}; });
  make("equal y", [&](std::uint32_t) { return Point2<double>{unit(rng), -3.0}; });
  make("all identical", [&](std::uint32_t) { return Point2<double>{1.0, 2.0}; });
  make("signed zeros and the least subnormal", [&](std::uint32_t) {
    return Point2<double>{few[pick(rng)], few[pick(rng)]};
  });
  make("huge and tiny", [&](std::uint32_t) {
    return Point2<double>{std::ldexp(unit(rng), 1000 - 2000 * (small(rng) & 1)),
                          std::ldexp(unit(rng), -1000)};
  });
  make("ascending", [&](std::uint32_t i) {
    return Point2<double>{static_cast<double>(i / 3), static_cast<double>(i % 3)};
  });
  make("descending", [&](std::uint32_t i) {
    return Point2<double>{static_cast<double>(n - i / 2), static_cast<double>(n - i)};
  });
  return out;
}

class LexRanks : public ::testing::TestWithParam<FilterKernel> {};

TEST_P(LexRanks, PlaceEveryPointWhereAStableSortPutsIt) {
  const FilterKernel kernel = GetParam();
  if (!cpu::filter_kernel_supported(kernel)) GTEST_SKIP() << "this processor cannot run the kernel";
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 20; ++round) {
    for (std::uint32_t n = 0; n <= cpu::kMaxLexRanks; ++n) {
      for (const auto& family : families(n, rng)) {
        SCOPED_TRACE(family.name + " n=" + std::to_string(n));
        std::vector<double> x, y;
        for (const auto& p : family.points) x.push_back(p.x), y.push_back(p.y);
        // A sentinel past the n ranks: the kernels must not write there.
        std::vector<std::uint32_t> rank(n + 8, 0xdeadbeefu);
        cpu::lex_ranks(x.data(), y.data(), n, rank.data(), kernel);
        std::vector<std::uint32_t> order(n);
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
          return lex_less(family.points[a], family.points[b]);
        });
        for (std::uint32_t place = 0; place < n; ++place) ASSERT_EQ(rank[order[place]], place);
        for (std::uint32_t i = n; i < rank.size(); ++i) ASSERT_EQ(rank[i], 0xdeadbeefu);
      }
    }
  }
}

/// The points sort_lexicographic() leaves must be exactly std::sort's, point for point (equal points
/// compare alike however they are permuted, except -0 and +0, which compare equal and may swap).
template <class T>
void expect_sorted_as_std_sort(std::vector<Point2<T>> points) {
  std::vector<Point2<T>> expected = points;
  std::sort(expected.begin(), expected.end(), lex_less<T>);
  cpu::sort_lexicographic(points.data(), points.size());
  ASSERT_EQ(points.size(), expected.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    ASSERT_TRUE(same_point(points[i], expected[i]))
        << "at " << i << ": (" << points[i].x << ", " << points[i].y << ") where std::sort has ("
        << expected[i].x << ", " << expected[i].y << ")";
  }
}

TEST(SortLexicographic, OrdersEveryFamilyAsStdSortDoes) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> angle(0.0, 6.283185307179586);
  // Below, at and above the bucket pass's threshold (256), and past its cap of 2^16 buckets.
  for (const std::uint32_t n : {0u, 1u, 2u, 255u, 256u, 257u, 1000u, 4099u, 140000u}) {
    auto named = families(n, rng);
    // A ring crowds its buckets at both ends of x, where the circle turns.
    NamedPoints ring{"ring", {}};
    for (std::uint32_t i = 0; i < n; ++i) {
      const double a = angle(rng);
      ring.points.push_back({std::cos(a), std::sin(a)});
    }
    named.push_back(std::move(ring));
    for (const auto& family : named) {
      SCOPED_TRACE(family.name + " n=" + std::to_string(n));
      expect_sorted_as_std_sort(family.points);
      std::vector<Point2<float>> as_float;
      for (const auto& p : family.points)
        as_float.push_back({static_cast<float>(p.x), static_cast<float>(p.y)});
      expect_sorted_as_std_sort(as_float);
    }
  }
}

TEST(SortLexicographic, RangesTooWideOrTooNarrowForTheBucketsStillSort) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  // max - min overflows to infinity; the range is subnormal, its reciprocal infinite; two values of
  // x only; x a few ulps apart, so that most buckets stay empty.
  const auto make = [&](auto x_of) {
    std::vector<Point2<double>> points;
    for (int i = 0; i < 3000; ++i) points.push_back({x_of(i), unit(rng)});
    return points;
  };
  expect_sorted_as_std_sort(make([&](int) { return 1.7e308 * unit(rng); }));
  expect_sorted_as_std_sort(make([&](int) { return 0x1p-1070 * unit(rng); }));
  expect_sorted_as_std_sort(make([&](int i) { return i % 2 ? -1.0 : 3.0; }));
  expect_sorted_as_std_sort(
      make([&](int i) { return std::nextafter(1.0, 2.0 + (i % 7)) + (i % 3) * 0x1p-52; }));
}

INSTANTIATE_TEST_SUITE_P(Kernels, LexRanks,
                         ::testing::Values(FilterKernel::scalar, FilterKernel::avx2, FilterKernel::avx512),
                         [](const ::testing::TestParamInfo<FilterKernel>& param) {
                           switch (param.param) {
                             case FilterKernel::avx512: return std::string("avx512");
                             case FilterKernel::avx2: return std::string("avx2");
                             default: return std::string("scalar");
                           }
                         });

}  // namespace
}  // namespace wagener
