#!/usr/bin/env bash
# End-to-end tests of the wagener command line: real files in, exit codes, messages and output out.
# Usage: test_cli.sh PATH/TO/wagener
set -uo pipefail
bin=${1:?usage: test_cli.sh WAGENER_BINARY}
source "$(dirname "$0")/../end_to_end.sh"

# expect_input_error NAME FILE_CONTENT_CMD EXPECTED_MESSAGE_REGEX [hull args...]
# Runs `wagener hull FILE args`, expects exit 2, one stderr line matching the regex, empty stdout.
expect_input_error() {
  local name=$1 file=$2 regex=$3
  shift 3
  "$bin" hull "$file" "$@" >"$dir/out" 2>"$dir/err"
  local code=$?
  if [ $code -ne 2 ]; then fail "$name: exit $code, expected 2 ($(cat "$dir/err"))"; return; fi
  if [ -s "$dir/out" ]; then fail "$name: printed a hull after an error"; return; fi
  if [ "$(wc -l <"$dir/err")" -ne 1 ]; then fail "$name: expected one message line, got: $(cat "$dir/err")"; return; fi
  if ! grep -Eq -- "$regex" "$dir/err"; then fail "$name: message '$(cat "$dir/err")' does not match '$regex'"; return; fi
  pass
}

# --- correct answers -----------------------------------------------------------------------------
printf '5\n0 0\n2 0\n1 1\n2 2\n0 2\n' >"$dir/square.txt"  # the seed's format: count, then pairs
for backend in cpu pram; do
  out=$("$bin" hull "$dir/square.txt" --backend "$backend")
  [ "$out" = $'0 0\n2 0\n2 2\n0 2' ] && pass || fail "square ($backend): got '$out'"
  up=$("$bin" hull "$dir/square.txt" --upper --backend "$backend")
  [ "$up" = $'0 0\n0 2\n2 2' ] && pass || fail "square --upper ($backend): got '$up'"
done

printf 'x,y\n0,0\n1,-1\n3,0\n1,0.5\n' >"$dir/pts.csv"
out=$("$bin" hull "$dir/pts.csv" --backend cpu)
[ "$out" = $'0 0\n1 -1\n3 0\n1 0.5' ] && pass || fail "csv with header: got '$out'"

out=$(printf '0 0\n1 1\n2 2\n' | "$bin" hull - --backend pram)
[ "$out" = $'0 0\n2 2' ] && pass || fail "collinear from stdin: got '$out'"

# Shortest round-trip decimal output.
out=$(printf '0.1 0.2\n1e-300 3\n' | "$bin" hull --backend cpu)
[ "$out" = $'1e-300 3\n0.1 0.2' ] && pass || fail "round-trip printing: got '$out'"

