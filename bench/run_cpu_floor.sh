#!/usr/bin/env bash
# The cpu backend against the read-once floor (bench_cpu_floor): builds the benchmark (Release, no
# CUDA needed) and prints its markdown table. Every argument goes to bench_cpu_floor, for example
#   bench/run_cpu_floor.sh                          # every hardware thread, 10^6..10^8, f64 and f32
#   bench/run_cpu_floor.sh --threads 2 --peers-up-to 0
#   PBBS_DIR=third_party/pbbs bench/run_cpu_floor.sh --threads 2 --precisions f64
# Environment: BUILD_DIR (default build-cpu-floor), CMAKE_ARGS (extra configure flags), PBBS_DIR (a
# pbbsbench tree with parlaylib inside, passed as -DWAGENER_PBBS_DIR; bench/pbbs_tree.sh makes a
# small copy in third_party/pbbs; unset: no PBBS column, and a build directory configured with one
# before forgets it).
# CGAL and Qhull columns appear where both are installed (WAGENER_BENCH_PEERS), the PBBS quickhull
# column where PBBS_DIR is set (f64 rows only; ParlayLib's workers: --threads, or PARLAY_NUM_THREADS
# where set); elsewhere they read —.
set -euo pipefail
pbbs=""
if [[ -n "${PBBS_DIR:-}" ]]; then
  pbbs=$(cd "$PBBS_DIR" && pwd)  # relative to where the script is called from
fi
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-cpu-floor}
# shellcheck disable=SC2086  # CMAKE_ARGS is a list of flags
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DWAGENER_BUILD_BENCH=ON -DWAGENER_BUILD_TESTS=OFF \
  -DWAGENER_BUILD_CLI=OFF -DWAGENER_CUDA=OFF "-DWAGENER_PBBS_DIR=$pbbs" ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$(nproc)" --target bench_cpu_floor >/dev/null
echo "$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) hardware threads;" \
  "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
"$build/bench/bench_cpu_floor" "$@"
