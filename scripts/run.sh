#!/usr/bin/env bash
# The main job on a built-in default input: builds, then hulls a generated million-point disk.
# It builds what the job needs, the command line and the Python package: no tests (scripts/test.sh
# builds them), no MPI tool, and the CUDA backend only where a GPU is present (nvcc alone, as on CI
# machines, would spend minutes compiling kernels nothing here runs).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cuda=OFF
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then cuda=AUTO; fi
scripts/build.sh -DWAGENER_BUILD_TESTS=OFF -DWAGENER_MPI=OFF -DWAGENER_CUDA=$cuda
build/wagener demo --points 1000000 --output hull.txt "$@"
