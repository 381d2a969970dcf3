#!/usr/bin/env bash
# Copies the few files of PBBS's parallel quickhull that bench_cpu_floor builds (WAGENER_PBBS_DIR)
# out of a pbbsbench clone with its parlaylib submodule into DEST (default third_party/pbbs, ignored by
# git), following symbolic links, so that DEST is a small plain tree that can travel with the
# repository to a machine without network access:
#   git clone --recurse-submodules https://github.com/cmuparlay/pbbsbench.git /some/where/pbbsbench
#   bench/pbbs_tree.sh /some/where/pbbsbench            # -> third_party/pbbs
#   PBBS_DIR=third_party/pbbs bench/run_cpu_floor.sh --threads 2 --precisions f64
# The copy keeps PBBS's and ParlayLib's licences (both MIT) beside their code.
set -euo pipefail
if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: bench/pbbs_tree.sh PBBSBENCH_CLONE [DEST]" >&2
  exit 2
fi
src=$1
dest=${2:-"$(cd "$(dirname "$0")/.." && pwd)/third_party/pbbs"}
files=(LICENSE common/geometry.h common/get_time.h benchmarks/convexHull/bench/hull.h
  benchmarks/convexHull/quickHull/hull.C parlaylib/LICENSE)
for f in "${files[@]}" parlaylib/include/parlay/primitives.h; do
  if [[ ! -e "$src/$f" ]]; then
    echo "pbbs_tree.sh: $src/$f is missing (a pbbsbench clone with its parlaylib submodule?)" >&2
    exit 2
  fi
done
rm -rf "$dest"
mkdir -p "$dest"
for f in "${files[@]}"; do
  mkdir -p "$dest/$(dirname "$f")"
  cp -L "$src/$f" "$dest/$f"
done
mkdir -p "$dest/parlaylib"
cp -RL "$src/parlaylib/include" "$dest/parlaylib/include"
git -C "$src" rev-parse HEAD >"$dest/PBBSBENCH_COMMIT" 2>/dev/null || echo unknown >"$dest/PBBSBENCH_COMMIT"
git -C "$src/parlaylib" rev-parse HEAD >"$dest/PARLAYLIB_COMMIT" 2>/dev/null ||
  echo unknown >"$dest/PARLAYLIB_COMMIT"
echo "$dest: $(du -sh "$dest" | cut -f1), $(find "$dest" -type f | wc -l) files"
