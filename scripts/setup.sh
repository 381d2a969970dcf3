#!/usr/bin/env bash
# Installs what wagener needs to build and test on Debian/Ubuntu (idempotent; apt only when needed).
# scripts/setup.sh --bench: also the benchmarks' peers and tools (bench/), which no test needs:
# OpenCV alone brings over 100 packages (VTK, Qt, GDAL; about 300 MB installed with the other peers)
# that a test run would install for nothing.
set -euo pipefail
packages=(cmake g++ make libgtest-dev libgmock-dev libcli11-dev libcgal-dev libgmp-dev
          libxml2-utils librsvg2-bin ghostscript python3
          python3-dev python3-pybind11 pybind11-dev python3-pytest python3-numpy python3-scipy python3-hypothesis
          python3-dask python3-distributed python3-shapely python3-geopandas
          python3-pip python3-venv python3-setuptools python3-wheel python3-build ccache
          chromium python3-websocket  # the rounds page's browser tests (tests/browser/)
          libopenmpi-dev openmpi-bin
          clang libclang-rt-dev)  # clang and libFuzzer: scripts/fuzz.sh
case "${1:-}" in
  "") ;;
  --bench)
    packages+=(libbenchmark-dev libqhull-dev  # bench/ (WAGENER_BUILD_BENCH=ON): Google Benchmark, Qhull's C peer
               gnuplot-nox                    # bench/plot
               python3-opencv)                # a peer of bench/python/bench_python.py (cv2.convexHull on int32)
    ;;
  *) echo "usage: scripts/setup.sh [--bench]" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
