#!/usr/bin/env python3
"""Medians of bench_cuda tables from alternating runs of two builds (scripts/gpu-ab.sh).

Usage: bench_ab.py BASE_TABLE... -- TREE_TABLE...

Each file is one run's output of `bench_cuda`. For every row of the presorted and the full-hull
tables it prints the median time (device memory) of the base's runs and the tree's, their ratio,
the runs' spread in brackets, and each step's medians.
"""
import statistics
import sys
from collections import defaultdict


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def read(paths):
    """{(kind, precision, input and n): {column: [values]}} over the runs in `paths`; kind is
    "presorted" for the upper hull's tables (their inputs are sorted) and "full" for the others,
    each row's main table and its table of steps merged."""
    rows = defaultdict(lambda: defaultdict(list))
    for path in paths:
        header = None
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.startswith("|"):
                    header = None
                    continue
                c = cells(line)
                if c[0] == "precision":
                    header = c
                    continue
                if header is None or c[0].startswith("---") or len(c) != len(header):
                    continue
                kind = "presorted" if "filter survivors" in header else "full"
                for name, value in zip(header[3:], c[3:]):
                    try:
                        rows[(kind, c[0], c[1] + " " + c[2])][name].append(float(value))
                    except ValueError:
                        pass
    return rows


# The columns compared: the call's time, then its steps (not the peers, the copies or the floor).
NOT_STEPS = ("wagener", "floor", "CPU", "copy", "Thrust", "host", "seed")


def median(values):
    return statistics.median(values) if values else float("nan")


def main(argv):
    if "--" not in argv:
        sys.exit(__doc__)
    cut = argv.index("--")
    base, tree = read(argv[:cut]), read(argv[cut + 1:])
    for key in sorted(set(base) & set(tree)):
        b, t = base[key], tree[key]
        time = next((n for n in b if n.startswith("wagener ms") and n in t), None)
        if time is None:
            continue
        before, after = median(b[time]), median(t[time])
        ratio = after / before if before > 0 else float("nan")
        line = (f"{key[0]:9} {key[1]:6} {key[2]:16} {before:.3f} -> {after:.3f} ms ({ratio:.3f})"
                f" [{min(b[time]):.3f}-{max(b[time]):.3f} | {min(t[time]):.3f}-{max(t[time]):.3f}]")
        steps = [f"{n[:-3]} {median(b[n]):.3f} -> {median(t[n]):.3f}" for n in b
                 if n.endswith(" ms") and n in t and not n.startswith(NOT_STEPS)]
        print(line + ("; " + ", ".join(steps) if steps else ""))


if __name__ == "__main__":
    main(sys.argv[1:])
