#!/usr/bin/env bash
# On a machine with a CUDA device: build (sm_90), run the GPU tests, run them under compute-sanitizer
# (memcheck and racecheck), then the GPU benchmark. Logs go to $OUT (or ./gpu-check-out).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-start.sh
gpu_start gpu-check
step() { echo "== $*"; }

step build
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DWAGENER_CUDA=ON -DWAGENER_BUILD_CLI=OFF -DWAGENER_TEST_ORACLES=OFF \
  -DWAGENER_BUILD_BENCH=${WAGENER_GPU_BENCH:-OFF} >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build build-gpu -j "$(nproc)" --target test_cuda_hull test_trace_cuda test_cuda_predicates ${WAGENER_GPU_TARGETS:-} >"$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -30; exit 1; }

step "GPU tests (ctest -L cuda: test_cuda_predicates, test_cuda_hull, test_trace_cuda)"
# Only the GPU test targets are built: ctest -L cuda runs just their tests.
status=0
ctest --test-dir build-gpu -L cuda --output-on-failure 2>&1 | tee "$out/ctest.log" | grep -vE "Passed|^ *Start" | tail -30
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

step "compute-sanitizer memcheck"
compute-sanitizer --tool memcheck --error-exitcode 1 build-gpu/tests/test_cuda_hull \
  --gtest_filter='CudaTest.SanitizerSizedInputs:CudaTest.DeviceEntryPointTakesDevicePointers' 2>&1 |
  tee "$out/memcheck.log" | tail -4
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
step "compute-sanitizer racecheck"
compute-sanitizer --tool racecheck --error-exitcode 1 build-gpu/tests/test_cuda_hull \
  --gtest_filter='CudaTest.SanitizerSizedInputs' 2>&1 | tee "$out/racecheck.log" | tail -4
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

if [ "${WAGENER_GPU_BENCH:-OFF}" = ON ]; then
  step benchmark
  build-gpu/bench/bench_cuda --markdown "$out/gpu-results.md" ${WAGENER_BENCH_ARGS:-} 2>&1 | tee "$out/bench.log" | tail -40
fi
exit $status
