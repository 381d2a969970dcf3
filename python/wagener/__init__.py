"""Exact 2D convex hulls (wagener's C++ library, with Wagener's PRAM algorithm on the CPU and GPU).

Every hull is exact: it equals the hull computed with exact arithmetic for any finite input
(duplicates, collinear points, equal x, coordinates near 1e+-300, integers up to 2**63 in magnitude),
because the one predicate, ``orient2d``, is a floating-point filter with an exact fallback (for 64-bit
integers, integer arithmetic). Integer points are hulled as integers, never rounded to float64.

    >>> import numpy as np, wagener
    >>> wagener.convex_hull(np.array([[0, 0], [2, 0], [1, 1], [2, 2], [0, 2]]))
    array([[0, 0],
           [2, 0],
           [2, 2],
           [0, 2]])

Functions: ``convex_hull``, ``convex_hulls`` (one hull per group), ``merge_hulls``, ``read_points``, ``orient2d``,
``cuda_available``, ``trace`` (Wagener's rounds, shown in a notebook as a page to step through); the class
``ConvexHull`` (``scipy.spatial.ConvexHull`` in 2D, computed exactly; drawn in a notebook); the modules
``wagener.gis`` (shapely and GeoPandas) and ``wagener.dask``. Errors:
bad input raises ``ValueError`` (``wagener.InputError``, a subclass, when the library found it),
a CUDA failure ``wagener.CudaError`` and a request this build cannot serve (the CUDA backend
without CUDA) ``wagener.UnsupportedError``, both subclasses of ``RuntimeError``.
"""

from __future__ import annotations

import math
import os
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from . import _arrays, _wagener
from ._scipy_hull import ConvexHull
from ._pictures import Round, Rounds, trace
from ._wagener import CudaError, InputError, UnsupportedError, __version__

for _public in (ConvexHull, CudaError, InputError, UnsupportedError):
    _public.__module__ = __name__
del _public

__all__ = [
    "ConvexHull",
    "CudaError",
    "InputError",
    "UnsupportedError",
    "__version__",
    "GroupedHulls",
    "convex_hull",
    "convex_hulls",
    "cuda_available",
    "merge_hulls",
    "orient2d",
    "read_points",
    "Round",
    "Rounds",
    "trace",
]


def convex_hull(
    points: Any,
    *,
    upper: bool = False,
    presorted: bool = False,
    backend: str = "auto",
    return_indices: bool = False,
) -> Any:
    """The exact convex hull of 2D points.

    Parameters
    ----------
    points : (n, 2) array-like
        The points, in any order. A C-contiguous numpy array of float32, float64, int32 or int64 is
        read where it lies, without a copy. The dtype rule: float32 stays float32, every other float
        (float64, float16, long double) becomes float64 (long doubles are rounded to the nearest
        float64, and the hull is exact for the rounded points). Integers are never rounded: int8,
        int16, uint8 and uint16 are hulled as int32, uint32 as int64, and uint64 as int64 where every
        value fits (ValueError otherwise), and the vertices come back in the input's own dtype.
        Other layouts are copied into a contiguous array first. bool, complex and object arrays
        raise TypeError; any shape but (n, 2) raises ValueError (an empty ``[]`` is no points);
        NaN or infinity raises ValueError naming the first such row.
        CuPy arrays and PyTorch CUDA tensors (and other CUDA arrays, through CuPy or PyTorch) are
        hulled on their own device and stream, without a host copy; see "CUDA arrays" below.
    upper : bool
        Return only the upper hull: from the lexicographically smallest point to the largest,
        clockwise over the top (left to right).
    presorted : bool
        A promise that the points are sorted by x, then y; it is checked (ValueError naming the
        first unsorted row). With ``upper=True`` the upper hull of sorted points is Wagener's rounds
        proper; unsorted input needs no promise.
    backend : {"auto", "cpu", "pram", "cuda"}
        "auto" picks the backend a cost model predicts to finish first (the CPU below 2**20 points
        or without a GPU); "pram" runs Wagener's rounds on the CPU PRAM emulator; "cuda" needs a
        CUDA build and device (``UnsupportedError`` or ``CudaError`` otherwise).
    return_indices : bool
        Also return, for each vertex, the first input row holding it (int64), as
        ``scipy.spatial.ConvexHull.vertices`` gives them.

    Returns
    -------
    vertices : (h, 2) array of the input's dtype (floats: the converted one)
        The full hull's strict vertices (no duplicates, no three collinear), counter-clockwise from
        the lexicographically smallest one; one row when all points coincide, two when they are
        collinear, none for no points. With ``upper=True``, the upper hull's vertices left to right.
    indices : (h,) int64 array
        Only with ``return_indices=True``: ``(vertices, indices)``.

    Results are numpy arrays, or tensors for PyTorch input (CPU or CUDA), or CuPy arrays for CuPy
    input. The GIL is released while the library runs.

    CUDA arrays: the full hull runs ``wagener::cuda::convex_hull_device`` on the array's memory (an
    (n, 2) array in C order, or in Fortran order through the x/y entry point; other layouts and
    dtypes are converted on the device by the array's library) on the array's stream, into a
    buffer of n points the array's library allocates. ``upper=True`` with ``presorted=True`` runs
    ``upper_hull_device`` (sortedness checked); ``upper=True`` alone takes the upper chain of the
    full hull (ordered on the host from the small result, gathered on the device).
    ``return_indices=True`` raises NotImplementedError; backends "cpu" and "pram" raise ValueError.
    ``presorted=True`` with the full hull is not checked on the device (the hull is right anyway).
    """
    device = _arrays.device_library(points)
    if device is not None:
        return device.hull(points, upper=upper, presorted=presorted, backend=backend, return_indices=return_indices)
    source, wrap = _arrays.host_input(points)
    array, dtype = _arrays.host_coordinates(source)
    vertices, indices = _wagener.hull(array, bool(upper), bool(presorted), str(backend), bool(return_indices))
    vertices = _arrays.in_dtype(vertices, dtype)
    if return_indices:
        return wrap(vertices), wrap(indices)
    return wrap(vertices)


