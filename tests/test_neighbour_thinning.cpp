// The guide filter's thinning rule (core/neighbour_thinning.hpp) on the host: a point is left out
// only where that is certain (a repeat of the point before it, or exactly inside the segment from
// that point to the next one unlike it, checked against exact orient2d), what stays has the input's
// hull on every family, and the rule does drop what it is for: copies and exactly collinear points,
// at every scale where float arithmetic can tell. test_filter_thinning_emulated and the GPU tests
// GuideFilterThins* run the warp's code.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../bench/families.hpp"
#include "core/neighbour_thinning.hpp"
#include "cpu/monotone_chain.hpp"
#include "generators.hpp"
#include "wagener/predicates.hpp"

namespace wagener {
namespace {

using testing::Points;
using P = Point2<float>;

/// The points of sorted that the rule keeps, each judged from the point before it and the next
/// point unlike it.
template <bool kInLine>
Points<float> thinned(const Points<float>& sorted) {
  Points<float> kept;
  const std::size_t n = sorted.size();
  std::vector<std::size_t> next_unlike(n + 1, n);  // the first index after i whose point differs
  for (std::size_t i = n; i-- > 1;)
    next_unlike[i - 1] = same_point(sorted[i], sorted[i - 1]) ? next_unlike[i] : i;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t next = next_unlike[i];
    const bool has_a = i > 0, has_c = next < n;
    const P& a = has_a ? sorted[i - 1] : sorted[i];
    const P& c = has_c ? sorted[next] : sorted[i];
    if (core::thinned_by_neighbours<kInLine>(has_a, a, sorted[i], has_c, c)) {
      // What the rule may drop: a copy, or a point exactly inside its neighbours' segment.
      const bool copy = same_point(a, sorted[i]);
      if (!copy) {
        EXPECT_TRUE(kInLine) << "point " << i << " dropped by repeats alone, but no copy";
        EXPECT_EQ(orient2d(a, sorted[i], c), 0) << "point " << i << " dropped, but not in line";
        EXPECT_TRUE(a.x < sorted[i].x && sorted[i].x < c.x) << "point " << i << " not between";
      }
    } else {
      kept.push_back(sorted[i]);
    }
  }
  return kept;
}

template <bool kInLine>
void expect_same_hull(const Points<float>& sorted, const std::string& what) {
  EXPECT_EQ(cpu::upper_chain<float>(thinned<kInLine>(sorted)), cpu::upper_chain<float>(sorted)) << what;
}

/// The bench's float parabola (bench::sorted_parabola_point, bench_cuda's) of 2^log2n points, points
/// [from, from + count): at |x| >= 1/2 several of its x steps round to one float.
Points<float> bench_parabola(int log2n, std::size_t from, std::size_t count) {
  const std::uint64_t n = std::uint64_t{1} << log2n;
  Points<float> pts;
  for (std::size_t i = from; i < from + count; ++i) pts.push_back(bench::sorted_parabola_point<float>(i, n));
  return pts;
}

class NeighbourThinning : public ::testing::Test {
 protected:
  std::uint64_t seed_ = testing::fresh_seed();  // WAGENER_TEST_SEED replays a failing run
  std::mt19937_64 rng_{seed_};
};

TEST_F(NeighbourThinning, EveryFamilyKeepsItsHull) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  for (const auto& family : testing::all_families<float>()) {
    for (const std::size_t n : {1u, 2u, 3u, 10u, 100u, 1000u, 4096u, 100000u}) {
      const auto sorted = testing::sorted_copy(family.make(n, rng_));
      const std::string what = family.name + " n=" + std::to_string(n);
      expect_same_hull<false>(sorted, what + " repeats");
      expect_same_hull<true>(sorted, what + " in line");
      if (HasFailure()) return;
    }
  }
}

