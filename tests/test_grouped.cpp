// convex_hulls() and convex_hulls_by_id(): every group's hull against compute_hull() of the group
// alone, on the named families, degenerate groups, a huge group among tiny ones and a million groups.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
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

/// expect_each_group_matches() for the CPU backend's full and upper hulls, with and without indices.
template <class T>
void expect_each_group_matches_on_the_cpu(const GroupedInput<T>& input) {
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

TYPED_TEST(Grouped, EveryFamilyGroupMatchesItsSingleHull) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  auto input = family_groups<T>(rng, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 16, 17, 100, 1000, 5000});
  // Points a few ulps either side of the filter polygon's edges.
  for (const std::size_t n : {8, 16, 17, 56, 100, 1000})
    input.add(testing::octagon_ulp_edges<T>(n, rng), "octagon_ulp_edges n=" + std::to_string(n));
  expect_each_group_matches_on_the_cpu(input);
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

// The CPU hulls chunks of consecutive groups on all its threads and appends them in chunk order:
// groups of every family and size, from empty ranges to more than kLargeGroupPoints, over a few dozen
// chunks, each equal to its single hull and in its place.
TYPED_TEST(Grouped, ManyChunksOfMixedGroupsKeepTheirOrder) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto& families = testing::all_families<T>();
  std::uniform_int_distribution<std::size_t> size(0, 500), family(0, families.size() - 1);
  GroupedInput<T> input;
  while (input.points.size() < 800000) {
    const std::size_t g = input.names.size();
    std::size_t n = size(rng);
    if (g % 9 == 4) n = 0;
    if (g % 1201 == 600) n = static_cast<std::size_t>(cpu::kLargeGroupPoints) + 1 + g % 3;
    const auto& f = families[family(rng)];
    input.add(f.make(n, rng), f.name + " n=" + std::to_string(n));
  }
  expect_each_group_matches_on_the_cpu(input);
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

/// What convex_hulls_by_id() computed before it grouped on all cores, kept as the oracle: the groups
/// numbered in order of first appearance on one thread, a serial stable counting sort, convex_hulls()
/// of the sorted points, and their indices mapped back through the sort.
template <class T>
GroupedHulls<T> by_id_reference(std::span<const Point2<T>> points, std::span<const std::int64_t> ids,
                                const HullOptions& options) {
  std::unordered_map<std::int64_t, std::size_t> number;
  std::vector<std::int64_t> first_seen;
  std::vector<std::size_t> dense(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto [it, fresh] = number.try_emplace(ids[i], first_seen.size());
    if (fresh) first_seen.push_back(ids[i]);
    dense[i] = it->second;
  }
  std::vector<std::int64_t> offsets(first_seen.size() + 1, 0);
  for (const std::size_t g : dense) ++offsets[g + 1];
  for (std::size_t g = 0; g < first_seen.size(); ++g) offsets[g + 1] += offsets[g];
  std::vector<Point2<T>> grouped(points.size());
  std::vector<std::int64_t> origin(points.size());
  std::vector<std::int64_t> next(offsets.begin(), offsets.end() - 1);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto at = static_cast<std::size_t>(next[dense[i]]++);
    grouped[at] = points[i];
    origin[at] = static_cast<std::int64_t>(i);
  }
  GroupedHulls<T> hulls;
  try {
    hulls = convex_hulls<T>(grouped, offsets, options);
  } catch (const input_error&) {
    const auto bad = cpu::first_non_finite(points);
    if (bad >= 0) throw input_error("point " + std::to_string(bad) + " is not finite");
    throw;
  }
  for (auto& i : hulls.indices) i = origin[static_cast<std::size_t>(i)];
  hulls.group_ids = std::move(first_seen);
  return hulls;
}

template <class T>
void expect_same_hulls(const GroupedHulls<T>& got, const GroupedHulls<T>& expected) {
  ASSERT_EQ(got.group_ids, expected.group_ids);
  ASSERT_EQ(got.offsets, expected.offsets);
  ASSERT_EQ(got.vertices, expected.vertices);
  ASSERT_EQ(got.indices, expected.indices);
}

