// convex_hulls() and convex_hulls_by_id(): every group's hull against compute_hull() of the group
// alone, on the named families, degenerate groups, a huge group among tiny ones and a million groups.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <vector>

#include "cpu/grouped_hulls.hpp"
#include "cpu/monotone_chain.hpp"
#include "generators.hpp"
#include "hull_checks.hpp"
#include "wagener/error.hpp"
#include "wagener/grouped.hpp"
#include "wagener/trace.hpp"

namespace wagener {
namespace {

template <class T>
class Grouped : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Grouped, Precisions);

template <class T>
struct GroupedInput {
  std::vector<Point2<T>> points;
  std::vector<std::int64_t> offsets{0};
  std::vector<std::string> names;  // which family and size made each group

  void add(const std::vector<Point2<T>>& group, std::string name) {
    points.insert(points.end(), group.begin(), group.end());
    offsets.push_back(static_cast<std::int64_t>(points.size()));
    names.push_back(std::move(name));
  }
};

/// Groups from every named family at the given sizes (each size 0 is an empty range), in a shuffled
/// order so that neighbouring groups differ.
template <class T>
GroupedInput<T> family_groups(std::mt19937_64& rng, std::initializer_list<std::size_t> sizes) {
  std::vector<std::pair<std::string, std::vector<Point2<T>>>> groups;
  for (const auto& family : testing::all_families<T>()) {
    for (const std::size_t n : sizes)
      groups.emplace_back(family.name + " n=" + std::to_string(n), family.make(n, rng));
  }
  std::shuffle(groups.begin(), groups.end(), rng);
  GroupedInput<T> input;
  for (auto& [name, group] : groups) input.add(group, name);
  return input;
}

/// Every group of `hulls` equals compute_hull() of that group alone with the same options; indices
/// index the whole array.
template <class T>
void expect_each_group_matches(const GroupedInput<T>& input, const GroupedHulls<T>& hulls,
                               const HullOptions& options) {
  ASSERT_EQ(hulls.offsets.size(), input.offsets.size());
  ASSERT_EQ(hulls.offsets.front(), 0);
  ASSERT_EQ(static_cast<std::size_t>(hulls.offsets.back()), hulls.vertices.size());
  ASSERT_EQ(hulls.indices.size(), options.indices ? hulls.vertices.size() : 0);
  HullOptions single = options;
  single.backend = Backend::cpu;
  for (std::size_t g = 0; g + 1 < input.offsets.size(); ++g) {
    SCOPED_TRACE("group " + std::to_string(g) + " (" + input.names[g] + ")");
    const auto begin = static_cast<std::size_t>(input.offsets[g]);
    const auto group = std::span<const Point2<T>>(input.points)
                           .subspan(begin, static_cast<std::size_t>(input.offsets[g + 1]) - begin);
    const HullResult<T> expected = compute_hull(group, single);
    const auto hull = hulls.hull(g);
    ASSERT_EQ(std::vector<Point2<T>>(hull.begin(), hull.end()), expected.vertices);
    if (options.indices) {
      for (std::size_t v = 0; v < expected.indices.size(); ++v) {
        ASSERT_EQ(hulls.indices[static_cast<std::size_t>(hulls.offsets[g]) + v],
                  static_cast<std::int64_t>(begin) + expected.indices[v]);
      }
    }
  }
}

TYPED_TEST(Grouped, EveryFamilyGroupMatchesItsSingleHull) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  auto input = family_groups<T>(rng, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 16, 17, 100, 1000, 5000});
  // Points a few ulps either side of the filter polygon's edges.
  for (const std::size_t n : {8, 16, 17, 56, 100, 1000})
    input.add(testing::octagon_ulp_edges<T>(n, rng), "octagon_ulp_edges n=" + std::to_string(n));
  for (const HullPart part : {HullPart::full, HullPart::upper}) {
    for (const bool indices : {false, true}) {
      SCOPED_TRACE(std::string(part == HullPart::full ? "full" : "upper") + (indices ? " indices" : ""));
      HullOptions options;
      options.backend = Backend::cpu;
      options.part = part;
      options.indices = indices;
      expect_each_group_matches(input, convex_hulls<T>(input.points, input.offsets, options), options);
    }
  }
}

