#!/usr/bin/env python3
"""Checks that the pages which describe the code and the numbers stay true to the repository.

  * docs/img/architecture.svg was drawn from docs/architecture.dot as it is now (the SHA-256 that
    scripts/draw-architecture.sh writes into the picture), and is well-formed XML;
  * every repository path that docs/architecture.dot and docs/architecture.md name exists;
  * bench/RESULTS.md stays within 500 lines and its <!-- NAME:begin/end --> blocks pair up;
  * the relative links of docs/architecture.md, bench/RESULTS.md and bench/NOTES.md lead to files
    that exist and to headings that exist (GitHub's anchors);
  * no Markdown page of the repository holds a merge's conflict markers (a line that begins
    "<<<<<<< " or ">>>>>>> ": a page merged by hand, as NOTES.md often is, kept them);
  * bench/NOTES.md's sections missing from its index are listed (a warning, not a failure).

Usage: check_docs.py [REPOSITORY]   (default: the repository holding this script). Exit 1 on a
failure, with one line per problem. Python 3 standard library only, no Graphviz needed.
"""

import hashlib
import os
import re
import sys
import xml.etree.ElementTree as ET

RESULTS_MAX_LINES = 500
# A path in the repository, as the pages name them: from a top-level folder on.
PATH = re.compile(r"(?<![\w/.$-])((?:include|src|tools|python|tests|fuzz|bench|scripts|docs|cmake)/[\w./-]*)")
LINK = re.compile(r"\]\(([^)\s]+)\)")
MARKER = re.compile(r"^<!-- ([A-Za-z0-9_.-]+):(begin|end) -->$")


def anchor(heading):
    """GitHub's anchor of a Markdown heading: lower case, punctuation but '-' and '_' dropped,
    spaces as hyphens."""
    text = heading.lstrip("#").strip().lower().replace("`", "")
    return "".join(c for c in text if c.isalnum() or c in " -_").replace(" ", "-")


def anchors(path):
    """The anchors of a Markdown file's headings (outside code blocks), duplicates numbered."""
    seen, found, in_code = {}, set(), False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                in_code = not in_code
            if in_code or not re.match(r"^#{1,6} ", line):
                continue
            a = anchor(line)
            n = seen.get(a, 0)
            seen[a] = n + 1
            found.add(a if n == 0 else f"{a}-{n}")
    return found


def check_drawing(root, problems):
    source = os.path.join(root, "docs", "architecture.dot")
    picture = os.path.join(root, "docs", "img", "architecture.svg")
    with open(source, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    with open(picture, encoding="utf-8") as f:
        svg = f.read()
    mark = re.search(r"<!-- drawn from docs/architecture\.dot, sha256 ([0-9a-f]{64})", svg)
    if not mark:
        problems.append("docs/img/architecture.svg carries no mark of its source: run scripts/draw-architecture.sh")
    elif mark.group(1) != digest:
        problems.append("docs/img/architecture.svg was drawn from another docs/architecture.dot: "
                        "run scripts/draw-architecture.sh and commit the picture")
    try:
        ET.fromstring(re.sub(r"<!DOCTYPE[^>]*>", "", svg, count=1))
    except ET.ParseError as e:
        problems.append(f"docs/img/architecture.svg is not well-formed XML: {e}")


def check_paths(root, page, problems):
    with open(os.path.join(root, page), encoding="utf-8") as f:
        text = f.read()
    for path in sorted(set(PATH.findall(text))):
        path = path.rstrip(".,:;")
        if not os.path.exists(os.path.join(root, path)):
            problems.append(f"{page} names {path}, which does not exist")


def check_links(root, page, problems):
    folder = os.path.dirname(os.path.join(root, page))
    with open(os.path.join(root, page), encoding="utf-8") as f:
        text = f.read()
    # Code is not a link: fenced blocks and inline spans out.
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    for target in sorted(set(LINK.findall(text))):
        if re.match(r"^[a-z]+:", target):
            continue  # an address on the web
        path, _, fragment = target.partition("#")
        file = os.path.normpath(os.path.join(folder, path)) if path else os.path.join(root, page)
        if not os.path.exists(file):
            problems.append(f"{page} links to {target}: no such file")
        elif fragment and file.endswith(".md") and fragment not in anchors(file):
            problems.append(f"{page} links to {target}: no such heading")


def check_results(root, problems):
    page = os.path.join(root, "bench", "RESULTS.md")
    with open(page, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if len(lines) > RESULTS_MAX_LINES:
        problems.append(f"bench/RESULTS.md has {len(lines)} lines, more than {RESULTS_MAX_LINES}: move the "
                        "tables that are no longer the newest of their kind to bench/archive/")
    open_block = None
    names = set()
    for number, line in enumerate(lines, 1):
        m = MARKER.match(line)
        if not m:
            continue
        name, kind = m.groups()
        if kind == "begin":
            if open_block:
                problems.append(f"bench/RESULTS.md:{number}: block {name} begins inside block {open_block}")
            if name in names:
                problems.append(f"bench/RESULTS.md:{number}: a second block {name}")
            names.add(name)
            open_block = name
        elif name != open_block:
            problems.append(f"bench/RESULTS.md:{number}: block {name} ends where it did not begin")
        else:
            open_block = None
    if open_block:
        problems.append(f"bench/RESULTS.md: block {open_block} never ends")


def check_conflict_markers(root, problems):
    for folder, dirs, files in os.walk(root):
        # Not the history, hidden folders or build trees (build, build-*: the README's and the scripts').
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not d.startswith("build"))
        for name in sorted(files):
            if not name.endswith(".md"):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    if line.startswith(("<<<<<<< ", ">>>>>>> ")):
                        problems.append(f"{os.path.relpath(path, root)}:{number}: a merge's conflict marker")


def unindexed_notes(root):
    page = os.path.join(root, "bench", "NOTES.md")
    with open(page, encoding="utf-8") as f:
        text = f.read()
    linked = set(re.findall(r"\]\(#([^)\s]+)\)", text))
    missing = []
    for heading in re.findall(r"^## .*$", text, re.M):
        if heading != "## Index" and anchor(heading) not in linked:
            missing.append(heading)
    return missing


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    problems = []
    check_drawing(root, problems)
    for page in ("docs/architecture.dot", "docs/architecture.md"):
        check_paths(root, page, problems)
    for page in ("docs/architecture.md", "bench/RESULTS.md", "bench/NOTES.md"):
        check_links(root, page, problems)
    check_results(root, problems)
    check_conflict_markers(root, problems)
    for heading in unindexed_notes(root):
        print(f"warning: bench/NOTES.md: no line in its index for \"{heading}\"")
    for problem in problems:
        print(f"check_docs: {problem}")
    if problems:
        return 1
    print("check_docs: the architecture picture, its paths, RESULTS.md and the pages' links are in order")
    return 0


if __name__ == "__main__":
    sys.exit(main())
