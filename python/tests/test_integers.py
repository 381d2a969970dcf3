"""Integer points: every integer dtype hulled exactly in its own dtype, on every door (convex_hull,
convex_hulls, merge_hulls, ConvexHull, orient2d), against the exact reference in Python ints; none
rounded to float64, uint64 beyond int64 refused."""

import numpy as np
import pytest

import exact
import wagener

INT64_MIN, INT64_MAX = np.iinfo(np.int64).min, np.iinfo(np.int64).max


def rows(array):
    return [(int(x), int(y)) for x, y in array]


def whole_range(n, rng, dtype):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=(n, 2), dtype=dtype, endpoint=True)


def nudged_line(n, rng, scale=2**60, slope=3):
    """On y = slope x at the 2^62 scale, nudged by a unit or not: near-collinear in the last bit."""
    x = rng.integers(-scale, scale, n)
    pts = np.column_stack((x, slope * x))
    pts += rng.integers(-1, 2, (n, 2))
    return pts.astype(np.int64)


def extremes(n, rng):
    values = np.array([INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX - 1, INT64_MAX], np.int64)
    return values[rng.integers(0, len(values), (n, 2))]


def test_the_issues_example():
    p = np.array([[0, 0], [2**54, 0], [2**54 + 1, 0], [0, 5]], dtype=np.int64)
    assert wagener.ConvexHull(p).vertices.tolist() == [0, 2, 3]
    hull = wagener.convex_hull(np.array([[0, 0], [1, 1], [2, 2], [3, 0]], dtype=np.int32))
    assert hull.dtype == np.int32 and hull.tolist() == [[0, 0], [3, 0], [2, 2]]


@pytest.mark.parametrize(
    "dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, ">i4", "<i8"]
)
def test_every_integer_dtype_is_exact_in_its_own_dtype(dtype, rng):
    info = np.iinfo(np.dtype(dtype))
    high = min(int(info.max), INT64_MAX)  # uint64: the values that fit int64
    for n in (0, 1, 2, 3, 50, 2000):
        points = rng.integers(int(info.min), high, size=(n, 2), endpoint=True).astype(dtype)
        for backend in ("auto", "cpu", "pram"):
            hull, indices = wagener.convex_hull(points, backend=backend, return_indices=True)
            assert hull.dtype == np.dtype(dtype)
            assert rows(hull) == exact.convex_hull(points.tolist())
            assert rows(points[indices]) == rows(hull)
            upper = wagener.convex_hull(points, upper=True, backend=backend)
            assert upper.dtype == np.dtype(dtype) and rows(upper) == exact.upper_hull(points.tolist())


@pytest.mark.parametrize("make", [whole_range, nudged_line, extremes], ids=["whole_range", "nudged_line", "extremes"])
def test_int64_across_the_whole_range(make, rng):
    for n in (3, 100, 5000, 300_000):
        points = make(n, rng, np.int64) if make is whole_range else make(n, rng)
        hull, indices = wagener.convex_hull(points, return_indices=True)
        expected = exact.convex_hull(points.tolist()) if n <= 5000 else None
        if expected is not None:
            assert rows(hull) == expected
        assert rows(points[indices]) == rows(hull)
        for backend in ("cpu", "pram") if n <= 5000 else ("cpu",):
            np.testing.assert_array_equal(wagener.convex_hull(points, backend=backend), hull)


def test_lists_of_python_integers_are_int64(rng):
    hull = wagener.convex_hull([[0, 0], [2**62, 1], [2**62 + 1, 1], [0, 3]])
    assert hull.dtype == np.int64 and rows(hull) == [(0, 0), (2**62 + 1, 1), (0, 3)]
    with pytest.raises(TypeError, match="real numbers"):
        wagener.convex_hull([[0, 0], [2**64, 1], [1, 1]])  # beyond every integer dtype: object


def test_uint64_beyond_int64_is_refused():
    fits = np.array([[0, 0], [INT64_MAX, 0], [0, 1]], dtype=np.uint64)
    assert wagener.convex_hull(fits).dtype == np.uint64
    too_big = np.array([[0, 0], [2**63, 0], [0, 1]], dtype=np.uint64)
    for call in (
        lambda: wagener.convex_hull(too_big),
        lambda: wagener.convex_hulls(too_big, [0, 3]),
        lambda: wagener.merge_hulls([too_big]),
        lambda: wagener.ConvexHull(too_big),
    ):
        with pytest.raises(ValueError, match="2\\*\\*63 - 1"):
            call()


