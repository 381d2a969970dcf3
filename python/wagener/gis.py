"""Convex hulls for shapely and GeoPandas users, exact, as shapely and GeoPandas return them.

    >>> import wagener.gis
    >>> wagener.gis.convex_hull(geometry)                  # == geometry.convex_hull
    >>> wagener.gis.convex_hulls(geoseries)                # == geoseries.convex_hull
    >>> wagener.gis.convex_hulls(frame, by="region")       # == frame.dissolve(by="region").convex_hull

The hull of a geometry is the hull of all its coordinates (every part, holes included), returned as
shapely returns it: a Polygon (clockwise from its lowest vertex, lowest y then x, closed), a
LineString when the coordinates lie on one line, a Point when they coincide, an empty
GeometryCollection for an empty geometry, None for a missing one. All hulls are computed in one call
of the library's grouped hulls (``wagener.convex_hulls``), so the time is that of reading the
geometries' coordinates and making the result geometries. Needs shapely (Debian: python3-shapely);
series and frames need GeoPandas (python3-geopandas). Z coordinates are carried: a vertex's z is that
of the first coordinate at its x and y.
"""

from __future__ import annotations

import struct
from typing import Any, Sequence

import numpy as np

from . import convex_hulls as _grouped_hulls

try:
    from shapely import wkb as _wkb
    from shapely.geometry import GeometryCollection as _GeometryCollection
    from shapely.geometry.base import BaseGeometry as _BaseGeometry
except ImportError as error:  # pragma: no cover - shapely is a Debian package away
    raise ImportError("wagener.gis needs shapely (Debian: apt-get install python3-shapely)") from error

__all__ = ["convex_hull", "convex_hulls"]

# WKB (ISO and GEOS's extended form): type codes, and the flags of the extended form.
_POINT, _LINESTRING, _POLYGON = 1, 2, 3
_EWKB_Z, _EWKB_M, _EWKB_SRID = 0x80000000, 0x40000000, 0x20000000
_UINT = struct.Struct("<I")


def convex_hull(geometry: Any) -> Any:
    """The convex hull of one shapely geometry, as ``geometry.convex_hull`` gives it (None for None)."""
    return _hulls_of_geometries([geometry])[0]


def convex_hulls(data: Any, by: Any = None, *, sort: bool = True, dropna: bool = True) -> Any:
    """The convex hull of each geometry, or of each group of rows.

    Parameters
    ----------
    data : GeoSeries, GeoDataFrame (its active geometry) or a sequence of shapely geometries
    by : column label(s) of a GeoDataFrame, optional
        Hull the geometries of each group of rows together, as
        ``data.dissolve(by=by, sort=sort, dropna=dropna).convex_hull`` does (the hull of the union's
        coordinates is the hull of the coordinates).

    Returns
    -------
    A GeoSeries with the input's index and CRS (one hull per geometry), or indexed by the groups'
    keys as ``dissolve`` indexes them; a list for a plain sequence of geometries.
    """
    if by is None:
        geometries = _geometry_values(data)
        hulls = _hulls_of_geometries(geometries)
        if hasattr(data, "index") and hasattr(data, "crs"):
            return _series(hulls, data.index, data.crs)
        return hulls
    if not hasattr(data, "columns") or not hasattr(data, "geometry"):
        raise TypeError("convex_hulls(..., by=...) takes a GeoDataFrame")
    grouped = data.groupby(by, sort=sort, dropna=dropna)
    codes = grouped.ngroup().to_numpy(dtype=np.float64, na_value=-1).astype(np.int64)
    keys = grouped.size().index
    return _series(_hulls_of_groups(_geometry_values(data), codes, len(keys)), keys, data.crs)


def _series(hulls: list, index: Any, crs: Any) -> Any:
    """A GeoSeries of the hulls (shapely geometries made here: GeoPandas need not check them)."""
    from geopandas import GeoSeries
    from geopandas.array import GeometryArray

    values = np.empty(len(hulls), dtype=object)
    for i, hull in enumerate(hulls):  # one by one: numpy would read multi-part shapes as arrays
        values[i] = hull
    return GeoSeries(GeometryArray(values, crs=crs), index=index)


def _geometry_values(data: Any) -> list:
    if hasattr(data, "geometry") and hasattr(data, "columns"):  # a GeoDataFrame: its active geometry
        data = data.geometry
    if hasattr(data, "values") and hasattr(data, "crs"):  # a GeoSeries: its GeometryArray's objects
        return np.asarray(data.values, dtype=object).tolist()
    if isinstance(data, _BaseGeometry):
        raise TypeError("convex_hulls takes a series or sequence of geometries; convex_hull takes one")
    return list(data)


# --- reading coordinates ----------------------------------------------------------------------------


