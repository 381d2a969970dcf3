#!/usr/bin/env python3
"""Nsight Compute's per-launch CSV, summed by kernel: time, DRAM bytes and launches, longest first.

Usage: ncu_kernels.py RAW.csv [--launches-from ID]
RAW.csv is what `ncu --csv --print-units base --metrics gpu__time_duration.sum,dram__bytes.sum ...`
writes (the program's own output before the header is skipped). --launches-from skips the launches
before that ID (a bench's data generation, for example). A kernel is named by its first name that a
template or parameter list follows, so that "void ns::f<double>(...)" and "f<float>" are both "f".
"""
import csv
import io
import re
import sys
from collections import defaultdict

# Base units: ncu --print-units base writes time in ns and bytes in byte.
SCALE = {"ns": 1e-3, "nsecond": 1e-3, "byte": 1.0}


def short_name(kernel: str) -> str:
    match = re.search(r"[A-Za-z_][A-Za-z_0-9]*(?=[<(])", kernel)
    return match.group(0) if match else kernel


def summarise(text: str, first_id: int = 0):
    start = text.find('"ID",')
    if start < 0:
        raise SystemExit("ncu_kernels.py: no CSV header (\"ID\", ...) in the input")
    rows = csv.DictReader(io.StringIO(text[start:]))
    us = defaultdict(float)
    dram = defaultdict(float)
    launches = defaultdict(set)
    for row in rows:
        if not row.get("ID", "").isdigit() or int(row["ID"]) < first_id:
            continue
        unit = row["Metric Unit"]
        if unit not in SCALE:
            raise SystemExit(f"ncu_kernels.py: unit {unit!r} is not a base unit (run ncu with --print-units base)")
        value = float(row["Metric Value"].replace(",", "")) * SCALE[unit]
        name = short_name(row["Kernel Name"])
        launches[name].add(row["ID"])
        if row["Metric Name"] == "gpu__time_duration.sum":
            us[name] += value
        elif row["Metric Name"] == "dram__bytes.sum":
            dram[name] += value
    return sorted(((us[k], dram[k], len(launches[k]), k) for k in launches), reverse=True)


def main() -> None:
    args = sys.argv[1:]
    first_id = 0
    if "--launches-from" in args:
        at = args.index("--launches-from")
        first_id = int(args[at + 1])
        del args[at : at + 2]
    if len(args) != 1:
        raise SystemExit(__doc__)
    with open(args[0], encoding="utf-8", errors="replace") as f:
        table = summarise(f.read(), first_id)
    print(f"{'us':>12} {'DRAM GB':>9} {'GB/s':>8} {'launches':>8}  kernel")
    for us, dram, count, name in table:
        rate = dram / 1e9 / (us / 1e6) if us > 0 else 0.0
        print(f"{us:12.1f} {dram / 1e9:9.3f} {rate:8.0f} {count:8d}  {name}")


if __name__ == "__main__":
    main()
