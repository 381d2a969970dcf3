"""wagener.gis against shapely and GeoPandas: the same geometries, byte for byte (WKB), for every
geometry type, empty and missing ones included, one hull per geometry and per group (dissolve)."""

import numpy as np
import pytest

shapely = pytest.importorskip("shapely")
geopandas = pytest.importorskip("geopandas")
from shapely import wkt  # noqa: E402
from shapely.geometry import (  # noqa: E402
    GeometryCollection, LinearRing, LineString, MultiLineString, MultiPoint, MultiPolygon, Point, Polygon)

import wagener.gis  # noqa: E402

# Every type, empty and not, degenerate ones (one point, two, several on a line, repeats), Z.
NAMED = [
    "POINT EMPTY", "LINESTRING EMPTY", "POLYGON EMPTY", "MULTIPOINT EMPTY", "MULTILINESTRING EMPTY",
    "MULTIPOLYGON EMPTY", "GEOMETRYCOLLECTION EMPTY", "POINT (1 2)", "POINT (-0.5 3e300)",
    "MULTIPOINT ((1 2), (1 2))", "MULTIPOINT ((0 2), (2 0))", "MULTIPOINT ((2 0), (0 2))",
    "MULTIPOINT ((2 0), (0 2), (1 1))", "MULTIPOINT ((0 0), (0 2), (0 1))", "MULTIPOINT ((0 2), (0 0), (0 2))",
    "LINESTRING (3 3, 0 0, 1 1)", "LINESTRING (0 0, 1 0, 0 1, 1 1)", "LINESTRING (2 2, 0 0)",
    "LINEARRING (0 0, 4 0, 4 4, 0 0)", "POLYGON ((0 0, 0 3, 3 3, 3 0, 0 0))",
    "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (1 1, 2 1, 2 2, 1 1))",
    "MULTIPOLYGON (((0 0, 1 0, 0 1, 0 0)), ((5 5, 6 5, 5 6, 5 5)))",
    "MULTILINESTRING ((0 0, 1 1), (2 0, 3 -1))", "MULTILINESTRING ((0 0, 1 1), (2 2, 3 3))",
    "GEOMETRYCOLLECTION (POINT (1 1), LINESTRING EMPTY)",
    "GEOMETRYCOLLECTION (POINT (4 1), LINESTRING (0 0, 1 5), POLYGON ((2 2, 3 2, 2 3, 2 2)))",
    "GEOMETRYCOLLECTION (GEOMETRYCOLLECTION (MULTIPOINT ((0 0), (5 0))), POINT (2 7))",
    "POINT Z (1 2 3)", "MULTIPOINT Z ((0 0 1), (3 0 2), (3 3 3), (0 3 4))", "LINESTRING Z (0 0 1, 3 3 5)",
    "POLYGON Z ((0 0 1, 0 3 2, 3 3 3, 3 0 4, 0 0 1))",
]


def objects(geometries):
    """An object array of geometries, filled one by one (given a list, numpy and pandas read shapely
    1.8's multi-part geometries through their array interface, which fails on empty ones)."""
    array = np.empty(len(geometries), dtype=object)
    for i, g in enumerate(geometries):
        array[i] = g
    return array


def same(ours, theirs):
    """Identical geometries: both missing, both empty of the same type, or the same WKB bytes."""
    if ours is None or theirs is None:
        return ours is None and theirs is None
    if theirs.is_empty:
        return ours.is_empty and ours.geom_type == theirs.geom_type
    return ours.wkb == theirs.wkb


@pytest.mark.parametrize("text", NAMED)
def test_each_geometry_type_as_shapely(text):
    geometry = wkt.loads(text)
    ours = wagener.gis.convex_hull(geometry)
    assert same(ours, geometry.convex_hull), (ours.wkb.hex(), geometry.convex_hull.wkb.hex())
    assert type(ours) is type(geometry.convex_hull)


def test_none_is_none():
    assert wagener.gis.convex_hull(None) is None


