"""The device path's Python layer (wagener._arrays._Device.hull), run on the host.

A stand-in "array library" of numpy arrays, and stand-ins for the extension's device entry points
that read and write host memory at the given addresses, exercise what the CuPy and PyTorch adapters
share: the dtype rule, the shape check, the choice between the C-order and the two-array entry
points, empty input, the upper chain taken from the full hull, and the refusals. The real device
runs are in test_device.py (label cuda).
"""

import contextlib
import ctypes

import numpy as np
import pytest

import families
import wagener
from test_convex_hulls import family_groups
from wagener import _arrays


STREAM = 0x5EED  # the stream the stand-in library reports; the entry points must receive it


def host_view(address, count, dtype):
    """count values of dtype at a host address, as a writable numpy array."""
    ctype = {"float32": ctypes.c_float, "float64": ctypes.c_double, "int32": ctypes.c_int32, "int64": ctypes.c_int64}[
        dtype
    ]
    return np.frombuffer((ctype * count).from_address(address), dtype=dtype)


class HostEntryPoints:
    """The extension's device entry points, on host memory, counting calls."""

    def __init__(self):
        self.calls = []

    def _write(self, hull, address, dtype):
        host_view(address, hull.size, dtype)[:] = hull.ravel()
        return len(hull)

    def convex_hull_device(self, points, n, hull, stream, dtype):
        self.calls.append("aos")
        pts = host_view(points, 2 * n, dtype).reshape(n, 2)
        return self._write(wagener.convex_hull(pts, backend="cpu"), hull, dtype)

    def convex_hull_device_soa(self, x, y, n, hull, stream, dtype):
        self.calls.append("soa")
        pts = np.column_stack((host_view(x, n, dtype), host_view(y, n, dtype)))
        return self._write(wagener.convex_hull(pts, backend="cpu"), hull, dtype)

    def convex_hulls_device(self, points, offsets, n, groups, hull, hull_offsets, indices, upper, stream, dtype):
        """As the device does it: the hulls of the groups of the points at `points` (in their order),
        a non-finite point named by its row there."""
        self.calls.append(("grouped", n, groups, upper, indices != 0, stream, dtype))
        pts = host_view(points, 2 * n, dtype).reshape(n, 2)
        ranges = host_view(offsets, groups + 1, "int64").copy()
        result = wagener.convex_hulls(pts, ranges, upper=upper, backend="cpu", return_indices=indices != 0)
        host_view(hull_offsets, groups + 1, "int64")[:] = result.offsets
        if indices:
            host_view(indices, len(result.indices), "int64")[:] = result.indices
        return self._write(result.vertices, hull, dtype)

    def upper_hull_device(self, points, n, hull, stream, dtype):
        self.calls.append("upper")
        pts = host_view(points, 2 * n, dtype).reshape(n, 2)
        return self._write(wagener.convex_hull(pts, upper=True, presorted=True, backend="cpu"), hull, dtype)


class NumpyDevice(_arrays._Device):
    """numpy arrays playing a device array library."""

    def adopt(self, points):
        return points

    def device_of(self, points):
        return contextlib.nullcontext()

    def as_coordinates(self, points):
        dtype = _arrays.coordinate_dtype(points.dtype)
        if points.dtype == np.uint64 and points.size:
            _arrays.check_fits_int64(points.max(), points.dtype)
        return points if points.dtype == dtype else points.astype(dtype)

    def like_input(self, result, source):
        wanted = _arrays.result_dtype(source.dtype)
        return result if result.dtype == wanted else result.astype(wanted)

    def dtype_name(self, points):
        return points.dtype.name

    def stream(self, points):
        return STREAM

    def c_contiguous(self, points):
        return np.ascontiguousarray(points)

    def column_layout(self, points):
        if points.flags.c_contiguous:
            return None
        return int(points.strides[1]) if points.strides[0] == points.itemsize and points.strides[1] > 0 else None

    def empty_like(self, points):
        return np.empty((points.shape[0], 2), dtype=points.dtype)

    def pointer(self, points):
        return points.ctypes.data

    def copy(self, points):
        return points.copy()

    def to_host(self, points):
        return np.asarray(points)

    def take(self, points, order):
        return points[order]

    def device_key(self, array):
        return 0

    def kind(self, array):
        return array.dtype.kind

    def index_to_device(self, values, like):
        return np.array(values, dtype=np.int64)

    def labels_to_device(self, values, like):
        return np.array(values)

    def empty_index(self, n, like):
        return np.empty(n, dtype=np.int64)

    def stable_argsort(self, values):
        return np.argsort(values, kind="stable")

    def cumsum(self, mask):
        return np.cumsum(mask, dtype=np.int64)

    def flatnonzero(self, mask):
        return np.flatnonzero(mask)

    def concat(self, first, second):
        return np.concatenate((first, second))

    def first_non_finite_row(self, points):
        bad = np.flatnonzero(~np.isfinite(points).all(axis=1))
        return int(bad[0]) if bad.size else None


