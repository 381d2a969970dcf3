#!/usr/bin/env bash
# The main job on a built-in default input: builds, then hulls a generated million-point disk.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
build/wagener demo --points 1000000 --output hull.txt "$@"