# Backends and precisions agree on a generated set; binary formats give the same hull as text.
"$bin" generate --distribution gaussian -n 20000 --seed 7 -o "$dir/g.txt" || fail "generate text"
"$bin" generate --distribution gaussian -n 20000 --seed 7 --format f64 -o "$dir/g.f64" || fail "generate f64"
a=$("$bin" hull "$dir/g.txt" --backend cpu)
b=$("$bin" hull "$dir/g.txt" --backend pram)
c=$("$bin" hull "$dir/g.f64" --backend cpu)
[ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" = "$c" ] && pass || fail "cpu, pram and f64 input disagree"
"$bin" generate --distribution parabola -n 3000 --seed 3 --format f32 -o "$dir/p.f32" || fail "generate f32"
a=$("$bin" hull "$dir/p.f32" --precision float --upper --presorted --backend cpu)
b=$("$bin" hull "$dir/p.f32" --precision float --upper --presorted --backend pram)
[ "$(echo "$a" | wc -l)" -gt 1000 ] && [ "$a" = "$b" ] && pass || fail "f32 parabola upper hull"
# A .f32 file read at the default double precision (hulled as floats where they lie, the vertices
# widened) prints what the same values give as a .f64 file, byte for byte: coordinates, indices,
# upper hull, csv; a random disk (the filter runs) and a circle (every point on the hull).
"$bin" generate --distribution disk -n 200000 --seed 11 --format f32 -o "$dir/d.f32" || fail "generate f32 disk"
"$bin" generate --distribution circle -n 50000 --seed 12 --format f32 -o "$dir/c.f32" || fail "generate f32 circle"
for name in d c; do
  python3 -c "import struct,sys; b=open(sys.argv[1],'rb').read(); v=struct.unpack('<%df' % (len(b)//4), b); open(sys.argv[2],'wb').write(struct.pack('<%dd' % len(v), *v))" \
    "$dir/$name.f32" "$dir/$name.f64"
  for args in "" "--indices" "--upper" "--output-format csv"; do
    # shellcheck disable=SC2086  # args is a list of flags
    a=$("$bin" hull "$dir/$name.f32" $args)
    # shellcheck disable=SC2086
    b=$("$bin" hull "$dir/$name.f64" $args)
    [ "$(echo "$a" | wc -l)" -gt 10 ] && [ "$a" = "$b" ] && pass || fail "$name.f32 at double precision differs from $name.f64 ($args)"
  done
done

# The optimal-work merge of the emulator gives the same hulls, and less work than the seed's on a
# full hood; a trace (the seed's rounds) refuses it with a usage error.
a=$("$bin" hull "$dir/g.txt" --backend cpu)
b=$("$bin" hull "$dir/g.txt" --backend pram --pram-merge optimal)
[ -n "$b" ] && [ "$a" = "$b" ] && pass || fail "--pram-merge optimal disagrees with cpu on a gaussian's full hull"
a=$("$bin" hull "$dir/p.f32" --precision float --upper --presorted --backend cpu)
b=$("$bin" hull "$dir/p.f32" --precision float --upper --presorted --backend pram --pram-merge optimal)
[ "$a" = "$b" ] && pass || fail "--pram-merge optimal: f32 parabola upper hull"
work() { "$bin" hull "$dir/p.f32" --precision float --upper --presorted --backend pram --stats "$@" 2>&1 >/dev/null |
  sed -n 's/.*total work *\([0-9]*\).*/\1/p'; }
seed_work=$(work --pram-merge seed)
optimal_work=$(work --pram-merge optimal)
[ -n "$seed_work" ] && [ -n "$optimal_work" ] && [ "$optimal_work" -lt "$seed_work" ] && pass ||
  fail "--pram-merge optimal: work $optimal_work, seed $seed_work"
"$bin" hull "$dir/square.txt" --backend pram --pram-merge optimal --trace "$dir/t.txt" >/dev/null 2>"$dir/err"
[ $? -eq 2 ] && grep -q "seed" "$dir/err" && pass || fail "--trace with --pram-merge optimal should exit 2"
"$bin" hull "$dir/square.txt" --pram-merge fastest >/dev/null 2>&1
[ $? -eq 2 ] && pass || fail "unknown --pram-merge should exit 2"

# --output writes the file; --stats reports PRAM counters on stderr.
"$bin" hull "$dir/g.txt" --backend pram --stats -o "$dir/hull.txt" 2>"$dir/stats" >"$dir/stdout"
[ -s "$dir/hull.txt" ] && [ ! -s "$dir/stdout" ] && pass || fail "--output"
grep -q "pram rounds" "$dir/stats" && grep -q "total work" "$dir/stats" && pass || fail "--stats: $(cat "$dir/stats")"

# --trace FILE.html: the rounds page (tests/browser/ loads it in a browser), the hull unchanged; the
# same refusals as the other trace formats, leaving no file.
out=$("$bin" hull "$dir/g.txt" --backend pram --trace "$dir/rounds.html")
[ "$out" = "$("$bin" hull "$dir/g.txt" --backend cpu)" ] && pass || fail "--trace x.html changed the hull"
head -1 "$dir/rounds.html" | grep -q '^<!DOCTYPE html>' && grep -q 'id="wagener-rounds"' "$dir/rounds.html" &&
  ! grep -Eq '(src|href)=|https?:' "$dir/rounds.html" && pass || fail "--trace x.html: not a self-contained page"
rounds_in_page=$(grep -o '"chain":"[a-z]*","round":[0-9]*' "$dir/rounds.html" | wc -l)
"$bin" hull "$dir/g.txt" --backend pram --trace "$dir/rounds.txt" >/dev/null
[ "$rounds_in_page" -gt 2 ] && [ "$rounds_in_page" -eq "$(grep -c '^# chain' "$dir/rounds.txt")" ] && pass ||
  fail "--trace x.html: $rounds_in_page rounds, the text trace has $(grep -c '^# chain' "$dir/rounds.txt")"
"$bin" hull "$dir/g.txt" --upper --trace "$dir/rounds.out" --trace-format html >/dev/null &&
  grep -q '"closed":false' "$dir/rounds.out" && ! grep -q '"chain":"lower"' "$dir/rounds.out" && pass ||
  fail "--trace-format html --upper"
for refused in "--backend cpu" "--pram-merge optimal" "--memory-limit 8M"; do
  # shellcheck disable=SC2086
  "$bin" hull "$dir/g.txt" --trace "$dir/refused.html" --trace-format html $refused >"$dir/out" 2>"$dir/err"
  code=$?
  [ $code -eq 2 ] && [ "$(wc -l <"$dir/err")" -eq 1 ] && [ ! -s "$dir/out" ] && [ ! -e "$dir/refused.html" ] && pass ||
    fail "--trace-format html with $refused: exit $code, '$(cat "$dir/err")'"
done
"$bin" hull "$dir/g.txt" --trace "$dir/refused.html" --trace-format svg >/dev/null 2>&1
[ $? -eq 2 ] && [ ! -e "$dir/refused.html" ] && pass || fail "--trace-format svg should exit 2"
"$bin" hull "$dir/missing.txt" --trace "$dir/refused.html" >/dev/null 2>&1
[ $? -eq 2 ] && [ ! -e "$dir/refused.html" ] && pass || fail "--trace x.html of a missing file left a page"
if nvidia-smi -L >/dev/null 2>&1 &&
  ! "$bin" hull "$dir/square.txt" --backend cuda 2>&1 >/dev/null | grep -q "built without CUDA"; then
  # The cuda backend writes the identical trace, so the identical page but for its caption.
  "$bin" hull "$dir/g.txt" --backend cuda --trace "$dir/cuda.html" >/dev/null
  strip() { sed 's/"caption":"[^"]*"//' "$1"; }
  [ "$(strip "$dir/cuda.html")" = "$(strip "$dir/rounds.html")" ] && pass || fail "the cuda page differs from pram's"
fi

# --- bad input: exit 2, one line naming file and line, no hull -------------------------------------
printf '0 0\n1 nan\n' >"$dir/nan.txt"
expect_input_error nan "$dir/nan.txt" "nan.txt:2:"
printf '0 0\n1 1\ninf 2\n' >"$dir/inf.txt"
expect_input_error inf "$dir/inf.txt" "inf.txt:3:"
printf '0 0\n1 1e400\n' >"$dir/range.txt"
expect_input_error out-of-range-double "$dir/range.txt" "range.txt:2:"
printf '0 0\n1 1e39\n' >"$dir/frange.txt"
expect_input_error out-of-range-float "$dir/frange.txt" "frange.txt:2:" --precision float
printf '0 0\n1 1\n2 abc\n' >"$dir/garbage.txt"
expect_input_error garbage "$dir/garbage.txt" "garbage.txt:3:.*abc"
printf '0 0\n1 1 2\n' >"$dir/odd.txt"
expect_input_error odd-values "$dir/odd.txt" "odd.txt:2:"
printf '3\n0 0\n1 1\n' >"$dir/short.txt"
expect_input_error count-too-large "$dir/short.txt" "short.txt:[0-9]+:.*3"
printf '1\n0 0\n1 1\n' >"$dir/long.txt"
expect_input_error count-too-small "$dir/long.txt" "long.txt:[0-9]+:"
head -c 20 "$dir/g.f64" >"$dir/trunc.f64"
expect_input_error truncated-binary "$dir/trunc.f64" "trunc.f64: byte 16"
printf '0 0\n2 1\n1 5\n' >"$dir/unsorted.txt"
expect_input_error unsorted-presorted "$dir/unsorted.txt" "unsorted.txt:3:" --presorted
# The promise is checked by the hull's own pass (the cpu backend's presorted upper chain in the read
# that filters), not by the reader as well; the file is read again to name the line or byte. Points
# 1000 and 1001 of a sorted binary file swapped: point 1001 is at byte 16016.
python3 -c "import struct,sys; v=[c for i in range(300000) for c in (float(i), float(i % 7))]; v[2000:2004]=v[2002:2004]+v[2000:2002]; sys.stdout.buffer.write(struct.pack('<%dd' % len(v), *v))" >"$dir/unsorted.f64"
for args in "--backend cpu" "--backend cpu --upper" "--backend auto --upper" "--backend pram --upper"; do
  # shellcheck disable=SC2086
  expect_input_error "unsorted-f64 $args" "$dir/unsorted.f64" "unsorted.f64: byte 16016: points not sorted" --presorted $args
done
expect_input_error unsorted-presorted-upper "$dir/unsorted.txt" "unsorted.txt:3:" --presorted --upper --backend cpu
"$bin" hull - --presorted <"$dir/unsorted.txt" >"$dir/out" 2>"$dir/err"
[ $? -eq 2 ] && grep -q "<stdin>:3:" "$dir/err" && pass || fail "unsorted standard input: $(cat "$dir/err")"
for backend in cpu pram; do
  expect_input_error "nan-$backend" "$dir/nan.txt" "nan.txt:2:" --backend "$backend"
done
# Binary input is checked by the hull's own pass; the message still names the byte (point 5's y).
python3 -c "import struct,sys; v=[float(i % 7) for i in range(2 * 300000)]; v[11]=float('nan'); sys.stdout.buffer.write(struct.pack('<%dd' % len(v), *v))" >"$dir/nan.f64"
for backend in cpu auto pram; do
  expect_input_error "nan-f64-$backend" "$dir/nan.f64" "nan.f64: byte 88: non-finite" --backend "$backend"
done
expect_input_error missing-file "$dir/does-not-exist.txt" "does-not-exist.txt"

# A failed run leaves an existing --output file untouched and no temporary files behind.
echo "previous" >"$dir/keep.txt"
"$bin" hull "$dir/garbage.txt" -o "$dir/keep.txt" 2>/dev/null
[ "$(cat "$dir/keep.txt")" = "previous" ] && pass || fail "--output clobbered on error"
[ "$(ls "$dir" | grep -c '\.tmp')" -eq 0 ] && pass || fail "temporary files left behind"

# Usage errors and help.
"$bin" hull "$dir/square.txt" --backend gpu >/dev/null 2>&1
[ $? -eq 2 ] && pass || fail "unknown backend should exit 2"
# Captured first: `| grep -q` stops reading at the first match, and with pipefail the writer's
# SIGPIPE would fail the check whenever the writer is slower (a sanitizer build).
"$bin" --help >/dev/null && "$bin" hull --help >"$dir/help.txt" && grep -q -- "--presorted" "$dir/help.txt" &&
  pass || fail "--help"
"$bin" --version >"$dir/version.txt" && grep -q "wagener" "$dir/version.txt" && pass || fail "--version"

# --- the upper hull of unsorted input, indices, output formats ---------------------------------
"$bin" generate --distribution disk -n 50000 --seed 11 -o "$dir/d.txt" || fail "generate disk"
up_cpu=$("$bin" hull "$dir/d.txt" --upper --backend cpu)
up_pram=$("$bin" hull "$dir/d.txt" --upper --backend pram)   # sorts, then Wagener's rounds
[ -n "$up_cpu" ] && [ "$up_cpu" = "$up_pram" ] && pass || fail "--upper of unsorted input: cpu and pram differ"
sort -g -k1,1 -k2,2 "$dir/d.txt" >"$dir/d-sorted.txt"
up_sorted=$("$bin" hull "$dir/d-sorted.txt" --upper --presorted --backend cpu)
[ "$up_cpu" = "$up_sorted" ] && pass || fail "--upper of unsorted input differs from --upper --presorted"

# --indices: line i+1 of an "x y" file is point i; the indices name the printed vertices, in order.
for flags in "" "--upper"; do
  # shellcheck disable=SC2086  # flags is a list
  "$bin" hull "$dir/d.txt" $flags >"$dir/coords" && "$bin" hull "$dir/d.txt" $flags --indices >"$dir/idx" ||
    fail "--indices $flags: exit $?"
  awk 'NR == FNR { want[NR] = $1; next } { line[FNR] = $0 } END {
         for (i = 1; i in want; i++) print line[want[i] + 1] }' "$dir/idx" "$dir/d.txt" >"$dir/by-index"
  [ -s "$dir/idx" ] && cmp -s "$dir/by-index" "$dir/coords" && pass || fail "--indices $flags disagree with the coordinates"
