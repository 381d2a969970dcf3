// Data already spread over the devices (cuda::convex_hull_of_parts) against the CPU's hull of all of
// it: parts of random sizes, empty ones too, on every device in turn (one device holds several parts
// where the machine has one). Skipped, and reported as skipped, without a device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu/monotone_chain.hpp"
#include "cuda_fixture.hpp"
#include "generators.hpp"
#include "integer_reference.hpp"
#include "wagener/cuda.hpp"
#include "wagener/error.hpp"

namespace wagener {
namespace {

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return 0;
  return count;
}

/// Points copied into the memory of one device, freed with it.
template <class T>
class OnDevice {
 public:
  OnDevice(int device, std::span<const Point2<T>> points) : device_(device), count_(points.size()) {
    EXPECT_EQ(cudaSetDevice(device), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&data_, std::max<std::size_t>(1, count_) * sizeof(Point2<T>)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data_, points.data(), count_ * sizeof(Point2<T>), cudaMemcpyHostToDevice), cudaSuccess);
  }
  OnDevice(const OnDevice&) = delete;
  OnDevice& operator=(const OnDevice&) = delete;
  ~OnDevice() {
    cudaSetDevice(device_);
    cudaFree(data_);
  }
  cuda::DevicePoints<T> part() const { return {data_, static_cast<index_t>(count_)}; }

 private:
  int device_;
  std::size_t count_;
  Point2<T>* data_ = nullptr;
};

class DeviceParts : public testing::CudaFixture {};

/// convex_hull_of_parts of `points` cut at random places into k parts (parts may be empty), part i
/// on device i mod the count.
template <class T>
std::vector<Point2<T>> hull_of_random_parts(const std::vector<Point2<T>>& points, std::size_t k,
                                            std::mt19937_64& rng, HullStats* stats = nullptr) {
  const int devices = device_count();
  const std::size_t n = points.size();
  std::vector<std::size_t> cuts = {0, n};
  for (std::size_t c = 1; c < k; ++c) cuts.push_back(std::uniform_int_distribution<std::size_t>(0, n)(rng));
  std::sort(cuts.begin(), cuts.end());
  std::vector<std::unique_ptr<OnDevice<T>>> held;
  std::vector<cuda::DevicePoints<T>> parts;
  for (std::size_t i = 0; i < k; ++i) {
    const std::span<const Point2<T>> slice(points.data() + cuts[i], cuts[i + 1] - cuts[i]);
    held.push_back(std::make_unique<OnDevice<T>>(static_cast<int>(i) % devices, slice));
    parts.push_back(held.back()->part());
  }
  return cuda::convex_hull_of_parts<T>(parts, stats);
}

template <class T>
void every_family(std::mt19937_64& rng) {
  for (const auto& family : testing::all_families<T>()) {
    for (const std::size_t n :
         {std::size_t{1}, std::size_t{7}, std::size_t{1000}, (std::size_t{1} << 20) + 3}) {
      const auto points = family.make(n, rng);
      for (const std::size_t k : {std::size_t{1}, std::size_t{2}, std::size_t{3}}) {
        HullStats stats;
        EXPECT_EQ(hull_of_random_parts<T>(points, k, rng, &stats), cpu::convex_hull_serial<T>(points))
            << family.name << " n=" << n << " in " << k << " parts";
        EXPECT_EQ(stats.points, static_cast<std::int64_t>(n));
      }
    }
  }
}

TEST_F(DeviceParts, EqualTheCpuOnEveryFamily) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  every_family<double>(rng_);
  every_family<float>(rng_);
}

// Integer parts: each part's hull in its own type on its device, merged exactly (int64 beyond 2^53).
template <class T>
void every_integer_family(std::mt19937_64& rng) {
  for (const auto& family : testing::integer_families<T>()) {
    for (const std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{1000}, std::size_t{200003}}) {
      const auto points = family.make(n, rng);
      const auto expected = testing::reference_hull(points);
      for (const std::size_t k : {std::size_t{1}, std::size_t{3}}) {
        EXPECT_EQ(hull_of_random_parts<T>(points, k, rng), expected)
            << family.name << " n=" << n << " in " << k << " parts";
      }
    }
  }
}

TEST_F(DeviceParts, IntegerPartsGiveTheExactHull) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  every_integer_family<std::int32_t>(rng_);
  every_integer_family<std::int64_t>(rng_);
}

TEST_F(DeviceParts, NoPartsAndEmptyPartsGiveTheEmptyHull) {
  EXPECT_TRUE(cuda::convex_hull_of_parts<double>({}).empty());
  const std::vector<cuda::DevicePoints<double>> empty(3);
  EXPECT_TRUE(cuda::convex_hull_of_parts<double>(empty).empty());
}

TEST_F(DeviceParts, HostMemoryIsRefused) {
  const std::vector<Point2<double>> points = {{0, 0}, {1, 0}, {0, 1}};
  const std::vector<cuda::DevicePoints<double>> parts = {{points.data(), 3}};
  EXPECT_THROW(cuda::convex_hull_of_parts<double>(parts), std::invalid_argument);
}

TEST_F(DeviceParts, ANonFinitePointNamesItsPart) {
  auto first = testing::uniform_disk<double>(1000, rng_);
  auto second = testing::uniform_disk<double>(1000, rng_);
  second[321].x = std::numeric_limits<double>::infinity();
  const OnDevice<double> a(0, first), b(device_count() - 1, second);
  const std::vector<cuda::DevicePoints<double>> parts = {a.part(), b.part()};
  try {
    cuda::convex_hull_of_parts<double>(parts);
    FAIL() << "an infinite point was hulled";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("part 1: ", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace wagener