// Each side's few survivors are sorted by counted ranks (a vector kernel) or by insertion (scalar,
// the only way where the processor has no vector kernel): every kernel this processor runs gives the
// same hulls and indices as the single-hull path.
TYPED_TEST(Grouped, EverySortKernelGivesTheSameHulls) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  auto input = family_groups<T>(rng, {0, 1, 2, 3, 8, 9, 16, 17, 40, 100, 300});
  for (const std::size_t n : {8, 17, 56, 100})
    input.add(testing::octagon_ulp_edges<T>(n, rng), "octagon_ulp_edges n=" + std::to_string(n));
  for (const cpu::FilterKernel kernel :
       {cpu::FilterKernel::scalar, cpu::FilterKernel::avx2, cpu::FilterKernel::avx512}) {
    if (!cpu::filter_kernel_supported(kernel)) continue;
    for (const HullPart part : {HullPart::full, HullPart::upper}) {
      for (const bool indices : {false, true}) {
        SCOPED_TRACE("kernel " + std::to_string(static_cast<int>(kernel)) +
                     (part == HullPart::full ? " full" : " upper") + (indices ? " indices" : ""));
        HullOptions options;
        options.backend = Backend::cpu;
        options.part = part;
        options.indices = indices;
        std::vector<std::int64_t> large;
        expect_each_group_matches(
            input, cpu::small_group_hulls<T>(input.points, input.offsets, part, indices, large, kernel),
            options);
        ASSERT_TRUE(large.empty());
      }
    }
  }
}

TYPED_TEST(Grouped, FullHullsHaveTheHullProperties) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto input = family_groups<T>(rng, {1, 2, 3, 40});
  const auto hulls = convex_hulls<T>(input.points, input.offsets);
  for (std::size_t g = 0; g + 1 < input.offsets.size(); ++g) {
    SCOPED_TRACE(input.names[g]);
    const auto begin = static_cast<std::size_t>(input.offsets[g]);
    const auto group = std::span<const Point2<T>>(input.points)
                           .subspan(begin, static_cast<std::size_t>(input.offsets[g + 1]) - begin);
    ASSERT_TRUE(testing::is_convex_hull_of<T>(hulls.hull(g), group));
  }
}

TYPED_TEST(Grouped, OneHugeGroupAmongTinyOnesTakesTheSingleHullPath) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  GroupedInput<T> input;
  for (int g = 0; g < 50; ++g) input.add(testing::uniform_disk<T>(g % 7, rng), "tiny disk");
  input.add(testing::circle<T>(300007, rng), "huge circle");  // larger than one core's share
  input.add(testing::uniform_square<T>(100003, rng), "large square");
  for (int g = 0; g < 50; ++g) input.add(testing::collinear<T>(g % 5, rng), "tiny collinear");
  for (const HullPart part : {HullPart::full, HullPart::upper}) {
    HullOptions options;
    options.backend = Backend::cpu;
    options.part = part;
    options.indices = true;
    expect_each_group_matches(input, convex_hulls<T>(input.points, input.offsets, options), options);
  }
}

TYPED_TEST(Grouped, PramBackendRunsEachGroupOnTheEmulator) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto input = family_groups<T>(rng, {0, 1, 2, 9, 64});
  HullOptions options;
  options.backend = Backend::pram;
  HullStats stats;
  options.stats = &stats;
  const auto hulls = convex_hulls<T>(input.points, input.offsets, options);
  EXPECT_EQ(stats.backend, Backend::pram);
  options.stats = nullptr;
  expect_each_group_matches(input, hulls, options);
}

TEST(Grouped, AMillionSmallGroups) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  constexpr std::size_t kGroups = 1000000;
  std::uniform_int_distribution<int> size(0, 12);
  std::uniform_int_distribution<int> coordinate(-4, 4);  // small integers: duplicates and collinear points
  std::vector<Point2<double>> points;
  std::vector<std::int64_t> offsets{0};
  offsets.reserve(kGroups + 1);
  for (std::size_t g = 0; g < kGroups; ++g) {
    for (int i = size(rng); i > 0; --i) points.push_back({double(coordinate(rng)), double(coordinate(rng))});
    offsets.push_back(static_cast<std::int64_t>(points.size()));
  }
  HullStats stats;
  HullOptions options;
  options.stats = &stats;
  const auto hulls = convex_hulls<double>(points, offsets, options);
  ASSERT_EQ(hulls.groups(), kGroups);
  EXPECT_EQ(stats.points, static_cast<std::int64_t>(points.size()));
  EXPECT_EQ(stats.hull_vertices, static_cast<std::int64_t>(hulls.vertices.size()));
  for (std::size_t g = 0; g < kGroups; ++g) {
    std::vector<Point2<double>> group(points.begin() + offsets[g], points.begin() + offsets[g + 1]);
    const auto hull = hulls.hull(g);
    // The serial reference: sort and chain.
    ASSERT_EQ(std::vector<Point2<double>>(hull.begin(), hull.end()), cpu::convex_hull_serial<double>(group))
        << "group " << g;
  }
}