def _coordinates(geometries: Sequence[Any]) -> tuple:
    """All coordinates of the geometries, in their order: (x and y as a C-contiguous (c, 2) float64
    array, z (c,) or None when no geometry has z, the index of each coordinate's geometry, each
    geometry's WKB type (1 point, 2 line string, ... 7 collection; 0 for None), and whether it has z).

    One WKB of a GeometryCollection of them all (one GEOS call); a walk over its headers finds the
    coordinate runs, which are then gathered from the bytes at once."""
    present = [i for i, g in enumerate(geometries) if g is not None]
    for i in present:
        if not isinstance(geometries[i], _BaseGeometry):
            raise TypeError(f"geometry {i} is not a shapely geometry: {type(geometries[i]).__name__}")
    kinds = np.zeros(len(geometries), dtype=np.int64)
    with_z = np.zeros(len(geometries), dtype=bool)
    nothing = np.empty((0, 2)), None, np.empty(0, dtype=np.int64), kinds, with_z
    if not present:
        return nothing
    blob = _GeometryCollection([geometries[i] for i in present]).wkb
    runs: list[tuple[int, int, int, int, bool]] = []  # (byte offset, coordinates, values each, geometry, a point?)
    offset = 9  # the collection's byte order, type and count
    for i in present:
        code = _UINT.unpack_from(blob, offset + 1)[0]
        kinds[i], with_z[i] = (code & 0xFFFF) % 1000, bool(code & _EWKB_Z) or (code & 0xFFFF) // 1000 in (1, 3)
        offset = _walk(blob, offset, i, runs)
    if not runs:
        return nothing
    start, count, values, owner, point = (np.array(column) for column in zip(*runs))
    # Coordinate k of a run starts at byte start + 8 * values * k; each byte offset's remainder mod 8
    # picks one of eight float64 views of the bytes, so every value is read by one gather.
    total = int(count.sum())
    run_of = np.repeat(np.arange(len(runs)), count)
    within = np.arange(total) - np.repeat(np.cumsum(count) - count, count)
    byte = start[run_of] + 8 * values[run_of] * within
    data = np.frombuffer(blob, dtype=np.uint8)
    any_z = bool((values == 3).any())
    xy = np.empty((total, 2))
    z = np.full(total, np.nan) if any_z else None
    for shift in range(8):
        rows = np.flatnonzero(byte % 8 == shift)
        if len(rows) == 0:
            continue
        view = data[shift : shift + 8 * ((len(data) - shift) // 8)].view("<f8")
        word = (byte[rows] - shift) // 8
        xy[rows, 0] = view[word]
        xy[rows, 1] = view[word + 1]
        if any_z:
            has_z = values[run_of[rows]] == 3
            z[rows[has_z]] = view[word[has_z] + 2]
    owners = owner[run_of]
    # GEOS writes an empty point (in a multi-point) as NaN coordinates.
    empty = point[run_of] & np.isnan(xy).all(axis=1)
    if empty.any():
        keep = ~empty
        xy, owners = np.ascontiguousarray(xy[keep]), owners[keep]
        z = None if z is None else z[keep]
    finite = np.isfinite(xy).all(axis=1)
    if not finite.all():
        raise ValueError(f"geometry {int(owners[np.argmin(finite)])} has a coordinate that is not finite")
    return xy, z, owners, kinds, with_z


def _walk(blob: bytes, offset: int, owner: int, runs: list) -> int:
    """Appends the coordinate runs of the WKB geometry at `offset` to `runs`; returns where it ends.
    Little-endian, as GEOS writes on this machine's byte order (checked)."""
    if blob[offset] != 1:
        raise ValueError("big-endian WKB is not supported")
    (code,) = _UINT.unpack_from(blob, offset + 1)
    offset += 5
    if code & _EWKB_SRID:
        offset += 4
    kind, has_z, has_m = code & 0xFFFF, bool(code & _EWKB_Z), bool(code & _EWKB_M)
    if kind > 1000:  # ISO: 1000 + kind for Z, 2000 + kind for M, 3000 + kind for both
        has_z, has_m, kind = kind // 1000 in (1, 3), kind // 1000 in (2, 3), kind % 1000
    if has_m:
        raise ValueError("geometries with M coordinates are not supported")
    values = 3 if has_z else 2
    if kind == _POINT:
        runs.append((offset, 1, values, owner, True))
        return offset + 8 * values
    if kind == _LINESTRING:
        (n,) = _UINT.unpack_from(blob, offset)
        runs.append((offset + 4, n, values, owner, False))
        return offset + 4 + 8 * values * n
    if kind == _POLYGON:
        (rings,) = _UINT.unpack_from(blob, offset)
        offset += 4
        for _ in range(rings):
            (n,) = _UINT.unpack_from(blob, offset)
            runs.append((offset + 4, n, values, owner, False))
            offset += 4 + 8 * values * n
        return offset
    if kind in (4, 5, 6, 7):  # multi-point, -linestring, -polygon, collection
        (members,) = _UINT.unpack_from(blob, offset)
        offset += 4
        for _ in range(members):
            offset = _walk(blob, offset, owner, runs)
        return offset
    raise ValueError(f"unsupported WKB geometry type {code}")


# --- the hulls ------------------------------------------------------------------------------------


def _hulls_of_geometries(geometries: Sequence[Any]) -> list:
    """One hull per geometry: its coordinates are consecutive, so they are groups by offsets."""
    xy, z, owner, _, with_z = _coordinates(geometries)
    n = len(geometries)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=n), out=offsets[1:])
    hulls = _grouped_hulls(xy, offsets=offsets, return_indices=True)
    missing = np.array([g is None for g in geometries], dtype=bool)
    return _shapes(xy, z, hulls, offsets, missing, with_z, points_only=None)