def merge_hulls(hulls: Any) -> np.ndarray:
    """The exact convex hull of the points of several arrays, each best a hull (of a block, a file, a
    worker): the library's hull-of-hulls merge, which ``wagener.dask.convex_hull`` reduces with.

    ``hulls`` is a sequence of (k, 2) array-likes (any point sets are accepted; hulls in
    ``convex_hull``'s order merge fastest). float32 when every array is float32; integers when every
    array holds integers (int32 when every one is hulled as int32, else int64; the result in the
    arrays' common dtype, ``numpy.result_type``, or int64 for int64 with uint64); else float64 (the
    dtype rule of ``convex_hull``), where an integer beyond 2**53 in magnitude raises ValueError
    rather than be rounded. Returns the vertices as ``convex_hull`` of all the points would:
    counter-clockwise from the lexicographically smallest. NaN or infinity raises ValueError naming
    the array and row.
    """
    typed = [_arrays.host_coordinates(h) for h in hulls]
    if not typed:
        return np.empty((0, 2))
    arrays = [array for array, _ in typed]
    kinds = {a.dtype.kind for a in arrays}
    if kinds == {"i"}:
        dtype = np.int32 if all(a.dtype == np.int32 for a in arrays) else np.int64
        merged = _wagener.merge_hulls([np.ascontiguousarray(a, dtype=dtype) for a in arrays])
        common = np.result_type(*(d for _, d in typed))
        # int64 with uint64 is float64 to numpy, which would round: int64 holds both (checked).
        return _arrays.in_dtype(merged, common if common.kind in "iu" else np.dtype(np.int64))
    if "i" in kinds:
        for k, a in enumerate(arrays):
            if a.dtype.kind == "i" and a.size and max(int(a.max()), -int(a.min())) > 2**53:
                raise ValueError(
                    f"hull {k} holds integers beyond 2**53, which float64 would round: "
                    "merge integer arrays with integer arrays only"
                )
    dtype = np.float32 if all(a.dtype == np.float32 for a in arrays) else np.float64
    return _wagener.merge_hulls([np.ascontiguousarray(a, dtype=dtype) for a in arrays])


