// The CUDA backend called from many threads at once: every call's result equals the serial call's.
// Label cuda: skipped (never passed) without a device.
#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <vector>

#include "cpu/monotone_chain.hpp"
#include "generators.hpp"
#include "wagener/hull.hpp"

namespace wagener {
namespace {

template <class T>
void eight_threads_on_the_device(Backend other) {
  constexpr int kThreads = 8;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  // Sizes on both sides of the device's streaming filter (2^20 points), every family.
  const auto families = testing::all_families<T>();
  std::vector<std::vector<Point2<T>>> inputs;
  for (int t = 0; t < kThreads; ++t) {
    const std::size_t n = t % 2 == 0 ? 3001 : (std::size_t{1} << 20) + 17;
    inputs.push_back(families[static_cast<std::size_t>(t) % families.size()].make(n, rng));
  }
  std::vector<std::vector<Point2<T>>> full(kThreads), upper(kThreads);
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        // Three of four threads on the device; the fourth on `other`, beside them.
        HullOptions options{t % 4 == 3 ? other : Backend::cuda, nullptr};
        full[t] = compute_hull<T>(inputs[t], options).vertices;
        options.part = HullPart::upper;
        upper[t] = compute_hull<T>(inputs[t], options).vertices;
      });
    }
  }
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(full[t], cpu::convex_hull_serial<T>(inputs[t])) << "thread " << t;
    EXPECT_EQ(upper[t], cpu::upper_chain<T>(testing::sorted_copy(inputs[t]))) << "thread " << t;
  }
}

TEST(ConcurrencyCuda, EightThreadsOfDoubleHullsMatchTheSerialResults) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  eight_threads_on_the_device<double>(Backend::cpu);
}

TEST(ConcurrencyCuda, EightThreadsOfFloatHullsMatchTheSerialResults) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  eight_threads_on_the_device<float>(Backend::automatic);
}

}  // namespace
}  // namespace wagener
