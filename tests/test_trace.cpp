// The trace of Wagener's rounds: a hand-checked example, an independent reference (the serial
// monotone chain per block) on every named family, and the text and JSON layouts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cpu/monotone_chain.hpp"
#include "generators.hpp"
#include "wagener/error.hpp"
#include "wagener/hull.hpp"
#include "wagener/trace.hpp"

namespace wagener {
namespace {

using P = Point2<double>;
using Round = TraceRound<double>;

Round make_round(Chain chain, int r, std::vector<std::vector<P>> hoods, std::vector<Bridge<double>> bridges) {
  Round out;
  out.chain = chain;
  out.round = r;
  out.block_width = index_t{1} << r;
  for (const auto& h : hoods) {
    out.hood_sizes.push_back(static_cast<index_t>(h.size()));
    out.corners.insert(out.corners.end(), h.begin(), h.end());
  }
  out.bridges = std::move(bridges);
  return out;
}

// Eight points in x order, as the seed's picture of host_hood: two zig-zags, so that every round
// drops a point and the last bridge skips a whole hood vertex.
const std::vector<P> kEight = {{0, 0}, {1, 2}, {2, 1}, {3, 3}, {4, 0}, {5, 2}, {6, 1}, {7, 4}};

// Worked by hand. Upper chain: round 1 pairs every two points; in round 2, (2,1) lies under the
// segment (1,2)-(3,3) and (6,1) under (5,2)-(7,4); in round 3 the tangent from (3,3) to (7,4) passes
// above (5,2) (at x = 5 it is at 3.5), and (3,3) lies above the line from (1,2) to (7,4).
std::vector<Round> hand_checked_upper() {
  const Chain u = Chain::upper;
  return {
      make_round(u, 0, {{{0, 0}}, {{1, 2}}, {{2, 1}}, {{3, 3}}, {{4, 0}}, {{5, 2}}, {{6, 1}}, {{7, 4}}}, {}),
      make_round(u, 1, {{{0, 0}, {1, 2}}, {{2, 1}, {3, 3}}, {{4, 0}, {5, 2}}, {{6, 1}, {7, 4}}},
                 {{0, {0, 0}, {1, 2}}, {1, {2, 1}, {3, 3}}, {2, {4, 0}, {5, 2}}, {3, {6, 1}, {7, 4}}}),
      make_round(u, 2, {{{0, 0}, {1, 2}, {3, 3}}, {{4, 0}, {5, 2}, {7, 4}}},
                 {{0, {1, 2}, {3, 3}}, {1, {5, 2}, {7, 4}}}),
      make_round(u, 3, {{{0, 0}, {1, 2}, {3, 3}, {7, 4}}}, {{0, {3, 3}, {7, 4}}}),
  };
}

// Lower chain by hand: in round 2, (1,2) lies above the segment (0,0)-(2,1) and (5,2) above
// (4,0)-(6,1); round 3's lower tangent is y = 0, from (0,0) to (4,0), and the rest of the left hood
// is dropped.
std::vector<Round> hand_checked_lower() {
  const Chain l = Chain::lower;
  return {
      make_round(l, 0, {{{0, 0}}, {{1, 2}}, {{2, 1}}, {{3, 3}}, {{4, 0}}, {{5, 2}}, {{6, 1}}, {{7, 4}}}, {}),
      make_round(l, 1, {{{0, 0}, {1, 2}}, {{2, 1}, {3, 3}}, {{4, 0}, {5, 2}}, {{6, 1}, {7, 4}}},
                 {{0, {0, 0}, {1, 2}}, {1, {2, 1}, {3, 3}}, {2, {4, 0}, {5, 2}}, {3, {6, 1}, {7, 4}}}),
      make_round(l, 2, {{{0, 0}, {2, 1}, {3, 3}}, {{4, 0}, {6, 1}, {7, 4}}},
                 {{0, {0, 0}, {2, 1}}, {1, {4, 0}, {6, 1}}}),
      make_round(l, 3, {{{0, 0}, {4, 0}, {6, 1}, {7, 4}}}, {{0, {0, 0}, {4, 0}}}),
  };
}

TEST(Trace, UpperHullOfEightPointsMatchesTheHandCheckedRounds) {
  TraceLog<double> log;
  const auto hood = upper_hull<double>(kEight, {Backend::pram, nullptr, &log});
  EXPECT_EQ(log.rounds(), hand_checked_upper());
  EXPECT_EQ(hood, log.rounds().back().corners);
}

TEST(Trace, FullHullTracesTheUpperThenTheLowerChain) {
  TraceLog<double> log;
  convex_hull<double>(kEight, {Backend::pram, nullptr, &log});
  auto expected = hand_checked_upper();
  const auto lower = hand_checked_lower();
  expected.insert(expected.end(), lower.begin(), lower.end());
  EXPECT_EQ(log.rounds(), expected);
}

TEST(Trace, AutomaticBackendTracesOnThePram) {
  TraceLog<double> log;
  HullStats stats;
  upper_hull<double>(kEight, {Backend::automatic, &stats, &log});
  EXPECT_EQ(stats.backend, Backend::pram);
  EXPECT_EQ(log.rounds().size(), 4u);
}

TEST(Trace, BackendsWithoutRoundsRefuseToTrace) {
  TraceLog<double> log;
  EXPECT_THROW(convex_hull<double>(kEight, {Backend::cpu, nullptr, &log}), unsupported_error);
}

TEST(Trace, EmptyInputHasNoRoundsAndOnePointHasOne) {
  TraceLog<double> log;
  upper_hull<double>(std::vector<P>{}, {Backend::pram, nullptr, &log});
  EXPECT_TRUE(log.rounds().empty());
  upper_hull<double>(std::vector<P>{{1, 2}}, {Backend::pram, nullptr, &log});
  ASSERT_EQ(log.rounds().size(), 1u);
  EXPECT_EQ(log.rounds()[0], make_round(Chain::upper, 0, {{{1, 2}}}, {}));
}

// --- the reference: the trace's definition, computed with the serial monotone chain ---------------

/// Upper chain: block k of round r holds sorted[k w, (k+1) w). The bridge of a merge is the edge of
/// the merged hood that leaves the left block: a is its last vertex at or before the left block's
/// last point (a duplicate of that point in the right block belongs to the left), b the next.
template <class T>
std::vector<TraceRound<T>> reference_upper(std::span<const Point2<T>> s) {
  std::vector<TraceRound<T>> rounds;
  const auto n = static_cast<index_t>(s.size());
  for (index_t w = 1, r = 0; n > 0; w *= 2, ++r) {
    TraceRound<T> round;
    round.round = static_cast<int>(r);
    round.block_width = w;
    for (index_t k = 0; k * w < n; ++k) {
      const auto block =
          s.subspan(static_cast<std::size_t>(k * w), static_cast<std::size_t>(std::min(w, n - k * w)));
      const auto hood = cpu::upper_chain<T>(block);
      round.hood_sizes.push_back(static_cast<index_t>(hood.size()));
      round.corners.insert(round.corners.end(), hood.begin(), hood.end());
      const auto half = static_cast<std::size_t>(w / 2);
      if (r > 0 && block.size() > half) {
        const auto& left_last = block[half - 1];
        std::size_t a = 0;
        while (a + 1 < hood.size() && !lex_less(left_last, hood[a + 1])) ++a;
        if (a + 1 < hood.size()) round.bridges.push_back({k, hood[a], hood[a + 1]});
      }
    }
    rounds.push_back(std::move(round));
    if (w >= n) break;
  }
  return rounds;
}

/// Lower chain: the blocks are counted from the right end (the algorithm runs on the reflected,
/// reversed points). The bridge leaves the left block: a is the merged lower hood's last vertex
/// strictly before the right block's first point (a duplicate of it in the left block belongs to the
/// right), b the next; none when the left block adds nothing.
template <class T>
std::vector<TraceRound<T>> reference_lower(std::span<const Point2<T>> s) {
  std::vector<TraceRound<T>> rounds;
  const auto n = static_cast<index_t>(s.size());
  for (index_t w = 1, r = 0; n > 0; w *= 2, ++r) {
    TraceRound<T> round;
    round.chain = Chain::lower;
    round.round = static_cast<int>(r);
    round.block_width = w;
    const index_t blocks = (n + w - 1) / w;
    for (index_t k = blocks - 1; k >= 0; --k) {  // k counts from the right; hoods go left to right
      const index_t end = n - k * w, begin = std::max<index_t>(0, end - w);
      const auto block = s.subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin));
      const auto hood = cpu::lower_chain<T>(block);
      round.hood_sizes.push_back(static_cast<index_t>(hood.size()));
      round.corners.insert(round.corners.end(), hood.begin(), hood.end());
      const index_t split = end - w / 2;  // the right block of the merge starts here
      if (r > 0 && split > begin) {
        const auto& right_first = s[static_cast<std::size_t>(split)];
        if (lex_less(hood[0], right_first)) {
          std::size_t a = 0;
          while (lex_less(hood[a + 1], right_first)) ++a;
          round.bridges.push_back({blocks - 1 - k, hood[a], hood[a + 1]});
        }
      }
    }
    rounds.push_back(std::move(round));
    if (w >= n) break;
  }
  return rounds;
}

