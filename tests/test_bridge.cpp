// The match-and-merge phases on the PRAM emulator, exhaustively on small grids and on every named
// family: the emulator also checks that every phase has exactly one writer per cell.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/bridge.hpp"
#include "core/nested_bridge.hpp"
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
  testing::for_each_3x3_multiset<int>([](const Points<int>& shown, int) {
    Points<double> pts;
    for (const auto& p : shown) pts.push_back({static_cast<double>(p.x), static_cast<double>(p.y)});
    expect_pram_equals_reference(pts, describe(shown));
    return !::testing::Test::HasFatalFailure();
  });
}

/// check(points, n, what) on every family's sorted points for n = 1, 1 + step, ... up to max_n, with
/// a fresh seed; stops at the first fatal failure.
template <class T, class Check>
void every_family_every_n(std::size_t max_n, std::size_t step, Check&& check) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : testing::all_families<T>()) {
    for (std::size_t n = 1; n <= max_n; n += step) {
      check(testing::sorted_copy(family.make(n, rng)), n, family.name + " n=" + std::to_string(n));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

template <class T>
void every_family_every_n(std::size_t max_n, std::size_t step) {
  every_family_every_n<T>(max_n, step, [](const auto& pts, std::size_t, const std::string& what) {
    expect_pram_equals_reference(pts, what);
  });
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

TEST(KaryBridge, AgreesWithTheSerialBridgeAndTheWalkOnEveryFamily) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int walked_near = 0, walked_far = 0;
  for (const auto& family : testing::all_families<double>()) {
    for (int trial = 0; trial < 300; ++trial) {
      const auto pts = testing::sorted_copy(family.make(2 + static_cast<std::size_t>(trial) * 7 % 600, rng));
      const std::size_t cut = std::uniform_int_distribution<std::size_t>(1, pts.size() - 1)(rng);
      // Cut where the point changes, so that P is strictly lex-left of Q.
      std::size_t at = cut;
      while (at < pts.size() && same_point(pts[at], pts[at - 1])) ++at;
      if (at == pts.size()) continue;
      std::span<const Point2<double>> all(pts);
      const auto left = cpu::upper_chain(all.subspan(0, at));
      const auto right = cpu::upper_chain(all.subspan(at));
      const core::MergeView<double> v(left.data(), static_cast<index_t>(left.size()), right.data(),
                                      static_cast<index_t>(right.size()));
      index_t serial_a = -1, serial_b = -1;
      core::serial_bridge(v, &serial_a, &serial_b);
      // The predicate the k-ary search relies on: false up to the bridge, true after it.
      for (index_t i = 0; i < v.m; ++i)
        ASSERT_EQ(core::past_bridge(v.p, i, v.q, v.n), i > serial_a) << family.name << " trial " << trial;
      // One probe a step (bisection), the tile kernel's group widths, and widths that are not powers of two.
      for (const int k : {1, 2, 3, 4, 7, 8, 16, 31, 32}) {
        index_t a = -1, b = -1;
        core::kary_bridge(v.p, v.m, v.q, v.n, k, &a, &b);
        ASSERT_EQ(a, serial_a) << family.name << " trial " << trial << " k " << k;
        ASSERT_EQ(b, serial_b) << family.name << " trial " << trial << " k " << k;
      }
      // The walk from the seam: given a step a vertex, it settles on the serial bridge; given few, it
      // settles on it or leaves a and b alone.
      index_t a = -1, b = -1;
      ASSERT_TRUE(core::walk_bridge(v.p, v.m, v.q, v.n, static_cast<int>(v.m + v.n), &a, &b))
          << family.name << " trial " << trial;
      ASSERT_EQ(a, serial_a) << family.name << " trial " << trial;
      ASSERT_EQ(b, serial_b) << family.name << " trial " << trial;
      a = -1, b = -1;
      const int few = 1 + trial % 4;
      if (core::walk_bridge(v.p, v.m, v.q, v.n, few, &a, &b)) {
        ASSERT_EQ(a, serial_a) << family.name << " trial " << trial << " in " << few << " steps";
        ASSERT_EQ(b, serial_b) << family.name << " trial " << trial << " in " << few << " steps";
        ++walked_near;
      } else {
        ASSERT_EQ(a, -1) << family.name << " trial " << trial << ": a refused walk leaves a and b alone";
        ASSERT_EQ(b, -1) << family.name << " trial " << trial;
        ++walked_far;
      }
      std::vector<Point2<double>> merged(left.begin(), left.begin() + serial_a + 1);
      merged.insert(merged.end(), right.begin() + serial_b, right.end());
      ASSERT_EQ(merged, cpu::upper_chain<double>(pts)) << family.name << " trial " << trial;
    }
  }
  EXPECT_GT(walked_near, 300);  // both outcomes of the bounded walk are exercised
  EXPECT_GT(walked_far, 300);
}

TEST(KaryBridge, SmallGridsEveryCutEveryWidth) {
  // Every subset of a 4 x 4 grid, cut at every x: collinear runs, equal x, vertical seams.
  for (unsigned mask = 1; mask < (1u << 16); mask += 7) {
    std::vector<Point2<double>> pts;
    for (int k = 0; k < 16; ++k)
      if (mask & (1u << k)) pts.push_back({static_cast<double>(k / 4), static_cast<double>(k % 4)});
    for (std::size_t at = 1; at < pts.size(); ++at) {
      std::span<const Point2<double>> all(pts);
      const auto left = cpu::upper_chain(all.subspan(0, at));
      const auto right = cpu::upper_chain(all.subspan(at));
      // int indices, as the tile kernel uses.
      for (const int k : {1, 2, 3, 32}) {
        int a = -1, b = -1;
        core::kary_bridge(left.data(), static_cast<int>(left.size()), right.data(),
                          static_cast<int>(right.size()), k, &a, &b);
        std::vector<Point2<double>> merged(left.begin(), left.begin() + a + 1);
        merged.insert(merged.end(), right.begin() + b, right.end());
        ASSERT_EQ(merged, cpu::upper_chain<double>(pts)) << "mask " << mask << " cut " << at << " k " << k;
      }
    }
  }
}

// ---- the optimal-work variant: hoods in place, bridges by nested sampling --------------------------

/// Hoods laid out in place: consecutive strips of `stride` slots, each holding a run of the hood's
/// vertices at a random offset, with dead strips (no vertex) between them.
struct InPlaceLayout {
  std::vector<Point2<double>> base;
  std::vector<index_t> lo, hi, prev_live, next_live;
  std::vector<index_t> rank;  ///< per slot: the vertex's rank in its hood, -1 for an empty slot
  index_t stride = 1;

  /// Appends a hood's strips; returns its first and last live strip.
  std::pair<index_t, index_t> add(std::span<const Point2<double>> hood, std::mt19937_64& rng) {
    std::uniform_int_distribution<index_t> count(0, stride), coin(0, 3);
    std::size_t next = 0;
    index_t first = -1, last = -1;
    while (next < hood.size()) {
      index_t c = std::min<index_t>(count(rng), static_cast<index_t>(hood.size() - next));
      if (first < 0 && c == 0) c = 1;  // a hood starts with a live strip
      if (coin(rng) == 0 && first >= 0) c = 0;
      const index_t t = static_cast<index_t>(lo.size());
      const index_t offset = std::uniform_int_distribution<index_t>(0, stride - c)(rng);
      lo.push_back(offset);
      hi.push_back(offset + c);
      base.resize(static_cast<std::size_t>((t + 1) * stride), Point2<double>{0, 0});
      rank.resize(base.size(), -1);
      for (index_t k = 0; k < c; ++k) {
        base[t * stride + offset + k] = hood[next];
        rank[t * stride + offset + k] = static_cast<index_t>(next++);
      }
      if (c > 0) {
        if (first < 0) first = t;
        last = t;
      }
    }
    return {first, last};
  }
  void link() {
    const auto strips = static_cast<index_t>(lo.size());
    prev_live.assign(lo.size(), -1);
    next_live.assign(lo.size(), strips);
    for (index_t t = 0; t < strips; ++t) prev_live[t] = lo[t] < hi[t] ? t : (t > 0 ? prev_live[t - 1] : -1);
    for (index_t t = strips; t-- > 0;)
      next_live[t] = lo[t] < hi[t] ? t : (t + 1 < strips ? next_live[t + 1] : strips);
  }
  core::StripRanges ranges() { return {lo.data(), hi.data(), prev_live.data(), next_live.data(), stride}; }
  index_t rank_of(const core::HoodSlot& v) const { return rank[v.strip * stride + v.slot]; }
};

/// A pair of strict hoods, P lex-left of Q with no shared point, from one sorted point set.
struct HoodPair {
  std::vector<Point2<double>> p, q;
};

HoodPair split_hoods(const std::vector<Point2<double>>& sorted, std::size_t cut) {
  std::span<const Point2<double>> all(sorted);
  HoodPair pair{cpu::upper_chain(all.subspan(0, cut)), cpu::upper_chain(all.subspan(cut))};
  if (!pair.p.empty() && !pair.q.empty() && same_point(pair.p.back(), pair.q.front()))
    pair.q.erase(pair.q.begin());
  return pair;
}

/// One trial of the in-place bridge tests: two hoods split from a family's sorted points, laid out in
/// place at random, with their serial bridge (a, b as ranks).
struct InPlaceTrial {
  std::string what;
  HoodPair pair;
  index_t a = -1, b = -1;
  InPlaceLayout layout;
  std::pair<index_t, index_t> p_strips, q_strips;  ///< first and last live strip of each hood

  core::InPlaceHood<double> p() {
    return {layout.base.data(), layout.ranges(), p_strips.first, p_strips.second};
  }
  core::InPlaceHood<double> q() {
    return {layout.base.data(), layout.ranges(), q_strips.first, q_strips.second};
  }
};

/// Trial number `trial` (its family, size and stride), or nothing when a side has no vertex.
std::optional<InPlaceTrial> in_place_trial(int trial, std::mt19937_64& rng) {
  static const auto families = testing::all_families<double>();
  const auto& family = families[static_cast<std::size_t>(trial) % families.size()];
  const std::size_t n = 2 + static_cast<std::size_t>(trial / 7) % 300;
  const auto pts = testing::sorted_copy(family.make(n, rng));
  InPlaceTrial t;
  t.what = family.name + " n=" + std::to_string(n) + " trial " + std::to_string(trial);
  t.pair = split_hoods(pts, std::uniform_int_distribution<std::size_t>(1, pts.size() - 1)(rng));
  if (t.pair.p.empty() || t.pair.q.empty()) return std::nullopt;
  core::serial_bridge(core::MergeView<double>(t.pair.p.data(), static_cast<index_t>(t.pair.p.size()),
                                              t.pair.q.data(), static_cast<index_t>(t.pair.q.size())),
                      &t.a, &t.b);
  t.layout.stride = 1 + trial % 9;
  t.p_strips = t.layout.add(t.pair.p, rng);
  t.q_strips = t.layout.add(t.pair.q, rng);
  t.layout.link();
  return t;
}

/// check(trial, t) on each of 6,000 in-place trials with two non-empty hoods, from a fresh seed;
/// stops at the first fatal failure.
template <class Check>
void for_each_in_place_trial(Check&& check) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 6000 && !::testing::Test::HasFatalFailure(); ++trial) {
    auto t = in_place_trial(trial, rng);
    if (t) check(trial, *t);
  }
}

