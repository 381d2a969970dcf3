"""``wagener.ConvexHull``: scipy.spatial.ConvexHull's 2-D interface over the exact hull.

The attributes have scipy's names, meanings, dtypes and shapes; where Qhull's floating-point hull and
the exact one differ (nearly collinear points), the exact one is given. Qhull options are read for
what they mean in 2-D: ``Qc`` (``coplanar``), ``QGn``/``QG-n`` (``good``), and those that only steer
Qhull's arithmetic, which an exact hull does not need; the others are refused by name.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from . import _arrays, _wagener
from ._pictures import HullPicture

# Options that steer only Qhull's floating-point arithmetic or its messages (joggling, exact
# pre-merges, the initial simplex, precision warnings): an exact hull needs none of them.
_ARITHMETIC_ONLY = re.compile(r"Q[xsw]|QJ[0-9.e+-]*|Q12|Pp")
_REFUSED = (
    (re.compile(r"Qi"), "interior points with their nearest facet are not computed; Qc gives the boundary's"),
    (re.compile(r"Qg"), "building only the good facets is not supported; QGn marks them in `good`"),
    (re.compile(r"QV-?[0-9]+"), "scipy reports no good facets for it; QGn and QG-n are supported"),
    (re.compile(r"Q[zu]"), "it is for Delaunay and Voronoi diagrams"),
    (re.compile(r"Qb[bB]|Qb[0-9]*:.*|QB[0-9]*:.*"),
     "it scales the points for Qhull's arithmetic (scipy's equations are then the scaled points'); an exact hull needs no scaling"),
    (re.compile(r"[CAEURVW]-?[0-9.e+-]*"), "it merges facets within a tolerance; an exact hull has none"),
    (re.compile(r"QR-?[0-9]*"), "rotating the input in floating point changes the points"),
)


class QhullOptions(NamedTuple):
    coplanar: bool = False
    good_point: int | None = None
    good_visible: bool = True


def parse_qhull_options(options: Any) -> QhullOptions:
    """The 2-D meaning of a Qhull option string (scipy's ``qhull_options``); ValueError naming an
    option that means nothing here or is not supported."""
    if options is None:
        return QhullOptions()
    if isinstance(options, bytes):
        options = options.decode("latin-1")
    if not isinstance(options, str):
        raise TypeError(f"qhull_options must be a str, not {type(options).__name__}")
    coplanar, good_point, good_visible = False, None, True
    for token in options.split():
        good = re.fullmatch(r"QG(-?)([0-9]+)", token)
        if token == "Qt" or _ARITHMETIC_ONLY.fullmatch(token):
            continue  # Qt: 2-D facets are edges, simplicial already
        if token == "Qc":
            coplanar = True
        elif good:
            if good_point is not None:
                raise ValueError(f"qhull_options: {token!r}: QGn is given twice")
            good_visible, good_point = good.group(1) == "", int(good.group(2))
        else:
            reason = next((why for pattern, why in _REFUSED if pattern.fullmatch(token)), None)
            if reason is None:
                raise ValueError(f"qhull_options: {token!r} is not a Qhull option wagener.ConvexHull knows")
            raise ValueError(f"qhull_options: {token!r} is not supported in 2-D: {reason}")
    return QhullOptions(coplanar, good_point, good_visible)


def _host_points(points: Any, what: str) -> np.ndarray:
    """A C-contiguous (n, 2) array of host points: floats as float64 (as scipy takes them), integers in
    their own dtype, never rounded (uint64 beyond int64 refused). Masked arrays, NaN and infinity
    refused."""
    if _arrays.device_library(points) is not None:
        raise TypeError("ConvexHull takes host arrays (its attributes are numpy arrays, as scipy's); "
                        "copy the points to the host, or use convex_hull for CUDA arrays")
    _arrays.refuse_masked(points)
    source, _ = _arrays.host_input(points)
    array = source if isinstance(source, np.ndarray) else np.asarray(source)
    _arrays.coordinate_dtype(array.dtype)  # TypeError for bool, complex, object
    if array.ndim == 1 and array.size == 0 and what != "points":
        array = array.reshape(0, 2)
    if array.ndim != 2 or array.shape[1] != 2:
        raise ValueError(f"{what} must be an array of shape (n, 2), got shape {tuple(array.shape)}")
    if array.dtype.kind in "iu":
        if array.dtype == np.uint64 and array.size:
            _arrays.check_fits_int64(array.max(), array.dtype)
        return np.ascontiguousarray(array)
    array = np.ascontiguousarray(array, dtype=np.float64)
    finite = np.isfinite(array).all(axis=1)
    if not finite.all():
        raise _wagener.InputError(f"{what}: point {int(np.argmin(finite))} is not finite")
    return array


def _common_dtype(hull: "ConvexHull", new: np.ndarray) -> np.dtype:
    """The dtype that holds the hull's points and new ones exactly (merge_hulls' rule): for integers
    beside integers the smallest integer dtype holding both (int64 for int64 and uint64, whose values
    are checked to fit); else float64, where every integer must be exact (|v| <= 2**53), else
    ValueError."""
    old = hull.points.dtype
    if old.kind in "iu" and new.dtype.kind in "iu":
        common = np.promote_types(old, new.dtype)
        return common if common.kind in "iu" else np.dtype(np.int64)  # int64 and uint64 (values fit int64)
    if old.kind in "iu":  # the bounds are the extremes of every point so far
        if int(hull.min_bound.min()) < -(2**53) or int(hull.max_bound.max()) > 2**53:
            raise ValueError(f"new points: the hull's {old} points hold integers beyond 2**53, which float64 "
                             f"would round: add integer points, not {new.dtype} ones")
    elif new.dtype.kind in "iu" and new.size and ((new < -(2**53)).any() or (new > 2**53).any()):
        raise ValueError("new points: integers beyond 2**53 have no exact float64, and the hull's points are "
                         "float64 (make the hull from integer points to add such integers)")
    return np.dtype(np.float64)


def _coordinates(array: np.ndarray) -> np.ndarray:
    """Points as the library's functions take them: float64 as they are, integers as int32 or int64
    (exactly)."""
    return array if array.dtype.kind == "f" else _arrays.host_points(array)


def _lexicographic_keys(points: np.ndarray) -> np.ndarray:
    """One value per (x, y) row that numpy orders lexicographically (x, then y), a view, no copy:
    float64 rows as complex numbers, integer rows as records."""
    points = np.ascontiguousarray(points)
    if points.dtype.kind == "f":
        return points.view(np.complex128).ravel()
    return points.view(np.dtype([("x", points.dtype), ("y", points.dtype)])).ravel()


def _index_dtype(n: int) -> type:
    """scipy's index dtype (C int) while every index fits in it."""
    return np.intc if n <= np.iinfo(np.intc).max else np.int64