done

# Every output format: binary and csv read back to the same hull; json, geojson and wkt parse and
# hold the same numbers.
"$bin" hull "$dir/d.txt" >"$dir/h.txt"
for fmt in csv f64; do
  "$bin" hull "$dir/d.txt" -o "$dir/h.$fmt" || fail "-o h.$fmt"
  back=$("$bin" hull "$dir/h.$fmt" --backend cpu)
  [ "$back" = "$(cat "$dir/h.txt")" ] && pass || fail "$fmt output does not read back to the hull"
done
"$bin" hull "$dir/d.txt" --precision float --output-format f32 >"$dir/hf.f32" || fail "--output-format f32"
[ "$("$bin" hull "$dir/hf.f32" --precision float)" = "$("$bin" hull "$dir/d.txt" --precision float)" ] &&
  pass || fail "f32 output does not read back to the hull"
for fmt in json geojson wkt; do
  "$bin" hull "$dir/d.txt" --output-format "$fmt" >"$dir/h.$fmt" || fail "--output-format $fmt"
  python3 - "$fmt" "$dir/h.$fmt" "$dir/h.txt" <<'PY' && pass || fail "$fmt output"
import json, re, sys
fmt, path, text = sys.argv[1:]
want = [tuple(map(float, line.split())) for line in open(text)]
raw = open(path).read()
if fmt == "json":
    got = [tuple(p) for p in json.loads(raw)]