class GroupedHulls(NamedTuple):
    """What ``convex_hulls`` returns: group g's hull is ``vertices[offsets[g]:offsets[g + 1]]``."""

    vertices: Any
    """(m, 2) array: every group's hull, group after group, in ``convex_hull``'s conventions; of
    the input's kind (numpy, a PyTorch tensor, a CuPy array on the input's device)."""
    offsets: Any
    """(g + 1,) int64: where each group's hull starts in ``vertices``, then the total. numpy for
    host input; for CUDA input the input library's int64 array on its device."""
    indices: Any
    """With ``return_indices=True``: (m,) int64, each vertex's first row in ``points`` within its
    group (numpy, or on the device as ``offsets``); None otherwise."""
    groups: np.ndarray | None
    """With ``groups=``: (g,) numpy array of the group labels, in the order of their first
    appearance; None with ``offsets=``."""

    def hull(self, g: int) -> Any:
        """Group g's hull. (With device offsets each call reads two offsets from the device: for a
        loop over many groups, copy ``offsets`` to the host once.)"""
        return self.vertices[int(self.offsets[g]) : int(self.offsets[g + 1])]


def convex_hulls(
    points: Any,
    offsets: Any = None,
    groups: Any = None,
    *,
    upper: bool = False,
    presorted: bool = False,
    backend: str = "auto",
    return_indices: bool = False,
) -> GroupedHulls:
    """The exact convex hull of each group of 2D points, in one call (a hull per track, cluster, mask).

    Parameters
    ----------
    points : (n, 2) array-like
        The points of all groups, as ``convex_hull`` takes them, CuPy arrays and PyTorch CUDA
        tensors included (see "CUDA arrays" below).
    offsets : (g + 1,) integer array-like
        Groups as consecutive rows: group g is ``points[offsets[g]:offsets[g + 1]]``. offsets[0] must
        be 0, the last n, and they must not decrease (empty groups are allowed); ValueError naming
        the first bad entry otherwise. A host or a CUDA array.
    groups : (n,) array-like
        Instead of offsets: each row's group label, in any order (integers, or any labels numpy can
        sort, e.g. strings; with CUDA points, integers only). The points are grouped by a stable
        sort; the hulls come in the order of each label's first row, and ``result.groups`` lists the
        labels in that order.
    upper, presorted, backend, return_indices
        As for ``convex_hull``, applied to every group (``presorted``: each group is sorted; checked).
        "auto" and "cpu" hull the groups in parallel, each large group itself in parallel; "pram"
        runs the groups one by one on the emulator; "cuda" runs all groups in one device pipeline.

    Returns
    -------
    GroupedHulls
        ``(vertices, offsets, indices, groups)``; ``result.hull(g)`` is group g's hull, equal to
        ``convex_hull`` of the group's points alone with the same options.

    The GIL is released while the library runs.

    CUDA arrays: all the groups are hulled in one device pipeline by
    ``wagener::cuda::convex_hulls_device`` on the array's device and stream (other dtypes and
    layouts are converted on the device by the array's library, as for ``convex_hull``); the
    vertices, hull offsets and indices come back as that library's arrays on the device, the labels
    of ``groups=`` as numpy. ``offsets`` (host or device) are copied to the host, checked there as
    for host points, and that copy goes to the device. Integer ``groups`` (host or device) are
    grouped on the device with the library's stable sort (the points never leave the device; only
    one entry per group comes to the host, to order the groups by first appearance); string labels
    are host-only (TypeError: number them first, e.g. ``np.unique(labels, return_inverse=True)``).
    ``upper`` and ``return_indices`` are the entry point's own; ``presorted`` is checked on the
    device (ValueError as for host points; the device sorts each group anyway); backends "cpu" and
    "pram" raise ValueError.
    """
    if (offsets is None) == (groups is None):
        raise ValueError("convex_hulls takes exactly one of offsets (consecutive groups) and groups (a label per row)")
    device = _arrays.device_library(points)
    if device is not None:
        return GroupedHulls(
            *device.hulls(
                points, offsets, groups, upper=upper, presorted=presorted, backend=backend,
                return_indices=return_indices,
            )
        )
    source, wrap = _arrays.host_input(points)
    array, dtype = _arrays.host_coordinates(source)
    labels = None
    if offsets is not None:
        offset_array = _arrays.index_array(offsets, "offsets")
        ids = None
    else:
        label_array = np.asarray(groups)
        if label_array.ndim != 1 or len(label_array) != len(array):
            raise ValueError(f"groups must hold one label per point ({len(array)}), got shape {label_array.shape}")
        kind = "i" if label_array.size == 0 else label_array.dtype.kind  # [] is no labels
        fits = kind in "ib" or (kind == "u" and (label_array.size == 0 or label_array.max() <= np.iinfo(np.int64).max))
        if fits:
            ids = np.ascontiguousarray(label_array, dtype=np.int64)
        elif kind in "fcmM":
            raise TypeError(f"groups must be integer or string labels, not dtype {label_array.dtype}")
        else:
            # Strings, objects, huge unsigned integers: their ranks stand for them in the library.
            labels, codes = np.unique(label_array, return_inverse=True)
            ids = np.ascontiguousarray(codes.reshape(-1), dtype=np.int64)
        offset_array = None
    vertices, hull_offsets, indices, group_ids = _wagener.grouped_hulls(
        array, offset_array, ids, bool(upper), bool(presorted), str(backend), bool(return_indices)
    )
    if group_ids is not None and labels is not None:
        group_ids = labels[group_ids]
    vertices = _arrays.in_dtype(vertices, dtype)
    return GroupedHulls(wrap(vertices), hull_offsets, indices if return_indices else None, group_ids)


