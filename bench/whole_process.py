#!/usr/bin/env python3
"""Whole-process benchmark: complete commands, from a file in the page cache to a printed hull.

Times `wagener hull FILE` (cpu, cuda and auto backends; full hull and --upper) against the I/O floor
(`cat FILE`), CGAL (bench/bench_cgal_file), Qhull's `qconvex` and scipy.spatial.ConvexHull, each as a
separate process: wall time (time.perf_counter around subprocess.run) with stdout to /dev/null,
median of --runs runs after one warm-up run, the runs of a row's commands interleaved (round r runs
each command once, in an order rotated by r). The warm-up run of every command writes its hull to a
file, and that hull is checked: wagener's cpu hull against CGAL's, every other wagener hull against
the cpu one (byte for byte), qconvex's and scipy's vertex sets against the exact one (they are not
exact, so a difference is reported, not failed). A wrong wagener hull makes the exit status 1.

Python 3 standard library only, so that it runs on a GPU machine without hyperfine, apt or CGAL;
columns whose program is missing say why. bench/run_whole.sh installs the peers, builds and calls
this script.

    python3 bench/whole_process.py --wagener build/wagener --sizes 1e6,1e7 --runs 5 \\
        --results bench/RESULTS.md --section 2core-whole
"""

import argparse
import array
import datetime
import filecmp
import mmap
import os
import re
import shlex
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_section  # noqa: E402  (bench/results_section.py, beside this script)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MB = 1 << 20

# The scipy peer: a python3 process that loads the f64 file, hulls it and prints the hull's vertices.
SCIPY_CODE = r"""
import sys
import numpy
from scipy.spatial import ConvexHull
points = numpy.fromfile(sys.argv[1], dtype="<f8").reshape(-1, 2)
hull = ConvexHull(points)
sys.stdout.write("".join(f"{x!r} {y!r}\n" for x, y in points[hull.vertices].tolist()))
"""

# (key, table heading); the order of the table's columns.
COLUMNS = [
    ("cat", "cat FILE"),
    ("cpu", "wagener cpu"),
    ("cuda", "wagener cuda"),
    ("auto", "wagener auto"),
    ("upper_cpu", "wagener --upper cpu"),
    ("upper_cuda", "wagener --upper cuda"),
    ("cgal", "CGAL"),
    ("qconvex", "qconvex (reads text)"),
    ("scipy", "scipy ConvexHull"),
]


def log(message):
    print(f"whole_process: {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------------
# Small helpers


def parse_count(text):
    """'1000000', '1_000_000', '1e6' or '10^6' -> 1000000."""
    s = text.strip().replace("_", "")
    m = re.fullmatch(r"(\d+)\^(\d+)", s)
    if m:
        value = int(m.group(1)) ** int(m.group(2))
    elif re.fullmatch(r"\d+", s):
        value = int(s)
    else:
        try:
            f = float(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a count: {text!r}") from None
        if f != int(f):
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}")
        value = int(f)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def parse_list(text, allowed=None):
    items = [s.strip() for s in text.split(",") if s.strip()]
    if allowed is not None:
        for item in items:
            if item not in allowed:
                raise argparse.ArgumentTypeError(f"{item!r} is not one of {', '.join(allowed)}")
    return items


def fmt_n(n):
    k = len(str(n)) - 1
    return f"10^{k}" if k >= 1 and n == 10**k else str(n)


def fmt_seconds(t):
    if t >= 10:
        return f"{t:.1f}"
    if t >= 1:
        return f"{t:.2f}"
    if t >= 0.01:
        return f"{t:.3f}"
    return f"{t:.4f}"


def fmt_bytes(b):
    return f"{b / 1e9:.1f} GB" if b >= 1e9 else f"{b / 1e6:.0f} MB"


def display_path(path):
    """A path as the table shows it: relative to the repository when inside it."""
    absolute = os.path.abspath(path)
    if absolute.startswith(REPO + os.sep):
        return os.path.relpath(absolute, REPO)
    return path


def output(argv, **kwargs):
    """stdout of a short helper command, or None when it cannot run or fails."""
    try:
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=30, **kwargs)
    except (OSError, subprocess.SubprocessError):
        return None
    return r.stdout if r.returncode == 0 else None