elif fmt == "geojson":
    feature = json.loads(raw)
    ring = feature["geometry"]["coordinates"][0]
    assert feature["geometry"]["type"] == "Polygon" and ring[0] == ring[-1], raw[:200]
    got = [tuple(p) for p in ring[:-1]]
else:
    assert raw.startswith("POLYGON (("), raw[:50]
    pairs = re.findall(r"([-+0-9.eE]+) ([-+0-9.eE]+)", raw)
    got = [(float(x), float(y)) for x, y in pairs][:-1]
sys.exit(0 if got == want else f"{fmt}: {got[:3]} ... != {want[:3]} ...")
PY
done
"$bin" hull "$dir/d.txt" --indices --output-format wkt >/dev/null 2>&1
[ $? -eq 2 ] && pass || fail "--indices with wkt should be a usage error"

# --- reading: a byte-order mark, csv with more columns -----------------------------------------
printf '\xef\xbb\xbfx,y\n0,0\n2,0\n1,1\n2,2\n0,2\n' >"$dir/bom.csv"
[ "$("$bin" hull "$dir/bom.csv")" = $'0 0\n2 0\n2 2\n0 2' ] && pass || fail "csv with a byte-order mark"
printf 'id,lon,lat,name\n1,0,0,"a, b"\n2,2,0,c\n3,1,1,d\n4,2,2,e\n5,0,2,f\n' >"$dir/wide.csv"
[ "$("$bin" hull "$dir/wide.csv" --columns lon,lat)" = $'0 0\n2 0\n2 2\n0 2' ] && pass || fail "--columns by name"
[ "$("$bin" hull "$dir/wide.csv" --columns 1,2)" = $'0 0\n2 0\n2 2\n0 2' ] && pass || fail "--columns by index"
expect_input_error unknown-column "$dir/wide.csv" "wide.csv:1:.*height" --columns lon,height
expect_input_error wide-without-columns "$dir/wide.csv" "wide.csv:1:.*--columns"
"$bin" hull "$dir/wide.csv" --columns lon >/dev/null 2>&1
[ $? -eq 2 ] && pass || fail "--columns with one name should be a usage error"

