// The cost model behind Backend::automatic (src/cost_model.hpp): the directions its predictions move
// in, and its decisions on forced rates (those of machines unlike the one the test runs on).
#include <gtest/gtest.h>

#include "cost_model.hpp"

namespace wagener::cost {
namespace {

Workload disk(double n, double bytes = 16) {
  return {n, bytes, 0.004, false, bytes == 8};
}

Workload circle(double n, double bytes = 16) {
  return {n, bytes, 1.0, false, bytes == 8};
}

// Rates of the kind measured on the project's machines (bench/RESULTS.md): the 2-core guest, the
// 16-core H100 host, and the 32-core two-H100 host whose CPU was 3-6x faster than the old constants.
MachineRates two_cores() {
  MachineRates r;
  r.cpu = {0.3, 7, 4, 400};
  r.gpu = {350, 70, 3, 12, 25, 1};
  return r;
}
MachineRates sixteen_cores() {
  MachineRates r;
  r.cpu = {0.2, 21, 4, 110};
  r.gpu = {350, 70, 3, 25, 25, 1};
  return r;
}
MachineRates thirty_two_cores() {
  MachineRates r;
  r.cpu = {0.2, 100, 4, 20};
  r.gpu = {350, 70, 3, 25, 25, 1};
  return r;
}

TEST(CostModel, BothCostsGrowWithTheInput) {
  const MachineRates r = sixteen_cores();
  for (double n = 1e3; n < 1e10; n *= 10) {
    EXPECT_LT(cpu_milliseconds(disk(n), r.cpu), cpu_milliseconds(disk(n * 10), r.cpu)) << n;
    EXPECT_LT(cuda_milliseconds(disk(n), r.gpu, 0, true), cuda_milliseconds(disk(n * 10), r.gpu, 0, true))
        << n;
  }
}

TEST(CostModel, AFasterCpuIsNeverPredictedSlower) {
  MachineRates slow = sixteen_cores(), fast = sixteen_cores();
  fast.cpu.stream_gbs *= 3;
  fast.cpu.ns_per_survivor /= 3;
  for (const Workload& w : {disk(1e8), circle(1e7)}) {
    EXPECT_LT(cpu_milliseconds(w, fast.cpu), cpu_milliseconds(w, slow.cpu));
  }
}

TEST(CostModel, TheDevicesStartUpCountsOnlyUntilItIsOver) {
  const MachineRates r = sixteen_cores();
  const Workload w = disk(1e8);
  EXPECT_LT(cuda_milliseconds(w, r.gpu, r.gpu.startup_ms / 2, true), cuda_milliseconds(w, r.gpu, 0, true));
  EXPECT_EQ(cuda_milliseconds(w, r.gpu, r.gpu.startup_ms, true),
            cuda_milliseconds(w, r.gpu, 10 * r.gpu.startup_ms, true));
}

TEST(CostModel, OnlyTheFirstCallPaysForStaging) {
  const MachineRates r = sixteen_cores();
  const Workload w = disk(1e8);
  EXPECT_NEAR(cuda_milliseconds(w, r.gpu, 0, true) - cuda_milliseconds(w, r.gpu, 0, false),
              r.gpu.first_call_ms, 1e-9);
}

// Survivors are sorted and chained: the CPU's dearest step, so a hull-like input moves the choice
// towards the GPU.
TEST(CostModel, SurvivorsCostTheCpuMoreThanTheGpu) {
  const MachineRates r = sixteen_cores();
  const double cpu_extra = cpu_milliseconds(circle(1e7), r.cpu) - cpu_milliseconds(disk(1e7), r.cpu);
  const double gpu_extra =
      cuda_milliseconds(circle(1e7), r.gpu, 0, true) - cuda_milliseconds(disk(1e7), r.gpu, 0, true);
  EXPECT_GT(cpu_extra, gpu_extra);
}

// Whatever the machine, the GPU cannot win on inputs smaller than its start-up can pay for.
// 64-bit integers beyond 2^53: the device's filter keeps them all (its polygons' corners are exact in
// double), the CPU's drops most. Those points cost the device as survivors, whatever the estimate.
TEST(CostModel, PointsTheDeviceCannotFilterCostItAsSurvivors) {
  const MachineRates r = sixteen_cores();
  Workload w = disk(1e7);
  Workload beyond = w;
  beyond.device_unfiltered_fraction = 1.0;
  EXPECT_EQ(cpu_milliseconds(beyond, r.cpu), cpu_milliseconds(w, r.cpu));
  EXPECT_NEAR(cuda_milliseconds(beyond, r.gpu, 0, false) - cuda_milliseconds(w, r.gpu, 0, false),
              1e7 * (1.0 - w.survivor_fraction) * r.gpu.ns_per_survivor_double * 1e-6, 1e-9);
  // A share below the estimate changes nothing; a presorted upper hull takes no such filter.
  beyond.device_unfiltered_fraction = w.survivor_fraction / 2;
  EXPECT_EQ(cuda_milliseconds(beyond, r.gpu, 0, false), cuda_milliseconds(w, r.gpu, 0, false));
  w.sorted_upper = beyond.sorted_upper = true;
  beyond.device_unfiltered_fraction = 1.0;
  EXPECT_EQ(cuda_milliseconds(beyond, r.gpu, 0, false), cuda_milliseconds(w, r.gpu, 0, false));
}

TEST(CostModel, SmallInputsStayOnTheCpu) {
  for (const MachineRates& r : {two_cores(), sixteen_cores(), thirty_two_cores()}) {
    EXPECT_FALSE(predict(circle(1 << 16), r, 0, true).cuda_first());
  }
}

// The same inputs, decided by each machine's own rates: a 10^7 circle of doubles goes to the GPU
// where the CPU sorts slowly (2 and 16 cores) and stays on the 32-core CPU; a 10^8 disk stays on
// every CPU; with the device warm, 2^31 float points in memory go to it unless the CPU streams them
// faster than the staged copy does (32 cores).
TEST(CostModel, DecidesByTheRatesOfTheMachineItRunsOn) {
  const Workload floats = disk(2147483648.0, 8);
  for (const MachineRates& r : {two_cores(), sixteen_cores()}) {
    EXPECT_TRUE(predict(circle(1e7), r, 0, true).cuda_first());
    EXPECT_FALSE(predict(disk(1e8), r, 0, true).cuda_first());
    EXPECT_TRUE(predict(floats, r, r.gpu.startup_ms, false).cuda_first());
  }
  const MachineRates r = thirty_two_cores();
  EXPECT_FALSE(predict(circle(1e7), r, 0, true).cuda_first());
  EXPECT_FALSE(predict(disk(1e8), r, 0, true).cuda_first());
  EXPECT_FALSE(predict(floats, r, r.gpu.startup_ms, false).cuda_first());
}

TEST(CostModel, APresortedUpperHullIsAScanOnTheCpu) {
  const MachineRates r = sixteen_cores();
  Workload sorted = disk(1e8);
  sorted.sorted_upper = true;
  EXPECT_NEAR(cpu_milliseconds(sorted, r.cpu), r.cpu.fixed_ms + 1600 / r.cpu.sorted_upper_gbs, 1e-9);
  Workload all = sorted;
  all.survivor_fraction = 1;
  EXPECT_EQ(cuda_milliseconds(sorted, r.gpu, 0, true), cuda_milliseconds(all, r.gpu, 0, true));
}

}  // namespace
}  // namespace wagener::cost