class OnDevice(np.ndarray):
    """A numpy array that wagener takes for a CUDA array of the stand-in library (see `device`)."""


def on_device(array):
    return np.asarray(array).view(OnDevice)


@pytest.fixture
def device(monkeypatch):
    entry = HostEntryPoints()
    monkeypatch.setattr(_arrays, "_wagener", entry)
    library = NumpyDevice(np)
    host_library = _arrays.device_library
    monkeypatch.setattr(
        _arrays, "device_library", lambda a: library if isinstance(a, OnDevice) else host_library(a)
    )
    return library, entry


def hull(device, points, **options):
    library, _ = device
    args = {"upper": False, "presorted": False, "backend": "auto", "return_indices": False, **options}
    return library.hull(points, **args)


@pytest.mark.parametrize("family", sorted(families.ALL))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_full_and_upper_hulls(device, family, dtype, rng):
    _, entry = device
    for n in (1, 2, 3, 50, 3000):
        points = families.make(family, n, rng, dtype)
        full = wagener.convex_hull(points)
        upper = wagener.convex_hull(points, upper=True)
        got = hull(device, points)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, full)
        np.testing.assert_array_equal(hull(device, points, upper=True), upper)
        ordered = points[np.lexsort((points[:, 1], points[:, 0]))]
        np.testing.assert_array_equal(hull(device, ordered, upper=True, presorted=True), upper)
        entry.calls.clear()
        np.testing.assert_array_equal(hull(device, np.asfortranarray(points)), full)
        assert entry.calls == (["aos"] if n == 1 else ["soa"])  # one point is C and Fortran order
        wide = np.zeros((n, 5), dtype)
        wide[:, 3], wide[:, 1] = points[:, 0], points[:, 1]
        np.testing.assert_array_equal(hull(device, wide[:, 3::-2]), full)  # columns 3 and 1: strided
        np.testing.assert_array_equal(hull(device, points[::2]), wagener.convex_hull(points[::2]))


def test_dtypes_shapes_and_empty(device):
    square = np.array([[0, 0], [2, 0], [1, 1], [2, 2], [0, 2]], dtype=np.int16)
    for dtype, hulled in ((np.int16, "int32"), (np.uint32, "int64"), (np.uint64, "int64"), (np.float16, "float64")):
        _, entry = device
        entry.calls.clear()
        got = hull(device, square.astype(dtype))
        # Integers in their own dtype (hulled as int32 or int64), other floats in float64.
        assert got.dtype == (np.float64 if dtype == np.float16 else dtype)
        assert got.tolist() == [[0, 0], [2, 0], [2, 2], [0, 2]]
    with pytest.raises(ValueError, match="2\\*\\*63 - 1"):
        hull(device, np.array([[0, 0], [2**63, 0], [0, 1]], dtype=np.uint64))
    for empty in (np.empty((0, 2), np.float32), np.empty(0)):
        got = hull(device, empty)
        assert got.shape == (0, 2) and got.dtype == (np.float32 if empty.dtype == np.float32 else np.float64)
    with pytest.raises(TypeError, match="real numbers"):
        hull(device, np.zeros((3, 2), dtype=complex))
    with pytest.raises(ValueError, match=r"got shape \(3, 3\)"):
        hull(device, np.zeros((3, 3)))


