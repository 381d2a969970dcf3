#!/usr/bin/env bash
# End-to-end tests of pictures and traces: SVG is well-formed (xmllint) and rasterises (rsvg-convert)
# with the hull's edges where they belong; PostScript renders through Ghostscript with the same
# geometry; traces are written in both layouts; a million points render quickly into a small file.
# Usage: test_render.sh PATH/TO/wagener. Exits 77 (reported as skipped) when a tool is missing.
set -uo pipefail
bin=${1:?usage: test_render.sh WAGENER_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
for tool in xmllint rsvg-convert gs python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIPPED: $tool is missing (scripts/setup.sh installs it)"
    exit 77
  fi
done
source "$(dirname "$0")/../end_to_end.sh"

# check_picture NAME SVG PNG BBOX... CHECKS...: the hull's edges are red where the data says.
check_pixels() { python3 "$here/pixels.py" "$@"; }

# --- a triangle with interior points: where the edges must be, and where nothing is -------------
printf '0 0\n10 0\n0 10\n2 2\n3 1\n1 4\n' >"$dir/tri.txt"
"$bin" render "$dir/tri.txt" -o "$dir/tri.svg" || fail "render triangle"
xmllint --noout "$dir/tri.svg" && pass || fail "triangle SVG is not well-formed"
rsvg-convert "$dir/tri.svg" -o "$dir/tri.png" && pass || fail "rsvg-convert triangle"
# Edges: the legs' midpoints and the hypotenuse's; background beyond the hypotenuse and outside.
checks=(red:5,0 red:0,5 red:5,5 red:2.5,7.5 white:8,8 white:6.5,6.5 white:10,10 white:-0.3,10.3)
check_pixels "$dir/tri.svg" "$dir/tri.png" 0 0 10 10 "${checks[@]}" && pass || fail "triangle SVG pixels"

"$bin" render "$dir/tri.txt" -o "$dir/tri.ps" || fail "render triangle as PostScript"
head -c 4 "$dir/tri.ps" | grep -q '%!PS' && pass || fail "PostScript header"
gs -q -dSAFER -dBATCH -dNOPAUSE -sDEVICE=png16m -r72 -sOutputFile="$dir/tri-ps.png" "$dir/tri.ps" &&
  [ -s "$dir/tri-ps.png" ] && pass || fail "Ghostscript cannot render the PostScript"
check_pixels "$dir/tri.svg" "$dir/tri-ps.png" 0 0 10 10 "${checks[@]}" && pass || fail "triangle PostScript pixels"

# --- hull --svg/--ps write the same pictures beside the hull ---------------------------------------
"$bin" hull "$dir/tri.txt" --svg "$dir/h.svg" --ps "$dir/h.ps" >"$dir/hull.txt" || fail "hull --svg --ps"
[ "$(wc -l <"$dir/hull.txt")" -eq 3 ] && xmllint --noout "$dir/h.svg" && grep -q showpage "$dir/h.ps" && pass ||
  fail "hull --svg --ps outputs"

# --- an upper hull and a non-square range ------------------------------------------------------------
"$bin" generate --distribution parabola -n 2000 -o "$dir/par.txt"
"$bin" render "$dir/par.txt" --upper -o "$dir/par.svg" && xmllint --noout "$dir/par.svg" &&
  rsvg-convert "$dir/par.svg" -o "$dir/par.png" && pass || fail "upper hull picture"
check_pixels "$dir/par.svg" "$dir/par.png" -1 -1 1 0 red:0,0 red:0.5,-0.25 white:0,-0.5 && pass ||
  fail "parabola pixels"

# --- traces: both layouts, drawn as small multiples ---------------------------------------------------
printf '0 0\n1 2\n2 1\n3 3\n4 0\n5 2\n6 1\n7 4\n' >"$dir/eight.txt"
"$bin" hull "$dir/eight.txt" --trace "$dir/t.txt" --trace-format text >/dev/null &&
  "$bin" hull "$dir/eight.txt" --trace "$dir/t.json" >/dev/null || fail "hull --trace"
[ "$(tail -1 "$dir/t.txt")" = "0" ] && [ "$(grep -c '^# chain' "$dir/t.txt")" -eq 8 ] && pass ||
  fail "text trace layout: $(head -3 "$dir/t.txt")"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert len(d["rounds"]) == 8' "$dir/t.json" &&
  pass || fail "JSON trace does not parse"
"$bin" render "$dir/eight.txt" --trace -o "$dir/rounds.svg" && xmllint --noout "$dir/rounds.svg" &&
  rsvg-convert "$dir/rounds.svg" -o "$dir/rounds.png" && pass || fail "rounds picture"
grep -q 'id="round-upper-3"' "$dir/rounds.svg" && grep -q 'id="round-lower-3"' "$dir/rounds.svg" && pass ||
  fail "rounds picture lacks its panels"
"$bin" render "$dir/eight.txt" --trace -o "$dir/rounds.ps" &&
  gs -q -dSAFER -dBATCH -dNOPAUSE -sDEVICE=png16m -r72 -sOutputFile="$dir/rounds-ps.png" "$dir/rounds.ps" &&
  pass || fail "rounds as PostScript"

# Usage errors: exit 2 with one line.
"$bin" hull "$dir/eight.txt" --trace "$dir/x.txt" --backend cpu >/dev/null 2>"$dir/err"
[ $? -eq 2 ] && [ "$(wc -l <"$dir/err")" -eq 1 ] && pass || fail "--trace with the cpu backend: $(cat "$dir/err")"
"$bin" generate -n 5000 -o "$dir/5000.txt"
"$bin" render "$dir/5000.txt" --trace -o "$dir/x.svg" 2>"$dir/err"
[ $? -eq 2 ] && [ "$(wc -l <"$dir/err")" -eq 1 ] && [ ! -e "$dir/x.svg" ] && pass ||
  fail "render --trace beyond 4096 points: $(cat "$dir/err")"

# --- a million points: a density raster, quick, small --------------------------------------------------
"$bin" generate --distribution disk -n 1000000 --format f64 -o "$dir/disk.f64"
start=$(date +%s%N)
"$bin" render "$dir/disk.f64" --backend cpu -o "$dir/disk.svg" || fail "render a million points"
ms=$((($(date +%s%N) - start) / 1000000))
echo "rendered 10^6 points in $ms ms, $(stat -c %s "$dir/disk.svg") bytes"
[ "$ms" -lt 5000 ] && [ "$(stat -c %s "$dir/disk.svg")" -lt 1000000 ] && pass || fail "a million points took $ms ms"
xmllint --noout "$dir/disk.svg" && rsvg-convert "$dir/disk.svg" -o "$dir/disk.png" && pass || fail "disk SVG"
check_pixels "$dir/disk.svg" "$dir/disk.png" -1 -1 1 1 red:1,0 red:0,1 red:-1,0 red:0,-1 white:0.9,0.9 &&
  pass || fail "disk pixels"
grep -q '<image' "$dir/disk.svg" && pass || fail "a million points should be a density raster"

report
