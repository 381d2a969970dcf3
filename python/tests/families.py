"""Named input families, as the C++ tests have them (tests/generators.hpp): random distributions
and the degenerate cases that break naive hull code."""

import numpy as np


def uniform_square(n, rng, dtype):
    return rng.uniform(-1, 1, (n, 2)).astype(dtype)


def uniform_disk(n, rng, dtype):
    r, a = np.sqrt(rng.uniform(0, 1, n)), rng.uniform(0, 2 * np.pi, n)
    return np.column_stack((r * np.cos(a), r * np.sin(a))).astype(dtype)


def gaussian(n, rng, dtype):
    return rng.normal(0, 1, (n, 2)).astype(dtype)


def circle(n, rng, dtype):
    """Points on a circle, rounded: most are vertices, some end up collinear or inside."""
    a = rng.uniform(0, 2 * np.pi, n)
    return np.column_stack((np.cos(a), np.sin(a))).astype(dtype)


def parabola(n, rng, dtype):
    """y = -x^2 on small integers: every point is on the upper hull."""
    x = np.arange(n) - n // 2
    return rng.permutation(np.column_stack((x, -x * x))).astype(dtype)


def all_identical(n, rng, dtype):
    return np.tile(rng.uniform(-10, 10, 2), (n, 1)).astype(dtype)


def two_distinct(n, rng, dtype):
    pts = np.where(rng.integers(0, 2, (n, 1)) == 1, [[-3, 5]], [[1, 2]]).astype(dtype)
    pts[:2] = [[-3, 5], [1, 2]][:n]
    return pts


def collinear(n, rng, dtype):
    """On one line, with duplicates: the hull is the two end points."""
    t = rng.integers(-1000, 1001, n)
    return np.column_stack((3 * t + 1, -2 * t + 7)).astype(dtype)


def grid(n, rng, dtype):
    return rng.integers(0, 8, (n, 2)).astype(dtype)


def equal_x_columns(n, rng, dtype):
    return np.column_stack((rng.integers(0, 4, n), rng.uniform(-1, 1, n))).astype(dtype)


def near_collinear_ulp(n, rng, dtype):
    """On y = x/3 rounded, nudged by up to two ulps: orientation is decided in the last bits."""
    x = rng.uniform(0.5, 2.0, n).astype(dtype)
    y = (x / dtype(3)).astype(dtype)
    for _ in range(2):
        step = rng.integers(-1, 2, n)
        y = np.where(step > 0, np.nextafter(y, dtype(10)), np.where(step < 0, np.nextafter(y, dtype(-10)), y))
    return np.column_stack((x, y)).astype(dtype)


def huge(n, rng, dtype):
    """Near the top of the dtype's range: products overflow."""
    scale = 1e37 if dtype == np.float32 else 1e300
    return (uniform_disk(n, rng, np.float64) * scale).astype(dtype)


def tiny(n, rng, dtype):
    """Near the bottom of the dtype's range: products underflow, some coordinates are subnormal."""
    scale = 1e-38 if dtype == np.float32 else 1e-300
    return (uniform_disk(n, rng, np.float64) * scale).astype(dtype)


def duplicates(n, rng, dtype):
    base = uniform_disk(max(1, n // 4), rng, dtype)
    return base[rng.integers(0, len(base), n)]


ALL = {f.__name__: f for f in (uniform_square, uniform_disk, gaussian, circle, parabola, all_identical,
                               two_distinct, collinear, grid, equal_x_columns, near_collinear_ulp, huge,
                               tiny, duplicates)}


def make(name, n, rng, dtype):
    """Family `name` in `dtype`; for an integer dtype, the family's float64 points scaled by a power
    of two (which keeps collinear points collinear) towards a quarter of the dtype's range, then
    rounded to integers."""
    dtype = np.dtype(dtype)
    if dtype.kind != "i":
        return ALL[name](n, rng, dtype.type)
    points = ALL[name](n, rng, np.float64)
    if name in ("huge", "tiny"):  # their scale is a float's: an integer's is the disk at its range's ends
        points = uniform_disk(n, rng, np.float64) * (1 if name == "tiny" else 2 ** (8 * dtype.itemsize - 2))
    else:
        largest = float(np.abs(points).max()) if points.size else 1.0
        points = points * 2.0 ** np.floor(np.log2(2 ** (8 * dtype.itemsize - 3) / max(largest, 1.0)))
    return np.rint(points).astype(dtype)
