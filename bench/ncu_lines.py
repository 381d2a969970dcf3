#!/usr/bin/env python3
"""Nsight Compute's stall samples of each profiled kernel, by source line, most first.

Usage: ncu_lines.py REPORT.ncu-rep [--top N]
REPORT is what `ncu --set none --section SourceCounters --section WarpStateStats
--warp-sampling-interval 0 -o REPORT ...` writes for a program built with -lineinfo
(scripts/gpu-profile.sh, PROFILE_MODE=lines). For each kernel name: its samples over all its
profiled launches, the N lines with the most, then the N (line, stall reason) pairs with the most.
It reads the report with the ncu_report module that Nsight Compute ships (extras/python), found
beside an `ncu` on PATH or under /opt/nvidia/nsight-compute.
"""
import collections
import glob
import os
import shutil
import sys


def import_ncu_report():
    places = []
    ncu = shutil.which("ncu")
    if ncu:
        places.append(os.path.join(os.path.dirname(os.path.realpath(ncu)), "extras", "python"))
    places += sorted(glob.glob("/opt/nvidia/nsight-compute/*/extras/python"), reverse=True)
    sys.path += places
    try:
        import ncu_report
    except ImportError:
        raise SystemExit("ncu_lines.py: no ncu_report module (Nsight Compute's extras/python) in " + ", ".join(places))
    return ncu_report


STALL = "smsp__pcsamp_warps_issue_stalled_"


def samples_by_line(report):
    """{kernel: (Counter of line -> samples, Counter of (line, reason) -> samples)}."""
    lines = collections.defaultdict(collections.Counter)
    reasons = collections.defaultdict(collections.Counter)
    for r in range(report.num_ranges()):
        launches = report.range_by_idx(r)
        for a in range(launches.num_actions()):
            launch = launches.action_by_idx(a)
            kernel = launch.name()
            stalls = [n for n in launch.metric_names() if n.startswith(STALL) and not n.endswith("not_issued")]
            for metric_name in ["smsp__pcsamp_sample_count"] + stalls:
                metric = launch.metric_by_name(metric_name)
                if metric is None or metric.num_instances() == 0:
                    continue
                pcs = metric.correlation_ids()
                for k in range(metric.num_instances()):
                    count = metric.as_uint64(k)
                    if count == 0:
                        continue
                    where = launch.source_info(pcs.as_uint64(k))
                    line = f"{os.path.basename(where.file_name())}:{where.line()}" if where else "?"
                    if metric_name == "smsp__pcsamp_sample_count":
                        lines[kernel][line] += count
                    else:
                        reasons[kernel][(line, metric_name[len(STALL):])] += count
    return {kernel: (lines[kernel], reasons[kernel]) for kernel in lines}


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    top = int(argv[argv.index("--top") + 1]) if "--top" in argv else 25
    report = import_ncu_report().load_report(argv[1])
    for kernel, (lines, reasons) in samples_by_line(report).items():
        total = sum(lines.values())
        print(f"== {kernel}: {total} samples")
        for line, count in lines.most_common(top):
            print(f"  {100 * count / total:5.1f}%  {line}")
        print("  by line and stall reason:")
        for (line, reason), count in reasons.most_common(top):
            print(f"  {100 * count / total:5.1f}%  {line}  {reason}")


if __name__ == "__main__":
    main(sys.argv)
