#!/usr/bin/env bash
# On a machine with a CUDA device: Nsight Compute on one launch of the tile kernel (float disk 2^24).
# PROFILE_MODE=kernels: instead, the duration of every launch the bench makes with PROFILE_ARGS
# (warm-up, timed runs and the floor's reduce included), summed by kernel, longest first; for
# example PROFILE_MODE=kernels PROFILE_ARGS="--quick --min-log2 28 --max-log2 28 --input full
# --family circle --precision double" for the double circle's steps kernel by kernel.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-start.sh
gpu_start gpu-profile
cmake -S . -B build-gpu-prof -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DWAGENER_CUDA=ON -DWAGENER_BUILD_CLI=OFF \
  -DWAGENER_TEST_ORACLES=OFF -DWAGENER_BUILD_TESTS=OFF -DWAGENER_BUILD_BENCH=ON -DCMAKE_CUDA_FLAGS=-lineinfo >"$out/configure.log" 2>&1 || exit 1
cmake --build build-gpu-prof -j "$(nproc)" --target bench_cuda >"$out/build.log" 2>&1 || { grep error "$out/build.log"; exit 1; }
args=${PROFILE_ARGS:---min-log2 24 --max-log2 24 --precision float --input disk}
if [ "${PROFILE_MODE:-}" = kernels ]; then
  ncu --clock-control none --metrics gpu__time_duration.sum --launch-count "${PROFILE_LAUNCHES:-2000}" \
    build-gpu-prof/bench/bench_cuda $args >"$out/kernels-raw.txt" 2>&1
  # A launch's line names the kernel (the first name followed by its template or parameter list); its
  # duration follows a few lines below, its unit before it: "ns", "us", "ms" or "s" (older releases
  # spell them out: "nsecond", "usecond", "msecond", "second").
  awk '/^  [^ ]/ { if (match($0, /[A-Za-z_][A-Za-z_0-9]*[<(]/)) name = substr($0, RSTART, RLENGTH - 1) }
       /gpu__time_duration.sum/ { v = $NF; gsub(",", "", v); u = $(NF - 1);
         us = u ~ /^n/ ? v / 1000 : u ~ /^m/ ? v * 1000 : u ~ /^s/ ? v * 1e6 : v;
         total[name] += us; count[name]++ }
       END { for (k in total) printf "%12.1f us %6d launches  %s\n", total[k], count[k], k }' \
    "$out/kernels-raw.txt" | sort -rn >"$out/kernels.txt"
  head -30 "$out/kernels.txt"
  exit 0
fi
# Local-memory traffic and spills, read off the machine code.
cuobjdump -sass build-gpu-prof/bench/bench_cuda 2>/dev/null | awk '/Function :/{f=$3} /LDL|STL/{n[f]++} END{for (k in n) print n[k], k}' |
  sort -rn | head -8 >"$out/local-memory.txt"
cuobjdump -sass build-gpu-prof/bench/bench_cuda 2>/dev/null |
  awk '/Function :/{p = ($3 ~ /tile_hoods_kernelIf/)} p' >"$out/tile-sass.txt"
ncu --kernel-name regex:${PROFILE_KERNEL:-tile_hoods} --launch-skip ${PROFILE_SKIP:-0} --launch-count 1 \
  --set full --import-source yes \
  build-gpu-prof/bench/bench_cuda $args >"$out/ncu.txt" 2>&1
grep -v "^==PROF==" "$out/ncu.txt" | grep -E -A12 "Warp Stall Sampling|Local Memory|Duration|Executed Instructions  " | head -120
