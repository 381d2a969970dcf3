// Two GPUs against one on data already in device memory (cuda::convex_hull_of_parts): the whole
// disk on device 0, then its halves on devices 0 and 1; and from host memory, HullOptions::devices
// {0} against every device (the staged copies). Median of --runs calls after a warm-up, every hull
// checked against the first. The floor beside it: a device-to-device copy of the array on device 0
// (bytes read plus written), halved for the bytes a hull must read.
//
//   bench_devices [--log2 K] [--float] [--runs R]        (default: 2^28 double points, 5 runs)
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "wagener/cuda.hpp"
#include "wagener/generate.hpp"
#include "wagener/hull.hpp"

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "bench_devices: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

template <class F>
double median_ms(int runs, F&& f) {
  f();  // warm-up: workspaces, staging
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class T>
int run(int log2, int runs) {
  using wagener::Point2;
  const std::size_t n = std::size_t{1} << log2;
  std::vector<Point2<T>> points(n);
  wagener::GenerateOptions options;
  options.count = n;
  wagener::generate_points<T>(points, 0, options);
  int devices = 0;
  check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  std::printf("%zu %s disk points, %d device(s)\n", n, sizeof(T) == 4 ? "float" : "double", devices);

  const std::size_t half = n / 2;
  std::vector<Point2<T>*> on(std::min(devices, 2), nullptr);
  Point2<T>* whole = nullptr;
  check(cudaSetDevice(0), "cudaSetDevice");
  check(cudaMalloc(&whole, n * sizeof(Point2<T>)), "cudaMalloc");
  check(cudaMemcpy(whole, points.data(), n * sizeof(Point2<T>), cudaMemcpyHostToDevice), "copy");
  // The floor: the second half copied onto the first within device 0 (events, median).
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "event");
  check(cudaEventCreate(&b), "event");
  std::vector<float> d2d;
  for (int r = 0; r <= runs; ++r) {
    cudaEventRecord(a);
    cudaMemcpy(whole, whole + half, half * sizeof(Point2<T>), cudaMemcpyDeviceToDevice);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    if (r > 0) d2d.push_back(ms);
  }
  std::sort(d2d.begin(), d2d.end());
  const double gbs = 2.0 * half * sizeof(Point2<T>) / 1e6 / d2d[d2d.size() / 2];
  const double floor_ms = n * sizeof(Point2<T>) / 1e6 / gbs;
  check(cudaMemcpy(whole, points.data(), n * sizeof(Point2<T>), cudaMemcpyHostToDevice), "copy");

  std::vector<Point2<T>> expected;
  const std::vector<wagener::cuda::DevicePoints<T>> one = {{whole, static_cast<wagener::index_t>(n)}};
  const double one_ms = median_ms(runs, [&] { expected = wagener::cuda::convex_hull_of_parts<T>(one); });
  std::printf("| device data, 1 GPU | %.2f ms | floor (one read at %.0f GB/s) %.2f ms | %.2fx floor |\n", one_ms, gbs,
              floor_ms, one_ms / floor_ms);
  bool same = true;
  if (devices >= 2) {
    check(cudaSetDevice(1), "cudaSetDevice");
    check(cudaMalloc(&on[1], (n - half) * sizeof(Point2<T>)), "cudaMalloc");
    check(cudaMemcpy(on[1], points.data() + half, (n - half) * sizeof(Point2<T>), cudaMemcpyHostToDevice), "copy");
    const std::vector<wagener::cuda::DevicePoints<T>> two = {{whole, static_cast<wagener::index_t>(half)},
                                                             {on[1], static_cast<wagener::index_t>(n - half)}};
    std::vector<Point2<T>> hull;
    // Half the points on one device: what each device of two would take if nothing were shared.
    const std::vector<wagener::cuda::DevicePoints<T>> half_on_0 = {{whole, static_cast<wagener::index_t>(half)}};
    const double half_ms = median_ms(runs, [&] { hull = wagener::cuda::convex_hull_of_parts<T>(half_on_0); });
    wagener::HullStats stats;
    const double two_ms = median_ms(runs, [&] { hull = wagener::cuda::convex_hull_of_parts<T>(two, &stats); });
    same &= hull == expected;
    std::printf("| device data, half on 1 GPU | %.2f ms | %.2fx one GPU |\n", half_ms, half_ms / one_ms);
    std::printf("| device data, 2 GPUs | %.2f ms | %.2fx one GPU | slowest part %.2f ms (last call) |\n", two_ms,
                two_ms / one_ms, stats.device_milliseconds);
    check(cudaFree(on[1]), "cudaFree");
    check(cudaSetDevice(0), "cudaSetDevice");
  }
  check(cudaFree(whole), "cudaFree");
  // From host memory: the staged copy on one device, then on all.
  wagener::HullOptions host{wagener::Backend::cuda, nullptr};
  host.devices = {0};
  std::vector<Point2<T>> hull;
  const double host_one = median_ms(runs, [&] { hull = wagener::convex_hull<T>(points, host); });
  same &= hull == expected;
  std::printf("| host memory, 1 GPU | %.2f ms |\n", host_one);
  if (devices >= 2) {
    host.devices = {wagener::all_devices};
    const double host_all = median_ms(runs, [&] { hull = wagener::convex_hull<T>(points, host); });
    same &= hull == expected;
    std::printf("| host memory, %d GPUs | %.2f ms | %.2fx one GPU |\n", devices, host_all, host_all / host_one);
  }
  std::printf("hulls %s (%zu vertices)\n", same ? "identical" : "DIFFER", expected.size());
  return same ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  int log2 = 28, runs = 5;
  bool single = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--log2") && i + 1 < argc) {
      log2 = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (!std::strcmp(argv[i], "--float")) {
      single = true;
    } else {
      std::fprintf(stderr, "usage: bench_devices [--log2 K] [--float] [--runs R]\n");
      return 2;
    }
  }
  return single ? run<float>(log2, runs) : run<double>(log2, runs);
}