def test_refusals(device):
    points = np.random.default_rng(2).random((10, 2))
    with pytest.raises(NotImplementedError, match="return_indices"):
        hull(device, points, return_indices=True)
    for backend in ("cpu", "pram"):
        with pytest.raises(ValueError, match="host"):
            hull(device, points, backend=backend)
    with pytest.raises(ValueError, match="unknown backend"):
        hull(device, points, backend="gpu")
    with pytest.raises(ValueError, match="not sorted"):
        hull(device, np.array([[1.0, 0], [0, 0]]), upper=True, presorted=True)


def test_upper_chain_order(rng):
    for family in sorted(families.ALL):
        points = families.ALL[family](500, rng, np.float64)
        full = wagener.convex_hull(points)
        np.testing.assert_array_equal(full[_arrays.upper_chain_order(full)], wagener.convex_hull(points, upper=True))


def test_host_arrays_take_the_host_path():
    assert _arrays.device_library(np.zeros((3, 2))) is None
    assert _arrays.device_library([[0, 0]]) is None


# --- convex_hulls on device arrays: OnDevice arrays through wagener.convex_hulls --------------------


def host(array):
    return None if array is None else np.asarray(array).view(np.ndarray)


def assert_same_hulls(got, expected):
    np.testing.assert_array_equal(host(got.vertices), expected.vertices)
    assert host(got.vertices).dtype == expected.vertices.dtype
    np.testing.assert_array_equal(host(got.offsets), expected.offsets)
    assert host(got.offsets).dtype == np.int64
    if expected.indices is None:
        assert got.indices is None
    else:
        np.testing.assert_array_equal(host(got.indices), expected.indices)
    if expected.groups is None:
        assert got.groups is None
    else:
        assert type(got.groups) is np.ndarray
        np.testing.assert_array_equal(got.groups, expected.groups)
        assert got.groups.dtype == expected.groups.dtype


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("return_indices", [False, True])
def test_grouped_offsets_reach_the_entry_point(device, dtype, upper, return_indices, rng):
    _, entry = device
    points, offsets = family_groups(rng, dtype)
    expected = wagener.convex_hulls(points, offsets, upper=upper, backend="cpu", return_indices=return_indices)
    for given in (offsets, list(offsets), offsets.astype(np.int32), on_device(offsets)):
        entry.calls.clear()
        got = wagener.convex_hulls(on_device(points), given, upper=upper, return_indices=return_indices)
        assert_same_hulls(got, expected)
        name = np.dtype(dtype).name
        assert entry.calls == [("grouped", len(points), len(offsets) - 1, upper, return_indices, STREAM, name)]
    # Fortran order and strided rows are made C-contiguous on the device first.
    got = wagener.convex_hulls(on_device(np.asfortranarray(points)), offsets, upper=upper, backend="cuda")
    np.testing.assert_array_equal(host(got.vertices), expected.vertices)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_grouped_labels_like_the_host(device, dtype, rng):
    points, offsets = family_groups(rng, dtype)
    n = len(points)
    shuffled = rng.permutation(n)
    labels_of_groups = rng.choice(np.arange(-1000, 1000), size=len(offsets) - 1, replace=False)
    sizes = np.diff(offsets)
    families_labels = np.repeat(labels_of_groups, sizes)[shuffled]  # the family groups, rows shuffled
    for labels in (
        families_labels,
        rng.integers(-5, 40, size=n).astype(np.int16),
        rng.integers(0, 2, size=n).astype(bool),
        rng.integers(0, 2**63, size=n, dtype=np.uint64) | np.uint64(2**63),
        np.zeros(n, np.int64),
    ):
        pts = points[shuffled] if labels is families_labels else points
        for upper in (False, True):
            expected = wagener.convex_hulls(pts, groups=labels, upper=upper, backend="cpu", return_indices=True)
            for given in (labels, on_device(labels)):
                got = wagener.convex_hulls(on_device(pts), groups=given, upper=upper, return_indices=True)
                assert_same_hulls(got, expected)
            got = wagener.convex_hulls(on_device(pts), groups=labels, upper=upper)
            assert got.indices is None
            np.testing.assert_array_equal(host(got.vertices), expected.vertices)


