#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang into build-fuzz/ and fuzzes them from their
# committed seed corpora, all at once, for as long as gives each target WAGENER_FUZZ_SECONDS of one
# core (all targets at once for SECONDS x targets / cores: no core waits for a last target alone).
# Without WAGENER_FUZZ_SECONDS the time follows the change under test: 10 s a target, 1 s more for
# every 25 lines changed in the code the fuzzers reach (src, include, tools, fuzz, python/src) since
# WAGENER_FUZZ_BASE (default HEAD^, the last commit, or a merge's whole branch; uncommitted changes
# count too), at most 45 s; 45 s where that cannot be told (no git, no such commit).
# Without clang++ and libFuzzer it reports "skipped" and succeeds. A finding (a crash, a sanitizer
# error or a violated property) is saved under build-fuzz/findings/ and the message says how to run it
# again. The same clang build compiles the library and the command line's (for fuzz_cli), with warnings
# as errors where WAGENER_WERROR=ON (CI); the command line's program itself is the sanitizer build's.
# Usage: scripts/fuzz.sh [--build-only] [TARGET...]   (default: every target; --build-only: build them,
# fuzz nothing: scripts/test.sh builds them beside the tests, then fuzzes)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/steps.sh
root=$PWD

# fuzz_seconds: each target's seconds of a core, as the header says.
fuzz_seconds() {
  if [ -n "${WAGENER_FUZZ_SECONDS:-}" ]; then
    echo "$WAGENER_FUZZ_SECONDS"
    return
  fi
  local lines
  if lines=$(git diff --numstat "${WAGENER_FUZZ_BASE:-HEAD^}" -- src include tools fuzz python/src 2>/dev/null); then
    echo "$lines" | awk '{ changed += $1 + $2 } END { s = 10 + int(changed / 25); print (s > 45 ? 45 : s) }'
  else
    echo 45
  fi
}
seconds=$(fuzz_seconds)

libfuzzer=$(ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a 2>/dev/null | head -n1 || true)
if ! command -v clang++ >/dev/null || [ -z "$libfuzzer" ]; then
  echo "fuzz: skipped (clang++ or libFuzzer not found: install clang and libclang-rt-dev)"
  exit 0
fi

trap step_summary EXIT
# Line tables only (-g1), as the sanitizer builds of scripts/test.sh: a finding's stack names files and lines.
build_fuzzers() {
  cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DCMAKE_CXX_COMPILER=clang++ -DWAGENER_FUZZ=ON \
    -DWAGENER_CUDA=OFF -DWAGENER_BUILD_TESTS=OFF -DWAGENER_BUILD_PYTHON=OFF -DWAGENER_WERROR="${WAGENER_WERROR:-OFF}" >/dev/null
  cmake --build build-fuzz -j "$(nproc)" --target "$@"
}
build_only=0
if [ "${1:-}" = --build-only ]; then
  build_only=1
  shift
fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_read_points fuzz_read_grouped fuzz_cli fuzz_array_hull fuzz_merge_hulls)
step fuzz-build build_fuzzers "${targets[@]}"
((build_only == 0)) || exit 0

fuzz_one() {  # fuzz_one TARGET: its output in build-fuzz/TARGET.log
  local target=$1 work=build-fuzz/corpus/$1
  # A working copy of the seeds: what the run adds stays in build-fuzz/, the committed corpus is as is.
  mkdir -p "$work"
  cp -n fuzz/corpus/"$target"/* "$work"/ 2>/dev/null || true
  # fuzz_cli runs in its own temporary folder, so every path it gets is absolute; its standard
  # output and error (the command line's messages) are closed, sanitizer reports still show.
  build-fuzz/fuzz/"$target" -max_total_time="$wall" -timeout=20 -rss_limit_mb=4096 -close_fd_mask=3 \
    -print_final_stats=1 -artifact_prefix="$root/build-fuzz/findings/$target-" "$root/$work" \
    >"build-fuzz/$target.log" 2>&1
}
mkdir -p build-fuzz/findings
wall=$(((seconds * ${#targets[@]} + $(nproc) - 1) / $(nproc)))
((wall >= seconds)) || wall=$seconds
echo "fuzz: ${targets[*]}: all at once for ${wall} s, about ${seconds} s of a core each"
step fuzz-runs in_parallel ${#targets[@]} fuzz_one "${targets[@]}"
failed=()
for target in "${targets[@]}"; do
  if [ "${parallel_status[$target]}" = 0 ]; then
    grep -E '^stat::number_of_executed_units' "build-fuzz/$target.log" | sed "s/^/fuzz: $target /" || true
  else
    tail -n 40 "build-fuzz/$target.log"
    finding=$(grep -oE "Test unit written to [^ ]+" "build-fuzz/$target.log" | tail -n1 | cut -d' ' -f5)
    echo "fuzz: $target FAILED; reproduce with: build-fuzz/fuzz/$target ${finding:-build-fuzz/findings/$target-*}"
    failed+=("$target")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]} (full logs: build-fuzz/<target>.log)"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, ${wall} s at once, no findings"