def _hulls_of_groups(geometries: Sequence[Any], codes: np.ndarray, groups: int) -> list:
    """One hull per group of geometries (codes: each geometry's group, -1 for none), as GEOS hulls
    the union of the group's geometries."""
    xy, z, owner, kinds, with_z = _coordinates(geometries)
    labels = codes[owner]  # each coordinate's group
    # Coordinates group by group (a stable sort: each group's coordinates in their order); rows in
    # no group (a missing key, dropped as dissolve drops it) go.
    order = np.argsort(labels, kind="stable")
    order = order[labels[order] >= 0]
    xy, labels = np.ascontiguousarray(xy[order]), labels[order]
    z = None if z is None else z[order]
    offsets = np.zeros(groups + 1, dtype=np.int64)
    np.cumsum(np.bincount(labels, minlength=groups), out=offsets[1:])
    hulls = _grouped_hulls(xy, offsets=offsets, return_indices=True)
    # A group of missing geometries only has no union (None); empty ones have an empty one.
    grouped = codes >= 0
    members = np.bincount(codes[grouped], weights=kinds[grouped] > 0, minlength=groups)
    # The union of points alone is a MultiPoint in (x, y) order, and a two-point hull keeps it.
    not_points = grouped & (kinds != 1) & (kinds != 4) & (kinds > 0)
    only_points = np.bincount(codes[not_points], minlength=groups) == 0
    # z where every geometry of the group has it (GEOS's union of 2-D and 3-D geometries is 2-D).
    group_z = (np.bincount(codes[grouped], weights=with_z[grouped], minlength=groups) == members) & (members > 0)
    return _shapes(xy, z, hulls, offsets, members == 0, group_z, points_only=only_points)


def _shapes(xy, z, hulls, offsets, missing, with_z, points_only) -> list:
    """shapely geometries for the hulls of the groups of `xy` (rows offsets[g]:offsets[g + 1]), as
    GEOS makes them: None where `missing`, an empty GeometryCollection for no coordinates, a Point, a
    LineString (its ends ordered by _pair_order), or a Polygon clockwise from its lowest vertex (y,
    then x), closed; with z where `with_z`. `points_only`: the groups whose geometries are all points
    (grouped form)."""
    vertices, hull_offsets, indices = hulls.vertices, hulls.offsets, hulls.indices
    groups = len(hull_offsets) - 1
    sizes = np.diff(hull_offsets)
    first = hull_offsets[:-1]
    coordinates = vertices if z is None else np.column_stack((vertices, z[indices]))
    out: list = [None] * groups
    pair_rows = _pair_order(xy, vertices, indices, first, sizes, offsets, np.flatnonzero(sizes == 2), points_only)
    pair_rows_of = np.full((groups, 2), -1, dtype=np.int64)
    pair_rows_of[sizes == 2] = pair_rows.reshape(-1, 2)
    for flat, columns in ((~with_z, 2), (with_z, 3)):
        if columns == 3 and z is None:
            continue
        values = coordinates[:, :columns]
        polygons = np.flatnonzero((sizes >= 3) & flat)
        pairs = np.flatnonzero((sizes == 2) & flat)
        points = np.flatnonzero((sizes == 1) & flat)
        _place(out, polygons, _polygon_rings(vertices, first, sizes, polygons), _POLYGON, values)
        _place(out, pairs, (pair_rows_of[pairs].ravel(), np.full(len(pairs), 2)), _LINESTRING, values)
        _place(out, points, (first[points], np.ones(len(points), dtype=np.int64)), _POINT, values)
    for g in np.flatnonzero((sizes == 0) & ~missing).tolist():
        out[g] = _GeometryCollection()
    return out


