// orient2d against exact rational arithmetic (GMP) on adversarial triples.
#include <gmpxx.h>
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <random>

#include "core/float_orientation.hpp"
#include "generators.hpp"
#include "wagener/predicates.hpp"

namespace wagener {
namespace {

int exact_sign(double ax, double ay, double bx, double by, double cx, double cy) {
  const mpq_class det =
      (mpq_class(bx) - ax) * (mpq_class(cy) - ay) - (mpq_class(by) - ay) * (mpq_class(cx) - ax);
  return sgn(det);
}

void expect_exact(double ax, double ay, double bx, double by, double cx, double cy) {
  const int expected = exact_sign(ax, ay, bx, by, cx, cy);
  ASSERT_EQ(orient2d(ax, ay, bx, by, cx, cy), expected)
      << std::hexfloat << "a=(" << ax << ", " << ay << ") b=(" << bx << ", " << by << ") c=(" << cx << ", "
      << cy << ")";
  ASSERT_EQ(detail::orient2d_exact(ax, ay, bx, by, cx, cy), expected);
  // The first stage alone (what filters ask): a sign it gives is the exact one; 0 means unknown.
  const int certified = orient2d_certified(ax, ay, bx, by, cx, cy);
  if (certified != 0) {
    ASSERT_EQ(certified, expected);
  }
  // The branch-free form the GPU's per-thread filter uses certifies exactly the same left turns.
  ASSERT_EQ(certified_left_differences(ax - cx, ay - cy, bx - cx, by - cy), certified == 1);
  // The middle stage, on its own wherever it applies (2: it declines).
  const int middle = detail::orient2d_expansion(ax, ay, bx, by, cx, cy);
  if (middle != 2) {
    ASSERT_EQ(middle, expected);
  }
}

TEST(Orient2d, SimpleTurns) {
  EXPECT_EQ(orient2d(0, 0, 1, 0, 0, 1), 1);
  EXPECT_EQ(orient2d(0, 0, 0, 1, 1, 0), -1);
  EXPECT_EQ(orient2d(0, 0, 1, 1, 2, 2), 0);
  EXPECT_EQ(orient2d(Point2<float>{0, 0}, Point2<float>{1, 0}, Point2<float>{0, 1}), 1);
}

TEST(Orient2d, ShewchuksNearCollinearGrid) {
  // The classic failure of the naive predicate: a 256 x 256 ulp grid around a point on the line
  // y = x through (12, 12) and (24, 24).
  const double base = 0.5;
  double x = base;
  for (int i = 0; i < 256; ++i, x = std::nextafter(x, 1.0)) {
    double y = base;
    for (int j = 0; j < 256; ++j, y = std::nextafter(y, 1.0)) {
      expect_exact(x, y, 12, 12, 24, 24);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(Orient2d, MiddleStageDecidesNearbyPointsAndDeclinesInexactDifferences) {
  // An ulp grid around (0.5, 0.5) against the line through (0.75, 0.75) and (1, 1): every
  // difference is exact (Sterbenz), so the middle stage must answer, and rightly.
  double x = 0.5;
  for (int i = 0; i < 64; ++i, x = std::nextafter(x, 1.0)) {
    double y = 0.5;
    for (int j = 0; j < 64; ++j, y = std::nextafter(y, 1.0)) {
      ASSERT_NE(detail::orient2d_expansion(x, y, 0.75, 0.75, 1.0, 1.0), 2);
      expect_exact(x, y, 0.75, 0.75, 1.0, 1.0);
    }
  }
  // 1 - 2^-60 is not a double: the difference 1 - 2^-60 is inexact, so the stage declines.
  EXPECT_EQ(detail::orient2d_expansion(1.0, 0.0, 2.0, 1.0, 0x1p-60, 0.0), 2);
  // Products outside the splittable range decline too (an FMA error term would be inexact).
  EXPECT_EQ(detail::orient2d_expansion(1e-300, 0, 0, 1e-300, 0, 0), 2);
  EXPECT_EQ(detail::orient2d_expansion(1e300, 0, 0, 1e300, 0, 0), 2);
}

TEST(Orient2d, RandomNearCollinearAtTheLastUlp) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1e3, 1e3);
  std::uniform_int_distribution<int> nudge(-3, 3);
  for (int trial = 0; trial < 100000; ++trial) {
    const double ax = u(rng), ay = u(rng), bx = u(rng), by = u(rng);
    const double t = u(rng) / 1e3;
    double cx = ax + t * (bx - ax), cy = ay + t * (by - ay);
    for (int k = nudge(rng); k != 0; k += k > 0 ? -1 : 1)
      cy = std::nextafter(cy, k > 0 ? INFINITY : -INFINITY);
    expect_exact(ax, ay, bx, by, cx, cy);
    if (HasFatalFailure()) return;
  }
}

TEST(Orient2d, HugeCoordinatesWhoseProductsOverflow) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 20000; ++trial) {
    const double s = 1e300;
    const double ax = u(rng) * s, ay = u(rng) * s, bx = u(rng) * s, by = u(rng) * s;
    double cx = ax + 0.5 * (bx - ax), cy = ay + 0.5 * (by - ay);  // near collinear
    if (trial % 2) cy = std::nextafter(cy, INFINITY);
    expect_exact(ax, ay, bx, by, cx, cy);
    expect_exact(DBL_MAX, -DBL_MAX, -DBL_MAX, DBL_MAX, cx, cy);
    if (HasFatalFailure()) return;
  }
}

TEST(Orient2d, TinyCoordinatesWhoseProductsUnderflow) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 20000; ++trial) {
    const double s = trial % 3 == 0 ? 1e-300 : (trial % 3 == 1 ? 1e-160 : 4.9e-324 * 1000);
    const double ax = u(rng) * s, ay = u(rng) * s, bx = u(rng) * s, by = u(rng) * s;
    const double cx = u(rng) * s, cy = u(rng) * s;
    expect_exact(ax, ay, bx, by, cx, cy);
    expect_exact(ax, ay, bx, by, ax + (bx - ax), ay + (by - ay));
    if (HasFatalFailure()) return;
  }
}

