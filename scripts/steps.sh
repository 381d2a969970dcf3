# Helpers for scripts/test.sh and scripts/fuzz.sh (sourced, not run): timed steps and commands run a
# few at a time.

# step NAME COMMAND...: runs one step of the suite, keeping its wall time and the processor time of
# its processes (user + system, from `times`, which counts the children the shell has waited for);
# step_summary prints them. Where WAGENER_STEPS_LOG names a file, each step's line is also appended to
# it, prefixed by the script's name, so that .ci/run lists every step of every script at its end. CI's
# time is read from that list (bench/NOTES.md, "CI time").
steps=()
step() {
  local name=$1 status=0 start=$SECONDS times
  shift
  times=$(mktemp)
  times >"$times"  # here, not in a subshell: a subshell's children are its own
  "$@" || status=$?
  times >>"$times"
  # Lines 2 and 4: the children's user and system time, as "XmY.YYYs XmY.YYYs".
  steps+=("$(awk -v n="$name" -v w=$((SECONDS - start)) -v s=$status '
    function seconds(field) { split(field, p, "m"); return p[1] * 60 + p[2] }
    NR == 2 { before = seconds($1) + seconds($2) }
    NR == 4 { after = seconds($1) + seconds($2) }
    END { printf "%-16s %5d s wall %6.0f s cpu%s", n, w, after - before, s ? "  (failed: exit " s ")" : "" }' "$times")")
  rm -f "$times"
  if [ -n "${WAGENER_STEPS_LOG:-}" ]; then
    printf '%-24s %s\n' "$(basename "$0")${step_args:+ $step_args}:" "${steps[-1]}" >>"$WAGENER_STEPS_LOG"
  fi
  return $status
}

step_summary() {
  ((${#steps[@]})) || return 0
  echo "steps (wall time; processor time of the step's processes):"
  printf '  %s\n' "${steps[@]}"
}

# beside LOG COMMAND... -- MAIN...: runs COMMAND at low priority (nice) in the background, its output
# in LOG, while MAIN runs; then waits for COMMAND. Fails (showing LOG's end) if either fails. For a
# build beside a test run: ctest leaves a core idle part of its time (a long test that ends alone, a
# single-threaded one), which the build takes, while the tests keep their priority.
beside() {
  local log=$1 pid status=0 command=()
  shift
  while [ "$1" != -- ]; do
    command+=("$1")
    shift
  done
  shift
  (
    renice -n 10 -p "$BASHPID" >/dev/null  # a function too, not only a program, so not `nice`
    "${command[@]}"
  ) >"$log" 2>&1 &
  pid=$!
  "$@" || status=$?
  if ! wait "$pid"; then
    tail -n 40 "$log"
    echo "beside: ${command[*]} failed (full log: $log)"
    status=1
  fi
  return $status
}

# in_parallel LIMIT FUNCTION ITEM...: calls FUNCTION ITEM for every item, each in the background, at
# most LIMIT at once, and waits for them all; FUNCTION's exit status for ITEM is then in
# parallel_status[ITEM]. FUNCTION should send its output to a file of its own: outputs of jobs that
# run at once would interleave.
declare -A parallel_status=()
in_parallel() {
  local limit=$1 function=$2 dir item
  shift 2
  dir=$(mktemp -d)
  for item in "$@"; do
    while (($(jobs -rp | wc -l) >= limit)); do wait -n || true; done
    (
      set +e
      "$function" "$item"
      echo $? >"$dir/$item"
    ) &
  done
  wait
  for item in "$@"; do parallel_status[$item]=$(cat "$dir/$item" 2>/dev/null || echo 1); done
  rm -rf "$dir"
}