/// Ids of the kinds convex_hulls_by_id() tells apart, and the near misses of each.
std::vector<std::pair<std::string, std::vector<std::int64_t>>> id_kinds(std::size_t n, std::mt19937_64& rng) {
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> kinds;
  const auto add = [&](std::string name, auto&& id_of) {
    std::vector<std::int64_t> ids(n);
    for (std::size_t i = 0; i < n; ++i) ids[i] = id_of(i);
    kinds.emplace_back(std::move(name), std::move(ids));
  };
  const std::int64_t groups = std::max<std::int64_t>(1, static_cast<std::int64_t>(n) / 50);
  std::uniform_int_distribution<std::int64_t> label(0, groups - 1);
  std::uniform_int_distribution<std::int64_t> any(std::numeric_limits<std::int64_t>::min(),
                                                  std::numeric_limits<std::int64_t>::max());
  add("random small labels", [&](std::size_t) { return label(rng); });
  add("random negative labels", [&](std::size_t) { return -3 * label(rng) - 1000; });
  add("labels spread over the whole int64 range (hash map)", [&](std::size_t) {
    const std::int64_t l = label(rng);
    return l == 0   ? std::numeric_limits<std::int64_t>::min()
           : l == 1 ? std::numeric_limits<std::int64_t>::max()
                    : l * (std::numeric_limits<std::int64_t>::max() / groups);
  });
  add("every point its own random id", [&](std::size_t) { return any(rng); });
  add("every point its own id, descending", [&](std::size_t i) { return -static_cast<std::int64_t>(i); });
  add("one group", [&](std::size_t) { return std::int64_t{42}; });
  // Never decreasing: already grouped, no sort.
  {
    std::vector<std::int64_t> ids(n);
    for (auto& id : ids) id = any(rng) / 2;
    std::sort(ids.begin(), ids.end());
    kinds.emplace_back("sorted ids (runs)", ids);
    if (n >= 2) {
      // One step down, anywhere (a slice's first id, perhaps): not grouped any more.
      const std::size_t at = std::uniform_int_distribution<std::size_t>(1, n - 1)(rng);
      ids[at] = ids[at - 1] - 1;
      kinds.emplace_back("sorted ids but one", ids);
    }
    std::vector<std::int64_t> runs(n);
    std::int64_t id = 0;
    for (std::size_t i = 0; i < n; ++i) runs[i] = id += i > 0 && label(rng) == 0;
    kinds.emplace_back("runs numbered 0, 1, 2, ... as the csv reader does", runs);
  }
  // Numbered in order of first appearance (the csv reader's numbering of shuffled rows), and with
  // one id anywhere one too far ahead of all before it.
  {
    std::vector<std::int64_t> ids(n);
    std::int64_t next = -5;
    std::bernoulli_distribution fresh(0.02);
    for (std::size_t i = 0; i < n; ++i) {
      ids[i] = i == 0 || fresh(rng) ? next++ : std::uniform_int_distribution<std::int64_t>(-5, next - 1)(rng);
    }
    kinds.emplace_back("numbered in order of first appearance", ids);
    std::uniform_int_distribution<std::size_t> where(0, n - 1);
    for (int miss = 0; miss < 3; ++miss) {
      std::vector<std::int64_t> jump = ids;
      const std::size_t at = where(rng);
      jump[at] = *std::max_element(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(at + 1)) + 2;
      kinds.emplace_back("numbered but one jump at " + std::to_string(at), jump);
    }
    // Slice boundaries of 2 to 16 slices (the machine's): a jump at a slice's first point.
    for (const std::size_t slices : {2, 3, 4, 8, 16}) {
      std::vector<std::int64_t> jump = ids;
      const std::size_t at = n / slices;
      if (at == 0) continue;
      jump[at] = *std::max_element(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(at + 1)) + 2;
      kinds.emplace_back("numbered but one jump at " + std::to_string(at), jump);
    }
  }
  return kinds;
}

