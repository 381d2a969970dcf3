#!/usr/bin/env bash
# On a machine with a CUDA device: Nsight Compute on one launch of the tile kernel (float disk 2^24).
# PROFILE_MODE=kernels: instead, the duration and DRAM bytes of every launch the bench makes with
# PROFILE_ARGS (the first PROFILE_LAUNCHES: warm-up, timed runs and the floor's reduce included),
# summed by kernel, longest first (bench/ncu_kernels.py); for example PROFILE_MODE=kernels
# PROFILE_ARGS="--quick --min-log2 28 --max-log2 28 --input full --family circle --precision double"
# for the double circle's steps kernel by kernel.
# PROFILE_MODE=lines: the stall samples of the kernels that PROFILE_KERNEL (a regex) names, over their
# first PROFILE_LAUNCHES launches (default 4), by source line (bench/ncu_lines.py); for example
# PROFILE_MODE=lines PROFILE_KERNEL="survivor_fan|device_polygon" PROFILE_ARGS="--quick --min-log2 28
# --max-log2 28 --input full --family square --precision float".
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-start.sh
gpu_start gpu-profile
cmake -S . -B build-gpu-prof -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DWAGENER_CUDA=ON -DWAGENER_BUILD_CLI=OFF \
  -DWAGENER_TEST_ORACLES=OFF -DWAGENER_BUILD_TESTS=OFF -DWAGENER_BUILD_BENCH=ON -DCMAKE_CUDA_FLAGS=-lineinfo >"$out/configure.log" 2>&1 || exit 1
cmake --build build-gpu-prof -j "$(nproc)" --target bench_cuda >"$out/build.log" 2>&1 || { grep error "$out/build.log"; exit 1; }
args=${PROFILE_ARGS:---min-log2 24 --max-log2 24 --precision float --input disk}
if [ "${PROFILE_MODE:-}" = kernels ]; then
  ncu --clock-control none --csv --print-units base --metrics gpu__time_duration.sum,dram__bytes.sum \
    --launch-count "${PROFILE_LAUNCHES:-2000}" build-gpu-prof/bench/bench_cuda $args >"$out/kernels-raw.csv" 2>&1
  python3 bench/ncu_kernels.py "$out/kernels-raw.csv" >"$out/kernels.txt" || exit 1
  head -30 "$out/kernels.txt"
  exit 0
fi
if [ "${PROFILE_MODE:-}" = lines ]; then
  ncu --clock-control none --set none --section SourceCounters --section WarpStateStats --warp-sampling-interval 0 \
    --kernel-name regex:"${PROFILE_KERNEL:-tile_hoods}" --launch-count "${PROFILE_LAUNCHES:-4}" -f -o "$out/lines" \
    build-gpu-prof/bench/bench_cuda $args >"$out/lines-ncu.log" 2>&1 || { tail -5 "$out/lines-ncu.log"; exit 1; }
  python3 bench/ncu_lines.py "$out/lines.ncu-rep" >"$out/lines.txt" || exit 1
  head -60 "$out/lines.txt"
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
