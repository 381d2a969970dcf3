#!/usr/bin/env bash
# On a machine with a CUDA device: the main job as a user runs it on this host (bench/host_whole.py),
# warm and cold, with auto's rates measured first (`wagener calibrate`), and what auto predicted and
# why (--stats) on each input. Builds the CLI into build-gpu/ (sm_90) unless it is there. Tables and
# logs go to $OUT (or ./gpu-host-out).
#   HOST_INPUTS   inputs for both tables (family:count:f32|f64, comma-separated)
#   HOST_RUNS     runs a cell (median), default 3
#   HOST_COLD=0   skips the cold table (it needs root, to drop the page cache)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/gpu-start.sh
gpu_start gpu-host
step() { echo "== $* ($(date +%T))"; }
status=0
if [ ! -x build-gpu/wagener ]; then
  step build
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DWAGENER_CUDA=ON \
    -DWAGENER_TEST_ORACLES=OFF -DWAGENER_BUILD_TESTS=OFF -DWAGENER_BUILD_PYTHON=OFF >"$out/configure.log" 2>&1 ||
    { tail -30 "$out/configure.log"; exit 1; }
  cmake --build build-gpu -j "$(nproc)" --target wagener_cli >"$out/build.log" 2>&1 ||
    { grep -E "error" "$out/build.log" | head -30; exit 1; }
fi
inputs=${HOST_INPUTS:-disk:1e6:f64,disk:1e7:f64,disk:1e8:f64,circle:1e6:f64,circle:1e7:f64}
work=/tmp/wagener-host

step "calibrate"
XDG_CACHE_HOME=/tmp/wagener-cache build-gpu/wagener calibrate | tee "$out/calibrate.txt"
export XDG_CACHE_HOME=/tmp/wagener-cache

step "whole process"
cold=(--cold --warm)
[ "${HOST_COLD:-1}" = 1 ] || cold=()
python3 bench/host_whole.py --wagener build-gpu/wagener --workdir "$work" --runs "${HOST_RUNS:-3}" \
  --inputs "$inputs" "${cold[@]}" --markdown "$out/host-whole.md" 2>"$out/host-whole.log" || status=1
tail -3 "$out/host-whole.log"

step "auto's predictions"
for f in "$work"/*.f32 "$work"/*.f64; do
  [ -f "$f" ] || continue
  echo "$(basename "$f"): $(build-gpu/wagener hull "$f" -o /tmp/wagener-host-hull.txt --stats 2>&1 |
    grep -E "^(backend|time|reading|auto|output)" | tr -s ' ' | tr '\n' ';')"
done | tee "$out/auto.txt"
cat "$out/host-whole.md"
exit $status
