"""wagener.dask.convex_hull on a local distributed cluster against wagener.convex_hull of the whole
array. Skipped (reported as skipped) where Dask or distributed is not installed."""

import numpy as np
import pytest

import wagener
from families import ALL

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

import wagener.dask  # noqa: E402  (after the skips: it needs dask only when called)


@pytest.fixture(scope="module")
def client():
    # Two worker processes, as a cluster would have: the blocks' hulls are pickled between them.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


@pytest.mark.parametrize("family", sorted(ALL))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_every_family_equals_the_whole_hull(client, family, dtype, rng):
    for n, chunk in ((1, 1), (3, 2), (1000, 97), (200003, 20000)):
        points = ALL[family](n, rng, dtype)
        expected = wagener.convex_hull(points)
        got = wagener.dask.convex_hull(da.from_array(points, chunks=(chunk, 2)))
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected, err_msg=f"{family} n={n} chunks of {chunk}")
        up = wagener.dask.convex_hull(da.from_array(points, chunks=(chunk, 2)), upper=True, split_every=3)
        np.testing.assert_array_equal(up, wagener.convex_hull(points, upper=True), err_msg=f"{family} n={n} upper")


def test_blocks_split_across_columns_and_a_dask_generated_array(client):
    points = da.random.RandomState(7).normal(size=(300000, 2), chunks=(40000, 1))
    whole = points.compute()
    np.testing.assert_array_equal(wagener.dask.convex_hull(points), wagener.convex_hull(whole))


def test_delayed_result_and_integer_points(client, rng):
    points = rng.integers(-1000, 1000, size=(50000, 2))
    delayed = wagener.dask.convex_hull(da.from_array(points, chunks=(5000, 2)), compute=False)
    from dask.delayed import Delayed

    assert isinstance(delayed, Delayed)
    np.testing.assert_array_equal(delayed.compute(), wagener.convex_hull(points))


def test_empty_array(client):
    got = wagener.dask.convex_hull(da.zeros((0, 2), chunks=(10, 2)))
    assert got.shape == (0, 2)


def test_a_non_finite_point_raises_value_error(client, rng):
    points = rng.random((10000, 2))
    points[8765, 1] = np.nan
    with pytest.raises(ValueError, match="not finite"):
        wagener.dask.convex_hull(da.from_array(points, chunks=(1000, 2)))


def test_bad_arguments_raise_before_any_work():
    with pytest.raises(TypeError):
        wagener.dask.convex_hull(np.zeros((3, 2)))
    with pytest.raises(ValueError):
        wagener.dask.convex_hull(da.zeros((3, 3), chunks=(3, 3)))
    with pytest.raises(ValueError):
        wagener.dask.convex_hull(da.zeros((3, 2), chunks=(3, 2)), split_every=1)


def test_merge_hulls_of_arrays(rng):
    parts = [rng.normal(size=(n, 2)) for n in (0, 1, 5, 1000)]
    expected = wagener.convex_hull(np.concatenate(parts))
    np.testing.assert_array_equal(wagener.merge_hulls([wagener.convex_hull(p) for p in parts]), expected)
    np.testing.assert_array_equal(wagener.merge_hulls(parts), expected)  # any point sets
    assert wagener.merge_hulls([]).shape == (0, 2)
    f32 = [p.astype(np.float32) for p in parts]
    assert wagener.merge_hulls(f32).dtype == np.float32
    assert wagener.merge_hulls([f32[2], parts[3]]).dtype == np.float64
    bad = parts[3].copy()
    bad[17, 0] = np.inf
    with pytest.raises(ValueError, match="hull 1, row 17"):
        wagener.merge_hulls([parts[2], bad])