# --- grouped hulls: --group-by ---------------------------------------------------------------------
# expected_groups CSV COLUMN_OF_ID [hull args]: each group's hull from a single-hull run on its rows
# alone, as "id,x,y" rows, groups in the order of their first rows (ids hold no comma or quote).
expected_groups() {
  local file=$1 col=$2
  shift 2
  local id
  for id in $(awk -F, -v c="$col" 'NR > 1 && !seen[$c]++ { print $c }' "$file"); do
    awk -F, -v c="$col" -v id="$id" 'NR == 1 { print "x,y" } NR > 1 && $c == id { print $2 "," $3 }' "$file" \
      >"$dir/one.csv"
    "$bin" hull "$dir/one.csv" --output-format csv "$@" | tail -n +2 | sed "s/^/$id,/"
  done
}
"$bin" generate --distribution gaussian -n 4000 --seed "$RANDOM" -o "$dir/gg.txt" || fail "generate for groups"
# 37 groups of ids "t0".."t36", interleaved, plus a group of collinear points, one of one point
# repeated, and integer ids.
awk 'BEGIN { print "track,x,y" } { print "t" (NR % 37) "," $1 "," $2 }
     END { for (i = 0; i < 9; ++i) print "line," i "," 2 * i; for (i = 0; i < 3; ++i) print "7,1.5,-2" }' \
  "$dir/gg.txt" >"$dir/groups.csv"
for args in "" "--upper" "--precision float" "--backend pram"; do
  # shellcheck disable=SC2086
  got=$("$bin" hull "$dir/groups.csv" --group-by track $args)
  # shellcheck disable=SC2086
  want=$(printf 'track,x,y\n'; expected_groups "$dir/groups.csv" 1 $args)
  [ -n "$got" ] && [ "$got" = "$want" ] && pass || fail "--group-by with '$args' differs from single-hull runs"
done
# One group; the id column by index and after x and y; -o writes atomically; text and json.
awk -F, 'NR == 1 { print "x,y,id" } NR > 1 { print $2 "," $3 ",only" }' "$dir/groups.csv" >"$dir/one_group.csv"
"$bin" hull "$dir/one_group.csv" --group-by 2 -o "$dir/one_hull.csv" || fail "--group-by -o"
want=$(printf 'id,x,y\n'; "$bin" hull "$dir/one_group.csv" --output-format csv | tail -n +2 | sed 's/^/only,/')
[ "$(cat "$dir/one_hull.csv")" = "$want" ] && pass || fail "one group: '$(head -3 "$dir/one_hull.csv")'"
got=$("$bin" hull "$dir/one_group.csv" --group-by id --output-format text)
[ "$got" = "$(echo "$want" | tail -n +2 | tr , ' ')" ] && pass || fail "--group-by text output"
if /usr/bin/python3 -c 'import json' 2>/dev/null; then
  "$bin" hull "$dir/groups.csv" --group-by track --output-format json >"$dir/groups.json"
  "$bin" hull "$dir/groups.csv" --group-by track >"$dir/groups_out.csv"
  /usr/bin/python3 - "$dir/groups.json" "$dir/groups_out.csv" <<'PY' && pass || fail "--group-by json differs from csv"
import csv, json, sys
groups = json.load(open(sys.argv[1]))
rows = list(csv.reader(open(sys.argv[2])))[1:]
flat = [(k, float(x), float(y)) for k, hull in groups.items() for x, y in hull]
assert flat == [(r[0], float(r[1]), float(r[2])) for r in rows], "json and csv disagree"
PY
fi
# Quoted ids, ids with commas and blanks round-trip through csv: hulling the output again by id
# gives the output again (a hull is its own hull).
printf 'name,x,y\n"a, b",0,0\n"a, b",2,0\n"a, b",1,1\n"a, b",1,3\nsay ""hi"",5,5\n"#c",1,1\n#comment\n"a, b",0,2\n' \
  >"$dir/quoted.csv"
"$bin" hull "$dir/quoted.csv" --group-by name >"$dir/quoted_out.csv" || fail "--group-by quoted ids"
"$bin" hull "$dir/quoted_out.csv" --group-by name >"$dir/quoted_again.csv" || fail "--group-by its own output"
cmp -s "$dir/quoted_out.csv" "$dir/quoted_again.csv" && [ "$(wc -l <"$dir/quoted_out.csv")" -eq 7 ] && pass ||
  fail "quoted ids do not round-trip: $(cat "$dir/quoted_out.csv")"
