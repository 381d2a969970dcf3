#!/usr/bin/env bash
# End-to-end tests of wagener-mpi: on 1, 2 and 4 ranks, every input family, format and option gives
# byte for byte what `wagener hull` gives; bad input fails on every rank with one message naming the
# file and line (or byte) and leaves no output file.
# Usage: test_wagener_mpi.sh PATH/TO/wagener PATH/TO/wagener-mpi MPIEXEC
# Exits 77 (skipped) without mpirun.
set -uo pipefail
bin=${1:?usage: test_wagener_mpi.sh WAGENER WAGENER_MPI MPIEXEC}
mpi_bin=${2:?}
mpiexec=${3:?}
if ! command -v "$mpiexec" >/dev/null 2>&1; then
  echo "SKIPPED: no mpirun ($mpiexec)"
  exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
source "$(dirname "$0")/../end_to_end.sh"

# Each rank's exit code goes to $dir/codes (one line per rank), so that "every rank fails" is checked.
cat >"$dir/rank.sh" <<'EOS'
#!/usr/bin/env bash
codes=$1
shift
"$@"
code=$?
echo "${OMPI_COMM_WORLD_RANK:-0} $code" >>"$codes"
exit $code
EOS
chmod +x "$dir/rank.sh"
# mpirun's own start-up takes most of a run here (about 1-3 s for 4 ranks on 2 busy cores), so the
# ranks vary by case: RANKS="1 2 4" for the generated families, "2 4" or "4" elsewhere (4 ranks on a
# handful of points leave ranks empty).
RANKS="1 2 4"
run_ranks() {  # run_ranks K ARGS... : wagener-mpi on K ranks
  local k=$1
  shift
  rm -f "$dir/codes"
  "$mpiexec" --oversubscribe --bind-to none -np "$k" "$dir/rank.sh" "$dir/codes" "$mpi_bin" "$@"
}

# same NAME FILE [hull options...]: K ranks (for K in $RANKS) print what wagener hull prints.
same() {
  local name=$1 file=$2
  shift 2
  "$bin" hull "$file" "$@" >"$dir/expected" 2>"$dir/expected.err"
  local code=$?
  if [ $code -ne 0 ]; then fail "$name: wagener hull failed ($code): $(cat "$dir/expected.err")"; return; fi
  for k in $RANKS; do
    if ! run_ranks "$k" hull "$file" "$@" >"$dir/got" 2>"$dir/got.err"; then
      fail "$name on $k ranks: exit $? ($(head -3 "$dir/got.err"))"
      continue
    fi
    if cmp -s "$dir/expected" "$dir/got"; then pass; else fail "$name on $k ranks: output differs from wagener hull"; fi
  done
}

# --- families from the generator: every distribution and format --------------------------------
for dist in disk square gaussian circle parabola; do
  "$bin" generate --distribution "$dist" -n 30000 --seed "$RANDOM" -o "$dir/$dist.txt"
  "$bin" generate --distribution "$dist" -n 30000 --seed "$RANDOM" --format csv -o "$dir/$dist.csv"
  "$bin" generate --distribution "$dist" -n 30000 --seed "$RANDOM" --format f64 -o "$dir/$dist.f64"
  "$bin" generate --distribution "$dist" -n 30000 --seed "$RANDOM" --format f32 -o "$dir/$dist.f32"
  RANKS="1 2 4" same "$dist text" "$dir/$dist.txt"
  RANKS="2 4" same "$dist csv" "$dir/$dist.csv" --upper
  RANKS="2 4" same "$dist f64" "$dir/$dist.f64" --indices
  RANKS="2 4" same "$dist f32 float" "$dir/$dist.f32" --precision float
done
RANKS="4"
same "disk f32 as double, upper, indices" "$dir/disk.f32" --upper --indices
same "circle f64 as float, json" "$dir/circle.f64" --precision float --output-format json
same "parabola presorted upper" "$dir/parabola.f64" --presorted --upper
same "parabola presorted full, text" "$dir/parabola.txt" --presorted

