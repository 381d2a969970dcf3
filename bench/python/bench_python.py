#!/usr/bin/env python3
"""The Python package's speed, in process: wagener.convex_hull against scipy and shapely, and on a
CUDA device against the C++ device entry point.

Host part: float64 points generated with numpy (fixed seeds), the uniform disk at --sizes and the
circle family (every point on or next to the hull) at the sizes up to 10^6. Each call is timed with
time.perf_counter in this process, the median of --runs runs after one warm-up call:

    wagener.convex_hull(pts)                  backend "auto" (the CPU below 2^20 points or without a GPU)
    wagener.convex_hull(pts, backend="cpu")
    wagener.ConvexHull(pts)                   scipy's 2D attributes (vertices as indices, area, ...)
    scipy.spatial.ConvexHull(pts)             Qhull
    shapely                                   building the MultiPoint from the array, then .convex_hull

A peer slower than --max-seconds on one call is not run at the larger sizes of that family. The
warm-up results are checked: wagener's vertex set must equal scipy's on the disk (and cpu's, auto's
and ConvexHull's must agree); on the circle, where Qhull is not exact, the difference is reported.

Device part (when CuPy or a CUDA build of PyTorch is importable and the module was built with CUDA):
2^--device-log2 float32 disk points generated on the device, hulled by wagener.convex_hull on a CuPy
array and on a PyTorch CUDA tensor (the same memory), against the module's lowest-level function,
_wagener.convex_hull_device (wagener::cuda::convex_hull_device on the raw device pointers, into an
output buffer allocated once), and against a device-to-device copy of the same bytes (the memory
floor). Device results are checked against the host's hull of the same points.

    PYTHONPATH=build/python /usr/bin/python3 bench/python/bench_python.py --sizes 1e5,1e6,1e7 --runs 5 \\
        --markdown bench/python/host-2core.md

Progress goes to stderr, the markdown tables to stdout (and to --markdown FILE). The exit status is
1 when a wagener result is wrong.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import statistics
import subprocess
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED = 20261124
CIRCLE_MAX_N = 10**6


def log(message: str) -> None:
    print(f"bench_python: {message}", file=sys.stderr, flush=True)


def parse_count(text: str) -> int:
    """'1000000', '1_000_000', '1e6', '10^6' or '2^20' -> an int."""
    s = text.strip().replace("_", "")
    m = re.fullmatch(r"(\d+)\^(\d+)", s)
    if m:
        return int(m.group(1)) ** int(m.group(2))
    value = float(s)
    if value != int(value) or value < 1:
        raise argparse.ArgumentTypeError(f"not a positive count: {text}")
    return int(value)


def exponent(n: int) -> str:
    """10^6 for powers of ten, 2^28 for powers of two, else the number."""
    for base in (10, 2):
        k = round(np.log(n) / np.log(base))
        if k > 1 and base**k == n:
            return f"{base}^{k}"
    return str(n)


def seconds(t: float) -> str:
    return np.format_float_positional(t, precision=3, unique=False, fractional=False, trim="-")


def ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or b <= 0:
        return "—"
    r = a / b
    return f"{r:.1f}×" if r >= 10 else f"{r:.2f}×"


# ---------------------------------------------------------------------------------------------------
# The machine


def run_text(args: list[str]) -> str:
    try:
        return subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def git_commit() -> str:
    commit = run_text(["git", "rev-parse", "--short", "HEAD"]) or "unknown"
    if run_text(["git", "status", "--porcelain", "--untracked-files=no"]):
        commit += " (with uncommitted changes)"
    return commit


class CpuShare:
    """The share of all CPUs that other processes used between start() and stop() (/proc/stat)."""

    def __init__(self) -> None:
        self.tick = os.sysconf("SC_CLK_TCK")

    @staticmethod
    def _stat() -> tuple[int, int] | None:
        try:
            with open("/proc/stat") as f:
                fields = [int(v) for v in f.readline().split()[1:9]]
        except (OSError, ValueError):
            return None
        total = sum(fields)
        return total, total - fields[3] - fields[4]  # busy: all but idle and iowait

    @staticmethod
    def _own() -> float:
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system

    def start(self) -> None:
        self.begin, self.own = self._stat(), self._own()

    def stop(self) -> float | None:
        end = self._stat()
        if self.begin is None or end is None or end[0] <= self.begin[0]:
            return None
        total = (end[0] - self.begin[0]) / self.tick
        other = (end[1] - self.begin[1]) / self.tick - (self._own() - self.own)
        return max(0.0, other / total)


def load_average() -> str:
    try:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "unknown"


# ---------------------------------------------------------------------------------------------------
# Host part


def disk(n: int) -> np.ndarray:
    """n uniform points in the unit disk (area-preserving map of two uniform numbers), float64."""
    rng = np.random.default_rng([SEED, n, 1])
    u, v = rng.random(n), rng.random(n)
    r, a = np.sqrt(u), 2 * np.pi * v
    return np.column_stack((r * np.cos(a), r * np.sin(a)))


def circle(n: int) -> np.ndarray:
    """n points on the unit circle (cos, sin of a uniform angle, rounded to float64)."""
    rng = np.random.default_rng([SEED, n, 2])
    a = 2 * np.pi * rng.random(n)
    return np.column_stack((np.cos(a), np.sin(a)))


FAMILIES = {"disk": disk, "circle": circle}


def vertex_set(points: np.ndarray) -> set[tuple[float, float]]:
    return set(map(tuple, np.asarray(points).tolist()))


class Peer:
    """One implementation: name, the call to time, and why it cannot run (None when it can)."""

    def __init__(self, key: str, heading: str, call, missing: str | None = None) -> None:
        self.key, self.heading, self.call, self.missing = key, heading, call, missing


def host_peers() -> tuple[list[Peer], dict[str, str]]:
    import wagener

    versions = {"numpy": np.__version__, "wagener": wagener.__version__}
    peers = [
        Peer("auto", "wagener auto", lambda p: wagener.convex_hull(p)),
        Peer("cpu", "wagener cpu", lambda p: wagener.convex_hull(p, backend="cpu")),
        Peer("wch", "wagener.ConvexHull", lambda p: wagener.ConvexHull(p)),
    ]
    try:
        import scipy
        from scipy.spatial import ConvexHull

        versions["scipy"] = scipy.__version__
        peers.append(Peer("scipy", "scipy ConvexHull", lambda p: ConvexHull(p)))
    except ImportError:
        versions["scipy"] = "n/a (not installed)"
        peers.append(Peer("scipy", "scipy ConvexHull", None, "n/a (not installed)"))
    try:
        import shapely

        versions["shapely"] = shapely.__version__
        if hasattr(shapely, "multipoints"):  # shapely 2: vectorised constructor
            peers.append(Peer("shapely", "shapely", lambda p: shapely.multipoints(p).convex_hull))
            versions["shapely_call"] = "shapely.multipoints(pts).convex_hull"
        else:
            from shapely.geometry import MultiPoint

            peers.append(Peer("shapely", "shapely", lambda p: MultiPoint(p).convex_hull))
            versions["shapely_call"] = "shapely.geometry.MultiPoint(pts).convex_hull"
    except ImportError:
        versions["shapely"] = "n/a (not installed)"
        peers.append(Peer("shapely", "shapely", None, "n/a (not installed)"))
    return peers, versions


def shapely_build_seconds(points: np.ndarray) -> float:
    """The MultiPoint construction alone (part of shapely's timed call)."""
    import shapely

    if hasattr(shapely, "multipoints"):
        start = time.perf_counter()
        shapely.multipoints(points)
    else:
        from shapely.geometry import MultiPoint

        start = time.perf_counter()
        MultiPoint(points)
    return time.perf_counter() - start


def hull_vertices(key: str, result, points: np.ndarray) -> np.ndarray:
    """The hull's vertices as an (h, 2) array, from each implementation's result."""
    if key in ("auto", "cpu"):
        return result
    if key in ("wch", "scipy"):
        return points[result.vertices]
    coords = np.asarray(result.exterior.coords) if hasattr(result, "exterior") else np.asarray(result.coords)
    return coords[:-1] if len(coords) > 1 and hasattr(result, "exterior") else coords


def time_peer(peer: Peer, points: np.ndarray, runs: int, max_seconds: float):
    """(warm-up result, median seconds, number of timed runs, over the cap?)."""
    start = time.perf_counter()
    result = peer.call(points)
    first = time.perf_counter() - start
    if first > max_seconds:
        return result, first, 1, True
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        peer.call(points)
        times.append(time.perf_counter() - start)
        if times[-1] > max_seconds:
            return result, statistics.median(times), len(times), True
    return result, statistics.median(times), len(times), False


def host_part(args, failures: list[str]) -> tuple[list[str], dict[str, str]]:
    peers, versions = host_peers()
    rows = []  # dicts per family x n
    over: dict[tuple[str, str], int] = {}  # (family, key) -> the n at which a call passed the cap
    jobs = [("disk", n) for n in args.sizes] + [("circle", n) for n in args.sizes if n <= CIRCLE_MAX_N]
    for family, n in jobs:
        log(f"{family} {n}: generating")
        points = FAMILIES[family](n)
        row = {"family": family, "n": n, "cells": {}, "time": {}}
        results = {}
        for peer in peers:
            if peer.missing:
                row["cells"][peer.key] = peer.missing
                continue
            if (family, peer.key) in over:
                row["cells"][peer.key] = f"skipped (> {args.max_seconds:g} s at {exponent(over[family, peer.key])})"
                continue
            log(f"{family} {n}: {peer.heading}")
            result, t, k, capped = time_peer(peer, points, args.runs, args.max_seconds)
            results[peer.key] = hull_vertices(peer.key, result, points)
            row["time"][peer.key] = t
            cell = seconds(t)
            if peer.key == "shapely":
                cell += f" (build {seconds(shapely_build_seconds(points))})"
            if capped:
                over[family, peer.key] = n
                cell += f" ({k} run{'s' if k > 1 else ''}, over the cap)"
            row["cells"][peer.key] = cell
            log(f"{family} {n}: {peer.heading} {seconds(t)} s")
        row["check"] = check_host(family, n, results, failures)
        rows.append(row)
        del points, results

    heading = ["family", "n"] + [p.heading + " (s)" for p in peers]
    heading += ["scipy / wagener auto", "scipy / wagener.ConvexHull", "check (h = wagener's vertices)"]
    lines = ["| " + " | ".join(heading) + " |", "|" + "---|" * 2 + "---:|" * (len(peers) + 2) + "---|"]
    for row in rows:
        cells = [row["family"], exponent(row["n"])] + [row["cells"][p.key] for p in peers]
        t = row["time"]
        cells += [ratio(t.get("scipy"), t.get("auto")), ratio(t.get("scipy"), t.get("wch")), row["check"]]
        lines.append("| " + " | ".join(cells) + " |")
    target = next((r for r in rows if r["family"] == "disk" and r["n"] == 10**6), None)
    summary = []
    if target and "scipy" in target["time"] and "auto" in target["time"]:
        r = target["time"]["scipy"] / target["time"]["auto"]
        summary.append(f"**scipy / wagener at 10^6 disk points: {r:.1f}× (target: at least 20× on 2 cores, "
                       f"this machine has {os.cpu_count()}) — {'met' if r >= 20 else 'not met'}.**")
    versions["host_rows"] = str(len(rows))
    return lines + [""] + summary, versions


def check_host(family: str, n: int, results: dict, failures: list[str]) -> str:
    """wagener's results agree with each other; against scipy and shapely, the vertex sets."""
    notes = []
    exact = results.get("auto")
    if exact is None:
        exact = results.get("cpu")
    if exact is None:
        return "—"
    for key in ("cpu", "wch"):
        if key in results and not np.array_equal(results[key], exact):
            failures.append(f"{family} {n}: wagener {key} differs from wagener auto")
            notes.append(f"**wagener {key} ≠ auto**")
    exact_set = vertex_set(exact)
    for key, name in (("scipy", "scipy"), ("shapely", "shapely")):
        if key not in results:
            continue
        other = vertex_set(results[key])
        missing, extra = len(exact_set - other), len(other - exact_set)
        if not missing and not extra:
            notes.append(f"= {name}")
        else:
            notes.append(f"{name}: {missing} missing, {extra} extra")
            if family == "disk" and key == "scipy":
                failures.append(f"{family} {n}: wagener's vertices differ from scipy's ({missing} missing, {extra} extra)")
                notes[-1] = f"**{notes[-1]}**"
    return f"h = {len(exact)}; " + ", ".join(notes)


# ---------------------------------------------------------------------------------------------------
# Integer part: int32 points against OpenCV's convexHull


INT32_MAX = np.iinfo(np.int32).max


def int_disk(n: int, radius: float, stream: int) -> np.ndarray:
    """n points of the disk of `radius` around the origin, rounded to int32."""
    rng = np.random.default_rng([SEED, n, stream])
    r, a = radius * np.sqrt(rng.random(n)), 2 * np.pi * rng.random(n)
    return np.rint(np.column_stack((r * np.cos(a), r * np.sin(a)))).astype(np.int32)


def int_square(n: int) -> np.ndarray:
    """n points uniform over the whole int32 range."""
    rng = np.random.default_rng([SEED, n, 4])
    return rng.integers(-INT32_MAX - 1, INT32_MAX, size=(n, 2), dtype=np.int32, endpoint=True)


def int_contour(n: int) -> np.ndarray:
    """n pixels of an image contour, as cv2.findContours gives one: the boundary of a wavy blob
    (r = R (1 + 0.25 sin 5a + 0.1 sin 17a)) walked pixel by pixel, 8-connected, each pixel once; R
    makes the boundary a little longer than n pixels, and its first n are taken."""
    rng = np.random.default_rng([SEED, n, 5])
    radius = n / (2 * np.pi * 1.9)  # the boundary is about 2 pi R 2 pixels long (measured)
    phase = rng.random(2) * 2 * np.pi
    a = np.linspace(0, 2 * np.pi, 4 * n, endpoint=False)
    r = radius * (1 + 0.25 * np.sin(5 * a + phase[0]) + 0.1 * np.sin(17 * a + phase[1]))
    pixels = np.rint(np.column_stack((r * np.cos(a), r * np.sin(a)))).astype(np.int32)
    keep = np.any(pixels != np.roll(pixels, 1, axis=0), axis=1)  # repeated consecutive pixels once
    return np.ascontiguousarray(pixels[keep][:n])


INT_FAMILIES = {
    "disk (radius 2^20)": lambda n: int_disk(n, 2**20, 3),
    "square (whole int32 range)": int_square,
    "disk (radius 2^31 - 1)": lambda n: int_disk(n, INT32_MAX, 6),
    "contour": int_contour,
}


def exact_int_hull(points: np.ndarray) -> list[tuple[int, int]]:
    """The exact hull in Python integers (Andrew's monotone chain): strict vertices, counter-clockwise
    from the lexicographically smallest."""
    pts = sorted(set(map(tuple, points.tolist())))
    if len(pts) <= 2:
        return pts

    def chain(seq):
        out = []
        for p in seq:
            while len(out) >= 2 and (out[-1][0] - out[-2][0]) * (p[1] - out[-2][1]) - (out[-1][1] - out[-2][1]) * (
                p[0] - out[-2][0]
            ) <= 0:
                out.pop()
            out.append(p)
        return out

    return chain(pts)[:-1] + chain(reversed(pts))[:-1]


def classify_against(hull: list[tuple[int, int]], points: list[tuple[int, int]]) -> dict[str, int]:
    """Each point against the strictly convex, counter-clockwise `hull`, in exact integers: on one
    of its edges, strictly inside, or outside it."""
    counts = {"on an edge": 0, "inside": 0, "outside": 0}
    h = len(hull)
    for p in points:
        sides = []
        for i in range(h):
            a, b = hull[i], hull[(i + 1) % h]
            sides.append((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]))
        if min(sides) < 0:
            counts["outside"] += 1
        elif min(sides) == 0:
            counts["on an edge"] += 1
        else:
            counts["inside"] += 1
    return counts


