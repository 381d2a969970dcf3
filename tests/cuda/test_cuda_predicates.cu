// orient2d on the device against the same code on the host (which test_predicates checks against
// exact rationals): every stage -- filter, middle expansion stage, exact accumulator -- must give
// the same sign on both sides, on triples that reach each stage; the filter alone
// (orient2d_certified) must never give a sign other than the exact one.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "generators.hpp"
#include "integer_reference.hpp"
#include "wagener/hull.hpp"
#include "wagener/predicates.hpp"

namespace wagener {
namespace {

struct Triple {
  double ax, ay, bx, by, cx, cy;
};

struct Signs {
  int full, middle, exact, certified;
};

__global__ void orient_kernel(const Triple* t, Signs* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Triple q = t[i];
  out[i] = {orient2d(q.ax, q.ay, q.bx, q.by, q.cx, q.cy),
            detail::orient2d_expansion(q.ax, q.ay, q.bx, q.by, q.cx, q.cy),
            detail::orient2d_exact(q.ax, q.ay, q.bx, q.by, q.cx, q.cy),
            orient2d_certified(q.ax, q.ay, q.bx, q.by, q.cx, q.cy)};
}

/// Near-collinear triples at every scale, on ulp grids, with huge and tiny coordinates, and from
/// float inputs.
std::vector<Triple> adversarial_triples(std::mt19937_64& rng) {
  std::vector<Triple> out;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> nudge(-3, 3), exponent(-1074, 1023);
  for (double scale : {1e-300, 1e-160, 1e-3, 1.0, 1e3, 1e160, 1e300}) {
    for (int trial = 0; trial < 20000; ++trial) {
      const double ax = u(rng) * scale, ay = u(rng) * scale, bx = u(rng) * scale, by = u(rng) * scale;
      const double t = u(rng);
      double cx = ax + t * (bx - ax), cy = ay + t * (by - ay);
      for (int k = nudge(rng); k != 0; k += k > 0 ? -1 : 1)
        cy = std::nextafter(cy, k > 0 ? INFINITY : -INFINITY);
      out.push_back({ax, ay, bx, by, cx, cy});
    }
  }
  double x = 0.5;
  for (int i = 0; i < 128; ++i, x = std::nextafter(x, 1.0)) {
    double y = 0.5;
    for (int j = 0; j < 128; ++j, y = std::nextafter(y, 1.0)) {
      out.push_back({x, y, 12, 12, 24, 24});
      out.push_back({x, y, 0.75, 0.75, 1.0, 1.0});
    }
  }
  for (int trial = 0; trial < 20000; ++trial) {
    auto any = [&] { return std::ldexp(u(rng), exponent(rng)); };
    out.push_back({any(), any(), any(), any(), any(), any()});
  }
  // Triples of the near-collinear families, in both precisions: in double they reach the middle
  // stage, where fused multiply-adds once broke the expansion on the device only.
  const auto floats = testing::near_collinear_ulp<float>(60000, rng);
  for (std::size_t i = 0; i + 2 < floats.size(); i += 3) {
    out.push_back(
        {floats[i].x, floats[i].y, floats[i + 1].x, floats[i + 1].y, floats[i + 2].x, floats[i + 2].y});
  }
  const auto doubles = testing::near_collinear_ulp<double>(600, rng);
  for (std::size_t i = 0; i < doubles.size(); ++i) {
    for (std::size_t j = 0; j < doubles.size(); j += 3) {
      for (std::size_t k = 0; k < doubles.size(); k += 29) {
        out.push_back({doubles[i].x, doubles[i].y, doubles[j].x, doubles[j].y, doubles[k].x, doubles[k].y});
      }
    }
  }
  return out;
}

TEST(CudaPredicates, DeviceSignsEqualHostSignsAtEveryStage) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const auto triples = adversarial_triples(rng);
  const int n = static_cast<int>(triples.size());
  Triple* d_triples = nullptr;
  Signs* d_signs = nullptr;
  ASSERT_EQ(cudaMalloc(&d_triples, triples.size() * sizeof(Triple)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_signs, triples.size() * sizeof(Signs)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_triples, triples.data(), triples.size() * sizeof(Triple), cudaMemcpyHostToDevice),
            cudaSuccess);
  orient_kernel<<<(n + 255) / 256, 256>>>(d_triples, d_signs, n);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::vector<Signs> device(triples.size());
  ASSERT_EQ(cudaMemcpy(device.data(), d_signs, device.size() * sizeof(Signs), cudaMemcpyDeviceToHost),
            cudaSuccess);
  cudaFree(d_triples);
  cudaFree(d_signs);
  int middle_applied = 0;
  for (int i = 0; i < n; ++i) {
    const Triple& q = triples[static_cast<std::size_t>(i)];
    const Signs host{orient2d(q.ax, q.ay, q.bx, q.by, q.cx, q.cy),
                     detail::orient2d_expansion(q.ax, q.ay, q.bx, q.by, q.cx, q.cy),
                     detail::orient2d_exact(q.ax, q.ay, q.bx, q.by, q.cx, q.cy),
                     orient2d_certified(q.ax, q.ay, q.bx, q.by, q.cx, q.cy)};
    const Signs& dev = device[static_cast<std::size_t>(i)];
    // The filter alone (what the guide and interior filters ask) may certify on one side only
    // (the device may fuse its last subtraction), but a sign it gives must be the exact one.
    ASSERT_TRUE(dev.certified == 0 || dev.certified == host.exact)
        << std::hexfloat << "a=(" << q.ax << ", " << q.ay << ") b=(" << q.bx << ", " << q.by << ") c=("
        << q.cx << ", " << q.cy << "): device filter " << dev.certified << ", exact " << host.exact;
    ASSERT_TRUE(dev.full == host.full && dev.middle == host.middle && dev.exact == host.exact)
        << std::hexfloat << "a=(" << q.ax << ", " << q.ay << ") b=(" << q.bx << ", " << q.by << ") c=("
        << q.cx << ", " << q.cy << "): device " << dev.full << " " << dev.middle << " " << dev.exact
        << ", host " << host.full << " " << host.middle << " " << host.exact;
    middle_applied += host.middle != 2;
  }
  EXPECT_GT(middle_applied, n / 10);  // the middle stage was exercised, not skipped
}

struct IntegerTriple {
  Point2<std::int64_t> a, b, c;
};

__global__ void orient_int64_kernel(const IntegerTriple* t, int* full, int* certified, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  full[i] = orient2d(t[i].a, t[i].b, t[i].c);
  certified[i] = orient2d_certified(t[i].a, t[i].b, t[i].c);
}

// 64-bit integers on the device (__mul64hi, __umul64hi): the exact reference's sign on triples of the
// range's extremes and near-collinear ones at the 2^62 scale; the filter only ever the same sign.
TEST(CudaPredicates, Int64SignsOnTheDeviceAreExact) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::int64_t lo = std::numeric_limits<std::int64_t>::min(),
                     hi = std::numeric_limits<std::int64_t>::max();
  const std::int64_t special[] = {lo,     lo + 1, -(std::int64_t{1} << 53) - 1, -1,
                                  0,      1,      std::int64_t{1} << 53,        (std::int64_t{1} << 62) + 1,
                                  hi - 1, hi};
  std::uniform_int_distribution<std::size_t> pick(0, std::size(special) - 1);
  std::uniform_int_distribution<std::int64_t> big(-(std::int64_t{1} << 62), std::int64_t{1} << 62);
  std::uniform_int_distribution<int> nudge(-1, 1);
  std::vector<IntegerTriple> triples;
  for (int i = 0; i < 200000; ++i) {
    auto value = [&] { return special[pick(rng)]; };
    triples.push_back({{value(), value()}, {value(), value()}, {value(), value()}});
    const std::int64_t ax = big(rng), ay = big(rng), dx = big(rng) >> 31, dy = big(rng) >> 31,
                       k = big(rng) >> 33;
    triples.push_back({{ax, ay}, {ax + dx, ay + dy}, {ax + k * dx + nudge(rng), ay + k * dy + nudge(rng)}});
  }
  const int n = static_cast<int>(triples.size());
  IntegerTriple* d_triples = nullptr;
  int *d_full = nullptr, *d_certified = nullptr;
  ASSERT_EQ(cudaMalloc(&d_triples, triples.size() * sizeof(IntegerTriple)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_full, triples.size() * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_certified, triples.size() * sizeof(int)), cudaSuccess);
  ASSERT_EQ(
      cudaMemcpy(d_triples, triples.data(), triples.size() * sizeof(IntegerTriple), cudaMemcpyHostToDevice),
      cudaSuccess);
  orient_int64_kernel<<<(n + 255) / 256, 256>>>(d_triples, d_full, d_certified, n);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::vector<int> full(triples.size()), certified(triples.size());
  ASSERT_EQ(cudaMemcpy(full.data(), d_full, full.size() * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(certified.data(), d_certified, certified.size() * sizeof(int), cudaMemcpyDeviceToHost),
            cudaSuccess);
  cudaFree(d_triples), cudaFree(d_full), cudaFree(d_certified);
  for (std::size_t i = 0; i < triples.size(); ++i) {
    const auto& t = triples[i];
    const int expected = testing::reference_orientation(t.a, t.b, t.c);
    ASSERT_EQ(full[i], expected) << "triple " << i;
    if (certified[i] != 0) {
      ASSERT_EQ(certified[i], expected) << "triple " << i;
    }
  }
}

}  // namespace
}  // namespace wagener