# --- degenerate families, written by hand ---------------------------------------------------------
{ for i in $(seq 0 199); do echo "$i $((2 * i))"; done; } >"$dir/collinear.txt"
same "collinear" "$dir/collinear.txt"
same "collinear upper indices" "$dir/collinear.txt" --upper --indices
{ for i in $(seq 1 100); do echo "3 4"; done; } >"$dir/identical.txt"
same "identical points" "$dir/identical.txt" --indices
{ for i in $(seq 1 50); do echo "0 0"; echo "1 0"; echo "0 1"; echo "1 1"; echo "0.5 0.5"; done; } >"$dir/dups.txt"
same "duplicates" "$dir/dups.txt" --indices
printf '1e300 1e300\n-1e300 1e300\n1e-300 -1e-300\n-1e300 -1e300\n1e300 -1e300\n0 1e-310\n' >"$dir/huge.txt"
same "huge and tiny coordinates" "$dir/huge.txt"
printf '1e-300 2e-300\n3e-300 1e-300\n2e-300 5e-300\n4e-300 4e-300\n' >"$dir/tiny.txt"
same "tiny coordinates" "$dir/tiny.txt"
printf '0 0\n1 0\n0 5\n0 2\n1 7\n1 3\n' >"$dir/equal_x.txt"
same "equal x" "$dir/equal_x.txt" --upper
# Fewer points than ranks (ranks left empty), one point, none.
printf '0 0\n2 1\n' >"$dir/two.txt"
RANKS="1 2 4" same "two points" "$dir/two.txt"
printf '5 5\n' >"$dir/one.txt"
same "one point" "$dir/one.txt" --indices
: >"$dir/empty.txt"
same "empty text" "$dir/empty.txt"
printf '# only a comment\n\n' >"$dir/comments.txt"
same "only comments" "$dir/comments.txt"
: >"$dir/empty.f64"
same "empty binary" "$dir/empty.f64"
printf 'x,y\n1,2\n' >"$dir/one.csv"
same "csv, header and one row" "$dir/one.csv"
# The seed's format: a count, then values laid out in any way (pairs split across lines).
{ echo 8; echo "# values in any layout"; echo "0"; echo "0 4"; echo "0 4 4"; echo "4"; echo "2 2 1"; echo 1; echo "3 3 2"; echo "5 6"; } >"$dir/counted.txt"
RANKS="1 2 4" same "seed format, any layout" "$dir/counted.txt" --indices
"$bin" generate --distribution gaussian -n 5000 --seed 5 -o "$dir/g.txt"
{ echo 5000; tr '\n' ' ' <"$dir/g.txt"; echo; } >"$dir/oneline.txt"
same "seed format, all on one line" "$dir/oneline.txt"
{ echo 5000; cat "$dir/g.txt"; } >"$dir/counted_lines.txt"
same "seed format, a pair a line" "$dir/counted_lines.txt"
{ echo 5000; tr ' ' '\n' <"$dir/g.txt"; } >"$dir/value_a_line.txt"
RANKS="2 4" same "seed format, a value a line" "$dir/value_a_line.txt" --upper
# csv: a byte-order mark, comments, CRLF, more columns selected by name and by index.
{ printf '\xEF\xBB\xBF# comment\nid,lon,lat\r\n'; for i in $(seq 1 300); do echo "$i,$((i * 7 % 101)).5,$((i * 13 % 97))"; done; } >"$dir/wide.csv"
same "csv by name, BOM, CRLF header" "$dir/wide.csv" --columns lon,lat
same "csv by index" "$dir/wide.csv" --columns 1,2 --indices
{ for i in $(seq 1 300); do echo "$i $((i * 7 % 101)) $((i * 13 % 97))"; done; } >"$dir/wide.txt"
same "text by index" "$dir/wide.txt" --columns 1,2
# Text lines holding a lone number in a later part are still an error (not a count).

# Integer points: text, csv and i64 at --precision int64 over the whole range (beyond 2^53 and at its
# ends), i32 at int32.
python3 -c "
import random, struct, sys
rng = random.Random(7)
pts = [(rng.randrange(-2**63, 2**63), rng.randrange(-2**63, 2**63)) for _ in range(20000)]
pts += [(-2**63, -2**63), (2**63 - 1, 0), (2**54 + 1, 2**63 - 1)]
open(sys.argv[1], 'w').write(''.join(f'{x} {y}\n' for x, y in pts))
open(sys.argv[2], 'w').write('x,y\n' + ''.join(f'{x},{y}\n' for x, y in pts))
open(sys.argv[3], 'wb').write(b''.join(struct.pack('<qq', x, y) for x, y in pts))
open(sys.argv[4], 'wb').write(b''.join(struct.pack('<ii', x >> 32, y >> 32) for x, y in pts))
" "$dir/int.txt" "$dir/int.csv" "$dir/int.i64" "$dir/int.i32"
RANKS="1 2 4" same "int64 text" "$dir/int.txt" --precision int64 --indices
same "int64 csv upper" "$dir/int.csv" --precision int64 --upper
same "int64 binary, json" "$dir/int.i64" --precision int64 --output-format json
same "int32 binary" "$dir/int.i32" --precision int32 --indices

# Output files: -o writes the same bytes as wagener hull -o.
"$bin" hull "$dir/disk.f64" -o "$dir/expected.geojson"
run_ranks 2 hull "$dir/disk.f64" -o "$dir/got.geojson" && cmp -s "$dir/expected.geojson" "$dir/got.geojson" && pass ||
  fail "-o FILE.geojson differs"
run_ranks 2 hull "$dir/disk.f64" --stats -o "$dir/stats.txt" 2>"$dir/stats.err"
grep -q '^merge  ' "$dir/stats.err" && grep -q '^ranks           2' "$dir/stats.err" && pass ||
  fail "--stats lacks the ranks and merge lines: $(cat "$dir/stats.err")"