TEST(NestedBridge, AgreesWithTheSerialBridgeOnHoodsInPlace) {
  int checked = 0;
  for_each_in_place_trial([&](int trial, InPlaceTrial& t) {
    const int depth = 1 + trial % 5;
    const core::NestedMerge<double> mg(t.p(), t.q(), depth);
    std::vector<core::Bracket> cells(static_cast<std::size_t>(mg.g));
    core::HoodSlot va, vb;
    core::nested_bridge_serial(mg, cells.data(), &va, &vb);
    ASSERT_EQ(t.layout.rank_of(va), t.a) << t.what << " depth " << depth;
    ASSERT_EQ(t.layout.rank_of(vb), t.b) << t.what << " depth " << depth;
    ++checked;
  });
  EXPECT_GT(checked, 3000);  // most trials give two non-empty hoods
}

// The merge's shortcut is taken exactly when the bridge joins P's last vertex to Q's first: on every
// family, with hoods laid out in place at random (full hoods from the parabola and the circle
// families take it, random ones mostly not).
TEST(NestedBridge, SeamBridgeIsTakenExactlyWhenTheBridgeJoinsTheEnds) {
  int taken = 0, refused = 0;
  for_each_in_place_trial([&](int /*trial*/, InPlaceTrial& t) {
    core::HoodSlot va, vb;
    const bool shortcut = core::seam_bridge(t.p(), t.q(), &va, &vb);
    const bool at_the_ends = t.a == static_cast<index_t>(t.pair.p.size()) - 1 && t.b == 0;
    ASSERT_EQ(shortcut, at_the_ends) << t.what;
    if (shortcut) {
      ASSERT_EQ(t.layout.rank_of(va), t.a) << t.what;
      ASSERT_EQ(t.layout.rank_of(vb), t.b) << t.what;
      ++taken;
    } else {
      ++refused;
    }
  });
  EXPECT_GT(taken, 300);  // both outcomes are exercised
  EXPECT_GT(refused, 300);
}