template <class T>
class TraceReference : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TraceReference, Precisions);

TYPED_TEST(TraceReference, HandExampleAgreesWithTheReference) {
  if constexpr (std::is_same_v<TypeParam, double>) {
    EXPECT_EQ(reference_upper<double>(kEight), hand_checked_upper());
    EXPECT_EQ(reference_lower<double>(kEight), hand_checked_lower());
  }
}

TYPED_TEST(TraceReference, PramTraceIsTheReferenceOnEveryFamily) {
  using T = TypeParam;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto& family : testing::all_families<T>()) {
    for (std::size_t n : {1, 2, 3, 5, 8, 17, 100, 1000}) {
      SCOPED_TRACE(family.name + " n=" + std::to_string(n));
      const auto sorted = testing::sorted_copy(family.make(n, rng));
      TraceLog<T> upper;
      upper_hull<T>(sorted, {Backend::pram, nullptr, &upper});
      ASSERT_EQ(upper.rounds(), reference_upper<T>(sorted));

      TraceLog<T> full;
      convex_hull<T>(sorted, {Backend::pram, nullptr, &full});
      auto expected = reference_upper<T>(sorted);
      const auto lower = reference_lower<T>(sorted);
      expected.insert(expected.end(), lower.begin(), lower.end());
      ASSERT_EQ(full.rounds(), expected);
    }
  }
}

