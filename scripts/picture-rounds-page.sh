#!/usr/bin/env bash
# Draws docs/img/rounds-page.png, the README's picture of the rounds page: 64 Gaussian points traced
# by `wagener hull --trace rounds.html`, shown by headless Chromium at the upper chain's round 3.
# Needs a build (build/wagener, or WAGENER=PATH) and chromium with python3-websocket (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${WAGENER:-build/wagener}")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
(cd "$dir" && "$bin" generate --distribution gaussian -n 64 --seed 2 -o points.txt &&
  "$bin" hull points.txt --trace rounds.html >/dev/null)
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3
"$python" tests/browser/screenshot.py "$dir/rounds.html" docs/img/rounds-page.png --step 3 --size 1200x720
echo "wrote docs/img/rounds-page.png"
