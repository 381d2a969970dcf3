#!/usr/bin/env bash
# Configures and builds into build/ (CUDA is picked up automatically when nvcc is on the PATH), then
# installs the Python package, when it was built, into the user's site-packages (~/.local), so that
# `python3 -c "import wagener"` works from any folder with the interpreter it was built for.
# Warnings are not errors here, so that a newer compiler's new warning does not stop a user's build;
# CI sets WAGENER_WERROR=ON (.ci/run), which makes them errors.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DWAGENER_WERROR="${WAGENER_WERROR:-OFF}" "$@" >/dev/null
cmake --build build -j "$(nproc)"
if [ -d build/python/wagener ] && [ -n "${HOME:-}" ]; then
  # lib/python3.X/site-packages under ~/.local is that interpreter's user site.
  cmake --install build --component python --prefix "$HOME/.local" >/dev/null
  echo "build: the Python package is installed in $HOME/.local (for $(grep -m1 '^Python3_EXECUTABLE' build/CMakeCache.txt | cut -d= -f2))"
fi
