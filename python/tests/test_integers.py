"""Integer points: every integer dtype hulled exactly in its own dtype, on every door (convex_hull,
convex_hulls, merge_hulls, ConvexHull, orient2d), against the exact reference in Python ints; none
rounded to float64, uint64 beyond int64 refused."""

import math
from fractions import Fraction

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
    # int64 beside uint64: numpy's common type is float64, which would round; int64 holds both.
    mixed = wagener.merge_hulls([np.array([[INT64_MIN, 0], [0, 1]]), np.array([[2**63 - 1, 0]], dtype=np.uint64)])
    assert mixed.dtype == np.int64 and rows(mixed) == [(INT64_MIN, 0), (INT64_MAX, 0), (0, 1)]


def test_convex_hull_class_keeps_integer_points():
    big = 2**62
    p = np.array([[0, 0], [big, 0], [big + 1, 1], [0, big], [5, 5]], dtype=np.int64)
    hull = wagener.ConvexHull(p)
    assert hull.points.dtype == np.int64
    np.testing.assert_array_equal(hull.points, p)
    assert hull.vertices.tolist() == [0, 1, 2, 3]
    # The exact doubled area, big^2 + 2 big, halved and rounded once (Python's int division).
    assert hull.volume == (big * big + 2 * big) / 2
    assert hull.equations.dtype == np.float64
    assert hull.min_bound.dtype == np.int64 and hull.max_bound.tolist() == [big + 1, big]  # exact bounds
    extreme = wagener.ConvexHull(np.array([[INT64_MIN, INT64_MIN], [INT64_MAX, INT64_MIN], [0, INT64_MAX]]))
    assert extreme.vertices.tolist() == [0, 1, 2] and extreme.volume > 0  # no overflow in the edges
    assert extreme.volume == float((2**64 - 1) * (2**64 - 1) / 2)


def check_scipy_attributes_exactly(hull, points, good_point=None, coplanar=True, good_visible=True):
    """ConvexHull's attributes of integer points against Python ints: the hull, the edges' equations,
    the area, the boundary points (Qc) and the edges visible from the good point (QGn)."""
    hulled = points.tolist() if good_point is None else np.delete(points, good_point, axis=0).tolist()
    assert hull.points.dtype == points.dtype
    assert rows(hull.points[hull.vertices]) == exact.convex_hull(hulled)
    corners = [tuple(map(int, points[v])) for v in hull.vertices]
    h = len(corners)
    doubled = sum(corners[i][0] * corners[(i + 1) % h][1] - corners[(i + 1) % h][0] * corners[i][1] for i in range(h))
    assert hull.volume == float(Fraction(doubled, 2))
    for (a, b), (nx, ny, _) in zip(hull.simplices, hull.equations):
        dx, dy = int(points[b][0]) - int(points[a][0]), int(points[b][1]) - int(points[a][1])
        assert (nx, ny) == pytest.approx((dy / math.hypot(dx, dy), -dx / math.hypot(dx, dy)), rel=1e-15, abs=1e-15)
    assert hull.min_bound.dtype == points.dtype
    assert hull.min_bound.tolist() == [min(int(v) for v in points[:, k]) for k in (0, 1)]
    assert hull.max_bound.tolist() == [max(int(v) for v in points[:, k]) for k in (0, 1)]
    vertices = set(hull.vertices.tolist())
    listed = {p: (f, v) for p, f, v in hull.coplanar.tolist()}
    for i, p in enumerate(points.tolist() if coplanar else []):
        if i in vertices or i == good_point:
            continue
        on = [k for k, (a, b) in enumerate(points[hull.simplices].tolist())
              if exact.orient(a, b, p) == 0 and min(a[0], b[0]) <= p[0] <= max(a[0], b[0])
              and min(a[1], b[1]) <= p[1] <= max(a[1], b[1])]
        assert (i in listed) == bool(on), i
        if on:
            edge, nearest = listed[i]
            assert edge in on
            a, b = points[hull.simplices[edge]].tolist()
            axis = int(abs(b[1] - a[1]) > abs(b[0] - a[0]))
            nearer_end = 2 * p[axis] > a[axis] + b[axis] if a[axis] <= b[axis] else 2 * p[axis] < a[axis] + b[axis]
            assert nearest == hull.simplices[edge][1 if nearer_end else 0]
    if good_point is not None:
        seen = points[good_point].tolist()
        visible = [exact.orient(a, b, seen) < 0 for a, b in points[hull.simplices].tolist()]
        assert hull.good.tolist() == (visible if good_visible else [not v for v in visible])


