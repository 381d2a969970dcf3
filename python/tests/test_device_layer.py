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
from wagener import _arrays


def host_view(address, count, dtype):
    """count values of dtype at a host address, as a writable numpy array."""
    ctype = ctypes.c_float if dtype == "float32" else ctypes.c_double
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

    def as_real(self, points):
        dtype = _arrays.real_dtype(points.dtype)
        return points if points.dtype == dtype else points.astype(dtype)

    def dtype_name(self, points):
        return points.dtype.name

    def stream(self, points):
        return 0

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


@pytest.fixture
def device(monkeypatch):
    entry = HostEntryPoints()
    monkeypatch.setattr(_arrays, "_wagener", entry)
    return NumpyDevice(np), entry


def hull(device, points, **options):
    library, _ = device
    args = {"upper": False, "presorted": False, "backend": "auto", "return_indices": False, **options}
    return library.hull(points, **args)


@pytest.mark.parametrize("family", sorted(families.ALL))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_full_and_upper_hulls(device, family, dtype, rng):
    _, entry = device
    for n in (1, 2, 3, 50, 3000):
        points = families.ALL[family](n, rng, dtype)
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
    got = hull(device, square)
    assert got.dtype == np.float64 and got.tolist() == [[0, 0], [2, 0], [2, 2], [0, 2]]
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