TEST(Orient2d, MixedMagnitudesAcrossTheWholeRange) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> exponent(-1074, 1023);
  std::uniform_int_distribution<int> sign(0, 1);
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  auto any = [&] {
    const double v = std::ldexp(mant(rng), exponent(rng));
    return sign(rng) ? -v : v;
  };
  for (int trial = 0; trial < 50000; ++trial) {
    const double ax = any(), ay = any(), bx = any(), by = any(), cx = any(), cy = any();
    expect_exact(ax, ay, bx, by, cx, cy);
    // Collinear by construction on an axis-parallel line, and an exactly repeated point.
    expect_exact(ax, ay, bx, ay, cx, ay);
    expect_exact(ax, ay, bx, by, ax, ay);
    if (HasFatalFailure()) return;
  }
}

TEST(Orient2d, SubnormalsAndSignedZeros) {
  const double d = 4.9406564584124654e-324;  // smallest subnormal
  expect_exact(0.0, 0.0, d, d, 2 * d, 2 * d);
  expect_exact(0.0, 0.0, d, d, 2 * d, 3 * d);
  expect_exact(-0.0, 0.0, d, -0.0, 0.0, d);
  expect_exact(DBL_MIN, d, -DBL_MIN, -d, 0.0, 0.0);
  expect_exact(DBL_MAX, DBL_MAX, -DBL_MAX, -DBL_MAX, d, -d);
  expect_exact(DBL_MAX, DBL_MAX, -DBL_MAX, -DBL_MAX, 0.0, 0.0);
}

TEST(Orient2d, FloatInputsAreExactToo) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto pts = testing::near_collinear_ulp<float>(30000, rng);
  for (std::size_t i = 0; i + 2 < pts.size(); i += 3) {
    const auto &a = pts[i], &b = pts[i + 1], &c = pts[i + 2];
    ASSERT_EQ(orient2d(a, b, c), exact_sign(a.x, a.y, b.x, b.y, c.x, c.y));
    expect_exact(a.x, a.y, b.x, b.y, c.x, c.y);
  }
}