def on_edges(n, rng, scale):
    """A quadrilateral at `scale` with points on its edges (exactly, by integer steps) and inside."""
    corners = np.array([[-scale, -scale], [scale, -scale + 4], [scale - 8, scale], [-scale + 2, scale - 2]], dtype=object)
    points = [tuple(c) for c in corners]
    for _ in range(n):
        k = int(rng.integers(0, 4))
        a, b = corners[k], corners[(k + 1) % 4]
        g = math.gcd(int(b[0] - a[0]), int(b[1] - a[1]))
        t = int(rng.integers(0, g + 1))
        points.append((a[0] + (b[0] - a[0]) // g * t, a[1] + (b[1] - a[1]) // g * t))
        points.append((int(rng.integers(-scale // 2, scale // 2)), int(rng.integers(-scale // 2, scale // 2))))
    return np.array(points, dtype=np.int64)[rng.permutation(len(points))]


@pytest.mark.parametrize("options", [None, "Qc", "QG1 Qc", "QG-0"])
@pytest.mark.parametrize(
    "make",
    [lambda rng: on_edges(300, rng, 2**62), lambda rng: on_edges(300, rng, 1000).astype(np.int16),
     lambda rng: nudged_line(400, rng), lambda rng: whole_range(400, rng, np.int32),
     lambda rng: whole_range(400, rng, np.uint8), lambda rng: extremes(60, rng)],
    ids=["edges_2^62", "edges_int16", "nudged_line", "int32", "uint8", "extremes"],
)
def test_convex_hull_class_is_exact_on_integers(make, options, rng):
    points = make(rng)
    good_point = None if options is None or "QG" not in options else int(options.split()[0].lstrip("QG-"))
    try:
        hull = wagener.ConvexHull(points, qhull_options=options)
    except ValueError as e:  # all on one line (extremes may be)
        assert "not all on one line" in str(e)
        return
    check_scipy_attributes_exactly(hull, points, good_point, coplanar=options is not None and "Qc" in options,
                                   good_visible=options is None or "QG-" not in options)
    if options is None or "Qc" not in options:
        assert hull.coplanar.shape == (0, 3)


def test_incremental_integer_hull_stays_exact_and_widens(rng):
    points = on_edges(200, rng, 2**30).astype(np.int32)
    hull = wagener.ConvexHull(points[:50], incremental=True, qhull_options="Qc")
    for chunk in np.array_split(points[50:], 3):
        hull.add_points(chunk)
        assert hull.points.dtype == np.int32
        check_scipy_attributes_exactly(hull, hull.points)
    # Beyond int32: the points widen to int64, exactly.
    far = np.array([[2**40, 2**40 + 1], [-(2**40), 3]], dtype=np.int64)
    hull.add_points(far)
    assert hull.points.dtype == np.int64 and hull.points[-2:].tolist() == far.tolist()
    check_scipy_attributes_exactly(hull, hull.points)
    fresh = wagener.ConvexHull(hull.points, qhull_options="Qc")
    for name in ("vertices", "simplices", "equations", "coplanar", "min_bound", "max_bound"):
        np.testing.assert_array_equal(getattr(hull, name), getattr(fresh, name), err_msg=name)
    assert (hull.volume, hull.area) == (fresh.volume, fresh.area)
    # int64 with uint64 (values within int64) stays int64.
    hull.add_points(np.array([[2**62, 0]], dtype=np.uint64))
    assert hull.points.dtype == np.int64 and rows(hull.points[hull.vertices]) == exact.convex_hull(hull.points.tolist())
    # Floats beside integers beyond 2**53 would round them: refused, the hull unchanged.
    before = hull.points.copy()
    with pytest.raises(ValueError, match="beyond 2\\*\\*53"):
        hull.add_points([[0.5, 0.5]])
    np.testing.assert_array_equal(hull.points, before)
    assert hull.points.dtype == np.int64
    # Within 2**53 both ways, integers and floats become float64 (exactly), as merge_hulls makes them.
    small = wagener.ConvexHull(np.array([[0, 0], [2**53, 0], [0, 1]]), incremental=True)
    small.add_points([[0.5, 2.5]])
    assert small.points.dtype == np.float64 and small.points.tolist() == [[0, 0], [2**53, 0], [0, 1], [0.5, 2.5]]
    assert small.vertices.tolist() == [0, 1, 3, 2]
    floats = wagener.ConvexHull([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], incremental=True)
    floats.add_points(np.array([[2**53, 2**53]], dtype=np.int64))
    assert floats.points.dtype == np.float64 and floats.points[-1].tolist() == [2.0**53, 2.0**53]
    with pytest.raises(ValueError, match="beyond 2\\*\\*53"):
        floats.add_points(np.array([[2**53 + 1, 0]], dtype=np.int64))
    assert floats.npoints == 4


def test_trace_and_pictures_of_integer_points(rng):
    points = whole_range(300, rng, np.int32)
    rounds = wagener.trace(points)
    assert rounds.points.dtype == np.int32 and rounds.hull.dtype == np.int32
    assert rows(rounds.hull) == exact.convex_hull(points.tolist())
    widened = wagener.trace(points.astype(np.float64))  # the same rounds, in float64
    assert len(rounds) == len(widened)
    for ours, theirs in zip(rounds, widened):
        np.testing.assert_array_equal(ours.corners, theirs.corners)
        np.testing.assert_array_equal(ours.hood_sizes, theirs.hood_sizes)
    assert '"precision":"int32"' in rounds.html()
    big = nudged_line(200, rng)
    big_rounds = wagener.trace(big)
    assert big_rounds.hull.dtype == np.int64 and rows(big_rounds.hull) == exact.convex_hull(big.tolist())
    assert '"precision":"int64"' in big_rounds.html()
    svg = wagener.ConvexHull(whole_range(100, rng, np.uint8))._repr_svg_()
    assert svg.startswith("<?xml") or svg.startswith("<svg")


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
