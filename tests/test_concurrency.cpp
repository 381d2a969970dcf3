// The library called from many threads at once: every call's result equals the serial call's.
#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <vector>

#include "cpu/monotone_chain.hpp"
#include "generators.hpp"
#include "wagener/hull.hpp"
#include "wagener/output.hpp"

namespace wagener {
namespace {

TEST(Concurrency, EightThreadsOfHullCallsMatchTheSerialResults) {
  constexpr int kThreads = 8;
  const auto seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  // Each thread gets its own input, family and call; large enough that the cpu backend uses its own
  // threads too, and the cuda backend (where a device exists) runs beside the others.
  std::vector<std::vector<Point2<double>>> inputs;
  std::vector<std::vector<Point2<double>>> expected;
  const auto families = testing::all_families<double>();
  for (int t = 0; t < kThreads; ++t) {
    inputs.push_back(families[static_cast<std::size_t>(t) % families.size()].make(200003, rng));
    expected.push_back(cpu::convex_hull_serial<double>(inputs.back()));
  }
  std::vector<std::vector<Point2<double>>> got(kThreads), upper(kThreads);
  std::vector<std::string> text(kThreads);
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        const Backend backend = t % 3 == 0 ? Backend::automatic : t % 3 == 1 ? Backend::cpu : Backend::pram;
        HullOptions options{backend, nullptr};
        options.indices = true;
        got[t] = compute_hull<double>(inputs[t], options).vertices;
        options.part = HullPart::upper;
        upper[t] = compute_hull<double>(inputs[t], options).vertices;
        text[t] = format_hull<double>(got[t], {});
      });
    }
  }
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(got[t], expected[t]) << "thread " << t;
    EXPECT_EQ(upper[t], cpu::upper_chain<double>(testing::sorted_copy(inputs[t]))) << "thread " << t;
    EXPECT_EQ(text[t], format_hull<double>(expected[t], {})) << "thread " << t;
  }
}

}  // namespace
}  // namespace wagener