def test_grouped_empty_inputs(device):
    got = wagener.convex_hulls(on_device(np.zeros((0, 2), np.float32)), [0, 0, 0], return_indices=True)
    assert host(got.vertices).shape == (0, 2) and host(got.vertices).dtype == np.float32
    assert list(host(got.offsets)) == [0, 0, 0] and len(host(got.indices)) == 0
    got = wagener.convex_hulls(on_device(np.zeros((0, 2))), groups=[])
    assert list(host(got.offsets)) == [0] and len(got.groups) == 0
    got = wagener.convex_hulls(on_device(np.array([[0, 0], [2, 0], [1, 1], [2, 2], [0, 2]], np.int16)), [0, 5])
    assert host(got.vertices).dtype == np.int16 and host(got.hull(0)).tolist() == [[0, 0], [2, 0], [2, 2], [0, 2]]


def error_of(call):
    with pytest.raises(Exception) as caught:
        call()
    return type(caught.value), str(caught.value)


def test_grouped_errors_as_on_the_host(device):
    points = np.random.default_rng(7).random((6, 2))
    for offsets in ([], [1, 6], [0, 4, 2, 6], [0, 3, 5], [0, 2, 7], [[0, 6]], [0.0, 6.0]):
        expected = error_of(lambda: wagener.convex_hulls(points, offsets))
        assert expected[0] in (ValueError, TypeError)
        assert error_of(lambda: wagener.convex_hulls(on_device(points), offsets)) == expected
    bad = points.copy()
    bad[[2, 4]] = [[np.inf, 0], [0, np.nan]]
    labels = np.array([3, 2, 2, 1, 3, 1])  # grouped rows 0 4 | 1 2 | 3 5: row 4 comes before row 2
    for kind, grouping in (("offsets", [0, 3, 6]), ("groups", labels)):
        with pytest.raises(wagener.InputError, match="point 2 is not finite"):
            wagener.convex_hulls(on_device(bad), **{kind: grouping})
    unsorted = np.array([[0, 0], [1, 0], [2, 0], [1, 1], [0, 5], [3, 3.0]])
    interleaved = [1, 1, 2, 1, 2, 2]  # group 2 is rows 2 4 5: (0, 5) after (2, 0)
    for kind, grouping in (("offsets", [0, 4, 6]), ("offsets", [0, 3, 6]), ("groups", interleaved)):
        expected = error_of(lambda: wagener.convex_hulls(unsorted, **{kind: grouping}, presorted=True))
        got = error_of(lambda: wagener.convex_hulls(on_device(unsorted), **{kind: grouping}, presorted=True))
        assert got == expected and issubclass(got[0], wagener.InputError), (kind, grouping)
    sorted_groups = wagener.convex_hulls(on_device(unsorted), [0, 3, 4, 6], presorted=True)
    np.testing.assert_array_equal(host(sorted_groups.vertices), wagener.convex_hulls(unsorted, [0, 3, 4, 6]).vertices)


def test_grouped_refusals(device):
    points = on_device(np.random.default_rng(8).random((4, 2)))
    with pytest.raises(ValueError, match="exactly one of offsets"):
        wagener.convex_hulls(points)
    for backend in ("cpu", "pram"):
        with pytest.raises(ValueError, match="host"):
            wagener.convex_hulls(points, [0, 4], backend=backend)
    with pytest.raises(ValueError, match="unknown backend"):
        wagener.convex_hulls(points, [0, 4], backend="gpu")
    with pytest.raises(TypeError, match="string labels are host-only"):
        wagener.convex_hulls(points, groups=["a", "b", "a", "c"])
    for floats in ([0.5, 1, 2, 3], on_device([0.5, 1, 2, 3])):
        with pytest.raises(TypeError, match="integer"):
            wagener.convex_hulls(points, groups=floats)
    for wrong in ([1, 2], on_device([1, 2]), [[1, 2, 3, 4]]):
        with pytest.raises(ValueError, match="one label per point"):
            wagener.convex_hulls(points, groups=wrong)
