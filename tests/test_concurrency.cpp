// The library called from many threads at once: every call's result equals the serial call's. And
// run_slices, whose worker threads outlive a call: calls from many threads, from inside a slice, and
// from a child process after fork() all run every slice once.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/parallel_slices.hpp"
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

/// Runs run_slices over [0, n) in `slices` slices and returns how often each item was visited
/// (each slice also checks it got its own range).
std::vector<int> visits(std::size_t n, std::size_t slices) {
  std::vector<std::atomic<int>> count(n);
  detail::run_slices(n, slices, [&](std::size_t s, std::size_t begin, std::size_t end) {
    if (begin != detail::slice_begin(n, slices, s) || end != detail::slice_begin(n, slices, s + 1))
      throw std::logic_error("slice " + std::to_string(s) + " got another slice's range");
    for (std::size_t i = begin; i < end; ++i) count[i].fetch_add(1);
  });
  std::vector<int> result;
  for (const auto& c : count) result.push_back(c.load());
  return result;
}

TEST(RunSlices, EverySliceRunsOnceFromManyThreadsNestedAndAgain) {
  const std::vector<int> once(1000, 1);
  for (int round = 0; round < 50; ++round) {
    ASSERT_EQ(visits(1000, 2 + static_cast<std::size_t>(round) % 5), once) << round;
  }
  // Calls from inside a slice find the workers busy and start threads of their own.
  std::atomic<int> nested_ok{0};
  detail::run_slices(4, 4,
                     [&](std::size_t, std::size_t, std::size_t) { nested_ok += visits(1000, 3) == once; });
  EXPECT_EQ(nested_ok.load(), 4);
  // Eight threads at once: one gets the workers, the others start threads.
  std::vector<int> ok(8, 0);
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        for (int round = 0; round < 20; ++round)
          ok[t] += visits(1000, 2 + static_cast<std::size_t>(t) % 3) == once;
      });
    }
  }
  EXPECT_EQ(ok, std::vector<int>(8, 20));
}

TEST(RunSlices, ExceptionsComeBackAndTheWorkersStayUsable) {
  for (int round = 0; round < 10; ++round) {
    EXPECT_THROW(detail::run_slices(100, 3,
                                    [](std::size_t s, std::size_t, std::size_t) {
                                      if (s == 2) throw std::runtime_error("slice 2");
                                    }),
                 std::runtime_error);
    EXPECT_EQ(visits(100, 3), std::vector<int>(100, 1));
  }
}

#if defined(__SANITIZE_THREAD__)
constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
constexpr bool kThreadSanitizer = __has_feature(thread_sanitizer);
#else
constexpr bool kThreadSanitizer = false;
#endif

TEST(RunSlices, AChildProcessAfterForkRunsEverySlice) {
  // ThreadSanitizer ends a child of a threaded process that starts threads.
  if (kThreadSanitizer) GTEST_SKIP() << "ThreadSanitizer does not support threads after fork()";
  ASSERT_EQ(visits(1000, 3), std::vector<int>(1000, 1));  // the parent's workers exist now
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(30);  // a child stuck waiting for the parent's workers dies instead of hanging the test
    const bool ok =
        visits(1000, 3) == std::vector<int>(1000, 1) && visits(1000, 2) == std::vector<int>(1000, 1);
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "child ended by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(visits(1000, 3), std::vector<int>(1000, 1));
}

}  // namespace
}  // namespace wagener
