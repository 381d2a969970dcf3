# Sourced by the end-to-end test scripts (tests/*/test_*.sh): a scratch folder, $dir, removed on exit,
# and the checks counted by pass and fail; report, the script's last command, prints the counts and
# fails when a check did.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
passed=0
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
pass() { passed=$((passed + 1)); }
report() {  # report [PREFIX]
  echo "${1:-}$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