class ConvexHull(HullPicture):
    """scipy.spatial.ConvexHull in 2-D, from the exact hull.

    ``ConvexHull(points, incremental=False, qhull_options=None)``. Every attribute has scipy's name,
    meaning, dtype and shape; the hull is the exact one, where Qhull's may leave out a vertex of
    nearly collinear points or keep a point that is none.

    Attributes
    ----------
    points : (n, 2) float64 array, or the input's integer dtype
        The input points (all of them, in incremental mode those added too). Integer points stay
        integers and are hulled exactly (scipy's float64 copy rounds them beyond 2**53).
    vertices : (h,) int32 array
        Indices of the hull's strict vertices, counter-clockwise (scipy's 2-D order), starting at the
        lexicographically smallest (scipy may start elsewhere); of repeated points, the first.
    simplices : (h, 2) int32 array
        The edges, in the order of ``vertices``: ``[vertices[i], vertices[i + 1]]`` (scipy's come in
        Qhull's order, each either way round).
    neighbors : (h, 2) int32 array
        ``neighbors[i, j]``: the edge opposite ``simplices[i, j]`` (the one sharing the other end).
    equations : (h, 3) float64 array
        ``[nx, ny, offset]`` per edge, the unit outward normal: ``nx*x + ny*y + offset <= 0`` inside.
    coplanar : (k, 3) int32 array
        With ``qhull_options="Qc"``: ``[point, edge, nearest vertex]`` for every input point on the
        hull's boundary that is not a vertex (repeats of vertices included), exactly decided, in the
        order of the points; without "Qc" empty, as scipy's.
    good : (h,) bool array or None
        With ``"QGn"``: the edges visible from point n (strictly: collinear is not visible), with
        ``"QG-n"`` those not visible; point n itself is left out of the hull, as Qhull leaves it out.
        None without either.
    volume : float
        The enclosed area.
    area : float
        The perimeter.
    npoints, ndim, nsimplex, min_bound, max_bound
        As scipy's (``min_bound``/``max_bound`` over all points, point n of "QGn" included; in the
        points' dtype, so exact for integers).

    ``incremental=True`` allows ``add_points(points, restart=False)``: the new points' hull is merged
    with the current one (``merge_hulls``), O(m + h) for m points, not a rebuild; ``restart=True``
    hulls all points again. ``close()`` ends it (``add_points`` then raises RuntimeError, as scipy's).
    Integers added to integer points widen ``points`` to a dtype holding both; integers beside floats
    become float64 (as ``merge_hulls`` makes them) where every one is exact there (|v| <= 2**53), and
    raise ValueError otherwise.

    Input: masked arrays raise ValueError (as scipy's); NaN or infinity raises ValueError naming the
    row; bool, complex and object arrays TypeError. Fewer than three points not all on one line raise
    ValueError (scipy raises QhullError, a RuntimeError). Qhull options other than Qt, Qc, QGn and
    QG-n and those that only steer Qhull's arithmetic (Qx, QJ, Qs, Qw, Q12, Pp: they change nothing
    here) raise ValueError naming the option.
    """

    def __init__(self, points: Any, incremental: bool = False, qhull_options: str | None = None) -> None:
        self._options = parse_qhull_options(qhull_options)
        array = _host_points(points, "points")
        good_point = self._options.good_point
        if good_point is not None and good_point >= len(array):
            raise ValueError(f"qhull_options: QG{'' if self._options.good_visible else '-'}{good_point}: "
                             f"there is no point {good_point} among the {len(array)} points")
        self._incremental = bool(incremental)
        # In incremental mode the points live in a buffer with room to grow, so that add_points copies
        # only the new points (amortised); `points` is the filled part.
        self._buffer = array.copy() if self._incremental else array
        self._n = len(array)
        self._rebuild()

    # --- scipy's interface -------------------------------------------------------------------

    @property
    def points(self) -> np.ndarray:
        return self._buffer[: self._n]

    def add_points(self, points: Any, restart: bool = False) -> None:
        """Adds points (incremental mode only): the new points' hull is merged with the current hull.

        ``restart=True`` hulls all the points again instead (the same hull). RuntimeError when the
        hull was not made with ``incremental=True`` or was closed; ValueError for bad points, which
        leave the hull as it was."""
        if not self._incremental:
            raise RuntimeError("incremental mode not enabled or already closed")
        new = _host_points(points, "new points")
        if len(new) == 0:
            return
        dtype = _common_dtype(self, new)  # raises before anything changes
        if dtype != self._buffer.dtype:  # integers widened, or made float64, exactly
            self._buffer, self._hull = self._buffer.astype(dtype), self._hull.astype(dtype)
        new = new.astype(dtype, copy=False)
        first = self._n
        self._append(new)
        if restart:
            self._rebuild()
            return
        # The hull of the new points alone (the library's filter: O(m)), then the merge of two
        # convex polygons (O(h + h')); each merged vertex is found among the two hulls' vertices.
        from . import convex_hull, merge_hulls  # the package's, which imports this module

        new_hull, new_rows = convex_hull(new, return_indices=True)
        merged = merge_hulls([self._hull, new_hull])
        both = np.concatenate((self._hull, new_hull))
        position = _wagener.vertex_indices(_coordinates(both), _coordinates(merged))
        old = position < len(self._hull)
        rows = np.where(old, self._rows[np.minimum(position, len(self._rows) - 1)],
                        first + new_rows[np.maximum(position - len(self._hull), 0)])
        if self._options.coplanar:
            # Only these can lie on the new boundary without being vertices: the hull grew, so
            # interior points stay interior, and a point on an old edge or an old vertex may now lie on
            # a longer edge.
            candidates = np.concatenate((self._coplanar_rows, self._rows, first + np.arange(len(new))))
        else:
            candidates = None
        self._set_hull(merged, rows, candidates)

    def close(self) -> None:
        """Ends incremental mode (``add_points`` then raises RuntimeError). Safe to call again."""
        self._incremental = False

    # --- internals ---------------------------------------------------------------------------

    def _append(self, new: np.ndarray) -> None:
        needed = self._n + len(new)
        if needed > len(self._buffer):
            grown = np.empty((max(needed, 2 * len(self._buffer)), 2), dtype=self._buffer.dtype)
            grown[: self._n] = self._buffer[: self._n]
            self._buffer = grown
        self._buffer[self._n : needed] = new
        self._n = needed

    def _rebuild(self) -> None:
        """The hull of all the points (but the good point of QGn), from scratch."""
        from . import convex_hull  # the package's, which imports this module

        points = self.points
        good_point = self._options.good_point
        if good_point is None:
            hull, rows = convex_hull(points, return_indices=True)
        else:
            hull, rows = convex_hull(np.delete(points, good_point, axis=0), return_indices=True)
            rows = rows + (rows >= good_point)
        if len(hull) < 3:
            raise ValueError(
                "ConvexHull needs at least 3 points not all on one line "
                f"(got {len(points)} points with {len(hull)} distinct hull vertices)"
            )
        self._set_hull(hull, rows, np.arange(len(points)) if self._options.coplanar else None)

    def _set_hull(self, hull: np.ndarray, rows: np.ndarray, candidates: np.ndarray | None) -> None:
        """Every attribute from the hull's vertices (counter-clockwise from the lexicographically
        smallest) and their rows; `candidates`: the rows that may lie on the boundary (with Qc)."""
        self._hull, self._rows = hull, rows
        index = _index_dtype(self._n)
        h = len(hull)
        following = np.roll(np.arange(h), -1)
        self.vertices: np.ndarray = rows.astype(index)
        self.simplices: np.ndarray = np.stack((self.vertices, self.vertices[following]), axis=1)
        self.neighbors: np.ndarray = np.stack((following, np.roll(np.arange(h), 1)), axis=1).astype(index)
        if hull.dtype.kind == "f":
            edge = hull[following] - hull
        else:  # the exact differences (Python ints never overflow), rounded once
            exact = hull.astype(object)
            edge = (exact[following] - exact).astype(np.float64)
        length = np.hypot(edge[:, 0], edge[:, 1])
        normal = np.stack((edge[:, 1], -edge[:, 0]), axis=1) / length[:, None]
        corner = hull.astype(np.float64, copy=False)
        offset = -(normal[:, 0] * corner[:, 0] + normal[:, 1] * corner[:, 1])
        self.equations: np.ndarray = np.column_stack((normal, offset))
        self.area: float = math.fsum(length.tolist())
        if hull.dtype.kind == "f":
            # The shoelace formula about the first vertex (smaller terms, less cancellation), on
            # coordinates scaled by a power of two (exactly) so that no product overflows or
            # underflows: an area beyond float64 is then inf, not nan.
            rel = hull - hull[0]
            scale = 2.0 ** math.frexp(float(np.abs(rel).max()))[1]
            rel = rel / scale
            cross = math.fsum((rel[:-1, 0] * rel[1:, 1] - rel[:-1, 1] * rel[1:, 0]).tolist())
            self.volume: float = 0.5 * cross * scale * scale if cross else 0.0
        else:
            # Integers: the exact doubled area in Python ints, halved and rounded once.
            rel = exact - exact[0]
            doubled = int((rel[:-1, 0] * rel[1:, 1] - rel[:-1, 1] * rel[1:, 0]).sum())
            self.volume = float(Fraction(doubled, 2))
        self.npoints: int = self._n
        self.ndim: int = 2
        self.nsimplex: int = h
        # Every point lies within the hull's extremes (O(h), where a pass over all points took 19 ms of
        # every million); the good point of QGn is outside the hull and counts too.
        extremes = hull
        good_point = self._options.good_point
        if good_point is not None:
            extremes = np.vstack((hull, self.points[good_point]))
        self.min_bound: np.ndarray = extremes.min(axis=0)
        self.max_bound: np.ndarray = extremes.max(axis=0)
        self.good: np.ndarray | None = None
        if good_point is not None:
            corners = _coordinates(hull)
            seen = np.ascontiguousarray(np.broadcast_to(self.points[good_point], hull.shape), dtype=corners.dtype)
            visible = _wagener.orientations(corners, np.ascontiguousarray(corners[following]), seen) < 0
            self.good = visible if self._options.good_visible else ~visible
        self._coplanar_rows = np.empty(0, dtype=np.int64)
        self.coplanar: np.ndarray = np.empty((0, 3), dtype=index)
        if candidates is not None:
            self._find_coplanar(candidates)

    def _find_coplanar(self, candidates: np.ndarray) -> None:
        """``coplanar``: the candidate rows on the boundary that are not vertices, each with its edge
        and nearer end. The hull's lower and upper chains are sorted lexicographically (x, then y);
        a point is on a chain exactly when it is collinear with the chain's edge whose ends enclose
        it in that order, which one binary search finds and one exact orient2d decides."""
        hull, h = _coordinates(self._hull), len(self._hull)
        rows = np.sort(candidates[~np.isin(candidates, self._rows)])
        if self._options.good_point is not None:
            rows = rows[rows != self._options.good_point]
        top = int(np.lexsort((hull[:, 1], hull[:, 0]))[-1])  # the lexicographically largest vertex
        points = self.points[rows].astype(hull.dtype, copy=False)
        keys = _lexicographic_keys(points)
        found = np.full(len(rows), -1, dtype=np.int64)
        # Lower chain: vertices 0..top ascending, edge j joins vertex j and j + 1. Upper chain,
        # ascending: vertex 0, h - 1, ..., top; its edge j is edge h - 1 - j of the hull.
        chains = ((np.arange(top + 1), lambda j: j), (np.r_[0, np.arange(h - 1, top - 1, -1)], lambda j: h - 1 - j))
        for chain, edge_of in chains:
            open_rows = np.flatnonzero(found < 0)
            if len(open_rows) == 0 or len(chain) < 2:
                continue
            ends = np.ascontiguousarray(hull[chain])
            position = np.searchsorted(_lexicographic_keys(ends), keys[open_rows], side="right") - 1
            position = np.clip(position, 0, len(chain) - 2)
            turn = _wagener.orientations(ends[position], ends[position + 1], np.ascontiguousarray(points[open_rows]))
            on = turn == 0
            found[open_rows[on]] = edge_of(position[on])
        on_boundary = found >= 0
        rows, edges, points = rows[on_boundary], found[on_boundary], points[on_boundary]
        start, end = hull[edges], hull[(edges + 1) % h]
        if hull.dtype.kind != "f":  # integers as Python ints: their differences and sums are exact
            start, end, points = start.astype(object), end.astype(object), points.astype(object)
        # The nearer end, along the edge's longer axis (the point lies on the edge): start on a tie.
        axis = (np.abs(end[:, 1] - start[:, 1]) > np.abs(end[:, 0] - start[:, 0])).astype(np.intp)
        picks = np.arange(len(rows))
        s, e, p = start[picks, axis], end[picks, axis], points[picks, axis]
        if hull.dtype.kind == "f":
            middle = 0.5 * s + 0.5 * e
            nearer_end = np.where(s <= e, p > middle, p < middle)
        else:  # 2p against s + e
            nearer_end = np.where(s <= e, 2 * p > s + e, 2 * p < s + e).astype(bool)
        nearest = self._rows[np.where(nearer_end, (edges + 1) % h, edges)]
        self._coplanar_rows = rows
        self.coplanar = np.column_stack((rows, edges, nearest)).astype(_index_dtype(self._n))

    def __repr__(self) -> str:
        return f"wagener.ConvexHull({self.npoints} points, {self.nsimplex} vertices)"
