#!/usr/bin/env bash
# On a machine with a CUDA device: the GPU benchmark of this tree against a base's sources, both
# built alike (sm_90, Release: build-ab-base/ and build-ab/), runs alternating, each run's table
# written to $OUT (or ./gpu-ab-out) as soon as it ends, so that a call cut short by a time limit
# keeps what it measured; then the medians side by side (bench/bench_ab.py).
#   AB_BASE    a folder with the base's sources, for example made before the tree is copied to the
#              device with `git archive BASE | tar -x -C ab-base` (the device's copy has no history)
#   AB_PAIRS   alternating pairs of runs, default 3
#   AB_ARGS    bench_cuda's arguments, default "--quick --min-log2 28 --max-log2 28 --input full"
# The GPU tests and the sanitizers are scripts/gpu-all.sh's (GPU_ALL_TESTS=cuda).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-start.sh
gpu_start gpu-ab
base=${AB_BASE:?AB_BASE: a folder with the base sources}
args=${AB_ARGS:---quick --min-log2 28 --max-log2 28 --input full}
opts=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DWAGENER_CUDA=ON -DWAGENER_BUILD_BENCH=ON
  -DWAGENER_TEST_ORACLES=OFF -DWAGENER_MPI=OFF -DWAGENER_BUILD_CLI=OFF -DWAGENER_BUILD_TESTS=OFF)
jobs=$(( $(nproc) / 2 > 0 ? $(nproc) / 2 : 1 ))
start=$SECONDS
(cmake -S "$base" -B build-ab-base "${opts[@]}" && cmake --build build-ab-base -j "$jobs" --target bench_cuda) >"$out/build-base.log" 2>&1 &
(cmake -S . -B build-ab "${opts[@]}" && cmake --build build-ab -j "$jobs" --target bench_cuda) >"$out/build-tree.log" 2>&1
tree_rc=$?
wait $!
base_rc=$?
echo "[$((SECONDS - start)) s] built: base rc=$base_rc, tree rc=$tree_rc"
[ "$base_rc" = 0 ] && [ "$tree_rc" = 0 ] || { grep -h -E "error" "$out"/build-*.log | head -20; exit 1; }
for ((r = 1; r <= ${AB_PAIRS:-3}; ++r)); do
  for side in base tree; do
    build=build-ab; [ "$side" = base ] && build=build-ab-base
    # shellcheck disable=SC2086
    "$build/bench/bench_cuda" $args >"$out/bench-$side-$r.txt" 2>&1
    echo "[$((SECONDS - start)) s] $side run $r rc=$?"
  done
done
python3 bench/bench_ab.py "$out"/bench-base-*.txt -- "$out"/bench-tree-*.txt | tee "$out/ab.txt"
