// The CUDA backend when the device runs out of memory: the call returns the exact hull (the
// streaming path) or throws cuda_error / std::bad_alloc with a message naming the memory; never a
// crash or a wrong hull, and the device works again once memory is free. The command line then
// writes the whole hull or no file at all. Device memory is filled first with cudaMalloc of nearly
// all that is free. Skipped (and reported as skipped) without a device.
#include <cuda_runtime.h>
#include <dirent.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "cli.hpp"
#include "cpu/monotone_chain.hpp"
#include "cuda_fixture.hpp"
#include "generators.hpp"
#include "wagener/error.hpp"
#include "wagener/hull.hpp"
#include "wagener/io.hpp"
#include "wagener/output.hpp"

namespace wagener {
namespace {

/// Holds all but about `leave` bytes of the device's free memory until destroyed.
class DeviceMemoryHog {
 public:
  explicit DeviceMemoryHog(std::size_t leave) {
    std::size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) != cudaSuccess) throw std::runtime_error("cudaMemGetInfo failed");
    std::size_t want = free > leave ? free - leave : 0;
    // The driver keeps some memory for itself: ask for less until an allocation succeeds, then take
    // what is left in smaller pieces.
    for (std::size_t piece = want; piece >= (std::size_t{1} << 20);) {
      void* p = nullptr;
      if (cudaMalloc(&p, piece) == cudaSuccess) {
        blocks_.push_back(p);
        held_ += piece;
        if (held_ >= want) break;
        piece = std::min(piece, want - held_);
      } else {
        (void)cudaGetLastError();  // an allocation failure is not sticky; clear it
        piece /= 2;
      }
    }
  }
  DeviceMemoryHog(const DeviceMemoryHog&) = delete;
  DeviceMemoryHog& operator=(const DeviceMemoryHog&) = delete;
  ~DeviceMemoryHog() {
    for (void* p : blocks_) cudaFree(p);
  }
  std::size_t held() const { return held_; }

 private:
  std::vector<void*> blocks_;
  std::size_t held_ = 0;
};

std::size_t free_device_memory() {
  std::size_t free = 0, total = 0;
  EXPECT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
  return free;
}

/// A correct hull, or a clear out-of-memory error; the outcome is printed for the record.
template <class T>
std::vector<Point2<T>> reference(const std::vector<Point2<T>>& points, HullPart part) {
  return part == HullPart::full ? cpu::convex_hull_serial<T>(points)
                                : cpu::upper_chain<T>(testing::sorted_copy(points));
}

template <class T>
void expect_exact_or_clear_error(const std::vector<Point2<T>>& points, HullPart part,
                                 const std::vector<Point2<T>>& expected, const std::string& what) {
  HullOptions options{Backend::cuda, nullptr};
  options.part = part;
  try {
    const auto got = compute_hull<T>(points, options).vertices;
    EXPECT_EQ(got, expected) << what;
    std::printf("%s: exact hull (%zu vertices)\n", what.c_str(), got.size());
  } catch (const cuda_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("memory"), std::string::npos) << what << ": unclear message: " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << what << ": more than one line: " << message;
    std::printf("%s: cuda_error: %s\n", what.c_str(), message.c_str());
  } catch (const std::bad_alloc& e) {
    std::printf("%s: std::bad_alloc: %s\n", what.c_str(), e.what());
  }
}

class CudaFaults : public testing::CudaFixture {};

TEST_F(CudaFaults, InputLargerThanFreeDeviceMemoryGivesTheHullOrAClearError) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  // 2^25 double points: 512 MB, more than the 0-64 MB left free below.
  const auto disk = testing::uniform_disk<double>(std::size_t{1} << 25, rng_);
  const auto circle = testing::circle<double>(std::size_t{1} << 22, rng_);
  // Warm: the device's context and any buffers the backend keeps exist before memory is filled.
  const auto disk_full = reference(disk, HullPart::full), disk_upper = reference(disk, HullPart::upper);
  const auto circle_full = reference(circle, HullPart::full);
  expect_exact_or_clear_error(circle, HullPart::full, circle_full, "warm-up");
  for (const std::size_t leave : {std::size_t{0}, std::size_t{16} << 20, std::size_t{64} << 20}) {
    const DeviceMemoryHog hog(leave);
    const std::string left = std::to_string(free_device_memory() >> 20) + " MB free";
    expect_exact_or_clear_error(disk, HullPart::full, disk_full, "disk 2^25, full, " + left);
    expect_exact_or_clear_error(disk, HullPart::upper, disk_upper, "disk 2^25, upper, " + left);
    expect_exact_or_clear_error(circle, HullPart::full, circle_full,
                                "circle 2^22 (most points vertices), " + left);
  }
  // Memory free again: the device works, no error left behind.
  HullOptions options{Backend::cuda, nullptr};
  EXPECT_EQ(compute_hull<double>(circle, options).vertices, circle_full);
}

std::vector<std::string> folder_entries(const std::string& folder) {
  std::vector<std::string> names;
  if (DIR* dir = ::opendir(folder.c_str())) {
    while (const dirent* entry = ::readdir(dir))
      if (std::string(entry->d_name) != "." && std::string(entry->d_name) != "..")
        names.push_back(entry->d_name);
    ::closedir(dir);
  }
  return names;
}

TEST_F(CudaFaults, CommandLineWritesTheWholeHullOrNoFileWhenTheDeviceFails) {
  SCOPED_TRACE("seed " + std::to_string(seed_));
  char folder_template[] = "/tmp/wagener-cuda-faults.XXXXXX";
  ASSERT_NE(::mkdtemp(folder_template), nullptr);
  const std::string folder = folder_template;
  const auto points = testing::uniform_disk<double>(std::size_t{1} << 24, rng_);
  write_file_atomically(folder + "/in.f64", std::string(reinterpret_cast<const char*>(points.data()),
                                                        points.size() * sizeof(points[0])));
  const std::string expected = format_hull<double>(cpu::convex_hull_serial<double>(points), {});
  for (const std::size_t leave : {std::size_t{0}, std::size_t{64} << 20}) {
    const std::string out = folder + "/hull.txt";
    std::remove(out.c_str());
    int code = 0;
    {
      const DeviceMemoryHog hog(leave);
      std::vector<std::string> args{"wagener", "hull", folder + "/in.f64", "--backend", "cuda", "-o", out};
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      code = cli::run(static_cast<int>(argv.size()), argv.data());
    }
    std::printf("command line with %zu MB left: exit %d\n", leave >> 20, code);
    EXPECT_TRUE(code == 0 || code == 1) << "exit " << code;
    std::ifstream in(out, std::ios::binary);
    if (code == 0) {
      ASSERT_TRUE(in.good()) << "exit 0 without the output file";
      EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), expected);
    } else {
      EXPECT_FALSE(in.good()) << "a failed run left an output file";
    }
    for (const auto& name : folder_entries(folder))
      EXPECT_TRUE(name == "in.f64" || name == "hull.txt") << "left behind: " << name;
  }
  std::remove((folder + "/hull.txt").c_str());
  std::remove((folder + "/in.f64").c_str());
  ::rmdir(folder.c_str());
}

}  // namespace
}  // namespace wagener
