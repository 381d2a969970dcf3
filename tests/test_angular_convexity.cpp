// The dense guide's check on the host (core::angular_convex_count, the reference of the GPU's sort and
// count): on the guided GPU tests' inputs it must tell a float circle (guide) from a double circle (no
// guide) on either side of the GPU's threshold, 3/4 of the sample (kMaxCheckConvexShare in
// cuda/full_hull.cuh), and count no degenerate turn.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "core/angular_convexity.hpp"
#include "generators.hpp"

namespace wagener {
namespace {

constexpr double kGpuThreshold = 0.75;  // kMaxCheckConvexShare
constexpr std::size_t kSampleRun = 4;   // as the GPU's run sample
constexpr std::size_t kCheckSampleSize = std::size_t{1} << 16;

/// The GPU's check sample of pts: runs of 4 consecutive points, the first run of every period runs,
/// period = n / 2^16 (at least 1).
template <class T>
std::vector<Point2<T>> check_sample(const std::vector<Point2<T>>& pts) {
  const std::size_t period = std::max<std::size_t>(1, pts.size() / kCheckSampleSize);
  std::vector<Point2<T>> sample;
  for (std::size_t start = 0; start < pts.size(); start += period * kSampleRun) {
    for (std::size_t i = start; i < std::min(pts.size(), start + kSampleRun); ++i) sample.push_back(pts[i]);
  }
  return sample;
}

/// The share of the check sample in convex position around the middle of its bounding box (the GPU
/// takes the coarse polygon's centre, the middle of that polygon's bounding box).
template <class T>
double convex_share(const std::vector<Point2<T>>& pts) {
  const auto sample = check_sample(pts);
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (const auto& p : sample) {
    const double x = static_cast<double>(p.x), y = static_cast<double>(p.y);
    xmin = std::min(xmin, x), xmax = std::max(xmax, x);
    ymin = std::min(ymin, y), ymax = std::max(ymax, y);
  }
  const index_t convex = core::angular_convex_count<T>(std::span<const Point2<T>>(sample),
                                                       xmin / 2 + xmax / 2, ymin / 2 + ymax / 2);
  return static_cast<double>(convex) / static_cast<double>(sample.size());
}

TEST(AngularConvexity, KeysFollowTheAngle) {
  const double c = 0.5;
  std::uint32_t last = 0;
  for (int k = 1; k < 64; ++k) {  // counter-clockwise from +x, all the way round
    const double a = 2 * M_PI * k / 64;
    const std::uint32_t key = core::angle_key(c + std::cos(a), c + std::sin(a), c, c);
    EXPECT_GT(key, last) << k;
    last = key;
  }
  EXPECT_EQ(core::angle_key(c + 1, c, c, c), 0u);
  EXPECT_EQ(core::angle_key(NAN, 0, c, c), 0u);
  EXPECT_EQ(core::angle_key(0, INFINITY, c, c), 0u);
  const double big = std::numeric_limits<double>::max();
  EXPECT_EQ(core::angle_key(big, -big, -big, big), 0u);  // the differences overflow
}

// The guided GPU tests' circles (2^22 and 2^22 + 3 points): a float circle's sample is far below the
// threshold (about 57 % measured), a double circle's at 100 % but for ties in key.
TEST(AngularConvexity, TellsAFloatCircleFromADoubleCircle) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (std::size_t n : {std::size_t{1} << 22, (std::size_t{1} << 22) + 3}) {
    const double float_share = convex_share(testing::circle<float>(n, rng));
    EXPECT_GT(float_share, 0.5) << n;
    EXPECT_LT(float_share, 0.65) << n << ": too close to " << kGpuThreshold;
    const double double_share = convex_share(testing::circle<double>(n, rng));
    EXPECT_GT(double_share, 0.999) << n;
  }
}

// The degenerate guided inputs: copies in a row, collinear runs; none of their turns are strict.
TEST(AngularConvexity, CountsNoDegenerateTurn) {
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::size_t n = std::size_t{1} << 22;
  // Each point of a double circle 8 times in a row: every run of the sample is one point 4 times.
  std::vector<Point2<double>> copies;
  for (const auto& p : testing::circle<double>(n / 8, rng)) copies.insert(copies.end(), 8, p);
  EXPECT_EQ(convex_share(copies), 0.0);
  // Convex position with collinear runs of 1000 points, shuffled: only where a run ends.
  std::vector<Point2<double>> runs(n);
  double y = 0;
  for (std::size_t i = 0; i < n; ++i) {
    runs[i] = {static_cast<double>(i), y};
    y -= static_cast<double>(i / 1000);
  }
  std::shuffle(runs.begin(), runs.end(), rng);
  EXPECT_LT(convex_share(runs), 0.25);
  // Points on one line, and fewer than 3 points.
  std::vector<Point2<float>> line(1000);
  for (std::size_t i = 0; i < line.size(); ++i) line[i] = {static_cast<float>(i), static_cast<float>(3 * i)};
  EXPECT_EQ(core::angular_convex_count<float>(std::span<const Point2<float>>(line), 10.5, 1.0), 0);
  const std::vector<Point2<double>> two{{0, 0}, {1, 1}};
  EXPECT_EQ(core::angular_convex_count<double>(std::span<const Point2<double>>(two), 0.5, 0), 0);
}

// A non-finite sample point turns with nothing (the GPU's check also flags it, and builds no guide).
TEST(AngularConvexity, NonFinitePointsNeverTurn) {
  std::vector<Point2<double>> square{{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
  EXPECT_EQ(core::angular_convex_count<double>(std::span<const Point2<double>>(square), 0, 0), 4);
  square.push_back({NAN, 0.5});
  EXPECT_EQ(core::angular_convex_count<double>(std::span<const Point2<double>>(square), 0, 0), 2);
}

}  // namespace
}  // namespace wagener