// The walk from the seam is a whole algorithm: given steps enough (one a vertex of each hood), it
// settles on every trial, on the serial bridge; given few, it settles only where the bridge is near
// the seam, and then on the serial bridge too (else it leaves the merge to the search).
TEST(NestedBridge, WalkFromTheSeamSettlesOnTheSerialBridge) {
  int near = 0, far = 0;
  for_each_in_place_trial([&](int trial, InPlaceTrial& t) {
    const auto hood_sizes = static_cast<int>(t.pair.p.size() + t.pair.q.size());
    core::HoodSlot va, vb;
    ASSERT_TRUE(core::walk_bridge(t.p(), t.q(), hood_sizes + 1, &va, &vb)) << t.what;
    ASSERT_EQ(t.layout.rank_of(va), t.a) << t.what;
    ASSERT_EQ(t.layout.rank_of(vb), t.b) << t.what;
    const int few = 1 + trial % 4;
    core::HoodSlot wa, wb;
    if (core::walk_bridge(t.p(), t.q(), few, &wa, &wb)) {
      ASSERT_EQ(t.layout.rank_of(wa), t.a) << t.what << " in " << few << " steps";
      ASSERT_EQ(t.layout.rank_of(wb), t.b) << t.what << " in " << few << " steps";
      ++near;
    } else {
      ASSERT_FALSE(wa.valid() || wb.valid()) << t.what << ": a refused walk leaves a and b alone";
      ++far;
    }
  });
  EXPECT_GT(near, 300);  // both outcomes are exercised
  EXPECT_GT(far, 300);
}