def count_lines(path):
    lines = 0
    with open(path, "rb") as f:
        while block := f.read(MB):
            lines += block.count(b"\n")
    return lines


def read_lines(path):
    """Lines of a file (bytes, without the newline), streamed."""
    with open(path, "rb") as f:
        for line in f:
            yield line.rstrip(b"\r\n")


def reverse_lines(path, block_size=MB):
    """Lines of a file from the last to the first (bytes, without the newline), streamed."""
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        position = f.tell()
        rest = b""
        first_block = True
        while position > 0:
            step = min(block_size, position)
            position -= step
            f.seek(position)
            chunk = f.read(step) + rest
            if first_block and chunk.endswith(b"\n"):
                chunk = chunk[:-1]
            first_block = False
            parts = chunk.split(b"\n")
            rest = parts[0]
            for line in reversed(parts[1:]):
                yield line.rstrip(b"\r")
        if rest or not first_block:
            yield rest.rstrip(b"\r")


def xy(line):
    x, y = line.split()
    return float(x), float(y)


def point_key(x, y):
    """A hashable key for a point; -0.0 and 0.0 are the same point."""
    return struct.pack("<dd", x + 0.0, y + 0.0)


def text_hull_keys(path):
    return [point_key(*xy(line)) for line in read_lines(path) if line.strip()]