def test_grouped_hulls_of_integers(rng):
    groups = [whole_range(n, rng, np.int64) for n in (0, 1, 3, 17, 200, 5000)]
    groups += [nudged_line(300, rng), extremes(50, rng)]
    points = np.concatenate(groups)
    offsets = np.concatenate(([0], np.cumsum([len(g) for g in groups])))
    for dtype in (np.int64, np.int32):
        pts = points if dtype == np.int64 else (points >> 33).astype(np.int32)
        for backend in ("cpu", "pram"):
            result = wagener.convex_hulls(pts, offsets, backend=backend, return_indices=True)
            assert result.vertices.dtype == dtype
            for g in range(len(groups)):
                group = pts[offsets[g] : offsets[g + 1]]
                assert rows(result.hull(g)) == exact.convex_hull(group.tolist())
            assert rows(pts[result.indices]) == rows(result.vertices)
        labels = rng.integers(0, 5, len(pts))
        by_label = wagener.convex_hulls(pts, groups=labels)
        for g, label in enumerate(by_label.groups):
            assert rows(by_label.hull(g)) == exact.convex_hull(pts[labels == label].tolist())


def test_merge_hulls_of_integers(rng):
    parts = [whole_range(1000, rng, np.int64), nudged_line(500, rng), extremes(20, rng)]
    merged = wagener.merge_hulls([wagener.convex_hull(p) for p in parts])
    assert merged.dtype == np.int64
    assert rows(merged) == exact.convex_hull(np.concatenate(parts).tolist())
    small = [whole_range(300, rng, np.int16), whole_range(300, rng, np.int32)]
    merged = wagener.merge_hulls(small)
    assert merged.dtype == np.int32 and rows(merged) == exact.convex_hull(np.concatenate(small).tolist())
    # Integers beside floats: float64 where every integer is exact there, else refused.
    assert wagener.merge_hulls([np.array([[0, 0], [4, 0]]), np.array([[0.5, 3.0]])]).dtype == np.float64
    with pytest.raises(ValueError, match="beyond 2\\*\\*53"):
        wagener.merge_hulls([np.array([[0, 0], [2**53 + 1, 0]]), np.array([[0.5, 3.0]])])


def test_convex_hull_class_keeps_integer_points():
    big = 2**62
    p = np.array([[0, 0], [big, 0], [big + 1, 1], [0, big], [5, 5]], dtype=np.int64)
    hull = wagener.ConvexHull(p)
    assert hull.points.dtype == np.int64
    np.testing.assert_array_equal(hull.points, p)
    assert hull.vertices.tolist() == [0, 1, 2, 3]
    # The exact doubled area, big^2 + 2 big, halved and rounded once (Python's int division).
    assert hull.volume == (big * big + 2 * big) / 2
    assert hull.equations.dtype == np.float64 and hull.min_bound.tolist() == [0.0, 0.0]
    extreme = wagener.ConvexHull(np.array([[INT64_MIN, INT64_MIN], [INT64_MAX, INT64_MIN], [0, INT64_MAX]]))
    assert extreme.vertices.tolist() == [0, 1, 2] and extreme.volume > 0  # no overflow in the edges


def test_orient2d_takes_integers_exactly():
    assert wagener.orient2d((0, 0), (2**62, 1), (2**63, 2)) == 0
    assert wagener.orient2d((0, 0), (2**62, 1), (2**63, 3)) == 1
    assert wagener.orient2d((0, 0), (2**62 + 1, 1), (2**63 + 2, 2)) == 0  # float64 would round these
    assert wagener.orient2d((0, 0), (2**100, 1), (2**101, 1)) == -1  # beyond every integer dtype
    assert wagener.orient2d(np.array([0, 0]), np.array([3, 0]), np.array([1, 1])) == 1
    assert wagener.orient2d((0, 0), (1, 0.5), (2, 1)) == 0  # mixed: exact rationals
    with pytest.raises(ValueError, match="finite"):
        wagener.orient2d((0, 0), (1, float("nan")), (2, 1))


def test_read_points_reads_integers_exactly(tmp_path):
    text = tmp_path / "points.txt"
    text.write_text(f"{INT64_MIN} {INT64_MAX}\n{2**53 + 1} -3\n")
    points = wagener.read_points(text, precision="int64")
    assert points.dtype == np.int64 and points.tolist() == [[INT64_MIN, INT64_MAX], [2**53 + 1, -3]]
    binary = tmp_path / "points.i64"
    binary.write_bytes(points.tobytes())
    np.testing.assert_array_equal(wagener.read_points(binary, precision="int64"), points)
    small = tmp_path / "small.csv"
    small.write_text("x,y\n1,-2\n3,4\n")
    assert wagener.read_points(small, precision="int32").dtype == np.int32
    bad = tmp_path / "bad.txt"
    bad.write_text("1 2\n3 4.5\n")
    with pytest.raises(wagener.InputError, match=r"bad\.txt:2: not an integer: \"4\.5\""):
        wagener.read_points(bad, precision="int64")
    with pytest.raises(wagener.InputError, match="has no exact double"):
        wagener.read_points(binary, precision="double")
    with pytest.raises(ValueError, match="unknown precision"):
        wagener.read_points(text, precision="int16")