[ "$(sed -n 2p "$dir/quoted_out.csv")" = '"a, b",0,0' ] && pass || fail "quoted id: $(sed -n 2p "$dir/quoted_out.csv")"
"$bin" hull "$dir/quoted.csv" --group-by name --output-format text >/dev/null 2>"$dir/err"
[ $? -eq 2 ] && grep -q "text output cannot hold it" "$dir/err" && pass || fail "text output of an id with a blank"
# Bad input: the reader's messages, exit 2, nothing written.
printf 'track,x,y\na,0,0\na,1,zz\n' >"$dir/bad_row.csv"
expect_input_error group-bad-value "$dir/bad_row.csv" "bad_row.csv:3: not a number" --group-by track
printf 'track,x,y\na,0,0\na,1\n' >"$dir/short_row.csv"
expect_input_error group-short-row "$dir/short_row.csv" "short_row.csv:3: expected 3 fields" --group-by track
printf 'track,x,y\na,0,0\na,nan,1\n' >"$dir/nan_row.csv"
expect_input_error group-nan "$dir/nan_row.csv" "nan_row.csv:3: non-finite" --group-by track
expect_input_error group-missing-column "$dir/groups.csv" "groups.csv:1: no column named \"vehicle\"" --group-by vehicle
expect_input_error group-column-is-x "$dir/groups.csv" "groups.csv:1: the group column \"x\" is also the x column" \
  --group-by x
# A file of MiBs, read in chunks on all cores: each group's hull as a single-hull run gives it, and a
# bad row deep inside named by its line.
awk 'BEGIN { print "track,x,y"; for (i = 0; i < 150000; i++) print "t" (i % 37) "," i ".25," (i * 7919) % 1000 ".5" }' \
  >"$dir/big_groups.csv"
[ "$(stat -c %s "$dir/big_groups.csv")" -gt 2097152 ] && pass || fail "the big grouped file is under 2 MiB"
got=$("$bin" hull "$dir/big_groups.csv" --group-by track)
want=$(printf 'track,x,y\n'; expected_groups "$dir/big_groups.csv" 1)
[ -n "$got" ] && [ "$got" = "$want" ] && pass || fail "--group-by on a file of MiBs differs from single-hull runs"
awk 'NR == 120001 { print "t1,1,x" } { print }' "$dir/big_groups.csv" >"$dir/big_bad.csv"
expect_input_error group-big-bad-row "$dir/big_bad.csv" "big_bad.csv:120001: not a number" --group-by track
printf 'a,0,0\nb,1,1\n' >"$dir/no_header.csv"
expect_input_error group-no-header "$dir/no_header.csv" "no_header.csv:1: grouping needs a header" --group-by 0
echo keep >"$dir/kept.csv"
"$bin" hull "$dir/bad_row.csv" --group-by track -o "$dir/kept.csv" 2>/dev/null
[ "$(cat "$dir/kept.csv")" = keep ] && pass || fail "--group-by -o replaced the file after an error"
"$bin" hull "$dir/groups.csv" --group-by track --output-format wkt >"$dir/out" 2>"$dir/err"
[ $? -eq 2 ] && [ ! -s "$dir/out" ] && grep -q "cannot hold group ids" "$dir/err" && pass ||
  fail "--group-by with wkt should be refused"

# --- integer points: --precision int32|int64, i32/i64 files in and out -------------------------------
# The issue's example: 2^54 + 1 rounds to 2^54 in double, where the exact hull takes (2^54 + 1, 0).
printf '0 0\n18014398509481984 0\n18014398509481985 0\n0 5\n' >"$dir/i.txt"
out=$("$bin" hull "$dir/i.txt" --precision int64 --backend cpu)
[ "$out" = $'0 0\n18014398509481985 0\n0 5' ] && pass || fail "int64 beyond 2^53: got '$out'"
out=$("$bin" hull "$dir/i.txt" --precision int64 --indices)
[ "$out" = $'0\n2\n3' ] && pass || fail "int64 --indices: got '$out'"
printf -- '-9223372036854775808 -9223372036854775808\n9223372036854775807 -9223372036854775808\n0 9223372036854775807\n-1 -1\n' >"$dir/ends.txt"
for backend in cpu pram; do
  out=$("$bin" hull "$dir/ends.txt" --precision int64 --backend $backend --output-format json)
  [ "$out" = '[[-9223372036854775808,-9223372036854775808],[9223372036854775807,-9223372036854775808],[0,9223372036854775807]]' ] &&
    pass || fail "int64 range ends ($backend): got '$out'"
