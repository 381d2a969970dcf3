#!/usr/bin/env python3
"""The main job on this host, as a user runs it: `wagener hull FILE -o hull.txt`, warm and cold.

For each input file (written once by `wagener generate`), every command runs as its own process,
median of --runs runs, the commands of a row interleaved (round r rotates their order):

  cat      `cat FILE > /dev/null`, the floor of a plain sequential read
  dd       `dd if=FILE of=/dev/null bs=64M`, the best sequential read
  cpu      `wagener hull FILE -o OUT --backend cpu`
  cuda     ... --backend cuda                       (a CUDA device)
  cuda2    ... --backend cuda --devices all         (two or more devices)
  auto     ... --backend auto, and the backend it picked

Warm: the file is read once before the row, so the page cache holds it (where memory allows).
Cold (--cold, root only): the page cache is dropped before every run of every command
(`echo 3 > /proc/sys/vm/drop_caches`), as for a file that is not in it; the programs themselves are
then loaded again untimed, so that only the input is cold.

Every hull file is compared byte for byte with the cpu backend's; a difference fails the run (exit 1).
The table says, per row, how auto's time compares with the faster of cpu and cuda. Standard library
only (python3 on any GPU machine). `--calibrate` runs `wagener calibrate` first, so that auto's
one-time measurement is not inside the timings (the table says so).

    python3 bench/host_whole.py --wagener build/wagener --workdir /tmp/w --runs 5 \\
        --inputs disk:1e6:f64,disk:1e7:f64,disk:1e8:f64,circle:1e7:f64 --cold --markdown out.md
"""

import argparse
import datetime
import filecmp
import os
import platform
import shutil
import statistics
import subprocess
import sys
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def log(message):
    print(f"host_whole: {message}", file=sys.stderr, flush=True)


def count(text):
    text = text.replace("_", "")
    if "^" in text:
        base, exponent = text.split("^")
        return int(base) ** int(exponent)
    value = float(text)
    if value != int(value) or value < 1:
        raise argparse.ArgumentTypeError(f"not a point count: {text}")
    return int(value)


def parse_inputs(text):
    inputs = []
    for item in text.split(","):
        family, n, fmt = item.split(":")
        if fmt not in ("f32", "f64") or family not in ("disk", "square", "gaussian", "circle", "parabola"):
            raise argparse.ArgumentTypeError(f"bad input {item!r} (family:count:f32|f64)")
        inputs.append((family, count(n), fmt))
    return inputs


def fmt_n(n):
    k = len(str(n)) - 1
    if n == 10**k and k > 0:
        return f"10^{k}"
    if n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return str(n)


def fmt_seconds(t):
    return f"{t:.2f} s" if t >= 1 else f"{t * 1000:.0f} ms" if t >= 0.01 else f"{t * 1000:.1f} ms"


def gpu_count():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return 0, []
    names = [line.split(":", 1)[1].split("(")[0].strip() for line in out.stdout.splitlines() if line.startswith("GPU")]
    return (len(names), names) if out.returncode == 0 else (0, [])