// On the bench's parabola the rule drops what it is for: every copy (counted here on its own), and
// with in-line more, most of the rest where |x| > 1/2; near x = 0.3, 0.7 and 0.95 of 2^28 points.
TEST_F(NeighbourThinning, DropsTheBenchParabolasCopiesAndPointsInLine) {
  const std::size_t n = std::size_t{1} << 28, count = std::size_t{1} << 16;
  for (const double at : {0.3, 0.7, 0.95}) {
    const auto from = static_cast<std::size_t>((at + 1) / 2 * static_cast<double>(n));
    const auto slice = bench_parabola(28, from, count);
    std::size_t copies = 0;
    for (std::size_t i = 1; i < slice.size(); ++i) copies += same_point(slice[i], slice[i - 1]) ? 1 : 0;
    const std::string what = "x near " + std::to_string(at);
    const auto repeats = thinned<false>(slice);
    EXPECT_EQ(repeats.size(), slice.size() - copies) << what;
    if (at > 0.5) {
      EXPECT_GE(copies, slice.size() / 2) << what << ": float steps are coarser there";
    }
    const auto in_line = thinned<true>(slice);
    EXPECT_LT(in_line.size(), repeats.size()) << what;
    if (at > 0.5) {  // there x steps one float unit, and y most often the same number of units
      EXPECT_LT(in_line.size(), repeats.size() / 2) << what;
    }
    EXPECT_EQ(cpu::upper_chain<float>(in_line), cpu::upper_chain<float>(slice)) << what;
  }
}

// Exactly collinear triples a + i d, a + j d, a + k d (i < j < k; an eighth horizontal) at every
// scale from the subnormals to near overflow: inside the segment wherever float arithmetic is exact
// there (coordinates of one sign within a factor of two, products in [2^-100, 2^100]); and with the
// middle point moved by one ulp, never.
TEST_F(NeighbourThinning, InsideSegmentIsCertainAndFoundAtEveryScale) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  std::uniform_int_distribution<int> base(1 << 20, (1 << 21) - 1), step(1, 1 << 10), sign(0, 1);
  int found = 0, expected = 0;
  for (int scale = -149; scale <= 100; ++scale) {  // -149: the least float's unit
    for (int trial = 0; trial < 40; ++trial) {
      // Integers below 2^21 + 2^14 scaled by a power of two: every coordinate exact in float.
      const double ax = base(rng_), ay = base(rng_), dx = step(rng_),
                   dy = trial % 8 == 0 ? 0 : (sign(rng_) ? -1 : 1) * step(rng_);
      const auto point = [&](int i) {
        return P{static_cast<float>(std::ldexp(ax + i * dx, scale)),
                 static_cast<float>(std::ldexp(ay + i * dy, scale))};
      };
      const P a = point(0), b = point(1 + trial % 3), c = point(4 + trial % 5);
      ASSERT_EQ(orient2d(a, b, c), 0) << "the triple is collinear by construction, scale " << scale;
      const bool inside = core::certainly_inside_segment(a, b, c);
      // Differences of 2^21-point integers at most 2^14 apart are exact (Sterbenz); the products'
      // size is that of (step 2^scale)^2 times at most 2^4 * 2^14.
      const double product_least = std::ldexp(1.0, 2 * scale), product_most = std::ldexp(1.0, 2 * scale + 32);
      const bool exact_there = ax * std::ldexp(1.0, scale) >= std::ldexp(1.0, -126) &&
                               product_least >= std::ldexp(1.0, -98) && product_most <= std::ldexp(1.0, 98);
      if (exact_there) {
        ++expected;
        EXPECT_TRUE(inside) << "scale " << scale << ": (" << a.x << ", " << a.y << ") (" << b.x << ", " << b.y
                            << ") (" << c.x << ", " << c.y << ")";
      }
      found += inside ? 1 : 0;
      for (const float toward :
           {-std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity()}) {
        const P moved{b.x, std::nextafter(b.y, toward)};
        if (orient2d(a, moved, c) == 0) continue;  // cannot happen off the line, but say so if it does
        EXPECT_FALSE(core::certainly_inside_segment(a, moved, c))
            << "scale " << scale << ": a point one ulp off the line taken as inside it";
      }
      if (HasFailure()) return;
    }
  }
  EXPECT_GE(found, expected);
  EXPECT_GT(expected, 0);
}

