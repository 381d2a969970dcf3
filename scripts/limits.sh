#!/usr/bin/env bash
# The size limits, run as whole commands and checked: 10^8 identical points, 10^8-vertex outputs
# (a circle; a parabola's presorted upper hull), a text file over 4 GB (its hull equals the binary
# file's; a bad line after 4 GB is named by its number), and with --huge 2^31 + 1000 points
# (32-bit index overflow; float, 16 GB). Prints one markdown row per run: wall and CPU time, peak
# memory, exit code and message; then each check.
# Usage: scripts/limits.sh [--huge] [--backends "cpu cuda"] SCRATCH_DIR   (needs ~30 GB there, 64 GB with --huge)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
huge=0
backends="cpu"
while [ $# -gt 1 ]; do
  case "$1" in
    --huge) huge=1; shift ;;
    --backends) backends=$2; shift 2 ;;
    *) break ;;
  esac
done
scratch=${1:?usage: scripts/limits.sh [--huge] [--backends \"cpu cuda\"] SCRATCH_DIR}
mkdir -p "$scratch"
bin=${WAGENER:-$root/build/wagener}
[ -x "$bin" ] || { echo "limits: $bin not built (scripts/build.sh)" >&2; exit 1; }
failures=0

# run CASE BACKEND CHECK-DESCRIPTION COMMAND...: times COMMAND (stdout to $scratch/out), prints a row.
run() {
  local name=$1 backend=$2
  shift 2
  local code=0
  /usr/bin/time -f "%e %U %S %M" -o "$scratch/time" "$@" >"$scratch/out" 2>"$scratch/err" || code=$?
  # The last line: time puts "Command exited with non-zero status N" before it.
  read -r seconds user system kb < <(tail -n 1 "$scratch/time")
  printf '| %s | %s | %s s | %s s | %d MB | exit %d | %s |\n' "$name" "$backend" "$seconds" \
    "$(awk -v u="$user" -v s="$system" 'BEGIN { print u + s }')" $((kb / 1024)) "$code" "$(head -c 200 "$scratch/err" | tr '\n' ' ')"
  return $code
}
check() {  # check DESCRIPTION CONDITION...
  local what=$1
  shift
  if "$@"; then echo "  ok: $what"; else echo "  FAILED: $what"; failures=$((failures + 1)); fi
}

echo "| case | backend | wall | CPU (user+sys) | peak memory | exit | stderr |"
echo "|---|---|---|---|---|---|---|"

# 10^8 identical points: the hull is that one point.
/usr/bin/python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<2d', 1.5, -2.5) * 10**8)" \
  >"$scratch/same.f64"
for b in $backends; do
  run "10^8 identical points (f64)" "$b" "$bin" hull "$scratch/same.f64" --backend "$b" -o "$scratch/same.hull" || true
  check "the hull is the one point" [ "$(cat "$scratch/same.hull" 2>/dev/null)" = "1.5 -2.5" ]
done

# A 10^8-vertex output: a circle's full hull, and a parabola's presorted upper hull.
"$bin" generate --distribution circle -n 100000000 --format f64 -o "$scratch/circle.f64"
"$bin" generate --distribution parabola -n 100000000 --format f64 -o "$scratch/parabola.f64"
for b in $backends; do
  run "10^8 circle points, full hull to a file" "$b" \
    "$bin" hull "$scratch/circle.f64" --backend "$b" -o "$scratch/circle.$b.txt" || true
  echo "  vertices: $(wc -l <"$scratch/circle.$b.txt")"
  run "10^8 parabola points, --upper --presorted to a file" "$b" \
    "$bin" hull "$scratch/parabola.f64" --upper --presorted --backend "$b" -o "$scratch/parabola.$b.txt" || true
  echo "  vertices: $(wc -l <"$scratch/parabola.$b.txt")"
done
set -- $backends
if [ $# -gt 1 ]; then
  check "circle: $1 and $2 agree" cmp -s "$scratch/circle.$1.txt" "$scratch/circle.$2.txt"
  check "parabola: $1 and $2 agree" cmp -s "$scratch/parabola.$1.txt" "$scratch/parabola.$2.txt"
fi
rm -f "$scratch"/circle.* "$scratch"/parabola.* "$scratch/same.f64"

# A text file over 4 GB (1.2 * 10^8 disk points, about 4.5 GB): the same hull as the same points in
# binary, and a bad line at its end named by its number.
n=120000000
"$bin" generate --distribution disk -n $n --seed 7 --format text -o "$scratch/big.txt"
"$bin" generate --distribution disk -n $n --seed 7 --format f64 -o "$scratch/big.f64"
echo "  text file: $(stat -c %s "$scratch/big.txt") bytes"
run "1.2*10^8 points, text file over 4 GB" cpu "$bin" hull "$scratch/big.txt" --backend cpu -o "$scratch/big.txt.hull" || true
"$bin" hull "$scratch/big.f64" --backend cpu -o "$scratch/big.f64.hull"
check "the text file's hull equals the binary file's" cmp -s "$scratch/big.txt.hull" "$scratch/big.f64.hull"
echo "0.5 nan" >>"$scratch/big.txt"
run "the same with a bad last line" cpu "$bin" hull "$scratch/big.txt" --backend cpu || true
check "exit 2 naming line $((n + 1))" grep -q ":$((n + 1)):" "$scratch/err"
rm -f "$scratch"/big.*

if [ $huge -eq 1 ]; then
  # 2^31 + 1000 float points: every index type past 32 bits.
  n=$(((1 << 31) + 1000))
  "$bin" generate --distribution disk -n $n --format f32 -o "$scratch/huge.f32"
  for b in $backends; do
    run "2^31+1000 disk points (f32)" "$b" "$bin" hull "$scratch/huge.f32" --precision float --backend "$b" \
      --indices -o "$scratch/huge.$b.txt" || true
  done
  set -- $backends
  [ $# -gt 1 ] && check "2^31+1000: $1 and $2 give the same vertex indices" \
    cmp -s "$scratch/huge.$1.txt" "$scratch/huge.$2.txt"
  check "every vertex index is below n (no wrapped 32-bit index)" \
    awk -v n=$n '$1 >= n { bad = 1 } END { exit bad }' "$scratch/huge.${1}.txt"
  rm -f "$scratch"/huge.*
fi
echo "limits: $failures check(s) failed"
[ $failures -eq 0 ]
