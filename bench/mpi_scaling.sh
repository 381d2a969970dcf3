#!/usr/bin/env bash
# Strong and weak scaling of wagener-mpi against wagener hull, as whole processes from a file in the
# page cache. Prints a markdown table of medians (wall time of the whole command, mpirun included;
# and the phases wagener-mpi's --stats reports on rank 0).
# Usage: bench/mpi_scaling.sh BUILD_DIR [N...]           (default N: 10000000 100000000)
# Environment: BACKEND (cpu), PRECISION (double), FORMAT (f64), RUNS (5), RANKS ("1 2"), DIR (a folder
# for the generated files; default BUILD_DIR/bench-mpi), DISTRIBUTION (disk).
#   strong: the same N points on 1 and on K ranks;
#   weak:   N/K points a rank (a file of N/K * K points on K ranks; N/K on 1 rank).
set -euo pipefail
build=${1:?usage: mpi_scaling.sh BUILD_DIR [N...]}
shift
sizes=("$@")
[ $# -gt 0 ] || sizes=(10000000 100000000)
backend=${BACKEND:-cpu}
precision=${PRECISION:-double}
format=${FORMAT:-f64}
runs=${RUNS:-5}
ranks=${RANKS:-1 2}
distribution=${DISTRIBUTION:-disk}
dir=${DIR:-$build/bench-mpi}
mkdir -p "$dir"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none

# The median of numbers on standard input; "-" for none (wagener hull has no per-rank phases).
median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "-"; else print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }

file_of() {  # file_of N: generates it once
  local f="$dir/$distribution-$1.$format"
  [ -s "$f" ] || "$build/wagener" generate --distribution "$distribution" -n "$1" --format "$format" -o "$f" >&2
  cat "$f" >/dev/null  # into the page cache
  echo "$f"
}

# stat_of FIELD STATS_FILE: the number after a --stats label
stat_of() { awk -v label="$1" 'index($0, label) == 1 {for (i = 1; i <= NF; ++i) if ($i ~ /^[0-9.]+$/) {print $i; exit}}' "$2"; }

# measure LABEL N FILE K|-: medians of RUNS runs; K "-" is wagener hull in one process
measure() {
  local label=$1 n=$2 file=$3 k=$4 wall=() read=() local_=() receive=() merge=() total=()
  for ((i = 0; i < runs; ++i)); do
    local start end
    start=$(date +%s.%N)
    if [ "$k" = "-" ]; then
      "$build/wagener" hull "$file" --backend "$backend" --precision "$precision" --stats -o "$dir/hull.txt" 2>"$dir/stats"
    else
      mpirun --oversubscribe --bind-to none -np "$k" "$build/wagener-mpi" hull "$file" --backend "$backend" \
        --precision "$precision" --stats -o "$dir/hull.txt" 2>"$dir/stats"
    fi
    end=$(date +%s.%N)
    wall+=("$(awk -v a="$start" -v b="$end" 'BEGIN {print (b - a) * 1000}')")
    read+=("$(stat_of 'read (slowest)' "$dir/stats")")
    local_+=("$(stat_of 'local hulls' "$dir/stats")")
    receive+=("$(stat_of 'merge receive' "$dir/stats")")
    merge+=("$(stat_of 'merge   ' "$dir/stats")")
    total+=("$(stat_of 'total' "$dir/stats")")
  done
  printf '| %s | %s | %s | %.0f | %s | %s | %s | %s | %s |\n' "$label" "$n" "$k" \
    "$(printf '%s\n' "${wall[@]}" | median)" "$(printf '%s\n' "${total[@]}" | grep . | median)" \
    "$(printf '%s\n' "${read[@]}" | grep . | median)" "$(printf '%s\n' "${local_[@]}" | grep . | median)" \
    "$(printf '%s\n' "${receive[@]}" | grep . | median)" "$(printf '%s\n' "${merge[@]}" | grep . | median)"
}

echo "| run | points | ranks | whole command ms | rank 0 total ms | read ms (slowest) | local hulls ms (slowest) | receive ms | merge ms |"
echo "|---|---|---|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
  file=$(file_of "$n")
  measure "wagener hull (one process)" "$n" "$file" -
  for k in $ranks; do measure "strong" "$n" "$file" "$k"; done
  for k in $ranks; do
    [ "$k" -gt 1 ] || continue
    small=$(file_of $((n / k)))
    measure "weak: $((n / k)) a rank, 1 rank" "$((n / k))" "$small" 1
    measure "weak: $((n / k)) a rank, $k ranks" "$n" "$file" "$k"
  done
done
