"""wagener.ConvexHull against scipy.spatial.ConvexHull in 2-D: scipy's own test cases with wagener's
class in place of scipy's, every attribute's dtype and shape, incremental mode, ``coplanar`` (Qc),
``good`` (QGn, QG-n) and the Qhull options, side by side with scipy where exactness allows
agreement, and against the hull from scratch where it does not."""

import numpy as np
import pytest
import scipy.spatial

import exact
import families
import wagener

scipy_tests = pytest.importorskip("scipy.spatial.tests.test_qhull")


PLANE_DATASETS = sorted(name for name, points in scipy_tests.DATASETS.items() if points.shape[1] == 2)
PLANE_INCREMENTAL_DATASETS = sorted(
    name for name, (chunks, _) in scipy_tests.INCREMENTAL_DATASETS.items() if chunks[0].shape[1] == 2
)


@pytest.fixture
def scipy_cases(monkeypatch):
    """scipy's TestConvexHull, calling wagener.ConvexHull where it calls scipy's (and Delaunay as is)."""
    monkeypatch.setattr(scipy_tests.qhull, "ConvexHull", wagener.ConvexHull)
    return scipy_tests.TestConvexHull()


# --- scipy's own 2-D cases ----------------------------------------------------------------------


def test_scipy_masked_array_and_nan_cases(scipy_cases):
    scipy_cases.test_masked_array_fails()
    scipy_cases.test_array_with_nans_fails()


@pytest.mark.parametrize("name", PLANE_DATASETS)
def test_scipy_hull_consistency_cases(scipy_cases, name):
    scipy_cases.test_hull_consistency_tri(name)


@pytest.mark.parametrize("name", PLANE_INCREMENTAL_DATASETS)
def test_scipy_incremental_cases(scipy_cases, name):
    scipy_cases.test_incremental(name)


@pytest.mark.parametrize("incremental", [False, True])
def test_scipy_vertices_and_good_cases(scipy_cases, incremental):
    scipy_cases.test_vertices_2d()
    scipy_cases.test_good2d_no_option(incremental)
    scipy_cases.test_good2d_inside(incremental)


# scipy's test_good2d and test_good2d_incremental_changes name good facets by their position in
# Qhull's facet order; here the same cases compare the good edges themselves.
GOOD_SQUARE = np.array([[0.2, 0.2], [0.2, 0.4], [0.4, 0.4], [0.4, 0.2], [0.3, 0.6]])
NEW_POINTS = [[[0.3, 0.7]], [[0.3, -0.7]], [[0.3, 0.41]], [[0.5, 0.6], [0.6, 0.6]], [[0.3, 0.6 + 1e-16]], [[0.0, 0.0]]]


def good_edges(hull):
    return {frozenset(edge) for edge in hull.simplices[hull.good].tolist()}


@pytest.mark.parametrize("option", ["QG4", "QG-4"])
@pytest.mark.parametrize("new_points", NEW_POINTS)
def test_good_edges_are_scipys(option, new_points):
    for incremental in (False, True):
        ours = wagener.ConvexHull(GOOD_SQUARE, incremental=incremental, qhull_options=option)
        theirs = scipy.spatial.ConvexHull(GOOD_SQUARE, incremental=incremental, qhull_options=option)
        assert good_edges(ours) == good_edges(theirs)
        assert ours.good.dtype == theirs.good.dtype and ours.good.shape == theirs.good.shape
    ours.add_points(new_points)
    theirs.add_points(new_points)
    assert good_edges(ours) == good_edges(theirs)


@pytest.mark.parametrize("visible", ["", "-"])
def test_good_edges_are_scipys_on_random_points(visible, rng):
    for _ in range(10):
        points = rng.normal(size=(int(rng.integers(8, 60)), 2))
        first, new = points[:-3], points[-3:]
        option = f"QG{visible}{int(rng.integers(0, len(first)))}"
        ours = wagener.ConvexHull(first, incremental=True, qhull_options=option)
        theirs = scipy.spatial.ConvexHull(first, incremental=True, qhull_options=option)
        assert good_edges(ours) == good_edges(theirs)
        ours.add_points(new)
        theirs.add_points(new)
        assert good_edges(ours) == good_edges(theirs)


# --- every attribute, side by side ------------------------------------------------------------


