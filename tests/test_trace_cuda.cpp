// The trace is a function of the input alone: the CUDA backend must write the same rounds as the
// PRAM emulator. Labelled `cuda`; skipped (never passed) without a device, or while the CUDA
// backend does not report rounds.
#include <gtest/gtest.h>

#include <random>

#include "generators.hpp"
#include "wagener/error.hpp"
#include "wagener/hull.hpp"
#include "wagener/trace.hpp"

namespace wagener {
namespace {

TEST(TraceCuda, CudaRoundsAreThePramRounds) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  std::mt19937_64 rng(testing::fresh_seed());
  for (const auto& family : testing::all_families<double>()) {
    for (std::size_t n : {1, 2, 3, 17, 1000, 4099}) {
      SCOPED_TRACE(family.name + " n=" + std::to_string(n));
      const auto pts = family.make(n, rng);
      TraceLog<double> pram_log, cuda_log;
      convex_hull<double>(pts, {Backend::pram, nullptr, &pram_log});
      try {
        convex_hull<double>(pts, {Backend::cuda, nullptr, &cuda_log});
      } catch (const unsupported_error& e) {
        GTEST_SKIP() << "the cuda backend does not report rounds yet: " << e.what();
      }
      ASSERT_EQ(format_trace_text<double>(cuda_log.rounds(), static_cast<index_t>(n)),
                format_trace_text<double>(pram_log.rounds(), static_cast<index_t>(n)));
    }
  }
}

}  // namespace
}  // namespace wagener
