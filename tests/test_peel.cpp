// The peel's rule (core/peel.hpp) on the host: rounds over sorted runs of every family, checked
// against Andrew's chain at every round (no vertex of the hood is ever dropped) and when a round drops
// nothing (what is left is the hood).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "core/peel.hpp"
#include "cpu/monotone_chain.hpp"
#include "generators.hpp"
#include "integer_reference.hpp"

namespace wagener {
namespace {

using testing::Points;

/// One round of the peel over run (sorted), every point judged from the neighbours it had before
/// the round; returns the points kept.
template <class T>
Points<T> peel_round(const Points<T>& run) {
  Points<T> kept;
  const std::size_t n = run.size();
  for (std::size_t i = 0; i < n; ++i) {
    const bool has_a = i > 0, has_b = i + 1 < n;
    if (core::peel_keeps(has_a, has_a ? run[i - 1] : run[i], run[i], has_b, has_b ? run[i + 1] : run[i])) {
      kept.push_back(run[i]);
    }
  }
  return kept;
}

/// Peels sorted until a round drops nothing, checking that each round keeps every vertex of the
/// hood; returns the rounds taken (the last one dropping nothing).
template <class T>
int expect_peel_ends_at_the_hood(const Points<T>& sorted, const std::string& what) {
  const Points<T> hood = cpu::upper_chain<T>(sorted);
  Points<T> run = sorted;
  for (int round = 1;; ++round) {
    Points<T> kept = peel_round(run);
    for (const auto& v : hood) {
      const bool stays =
          std::any_of(kept.begin(), kept.end(), [&](const auto& p) { return same_point(p, v); });
      EXPECT_TRUE(stays) << what << ": round " << round << " dropped a vertex of the hood";
      if (!stays) return round;
    }
    if (kept.size() == run.size()) {
      EXPECT_EQ(kept, hood) << what << " after " << round << " rounds";
      return round;
    }
    run = std::move(kept);
  }
}

template <class T>
void every_family(std::mt19937_64& rng) {
  for (const auto& family : testing::families_of<T>()) {
    for (const std::size_t n : {1u, 2u, 3u, 4u, 10u, 100u, 1000u, 4096u}) {
      expect_peel_ends_at_the_hood(testing::sorted_copy(family.make(n, rng)),
                                   family.name + " n=" + std::to_string(n));
    }
  }
}

class Peel : public ::testing::Test {
 protected:
  std::uint64_t seed_ = testing::fresh_seed();  // WAGENER_TEST_SEED replays a failing run
  std::mt19937_64 rng_{seed_};
};

TEST_F(Peel, EveryFamilyEndsAtAndrewsChain) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  every_family<double>(rng_);
  every_family<float>(rng_);
  every_family<std::int32_t>(rng_);
  every_family<std::int64_t>(rng_);
}

TEST_F(Peel, DenseRoundedArcsEndAtAndrewsChain) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  for (const double from : {0.05, 0.8, 1.5, 1.5707963, 3.0}) {
    expect_peel_ends_at_the_hood(testing::dense_arc<double>(2048, from, rng_),
                                 "double arc from " + std::to_string(from));
    expect_peel_ends_at_the_hood(testing::dense_arc<float>(4096, from, rng_),
                                 "float arc from " + std::to_string(from));
  }
}

// A V-shaped dent (testing::v_dents) takes a round for each pair of points it loses.
TEST(PeelDent, AVDentOpensAPairOfPointsARound) {
  for (int depth = 1; depth <= 40; ++depth) {
    const auto v = testing::v_dents<std::int64_t>(2 * static_cast<std::size_t>(depth) + 1, depth);
    const int rounds = expect_peel_ends_at_the_hood(v, "V of depth " + std::to_string(depth));
    EXPECT_GE(rounds, depth) << "a V of depth " << depth << " opens a pair a round";
  }
}

// Every multiset with up to two copies of each point of a 3x3 grid (testing::for_each_3x3_multiset).
TEST(PeelGrid, EveryMultisetOfA3x3GridEndsAtAndrewsChain) {
  testing::for_each_3x3_multiset<int>([](const Points<int>& pts, int code) {
    expect_peel_ends_at_the_hood(pts, "code " + std::to_string(code));
    return !::testing::Test::HasFailure();
  });
}

}  // namespace
}  // namespace wagener