def check_same_type(ours, theirs):
    for name in ("points", "vertices", "simplices", "neighbors", "equations", "coplanar", "min_bound", "max_bound"):
        a, b = getattr(ours, name), getattr(theirs, name)
        assert (a.dtype, a.shape) == (b.dtype, b.shape), name
    assert (ours.good is None) == (theirs.good is None)
    if ours.good is not None:
        assert (ours.good.dtype, ours.good.shape) == (theirs.good.dtype, theirs.good.shape)
    for name in ("volume", "area", "npoints", "ndim", "nsimplex"):
        assert type(getattr(ours, name)) is type(getattr(theirs, name)), name


def check_same_hull(ours, theirs):
    """The same hull as scipy's where Qhull is exact (no three points nearly collinear)."""
    check_same_type(ours, theirs)
    np.testing.assert_array_equal(ours.points, theirs.points)
    assert sorted(ours.vertices.tolist()) == sorted(theirs.vertices.tolist())
    k = theirs.vertices.tolist().index(ours.vertices[0])
    assert ours.vertices.tolist() == np.roll(theirs.vertices, -k).tolist()  # both counter-clockwise
    theirs_by_edge = {frozenset(s): e for s, e in zip(theirs.simplices.tolist(), theirs.equations)}
    assert set(map(frozenset, ours.simplices.tolist())) == set(theirs_by_edge)
    for simplex, equation in zip(ours.simplices.tolist(), ours.equations):
        np.testing.assert_allclose(equation, theirs_by_edge[frozenset(simplex)], rtol=1e-12, atol=1e-12)
    assert ours.volume == pytest.approx(theirs.volume, rel=1e-12)
    assert ours.area == pytest.approx(theirs.area, rel=1e-12)
    assert (ours.npoints, ours.ndim, ours.nsimplex) == (theirs.npoints, theirs.ndim, theirs.nsimplex)
    np.testing.assert_array_equal(ours.min_bound, theirs.min_bound)
    np.testing.assert_array_equal(ours.max_bound, theirs.max_bound)


@pytest.mark.parametrize("family", ["uniform_square", "uniform_disk", "gaussian"])
@pytest.mark.parametrize("options", [None, "Qt", "Qc", "QG0", "QG-1 Qc", "Qx Qs Pp"])
def test_attributes_are_scipys_on_random_points(family, options, rng):
    # At least 4 points: QGn hulls every point but n, so 3 would leave 2, which both refuse.
    points = families.ALL[family](int(rng.integers(4, 400)), rng, np.float64)
    ours = wagener.ConvexHull(points, qhull_options=options)
    theirs = scipy.spatial.ConvexHull(points, qhull_options=options)
    check_same_hull(ours, theirs)
    if ours.good is not None:
        assert good_edges(ours) == good_edges(theirs)


def grid_with_boundary_points(rng):
    """Integer points: a random polygon's corners, points on its axis-parallel edges, repeats of
    corners and interior points; every decision is exact for Qhull too (small integers)."""
    corners = np.array([[0, 0], [8, 0], [8, 6], [0, 6]], dtype=float) + rng.integers(-3, 4, 2)
    on_edges = np.array([[2, 0], [5, 0], [8, 3], [4, 6], [0, 1], [0, 5], [7, 0]], dtype=float) + corners[0]
    inside = rng.integers(1, 6, (10, 2)).astype(float) + corners[0]
    points = np.vstack((corners, on_edges, corners[rng.integers(0, 4, 3)], inside))
    return points[rng.permutation(len(points))]


def test_coplanar_is_scipys_on_exact_inputs(rng):
    for _ in range(20):
        points = grid_with_boundary_points(rng)
        ours = wagener.ConvexHull(points, qhull_options="Qc")
        theirs = scipy.spatial.ConvexHull(points, qhull_options="Qc")
        check_same_type(ours, theirs)
        # The same points on the boundary; of repeated corners Qhull may make another one the vertex.
        assert sorted(ours.coplanar[:, 0].tolist() + ours.vertices.tolist()) == sorted(
            theirs.coplanar[:, 0].tolist() + theirs.vertices.tolist())
        # Edges and vertices by their coordinates (Qhull's corner may be another row of a repeat).
        def where(rows):
            return frozenset(map(tuple, points[rows].tolist()))

        theirs_by_point = {p: (where(theirs.simplices[f]), where([v])) for p, f, v in theirs.coplanar.tolist()}
        for point, edge, vertex in ours.coplanar.tolist():
            ends = ours.simplices[edge].tolist()
            assert exact.orient(*points[ends], points[point]) == 0
            # Qhull may name the other edge at a corner, or the other end at the middle of an edge.
            distance = [np.hypot(*(points[point] - points[e])) for e in ends]
            assert vertex in ends and distance[ends.index(vertex)] == min(distance)
            if min(distance) > 0 and distance[0] != distance[1]:
                assert (where(ends), where([vertex])) == theirs_by_point[point]


