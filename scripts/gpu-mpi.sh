#!/usr/bin/env bash
# wagener-mpi on a machine with GPUs (the 2-GPU kind): builds with CUDA and MPI, runs the MPI tests,
# then times 1 and 2 ranks (each on its own GPU: local rank mod device count) on a generated float
# disk of 2^31 points (16 GB; fewer when the disk is short), I/O included, against wagener hull in
# one process. The targets (issue 14): 2 GPUs in at most 0.6x the 1-GPU time; merge at most 5%.
# Needs mpirun (Debian: libopenmpi-dev openmpi-bin; scripts/setup.sh installs them where apt works).
# Environment: WAGENER_MPI_POINTS (2147483648), WAGENER_BUILD_DIR (build-gpu-mpi), RUNS (3).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v mpirun >/dev/null 2>&1; then
  echo "gpu-mpi: no mpirun on this machine: install libopenmpi-dev openmpi-bin (scripts/setup.sh)" >&2
  exit 1
fi
build=${WAGENER_BUILD_DIR:-build-gpu-mpi}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DWAGENER_CUDA=ON -DWAGENER_MPI=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DWAGENER_BUILD_PYTHON=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target wagener_cli wagener_mpi_cli test_mpi_hull
(cd "$build" && ctest -L mpi --output-on-failure)
nvidia-smi -L || true

# The largest power of two up to WAGENER_MPI_POINTS whose float files (n points and n/2 for the weak
# scaling: 12 bytes a point) leave 8 GB free.
n=${WAGENER_MPI_POINTS:-2147483648}
free_bytes=$(($(df -P -k "$build" | awk 'NR == 2 {print $4}') * 1024))
while [ $((n * 12 + 8 * 1024 * 1024 * 1024)) -gt "$free_bytes" ] && [ "$n" -gt 1048576 ]; do n=$((n / 2)); done
echo "gpu-mpi: $n float points ($((n * 8 / 1024 / 1024)) MiB), $((free_bytes / 1024 / 1024 / 1024)) GiB free before"

RUNS=${RUNS:-3} BACKEND=cuda PRECISION=float FORMAT=f32 RANKS="1 2" DIR="$build/bench-mpi" \
  bench/mpi_scaling.sh "$build" "$n"
echo "gpu-mpi: the same with the CPU backend, for the record"
RUNS=1 BACKEND=cpu PRECISION=float FORMAT=f32 RANKS="1 2" DIR="$build/bench-mpi" bench/mpi_scaling.sh "$build" "$n"
rm -f "$build"/bench-mpi/*.f32
