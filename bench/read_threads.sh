#!/usr/bin/env bash
# Cold reads of one binary file by `wagener hull` with 1 to 32 reads in flight (WAGENER_READ_THREADS)
# of BLOCKS MiB each (WAGENER_READ_BLOCK_MIB; default "16"), against `dd bs=64M` of the same file, the page cache dropped before every run (root). Median of
# RUNS runs (default 3); the hull of every run is compared with the first.
#
#   bench/read_threads.sh WAGENER FILE [THREADS...]     (default threads: 1 2 4 8 16 32)
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: bench/read_threads.sh WAGENER FILE [THREADS...]" >&2; exit 2; }
wagener=$1 file=$2
shift 2
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 2 4 8 16 32)
runs=${RUNS:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

drop() { sync; echo 3 >/proc/sys/vm/drop_caches; "$wagener" --version >/dev/null; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
seconds() {  # seconds COMMAND...: wall seconds of one cold run
  drop
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f\n", b - a}'
}

echo "$(basename "$file"): $(du -h --apparent-size "$file" | cut -f1), $(nproc) cores, median of $runs cold runs"
echo "| reader | seconds |"
echo "|---|---|"
echo "| dd bs=64M | $(for r in $(seq "$runs"); do seconds dd if="$file" of=/dev/null bs=64M; done | median) |"
"$wagener" hull "$file" --backend cpu -o "$out/first.txt"
for block in ${BLOCKS:-16}; do
  for t in "${threads[@]}"; do
    times=$(for r in $(seq "$runs"); do
      seconds env WAGENER_READ_THREADS="$t" WAGENER_READ_BLOCK_MIB="$block" "$wagener" hull "$file" --backend cpu \
        -o "$out/hull.txt"
      cmp -s "$out/first.txt" "$out/hull.txt" || { echo "read_threads: the hull with $t reads differs" >&2; exit 1; }
    done | median)
    echo "| wagener, $t reads of $block MiB in flight | $times |"
  done
done