@pytest.mark.parametrize("family", ["grid", "equal_x_columns", "duplicates", "two_distinct", "uniform_square"])
def test_coplanar_is_exact(family, rng):
    """Every point that is no vertex is in coplanar exactly when it lies on an edge (Fractions)."""
    points = families.ALL[family](300, rng, np.float64)
    if family == "two_distinct":
        points = np.vstack((points, [[5, -5]]))
    hull = wagener.ConvexHull(points, qhull_options="Qc")
    edges = [points[e] for e in hull.simplices]
    listed = {p: (f, v) for p, f, v in hull.coplanar.tolist()}
    vertices = set(hull.vertices.tolist())
    for i, p in enumerate(points):
        if i in vertices:
            continue
        on = [k for k, (a, b) in enumerate(edges)
              if exact.orient(a, b, p) == 0 and min(a[0], b[0]) <= p[0] <= max(a[0], b[0])
              and min(a[1], b[1]) <= p[1] <= max(a[1], b[1])]
        assert (i in listed) == bool(on), i
        if on:
            assert listed[i][0] in on and listed[i][1] in hull.simplices[listed[i][0]]


def test_without_qc_coplanar_is_empty_as_scipys():
    points = [[0, 0], [2, 0], [2, 2], [0, 2], [1, 0], [0, 0]]
    ours, theirs = wagener.ConvexHull(points), scipy.spatial.ConvexHull(points)
    assert ours.coplanar.shape == theirs.coplanar.shape == (0, 3)
    assert ours.good is None and theirs.good is None


# --- incremental mode ---------------------------------------------------------------------------


def same_as_from_scratch(hull, options):
    """Every attribute equals that of a hull of all the points made at once (exact, both ways)."""
    fresh = wagener.ConvexHull(hull.points, qhull_options=options)
    for name in ("points", "vertices", "simplices", "neighbors", "equations", "coplanar", "min_bound", "max_bound"):
        np.testing.assert_array_equal(getattr(hull, name), getattr(fresh, name), err_msg=name)
        assert getattr(hull, name).dtype == getattr(fresh, name).dtype
    np.testing.assert_equal((hull.volume, hull.area, hull.npoints, hull.nsimplex),
                            (fresh.volume, fresh.area, fresh.npoints, fresh.nsimplex))
    if fresh.good is None:
        assert hull.good is None
    else:
        np.testing.assert_array_equal(hull.good, fresh.good)


@pytest.mark.parametrize("family", sorted(families.ALL))
@pytest.mark.parametrize("options", [None, "Qc", "QG2 Qc"])
def test_incremental_hull_is_the_hull_from_scratch(family, options, rng):
    points = families.ALL[family](600, rng, np.float64)
    order = rng.permutation(len(points))
    def hull_size(chunk):  # QG2 leaves point 2 out of the hull
        return len(wagener.convex_hull(np.delete(chunk, 2, axis=0) if options == "QG2 Qc" else chunk))

    if hull_size(points) < 3:  # every point on one line: refused, whole or in part
        with pytest.raises(ValueError, match="not all on one line"):
            wagener.ConvexHull(points, incremental=True, qhull_options=options)
        return
    start = 3
    while hull_size(points[order[:start]]) < 3:  # the first chunk: not on one line
        start += 1
    hull = wagener.ConvexHull(points[order[:start]], incremental=True, qhull_options=options)
    rest = order[start:]
    for chunk in np.array_split(rest, int(rng.integers(1, 12))):
        hull.add_points(points[chunk])
        same_as_from_scratch(hull, options)


def test_incremental_coplanar_follows_growing_edges():
    """An old vertex, and points on an old edge, end on a longer edge, or inside."""
    hull = wagener.ConvexHull([[0, 0], [2, 0], [1, 2], [1, 0], [2, 0]], incremental=True, qhull_options="Qc")
    assert hull.coplanar[:, 0].tolist() == [3, 4]
    hull.add_points([[4, 0]])  # (2, 0) is no longer a vertex: on the edge (0, 0)-(4, 0)
    assert sorted(hull.vertices.tolist()) == [0, 2, 5]
    assert hull.coplanar[:, 0].tolist() == [1, 3, 4]
    hull.add_points([[2, -1]])  # the bottom edge is gone: all of them inside
    assert hull.coplanar.shape == (0, 3)
    same_as_from_scratch(hull, "Qc")


