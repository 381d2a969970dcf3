#!/usr/bin/env bash
# The whole test suite on a fresh machine: install, build, run every test. GPU tests (label cuda)
# report "skipped" where no device exists.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
cd build
ctest --output-on-failure -j "$(nproc)" --timeout 1500
