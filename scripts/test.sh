#!/usr/bin/env bash
# The whole test suite on a fresh machine: install, build, run every test, then fuzz each libFuzzer
# target briefly (when clang is installed). GPU tests (label cuda) report "skipped" where no device
# exists. With WAGENER_WERROR=ON in the environment (CI: .ci/run), warnings are errors in build/ (gcc)
# and in the clang builds (build-fuzz/, build-asan/, build-tsan/).
#
# scripts/test.sh --sanitize: the sanitizer builds instead (CUDA, Python and MPI off: Open MPI's own
# allocations would read as leaks), with clang (g++ where clang++ is missing), which compiles them in
# little more than half gcc's time; build/ keeps gcc, so the suite runs from both compilers:
#   build-asan/  AddressSanitizer + UndefinedBehaviorSanitizer, the whole C++ suite;
#   build-tsan/  ThreadSanitizer, the threaded CPU backend and concurrent library calls
#                (test_concurrency, test_hull, test_io, test_output, test_generate), as many at once
#                as there are cores.
# The first error ends the test that made it (-fno-sanitize-recover=all), so a test cannot pass
# after undefined behaviour, a bad access or a data race. The fuzzers' build (build-fuzz/) runs
# beside the plain tests, at low priority, in the cores' idle time. Either way, the last lines list
# each step's wall and processor time.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/steps.sh
trap step_summary EXIT

sanitize=0
case "${1:-}" in
  "") ;;
  --sanitize) sanitize=1 ;;
  *) echo "usage: scripts/test.sh [--sanitize]" >&2; exit 2 ;;
esac
step_args=${1:-}  # names this run in WAGENER_STEPS_LOG (scripts/steps.sh)

step setup scripts/setup.sh

if [ $sanitize -eq 0 ]; then
  step build scripts/build.sh -DWAGENER_BUILD_TESTS=ON -DWAGENER_MPI=AUTO -DWAGENER_CUDA=AUTO  # whatever run.sh left
  # The fuzzers' build beside the tests (scripts/steps.sh, beside), then the fuzzing: its build is done.
  step ctest+fuzz-build beside build/fuzz-build.log scripts/fuzz.sh --build-only -- \
    ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 1500
  step fuzz scripts/fuzz.sh
  exit 0
fi

# Optimised as RelWithDebInfo, with line tables only (-g1): a report names the file and line of every
# frame, and the builds write less than with full debug information; a debugger's view of local
# variables needs -g. Their times: bench/NOTES.md, "CI time".
compiler=clang++
command -v clang++ >/dev/null || compiler=g++
configure_and_build() {  # configure_and_build DIR SANITIZERS [TARGET...]
  local dir=$1 sanitizers=$2
  shift 2
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DCMAKE_CXX_COMPILER="$compiler" -DWAGENER_SANITIZE="$sanitizers" -DWAGENER_WERROR="${WAGENER_WERROR:-OFF}" \
    -DWAGENER_CUDA=OFF -DWAGENER_BUILD_PYTHON=OFF -DWAGENER_MPI=OFF >/dev/null
  if (($#)); then
    cmake --build "$dir" -j "$(nproc)" --target "$@"
  else
    cmake --build "$dir" -j "$(nproc)"
  fi
}

echo "sanitize: AddressSanitizer + UndefinedBehaviorSanitizer, the whole suite (build-asan/, $compiler)"
step asan-build configure_and_build build-asan address,undefined
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
step asan-ctest ctest --test-dir build-asan --output-on-failure -j "$(nproc)" --timeout 3000

echo "sanitize: ThreadSanitizer, threaded CPU backend, concurrent calls and the emulated block (build-tsan/, $compiler)"
# test_block_emulated runs the GPU block's device code on CPU threads: here a missing barrier
# between its threads' shared-memory accesses is a data race, as racecheck would report it.
tsan_tests=(test_concurrency test_hull test_io test_output test_generate test_block_emulated)
# Not beside the AddressSanitizer tests, as the fuzzers' build is beside the plain ones: they leave
# little idle time, and together they took longer (bench/NOTES.md, "CI time").
step tsan-build configure_and_build build-tsan thread "${tsan_tests[@]}"
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
# ThreadSanitizer maps its shadow memory at fixed addresses; where the kernel randomises mappings
# more than it expects (vm.mmap_rnd_bits above 28), it runs only without address randomisation.
no_aslr=()
setarch "$(uname -m)" -R true 2>/dev/null && no_aslr=(setarch "$(uname -m)" -R)
# Each test program in shards (GTEST_TOTAL_SHARDS: every test runs in exactly one shard), as many at
# once as there are cores: one program at a time left a core idle, test_hull's alone for minutes.
shards=$((2 * $(nproc)))
tsan_one() {  # tsan_one TEST:SHARD, its output in build-tsan/TEST.SHARD.log
  local test=${1%:*} shard=${1#*:}
  GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$shard "${no_aslr[@]}" "build-tsan/tests/$test" --gtest_brief=1 \
    >"build-tsan/$test.$shard.log" 2>&1
}
jobs_list=()
for test in "${tsan_tests[@]}"; do
  for ((shard = 0; shard < shards; shard++)); do jobs_list+=("$test:$shard"); done
done
step tsan-runs in_parallel "$(nproc)" tsan_one "${jobs_list[@]}"
failed=()
for test in "${tsan_tests[@]}"; do
  passed=0 ok=1
  for ((shard = 0; shard < shards; shard++)); do
    log=build-tsan/$test.$shard.log
    if [ "${parallel_status[$test:$shard]}" = 0 ]; then
      count=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\..*/\1/p' "$log" | head -n1)
      passed=$((passed + ${count:-0}))
    else
      cat "$log"
      echo "sanitize: tsan $test, shard $shard of $shards, FAILED (exit ${parallel_status[$test:$shard]}; $log)"
      ok=0
    fi
  done
  if ((ok)); then echo "sanitize: tsan $test: $passed tests passed"; else failed+=("$test"); fi
done
[ ${#failed[@]} -eq 0 ]
