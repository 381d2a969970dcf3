"""convex_hull against an exact reference: every family, both dtypes, every host backend."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import exact
import families
import wagener

DTYPES = [np.float32, np.float64]
BACKENDS = ["auto", "cpu", "pram"]


def rows(array):
    return [(float(x), float(y)) for x, y in array]


def check_indices(points, vertices, indices):
    """indices[i] is the first row of points equal to vertices[i] (-0.0 equals 0.0)."""
    assert indices.dtype == np.int64 and indices.shape == (len(vertices),)
    for v, i in zip(vertices, indices):
        equal = np.flatnonzero((points[:, 0] == v[0]) & (points[:, 1] == v[1]))
        assert i == equal[0]


@pytest.mark.parametrize("family", sorted(families.ALL))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("backend", BACKENDS)
def test_full_hull_is_exact(family, dtype, backend, rng):
    for n in (1, 2, 3, 5, 17, 200):
        points = families.ALL[family](n, rng, dtype)
        hull = wagener.convex_hull(points, backend=backend)
        assert hull.dtype == dtype and hull.shape[1] == 2
        assert rows(hull) == exact.convex_hull(rows(points)), (family, n)


@pytest.mark.parametrize("family", sorted(families.ALL))
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("backend", BACKENDS)
def test_upper_hull_is_exact(family, dtype, backend, rng):
    for n in (1, 2, 3, 5, 17, 200):
        points = families.ALL[family](n, rng, dtype)
        expected = exact.upper_hull(rows(points))
        assert rows(wagener.convex_hull(points, upper=True, backend=backend)) == expected, (family, n)
        ordered = points[np.lexsort((points[:, 1], points[:, 0]))]
        presorted = wagener.convex_hull(ordered, upper=True, presorted=True, backend=backend)
        assert rows(presorted) == expected, (family, n)


@pytest.mark.parametrize("family", sorted(families.ALL))
@pytest.mark.parametrize("dtype", DTYPES)
def test_large_inputs_agree_across_backends(family, dtype, rng):
    """The multi-core CPU backend and Wagener's rounds on the PRAM emulator, both exact, agree."""
    points = families.ALL[family](30_000, rng, dtype)
    cpu, cpu_indices = wagener.convex_hull(points, backend="cpu", return_indices=True)
    pram, pram_indices = wagener.convex_hull(points, backend="pram", return_indices=True)
    np.testing.assert_array_equal(cpu, pram)
    np.testing.assert_array_equal(cpu_indices, pram_indices)
    np.testing.assert_array_equal(points[cpu_indices], cpu)
    upper_cpu = wagener.convex_hull(points, upper=True, backend="cpu")
    np.testing.assert_array_equal(upper_cpu, wagener.convex_hull(points, upper=True, backend="pram"))


@pytest.mark.parametrize("family", ["uniform_disk", "duplicates", "grid", "collinear"])
def test_indices_are_first_input_rows(family, rng):
    points = families.ALL[family](500, rng, np.float64)
    for upper in (False, True):
        vertices, indices = wagener.convex_hull(points, upper=upper, return_indices=True)
        check_indices(points, vertices, indices)


def test_conventions():
    square = np.array([[1, 1], [0, 0], [1, 0], [0.5, 0.5], [0, 1], [0.5, 0]])
    np.testing.assert_array_equal(wagener.convex_hull(square), [[0, 0], [1, 0], [1, 1], [0, 1]])
    np.testing.assert_array_equal(wagener.convex_hull(square, upper=True), [[0, 0], [0, 1], [1, 1]])
    vertices, indices = wagener.convex_hull(square, return_indices=True)
    np.testing.assert_array_equal(indices, [1, 2, 0, 4])
    np.testing.assert_array_equal(wagener.convex_hull([[2, 3]] * 4), [[2, 3]])  # one distinct point
    np.testing.assert_array_equal(wagener.convex_hull([[0, 0], [2, 2], [1, 1]]), [[0, 0], [2, 2]])


finite64 = st.floats(allow_nan=False, allow_infinity=False)
finite32 = st.floats(allow_nan=False, allow_infinity=False, width=32)


def point_arrays(dtype, elements):
    return hnp.arrays(dtype, st.tuples(st.integers(0, 40), st.just(2)), elements=elements)


def small_integer_grid():
    """Many duplicates and collinear triples."""
    return hnp.arrays(np.float64, st.tuples(st.integers(0, 40), st.just(2)), elements=st.integers(-3, 3).map(float))


@given(st.one_of(point_arrays(np.float64, finite64), point_arrays(np.float32, finite32), small_integer_grid()))
def test_property_exact_hulls(points):
    expected_full = exact.convex_hull(rows(points))
    vertices, indices = wagener.convex_hull(points, return_indices=True)
    assert vertices.dtype == points.dtype
    assert rows(vertices) == expected_full
    check_indices(points, vertices, indices)
    assert rows(wagener.convex_hull(points, upper=True)) == exact.upper_hull(rows(points))
    assert rows(wagener.convex_hull(points, backend="pram")) == expected_full


@given(point_arrays(np.float64, st.floats(-1e3, 1e3)))
def test_property_hull_contains_points_and_turns_left(points):
    hull = wagener.convex_hull(points)
    h = len(hull)
    for i in range(h if h >= 3 else 0):
        a, b, c = hull[i], hull[(i + 1) % h], hull[(i + 2) % h]
        assert exact.orient(a, b, c) > 0
        assert all(exact.orient(a, b, p) >= 0 for p in points)
