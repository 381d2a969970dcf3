#!/usr/bin/env bash
# Configures and builds into build/ (CUDA is picked up automatically when nvcc is on the PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DWAGENER_WERROR=ON "$@" >/dev/null
cmake --build build -j "$(nproc)"
