#!/usr/bin/env bash
# On a machine with a CUDA device: Nsight Compute on one launch of the tile kernel (float disk 2^24).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-profile-out}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build-gpu-prof -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DWAGENER_CUDA=ON -DWAGENER_BUILD_CLI=OFF \
  -DWAGENER_TEST_ORACLES=OFF -DWAGENER_BUILD_TESTS=OFF -DWAGENER_BUILD_BENCH=ON >"$out/configure.log" 2>&1 || exit 1
cmake --build build-gpu-prof -j "$(nproc)" --target bench_cuda >"$out/build.log" 2>&1 || { grep error "$out/build.log"; exit 1; }
args=${PROFILE_ARGS:---min-log2 24 --max-log2 24 --precision float --input disk}
ncu --kernel-name regex:${PROFILE_KERNEL:-tile_hoods} --launch-skip ${PROFILE_SKIP:-0} --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
  --section SchedulerStats --section MemoryWorkloadAnalysis --section SourceCounters --section InstructionStats \
  build-gpu-prof/bench/bench_cuda $args 2>&1 | tee "$out/ncu.txt" | grep -v "^==PROF==" | tail -120
