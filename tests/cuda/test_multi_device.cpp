// Several GPUs in one process (HullOptions::devices) against the CPU's hull: on one device always,
// on two when the machine has them. Skipped (and reported as skipped) without a device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_fixture.hpp"
#include "generators.hpp"
#include "wagener/error.hpp"
#include "wagener/hull.hpp"
#include "wagener/stream.hpp"

namespace wagener {
namespace {

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return 0;
  return count;
}

class MultiDevice : public testing::CudaFixture {};

template <class T>
void every_family_on(const std::vector<int>& devices, std::mt19937_64& rng) {
  for (const auto& family : testing::all_families<T>()) {
    // Fewer points than devices (devices left idle), a slice boundary inside a run of equal x, and
    // sizes where each slice takes the GPU's chunked path.
    for (const std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{1000},
                                std::size_t{100003}, (std::size_t{1} << 21) + 5}) {
      const auto points = family.make(n, rng);
      HullOptions options{Backend::cuda, nullptr};
      options.devices = devices;
      for (const HullPart part : {HullPart::full, HullPart::upper}) {
        options.part = part;
        HullOptions cpu_options{Backend::cpu, nullptr};
        cpu_options.part = part;
        ASSERT_EQ(compute_hull<T>(points, options).vertices, compute_hull<T>(points, cpu_options).vertices)
            << family.name << " n=" << n << (part == HullPart::upper ? " upper" : " full");
      }
    }
  }
}

TEST_F(MultiDevice, OneDeviceEqualsTheCpuOnEveryFamily) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  every_family_on<double>({0}, rng_);
  every_family_on<float>({0}, rng_);
}

TEST_F(MultiDevice, TwoDevicesEqualTheCpuOnEveryFamily) {
  if (device_count() < 2) GTEST_SKIP() << "fewer than 2 CUDA devices";
  SCOPED_TRACE("seed " + std::to_string(seed_));
  every_family_on<double>({0, 1}, rng_);
  every_family_on<double>({1, 0}, rng_);
  every_family_on<float>({all_devices}, rng_);
}

TEST_F(MultiDevice, TheSameThreadMovesBetweenDevices) {
  // The backend's per-thread state is per device: alternate devices on this thread.
  if (device_count() < 2) GTEST_SKIP() << "fewer than 2 CUDA devices";
  SCOPED_TRACE("seed " + std::to_string(seed_));
  const auto points = testing::uniform_disk<double>(std::size_t{1} << 20, rng_);
  const auto expected = convex_hull<double>(points, {Backend::cpu, nullptr});
  for (int round = 0; round < 4; ++round) {
    ASSERT_EQ(cudaSetDevice(round % 2), cudaSuccess);
    EXPECT_EQ(convex_hull<double>(points, {Backend::cuda, nullptr}), expected) << "round " << round;
  }
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
}

TEST_F(MultiDevice, AMissingDeviceIsNamed) {
  const int missing = device_count();
  const std::vector<Point2<double>> points = {{0, 0}, {1, 0}, {0, 1}};
  HullOptions options{Backend::cuda, nullptr};
  options.devices = {0, missing};
  try {
    compute_hull<double>(points, options);
    FAIL() << "device " << missing << " does not exist";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("device " + std::to_string(missing) + " does not exist"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(MultiDevice, ANonFinitePointIsAnInputError) {
  // In the last slice, so that its index in the slice differs from its index in the input.
  auto points = testing::uniform_disk<double>(1000, rng_);
  points[977].y = std::numeric_limits<double>::quiet_NaN();
  HullOptions options{Backend::cuda, nullptr};
  options.devices = {all_devices};
  try {
    compute_hull<double>(points, options);
    FAIL() << "a NaN was hulled";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), "point 977 is not finite");
  }
}

TEST_F(MultiDevice, StatsReportTheCudaBackend) {
  const auto points = testing::uniform_disk<double>(std::size_t{1} << 20, rng_);
  HullStats stats;
  HullOptions options{Backend::cuda, &stats};
  options.devices = {all_devices};
  const auto hull = compute_hull<double>(points, options).vertices;
  EXPECT_EQ(stats.backend, Backend::cuda);
  EXPECT_EQ(stats.hull_vertices, static_cast<std::int64_t>(hull.size()));
  EXPECT_GT(stats.survivors, 0);
}

TEST_F(MultiDevice, StreamedChunksOnTheDevicesEqualTheCpu) {
  // --memory-limit with --backend cuda: each chunk's survivors are hulled on the device(s).
  SCOPED_TRACE("seed " + std::to_string(seed_));
  const auto points = testing::gaussian<double>(std::size_t{3} << 20, rng_);
  const auto expected = convex_hull<double>(points, {Backend::cpu, nullptr});
  for (const std::vector<int>& devices : {std::vector<int>{}, std::vector<int>{all_devices}}) {
    HullOptions options{Backend::cuda, nullptr};
    options.devices = devices;
    options.memory_limit = std::size_t{16} << 20;
    std::size_t at = 0;
    const ChunkSource<double> source = [&](std::vector<Point2<double>>& chunk, std::size_t most) {
      if (at == points.size()) return false;
      const std::size_t take = std::min(most, points.size() - at);
      chunk.assign(points.begin() + static_cast<std::ptrdiff_t>(at),
                   points.begin() + static_cast<std::ptrdiff_t>(at + take));
      at += take;
      return true;
    };
    EXPECT_EQ(hull_of_chunks<double>(source, options).vertices, expected) << devices.size() << " devices";
  }
}

}  // namespace
}  // namespace wagener
