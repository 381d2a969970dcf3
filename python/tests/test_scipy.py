"""Agreement with scipy.spatial.ConvexHull (Qhull) where Qhull is exact, and where it is not."""

import numpy as np
import pytest
import scipy.spatial

import exact
import families
import wagener


def rotate_to(sequence, first):
    sequence = list(sequence)
    k = sequence.index(first)
    return sequence[k:] + sequence[:k]


@pytest.mark.parametrize("family", ["uniform_square", "uniform_disk", "gaussian"])
@pytest.mark.parametrize("n", [3, 10, 1000, 100_000])
def test_same_vertices_as_scipy_on_random_points(family, n, rng):
    points = families.ALL[family](n, rng, np.float64)
    _, indices = wagener.convex_hull(points, return_indices=True)
    assert set(indices.tolist()) == set(scipy.spatial.ConvexHull(points).vertices.tolist())


@pytest.mark.parametrize("family", ["uniform_square", "uniform_disk", "gaussian"])
@pytest.mark.parametrize("n", [3, 50, 5000])
def test_convex_hull_attributes_match_scipy(family, n, rng):
    points = families.ALL[family](n, rng, np.float64)
    ours, theirs = wagener.ConvexHull(points), scipy.spatial.ConvexHull(points)
    np.testing.assert_array_equal(ours.points, theirs.points)
    assert ours.points.dtype == np.float64
    # Both counter-clockwise; scipy may start at another vertex.
    assert ours.vertices.tolist() == rotate_to(theirs.vertices.tolist(), ours.vertices[0])
    assert ours.volume == pytest.approx(theirs.volume, rel=1e-12)
    assert ours.area == pytest.approx(theirs.area, rel=1e-12)
    assert (ours.npoints, ours.ndim, ours.nsimplex) == (theirs.npoints, theirs.ndim, theirs.nsimplex)
    np.testing.assert_array_equal(ours.min_bound, theirs.min_bound)
    np.testing.assert_array_equal(ours.max_bound, theirs.max_bound)
    # The same edges (scipy's in another order, each either way round), the same equations.
    theirs_by_edge = {frozenset(s): (i, e) for i, (s, e) in enumerate(zip(theirs.simplices.tolist(), theirs.equations))}
    assert set(map(frozenset, ours.simplices.tolist())) == set(theirs_by_edge)
    for simplex, equation in zip(ours.simplices.tolist(), ours.equations):
        np.testing.assert_allclose(equation, theirs_by_edge[frozenset(simplex)][1], rtol=1e-12, atol=1e-12)
    # neighbors[i, j]: the edge opposite simplices[i, j], by scipy's meaning, in our numbering.
    for i, (a, b) in enumerate(ours.simplices.tolist()):
        assert b in ours.simplices[ours.neighbors[i, 0]] and a not in ours.simplices[ours.neighbors[i, 0]]
        assert a in ours.simplices[ours.neighbors[i, 1]] and b not in ours.simplices[ours.neighbors[i, 1]]


def test_convex_hull_geometry():
    hull = wagener.ConvexHull([[0, 0], [4, 0], [4, 3], [0, 3], [2, 1], [4, 1]])
    assert hull.vertices.tolist() == [0, 1, 2, 3]
    assert hull.simplices.tolist() == [[0, 1], [1, 2], [2, 3], [3, 0]]
    assert hull.volume == 12 and hull.area == 14
    np.testing.assert_array_equal(hull.equations, [[0, -1, 0], [1, 0, -4], [0, 1, -3], [-1, 0, 0]])
    inside = hull.points @ hull.equations[:, :2].T + hull.equations[:, 2]
    assert (inside <= 0).all()
    assert hull.vertices.dtype == np.intc and hull.simplices.shape == (4, 2)  # scipy's C int


@pytest.mark.parametrize("points", [[[1, 1]], [[0, 0], [1, 1]], [[0, 0], [1, 1], [3, 3], [2, 2]], [[5, 5]] * 4])
def test_convex_hull_of_degenerate_input_is_a_value_error(points):
    with pytest.raises(ValueError, match="at least 3 points not all on one line"):
        wagener.ConvexHull(points)
    with pytest.raises(scipy.spatial.QhullError):  # scipy's equivalent
        scipy.spatial.ConvexHull(points)


def test_convex_hull_rejects_what_convex_hull_rejects():
    with pytest.raises(ValueError, match="point 3 is not finite"):
        wagener.ConvexHull([[0, 0], [1, 0], [0, 1], [np.inf, 1]])
    with pytest.raises(TypeError):
        wagener.ConvexHull(np.ones((4, 2), dtype=complex))
    with pytest.raises(ValueError, match="shape"):
        wagener.ConvexHull(np.ones((4, 3)))


def test_on_a_circle_wagener_is_exact_where_qhull_is_not():
    """200,000 points on the unit circle, rounded to float64: nearly every one is a strict vertex.

    Qhull (scipy 1.10) leaves out about ten of them: it merges nearly collinear edges. For every
    point where the two disagree, exact arithmetic sides with wagener: each point scipy leaves out
    lies strictly outside scipy's hull (so scipy's polygon is not the hull) and is a strict convex
    corner of wagener's. The test asserts only that; how many scipy drops depends on its version.
    """
    rng = np.random.default_rng(20261123)
    angles = rng.uniform(0, 2 * np.pi, 200_000)
    points = np.column_stack((np.cos(angles), np.sin(angles)))
    ours = wagener.convex_hull(points, return_indices=True)[1].tolist()
    theirs = scipy.spatial.ConvexHull(points).vertices.tolist()
    position = {v: i for i, v in enumerate(ours)}
    h = len(ours)
    theirs_angles = np.arctan2(points[theirs, 1], points[theirs, 0])
    order = np.argsort(theirs_angles)
    for v in set(ours) - set(theirs):  # scipy drops a vertex: it lies outside scipy's polygon
        i = position[v]
        corner = points[ours[i - 1]], points[v], points[ours[(i + 1) % h]]
        assert exact.orient(*corner) > 0
        # The scipy edge spanning v's direction (both polygons wind around the origin).
        k = np.searchsorted(theirs_angles[order], np.arctan2(points[v, 1], points[v, 0]))
        a, b = points[theirs[order[k - 1]]], points[theirs[order[k % len(order)]]]
        assert exact.orient(a, b, points[v]) < 0
    for v in set(theirs) - set(ours):  # scipy keeps a point that is no strict vertex
        i = theirs.index(v)
        assert exact.orient(points[theirs[i - 1]], points[v], points[theirs[(i + 1) % len(theirs)]]) <= 0
    # Wagener's polygon: strictly convex at every corner, exactly.
    hull = points[ours]
    turns = [exact.orient(hull[i - 1], hull[i], hull[(i + 1) % h]) for i in range(h)]
    assert min(turns) > 0
