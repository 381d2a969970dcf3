#!/usr/bin/env bash
# On a machine with CUDA devices, in one go: build everything the GPU checks need (sm_90) into
# build-gpu/, run every GPU test (ctest -L cuda, the Python device tests), compute-sanitizer's memcheck
# and racecheck on the newest GPU entry points, auto's calibration and decisions, then the benchmarks
# of several GPUs (bench_devices) and of the whole process on this host (bench/host_whole.py, warm and
# cold). Logs and tables go to $OUT (or ./gpu-all-out); the last lines summarise.
#   GPU_ALL_STEPS   which steps, default "build tests sanitize bench host"; "sanitize" alone can take
#                   ten minutes (racecheck up to 200 s a program), so where commands are time-limited
#                   run "build tests" and then "sanitize" as two commands (the build stays)
#   GPU_ALL_TESTS   "cuda": build only the GPU tests and the host tests run with them; default all
#   HOST_INPUTS, HOST_RUNS, HOST_COLD as scripts/gpu-host.sh takes them
#   GPU_ALL_PACK    1: at the end, every log and table packed into one file, $out/gpu-all-logs.tgz
#                   (for runners that bring back only a few files)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-start.sh
gpu_start gpu-all
steps=" ${GPU_ALL_STEPS:-build tests sanitize bench host} "
step() { echo "== $* ($(date +%T))"; }
summary=()
note() { summary+=("$*"); echo "$*"; }
status=0
has() { [[ "$steps" == *" $1 "* ]]; }

if has build; then
  step build
  python_args=(-DPython3_EXECUTABLE="$(command -v python3)")
  pybind=$(python3 -m pybind11 --cmakedir 2>/dev/null) && python_args+=(-Dpybind11_DIR="$pybind")
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DWAGENER_CUDA=ON \
    -DWAGENER_TEST_ORACLES=OFF -DWAGENER_BUILD_BENCH=ON -DWAGENER_MPI=OFF "${python_args[@]}" \
    >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
  targets=(wagener_cli bench_devices)
  # GPU_ALL_TESTS=cuda: only the GPU tests' programs and the host tests run beside them (a quarter of
  # the build); default every test program.
  pattern="wagener_test\((test_[a-z_0-9]+)"
  [ "${GPU_ALL_TESTS:-all}" = cuda ] && pattern="wagener_test\((test_[a-z_0-9]+)[^)]*LABELS cuda" &&
    targets+=(test_calibration test_cost_model test_hull test_output test_stream test_read_ahead)
  for t in $(grep -ohE "$pattern" tests/CMakeLists.txt | cut -d'(' -f2 | cut -d' ' -f1 | sort -u); do
    grep -q "^$t:" <(cmake --build build-gpu --target help 2>/dev/null | sed 's/^\.\.\. //; s/$/:/') && targets+=("$t")
  done
  grep -q "Python package ON" "$out/configure.log" && targets+=(_wagener)
  cmake --build build-gpu -j "$(nproc)" --target "${targets[@]}" >"$out/build.log" 2>&1 ||
    { grep -E "error" "$out/build.log" | head -30; exit 1; }
  note "build: ${#targets[@]} targets"
fi

if has tests; then
  step "GPU tests"
  ctest --test-dir build-gpu -L cuda -j 4 --output-on-failure >"$out/ctest-cuda.log" 2>&1 || status=1
  note "ctest -L cuda: $(grep -E "tests passed|tests failed" "$out/ctest-cuda.log" | tail -1)"
  grep -E "Failed|\*\*\*" "$out/ctest-cuda.log" | grep -v Skipped | head -10
  ctest --test-dir build-gpu -R "Calibration|ReadAhead|CostModel|HullApi|StreamedHull|WriteHull|cli_end_to_end" -j 8 \
    --output-on-failure >"$out/ctest-host.log" 2>&1 || status=1
  note "host tests with the device present: $(grep -E "tests passed|tests failed" "$out/ctest-host.log" | tail -1)"
  if [ -d build-gpu/python/wagener ]; then
    PYTHONPATH=build-gpu/python python3 -m pytest -q -rs -m cuda -p no:cacheprovider python/tests \
      >"$out/pytest-cuda.log" 2>&1 || status=1
    note "pytest -m cuda: $(tail -1 "$out/pytest-cuda.log")"
  fi
fi

if has sanitize; then
  step "compute-sanitizer"
  # program:filter pairs; the newest entry points and the integer kernels (full, upper, grouped, parts).
  # racecheck leaves out the int64 hulls: it does not finish them in minutes, even at 20000 points
  # (bench/NOTES.md, "The chains enqueued without host waits").
  # The block finish's test, the tile kernel's in-block rounds (RacecheckSizedInputs) and the sorted
  # input's checks (the guide filter's and the tile level's) are runs of their own under racecheck
  # only, each with its own time limit (memcheck takes the first and the last with the other
  # SanitizerSized* tests).
  checks=("test_device_parts:*NonFinite*:*Empty*:*Integer*" "test_cuda_hull:CudaTest.SanitizerSized*"
    "test_cuda_grouped:*Int*" "test_cuda_hull:CudaTest.SanitizerSizedBlockFinish"
    "test_cuda_hull:CudaTest.RacecheckSizedInputs" "test_cuda_hull:CudaTest.SanitizerSizedSortedChecks")
  for tool in memcheck racecheck; do
    for i in "${!checks[@]}"; do
      check=${checks[$i]}
      [ $tool = memcheck ] && [ "$i" -ge 3 ] && continue  # racecheck's own runs
      [ $tool = racecheck ] && check=${check/CudaTest.SanitizerSized\*/CudaTest.SanitizerSizedInputs:CudaTest.SanitizerSizedInt32Hulls:CudaTest.SanitizerSizedJoin}
      program=${check%%:*} filter=${check#*:}
      # racecheck takes minutes over the tile kernel's peel rounds in shared memory
      limit=120 && [ $tool = racecheck ] && limit=200
      log="$out/$tool-$program-$i.log"
      timeout $limit compute-sanitizer --tool $tool --error-exitcode 1 "build-gpu/tests/$program" \
        --gtest_filter="$filter" >"$log" 2>&1 || status=1
      note "$tool $program ($filter): $(grep -E "ERROR SUMMARY|PASSED|FAILED" "$log" | tail -2 | tr '\n' ' ')"
    done
  done
fi

if has bench; then
  step "several GPUs"
  build-gpu/bench/bench_devices --log2 28 --runs 5 2>&1 | tee "$out/devices-double.txt"
  build-gpu/bench/bench_devices --log2 30 --float --runs 5 2>&1 | tee "$out/devices-float.txt"
fi

if has host; then
  step "whole process on this host"
  OUT="$out" scripts/gpu-host.sh >"$out/gpu-host.log" 2>&1 || status=1
  tail -25 "$out/gpu-host.log"
fi

echo "== summary"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
if [ "${GPU_ALL_PACK:-0}" = 1 ]; then
  packed=$(mktemp --suffix=.tgz)
  tar czf "$packed" -C "$out" . && chmod 644 "$packed" && find "$out" -mindepth 1 -delete &&
    mv "$packed" "$out/gpu-all-logs.tgz"
fi
exit $status