done
# The same integers through every binary round trip: i64 out, i64 in (and i32 where they fit).
python3 -c "
import random, struct, sys
rng = random.Random(5)
pts = [(rng.randrange(-2**62, 2**62), rng.randrange(-2**62, 2**62)) for _ in range(30000)]
open(sys.argv[1], 'w').write(''.join(f'{x},{y}\n' for x, y in pts))
open(sys.argv[2], 'wb').write(b''.join(struct.pack('<qq', x, y) for x, y in pts))
open(sys.argv[3], 'wb').write(b''.join(struct.pack('<ii', x >> 33, y >> 33) for x, y in pts))
" "$dir/big.csv" "$dir/big.i64" "$dir/small.i32"
a=$("$bin" hull "$dir/big.csv" --precision int64)
b=$("$bin" hull "$dir/big.i64" --precision int64)
"$bin" hull "$dir/big.i64" --precision int64 -o "$dir/hull.i64" || fail "writing an i64 hull"
c=$("$bin" hull "$dir/hull.i64" --precision int64)
[ "$(echo "$a" | wc -l)" -gt 5 ] && [ "$a" = "$b" ] && [ "$a" = "$c" ] && pass || fail "int64 csv, i64 and its i64 hull disagree"
a=$("$bin" hull "$dir/small.i32" --precision int32 --backend cpu)
b=$("$bin" hull "$dir/small.i32" --precision int64 --backend pram)
c=$("$bin" hull "$dir/small.i32" --precision double --backend cpu)
[ "$(echo "$a" | wc -l)" -gt 5 ] && [ "$a" = "$b" ] && [ "$a" = "$c" ] && pass || fail "i32 at int32, int64 and double disagree"
"$bin" hull "$dir/small.i32" --precision int32 --output-format i32 -o "$dir/h.i32" &&
  [ "$("$bin" hull "$dir/h.i32" --precision int32)" = "$a" ] && pass || fail "an i32 hull does not read back"
# Streamed in bounded memory: the same hull.
b=$("$bin" hull "$dir/big.i64" --precision int64 --memory-limit 1M)
[ "$b" = "$("$bin" hull "$dir/big.i64" --precision int64)" ] && pass || fail "int64 --memory-limit differs"
# Integers in every textual output format, exactly; --format i64 for a file of another extension.
out=$("$bin" hull "$dir/i.txt" --precision int64 --output-format csv)
[ "$out" = $'x,y\n0,0\n18014398509481985,0\n0,5' ] && pass || fail "int64 csv output: got '$out'"
"$bin" hull "$dir/i.txt" --precision int64 -o "$dir/i.wkt" &&
  [ "$(cat "$dir/i.wkt")" = 'POLYGON ((0 0, 18014398509481985 0, 0 5, 0 0))' ] && pass ||
  fail "int64 wkt output (by extension): got '$(cat "$dir/i.wkt")'"
cp "$dir/big.i64" "$dir/big.bin"
[ "$("$bin" hull "$dir/big.bin" --format i64 --precision int64)" = "$("$bin" hull "$dir/big.i64" --precision int64)" ] &&
  pass || fail "--format i64 of a .bin file"