def test_incremental_against_scipy(rng):
    points = rng.normal(size=(500, 2))
    ours = wagener.ConvexHull(points[:10], incremental=True)
    theirs = scipy.spatial.ConvexHull(points[:10], incremental=True)
    for chunk in np.array_split(np.arange(10, 500), 7):
        ours.add_points(points[chunk])
        theirs.add_points(points[chunk])
        check_same_hull(ours, theirs)
    ours.add_points(points[:5] * 3, restart=True)
    theirs.add_points(points[:5] * 3, restart=True)
    check_same_hull(ours, theirs)


def test_add_points_refusals_leave_the_hull_as_it_was():
    hull = wagener.ConvexHull([[0, 0], [1, 0], [0, 1]], incremental=True)
    for bad, error in (([[np.nan, 1]], ValueError), (np.zeros((2, 3)), ValueError), (np.ma.masked_all((2, 2)), ValueError),
                       (np.ones((2, 2), dtype=complex), TypeError)):
        with pytest.raises(error):
            hull.add_points(bad)
        assert hull.npoints == 3 and hull.vertices.tolist() == [0, 1, 2]
    hull.add_points(np.empty((0, 2)))
    assert hull.npoints == 3
    hull.close()
    hull.close()
    with pytest.raises(RuntimeError, match="incremental mode not enabled or already closed"):
        hull.add_points([[5, 5]])
    with pytest.raises(RuntimeError, match="incremental mode not enabled or already closed"):
        wagener.ConvexHull([[0, 0], [1, 0], [0, 1]]).add_points([[5, 5]])


def test_points_grow_without_changing_earlier_views():
    hull = wagener.ConvexHull([[0, 0], [1, 0], [0, 1]], incremental=True)
    before = hull.points
    for k in range(20):
        hull.add_points([[k + 2.0, k + 2.0]])
    assert before.tolist() == [[0, 0], [1, 0], [0, 1]]
    assert hull.points.shape == (23, 2) and hull.points[-1].tolist() == [21, 21]


# --- input and options --------------------------------------------------------------------------


def test_masked_arrays_are_refused_everywhere():
    masked = np.ma.masked_array(np.arange(8.0).reshape(4, 2), mask=[[0, 0], [1, 1], [0, 0], [0, 0]])
    for call in (wagener.ConvexHull, wagener.convex_hull, lambda p: wagener.convex_hulls(p, [0, 4]),
                 lambda p: wagener.merge_hulls([p])):
        with pytest.raises(ValueError, match="masked array"):
            call(masked)
    with pytest.raises(ValueError):  # scipy's refusal, for comparison
        scipy.spatial.ConvexHull(masked)


@pytest.mark.parametrize("option", ["Qz", "Qu", "Qi", "Qg", "QV3", "Qbb", "QbB", "C-0", "A0.9", "E1e-3", "QR0", "Foo", "Qt Qz"])
def test_options_without_a_2d_meaning_are_refused_by_name(option):
    name = option.split()[-1]
    with pytest.raises(ValueError, match=f"'{name}'"):
        wagener.ConvexHull(GOOD_SQUARE, qhull_options=option)


def test_options_for_qhulls_arithmetic_change_nothing(rng):
    """Joggling, exact pre-merges, scaling: an exact hull needs none (scipy's hull with QJ differs)."""
    points = rng.normal(size=(100, 2))
    plain = wagener.ConvexHull(points)
    for option in ("QJ", "QJ1e-5", "Qx", "Qs", "Qw", "Q12", "Pp", "Qt"):
        hull = wagener.ConvexHull(points, qhull_options=option)
        assert hull.vertices.tolist() == plain.vertices.tolist() and hull.volume == plain.volume


def test_good_point_options_are_checked():
    with pytest.raises(ValueError, match="no point 5"):
        wagener.ConvexHull(GOOD_SQUARE, qhull_options="QG5")
    with pytest.raises(ValueError, match="given twice"):
        wagener.ConvexHull(GOOD_SQUARE, qhull_options="QG4 QG-3")
    with pytest.raises(TypeError):
        wagener.ConvexHull(GOOD_SQUARE, qhull_options=4)
    hull = wagener.ConvexHull(GOOD_SQUARE, qhull_options=b"QG4 Qt")
    assert good_edges(hull) == {frozenset((1, 2))}


def test_indices_are_scipys_int32():
    hull = wagener.ConvexHull([[0, 0], [4, 0], [4, 3], [0, 3], [2, 1]])
    assert hull.vertices.dtype == hull.simplices.dtype == hull.neighbors.dtype == np.intc
    assert hull.coplanar.dtype == np.intc and hull.coplanar.shape == (0, 3)