def _polygon_rings(vertices, first, sizes, polygons):
    """Each polygon's closed ring as rows of `vertices` and its length: the library's
    counter-clockwise order from the lexicographically smallest (x, y), reversed, from the vertex
    lowest in (y, x), the first again at the end."""
    h = sizes[polygons]
    start = first[polygons]
    owner = np.repeat(np.arange(len(polygons)), h)
    rows = np.repeat(start, h) + (np.arange(h.sum()) - np.repeat(np.cumsum(h) - h, h))
    by_lowest = np.lexsort((vertices[rows, 0], vertices[rows, 1], owner))
    lowest = rows[by_lowest[np.cumsum(h) - h]]  # each polygon's lowest vertex
    ring = h + 1
    step = np.arange(ring.sum()) - np.repeat(np.cumsum(ring) - ring, ring)  # 0..h within each ring
    ring_rows = np.repeat(start, ring) + (np.repeat(lowest - start, ring) - step) % np.repeat(h, ring)
    return ring_rows, ring


def _pair_order(xy, vertices, indices, first, sizes, offsets, pairs, points_only):
    """The two ends of each two-point hull in GEOS's order: as they first come in the coordinates
    when there are two distinct points (in (x, y) order where the group's geometries are all points:
    GEOS's union of points is a MultiPoint in that order), else from the lower (y, then x), where
    GEOS's scan starts."""
    if len(pairs) == 0:
        return np.empty(0, dtype=np.int64)
    a = first[pairs]
    b = a + 1
    va, vb = vertices[a], vertices[b]
    b_lower = (vb[:, 1] < va[:, 1]) | ((vb[:, 1] == va[:, 1]) & (vb[:, 0] < va[:, 0]))
    # Does the group hold a point other than the two ends (three or more distinct points)?
    pair_of_group = np.full(len(sizes), -1, dtype=np.int64)
    pair_of_group[pairs] = np.arange(len(pairs))
    k = pair_of_group[np.repeat(np.arange(len(sizes)), np.diff(offsets))]
    in_pair = k >= 0
    k, c = k[in_pair], xy[in_pair]
    other = ~((c == va[k]).all(axis=1) | (c == vb[k]).all(axis=1))
    three_or_more = np.bincount(k[other], minlength=len(pairs)) > 0
    b_first = indices[b] < indices[a]
    if points_only is not None:
        b_lex_smaller = (vb[:, 0] < va[:, 0]) | ((vb[:, 0] == va[:, 0]) & (vb[:, 1] < va[:, 1]))
        b_first = np.where(points_only[pairs], b_lex_smaller, b_first)
    b_first = np.where(three_or_more, b_lower, b_first)
    return np.column_stack((np.where(b_first, b, a), np.where(b_first, a, b))).ravel()


def _place(out: list, groups: np.ndarray, rows_and_counts, kind: int, coordinates: np.ndarray) -> None:
    """The shapes of one kind, from one WKB multi-geometry (one GEOS parse), into out[groups]."""
    if len(groups) == 0:
        return
    rows, counts = rows_and_counts
    for g, shape in zip(groups.tolist(), _wkb.loads(_multi_wkb(kind, coordinates[rows], counts)).geoms):
        out[g] = shape


def _multi_wkb(kind: int, coordinates: np.ndarray, counts: np.ndarray) -> bytes:
    """Little-endian WKB of a multi-point, -linestring or -polygon (one ring each) whose members
    have `counts` coordinates each, taken in turn from `coordinates` ((c, 2) or (c, 3): Z)."""
    dims = coordinates.shape[1]
    z_flag = _EWKB_Z if dims == 3 else 0
    members = len(counts)
    # Each member: byte order, type, [rings = 1], [coordinates], then the coordinates.
    header_words = {_POINT: 0, _LINESTRING: 1, _POLYGON: 2}[kind]
    header = 5 + 4 * header_words
    sizes = header + 8 * dims * counts
    starts = 9 + np.cumsum(sizes) - sizes
    blob = np.empty(9 + int(sizes.sum()), dtype=np.uint8)
    blob[:9] = np.frombuffer(struct.pack("<BII", 1, (kind + 3) | z_flag, members), dtype=np.uint8)
    headers = np.empty((members, header), dtype=np.uint8)
    headers[:, :5] = np.frombuffer(struct.pack("<BI", 1, kind | z_flag), dtype=np.uint8)
    words = np.empty((members, header_words), dtype="<u4")
    if kind == _POLYGON:
        words[:, 0] = 1
    if header_words:
        words[:, -1] = counts
    headers[:, 5:] = words.view(np.uint8).reshape(members, 4 * header_words)
    at_header = (starts[:, None] + np.arange(header)).ravel()
    blob[at_header] = headers.ravel()
    is_coordinate = np.ones(len(blob), dtype=bool)
    is_coordinate[:9] = False
    is_coordinate[at_header] = False
    blob[is_coordinate] = np.ascontiguousarray(coordinates, dtype="<f8").view(np.uint8).ravel()
    return blob.tobytes()
