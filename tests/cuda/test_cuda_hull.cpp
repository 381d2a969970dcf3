// The CUDA backend against the serial reference. Skipped (and reported as skipped) without a device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <random>

#include "cpu/monotone_chain.hpp"
#include "generators.hpp"
#include "wagener/cuda.hpp"
#include "wagener/error.hpp"
#include "wagener/hull.hpp"

namespace wagener {
namespace {

class CudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
    seed_ = testing::fresh_seed();
    rng_.seed(seed_);
  }
  std::uint64_t seed_ = 0;
  std::mt19937_64 rng_;
};

template <class T>
void expect_upper_equal(const testing::Points<T>& sorted, const std::string& what) {
  const auto got = upper_hull<T>(sorted, {Backend::cuda, nullptr});
  ASSERT_EQ(got, cpu::upper_chain<T>(sorted)) << what;
}

TEST_F(CudaTest, UpperHullEveryNFrom1To4096) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  for (std::size_t n = 1; n <= 4096; ++n) {
    expect_upper_equal(testing::sorted_copy(testing::uniform_disk<double>(n, rng_)),
                       "disk double n=" + std::to_string(n));
    expect_upper_equal(testing::sorted_copy(testing::parabola<float>(n, rng_)),
                       "parabola float n=" + std::to_string(n));
    if (HasFatalFailure()) return;
  }
}

template <class T>
void every_family(std::mt19937_64& rng, std::initializer_list<std::size_t> sizes) {
  for (const auto& family : testing::all_families<T>()) {
    for (std::size_t n : sizes) {
      expect_upper_equal(testing::sorted_copy(family.make(n, rng)), family.name + " n=" + std::to_string(n));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST_F(CudaTest, UpperHullEveryFamilyDouble) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  every_family<double>(rng_, {1, 2, 3, 1000, 1024, 1025, 4096, 65535, 65536, 100003, 1 << 20, (1 << 20) + 7});
}

TEST_F(CudaTest, UpperHullEveryFamilyFloat) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  every_family<float>(rng_, {1, 2, 3, 1000, 1024, 1025, 4096, 65535, 65536, 100003, 1 << 20, (1 << 20) + 7});
}

TEST_F(CudaTest, UpperHullLargePowersAndNonPowersOfTwo) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  for (std::size_t n : {std::size_t{1} << 24, (std::size_t{1} << 24) + 12345, std::size_t{1} << 26}) {
    expect_upper_equal(testing::sorted_copy(testing::uniform_disk<float>(n, rng_)),
                       "disk float n=" + std::to_string(n));
    expect_upper_equal(testing::sorted_copy(testing::parabola<double>(n, rng_)),
                       "parabola double n=" + std::to_string(n));
    if (HasFatalFailure()) return;
  }
}

template <class T>
void convex_hull_every_family(std::mt19937_64& rng, std::initializer_list<std::size_t> sizes) {
  for (const auto& family : testing::all_families<T>()) {
    for (std::size_t n : sizes) {
      const auto pts = family.make(n, rng);
      HullStats stats;
      ASSERT_EQ(convex_hull<T>(pts, {Backend::cuda, &stats}), cpu::convex_hull_serial<T>(pts))
          << family.name << " n=" << n;
      EXPECT_LE(stats.survivors, static_cast<std::int64_t>(n));
    }
  }
}

TEST_F(CudaTest, ConvexHullEveryFamilyMatchesCpuDouble) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  convex_hull_every_family<double>(rng_, {0, 1, 2, 5, 3000, 200001, (1 << 20) + 3});
}

TEST_F(CudaTest, ConvexHullEveryFamilyMatchesCpuFloat) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  convex_hull_every_family<float>(rng_, {0, 1, 2, 5, 3000, 200001, (1 << 20) + 3});
}

TEST_F(CudaTest, ConvexHullLargeInputs) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  for (std::size_t n : {std::size_t{1} << 24, (std::size_t{1} << 26) + 5}) {
    const auto disk = testing::uniform_disk<float>(n, rng_);
    HullStats stats;
    ASSERT_EQ(convex_hull<float>(disk, {Backend::cuda, &stats}), cpu::convex_hull_serial<float>(disk)) << n;
    EXPECT_LT(stats.survivors, static_cast<std::int64_t>(n) / 10);  // the 16-gon covers 97% of a disk
    const auto ring = testing::circle<double>(n / 4, rng_);
    ASSERT_EQ(convex_hull<double>(ring, {Backend::cuda, nullptr}), cpu::convex_hull_serial<double>(ring))
        << n;
  }
}

TEST_F(CudaTest, ConvexHullNonFiniteInputIsAnInputError) {
  auto pts = testing::uniform_disk<double>(100000, rng_);
  pts[54321].y = NAN;
  EXPECT_THROW(convex_hull<double>(pts, {Backend::cuda, nullptr}), input_error);
}

template <class T>
void convex_hull_every_family(std::mt19937_64& rng, std::initializer_list<std::size_t> sizes);

// Small enough for compute-sanitizer: one tile (merges inside a block), several tiles (merges across
// blocks), and every family.
TEST_F(CudaTest, SanitizerSizedInputs) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  every_family<double>(rng_, {100, 3000, 70000});
  every_family<float>(rng_, {777, 5000});
  convex_hull_every_family<double>(rng_, {50, 20000});
}

TEST_F(CudaTest, DeviceEntryPointTakesDevicePointers) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  auto pts = testing::sorted_copy(testing::gaussian<float>(300000, rng_));
  Point2<float>*d_in = nullptr, *d_out = nullptr;
  ASSERT_EQ(cudaMalloc(&d_in, pts.size() * sizeof(pts[0])), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_out, pts.size() * sizeof(pts[0])), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_in, pts.data(), pts.size() * sizeof(pts[0]), cudaMemcpyHostToDevice), cudaSuccess);
  const index_t h = cuda::upper_hull_device<float>(d_in, static_cast<index_t>(pts.size()), d_out);
  std::vector<Point2<float>> got(static_cast<std::size_t>(h));
  ASSERT_EQ(cudaMemcpy(got.data(), d_out, got.size() * sizeof(got[0]), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(got, cpu::upper_chain<float>(pts));
  // Unsorted device input is an input error, found inside the kernel.
  std::swap(pts[1000], pts[2000]);
  ASSERT_EQ(cudaMemcpy(d_in, pts.data(), pts.size() * sizeof(pts[0]), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_THROW(cuda::upper_hull_device<float>(d_in, static_cast<index_t>(pts.size()), d_out), input_error);
  // The full hull takes any order.
  const index_t hn = cuda::convex_hull_device<float>(d_in, static_cast<index_t>(pts.size()), d_out);
  std::vector<Point2<float>> full(static_cast<std::size_t>(hn));
  ASSERT_EQ(cudaMemcpy(full.data(), d_out, full.size() * sizeof(full[0]), cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_EQ(full, cpu::convex_hull_serial<float>(pts));
  cudaFree(d_in);
  cudaFree(d_out);
}

}  // namespace
}  // namespace wagener
