"""convex_hulls: every group's hull against convex_hull of the group alone and the exact reference."""

import numpy as np
import pytest

import exact
import families
import wagener


def rows(array):
    return [(float(x), float(y)) for x, y in array]


def family_groups(rng, dtype, sizes=(0, 1, 2, 3, 17, 60)):
    """Groups from every named family at the given sizes, shuffled, as (points, offsets)."""
    groups = [families.make(name, n, rng, dtype) if n else np.zeros((0, 2), dtype) for name in sorted(families.ALL)
              for n in sizes]
    order = rng.permutation(len(groups))
    groups = [np.asarray(groups[i], dtype=dtype).reshape(-1, 2) for i in order]
    offsets = np.concatenate(([0], np.cumsum([len(g) for g in groups])))
    return np.concatenate(groups).astype(dtype), offsets


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("backend", ["auto", "cpu", "pram"])
def test_each_group_is_its_own_hull(dtype, upper, backend, rng):
    points, offsets = family_groups(rng, dtype)
    result = wagener.convex_hulls(points, offsets, upper=upper, backend=backend, return_indices=True)
    assert result.vertices.dtype == dtype
    assert result.offsets.dtype == np.int64 and len(result.offsets) == len(offsets)
    assert result.groups is None
    for g in range(len(offsets) - 1):
        group = points[offsets[g] : offsets[g + 1]]
        vertices, indices = wagener.convex_hull(group, upper=upper, backend="cpu", return_indices=True)
        assert rows(result.hull(g)) == rows(vertices), g
        assert list(result.indices[result.offsets[g] : result.offsets[g + 1]]) == list(indices + offsets[g])
        reference = exact.upper_hull(rows(group)) if upper else exact.convex_hull(rows(group))
        assert rows(result.hull(g)) == reference, g


def test_labels_group_in_order_of_first_appearance(rng):
    points = families.grid(3000, rng, np.float64)
    for labels in (rng.integers(-5, 40, size=3000), rng.integers(0, 2**63, size=3000, dtype=np.uint64) | 2**63,
                   np.array([f"track {i}" for i in rng.integers(0, 25, size=3000)])):
        result = wagener.convex_hulls(points, groups=labels, return_indices=True)
        _, first = np.unique(labels, return_index=True)
        expected_order = labels[np.sort(first)]
        assert list(result.groups) == list(expected_order)
        for g, label in enumerate(result.groups):
            rows_of_group = np.flatnonzero(labels == label)
            vertices, indices = wagener.convex_hull(points[rows_of_group], return_indices=True)
            assert rows(result.hull(g)) == rows(vertices)
            assert list(result.indices[result.offsets[g] : result.offsets[g + 1]]) == list(rows_of_group[indices])


def test_many_small_groups(rng):
    sizes = rng.integers(0, 8, size=200_000)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    points = rng.integers(-3, 4, size=(offsets[-1], 2)).astype(np.float64)
    result = wagener.convex_hulls(points, offsets)
    assert len(result.offsets) == len(offsets)
    for g in rng.choice(len(sizes), size=2000, replace=False):
        assert rows(result.hull(g)) == exact.convex_hull(rows(points[offsets[g] : offsets[g + 1]]))


def test_bad_arguments_name_the_problem():
    points = np.zeros((4, 2))
    with pytest.raises(ValueError, match="exactly one of offsets"):
        wagener.convex_hulls(points)
    with pytest.raises(ValueError, match="exactly one of offsets"):
        wagener.convex_hulls(points, [0, 4], [1, 1, 1, 1])
    with pytest.raises(ValueError, match=r"offsets\[0\] is 1"):
        wagener.convex_hulls(points, [1, 4])
    with pytest.raises(ValueError, match=r"offsets\[2\] = 1 is smaller than offsets\[1\] = 3"):
        wagener.convex_hulls(points, [0, 3, 1, 4])
    with pytest.raises(ValueError, match=r"offsets\[1\] = 3 is not the number of points, 4"):
        wagener.convex_hulls(points, [0, 3])
    with pytest.raises(TypeError, match="offsets must be integers"):
        wagener.convex_hulls(points, [0.0, 4.0])
    with pytest.raises(ValueError, match="one-dimensional"):
        wagener.convex_hulls(points, [[0, 4]])
    with pytest.raises(ValueError, match="one label per point"):
        wagener.convex_hulls(points, groups=[1, 2])
    with pytest.raises(TypeError, match="integer or string labels"):
        wagener.convex_hulls(points, groups=[0.5, 1, 2, 3])
    with pytest.raises(ValueError, match="shape"):
        wagener.convex_hulls(np.zeros((4, 3)), [0, 4])
    bad = points.copy()
    bad[2, 1] = np.nan
    with pytest.raises(wagener.InputError, match="point 2 is not finite"):
        wagener.convex_hulls(bad, [0, 2, 4])
    with pytest.raises(wagener.InputError, match="group 0 is not sorted"):
        wagener.convex_hulls(np.array([[1.0, 0], [0, 0]]), [0, 2], presorted=True)


def test_no_points_and_empty_groups():
    result = wagener.convex_hulls(np.zeros((0, 2)), [0, 0, 0])
    assert result.vertices.shape == (0, 2) and list(result.offsets) == [0, 0, 0]
    assert len(wagener.convex_hulls([], groups=[]).groups) == 0
