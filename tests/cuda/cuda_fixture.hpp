// The fixture of the GPU test suites: skipped, and reported as skipped, without a CUDA device; a
// fresh seed (printed by each test's SCOPED_TRACE) for its random inputs.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "generators.hpp"
#include "wagener/hull.hpp"

namespace wagener::testing {

class CudaFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
    seed_ = fresh_seed();
    rng_.seed(seed_);
  }
  std::uint64_t seed_ = 0;
  std::mt19937_64 rng_;
};

}  // namespace wagener::testing