/// A tile level's hoods side by side, from sorted points cut into runs of 1 to `longest` points: each
/// run's hood at t * kSeamStride of `base`, its size at size[t] (as the tile level lays them out).
struct TileHoods {
  static constexpr index_t kSeamStride = 64;
  Points<double> base;
  std::vector<index_t> size;
  Points<double> side_by_side;

  TileHoods(const Points<double>& sorted, index_t longest, std::mt19937_64& rng) {
    std::uniform_int_distribution<index_t> length(1, longest);
    for (std::size_t i = 0; i < sorted.size();) {
      const auto run = std::min<std::size_t>(static_cast<std::size_t>(length(rng)), sorted.size() - i);
      const auto hood = cpu::upper_chain<double>(std::span(sorted).subspan(i, run));
      base.resize(static_cast<std::size_t>(kSeamStride) * (size.size() + 1));
      std::copy(hood.begin(), hood.end(), base.end() - kSeamStride);
      size.push_back(static_cast<index_t>(hood.size()));
      side_by_side.insert(side_by_side.end(), hood.begin(), hood.end());
      i += run;
    }
  }
  index_t tiles() const { return static_cast<index_t>(size.size()); }
  bool every_seam_turns_right() const {
    for (index_t s = 0; s + 1 < tiles(); ++s) {
      if (!core::tile_seam_turns_right(base.data(), size.data(), kSeamStride, tiles(), s)) return false;
    }
    return true;
  }
};