def random_geometry(rng, null_empty=True, for_union=False):
    """A random geometry of any type on a small integer grid (GEOS decides it exactly too), with
    repeats, collinear points and empty parts; `null_empty`: shapely 1.8's Point() among them (which
    GeoPandas' dissolve cannot unite). `for_union`: what GEOS's union keeps whole (dissolve unites
    before it hulls): no zero-length line, no Z (the union of 2-D and 3-D geometries makes z values
    of its own), no coordinate near 1e300 (beyond its overlay's noding)."""
    k = int(rng.integers(1, 9))
    pts = [tuple(map(float, p)) for p in rng.integers(-6, 7, (k, 2))]
    kind = int(rng.integers(0, 9))
    if kind == 0:
        return Point(pts[0])
    if kind == 1:
        return MultiPoint(pts)
    if k == 1 and for_union:
        pts.append((pts[0][0] + 1, pts[0][1]))
        k = 2
    if kind == 2:
        return LineString(pts + pts[:1]) if k == 1 else LineString(pts)
    if kind == 3:
        centre, r = rng.integers(-5, 6, 2), int(rng.integers(1, 4))
        return Polygon([(centre[0] - r, centre[1]), (centre[0], centre[1] - r), (centre[0] + r, centre[1]), (centre[0], centre[1] + r)])
    if kind == 4:
        return MultiLineString([pts[: max(2, k // 2)] if k > 1 else pts * 2, [(0.0, 0.0), (1.0, 1.0)]])
    if kind == 5:
        x, y = pts[0]
        return MultiPolygon([Polygon([(0, 0), (2, 0), (0, 2)]), Polygon([(x, y), (x + 1, y), (x, y + 1)])])
    if kind == 6:
        return GeometryCollection([Point(pts[0]), LineString(pts * 2 if k == 1 else pts), Point()])
    if kind == 7:
        return Point() if null_empty else wkt.loads("POINT EMPTY")
    # GeoPandas 0.12 cannot hold shapely 1.8's empty MultiPoint (its array interface fails).
    return wkt.loads(rng.choice([t for t in NAMED if t != "MULTIPOINT EMPTY" and not (for_union and (" Z " in t or "e300" in t))]))


def test_random_geometries_as_geopandas(rng):
    geometries = [random_geometry(rng) for _ in range(400)] + [None]
    series = geopandas.GeoSeries(objects(geometries), index=np.arange(1000, 1401), crs="EPSG:3857")
    ours, theirs = wagener.gis.convex_hulls(series), series.convex_hull
    assert isinstance(ours, geopandas.GeoSeries)
    assert ours.index.equals(theirs.index) and ours.crs == theirs.crs and ours.name == theirs.name
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert same(a, b), (i, a, b)


def test_random_polygons_as_geopandas(rng):
    """Star-shaped polygons of random points: most of their vertices are not hull vertices."""
    n, k = 300, 12
    angles = np.sort(rng.uniform(0, 2 * np.pi, (n, k)), axis=1)
    radii = rng.uniform(0.2, 1, (n, k, 1))
    rings = np.stack((np.cos(angles), np.sin(angles)), axis=2) * radii + rng.uniform(-100, 100, (n, 1, 2))
    series = geopandas.GeoSeries([Polygon(r) for r in rings])
    assert all(same(a, b) for a, b in zip(wagener.gis.convex_hulls(series), series.convex_hull))
    frame = geopandas.GeoDataFrame({"name": np.arange(n)}, geometry=series)
    assert all(same(a, b) for a, b in zip(wagener.gis.convex_hulls(frame), series.convex_hull))
    assert all(same(a, b.convex_hull) for a, b in zip(wagener.gis.convex_hulls(list(series)), series))


def test_dissolve_by_a_column(rng):
    n = 600
    geometries = [random_geometry(rng, null_empty=False, for_union=True) for _ in range(n)]
    keys = rng.choice(["north", "south", "east", "west", "centre", "x"], n)
    frame = geopandas.GeoDataFrame({"region": keys}, geometry=geopandas.GeoSeries(objects(geometries)), crs="EPSG:4326")
    ours, theirs = wagener.gis.convex_hulls(frame, by="region"), frame.dissolve(by="region").convex_hull
    assert ours.index.equals(theirs.index) and ours.crs == theirs.crs
    for key, a, b in zip(theirs.index, ours, theirs):
        assert same(a, b), (key, a.wkb.hex(), b.wkb.hex())


@pytest.mark.parametrize("sort", [True, False])
@pytest.mark.parametrize("dropna", [True, False])
def test_dissolve_options_missing_keys_and_geometries(sort, dropna):
    frame = geopandas.GeoDataFrame({
        "a": [2.0, np.nan, 1.0, 2.0, 3.0, 3.0, 4.0, 5.0, 5.0, 6.0, 1.0],
        "b": ["x", "y", "x", "y", "x", "x", "x", "x", "x", "x", "x"],
        "geometry": [Point(0, 0), Point(1, 1), Point(2, 0), Point(5, 5), None, None, Point(),
                     Point(2, 0), Point(0, 2), LineString([(2, 0), (0, 2)]), Point(9, 9)],
    })
    for by in ("a", ["a", "b"]):
        ours = wagener.gis.convex_hulls(frame, by=by, sort=sort, dropna=dropna)
        theirs = frame.dissolve(by=by, sort=sort, dropna=dropna).convex_hull
        assert ours.index.equals(theirs.index)
        for key, a, b in zip(theirs.index, ours, theirs):
            assert same(a, b), (by, key, a, b)


def test_dissolve_of_many_points(rng):
    n, groups = 20000, 300
    label = rng.integers(0, groups, n)
    xy = rng.integers(-50, 50, (groups, 2))[label] + rng.integers(-3, 4, (n, 2))
    frame = geopandas.GeoDataFrame({"group": label, "geometry": geopandas.points_from_xy(xy[:, 0], xy[:, 1])})
    ours, theirs = wagener.gis.convex_hulls(frame, by="group"), frame.dissolve(by="group").convex_hull
    assert ours.index.equals(theirs.index)
    assert all(same(a, b) for a, b in zip(ours, theirs))


def test_dissolve_of_points_with_z():
    frame = geopandas.GeoDataFrame({"k": [1, 1, 1, 2, 2]}, geometry=geopandas.GeoSeries(objects([
        wkt.loads("POINT Z (0 0 1)"), wkt.loads("POINT Z (2 0 2)"), wkt.loads("POINT Z (0 2 3)"),
        wkt.loads("POINT Z (5 5 1)"), wkt.loads("POINT Z (7 5 2)")])))
    ours, theirs = wagener.gis.convex_hulls(frame, by="k"), frame.dissolve(by="k").convex_hull
    assert all(same(a, b) for a, b in zip(ours, theirs)) and ours.iloc[0].has_z


def test_refusals():
    with pytest.raises(TypeError, match="not a shapely geometry"):
        wagener.gis.convex_hulls([Point(0, 0), "POINT (1 1)"])
    with pytest.raises(TypeError, match="convex_hull takes one"):
        wagener.gis.convex_hulls(Point(0, 0))
    with pytest.raises(TypeError, match="GeoDataFrame"):
        wagener.gis.convex_hulls(geopandas.GeoSeries([Point(0, 0)]), by="a")
    with pytest.raises(ValueError, match="geometry 1 has a coordinate that is not finite"):
        wagener.gis.convex_hulls([Point(0, 0), LineString([(0, 0), (np.nan, 1)])])


def test_ring_is_linear_ring_hull():
    ring = LinearRing([(0, 0), (4, 0), (4, 4), (2, 1)])
    assert same(wagener.gis.convex_hull(ring), ring.convex_hull)


@pytest.mark.parametrize("family", ["near_collinear_ulp", "circle", "huge", "tiny", "duplicates", "grid"])
def test_polygons_are_the_exact_hull(family, rng):
    """Where GEOS's arithmetic is not exact, the hull still is: the ring holds exactly the vertices
    of wagener.convex_hull, clockwise from the lowest (y, then x), closed."""
    import families

    points = families.ALL[family](200, rng, np.float64)
    exact_hull = wagener.convex_hull(points)
    shape = wagener.gis.convex_hull(MultiPoint([tuple(p) for p in points.tolist()]))
    if len(exact_hull) < 3:
        assert len(shape.coords) == len(exact_hull)
        return
    ring = np.asarray(shape.exterior.coords)
    assert ring[0].tolist() == ring[-1].tolist() and len(ring) == len(exact_hull) + 1
    assert sorted(map(tuple, ring[:-1].tolist())) == sorted(map(tuple, exact_hull.tolist()))
    lowest = min(range(len(exact_hull)), key=lambda i: (exact_hull[i, 1], exact_hull[i, 0]))
    clockwise = np.roll(exact_hull[::-1], -(len(exact_hull) - 1 - lowest), axis=0)
    assert ring[:-1].tolist() == clockwise.tolist()
