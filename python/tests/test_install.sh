#!/usr/bin/env bash
# The package as users install it, from a fresh clone of the repository's last commit:
#   1. python3 -m build --wheel --no-isolation: the wheel holds the package's files, the module and the
#      version of CMakeLists.txt, nothing else;
#   2. that wheel installed into a fresh `python3 -m venv --system-site-packages`, imported from
#      outside the source tree (and, built with CUDA, with the CUDA backend in it);
#   3. python3 -m pip install --no-build-isolation <the clone> into a second fresh venv, the same.
# Offline throughout (--no-index: numpy comes from the system's site-packages). The clone's CMake
# tree (build-python/) is at the depth of build/, so ccache gives back the objects build/ compiled.
# Usage: test_install.sh PYTHON SOURCE_DIR WORK_DIR CUDA(ON|OFF) [CMAKE_OPTION...]
# (the options: those of the build whose objects ccache should give back, e.g. -DWAGENER_WERROR=ON)
# Exit 77 (CTest: skipped) where the source is not a git checkout or a Debian package is missing.
set -euo pipefail
python=$1 source=$2 work=$3 cuda=$4
shift 4
export CMAKE_ARGS="-DWAGENER_CUDA=$cuda $*"

skip() { echo "skipped: $*"; exit 77; }
git -C "$source" rev-parse --git-dir >/dev/null 2>&1 || skip "$source is not a git checkout (the test clones it)"
for module in build pip setuptools wheel venv ensurepip; do
  "$python" -c "import $module" 2>/dev/null ||
    skip "$python lacks the module $module (Debian: python3-build python3-pip python3-setuptools python3-wheel python3-venv)"
done
if [ -n "$(git -C "$source" status --porcelain --untracked-files=no)" ]; then
  echo "note: uncommitted changes are not tested here: the clone holds the last commit"
fi

rm -rf "$work"
mkdir -p "$work"
git clone -q "$source" "$work/wagener"
version=$(sed -n 's/^project(wagener VERSION \([0-9.]*\).*/\1/p' "$work/wagener/CMakeLists.txt")
export PYTHONNOUSERSITE=1  # a package in ~/.local (scripts/build.sh puts one there) would come first

echo "== python3 -m build --wheel --no-isolation (CMAKE_ARGS: $CMAKE_ARGS)"
(cd "$work/wagener" && "$python" -m build --wheel --no-isolation --outdir "$work/dist" \
  >"$work/build-wheel.log" 2>&1) || { tail -n 40 "$work/build-wheel.log"; exit 1; }
wheel=$(ls "$work"/dist/wagener-"$version"-*.whl)

echo "== the wheel's contents: $(basename "$wheel")"
"$python" - "$wheel" "$work/wagener/python/wagener" "$version" <<'EOF'
import pathlib, sys, zipfile
wheel, package, version = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3]
names = set(zipfile.ZipFile(wheel).namelist())
expected = {f"wagener/{p.name}" for p in package.iterdir() if p.is_file()}
modules = {n for n in names if n.startswith("wagener/_wagener.") and n.endswith(".so")}
info = {n for n in names if n.startswith(f"wagener-{version}.dist-info/")}
assert len(modules) == 1, f"one extension module, not {sorted(modules)}"
assert names == expected | modules | info, f"unexpected {sorted(names - expected - modules - info)}, missing {sorted(expected - names)}"
metadata = zipfile.ZipFile(wheel).read(f"wagener-{version}.dist-info/METADATA").decode()
assert f"\nVersion: {version}\n" in metadata and "\nRequires-Dist: numpy" in metadata, metadata[:400]
print(f"ok: {len(expected)} package files, {modules.pop()}, version {version}")
EOF

# check VENV: the venv's python imports the venv's wagener, from a folder outside any source tree.
check() {
  (cd "$work" && "$1/bin/python" - "$1" "$version" "$cuda" <<'EOF'
import pathlib, sys
import numpy as np
import wagener
venv, version, cuda = pathlib.Path(sys.argv[1]).resolve(), sys.argv[2], sys.argv[3]
assert pathlib.Path(wagener.__file__).resolve().is_relative_to(venv), wagener.__file__
assert wagener.__version__ == version, wagener.__version__
square = np.array([[0, 0], [2, 0], [1, 1], [2, 2], [0, 2]])
assert wagener.convex_hull(square).tolist() == [[0, 0], [2, 0], [2, 2], [0, 2]]
assert wagener.ConvexHull(square).volume == 4.0
try:  # the CUDA backend is in the module exactly when it was built with nvcc
    wagener.convex_hull(square, backend="cuda")
    has_cuda = True
except wagener.UnsupportedError:
    has_cuda = False
except wagener.CudaError:  # built with CUDA, no device here
    has_cuda = True
assert has_cuda == (cuda == "ON"), f"CUDA backend in the module: {has_cuda}, built with CUDA {cuda}"
print(f"ok: {wagener.__file__}, version {version}, CUDA backend {has_cuda}")
EOF
  )
}

echo "== the wheel in a fresh venv"
"$python" -m venv --system-site-packages "$work/venv-wheel"
"$work/venv-wheel/bin/python" -m pip install -q --no-index "$wheel"
check "$work/venv-wheel"

echo "== python3 -m pip install --no-build-isolation <clone> in a fresh venv"
"$python" -m venv --system-site-packages "$work/venv-pip"
(cd "$work" && "$work/venv-pip/bin/python" -m pip install -q --no-index \
  --no-build-isolation "$work/wagener" >"$work/pip-install.log" 2>&1) || { tail -n 40 "$work/pip-install.log"; exit 1; }
check "$work/venv-pip"