# ---------------------------------------------------------------------------------------------------
# The machine


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def gpu_names():
    """Names of the CUDA devices, or [] when `nvidia-smi -L` does not run or finds none."""
    if output(["nvidia-smi", "-L"]) is None:
        return []
    names = output(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"]) or ""
    return [n.strip() for n in names.splitlines() if n.strip()] or ["unknown GPU"]


def git_commit():
    commit = output(["git", "-C", REPO, "rev-parse", "--short", "HEAD"])
    if commit is None:
        return "unknown"
    commit = commit.strip()
    status = output(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"])
    if status:
        commit += "-dirty"
    return commit


def machine_ticks():
    """(busy, total) jiffies of all CPUs, from /proc/stat."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
    return busy, busy + v[3] + v[4]


def own_ticks():
    t = os.times()
    return (t.user + t.system + t.children_user + t.children_system) * os.sysconf("SC_CLK_TCK")


def busy_percent(seconds=1.0):
    a = machine_ticks()
    time.sleep(seconds)
    b = machine_ticks()
    if a is None or b is None or b[1] == a[1]:
        return None
    return 100.0 * (b[0] - a[0]) / (b[1] - a[1])


def scipy_python(explicit):
    """A python3 that can import numpy and scipy.spatial, or None. Debian's python3-scipy lives in
    /usr/bin/python3's path, which a python3 from pyenv or a venv on the PATH does not see."""
    candidates = [explicit] if explicit else [sys.executable, shutil.which("python3"), "/usr/bin/python3"]
    seen = set()
    for candidate in candidates:
        if not candidate or candidate in seen:
            continue
        seen.add(candidate)
        if output([candidate, "-c", "import numpy, scipy.spatial"]) is not None:
            return candidate
    return None


# ---------------------------------------------------------------------------------------------------
# Timing


class Cell:
    """One table cell: a median time, or a reason why there is none."""

    def __init__(self, seconds=None, text=None, timed_out=False, error=False):
        self.seconds = seconds
        self.text = text
        self.timed_out = timed_out
        self.error = error
        self.wrong = None  # what is wrong with the command's hull
        self.stderr = ""
        self.pending = False  # warmed up and checked; its timed runs come with the row's others

    @property
    def ok(self):
        return (self.seconds is not None or self.pending) and not self.timed_out and not self.error

    def render(self, floor):
        if not self.ok:
            return self.text
        s = fmt_seconds(self.seconds)
        if floor is not None and floor.ok and floor.seconds > 0:
            ratio = self.seconds / floor.seconds
            s += f" ({ratio:.0f}x)" if ratio >= 100 else f" ({ratio:.1f}x)"
        if self.wrong:
            s += f" **{self.wrong}**"
        return s


def run_once(argv, stdout, stdin_path, timeout, stderr=subprocess.DEVNULL):
    """(seconds, completed process or None when it timed out).

    The wait blocks in waitpid: subprocess.run(timeout=...) polls with sleeps of up to 50 ms when no
    pipe is read, which rounded every time up to the next poll. A timer thread kills the process
    at the time-out instead."""
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    try:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdin=stdin, stdout=stdout, stderr=stderr)
        timed_out = threading.Event()

        def kill():
            timed_out.set()
            p.kill()

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            if stderr == subprocess.PIPE:
                _, err = p.communicate()  # no timeout: reads the pipe until the process ends
            else:
                p.wait()
                err = None
        finally:
            timer.cancel()
        seconds = time.perf_counter() - t0
        if timed_out.is_set():
            return seconds, None
        return seconds, subprocess.CompletedProcess(argv, p.returncode, None, err)
    finally:
        if stdin_path:
            stdin.close()


def measure(label, argv, args, out_path=None, stdin_path=None, pending=None):
    """One warm-up run (its stdout to out_path, for the check, or /dev/null); the args.runs timed runs,
    with stdout to /dev/null, come later in run_interleaved with the row's other commands (appended
    to `pending`). A time-out is reported as such, never dropped."""
    timeout = args.timeout
    over = f"> {args.timeout:g} s"
    if out_path:
        with open(out_path, "wb") as out:
            t, r = run_once(argv, out, stdin_path, timeout, stderr=subprocess.PIPE)
    else:
        t, r = run_once(argv, subprocess.DEVNULL, stdin_path, timeout, stderr=subprocess.PIPE)
    if r is None:
        log(f"  {label}: warm-up run timed out ({over})")
        return Cell(text=over, timed_out=True)
    if r.returncode != 0:
        message = r.stderr.decode(errors="replace").strip()
        log(f"  {label}: exit status {r.returncode}: {message[-500:]}")
        cell = Cell(text=f"error (exit {r.returncode})", error=True)
        cell.stderr = message
        return cell
    cell = Cell()
    cell.pending = True
    pending.append((cell, label, argv, stdin_path))
    return cell


def run_interleaved(pending, args):
    """The timed runs of one row's commands, interleaved: round r runs every command once, starting
    one further along each round, so that no command always follows the same one. (Run back to back,
    commands timed right after a cuda process ran 5-9 ms slower: bench/NOTES.md.)"""
    over = f"> {args.timeout:g} s"
    times = {id(cell): [] for cell, *_ in pending}
    for r in range(args.runs):
        for k in range(len(pending)):
            cell, label, argv, stdin_path = pending[(k + r) % len(pending)]
            if not cell.pending:  # timed out or failed in an earlier round
                continue
            t, done = run_once(argv, subprocess.DEVNULL, stdin_path, args.timeout)
            if done is None:
                log(f"  {label}: a timed run timed out ({over})")
                cell.pending, cell.timed_out, cell.text = False, True, over
            elif done.returncode != 0:
                log(f"  {label}: a timed run exited with status {done.returncode}")
                cell.pending, cell.error, cell.text = False, True, f"error (exit {done.returncode})"
            else:
                times[id(cell)].append(t)
    for cell, label, _, _ in pending:
        if not cell.pending:
            continue
        cell.pending = False
        ts = times[id(cell)]
        cell.seconds = statistics.median(ts)
        log(f"  {label}: median {fmt_seconds(cell.seconds)} s (min {fmt_seconds(min(ts))}, max {fmt_seconds(max(ts))})")
    pending.clear()


# ---------------------------------------------------------------------------------------------------
# Checks


def check_upper(ref_path, upper_path):
    """None when upper_path holds the upper hull that the full hull ref_path implies, else a reason.
    The full hull is counter-clockwise from the lexicographically smallest vertex v0, so the upper
    hull is v0 followed by the full hull's last vertices in reverse order, back to the
    lexicographically largest vertex (the one both of whose neighbours on the hull are smaller)."""
    m = count_lines(ref_path)
    upper = read_lines(upper_path)
    backwards = reverse_lines(ref_path)
    first = next(upper, None)
    with open(ref_path, "rb") as f:
        v0 = f.readline().rstrip(b"\r\n")
    if first != v0:
        return "does not start at the full hull's first vertex"
    count, previous, last = 1, None, first
    for line in upper:
        expected = next(backwards, None)
        if expected is None or line != expected:
            return f"vertex {count + 1} differs from the full hull's"
        previous, last = last, line
        count += 1
    if m == 1:
        return None if count == 1 else "more than one vertex for a one-vertex hull"
    if count < 2:
        return "one vertex for a hull of several"
    before = next(backwards, None)  # the full hull's vertex before the upper hull's last one
    if before is None or not (xy(before) < xy(last) and xy(previous) < xy(last)):
        return "does not end at the lexicographically largest vertex"
    return None


def check_float_against_widened(wagener_path, cgal_path):
    """Same vertices in the same order, once CGAL's doubles (the f32 points widened) are rounded back
    to float: wagener prints float coordinates in their own shortest form."""
    pack = struct.Struct("<ff").pack
    a, b = read_lines(wagener_path), read_lines(cgal_path)
    count = 0
    for left, right in zip(a, b):
        if pack(*xy(left)) != pack(*xy(right)):
            return f"vertex {count + 1} differs"
        count += 1
    if next(a, None) is not None or next(b, None) is not None:
        return "different numbers of vertices"
    return None


def widen_f32(src, dst):
    if sys.byteorder != "little":
        raise RuntimeError("widening f32 files assumes a little-endian machine")
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        while True:
            chunk = array.array("f")
            data = fin.read(8 * MB)
            if not data:
                break
            chunk.frombytes(data)
            array.array("d", chunk).tofile(fout)


def write_qhull_text(src, dst):
    """Qhull's input format from an f64 file: the dimension, the count, then `x y` lines (repr of each
    double: shortest round-trip form, so qconvex reads exactly the same points)."""
    if sys.byteorder != "little":
        raise RuntimeError("reading f64 files assumes a little-endian machine")
    n = os.path.getsize(src) // 16
    with open(src, "rb") as fin, open(dst, "w") as fout:
        fout.write(f"2\n{n}\n")
        while True:
            data = fin.read(16 * 65536)
            if not data:
                break
            values = array.array("d")
            values.frombytes(data)
            it = iter(values)
            fout.write("".join(f"{x!r} {y!r}\n" for x, y in zip(it, it)))


def compare_vertex_sets(name, exact, got_keys):
    """A note: how a peer's vertices compare with the exact hull's (sets of point keys)."""
    got = set(got_keys)
    duplicates = len(got_keys) - len(got)
    missing = len(exact - got)
    extra = len(got - exact)
    if not missing and not extra and not duplicates:
        return f"{name}: same {len(exact)} vertices"
    parts = []
    if missing:
        parts.append(f"{missing} missing")
    if extra:
        parts.append(f"{extra} not strict vertices")
    if duplicates:
        parts.append(f"{duplicates} repeated")
    return f"{name}: {len(got_keys)} vertices vs {len(exact)} exact ({', '.join(parts)})"


def qconvex_keys(out_path, f64_path):
    """The points behind qconvex's Fx output (a count, then the indices of the hull's vertices)."""
    with open(out_path) as f:
        tokens = f.read().split()
    count = int(tokens[0])
    indices = [int(t) for t in tokens[1 : 1 + count]]
    with open(f64_path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        unpack = struct.Struct("<dd").unpack_from
        return [point_key(*unpack(mm, 16 * i)) for i in indices]


# ---------------------------------------------------------------------------------------------------
# One row: one family, size and format


class Bench:
    def __init__(self, args):
        self.args = args
        self.failures = []
        self.skipped = []
        self.rows = []
        self.gpus = gpu_names()
        self.cgal = args.cgal if args.cgal and os.access(args.cgal, os.X_OK) else None
        self.qconvex = shutil.which(args.qconvex) if args.qconvex else None
        self.scipy = scipy_python(args.python)
        self.exact_cache = None

    def fail(self, row, message):
        text = f"{row}: {message}"
        log(f"*** FAILURE: {text}")
        self.failures.append(text)

    def space_needed(self, family, n, fmt, path):
        a = self.args
        hull_text = 48 * n if family == "circle" else MB  # ~all points are vertices of a circle
        need = 0 if self.reusable(path, n, fmt) else n * (16 if fmt == "f64" else 8)
        need += 2 * hull_text  # the cpu hull (the reference) and one other command's hull
        slow = n <= a.max_n_slow_peers
        if fmt == "f64" and slow and self.qconvex:
            need += 42 * n  # the .qh text
        if fmt == "f32" and slow and self.cgal:
            need += 16 * n + hull_text  # the widened f64 copy and CGAL's hull of it
        return int(need * 1.05) + 16 * MB

    @staticmethod
    def reusable(path, n, fmt):
        return os.path.exists(path) and os.path.getsize(path) == n * (16 if fmt == "f64" else 8)

    def exact_keys(self, ref_path):
        if self.exact_cache is None:
            self.exact_cache = set(text_hull_keys(ref_path))
        return self.exact_cache

    def row(self, family, n, fmt):
        a = self.args
        name = f"{family} {fmt_n(n)} {fmt}"
        stem = os.path.join(a.workdir, f"{family}-{n}")
        path = f"{stem}.{fmt}"
        cells = {}
        notes = []
        self.exact_cache = None
        self.pending = []
        result = {"family": family, "n": n, "format": fmt, "cells": cells, "notes": notes, "hull": None}
        self.rows.append(result)

        need = self.space_needed(family, n, fmt, path)
        free = shutil.disk_usage(a.workdir).free
        if need > free:
            message = f"needs about {fmt_bytes(need)} in the work directory, {fmt_bytes(free)} free"
            log(f"{name}: skipped: {message}")
            self.skipped.append(f"{name} ({message})")
            notes.append(f"skipped: {message}")
            return

        log(f"{name}")
        if self.reusable(path, n, fmt):
            log(f"  reusing {path}")
        else:
            t0 = time.perf_counter()
            r = subprocess.run([a.wagener, "generate", "--distribution", family, "-n", str(n), "--format", fmt,
                                "--seed", str(a.seed), "-o", path])
            if r.returncode != 0:
                self.fail(name, f"wagener generate failed (exit {r.returncode})")
                notes.append("wagener generate failed")
                return
            log(f"  generated {path} in {time.perf_counter() - t0:.1f} s")
        generated = [path]
        outputs = []

        def out(key):
            p = f"{stem}.{fmt}.{key}.out"
            outputs.append(p)
            return p

        def drop(p):
            """Outputs go as soon as they are checked; inputs (generated) stay until the timed runs are
            done, and with --keep after them."""
            if p in outputs and os.path.exists(p):
                os.remove(p)

        try:
            self._row_commands(name, path, fmt, n, cells, notes, result, out, drop, generated)
            log("  timed runs, interleaved")
            run_interleaved(self.pending, a)
        finally:
            for p in outputs + ([] if a.keep else generated):
                if os.path.exists(p):
                    os.remove(p)

    def _row_commands(self, name, path, fmt, n, cells, notes, result, out, drop, generated):
        a = self.args
        precision = ["--precision", "float"] if fmt == "f32" else []
        hull = [a.wagener, "hull", path, *precision]

        cells["cat"] = measure("cat FILE", ["cat", path], a, pending=self.pending)

        ref = out("cpu")
        cells["cpu"] = measure("wagener cpu", hull + ["--backend", "cpu"], a, ref, pending=self.pending)
        if cells["cpu"].error:
            self.fail(name, "wagener --backend cpu failed: " + cells["cpu"].stderr)
        have_ref = cells["cpu"].ok
        if have_ref:
            result["hull"] = count_lines(ref)
        else:
            notes.append("no reference hull (wagener cpu did not finish): nothing checked")

        # CGAL: timed on f64; on f32 only the check, on the points widened to f64 (exact).
        slow = n <= a.max_n_slow_peers
        if not self.cgal:
            cells["cgal"] = Cell(text="n/a (no bench_cgal_file)")
        elif fmt == "f64":
            cgal_out = out("cgal")
            cells["cgal"] = measure("CGAL", [self.cgal, path], a, cgal_out, pending=self.pending)
            if have_ref and cells["cgal"].ok:
                if not filecmp.cmp(ref, cgal_out, shallow=False):
                    cells["cpu"].wrong = "differs from CGAL"
                    self.fail(name, "wagener --backend cpu and CGAL print different hulls")
                else:
                    log("  check: wagener cpu = CGAL")
            elif have_ref:
                notes.append("wagener cpu not checked against CGAL (CGAL did not finish)")
            drop(cgal_out)
        else:
            cells["cgal"] = Cell(text="n/a (f64 only)")
            if have_ref and slow:
                wide = f"{path}.f64"
                generated.append(wide)
                widen_f32(path, wide)
                cgal_out = out("cgal")
                with open(cgal_out, "wb") as f:
                    _, r = run_once([self.cgal, wide], f, None, a.timeout)
                if r is not None and r.returncode == 0:
                    problem = check_float_against_widened(ref, cgal_out)
                    if problem:
                        cells["cpu"].wrong = "differs from CGAL"
                        self.fail(name, f"wagener --backend cpu and CGAL (on the widened points) differ: {problem}")
                    else:
                        log("  check: wagener cpu = CGAL on the points widened to f64")
                        notes.append("cpu hull checked against CGAL on the points widened to f64")
                else:
                    notes.append("wagener cpu not checked against CGAL (CGAL did not finish)")
                drop(cgal_out)
                drop(wide)
            elif have_ref:
                notes.append(f"wagener cpu not checked against CGAL (n > {fmt_n(a.max_n_slow_peers)})")

        # The GPU backends and --upper: checked against the cpu hull.
        def wagener_column(key, label, extra, check):
            if key in ("cuda", "auto", "upper_cuda") and not self.gpus:
                cells[key] = Cell(text="n/a (no GPU)")
                return
            o = out(key)
            cell = measure(label, hull + extra, a, o, pending=self.pending)
            cells[key] = cell
            if cell.error and "built without CUDA" in cell.stderr:
                cells[key] = Cell(text="n/a (built without CUDA)")
            elif cell.error:
                self.fail(name, f"{label} failed: {cell.stderr}")
            elif cell.ok and have_ref:
                problem = check(ref, o)
                if problem:
                    cell.wrong = "wrong hull"
                    self.fail(name, f"{label}: {problem}")
                else:
                    log(f"  check: {label} = expected hull")
            drop(o)

        def same_bytes(ref_path, o):
            return None if filecmp.cmp(ref_path, o, shallow=False) else "prints a different hull than --backend cpu"

        wagener_column("cuda", "wagener cuda", ["--backend", "cuda"], same_bytes)
        wagener_column("auto", "wagener auto", ["--backend", "auto"], same_bytes)
        wagener_column("upper_cpu", "wagener --upper cpu", ["--upper", "--backend", "cpu"], check_upper)
        wagener_column("upper_cuda", "wagener --upper cuda", ["--upper", "--backend", "cuda"], check_upper)

        # The slow peers: f64 only, n <= --max-n-slow-peers.
        for key in ("qconvex", "scipy"):
            if fmt != "f64":
                cells[key] = Cell(text="n/a (f64 only)")
            elif not slow:
                cells[key] = Cell(text=f"skipped (n > {fmt_n(a.max_n_slow_peers)})")
            elif key == "qconvex" and not self.qconvex:
                cells[key] = Cell(text="n/a (no qconvex)")
            elif key == "scipy" and not self.scipy:
                cells[key] = Cell(text="n/a (no scipy)")
            elif key == "qconvex":
                qh = f"{path}.qh"
                generated.append(qh)
                if os.path.exists(qh) and os.path.getmtime(qh) >= os.path.getmtime(path):
                    log(f"  reusing {qh}")
                else:
                    t0 = time.perf_counter()
                    write_qhull_text(path, qh)
                    log(f"  wrote qconvex's text input ({fmt_bytes(os.path.getsize(qh))}) "
                        f"in {time.perf_counter() - t0:.1f} s")
                o = out("qconvex")
                cells[key] = measure("qconvex Fx", [self.qconvex, "Fx"], a, o, stdin_path=qh,
                                    pending=self.pending)
                drop(qh)
                if cells[key].ok and have_ref:
                    notes.append(compare_vertex_sets("qconvex", self.exact_keys(ref), qconvex_keys(o, path)))
                drop(o)
            else:
                o = out("scipy")
                cells[key] = measure("scipy ConvexHull", [self.scipy, "-c", SCIPY_CODE, path], a, o,
                                    pending=self.pending)
                if cells[key].ok and have_ref:
                    notes.append(compare_vertex_sets("scipy", self.exact_keys(ref), text_hull_keys(o)))
                drop(o)
        self.exact_cache = None


# ---------------------------------------------------------------------------------------------------
# The report


def markdown(bench, args, header):
    a = args
    lines = [header, ""]
    lines.append("| family | n | format | hull | " + " | ".join(title for _, title in COLUMNS) + " | notes |")
    lines.append("|---|---:|---|---:|" + "---:|" * len(COLUMNS) + "---|")
    for row in bench.rows:
        cells = row["cells"]
        floor = cells.get("cat")
        rendered = [cells[key].render(floor) if key in cells else "—" for key, _ in COLUMNS]
        hull = str(row["hull"]) if row["hull"] is not None else "—"
        notes = "; ".join(row["notes"]) or ""
        lines.append(f"| {row['family']} | {fmt_n(row['n'])} | {row['format']} | {hull} | "
                     + " | ".join(rendered) + f" | {notes} |")
    runs = f"median of {a.runs} runs after one warm-up run, the row's commands interleaved round by round"
    lines += [
        "",
        f"Each cell: {runs} (the warm-up also puts the file in the page cache), in seconds of wall time "
        "of the whole process (`time.perf_counter` around `subprocess.run`, stdout to /dev/null), and in "
        "parentheses the ratio to `cat FILE` on the same file. "
        f"A command that ran longer than {a.timeout:g} s is shown as \"> {a.timeout:g} s\".",
        "",
        "- `cat FILE`: `cat FILE` (stdout to /dev/null), the I/O floor;",
        "- `wagener X`: `wagener hull FILE --backend X` (f32 rows add `--precision float`); "
        "`wagener --upper X`: the same with `--upper` (the input is not sorted);",
        "- CGAL: `bench_cgal_file FILE` (CGAL::convex_hull_2, Epick, on the mapped f64 file; f64 only);",
        "- qconvex: `qconvex Fx < FILE.qh`: Qhull's program reads its own **text** format (dimension, count, "
        "`x y` lines; written once from the f64 file, shortest round-trip decimals, about 2.5x the bytes), "
        "so its time includes parsing text; it prints the indices of the hull's vertices;",
        "- scipy: a `python3` process (interpreter start and imports included) that loads the f64 file "
        "with `numpy.fromfile`, runs `scipy.spatial.ConvexHull` and prints the vertices as `x y` lines;",
        f"- qconvex and scipy run for n up to {fmt_n(a.max_n_slow_peers)} (`--max-n-slow-peers`).",
        "",
        "Checked once per command, on the warm-up run's output: wagener cpu prints the same hull as CGAL, "
        "byte for byte (f32 rows: CGAL on the points widened to f64, rounded back to float); wagener cuda "
        "and auto print the same bytes as wagener cpu; `--upper` prints the full hull's upper chain. "
        "qconvex and scipy are not exact (their vertex sets are compared with the exact hull's in the notes).",
    ]
    if bench.skipped:
        lines += ["", "Skipped: " + "; ".join(bench.skipped) + "."]
    if bench.failures:
        lines += ["", "**Failures:** " + "; ".join(bench.failures)]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wagener", default=os.path.join(REPO, "build", "wagener"), help="the wagener binary")
    parser.add_argument("--cgal", default=None,
                        help="bench_cgal_file (default: bench/bench_cgal_file beside the wagener binary)")
    parser.add_argument("--qconvex", default="qconvex", help="Qhull's qconvex program (default: from the PATH)")
    parser.add_argument("--python", default=None,
                        help="python3 with numpy and scipy for the scipy peer (default: the first that has them)")
    parser.add_argument("--families", type=lambda s: parse_list(s, ["disk", "circle"]), default=["disk", "circle"])
    parser.add_argument("--sizes", type=lambda s: [parse_count(x) for x in parse_list(s)],
                        default=[10**6, 10**7, 10**8], help="point counts, e.g. 1e6,10^7,100000000")
    parser.add_argument("--formats", type=lambda s: parse_list(s, ["f64", "f32"]), default=["f64"])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per command (default 5)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per run of a command (default 60)")
    parser.add_argument("--max-n-slow-peers", type=parse_count, default=10**7,
                        help="largest n for qconvex and scipy (default 10^7)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workdir", default=None, help="where the inputs go (default: a new temporary directory)")
    parser.add_argument("--keep", action="store_true", help="keep the generated files (reused by a later run)")
    parser.add_argument("--markdown", default=None, help="write the table to this file")
    parser.add_argument("--results", default=None,
                        help="a results file (bench/RESULTS.md) whose block --section gets the table "
                             "(bench/results_section.py: the table it replaces goes to the archive)")
    parser.add_argument("--section", default="whole",
                        help="the block, e.g. 2core-whole or gpu1-whole (default: whole, which "
                             "RESULTS.md has no block for, so the table goes to the archive)")
    args = parser.parse_args()

    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if not os.access(args.wagener, os.X_OK):
        parser.error(f"{args.wagener} is not an executable (build wagener_cli, or pass --wagener)")
    if args.cgal is None:
        args.cgal = os.path.join(os.path.dirname(os.path.abspath(args.wagener)), "bench", "bench_cgal_file")

    own_workdir = args.workdir is None
    if own_workdir:
        args.workdir = tempfile.mkdtemp(prefix="wagener-whole-")
    else:
        os.makedirs(args.workdir, exist_ok=True)

    wrapper, wrapper_args = os.environ.get("WAGENER_WHOLE_WRAPPER"), os.environ.get("WAGENER_WHOLE_ARGS", "")
    if wrapper and wrapper_args.isdigit() and int(wrapper_args) <= len(sys.argv) - 1:
        given = sys.argv[len(sys.argv) - int(wrapper_args):]
        command = " ".join([wrapper] + ([shlex.join(given)] if given else []))
    else:
        command = shlex.join(["python3", display_path(sys.argv[0])] + sys.argv[1:])
    bench = Bench(args)
    log(f"work directory {args.workdir}; GPU: {', '.join(bench.gpus) or 'none'}; "
        f"CGAL: {bench.cgal or 'missing'}; qconvex: {bench.qconvex or 'missing'}; "
        f"scipy via: {bench.scipy or 'missing'}")
    before = busy_percent()
    if before is not None and before > 10:
        log(f"warning: the machine is {before:.0f}% busy before the benchmark; numbers will be inflated")
    ticks0, own0 = machine_ticks(), own_ticks()
    started = datetime.datetime.now(datetime.timezone.utc)

    try:
        for family in args.families:
            for n in args.sizes:
                for fmt in args.formats:
                    bench.row(family, n, fmt)
    finally:
        if own_workdir and not args.keep:
            shutil.rmtree(args.workdir, ignore_errors=True)

    ticks1, own1 = machine_ticks(), own_ticks()
    others = None
    if ticks0 and ticks1 and ticks1[1] > ticks0[1]:
        others = max(0.0, 100.0 * ((ticks1[0] - ticks0[0]) - (own1 - own0)) / (ticks1[1] - ticks0[1]))
    gpu = f", GPU: {', '.join(bench.gpus)}" if bench.gpus else ", no GPU"
    load = ""
    if before is not None and others is not None:
        load = f" Other processes' share of the CPUs: {before:.0f}% just before, {others:.0f}% during the run."
        if others > 5 or before > 10:
            load += " **Numbers inflated by other work; rerun on an idle machine.**"
    header = (f"{started:%Y-%m-%d %H:%M} UTC; machine: {len(os.sched_getaffinity(0))} cores, {cpu_model()}{gpu}; "
              f"commit {git_commit()}; command: `{command}`.{load}")
    table = markdown(bench, args, header)
    print(table, end="")
    body = "### Whole process: a file in, the hull printed, against `cat` and the peers\n\nWritten by " \
           "`bench/run_whole.sh` (`bench/whole_process.py`); rerun it to update this section.\n\n" + table
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table)
        log(f"wrote {args.markdown}")
    if args.results:
        what, archive = results_section.put(args.results, args.section, body)
        if what == "replaced":
            log(f"wrote block {args.section} of {args.results}" + (f"; the old one went to {archive}" if archive else ""))
        else:
            log(f"{args.results} has no block {args.section}: the table went to {archive}")
    if bench.failures:
        log(f"{len(bench.failures)} failure(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