def check_int(points: np.ndarray, wagener_hull: np.ndarray, opencv_hull: np.ndarray | None, exact_max: int,
              failures: list[str], label: str) -> str:
    """wagener's hull against the exact one (up to exact_max points), and OpenCV's against wagener's,
    each difference decided in exact integers."""
    mine = [tuple(map(int, p)) for p in wagener_hull]
    notes = [f"h = {len(mine)}"]
    if len(points) <= exact_max:
        if mine == exact_int_hull(points):
            notes.append("wagener = exact")
        else:
            failures.append(f"{label}: wagener's int32 hull differs from the exact hull")
            notes.append("**wagener ≠ exact**")
    if opencv_hull is None:
        return "; ".join(notes)
    theirs = {tuple(map(int, p)) for p in opencv_hull.reshape(-1, 2)}
    missing = [v for v in mine if v not in theirs]
    extra = sorted(theirs - set(mine))
    if not missing and not extra:
        notes.append("= OpenCV")
        return "; ".join(notes)
    parts, wrong = [], bool(missing)
    if missing:
        parts.append(f"misses {len(missing)} vertices")
    if extra:
        if len(mine) >= 3:
            where = classify_against(mine, extra[:1000])  # (a garbled hull: its first thousand points)
            wrong = wrong or where["inside"] > 0 or where["outside"] > 0
            parts.append(f"{len(extra)} non-vertices (" + ", ".join(f"{v} {k}" for k, v in where.items() if v) + ")")
        else:
            wrong = True
            parts.append(f"{len(extra)} non-vertices")
    text = "OpenCV " + "; ".join(parts)
    notes.append(f"**{text}**" if wrong else text)
    return "; ".join(notes)


