#!/usr/bin/env bash
# The whole-process benchmark: installs the peers where apt is available (Qhull's qconvex, numpy and
# scipy, plus what scripts/setup.sh --bench installs), builds wagener and bench_cgal_file (Release,
# -DWAGENER_BUILD_BENCH=ON) into BUILD_DIR and runs bench/whole_process.py with the arguments given.
#
# Usage: bench/run_whole.sh [--no-build] [whole_process.py options...]
#   e.g. bench/run_whole.sh --sizes 1e6,1e7 --results bench/RESULTS.md --section 2core-whole
# Environment: BUILD_DIR (default build), CMAKE_ARGS (extra configure flags), NO_INSTALL=1 (install
#              nothing, e.g. on a machine with apt-get but no network).
# Where apt-get is missing or fails, nothing is installed and a missing peer is reported as n/a in its
# column. The CLI needs CLI11 (header-only); on a machine without it, copy Debian's /usr/include/CLI
# and /usr/share/cmake/CLI11 to DIR/include/CLI and DIR/share/cmake/CLI11 and pass
# CMAKE_ARGS=-DCMAKE_PREFIX_PATH=DIR (DIR as an absolute path).
set -euo pipefail
cd "$(dirname "$0")/.."

build=${BUILD_DIR:-build}
no_build=0
wrapper="bench/run_whole.sh"
[[ -n ${BUILD_DIR:-} ]] && wrapper="BUILD_DIR=$BUILD_DIR $wrapper"
if [[ ${1:-} == --no-build ]]; then
  no_build=1
  wrapper+=" --no-build"
  shift
fi

install_peers() {
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
      sudo="sudo"
    else
      echo "run_whole: not root and no password-less sudo: installing nothing" >&2
      return 0
    fi
  fi
  scripts/setup.sh --bench || echo "run_whole: warning: scripts/setup.sh --bench failed; going on with what is installed" >&2
  local missing=() p
  for p in qhull-bin python3-scipy python3-numpy; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "run_whole: installing ${missing[*]}" >&2
    { $sudo apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; } ||
      echo "run_whole: warning: could not install ${missing[*]}; those peers will be n/a" >&2
  fi
}

if [[ -n ${NO_INSTALL:-} ]]; then
  echo "run_whole: NO_INSTALL is set: installing nothing" >&2
elif command -v apt-get >/dev/null && command -v dpkg-query >/dev/null; then
  install_peers
else
  echo "run_whole: no apt-get here: installing nothing (missing peers are reported as n/a)" >&2
fi

if ((!no_build)); then
  [ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"
  # shellcheck disable=SC2086  # CMAKE_ARGS is a list of flags
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DWAGENER_BUILD_BENCH=ON ${CMAKE_ARGS:-} >/dev/null
  targets=(wagener_cli)
  # bench_cgal_file exists only where CGAL and Qhull were found.
  # (The list is read whole first: grep -q closing the pipe early would fail the pipeline.)
  available=$(cmake --build "$build" --target help 2>/dev/null || true)
  if grep -qw bench_cgal_file <<<"$available"; then
    targets+=(bench_cgal_file)
  else
    echo "run_whole: no bench_cgal_file target (CGAL or Qhull missing): the CGAL column will be n/a" >&2
  fi
  cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" >/dev/null
fi

# For the table's header: the command as typed (the script adds these arguments to it).
export WAGENER_WHOLE_WRAPPER="$wrapper" WAGENER_WHOLE_ARGS=$#
exec python3 bench/whole_process.py --wagener "$build/wagener" --cgal "$build/bench/bench_cgal_file" "$@"
