#!/usr/bin/env bash
# Renders docs/architecture.dot to docs/img/architecture.svg with Graphviz's dot (Debian: graphviz),
# and writes the source's SHA-256 into the picture, so that a test (tests/docs/check_docs.py)
# can tell, without Graphviz, that the picture was drawn from the text as it is now. Run it after
# changing docs/architecture.dot, and commit both.
set -euo pipefail
cd "$(dirname "$0")/.."
source=docs/architecture.dot
picture=docs/img/architecture.svg
if ! command -v dot >/dev/null; then
  echo "draw-architecture: Graphviz's dot is missing (Debian: apt-get install graphviz)" >&2
  exit 1
fi
hash=$(sha256sum "$source" | cut -d' ' -f1)
tmp=$(mktemp "$picture.XXXXXX")
trap 'rm -f "$tmp"' EXIT
# The mark goes after the XML declaration (which must stay first) as an XML comment.
dot -Tsvg "$source" | sed "1a <!-- drawn from $source, sha256 $hash, by scripts/draw-architecture.sh -->" >"$tmp"
mv "$tmp" "$picture"
trap - EXIT
echo "draw-architecture: wrote $picture"