// Every seam of a tile level turns strictly right exactly when its hoods side by side are the hood
// of all its points: on every family, and on strictly convex chains (hulls of random points) whole
// or with one flaw (a vertex repeated, an edge's midpoint added, a vertex moved one ulp down), cut
// into runs of 1 to 64 points, of 1 to 3 (hoods of one vertex, which lend their neighbours to the
// seams' turns), and of exactly one.
TEST(TileSeams, EverySeamTurnsRightExactlyWhenTheHoodsSideBySideAreTheHood) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int joined = 0, refused = 0;
  const auto check = [&](const Points<double>& sorted, const std::string& what) {
    const auto hood = cpu::upper_chain<double>(sorted);
    for (const index_t longest : {index_t{64}, index_t{3}, index_t{1}}) {
      const TileHoods tiles(sorted, longest, rng);
      const bool turns_right = tiles.every_seam_turns_right();
      ASSERT_EQ(turns_right, tiles.side_by_side == hood) << what << ", runs of 1 to " << longest;
      ++(turns_right ? joined : refused);
    }
  };
  std::uniform_int_distribution<std::size_t> sizes(1, 400);
  for (int trial = 0; trial < 300; ++trial) {
    for (const auto& family : testing::all_families<double>()) {
      const auto sorted = testing::sorted_copy(family.make(sizes(rng), rng));
      check(sorted, family.name);
      auto chain = cpu::upper_chain<double>(sorted);
      check(chain, family.name + "'s hood");
      if (chain.size() < 3) continue;
      const std::size_t at = std::uniform_int_distribution<std::size_t>(1, chain.size() - 2)(rng);
      auto repeated = chain;
      repeated.insert(repeated.begin() + static_cast<std::ptrdiff_t>(at), chain[at]);
      check(repeated, family.name + "'s hood, a vertex repeated");
      // An edge's midpoint, rounded: on the chord where exact, else just off it.
      const Point2<double> a = chain[at - 1], b = chain[at];
      auto on_chord = chain;
      on_chord.insert(on_chord.begin() + static_cast<std::ptrdiff_t>(at),
                      {a.x / 2 + b.x / 2, a.y / 2 + b.y / 2});
      check(testing::sorted_copy(on_chord), family.name + "'s hood, an edge's midpoint added");
      auto dented = chain;
      dented[at].y = std::nextafter(dented[at].y, -HUGE_VAL);
      check(testing::sorted_copy(dented), family.name + "'s hood, a vertex one ulp lower");
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_GT(joined, 2000);  // both outcomes are exercised
  EXPECT_GT(refused, 2000);
}

// Hand cases: no turn to test, a repeat across the seam, collinear seams, the vertical first edge,
// and a lone vertex between two seams, whose turns need the vertices of the hoods either side.
TEST(TileSeams, HandCases) {
  constexpr index_t kStride = 4;
  const auto seams = [](std::vector<Points<double>> hoods) {
    Points<double> base(hoods.size() * kStride);
    std::vector<index_t> size;
    for (std::size_t t = 0; t < hoods.size(); ++t) {
      std::copy(hoods[t].begin(), hoods[t].end(), base.begin() + static_cast<std::ptrdiff_t>(t * kStride));
      size.push_back(static_cast<index_t>(hoods[t].size()));
    }
    std::string turns;
    for (index_t s = 0; s + 1 < static_cast<index_t>(size.size()); ++s) {
      turns +=
          core::tile_seam_turns_right(base.data(), size.data(), kStride, static_cast<index_t>(size.size()), s)
              ? 'R'
              : 'x';
    }
    return turns;
  };
  EXPECT_EQ(seams({{{0, 0}}, {{1, 1}}}), "R");
  EXPECT_EQ(seams({{{0, 0}}, {{0, 0}}}), "x");
  EXPECT_EQ(seams({{{0, 0}, {1, 1}}, {{1, 1}, {2, 1}}}), "x");
  EXPECT_EQ(seams({{{0, 0}, {1, 1}}, {{2, 2}}}), "x");
  EXPECT_EQ(seams({{{0, 0}}, {{1, 1}, {2, 2}}}), "x");
  EXPECT_EQ(seams({{{0, 0}, {0, 1}}, {{1, 0}}}), "R");
  EXPECT_EQ(seams({{{0, 0}, {1, 2}}, {{2, 3}}, {{3, 3}}}), "RR");
  // (1, 2), (2, 3), (3, 5) turns left: both seams of the lone vertex (2, 3) see it.
  EXPECT_EQ(seams({{{0, 0}, {1, 2}}, {{2, 3}}, {{3, 5}, {4, 5}}}), "xx");
  // The lone vertex (2, 4) borrows (1, 3), the last vertex before it, not (0, 0): collinear.
  EXPECT_EQ(seams({{{0, 0}, {1, 3}}, {{2, 4}}, {{3, 5}}}), "xx");
  EXPECT_EQ(seams({{{0, 0}}, {{1, 2}}, {{2, 3}}, {{3, 3}}}), "RRR");
  EXPECT_EQ(seams({{{0, 0}}, {{1, 2}}, {{2, 4}}, {{3, 5}}}), "xxR");
}

TEST(NestedBridge, SamplesForDepthIsTheSmallestRootBound) {
  for (int depth = 1; depth <= 5; ++depth) {
    for (index_t k = 1; k < 3000; k += 1 + k / 50) {
      const index_t g = core::samples_for_depth(k, depth);
      double power = 1, below = 1;
      for (int d = 0; d < depth; ++d) power *= static_cast<double>(g), below *= static_cast<double>(g - 1);
      EXPECT_GE(power, static_cast<double>(k)) << k << " " << depth;
      if (k > 1) {
        EXPECT_LT(below, static_cast<double>(k)) << k << " " << depth;
      }
    }
  }
}

template <class T>
void expect_optimal_equals_reference(const Points<T>& sorted, index_t strip_width, int depth,
                                     const std::string& what) {
  const auto expected = cpu::upper_chain<T>(sorted);
  std::vector<Point2<T>> got;
  ASSERT_NO_THROW(got = pram::upper_hull_optimal<T>(sorted, nullptr, strip_width, depth)) << what;
  ASSERT_EQ(got, expected) << what;
}

TEST(PramOptimal, EverySubsetOfA4x4GridEveryStripWidth) {
  constexpr int kCells = 16;
  for (std::uint32_t mask = 1; mask < (1u << kCells); mask += 3) {
    Points<double> pts;
    for (int c = 0; c < kCells; ++c) {
      if (mask & (1u << c)) pts.push_back({static_cast<double>(c / 4), static_cast<double>(c % 4)});
    }
    const index_t width = 1 + static_cast<index_t>(mask % 4);
    expect_optimal_equals_reference(pts, width, 1 + static_cast<int>(mask % 3),
                                    "mask " + std::to_string(mask));
    if (HasFatalFailure()) return;
  }
}

TEST(PramOptimal, EveryMultisetOfA3x3GridWithDuplicates) {
  testing::for_each_3x3_multiset<double>([](const Points<double>& pts, int code) {
    for (index_t width : {1, 2, 3}) {
      expect_optimal_equals_reference(pts, width, 2, "code " + std::to_string(code));
      if (::testing::Test::HasFatalFailure()) return false;
    }
    return true;
  });
}

template <class T>
void optimal_every_family(std::size_t max_n, std::size_t step) {
  every_family_every_n<T>(max_n, step, [](const auto& pts, std::size_t n, const std::string& what) {
    const auto width = static_cast<index_t>(n % 7);  // 0: ceil(log2 n)
    const int depth = 1 + static_cast<int>(n % 4);
    expect_optimal_equals_reference(pts, width, depth, what);
  });
}

TEST(PramOptimal, EveryFamilyEveryNUpTo300Double) {
  optimal_every_family<double>(300, 1);
}

TEST(PramOptimal, EveryFamilyEveryNUpTo300Float) {
  optimal_every_family<float>(300, 1);
}

TEST(PramOptimal, FullHoodsAcrossStripAndRoundBoundaries) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (std::size_t n : {1023u, 1024u, 1025u, 4097u, 20011u}) {
    for (auto make : {testing::parabola<double>, testing::circle<double>, testing::collinear<double>,
                      testing::near_collinear_ulp<double>, testing::duplicates<double>}) {
      expect_optimal_equals_reference(testing::sorted_copy(make(n, rng)), 0, 4, "n=" + std::to_string(n));
      expect_optimal_equals_reference(testing::sorted_copy(make(n, rng)), 16, 3, "n=" + std::to_string(n));
    }
  }
}

