#!/usr/bin/env bash
# On a machine with a CUDA device: the guards that need it. Builds (sm_90, CLI on) into
# build-gpu-guards/, runs the CUDA concurrency test (8 threads against serial calls), the
# out-of-device-memory tests (the hull or a clear error; the command line's output whole or absent),
# the command line's end-to-end tests (the one-line "no CUDA device available: REASON" with the
# device hidden), then scripts/limits.sh with the cpu and cuda backends and 2^31+1000 points.
# Logs go to $OUT (or ./gpu-guards-out); the limits need about 25 GB in WAGENER_SCRATCH (default /tmp).
# Usage: scripts/gpu-guards.sh [all|tests|limits]   (two calls where one command may run 10 minutes)
set -uo pipefail
what=${1:-all}
cd "$(dirname "$0")/.."
scratch=${WAGENER_SCRATCH:-/tmp}/wagener-limits
source scripts/gpu-start.sh
gpu_start gpu-guards
step() { echo "== $*"; }
status=0

step build
cmake -S . -B build-gpu-guards -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DWAGENER_CUDA=ON \
  -DWAGENER_TEST_ORACLES=OFF -DWAGENER_BUILD_PYTHON=OFF >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build build-gpu-guards -j "$(nproc)" --target wagener_cli test_concurrency test_concurrency_cuda \
  test_cuda_faults >"$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -30; exit 1; }

if [ "$what" != limits ]; then
step "tests: Concurrency*, CudaFaults*, cli_end_to_end"
ctest --test-dir build-gpu-guards -R "Concurrency|CudaFaults|cli_end_to_end" --output-on-failure -V 2>&1 |
  tee "$out/ctest.log" | grep -E "Passed|Failed|Skipped|exact hull|cuda_error|bad_alloc|command line with|tests passed" | tail -40
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi

if [ "$what" != tests ]; then
step "limits (cpu and cuda, 2^31+1000 points)"
WAGENER=$PWD/build-gpu-guards/wagener scripts/limits.sh --huge --backends "cpu cuda" "$scratch" 2>&1 | tee "$out/limits.md"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
rm -rf "$scratch"
fi
exit $status
