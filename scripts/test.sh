#!/usr/bin/env bash
# The whole test suite on a fresh machine: install, build, run every test, then fuzz each libFuzzer
# target briefly (when clang is installed). GPU tests (label cuda) report "skipped" where no device
# exists. With WAGENER_WERROR=ON in the environment (CI: .ci/run), warnings are errors in build/ (gcc)
# and build-fuzz/ (clang).
#
# scripts/test.sh --sanitize: the sanitizer builds instead (CUDA, Python and MPI off: Open MPI's own
# allocations would read as leaks):
#   build-asan/  gcc, AddressSanitizer + UndefinedBehaviorSanitizer, the whole C++ suite;
#   build-tsan/  gcc, ThreadSanitizer, the threaded CPU backend and concurrent library calls
#                (test_concurrency, test_hull, test_io, test_output, test_generate).
# The first error ends the test that made it (-fno-sanitize-recover=all), so a test cannot pass
# after undefined behaviour, a bad access or a data race.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitize=0
case "${1:-}" in
  "") ;;
  --sanitize) sanitize=1 ;;
  *) echo "usage: scripts/test.sh [--sanitize]" >&2; exit 2 ;;
esac

scripts/setup.sh

if [ $sanitize -eq 0 ]; then
  scripts/build.sh -DWAGENER_BUILD_TESTS=ON -DWAGENER_MPI=AUTO -DWAGENER_CUDA=AUTO  # whatever run.sh left
  (cd build && ctest --output-on-failure -j "$(nproc)" --timeout 1500)
  scripts/fuzz.sh
  exit 0
fi

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
configure() {  # configure DIR SANITIZERS
  cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=g++ -DWAGENER_SANITIZE="$2" \
    -DWAGENER_CUDA=OFF -DWAGENER_BUILD_PYTHON=OFF -DWAGENER_MPI=OFF "${launcher[@]}" >/dev/null
}

echo "sanitize: AddressSanitizer + UndefinedBehaviorSanitizer, the whole suite (build-asan/)"
SECONDS=0
configure build-asan address,undefined
cmake --build build-asan -j "$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd build-asan && ctest --output-on-failure -j "$(nproc)" --timeout 3000)
echo "sanitize: ASan + UBSan done in ${SECONDS} s"

echo "sanitize: ThreadSanitizer, threaded CPU backend and concurrent calls (build-tsan/)"
SECONDS=0
tsan_tests=(test_concurrency test_hull test_io test_output test_generate)
configure build-tsan thread
cmake --build build-tsan -j "$(nproc)" --target "${tsan_tests[@]}"
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
# ThreadSanitizer maps its shadow memory at fixed addresses; where the kernel randomises mappings
# more than it expects (vm.mmap_rnd_bits above 28), it runs only without address randomisation.
no_aslr=()
setarch "$(uname -m)" -R true 2>/dev/null && no_aslr=(setarch "$(uname -m)" -R)
for test in "${tsan_tests[@]}"; do
  echo "sanitize: tsan $test"
  "${no_aslr[@]}" "build-tsan/tests/$test" --gtest_brief=1
done
echo "sanitize: TSan done in ${SECONDS} s"
