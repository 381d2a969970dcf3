// The places the full hull's polygon sample reads on the GPU (core/strided_sample.hpp): every place
// inside the input, each once and in order; runs of neighbours, aligned, each inside its window;
// every point with a stride of 1; and, in sorted input with runs of equal x as long as the stride,
// places spread over each run's height, not its lowest point every time (which cost a float disk's
// polygon its upper side).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/strided_sample.hpp"
#include "generators.hpp"

namespace wagener {
namespace {

using core::kPolygonSampleRun;
using core::kPolygonSampleSize;
using core::sample_place;

struct Sample {
  index_t n, stride, samples;
};

// The device polygon's sample of n points, as cuda/convex_hull.cu takes it.
Sample sample_of(index_t n) {
  const core::StridedSample s = core::strided_sample(n, kPolygonSampleSize);
  return {n, s.stride, s.samples};
}

void expect_places_inside_in_order_in_runs(const Sample& s) {
  SCOPED_TRACE("n " + std::to_string(s.n) + ", stride " + std::to_string(s.stride));
  const index_t window = kPolygonSampleRun * s.stride;
  index_t before = -1;
  for (index_t j = 0; j < s.samples; ++j) {
    const index_t at = sample_place(j, s.stride, s.samples);
    ASSERT_GT(at, before) << "sample " << j << " is not after the one before";
    ASSERT_LT(at, s.n) << "sample " << j << " lies past the input";
    const index_t run = j / kPolygonSampleRun;
    if ((run + 1) * kPolygonSampleRun < s.samples) {
      ASSERT_GE(at, run * window) << "sample " << j << " lies before its window";
      ASSERT_LT(at, (run + 1) * window) << "sample " << j << " lies past its window";
      ASSERT_EQ(at % kPolygonSampleRun, j % kPolygonSampleRun) << "sample " << j << "'s run is not aligned";
      if (j % kPolygonSampleRun != 0) {
        ASSERT_EQ(at, before + 1) << "sample " << j << " is not its run's next";
      }
    } else {
      ASSERT_EQ(at, j * s.stride) << "the last run's sample " << j;
    }
    before = at;
  }
}

TEST(StridedSample, PlacesLieInsideTheInputInOrderInAlignedRuns) {
  // Either side of each stride's start (2^18 and 2^19 points), odd sizes, sizes whose samples fill
  // their last run exactly while its last window runs past the input (2^19 + 15: 2^18 + 8 samples
  // of a stride of 2), the smallest the full hull filters (2^14), sizes far beyond a device's
  // memory (the arithmetic's range), and random sizes.
  constexpr index_t k14 = index_t{1} << 14, k18 = index_t{1} << 18, k19 = index_t{1} << 19;
  std::vector<index_t> sizes = {k14,
                                k14 + 1,
                                k18 - 1,
                                k18,
                                k18 + 1,
                                k19 - 1,
                                k19 + 7,
                                k19 + 15,
                                3 * k18 + 5,
                                3 * (k18 + 16) - 1,
                                (index_t{1} << 24) + 3,
                                (index_t{1} << 28) - 1,
                                (index_t{1} << 40) + 12345};
  const std::uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<index_t> size(index_t{1} << 14, index_t{1} << 30);
  for (int i = 0; i < 6; ++i) sizes.push_back(size(rng));
  for (const index_t n : sizes) expect_places_inside_in_order_in_runs(sample_of(n));
}

TEST(StridedSample, AStrideOfOneTakesEveryPoint) {
  for (const index_t n : {index_t{1}, index_t{7}, index_t{8}, index_t{9}, index_t{100}, index_t{12345},
                          kPolygonSampleSize - 1, kPolygonSampleSize}) {
    for (index_t j = 0; j < n; ++j) ASSERT_EQ(sample_place(j, 1, n), j) << "n " << n;
  }
}

TEST(StridedSample, SortedRunsOfEqualXAreSampledOverTheirHeight) {
  // Sorted input whose runs of equal x are each a stride long, sorted by y: a sample's place within
  // its run is its height. Every stride-th point would be each run's lowest.
  for (const index_t stride : {index_t{16}, index_t{64}, index_t{1000}}) {
    SCOPED_TRACE("stride " + std::to_string(stride));
    const Sample s = sample_of(kPolygonSampleSize * stride);
    std::set<index_t> heights;
    index_t upper_half = 0, lowest = 0;
    for (index_t j = 0; j < s.samples; ++j) {
      const index_t height = sample_place(j, s.stride, s.samples) % stride;
      heights.insert(height);
      upper_half += height >= stride / 2;
      lowest += height == 0;
    }
    EXPECT_EQ(static_cast<index_t>(heights.size()), stride) << "some heights are never sampled";
    const double upper = static_cast<double>(upper_half) / static_cast<double>(s.samples);
    EXPECT_GT(upper, 0.4) << "the runs' upper halves are sampled too little";
    EXPECT_LT(upper, 0.6) << "the runs' lower halves are sampled too little";
    EXPECT_LT(static_cast<double>(lowest) / static_cast<double>(s.samples), 2.0 / static_cast<double>(stride))
        << "the runs' lowest points are sampled too often";
  }
}

}  // namespace
}  // namespace wagener
