"""An exact reference: Andrew's monotone chain over fractions.Fraction (exact for every float, and
for integers of any size, which are kept as Python ints)."""

from fractions import Fraction

import numpy as np


def _number(v):
    """An integer as a Python int (never rounded), anything else as a float; -0.0 is 0.0."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return int(v)
    return float(v) + 0.0


def _key(points):
    """Distinct points, sorted by (x, y)."""
    return sorted({(_number(x), _number(y)) for x, y in points})


def _turn(o, a, b):
    """Sign of (a - o) x (b - o), exactly."""
    ox, oy = Fraction(o[0]), Fraction(o[1])
    d = (Fraction(a[0]) - ox) * (Fraction(b[1]) - oy) - (Fraction(a[1]) - oy) * (Fraction(b[0]) - ox)
    return (d > 0) - (d < 0)


def orient(a, b, c):
    return _turn(a, b, c)


def _chain(points):
    """The chain that turns only left (strictly), through points in the given order."""
    chain = []
    for p in points:
        while len(chain) >= 2 and _turn(chain[-2], chain[-1], p) <= 0:
            chain.pop()
        chain.append(p)
    return chain


def convex_hull(points):
    """Strict vertices, counter-clockwise from the lexicographically smallest; one point if all
    coincide, two if collinear, none for no points."""
    pts = _key(points)
    if len(pts) <= 2:
        return pts
    lower = _chain(pts)
    upper = _chain(reversed(pts))
    return lower[:-1] + upper[:-1]


def upper_hull(points):
    """Strict vertices of the upper hull, from the lexicographically smallest to the largest."""
    pts = _key(points)
    if len(pts) <= 2:
        return pts
    return list(reversed(_chain(reversed(pts))))
