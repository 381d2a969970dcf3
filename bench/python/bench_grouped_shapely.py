"""Grouped hulls from Python: wagener.convex_hulls against a loop of shapely's convex_hull.

    PYTHONPATH=build/python /usr/bin/python3 bench/python/bench_grouped_shapely.py [GROUPS [SIZE [SHAPELY_GROUPS]]]

GROUPS groups of SIZE float64 points each (a uniform disk per group around its own centre). wagener
hulls all of them in one call; shapely (Debian's python3-shapely) loops over the first
SHAPELY_GROUPS groups (MultiPoint(group).convex_hull, the usual way to hull a point set in shapely
1.8), and its time is scaled to GROUPS. Every shapely hull's vertex set is checked against wagener's.
Prints a markdown row; times are medians of 3 runs.
"""

import statistics
import sys
import time

import numpy as np
import shapely
from shapely.geometry import MultiPoint

import wagener


def median_seconds(run, runs=3):
    run()  # warm-up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    groups = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    shapely_groups = min(groups, int(sys.argv[3]) if len(sys.argv) > 3 else 20_000)
    rng = np.random.default_rng(1)
    r = np.sqrt(rng.uniform(0, 1, (groups, size)))
    a = rng.uniform(0, 2 * np.pi, (groups, size))
    centres = rng.uniform(-1000, 1000, (groups, 1, 2))
    points = (np.stack((r * np.cos(a), r * np.sin(a)), axis=2) + centres).reshape(-1, 2)
    offsets = np.arange(groups + 1, dtype=np.int64) * size

    result = wagener.convex_hulls(points, offsets)
    for g in range(shapely_groups):
        ring = MultiPoint(points[g * size : (g + 1) * size]).convex_hull.exterior.coords[:-1]
        assert sorted(map(tuple, ring)) == sorted(map(tuple, result.hull(g).tolist())), g

    wagener_s = median_seconds(lambda: wagener.convex_hulls(points, offsets))
    subset = [points[g * size : (g + 1) * size] for g in range(shapely_groups)]
    shapely_s = median_seconds(lambda: [MultiPoint(group).convex_hull for group in subset]) * groups / shapely_groups
    print(f"| groups | points per group | wagener.convex_hulls s | shapely {shapely.__version__} loop s "
          f"(from {shapely_groups} groups, scaled) | shapely / wagener |")
    print("|---:|---:|---:|---:|---:|")
    print(f"| {groups} | {size} | {wagener_s:.3f} | {shapely_s:.2f} | {shapely_s / wagener_s:.0f}x |")


if __name__ == "__main__":
    main()