// Every kind of ids, at sizes either side of where the grouping goes onto several cores, gives what
// the serial grouping gave: groups, order, hulls and the smallest input index of every vertex.
TYPED_TEST(Grouped, ByIdMatchesTheSerialGroupingOnEveryKindOfIds) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{1000},
                              (std::size_t{1} << 17) - 1, (std::size_t{1} << 17) + 3, std::size_t{300007}}) {
    // Small integers: duplicates in a group, so that the smallest of their indices is asked for.
    auto points = testing::grid<T>(n, rng);
    const auto disk = testing::uniform_disk<T>(n / 3, rng);
    for (std::size_t i = 0; i < disk.size(); ++i) points[3 * i] = disk[i];
    for (const auto& [name, ids] : id_kinds(n, rng)) {
      SCOPED_TRACE("n " + std::to_string(n) + ", " + name);
      for (const bool indices : {false, true}) {
        HullOptions options;
        options.backend = Backend::cpu;
        options.indices = indices;
        options.part = indices ? HullPart::full : HullPart::upper;
        expect_same_hulls(convex_hulls_by_id<T>(points, ids, options),
                          by_id_reference<T>(points, ids, options));
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// The errors too: a non-finite point is named by its input index, and a presorted group that is not
// sorted by the index convex_hulls() sees, whichever way the points were grouped.
TEST(Grouped, ByIdErrorsAreTheSerialGroupingsErrors) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::size_t n = std::size_t{1} << 18;
  std::vector<Point2<double>> points(n);
  for (std::size_t i = 0; i < n; ++i) points[i] = {double(i % 1000), double(i % 7)};
  std::vector<Point2<double>> non_finite = points;
  non_finite[n - 5] = {0, std::numeric_limits<double>::quiet_NaN()};
  non_finite[n / 2 + 3] = {std::numeric_limits<double>::infinity(), 0};
  const auto message = [](auto&& call) {
    try {
      call();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // Each kind as a pair, not a structured binding: lambdas capture bindings only from clang 16 on
  // (the sanitizer builds use clang 14).
  for (const auto& kind : id_kinds(n, rng)) {
    const std::string& name = kind.first;
    const std::vector<std::int64_t>& ids = kind.second;
    SCOPED_TRACE(name);
    HullOptions options;
    options.indices = true;
    const std::string expected = message([&] { by_id_reference<double>(non_finite, ids, options); });
    EXPECT_EQ(expected, "point " + std::to_string(n / 2 + 3) + " is not finite");
    EXPECT_EQ(message([&] { convex_hulls_by_id<double>(non_finite, ids, options); }), expected);
    options.presorted = true;
    options.part = HullPart::upper;
    EXPECT_EQ(message([&] { convex_hulls_by_id<double>(points, ids, options); }),
              message([&] { by_id_reference<double>(points, ids, options); }));
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

// A thread that meets a non-finite point stops the call while the others hold finished chunks: the
// call ends (no thread waits for a chunk that never comes) and names the first bad point.
TEST(Grouped, NonFinitePointsInLateChunksNameTheFirst) {
  std::vector<Point2<double>> pts(1000000);
  for (std::size_t i = 0; i < pts.size(); ++i) pts[i] = {double(i % 17), double(i % 13)};
  pts[900000] = {0, -std::numeric_limits<double>::infinity()};
  pts[700001] = {std::numeric_limits<double>::quiet_NaN(), 1};
  std::vector<std::int64_t> offsets;
  for (std::int64_t o = 0; o <= 1000000; o += 100) offsets.push_back(o);
  try {
    convex_hulls<double>(pts, offsets);
    FAIL() << "no error";
  } catch (const input_error& e) {
    EXPECT_STREQ(e.what(), "point 700001 is not finite");
  }
  std::vector<std::int64_t> large;
  EXPECT_THROW(cpu::small_group_hulls<double>(pts, offsets, HullPart::full, true, large), input_error);
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