"$bin" hull "$dir/i.txt" --precision int64 --output-format i64 | cmp -s - <(python3 -c "
import struct, sys
sys.stdout.buffer.write(b''.join(struct.pack('<qq', x, y) for x, y in [(0, 0), (2**54 + 1, 0), (0, 5)]))") &&
  pass || fail "--output-format i64 to standard output"
# Pictures and the rounds of integer points: the trace's corners exact, the page's precision named.
"$bin" hull "$dir/i.txt" --precision int64 --backend pram --trace "$dir/i.trace" --svg "$dir/i.svg" >/dev/null &&
  grep -q '^18014398509481985 0$' "$dir/i.trace" && grep -q 'precision int64' "$dir/i.trace" &&
  grep -q '<svg' "$dir/i.svg" && pass || fail "an int64 trace and picture: '$(head -3 "$dir/i.trace")'"
"$bin" hull "$dir/small.i32" --precision int32 --trace "$dir/i32.html" >/dev/null &&
  grep -q '"precision":"int32"' "$dir/i32.html" && pass || fail "the rounds page of int32 points"
# Grouped.
printf 'id,x,y\na,0,0\na,9223372036854775807,0\nb,-5,-5\na,0,9223372036854775807\nb,5,5\n' >"$dir/igroups.csv"
out=$("$bin" hull "$dir/igroups.csv" --group-by id --precision int64)
[ "$out" = $'id,x,y\na,0,0\na,9223372036854775807,0\na,0,9223372036854775807\nb,-5,-5\nb,5,5' ] && pass ||
  fail "int64 --group-by: got '$out'"
# Not integers, out of range, and conversions that would round: exit 2, the line or byte named.
printf '1 2\n3 4.5\n' >"$dir/frac.txt"
expect_input_error int-fraction "$dir/frac.txt" 'frac.txt:2: not an integer: "4.5" \(int64 points\)' --precision int64
printf 'x,y\n1,2\n1e3,4\n' >"$dir/exp.csv"
expect_input_error int-exponent "$dir/exp.csv" 'exp.csv:3: not an integer: "1e3"' --precision int32
printf '0 0\n2147483648 1\n' >"$dir/int32range.txt"
expect_input_error int32-range "$dir/int32range.txt" 'int32range.txt:2: value "2147483648" is out of range for int32' --precision int32
printf '0 0\n9223372036854775808 1\n' >"$dir/int64range.txt"
expect_input_error int64-range "$dir/int64range.txt" 'int64range.txt:2: value "9223372036854775808" is out of range for int64' --precision int64
expect_input_error i64-as-double "$dir/big.i64" 'big.i64: byte [0-9]+: value -?[0-9]+ has no exact double' --precision double
expect_input_error i64-as-int32 "$dir/big.i64" 'big.i64: byte 0: value -?[0-9]+ is out of range for int32' --precision int32
printf '0 0\n1.5 2\n' >"$dir/half.txt"
"$bin" hull "$dir/half.txt" --output-format f64 -o "$dir/half.f64" || fail "writing f64"
expect_input_error f64-fraction-as-int "$dir/half.f64" 'half.f64: byte (16|0): value 1.5 is not an integer' --precision int64
"$bin" hull "$dir/i.txt" --precision int64 --output-format f64 -o "$dir/kept.csv" >"$dir/out" 2>"$dir/err"
[ $? -eq 2 ] && grep -q "vertex 1: 18014398509481985 has no exact value in f64" "$dir/err" &&
  [ "$(cat "$dir/kept.csv")" = keep ] && pass || fail "an int64 vertex f64 cannot hold: '$(cat "$dir/err")'"
"$bin" hull "$dir/half.txt" --output-format i64 >"$dir/out" 2>"$dir/err"
[ $? -eq 2 ] && [ ! -s "$dir/out" ] && grep -q "has no exact value in i64" "$dir/err" && pass ||
  fail "a double vertex that is no integer as i64: '$(cat "$dir/err")'"
"$bin" generate -n 10 -o "$dir/g.i32" >"$dir/out" 2>"$dir/err"
[ $? -eq 2 ] && [ ! -e "$dir/g.i32" ] && pass || fail "generate refuses integer formats: '$(cat "$dir/err")'"

# --- auto, devices, progress -----------------------------------------------------------------------
"$bin" hull "$dir/d.txt" --stats 2>"$dir/stats" >/dev/null
grep -q "^backend  *cpu" "$dir/stats" && pass || fail "auto should pick the cpu for 50000 points: $(cat "$dir/stats")"
# No device: none here, or the device hidden (CUDA_VISIBLE_DEVICES empty) on a machine with one.
CUDA_VISIBLE_DEVICES= "$bin" hull "$dir/square.txt" --backend cuda >"$dir/out" 2>"$dir/err"
code=$?
[ $code -eq 1 ] && [ ! -s "$dir/out" ] && [ "$(wc -l <"$dir/err")" -eq 1 ] &&
  grep -Eq "no CUDA device available: .|built without CUDA" "$dir/err" && pass ||
  fail "--backend cuda without a device: exit $code, '$(cat "$dir/err")'"
(printf '0 0\n2 0\n'; sleep 1.6; printf '1 1\n') | "$bin" hull - --progress 2>"$dir/err" >/dev/null
grep -Eq "wagener: reading (and hulling )?standard input" "$dir/err" && pass || fail "--progress: '$(cat "$dir/err")'"
(printf '0 0\n2 0\n'; sleep 1.6; printf '1 1\n') | "$bin" hull - --progress --quiet 2>"$dir/err" >/dev/null
[ ! -s "$dir/err" ] && pass || fail "--quiet still printed '$(cat "$dir/err")'"

# --- --devices: the list's syntax and the backends it goes with ------------------------------------
for bad in "" "0," "a" "-1" "0,0" "1.5"; do
  "$bin" hull "$dir/square.txt" --devices "$bad" >"$dir/out" 2>"$dir/err"
  code=$?
  [ $code -eq 2 ] && [ ! -s "$dir/out" ] && pass || fail "--devices '$bad': exit $code, '$(cat "$dir/err")'"
done
for backend in cpu pram; do
  "$bin" hull "$dir/square.txt" --backend $backend --devices 0 >"$dir/out" 2>"$dir/err"
  code=$?
  [ $code -eq 2 ] && grep -q "needs the cuda or auto backend" "$dir/err" && pass ||
    fail "--devices with --backend $backend: exit $code, '$(cat "$dir/err")'"
done
# (A device, and a binary built with CUDA: a build without it on a GPU machine says so above.)
if nvidia-smi -L >/dev/null 2>&1 &&
  ! "$bin" hull "$dir/square.txt" --backend cuda 2>&1 >/dev/null | grep -q "built without CUDA"; then
  "$bin" hull "$dir/square.txt" --backend cuda --devices 0,99 >"$dir/out" 2>"$dir/err"
  code=$?
  [ $code -eq 2 ] && grep -q "CUDA device 99 does not exist" "$dir/err" && pass ||
    fail "--devices naming a missing device: exit $code, '$(cat "$dir/err")'"
  out=$("$bin" hull "$dir/square.txt" --backend cuda --devices all)
  [ "$out" = $'0 0\n2 0\n2 2\n0 2' ] && pass || fail "--backend cuda --devices all: got '$out'"
fi
out=$("$bin" hull "$dir/square.txt" --devices all)  # auto stays on the CPU for 5 points
[ "$out" = $'0 0\n2 0\n2 2\n0 2' ] && pass || fail "--devices all under auto: got '$out'"

report
