// CGAL's convex_hull_2 with exact predicates as the oracle for the cpu and pram backends.
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/convex_hull_2.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "cpu/filter_pass.hpp"
#include "generators.hpp"
#include "wagener/hull.hpp"

namespace wagener {
namespace {

using Kernel = CGAL::Exact_predicates_inexact_constructions_kernel;

/// CGAL's strict hull, rotated to start at the lexicographically smallest vertex.
template <class T>
std::vector<Point2<T>> cgal_hull(const std::vector<Point2<T>>& pts) {
  std::vector<Kernel::Point_2> in, out;
  for (const auto& p : pts) in.emplace_back(static_cast<double>(p.x), static_cast<double>(p.y));
  CGAL::convex_hull_2(in.begin(), in.end(), std::back_inserter(out));
  std::vector<Point2<T>> hull;
  for (const auto& p : out) hull.push_back({static_cast<T>(p.x()), static_cast<T>(p.y())});
  std::rotate(hull.begin(), std::min_element(hull.begin(), hull.end(), lex_less<T>), hull.end());
  return hull;
}

/// The upper chain read off a counter-clockwise full hull that starts at the smallest vertex.
template <class T>
std::vector<Point2<T>> upper_part(const std::vector<Point2<T>>& hull) {
  if (hull.empty()) return {};
  const auto largest = std::max_element(hull.begin(), hull.end(), lex_less<T>);
  std::vector<Point2<T>> upper(largest, hull.end());
  upper.push_back(hull[0]);
  if (upper.size() >= 2 && upper.front() == upper.back()) upper.pop_back();  // single point
  std::reverse(upper.begin(), upper.end());
  return upper;
}

template <class T>
class CgalOracle : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CgalOracle, Precisions);

TYPED_TEST(CgalOracle, CpuAndPramEqualCgalOnEveryFamily) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : testing::all_families<T>()) {
    for (std::size_t n : {1u, 2u, 3u, 10u, 257u, 5000u, 200003u}) {
      SCOPED_TRACE(family.name + " n=" + std::to_string(n));
      const auto pts = family.make(n, rng);
      const auto expected = cgal_hull(pts);
      const auto sorted = testing::sorted_copy(pts);
      for (Backend backend : {Backend::cpu, Backend::pram}) {
        if (backend == Backend::pram && n > 5000) continue;
        SCOPED_TRACE(std::string(backend_name(backend)));
        ASSERT_EQ(convex_hull<T>(pts, {backend, nullptr}), expected);
        ASSERT_EQ(upper_hull<T>(sorted, {backend, nullptr}), upper_part(expected));
      }
    }
  }
}

TYPED_TEST(CgalOracle, CpuWithTheFilterForcedOnAndOffEqualsCgalOnEveryFamily) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : testing::all_families<T>()) {
    for (std::size_t n : {3u, 257u, 5000u, 140009u}) {
      SCOPED_TRACE(family.name + " n=" + std::to_string(n));
      const auto pts = family.make(n, rng);
      const auto expected = cgal_hull(pts);
      const auto sorted = testing::sorted_copy(pts);
      for (const auto use : {cpu::FilterUse::always, cpu::FilterUse::never}) {
        SCOPED_TRACE(use == cpu::FilterUse::always ? "filter forced on" : "filter off");
        ASSERT_EQ(cpu::convex_hull_parallel<T>(pts, nullptr, {use, cpu::FilterKernel::widest}), expected);
        // The presorted upper chain behind the same filter.
        ASSERT_EQ(cpu::upper_chain_filtered<T>(sorted, nullptr, {use, cpu::FilterKernel::widest}),
                  upper_part(expected));
      }
    }
  }
}

}  // namespace
}  // namespace wagener