TEST(PramOptimalCounters, StepsGrowAsLogNAndWorkAsNOnAFullHood) {
  std::mt19937_64 rng(testing::fresh_seed());
  pram::Counters small, large;
  pram::upper_hull_optimal<double>(testing::sorted_copy(testing::parabola<double>(1 << 10, rng)), &small);
  pram::upper_hull_optimal<double>(testing::sorted_copy(testing::parabola<double>(1 << 16, rng)), &large);
  // n grows 64x and log n 1.6x: linear work predicts 64x (n log n would be 102x); steps 1.6x.
  const double work_ratio = static_cast<double>(large.work) / static_cast<double>(small.work);
  const double step_ratio =
      static_cast<double>(large.parallel_steps) / static_cast<double>(small.parallel_steps);
  EXPECT_LT(work_ratio, 64.0 * 1.15);
  EXPECT_GT(work_ratio, 64.0 * 0.7);
  EXPECT_LT(step_ratio, 1.6 * 1.3);
  EXPECT_GT(step_ratio, 1.0);
  // And the seed's merge does n log n work on the same input.
  pram::Counters seed_large;
  pram::upper_hull<double>(testing::sorted_copy(testing::parabola<double>(1 << 16, rng)), &seed_large);
  EXPECT_LT(large.work * 3, seed_large.work);
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