// A filter that keeps every point its first stage cannot certify keeps every non-finite point too:
// the stage never certifies a sign where a coordinate is NaN or infinite, whichever coordinate and
// whatever the others (zeros, huge, subnormal). So a check may look for non-finite points among the
// kept ones alone (bench/NOTES.md, "The presorted check by a vote").
TEST(Orient2d, TheFilterCertifiesNoNonFiniteTriple) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const double bad_values[] = {std::nan(""), INFINITY, -INFINITY};
  const double finite_values[] = {0.0, -0.0, 1.0, -1.0, DBL_MAX, -DBL_MAX, DBL_MIN, 0x1p-1074};
  for (int trial = 0; trial < 20000; ++trial) {
    double c[6];
    for (double& v : c) {
      v = trial % 2 == 0 ? uniform(rng) : finite_values[rng() % std::size(finite_values)];
    }
    // One to three coordinates made non-finite.
    const int bad = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < bad; ++k) c[rng() % 6] = bad_values[rng() % std::size(bad_values)];
    ASSERT_EQ(orient2d_certified(c[0], c[1], c[2], c[3], c[4], c[5]), 0)
        << std::hexfloat << c[0] << " " << c[1] << " " << c[2] << " " << c[3] << " " << c[4] << " " << c[5];
    ASSERT_FALSE(certified_left_differences(c[0] - c[4], c[1] - c[5], c[2] - c[4], c[3] - c[5]));
  }
}

// The float guide filter's test (core/float_orientation.hpp, the presorted float filter's on the
// GPU): it certifies p right of a->b only where the exact sign says so, over triples near a line at
// the last ulp, across the whole float range (where its products underflow or overflow) and with
// non-finite coordinates; and it does certify plain right turns, or a filter would keep every point.
TEST(Orient2d, TheFloatGuideTestCertifiesOnlyRightTurns) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto check = [](const Point2<float>& a, const Point2<float>& b, const Point2<float>& p) {
    if (core::certainly_right_in_float(a, b, p)) {
      ASSERT_EQ(exact_sign(a.x, a.y, b.x, b.y, p.x, p.y), -1)
          << std::hexfloat << "a=(" << a.x << ", " << a.y << ") b=(" << b.x << ", " << b.y << ") p=(" << p.x
          << ", " << p.y << ")";
    }
  };
  const auto near = testing::near_collinear_ulp<float>(30000, rng);
  for (std::size_t i = 0; i + 2 < near.size(); ++i) {
    check(near[i], near[i + 1], near[i + 2]);
    check(near[i + 2], near[i], near[i + 1]);
    if (HasFatalFailure()) return;
  }
  const float non_finite[] = {NAN, INFINITY, -INFINITY};
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-149, 127);
  int certified = 0;
  for (int trial = 0; trial < 200000; ++trial) {
    float c[6];
    const int scale = exponent(rng);  // one scale a triple, so that its products reach both ends
    for (float& v : c) v = std::ldexp(unit(rng), trial % 4 == 0 ? exponent(rng) : scale);
    if (trial % 7 == 0) c[rng() % 6] = non_finite[rng() % std::size(non_finite)];
    const Point2<float> a{c[0], c[1]}, b{c[2], c[3]}, p{c[4], c[5]};
    if (trial % 7 == 0) {
      ASSERT_FALSE(core::certainly_right_in_float(a, b, p))
          << std::hexfloat << c[0] << " " << c[1] << " " << c[2] << " " << c[3] << " " << c[4] << " " << c[5];
      continue;
    }
    check(a, b, p);
    if (HasFatalFailure()) return;
    certified += core::certainly_right_in_float(a, b, p) ? 1 : 0;
  }
  // About a fifth of the finite triples (36,510 in one run) turn right at a scale it can certify.
  EXPECT_GT(certified, 20000);
  EXPECT_TRUE(core::certainly_right_in_float({0, 0}, {1, 0}, {0.5f, -1}));
  EXPECT_FALSE(core::certainly_right_in_float({0, 0}, {1, 0}, {0.5f, 1}));
  EXPECT_FALSE(core::certainly_right_in_float({0, 0}, {1, 1}, {0.5f, 0.5f}));
}

}  // namespace
}  // namespace wagener