TYPED_TEST(Grouped, ByIdGroupsInOrderOfFirstAppearance) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  // Small labels (the table) and labels spread over the whole int64 range (the hash map): 300 *
  // (max / 512) still fits.
  for (const std::int64_t spread : {std::int64_t{1}, std::numeric_limits<std::int64_t>::max() / 512}) {
    SCOPED_TRACE("spread " + std::to_string(spread));
    const std::size_t n = 20000;
    const auto points = testing::grid<T>(n, rng);
    std::uniform_int_distribution<std::int64_t> label(-30, 300);
    std::vector<std::int64_t> ids(n);
    for (auto& id : ids) id = label(rng) * spread;
    HullOptions options;
    options.indices = true;
    const auto hulls = convex_hulls_by_id<T>(points, ids, options);
    std::vector<std::int64_t> first_seen;
    std::map<std::int64_t, std::vector<Point2<T>>> members;
    std::map<std::int64_t, std::vector<std::int64_t>> member_index;
    for (std::size_t i = 0; i < n; ++i) {
      if (!members.count(ids[i])) first_seen.push_back(ids[i]);
      members[ids[i]].push_back(points[i]);
      member_index[ids[i]].push_back(static_cast<std::int64_t>(i));
    }
    ASSERT_EQ(hulls.group_ids, first_seen);
    for (std::size_t g = 0; g < first_seen.size(); ++g) {
      const auto& group = members[first_seen[g]];
      const auto expected = compute_hull<T>(group, options);
      const auto hull = hulls.hull(g);
      ASSERT_EQ(std::vector<Point2<T>>(hull.begin(), hull.end()), expected.vertices)
          << "id " << first_seen[g];
      for (std::size_t v = 0; v < expected.indices.size(); ++v) {
        ASSERT_EQ(hulls.indices[static_cast<std::size_t>(hulls.offsets[g]) + v],
                  member_index[first_seen[g]][static_cast<std::size_t>(expected.indices[v])]);
      }
    }
  }
}

TEST(Grouped, EmptyInputAndEmptyGroups) {
  const std::vector<Point2<double>> none;
  const std::vector<std::int64_t> no_groups{0};
  EXPECT_EQ(convex_hulls<double>(none, no_groups).groups(), 0u);
  const std::vector<std::int64_t> three_empty{0, 0, 0, 0};
  const auto hulls = convex_hulls<double>(none, three_empty);
  EXPECT_EQ(hulls.offsets, three_empty);
  EXPECT_TRUE(convex_hulls_by_id<double>(none, {}).group_ids.empty());
}

TEST(Grouped, BadOffsetsAreRefusedNamingTheEntry) {
  const std::vector<Point2<double>> pts{{0, 0}, {1, 0}, {0, 1}};
  const auto message = [&](std::vector<std::int64_t> offsets) {
    try {
      convex_hulls<double>(pts, offsets);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({}).find("offsets is empty"), std::string::npos);
  EXPECT_NE(message({1, 3}).find("offsets[0] is 1"), std::string::npos);
  EXPECT_NE(message({0, 2, 1, 3}).find("offsets[2] = 1 is smaller than offsets[1] = 2"), std::string::npos);
  EXPECT_NE(message({0, 2}).find("offsets[1] = 2 is not the number of points, 3"), std::string::npos);
  EXPECT_NE(message({0, 1, 4}).find("offsets[2] = 4"), std::string::npos);
  EXPECT_THROW(convex_hulls_by_id<double>(pts, std::vector<std::int64_t>{1, 2}), std::invalid_argument);
}

TEST(Grouped, NonFinitePointIsNamedByItsIndexInTheWholeArray) {
  std::vector<Point2<double>> pts(400, Point2<double>{1, 2});
  for (std::size_t i = 0; i < pts.size(); ++i) pts[i] = {double(i % 17), double(i % 13)};
  pts[371] = {std::numeric_limits<double>::quiet_NaN(), 0};
  pts[250] = {0, std::numeric_limits<double>::infinity()};
  std::vector<std::int64_t> offsets;
  for (std::int64_t o = 0; o <= 400; o += 40) offsets.push_back(o);
  for (const Backend backend : {Backend::cpu, Backend::pram}) {
    HullOptions options;
    options.backend = backend;
    try {
      convex_hulls<double>(pts, offsets, options);
      FAIL() << "no error";
    } catch (const input_error& e) {
      EXPECT_STREQ(e.what(), "point 250 is not finite");
    }
  }
  std::vector<std::int64_t> ids(400);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::int64_t>(i % 3);
  EXPECT_THROW(convex_hulls_by_id<double>(pts, ids), input_error);
}

TEST(Grouped, PresortedGroupsAreCheckedAndTraceIsRefused) {
  const std::vector<Point2<double>> pts{{0, 0}, {1, 1}, {2, 0}, {5, 5}, {4, 4}};
  const std::vector<std::int64_t> offsets{0, 3, 5};
  HullOptions options;
  options.presorted = true;
  options.part = HullPart::upper;
  try {
    convex_hulls<double>(pts, offsets, options);
    FAIL() << "no error";
  } catch (const input_error& e) {
    EXPECT_STREQ(e.what(), "group 1 is not sorted by (x, y): point 4 is smaller than point 3");
  }
  TraceSink sink;
  HullOptions traced;
  traced.trace = &sink;
  EXPECT_THROW(convex_hulls<double>(pts, offsets, traced), unsupported_error);
}

}  // namespace
}  // namespace wagener