// Random triples near a line at the last ulp, over every binade and of either sign: whenever the rule
// says inside, exact orient2d says 0 and the x are in order.
TEST_F(NeighbourThinning, InsideSegmentNeverAnswersWrongly) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  std::uniform_real_distribution<double> unit(-1, 1);
  std::uniform_int_distribution<int> binade(-150, 125);  // no conversion past the float range
  int inside = 0;
  for (int trial = 0; trial < 200000; ++trial) {
    const int e = binade(rng_);
    const double ax = unit(rng_), ay = unit(rng_), slope = unit(rng_) * 4;
    const double t1 = std::abs(unit(rng_)) * 0x1p-6, t2 = t1 + std::abs(unit(rng_)) * 0x1p-6;
    const auto f = [&](double v) { return static_cast<float>(std::ldexp(v, e)); };
    const P a{f(ax), f(ay)};
    const P c{f(ax + t2), f(ay + slope * t2)};
    P b{f(ax + t1), f(ay + slope * t1)};
    if (trial % 3 == 1) b.y = std::nextafter(b.y, 0.0f);
    if (trial % 3 == 2) b.y = std::nextafter(b.y, 1.0f);
    if (core::certainly_inside_segment(a, b, c)) {
      ++inside;
      ASSERT_EQ(orient2d(a, b, c), 0) << "trial " << trial << " binade " << e;
      ASSERT_TRUE(a.x < b.x && b.x < c.x) << "trial " << trial;
    }
  }
  RecordProperty("inside", inside);
}

TEST(NeighbourThinningEdges, NonFiniteAndSignedZeroPoints) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const P one{1, 1}, two{2, 2}, three{3, 3};
  EXPECT_TRUE(core::certainly_inside_segment(one, two, three));
  EXPECT_FALSE(core::certainly_inside_segment(one, P{2, nan}, three));
  EXPECT_FALSE(core::certainly_inside_segment(one, P{nan, 2}, three));
  EXPECT_FALSE(core::certainly_inside_segment(one, two, P{inf, inf}));
  EXPECT_FALSE(core::certainly_inside_segment(P{-inf, -inf}, two, three));
  // A NaN is never a repeat, not even of itself: each one reaches the filter's non-finite vote.
  EXPECT_FALSE(core::thinned_by_neighbours<true>(true, P{nan, 1}, P{nan, 1}, false, one));
  // A repeat by value: -0 equals +0, as everywhere in the library (of equal points the first stays).
  EXPECT_TRUE(core::thinned_by_neighbours<false>(true, P{0.0f, 1}, P{-0.0f, 1}, false, one));
  // The first point has no predecessor; the last no successor.
  EXPECT_FALSE(core::thinned_by_neighbours<true>(false, one, one, true, three));
  EXPECT_FALSE(core::thinned_by_neighbours<true>(true, one, two, false, three));
  EXPECT_TRUE(core::thinned_by_neighbours<true>(true, one, two, true, three));
  EXPECT_FALSE(core::thinned_by_neighbours<false>(true, one, two, true, three));
  // Horizontal: in line where both dy are 0; a dy of 0 alone is a turn.
  EXPECT_TRUE(core::certainly_inside_segment(P{1, 5}, P{2, 5}, P{7, 5}));
  EXPECT_FALSE(core::certainly_inside_segment(P{1, 5}, P{2, 5}, P{7, 6}));
  EXPECT_FALSE(core::certainly_inside_segment(P{1, 4}, P{2, 5}, P{7, 5}));
  // In line on y = x, but b - a = 1 + 2^-30 is no float: kept. Exact differences across zero: dropped.
  EXPECT_FALSE(core::certainly_inside_segment(P{-1, -1}, P{0x1p-30f, 0x1p-30f}, P{1, 1}));
  EXPECT_TRUE(core::certainly_inside_segment(P{-1, -1}, P{0.5f, 0.5f}, P{1, 1}));
}

}  // namespace
}  // namespace wagener
