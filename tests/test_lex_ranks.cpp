// lex_ranks(): with every kernel (a kernel this processor cannot run reports skipped), for every count
// it takes, the ranks place the points exactly where std::stable_sort by lex_less() puts them, on
// distinct, duplicate-heavy, equal-x, equal-y, signed-zero, presorted and tiny-or-huge inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "cpu/lex_ranks.hpp"
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