def read_points(
    path: str | os.PathLike[str],
    *,
    precision: str = "double",
    format: str = "auto",
    columns: tuple[str | int, str | int] | None = None,
) -> np.ndarray:
    """The points of a file as an (n, 2) array: float64, or float32 with ``precision="float"``, int32
    or int64 with ``precision="int32"`` or ``"int64"`` (decimal integers in text and csv; a token that
    is not an integer, or beyond the type's range, raises InputError naming the line).

    Formats as the command line reads them (docs/formats.md): "text" (the seed's counted format or
    plain ``x y`` lines), "csv" (with or without a header), "f32", "f64", "i32" and "i64" (raw
    little-endian x,y pairs); "auto" goes by the extension (.csv, .f32, .f64, .i32, .i64, else text).
    A value the precision cannot hold exactly raises InputError (doubles read as float are rounded).
    ``columns=("lon", "lat")`` selects two columns of csv or text by header name or 0-based index
    (the CLI's ``--columns``).
    "-" reads standard input. Bad input (a missing file, garbage, NaN or infinity, a wrong count,
    truncated binary) raises ``InputError`` (a ValueError) whose message names the file and line.
    """
    if precision not in ("double", "float", "int32", "int64"):
        raise ValueError(f'unknown precision "{precision}" (double, float, int32, int64)')
    selection = None if columns is None else (str(columns[0]), str(columns[1]))
    return _wagener.read_points(os.fspath(path), precision, str(format), selection)


def orient2d(a: Any, b: Any, c: Any) -> int:
    """The exact orientation of three points: +1 if c lies left of the line a->b (a
    counter-clockwise turn), -1 if right, 0 if the three are collinear. Each point is a pair of
    finite numbers: floats taken as float64, integers (Python's or numpy's, of any size) as they
    are, never rounded."""
    coordinates = [*_pair(a), *_pair(b), *_pair(c)]
    if any(_is_integer(v) for v in coordinates):
        return _rational_orientation(coordinates)
    ax, ay, bx, by, cx, cy = (float(v) for v in coordinates)
    return int(_wagener.orient2d((ax, ay), (bx, by), (cx, cy)))


def _pair(p: Any) -> tuple[Any, Any]:
    x, y = p
    return x, y


def _is_integer(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _rational_orientation(coordinates: list[Any]) -> int:
    """orient2d in exact rationals: integers of any size as they are, finite floats as the
    fractions they are."""
    values = []
    for v in coordinates:
        if _is_integer(v):
            values.append(Fraction(int(v)))
        elif math.isfinite(float(v)):
            values.append(Fraction(float(v)))
        else:
            raise ValueError("orient2d needs finite coordinates")
    ax, ay, bx, by, cx, cy = values
    det = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    return (det > 0) - (det < 0)


def cuda_available() -> bool:
    """True when this build has the CUDA backend and a CUDA device is usable."""
    return bool(_wagener.cuda_available())
