#!/usr/bin/env bash
# On a machine with a CUDA device: build the CLI and the tests (sm_90), run the GPU tests, the CLI's
# end-to-end tests and the auto tests, then the whole-process benchmark (bench/whole_process.py) with
# the cuda and auto columns: disk at 10^3..10^8 (and 2^31 float points with WHOLE_HUGE=1), circle at
# 10^6 and 10^7. Tables and logs go to $OUT (or ./gpu-whole-out). GPU_TESTS=0 skips the tests and
# WHOLE=0 the 10^3..10^8 tables, so that each call fits a time limit.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-start.sh
gpu_start gpu-whole
step() { echo "== $* ($(date +%T))"; }
status=0

step build
# The Python module with the machine's own python3 and pybind11 (pip's), for the device tests.
python_args=(-DPython3_EXECUTABLE="$(command -v python3)")
pybind=$(python3 -m pybind11 --cmakedir 2>/dev/null) && python_args+=(-Dpybind11_DIR="$pybind")
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DWAGENER_CUDA=ON \
  -DWAGENER_TEST_ORACLES=OFF "${python_args[@]}" >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
targets=(wagener_cli test_cuda_hull test_trace_cuda test_cuda_predicates test_hull test_cost_model)
grep -q "Python package ON" "$out/configure.log" && targets+=(_wagener)
cmake --build build-gpu -j "$(nproc)" --target "${targets[@]}" >"$out/build.log" 2>&1 ||
  { grep -E "error" "$out/build.log" | head -30; exit 1; }

# GPU_TESTS=0 skips the tests, WHOLE=0 the benchmark (each fits one call of a few minutes).
if [ "${GPU_TESTS:-1}" = 1 ]; then
step "GPU tests, auto, CLI end to end"
ctest --test-dir build-gpu -L cuda --output-on-failure 2>&1 | tee "$out/ctest.log" | grep -vE "Passed|^ *Start" | tail -8
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
build-gpu/tests/test_hull --gtest_filter='HullApi.*:*UpperHullOfUnsorted*' 2>&1 | tail -3
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
build-gpu/tests/test_cost_model 2>&1 | tail -1
if grep -q "Python package ON" "$out/configure.log"; then  # CuPy and PyTorch arrays on the device
  PYTHONPATH=build-gpu/python python3 -m pytest -q -rs -m cuda -p no:cacheprovider python/tests 2>&1 |
    tee "$out/pytest-cuda.log" | tail -4
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
bash tests/cli/test_cli.sh build-gpu/wagener 2>&1 | tail -4
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

fi

step "generate 2^31 float points (the same bytes for any thread count)"
if [ "${WHOLE_HUGE:-0}" = 1 ]; then
  mkdir -p /tmp/wagener-whole
  /usr/bin/time -f "generate 2^31 f32: %e s" build-gpu/wagener generate -n 2147483648 --format f32 \
    -o /tmp/wagener-whole/disk-2147483648.f32 2>&1 | tail -1 | tee "$out/generate.txt"
fi

if [ "${WHOLE:-1}" = 1 ]; then
step "whole process"
work=/tmp/wagener-whole
common=(--wagener build-gpu/wagener --runs "${WHOLE_RUNS:-3}" --workdir "$work" --keep --timeout 30)
python3 bench/whole_process.py "${common[@]}" --families disk --sizes "${WHOLE_DISK_SIZES:-1e3,1e5,1e6,1e7,1e8}" \
  --formats f64,f32 --max-n-slow-peers 1e7 --markdown "$out/whole-disk.md" 2>"$out/whole-disk.log"
[ $? -eq 0 ] || status=1
python3 bench/whole_process.py "${common[@]}" --families circle --sizes "${WHOLE_CIRCLE_SIZES:-1e6,1e7}" \
  --formats f64,f32 --max-n-slow-peers 1e6 --markdown "$out/whole-circle.md" 2>"$out/whole-circle.log"
[ $? -eq 0 ] || status=1
fi
if [ "${WHOLE_HUGE:-0}" = 1 ]; then
  python3 bench/whole_process.py "${common[@]}" --runs 1 --families disk --sizes 2147483648 --formats f32 \
    --max-n-slow-peers 1 --timeout 120 --markdown "$out/whole-huge.md" 2>"$out/whole-huge.log"
  [ $? -eq 0 ] || status=1
fi
step "auto's choices (--stats)"
for f in /tmp/wagener-whole/disk-100000000.f64 /tmp/wagener-whole/circle-10000000.f64; do
  [ -f "$f" ] && build-gpu/wagener hull "$f" --stats 2>&1 >/dev/null | grep -E "backend|auto|time" | tr '\n' ';' && echo
done

cat "$out"/whole-*.md 2>/dev/null | grep -E "^\|" | cut -c1-250
exit $status