// --- the file layouts --------------------------------------------------------------------------------

TEST(TraceFormat, TextIsTheSeedsStreamWithCommentedLabelsAndBridges) {
  const std::vector<P> three = {{0, 0}, {1, 1.5}, {2, 0.25}};
  TraceLog<double> log;
  upper_hull<double>(three, {Backend::pram, nullptr, &log});
  EXPECT_EQ(format_trace_text<double>(log.rounds(), 3),
            "# wagener trace: 3 points, precision double\n"
            "# chain upper round 0 width 1\n"
            "3\n1\n0 0\n1\n1 1.5\n1\n2 0.25\n\n"
            "# chain upper round 1 width 2\n"
            "2\n2\n0 0\n1 1.5\n1\n2 0.25\n"
            "# bridge 0 0 0 1 1.5\n\n"
            "# chain upper round 2 width 4\n"
            "1\n3\n0 0\n1 1.5\n2 0.25\n"
            "# bridge 0 1 1.5 2 0.25\n\n"
            "0\n");
}

// Integer corners in full, however many digits: int64's extremes in text and JSON.
TEST(TraceFormat, IntegerCornersAreWrittenWhole) {
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min(),
                         kMax = std::numeric_limits<std::int64_t>::max();
  const std::vector<Point2<std::int64_t>> two = {{kMin, kMax}, {kMax, kMin}};
  TraceLog<std::int64_t> log;
  upper_hull<std::int64_t>(two, {Backend::pram, nullptr, &log});
  EXPECT_EQ(format_trace_text<std::int64_t>(log.rounds(), 2),
            "# wagener trace: 2 points, precision int64\n"
            "# chain upper round 0 width 1\n"
            "2\n1\n-9223372036854775808 9223372036854775807\n1\n9223372036854775807 -9223372036854775808\n\n"
            "# chain upper round 1 width 2\n"
            "1\n2\n-9223372036854775808 9223372036854775807\n9223372036854775807 -9223372036854775808\n"
            "# bridge 0 -9223372036854775808 9223372036854775807 9223372036854775807 -9223372036854775808\n\n"
            "0\n");
  EXPECT_NE(format_trace_json<std::int64_t>(log.rounds(), 2)
                .find("\"a\": [-9223372036854775808,9223372036854775807], \"b\": "
                      "[9223372036854775807,-9223372036854775808]"),
            std::string::npos);
}

TEST(TraceFormat, JsonHoldsTheSameRounds) {
  const std::vector<P> two = {{0, 0}, {1, -1e-300}};
  TraceLog<double> log;
  upper_hull<double>(two, {Backend::pram, nullptr, &log});
  EXPECT_EQ(format_trace_json<double>(log.rounds(), 2),
            "{\"format\": \"wagener-trace\", \"version\": 1, \"points\": 2, \"precision\": \"double\",\n"
            " \"rounds\": [\n"
            "  {\"chain\": \"upper\", \"round\": 0, \"width\": 1,\n"
            "   \"hoods\": [[[0,0]], [[1,-1e-300]]],\n"
            "   \"bridges\": []},\n"
            "  {\"chain\": \"upper\", \"round\": 1, \"width\": 2,\n"
            "   \"hoods\": [[[0,0], [1,-1e-300]]],\n"
            "   \"bridges\": [{\"hood\": 0, \"a\": [0,0], \"b\": [1,-1e-300]}]}\n"
            " ]}\n");
}

}  // namespace
}  // namespace wagener
