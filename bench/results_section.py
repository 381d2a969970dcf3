#!/usr/bin/env python3
"""Puts a table into its block of bench/RESULTS.md and moves the table it replaces to the archive.

bench/RESULTS.md shows the newest table of each kind for each kind of machine, each between
`<!-- NAME:begin -->` and `<!-- NAME:end -->`. The block NAME gets TABLE (a file, or standard
input: its heading, a line giving date, device, commit and command, then the table). The block's
old text, unless it is an empty slot ("To be measured ..."), goes to the end of the archive of the
month, bench/archive/RESULTS-YYYY-MM.md (UTC), so that nothing is lost. Where RESULTS.md has no
block NAME, TABLE itself goes to that archive file, and the names of the blocks are listed.

    python3 bench/results_section.py NAME [TABLE.md] [--results bench/RESULTS.md] [--list]

Standard library only, so that it runs on the GPU machine too; bench/whole_process.py imports put().
"""

import argparse
import datetime
import os
import re
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))
MARKER = re.compile(r"^<!-- ([A-Za-z0-9_.-]+):(begin|end) -->$")
SLOT = re.compile(r"^To be measured", re.M)


def blocks(lines):
    """{name: (index of the begin line, index of the end line)} of a results file's lines."""
    found, open_at = {}, {}
    for i, line in enumerate(lines):
        m = MARKER.match(line.rstrip("\n"))
        if not m:
            continue
        name, kind = m.groups()
        if kind == "begin":
            open_at[name] = i
        elif name in open_at:
            found[name] = (open_at.pop(name), i)
    return found


def write_whole(path, text):
    """Writes the file whole or not at all (a temporary file renamed over it)."""
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def relink(body, source_dir, target_dir):
    """The body's relative Markdown links, written for a file in source_dir, for a file in target_dir."""
    def move(m):
        target = m.group(2)
        if re.match(r"^([a-z]+:|#|/)", target):
            return m.group(0)
        path, _, fragment = target.partition("#")
        moved = os.path.relpath(os.path.join(source_dir, path), target_dir).replace(os.sep, "/")
        return f"{m.group(1)}({moved}{'#' + fragment if fragment else ''})"
    return re.sub(r"(\]\s?)\(([^)\s]+)\)", move, body)


def append_to_archive(archive_dir, today, note, body):
    path = os.path.join(archive_dir, f"RESULTS-{today:%Y-%m}.md")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            text = f.read().rstrip("\n") + "\n"
    else:
        os.makedirs(archive_dir, exist_ok=True)
        text = (f"# Benchmark results: archive of {today:%Y-%m}\n\n"
                "Tables that [../RESULTS.md](../RESULTS.md) no longer shows, in the order they left it.\n")
    write_whole(path, f"{text}\n---\n\n*{note}*\n\n{body.strip()}\n")
    return path


def put(results, name, body, archive_dir=None, today=None):
    """Puts body in block name of results; returns (what happened, the archive file written or None)."""
    results_dir = os.path.dirname(os.path.abspath(results))
    archive_dir = archive_dir or os.path.join(results_dir, "archive")
    today = today or datetime.datetime.now(datetime.timezone.utc).date()
    # A body that carries markers of its own (an older script's output) loses them.
    body = "".join(line for line in body.splitlines(keepends=True) if not MARKER.match(line.rstrip("\n")))
    body = body.strip("\n") + "\n"
    with open(results, encoding="utf-8") as f:
        lines = f.read().splitlines(keepends=True)
    where = blocks(lines)
    if name not in where:
        note = f"Written on {today:%Y-%m-%d} for block `{name}`, which RESULTS.md has no place for:"
        return "archived", append_to_archive(archive_dir, today, note, relink(body, results_dir, archive_dir))
    begin, end = where[name]
    old = "".join(lines[begin + 1:end])
    archived = None
    if old.strip() and not SLOT.search(old):
        note = f"Moved here from RESULTS.md on {today:%Y-%m-%d} (block `{name}`), replaced by a newer table:"
        archived = append_to_archive(archive_dir, today, note, relink(old, results_dir, archive_dir))
    write_whole(results, "".join(lines[:begin + 1]) + body + "".join(lines[end:]))
    return "replaced", archived


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("name", nargs="?", help="the block, e.g. 2core-whole (--list names them)")
    parser.add_argument("table", nargs="?", help="the new table (default: standard input)")
    parser.add_argument("--results", default=os.path.join(BENCH, "RESULTS.md"))
    parser.add_argument("--list", action="store_true", help="list the blocks of the results file")
    args = parser.parse_args()
    with open(args.results, encoding="utf-8") as f:
        names = sorted(blocks(f.read().splitlines()))
    if args.list or not args.name:
        print("\n".join(names))
        return 0 if args.list else 2
    if args.table:
        with open(args.table, encoding="utf-8") as f:
            body = f.read()
    else:
        body = sys.stdin.read()
    if not body.strip():
        parser.error("the table is empty")
    what, archive = put(args.results, args.name, body)
    if what == "replaced":
        moved = f"; the table it replaced is at the end of {archive}" if archive else ""
        print(f"results_section: block {args.name} of {args.results} replaced{moved}", file=sys.stderr)
    else:
        print(f"results_section: {args.results} has no block {args.name}: the table went to {archive}. "
              f"Blocks: {', '.join(names)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