# --- faults: exit 2 on every rank, one message naming the place, no output file --------------------
# expect_error NAME REGEX ARGS...: every rank of K (in $EXPECT_RANKS) exits 2; stderr holds one
# "wagener:" line matching REGEX; -o's file is not created.
# mpirun would kill the other ranks once one exits non-zero; here every rank runs to its end, so that
# each one's exit code is seen.
EXPECT_RANKS="2 4"
expect_error() {
  local name=$1 regex=$2
  shift 2
  for k in $EXPECT_RANKS; do
    rm -f "$dir/never.txt" "$dir/codes"
    "$mpiexec" --mca orte_abort_on_non_zero_status 0 --oversubscribe --bind-to none -np "$k" \
      "$dir/rank.sh" "$dir/codes" "$mpi_bin" hull "$@" -o "$dir/never.txt" >"$dir/out" 2>"$dir/err"
    local codes
    codes=$(awk '{print $2}' "$dir/codes" 2>/dev/null | sort | uniq -c | tr -s ' ')
    if [ "$codes" != " $k 2" ]; then fail "$name on $k ranks: exit codes per rank: '$codes'"; continue; fi
    if [ -e "$dir/never.txt" ]; then fail "$name on $k ranks: left an output file"; continue; fi
    if [ "$(grep -c '^wagener: ' "$dir/err")" -ne 1 ]; then fail "$name on $k ranks: expected one message: $(cat "$dir/err")"; continue; fi
    if ! grep '^wagener: ' "$dir/err" | grep -Eq -- "$regex"; then
      fail "$name on $k ranks: message '$(grep '^wagener: ' "$dir/err")' does not match '$regex'"
      continue
    fi
    pass
  done
}
# The message wagener hull gives, so the line or byte named is the one in the whole file.
message_of() { "$bin" hull "$@" 2>&1 >/dev/null | sed 's/[][\.*^$()+?{}|/]/\\&/g'; }

cp "$dir/disk.txt" "$dir/bad_late.txt"
sed -i '29000s/.*/0.5 0.5x/' "$dir/bad_late.txt"
expect_error "bad value in the last part" "^$(message_of "$dir/bad_late.txt")\$" "$dir/bad_late.txt"
cp "$dir/disk.csv" "$dir/bad_mid.csv"
sed -i '15001s/.*/1,nan/' "$dir/bad_mid.csv"
expect_error "NaN in a middle part (csv)" "^$(message_of "$dir/bad_mid.csv")\$" "$dir/bad_mid.csv"
cp "$dir/wide.txt" "$dir/lone.txt"
sed -i '250s/.*/7/' "$dir/lone.txt"
expect_error "a lone number in a later part of x y lines" "^$(message_of "$dir/lone.txt" --columns 1,2)\$" "$dir/lone.txt" --columns 1,2
head -c 100001 "$dir/disk.f64" >"$dir/truncated.f64"
expect_error "truncated binary" "^$(message_of "$dir/truncated.f64")\$" "$dir/truncated.f64"
cp "$dir/disk.f64" "$dir/nan.f64"
printf '\x00\x00\x00\x00\x00\x00\xf8\x7f' | dd of="$dir/nan.f64" bs=1 seek=400008 conv=notrunc 2>/dev/null
expect_error "NaN in binary (byte named)" "^$(message_of "$dir/nan.f64")\$" "$dir/nan.f64"
cp "$dir/int.txt" "$dir/int_bad.txt"
sed -i '15000s/.*/7 7.5/' "$dir/int_bad.txt"
expect_error "not an integer in a later part" "^$(message_of "$dir/int_bad.txt" --precision int64)\$" "$dir/int_bad.txt" --precision int64
expect_error "i64 beyond int32" "^$(message_of "$dir/int.i64" --precision int32)\$" "$dir/int.i64" --precision int32
EXPECT_RANKS="1 2 4" expect_error "missing file" "^wagener: $dir/missing\.txt: cannot open" "$dir/missing.txt"
{ echo 9; cat "$dir/g.txt"; } >"$dir/count_wrong.txt"
expect_error "count disagrees with the total" "^$(message_of "$dir/count_wrong.txt")\$" "$dir/count_wrong.txt"
{ cat "$dir/parabola.txt"; echo "-5 0"; } >"$dir/unsorted.txt"
expect_error "unsorted at the end with --presorted" "^$(message_of "$dir/unsorted.txt" --presorted)\$" "$dir/unsorted.txt" --presorted
# Two sorted halves: unsorted only where the second begins, which may be where a part begins.
{ for i in $(seq 1000 1999); do echo "$i 0"; done; for i in $(seq 1000 1999); do echo "$i 1"; done; } >"$dir/halves.txt"
expect_error "unsorted where a part begins, --presorted" "^wagener: $dir/halves\.txt:[0-9]+: points not sorted" "$dir/halves.txt" --presorted
expect_error "--trace refused" "not available in wagener-mpi" "$dir/disk.txt" --trace "$dir/t.txt"
expect_error "--svg refused" "not available in wagener-mpi" "$dir/disk.txt" --svg "$dir/t.svg"
expect_error "--memory-limit refused" "not available in wagener-mpi" "$dir/disk.txt" --memory-limit 1G
expect_error "standard input refused" "standard input" -
expect_error "--indices with wkt refused" "indices" "$dir/disk.txt" --indices --output-format wkt

report "wagener-mpi end-to-end: "