def int_part(args, failures: list[str]) -> tuple[list[str], dict[str, str]]:
    import wagener

    versions = {}
    try:
        import cv2

        versions["opencv"] = cv2.__version__
        opencv = Peer("opencv", "OpenCV convexHull", lambda p: cv2.convexHull(p))
    except ImportError:
        versions["opencv"] = "n/a (not installed)"
        opencv = Peer("opencv", "OpenCV convexHull", None, "n/a (not installed)")
    peers = [Peer("auto", "wagener auto", lambda p: wagener.convex_hull(p)), opencv]
    rows = []
    over: set[tuple[str, str]] = set()
    for family, make in INT_FAMILIES.items():
        for n in args.int_sizes:
            log(f"int32 {family} {n}: generating")
            points = make(n)
            cells, times, results = {}, {}, {}
            for peer in peers:
                if peer.missing:
                    cells[peer.key] = peer.missing
                    continue
                if (family, peer.key) in over:
                    cells[peer.key] = f"skipped (> {args.max_seconds:g} s)"
                    continue
                log(f"int32 {family} {n}: {peer.heading}")
                result, t, k, capped = time_peer(peer, points, args.runs, args.max_seconds)
                results[peer.key], times[peer.key] = result, t
                cells[peer.key] = seconds(t) + (" (over the cap)" if capped else "")
                if capped:
                    over.add((family, peer.key))
            if results["auto"].dtype != np.int32:
                failures.append(f"int32 {family} {n}: wagener returned {results['auto'].dtype}")
            check = check_int(points, results["auto"], results.get("opencv"), args.exact_max, failures,
                              f"int32 {family} {n}")
            rows.append([family, exponent(len(points)), cells["auto"], cells["opencv"],
                         ratio(times.get("opencv"), times.get("auto")), check])
            del points, results
    lines = ["| family | n | wagener auto (s) | OpenCV convexHull (s) | OpenCV / wagener | check |",
             "|---|---:|---:|---:|---:|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    target = [r for r in rows if r[1] == "10^6" and r[4] != "—"]
    summary = []
    if target:
        worst = min(float(r[4].rstrip("×")) for r in target)
        summary.append(f"**OpenCV / wagener at 10^6 int32 points, the least over the families: {worst:.1f}× "
                       f"(target: at least 5×) — {'met' if worst >= 5 else 'not met'}.**")
    return lines + [""] + summary, versions


# ---------------------------------------------------------------------------------------------------
# Device part


class DeviceLib:
    """CuPy or PyTorch: what the device part does with each."""

    def __init__(self, name: str, lib) -> None:
        self.name, self.lib = name, lib

    def sync(self) -> None:
        if self.name == "cupy":
            self.lib.cuda.Device().synchronize()
        else:
            self.lib.cuda.synchronize()

    def pointer(self, a) -> int:
        return int(a.data.ptr) if self.name == "cupy" else int(a.data_ptr())

    def stream(self, a) -> int:
        """The stream wagener.convex_hull would use for this array."""
        if self.name == "cupy":
            s = a.__cuda_array_interface__.get("stream")
            return int(s) if s is not None else int(self.lib.cuda.get_current_stream().ptr)
        return int(self.lib.cuda.current_stream(a.device).cuda_stream)

    def empty(self, n: int):
        if self.name == "cupy":
            return self.lib.empty((n, 2), dtype=self.lib.float32)
        return self.lib.empty((n, 2), dtype=self.lib.float32, device="cuda")

    def to_host(self, a) -> np.ndarray:
        return self.lib.asnumpy(a) if self.name == "cupy" else a.cpu().numpy()

    def copy(self, a):
        return a.copy() if self.name == "cupy" else a.clone()


def device_libraries() -> tuple[list[DeviceLib], dict[str, str]]:
    found, notes = [], {}
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() > 0:
            found.append(DeviceLib("cupy", cupy))
            notes["cupy"] = cupy.__version__
        else:
            notes["cupy"] = "n/a (no CUDA device)"
    except ImportError:
        notes["cupy"] = "n/a (not installed)"
    except Exception as error:  # CUDA runtime errors without a device or driver
        notes["cupy"] = f"n/a ({type(error).__name__})"
    try:
        import torch

        if torch.cuda.is_available():
            found.append(DeviceLib("torch", torch))
            notes["torch"] = torch.__version__
        else:
            notes["torch"] = f"n/a ({torch.__version__} without a usable CUDA device)"
    except ImportError:
        notes["torch"] = "n/a (not installed)"
    return found, notes


def device_disk(dev: DeviceLib, n: int):
    """n float32 points in the unit disk generated on the device: (sqrt(u) cos 2πv, sqrt(u) sin 2πv)."""
    if dev.name == "cupy":
        cp = dev.lib
        rng = cp.random.default_rng(SEED)
        r = cp.sqrt(rng.random(n, dtype=cp.float32))
        a = rng.random(n, dtype=cp.float32) * cp.float32(2 * np.pi)
        points = cp.stack((r * cp.cos(a), r * cp.sin(a)), axis=1)
        del r, a
        cp.get_default_memory_pool().free_all_blocks()
    else:
        torch = dev.lib
        g = torch.Generator(device="cuda").manual_seed(SEED)
        r = torch.sqrt(torch.rand(n, generator=g, device="cuda", dtype=torch.float32))
        a = torch.rand(n, generator=g, device="cuda", dtype=torch.float32) * (2 * np.pi)
        points = torch.stack((r * torch.cos(a), r * torch.sin(a)), dim=1).contiguous()
        del r, a
        torch.cuda.empty_cache()
    dev.sync()
    return points


def time_device(dev: DeviceLib, call, runs: int) -> list[float]:
    """Median inputs: seconds of each run after one warm-up, the device synchronised around each."""
    call()
    dev.sync()
    times = []
    for _ in range(runs):
        dev.sync()
        start = time.perf_counter()
        call()
        dev.sync()
        times.append(time.perf_counter() - start)
    return times


def device_part(args, failures: list[str]) -> tuple[list[str], dict[str, str]]:
    import wagener
    from wagener import _wagener

    libs, notes = device_libraries()
    if not libs:
        return [], notes
    if not wagener.cuda_available():
        notes["skipped"] = "this wagener build has no CUDA backend (or sees no device)"
        return [], notes
    n = 1 << args.device_log2
    first = libs[0]
    if first.name == "cupy":
        notes["device"] = first.lib.cuda.runtime.getDeviceProperties(first.lib.cuda.Device().id)["name"].decode()
    else:
        notes["device"] = first.lib.cuda.get_device_name()
    log(f"device: {notes['device']}; generating 2^{args.device_log2} float32 disk points with {first.name}")
    points = {first.name: device_disk(first, n)}
    for dev in libs[1:]:  # the same memory, viewed through the other library (DLPack, no copy)
        points[dev.name] = dev.lib.from_dlpack(points[first.name])
    notes["generated_by"] = first.name

    rows = []  # (label, seconds of each timed run, note)
    # The C++ entry point: the module's lowest-level function on raw pointers, output allocated once.
    ref = first
    out = ref.empty(n)
    src = points[ref.name]
    ptr, out_ptr, stream = ref.pointer(src), ref.pointer(out), ref.stream(src)
    hs = []

    def raw():
        hs.append(_wagener.convex_hull_device(ptr, n, out_ptr, stream, "float32"))

    log("device: C++ entry point (_wagener.convex_hull_device)")
    raw_times = time_device(ref, raw, args.device_runs)
    raw_t = statistics.median(raw_times)
    raw_hull = ref.to_host(out[: hs[-1]])
    del out
    rows.append(("C++ entry point: `_wagener.convex_hull_device` on the raw pointers (output allocated once)",
                 raw_times, f"h = {len(raw_hull)}"))

    device_results = {}
    for dev in libs:
        label = "`wagener.convex_hull(cupy array)`" if dev.name == "cupy" else "`wagener.convex_hull(torch CUDA tensor)`"
        log(f"device: {label}")
        result = []
        a = points[dev.name]
        times = time_device(dev, lambda: result.append(wagener.convex_hull(a)), args.device_runs)
        device_results[dev.name] = dev.to_host(result[-1])
        rows.append((label, times, f"h = {len(device_results[dev.name])}"))
        result.clear()

    log("device: device-to-device copy (the memory floor)")
    copy_times = time_device(first, lambda: first.copy(points[first.name]), args.device_runs)
    copy_t = statistics.median(copy_times)
    rows.append((f"floor: device-to-device copy of the same {n * 8 / 2**30:g} GiB (`{'a.copy()' if first.name == 'cupy' else 'a.clone()'}`)",
                 copy_times, f"{2 * n * 8 / copy_t / 1e12:.2f} TB/s read + written"))

    # Checks: every device hull equals the host's hull of the same points; the 2^20-point prefix too.
    log("device: checks against the host")
    host_points = first.to_host(points[first.name])
    host_hull = wagener.convex_hull(host_points, backend="cpu")
    checks = []
    for name, hull in [("C++ entry point", raw_hull)] + list(device_results.items()):
        same = np.array_equal(hull, host_hull)
        checks.append(f"{name} at 2^{args.device_log2}: {'= host' if same else 'DIFFERS from host'}")
        if not same:
            failures.append(f"device {name}: the hull of 2^{args.device_log2} points differs from the host's")
    m = min(n, 1 << 20)
    for dev in libs:
        sub = points[dev.name][:m]
        hull = dev.to_host(wagener.convex_hull(sub))
        same = np.array_equal(hull, wagener.convex_hull(host_points[:m], backend="cpu"))
        checks.append(f"{dev.name} at {exponent(m)} (a prefix copy): {'= host' if same else 'DIFFERS from host'}")
        if not same:
            failures.append(f"device {dev.name}: the hull of {m} points differs from the host's")
    del host_points

    lines = [f"2^{args.device_log2} = {n} float32 uniform-disk points ({n * 8 / 2**30:g} GiB) generated on the device "
             f"with {first.name}" + (" and viewed by the others through DLPack (the same memory)" if len(libs) > 1 else "")
             + f"; median of {args.device_runs} runs after a warm-up, the device synchronised before and after each call.", "",
             "| call | median s | min–max s | median / C++ entry point | median / copy floor | notes |",
             "|---|---:|---:|---:|---:|---|"]
    for label, times, note in rows:
        t = statistics.median(times)
        lines.append(f"| {label} | {seconds(t)} | {seconds(min(times))}–{seconds(max(times))} | {ratio(t, raw_t)} | "
                     f"{ratio(t, copy_t)} | {note} |")
    lines += ["", "Checks (each equals the host's `backend=\"cpu\"` hull of the same points, array for array): "
              + "; ".join(checks) + "."]
    worst = max((statistics.median(t) for label, t, _ in rows if label.startswith("`wagener")), default=None)
    if worst is not None:
        r = worst / raw_t
        lines.append(f"**Slowest Python call / C++ entry point: {r:.3f}× (target: within 1.2×) — "
                     f"{'met' if r <= 1.2 else 'not met'}.** The reference is the C++ function "
                     "`wagener::cuda::convex_hull_device` reached through the module's own binding with raw "
                     "pointers (no Python-side allocation, conversion or result copy).")
    return lines, notes


# ---------------------------------------------------------------------------------------------------
# GIS: wagener.gis against GeoPandas on GeoSeries and GeoDataFrames of shapely geometries.


def gis_workloads(n: int):
    """(name, GeoPandas call, wagener.gis call) on n geometries (fixed seed): one hull per polygon,
    and hulls per group of 100 rows (n / 100 groups) of points and of polygons, as dissolve makes them."""
    import geopandas
    from shapely.geometry import Polygon

    import wagener.gis

    rng = np.random.default_rng(SEED + 3)
    groups = max(1, n // 100)
    label = rng.integers(0, groups, n)
    centre = rng.uniform(-1000, 1000, (groups, 2))
    # Star-shaped polygons of 12 vertices (most of them not hull vertices) and convex ones (regular
    # 12-gons, valid for GEOS's union), around their group's centre.
    k = 12
    angles = np.sort(rng.uniform(0, 2 * np.pi, (n, k)), axis=1)
    offsets = centre[label] + rng.normal(0, 3, (n, 2))
    star = np.stack((np.cos(angles), np.sin(angles)), axis=2) * rng.uniform(0.3, 1, (n, k, 1)) + offsets[:, None]
    regular = np.linspace(0, 2 * np.pi, k, endpoint=False)
    convex = np.stack((np.cos(regular), np.sin(regular)), axis=1)[None] + offsets[:, None]
    stars = geopandas.GeoSeries([Polygon(ring) for ring in star])
    points = geopandas.GeoDataFrame({"group": label}, geometry=geopandas.points_from_xy(*(centre[label] + rng.normal(0, 3, (n, 2))).T))
    polygons = geopandas.GeoDataFrame({"group": label}, geometry=geopandas.GeoSeries([Polygon(ring) for ring in convex]))
    return [
        (f"one hull per polygon ({n} star-shaped 12-gons)", "GeoSeries.convex_hull", "wagener.gis.convex_hulls(series)",
         lambda: stars.convex_hull, lambda: wagener.gis.convex_hulls(stars)),
        (f"hulls of groups of points ({n} points, {groups} groups)", "dissolve(by=...).convex_hull",
         "wagener.gis.convex_hulls(frame, by=...)",
         lambda: points.dissolve(by="group").convex_hull, lambda: wagener.gis.convex_hulls(points, by="group")),
        (f"hulls of groups of polygons ({n} convex 12-gons, {groups} groups)", "dissolve(by=...).convex_hull",
         "wagener.gis.convex_hulls(frame, by=...)",
         lambda: polygons.dissolve(by="group").convex_hull, lambda: wagener.gis.convex_hulls(polygons, by="group")),
    ]


def gis_part(args, failures: list[str]) -> tuple[list[str], dict[str, str]]:
    try:
        import geopandas
        import shapely
    except ImportError as error:
        return [f"Not run: {error} (Debian: python3-shapely python3-geopandas)."], {}
    notes = {"geopandas": geopandas.__version__, "shapely": shapely.__version__}
    log(f"GIS: generating {args.gis_geometries} geometries")
    lines = ["| workload | GeoPandas call | GeoPandas (s) | wagener.gis (s) | GeoPandas / wagener.gis | check |",
             "|---|---|---:|---:|---:|---|"]
    ratios = []
    for name, theirs_call, ours_call, theirs, ours in gis_workloads(args.gis_geometries):
        log(f"GIS: {name}: GeoPandas")
        peer = Peer("geopandas", theirs_call, lambda _: theirs())
        expected, t_theirs, runs_theirs, _ = time_peer(peer, None, args.gis_runs, args.max_seconds)
        log(f"GIS: {name}: wagener.gis")
        result, t_ours, _, _ = time_peer(Peer("wagener", ours_call, lambda _: ours()), None, args.gis_runs, args.max_seconds)
        differ = sum(not same_geometry(a, b) for a, b in zip(result, expected))
        index_ok = result.index.equals(expected.index)
        check = "identical (WKB)" if differ == 0 and index_ok else f"**{differ} differ{'' if index_ok else ', index differs'}**"
        if differ or not index_ok:
            failures.append(f"GIS {name}: {differ} geometries differ from GeoPandas'")
        ratios.append((name, t_theirs / t_ours))
        lines.append(f"| {name} | `{theirs_call}` vs `{ours_call}` | {seconds(t_theirs)}"
                     f"{f' ({runs_theirs} run)' if runs_theirs == 1 else ''} | {seconds(t_ours)} | "
                     f"{t_theirs / t_ours:.1f}× | {check} |")
    best = max(r for _, r in ratios)
    lines += ["", f"**GeoPandas / wagener.gis at {exponent(args.gis_geometries)} geometries: "
              + ", ".join(f"{r:.1f}× ({name.split(' (')[0]})" for name, r in ratios)
              + f" (target: at least 50×) — {'met' if best >= 50 else 'not met'}.**"]
    return lines, notes


def same_geometry(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if b.is_empty:
        return a.is_empty and a.geom_type == b.geom_type
    return a.wkb == b.wkb


# ---------------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1e5,1e6,1e7",
                        help="comma-separated disk sizes (1e6, 10^6, 1000000); the circle runs those up to 10^6")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per call, after one warm-up (median)")
    parser.add_argument("--max-seconds", type=float, default=30.0,
                        help="a peer whose call takes longer is not run at larger sizes of that family")
    parser.add_argument("--device-log2", type=int, default=28, help="device part: 2^N float32 points")
    parser.add_argument("--device-runs", type=int, default=21,
                        help="device part: timed runs per call after one warm-up (median; each call takes milliseconds)")
    parser.add_argument("--int-sizes", default="1e3,1e4,1e5,1e6,1e7",
                        help="integer part: comma-separated int32 sizes of each family, against OpenCV")
    parser.add_argument("--exact-max", type=parse_count, default=10**5,
                        help="integer part: check wagener against an exact Python hull up to this many points")
    parser.add_argument("--markdown", metavar="FILE", help="also write the markdown to FILE")
    parser.add_argument("--no-host", action="store_true", help="skip the host part")
    parser.add_argument("--no-int", action="store_true", help="skip the integer part (int32 against OpenCV)")
    parser.add_argument("--no-device", action="store_true", help="skip the device part")
    parser.add_argument("--gis-geometries", type=parse_count, default=10**5,
                        help="GIS part: geometries per workload (default 10^5)")
    parser.add_argument("--gis-runs", type=int, default=3, help="GIS part: timed runs per call after one warm-up")
    parser.add_argument("--no-gis", action="store_true", help="skip the GIS part (wagener.gis against GeoPandas)")
    args = parser.parse_args()
    args.sizes = sorted(parse_count(s) for s in args.sizes.split(",") if s.strip())
    args.int_sizes = sorted(parse_count(s) for s in args.int_sizes.split(",") if s.strip())

    import wagener

    failures: list[str] = []
    share = CpuShare()
    load_before = load_average()
    share.start()
    host_lines, versions = ([], {"numpy": np.__version__, "wagener": wagener.__version__})
    if not args.no_host:
        host_lines, versions = host_part(args, failures)
    int_lines, int_versions = ([], {})
    if not args.no_int:
        int_lines, int_versions = int_part(args, failures)
    device_lines, device_notes = ([], {})
    if not args.no_device:
        device_lines, device_notes = device_part(args, failures)
    gis_lines, gis_notes = ([], {})
    if not args.no_gis:
        gis_lines, gis_notes = gis_part(args, failures)
    other = share.stop()
    load_after = load_average()

    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    head = [
        "## Python package: in-process hull calls (`bench/python/bench_python.py`)",
        "",
        f"{now}; nproc {cpus}; {cpu_model()}; Python {platform.python_version()}; numpy {versions['numpy']}, "
        f"scipy {versions.get('scipy', '—')}, shapely {versions.get('shapely', '—')}, "
        f"OpenCV {int_versions.get('opencv', '—')}, wagener {versions['wagener']}; "
        f"commit {git_commit()}",
        "",
        f"Load average (1, 5, 15 min): {load_before} before, {load_after} after; other processes' share of the CPUs "
        f"during the run: {'unknown' if other is None else f'{100 * other:.0f}%'}.",
        "",
    ]
    out = list(head)
    if host_lines:
        out += [
            "### Host: float64 numpy arrays",
            "",
            f"Seconds per call, median of {args.runs} runs after one warm-up (time.perf_counter, in process). "
            f"Points: numpy default_rng (fixed seeds), uniform disk and points on the unit circle. "
            f"shapely's time is the whole `{versions.get('shapely_call', 'n/a')}`, building the geometry "
            "from the array included; \"build\" is that construction alone, timed once. A peer whose call took "
            f"over {args.max_seconds:g} s is not run at larger sizes. Check: wagener's vertex set against "
            "scipy's (Qhull) and shapely's (GEOS); \"missing\": wagener's vertices the peer leaves out, \"extra\": "
            "the peer's vertices that are not strict vertices of the exact hull (Qhull is not exact on the circle).",
            "",
        ] + host_lines + [""]
    if int_lines:
        out += [
            "### Host: int32 points against OpenCV",
            "",
            f"Seconds per call, median of {args.runs} runs after one warm-up: `wagener.convex_hull(pts)` on an "
            "(n, 2) int32 array (hulled as int32, no conversion) and `cv2.convexHull(pts)` on the same array. "
            "Families: a disk of radius 2^20 (image and grid scale), the whole int32 range (a square and a disk "
            "touching its ends), and an 8-connected contour of a wavy blob (as cv2.findContours gives). Check: "
            f"wagener's hull against an exact hull in Python integers up to {exponent(args.exact_max)} points; "
            "OpenCV's vertices against wagener's, each difference decided in Python integers (\"on an edge\": "
            "a point of an edge that is no strict vertex; \"inside\" or \"outside\" wagener's hull: wrong).",
            "",
        ] + int_lines + [""]
    out += ["### Device: CUDA arrays", ""]
    libs_note = f"CuPy {device_notes.get('cupy', 'not tried')}, PyTorch {device_notes.get('torch', 'not tried')}"
    if args.no_device:
        out += ["Not run (`--no-device`).", ""]
    elif not device_lines:
        why = device_notes.get("skipped", "neither CuPy nor a CUDA PyTorch with a device")
        out += [f"Not run: {why} ({libs_note}).", ""]
    else:
        out += [f"{device_notes.get('device', 'CUDA device')}; {libs_note}.", ""] + device_lines + [""]
    out += ["### GIS: GeoPandas and shapely geometries", ""]
    if args.no_gis:
        out += ["Not run (`--no-gis`).", ""]
    else:
        out += [
            f"GeoPandas {gis_notes.get('geopandas', 'n/a')}, shapely {gis_notes.get('shapely', 'n/a')}. Seconds per call, "
            f"median of {args.gis_runs} runs after one warm-up (one run where a call took over {args.max_seconds:g} s); "
            "the geometries are built beforehand. Check: every result geometry byte for byte (WKB) and the index "
            "against GeoPandas'.",
            "",
        ] + gis_lines + [""]
    if failures:
        out += ["**Wrong results:** " + "; ".join(failures), ""]
    text = "\n".join(out)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    for failure in failures:
        log(f"FAILED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