def drop_page_cache():
    subprocess.run(["sync"], check=False)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def run(argv, stdout=subprocess.DEVNULL, capture_stderr=False, timeout=600):
    # Not subprocess.run(timeout=...): its wait polls with sleeps growing to 50 ms, which rounded
    # every time up to the next poll (16, 32, 64, 114, 164 ms, ...). A blocking wait, and a timer
    # that kills a process that hangs.
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.PIPE if capture_stderr else subprocess.DEVNULL,
                         text=capture_stderr)
    timer = threading.Timer(timeout, p.kill)
    timer.start()
    try:
        _, stderr = p.communicate()
    finally:
        timer.cancel()
    seconds = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited with {p.returncode}: {stderr if capture_stderr else ''}")
    return seconds, (stderr if capture_stderr else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wagener", default=os.path.join(REPO, "build", "wagener"))
    parser.add_argument("--workdir", default="/tmp/wagener-host-whole")
    parser.add_argument("--inputs", type=parse_inputs,
                        default=parse_inputs("disk:1e6:f64,disk:1e7:f64,disk:1e8:f64,circle:1e6:f64,circle:1e7:f64"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cold", action="store_true", help="drop the page cache before every run (root)")
    parser.add_argument("--warm", action="store_true", help="also the warm table when --cold is given")
    parser.add_argument("--calibrate", action="store_true", help="run `wagener calibrate` first")
    parser.add_argument("--markdown", help="append the tables to this file")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    gpus, gpu_names = gpu_count()
    cores = os.cpu_count()
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    if args.calibrate:
        seconds, _ = run([args.wagener, "calibrate"], stdout=sys.stderr)
        log(f"calibrated in {seconds:.2f} s")

    columns = ["cat", "dd", "cpu"] + (["cuda"] if gpus else []) + (["cuda2"] if gpus > 1 else []) + ["auto"]
    modes = (["cold"] if args.cold else []) + (["warm"] if args.warm or not args.cold else [])
    failed = False
    tables = []
    for mode in modes:
        rows = []
        for family, n, fmt in args.inputs:
            path = os.path.join(args.workdir, f"{family}-{n}.{fmt}")
            if not os.path.exists(path):
                log(f"generating {path}")
                run([args.wagener, "generate", "--distribution", family, "-n", str(n), "--format", fmt, "-o", path])
            size = os.path.getsize(path)
            outs = {c: os.path.join(args.workdir, f"hull-{c}.txt") for c in ("cpu", "cuda", "cuda2", "auto")}
            commands = {
                "cat": ["cat", path],
                "dd": ["dd", f"if={path}", "of=/dev/null", "bs=64M"],
                "cpu": [args.wagener, "hull", path, "-o", outs["cpu"], "--backend", "cpu"],
                "cuda": [args.wagener, "hull", path, "-o", outs["cuda"], "--backend", "cuda"],
                "cuda2": [args.wagener, "hull", path, "-o", outs["cuda2"], "--backend", "cuda", "--devices", "all"],
                "auto": [args.wagener, "hull", path, "-o", outs["auto"], "--stats"],
            }
            times = {c: [] for c in columns}
            picked = set()
            for r in range(args.runs + 1):  # run 0 warms up (and is not counted)
                order = columns[r % len(columns):] + columns[:r % len(columns)]
                for c in order:
                    if mode == "cold":
                        drop_page_cache()
                        # The programs themselves warm again: only the input file is cold.
                        for program in ([args.wagener, "--version"], ["cat", "--version"], ["dd", "--version"]):
                            run(program)
                    elif r == 0:
                        run(["cat", path])
                    seconds, err = run(commands[c], capture_stderr=(c == "auto"))
                    if c == "auto":
                        for line in err.splitlines():
                            if line.startswith("backend"):
                                picked.add(line.split()[1])
                    if r > 0:
                        times[c].append(seconds)
            for c in columns:
                if c in ("cat", "dd", "cpu"):
                    continue
                if not filecmp.cmp(outs["cpu"], outs[c], shallow=False):
                    log(f"WRONG: {c} hull of {path} differs from the cpu backend's")
                    failed = True
            med = {c: statistics.median(times[c]) for c in columns}
            best = min(med[c] for c in ("cpu", "cuda") if c in med)
            rows.append((f"{family} {fmt_n(n)} {fmt} ({size / 1e9:.2f} GB)", med, "/".join(sorted(picked)),
                         med["auto"] / best))
        head = f"| input ({mode}) | " + " | ".join(columns) + " | auto picked | auto / faster |"
        lines = [head, "|" + "---|" * (len(columns) + 3)]
        for name, med, picked, ratio in rows:
            lines.append(f"| {name} | " + " | ".join(fmt_seconds(med[c]) for c in columns) +
                         f" | {picked} | {ratio:.2f} |")
        tables.append("\n".join(lines))

    header = (f"{datetime.date.today()}, commit {commit}, {cores} cores ({platform.processor() or platform.machine()}), "
              f"{gpus} GPU(s) {', '.join(gpu_names)}; median of {args.runs} runs, hulls written as text to a file"
              f"{'; rates calibrated before' if args.calibrate else ''}.\n"
              f"`python3 bench/host_whole.py --runs {args.runs}{' --cold' if args.cold else ''}"
              f"{' --warm' if args.warm else ''} --inputs {','.join(f'{f}:{n}:{t}' for f, n, t in args.inputs)}`")
    text = header + "\n\n" + "\n\n".join(tables) + "\n"
    print(text)
    if args.markdown:
        with open(args.markdown, "a") as f:
            f.write(text + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
