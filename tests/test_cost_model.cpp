// The cost model behind Backend::automatic (src/cost_model.hpp): the directions its choices must
// move in, whatever its measured constants are.
#include <gtest/gtest.h>

#include "cost_model.hpp"

namespace wagener::cost {
namespace {

Workload disk(double n, double bytes = 16) {
  return {n, bytes, 0.004, false, bytes == 8};
}

TEST(CostModel, BothCostsGrowWithTheInput) {
  for (double n = 1e3; n < 1e10; n *= 10) {
    EXPECT_LT(cpu_milliseconds(disk(n), 16), cpu_milliseconds(disk(n * 10), 16)) << n;
    EXPECT_LT(cuda_milliseconds(disk(n), 0), cuda_milliseconds(disk(n * 10), 0)) << n;
  }
}

TEST(CostModel, MoreCoresNeverMakeTheCpuSlower) {
  for (unsigned cores = 1; cores < 128; ++cores) {
    EXPECT_LE(cpu_milliseconds(disk(1e8), cores + 1), cpu_milliseconds(disk(1e8), cores)) << cores;
  }
}

TEST(CostModel, TheDevicesStartUpCountsOnlyUntilItIsOver) {
  const Workload w = disk(1e8);
  EXPECT_LT(cuda_milliseconds(w, kDeviceStartupMs / 2), cuda_milliseconds(w, 0));
  EXPECT_EQ(cuda_milliseconds(w, kDeviceStartupMs), cuda_milliseconds(w, 10 * kDeviceStartupMs));
}

// Survivors are sorted and chained: the CPU's dearest step, so a hull-like input moves the choice
// towards the GPU.
TEST(CostModel, SurvivorsCostTheCpuMoreThanTheGpu) {
  Workload few = disk(1e7), all = disk(1e7);
  all.survivor_fraction = 1;
  const double cpu_extra = cpu_milliseconds(all, 16) - cpu_milliseconds(few, 16);
  const double gpu_extra = cuda_milliseconds(all, 0) - cuda_milliseconds(few, 0);
  EXPECT_GT(cpu_extra, gpu_extra);
}

// Whatever else, the GPU cannot win on inputs smaller than its start-up can pay for.
TEST(CostModel, SmallInputsStayOnTheCpu) {
  for (unsigned cores : {1u, 2u, 16u}) {
    Workload w = disk(1 << 16);
    w.survivor_fraction = 1;
    EXPECT_LT(cpu_milliseconds(w, cores), cuda_milliseconds(w, 0)) << cores;
  }
}

}  // namespace
}  // namespace wagener::cost
