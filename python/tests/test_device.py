"""CUDA arrays, hulled on their device (label cuda). Every test here skips, visibly, without a CUDA
device, a CUDA build of wagener, or the array library it needs (CuPy, PyTorch)."""

import ctypes

import numpy as np
import pytest

import exact
import families
import wagener
from test_convex_hulls import family_groups
from wagener import _wagener

pytestmark = pytest.mark.cuda


def rows(array):
    """The rows as tuples of Python numbers: floats for floats, ints (never rounded) for integers."""
    return [tuple(row) for row in np.asarray(array).tolist()]


def require_device():
    if not wagener.cuda_available():
        pytest.skip("no usable CUDA device, or wagener was built without CUDA")


# --- The extension's device entry points, on memory from the CUDA runtime through ctypes ---------


@pytest.fixture(scope="module")
def cudart():
    require_device()
    for name in ("libcudart.so", "libcudart.so.13", "libcudart.so.12", "/usr/local/cuda/lib64/libcudart.so"):
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError:
            continue
    else:
        pytest.skip("the CUDA runtime library (libcudart.so) was not found")
    lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    lib.cudaMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    lib.cudaFree.argtypes = [ctypes.c_void_p]
    return lib


class DeviceCopy:
    """A device copy of a host array (cudaMalloc + cudaMemcpy), freed on exit."""

    def __init__(self, lib, array):
        self.lib, self.array = lib, np.ascontiguousarray(array)
        self.ptr = ctypes.c_void_p()
        assert lib.cudaMalloc(ctypes.byref(self.ptr), max(self.array.nbytes, 16)) == 0
        assert lib.cudaMemcpy(self.ptr, self.array.ctypes.data, self.array.nbytes, 1) == 0  # host to device

    def read(self, count):
        out = np.empty((count,) + self.array.shape[1:], self.array.dtype)
        assert self.lib.cudaMemcpy(out.ctypes.data, self.ptr, out.nbytes, 2) == 0  # device to host
        return out

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.lib.cudaFree(self.ptr)


@pytest.mark.parametrize("family", sorted(families.ALL))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_device_entry_points(cudart, family, dtype, rng):
    points = families.make(family, 50_000, rng, dtype)
    name = np.dtype(dtype).name
    full = wagener.convex_hull(points, backend="cpu")
    ordered = points[np.lexsort((points[:, 1], points[:, 0]))]
    with DeviceCopy(cudart, points) as d_points, DeviceCopy(cudart, np.empty_like(points)) as d_hull, DeviceCopy(
        cudart, np.asfortranarray(points).ravel(order="K")
    ) as d_columns, DeviceCopy(cudart, ordered) as d_sorted:
        h = _wagener.convex_hull_device(d_points.ptr.value, len(points), d_hull.ptr.value, 0, name)
        np.testing.assert_array_equal(d_hull.read(h), full)
        x = d_columns.ptr.value
        h = _wagener.convex_hull_device_soa(x, x + points.nbytes // 2, len(points), d_hull.ptr.value, 0, name)
        np.testing.assert_array_equal(d_hull.read(h), full)
        h = _wagener.upper_hull_device(d_sorted.ptr.value, len(points), d_hull.ptr.value, 0, name)
        np.testing.assert_array_equal(d_hull.read(h), wagener.convex_hull(points, upper=True, backend="cpu"))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("upper", [False, True])
def test_grouped_device_entry_point(cudart, dtype, upper, rng):
    points, offsets = family_groups(rng, dtype)
    n, g = len(points), len(offsets) - 1
    expected = wagener.convex_hulls(points, offsets, upper=upper, backend="cpu", return_indices=True)
    with DeviceCopy(cudart, points) as d_points, DeviceCopy(cudart, offsets.astype(np.int64)) as d_offsets, DeviceCopy(
        cudart, np.empty_like(points)
    ) as d_hull, DeviceCopy(cudart, np.empty(g + 1, np.int64)) as d_hull_offsets, DeviceCopy(
        cudart, np.empty(n, np.int64)
    ) as d_indices:
        args = (d_points.ptr.value, d_offsets.ptr.value, n, g, d_hull.ptr.value, d_hull_offsets.ptr.value)
        name = np.dtype(dtype).name
        total = _wagener.convex_hulls_device(*args, d_indices.ptr.value, upper, 0, name)
        np.testing.assert_array_equal(d_hull.read(total), expected.vertices)
        np.testing.assert_array_equal(d_hull_offsets.read(g + 1), expected.offsets)
        np.testing.assert_array_equal(d_indices.read(total), expected.indices)
        assert _wagener.convex_hulls_device(*args, 0, upper, 0, name) == total  # no indices asked for


def test_device_entry_points_reject_bad_points(cudart):
    points = np.random.default_rng(3).random((1000, 2))
    points[77] = np.nan
    with DeviceCopy(cudart, points) as d_points, DeviceCopy(cudart, points) as d_hull:
        with pytest.raises(ValueError, match="point 77 is not finite"):
            _wagener.convex_hull_device(d_points.ptr.value, len(points), d_hull.ptr.value, 0, "float64")
    with pytest.raises(TypeError, match="float32, float64, int32 or int64, not float16"):
        _wagener.convex_hull_device(0, 0, 0, 0, "float16")


# --- CuPy and PyTorch arrays through wagener.convex_hull ----------------------------------------


class Cupy:
    name = "cupy"

    def __init__(self):
        self.lib = pytest.importorskip("cupy")
        if self.lib.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("CuPy sees no CUDA device")

    def array(self, host):
        return self.lib.asarray(host)

    def host(self, array):
        assert isinstance(array, self.lib.ndarray)
        return self.lib.asnumpy(array)

    def fortran(self, array):
        return self.lib.asfortranarray(array)

    def side_stream(self):
        return self.lib.cuda.Stream(non_blocking=True)

    def on(self, stream):
        return stream


class Torch:
    name = "torch"

    def __init__(self):
        self.lib = pytest.importorskip("torch")
        if not self.lib.cuda.is_available():
            pytest.skip("PyTorch sees no CUDA device")

    def array(self, host):
        return self.lib.from_numpy(np.ascontiguousarray(host)).cuda()

    def host(self, array):
        assert isinstance(array, self.lib.Tensor) and array.is_cuda
        return array.cpu().numpy()

    def fortran(self, array):
        return array.t().contiguous().t()

    def side_stream(self):
        return self.lib.cuda.Stream()

    def on(self, stream):
        return self.lib.cuda.stream(stream)


@pytest.fixture(params=[Cupy, Torch], ids=["cupy", "torch"])
def xp(request):
    library = request.param()
    require_device()
    return library


@pytest.mark.parametrize("family", sorted(families.ALL))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_device_arrays_hull_like_the_host(xp, family, dtype, rng):
    for n in (1, 2, 3, 200, 100_000):
        points = families.make(family, n, rng, dtype)
        device = xp.array(points)
        full = xp.host(wagener.convex_hull(device))
        assert full.dtype == dtype
        np.testing.assert_array_equal(full, wagener.convex_hull(points, backend="cpu"))
        if n <= 200:
            assert rows(full) == exact.convex_hull(rows(points))
        upper = wagener.convex_hull(points, upper=True, backend="cpu")
        np.testing.assert_array_equal(xp.host(wagener.convex_hull(device, upper=True)), upper)
        ordered = xp.array(points[np.lexsort((points[:, 1], points[:, 0]))])
        np.testing.assert_array_equal(xp.host(wagener.convex_hull(ordered, upper=True, presorted=True)), upper)
        np.testing.assert_array_equal(xp.host(wagener.convex_hull(xp.fortran(device))), full)
        np.testing.assert_array_equal(xp.host(wagener.convex_hull(device[::3])), wagener.convex_hull(points[::3]))


def test_device_arrays_other_dtypes_and_empty(xp):
    square = np.array([[0, 0], [2, 0], [1, 1], [2, 2], [0, 2]], dtype=np.int32)
    hull = xp.host(wagener.convex_hull(xp.array(square), backend="cuda"))
    assert hull.dtype == np.int32 and rows(hull) == [(0, 0), (2, 0), (2, 2), (0, 2)]
    dtypes = [np.int8, np.int16, np.int64, np.uint8] + ([np.uint16, np.uint32, np.uint64] if xp.name == "cupy" else [])
    for dtype in dtypes:  # hulled on the device as int32 or int64, returned in their own dtype
        hull = xp.host(wagener.convex_hull(xp.array(square.astype(dtype))))
        assert hull.dtype == dtype and rows(hull) == [(0, 0), (2, 0), (2, 2), (0, 2)], dtype
    if xp.name == "cupy":
        with pytest.raises(ValueError, match="2\\*\\*63 - 1"):
            wagener.convex_hull(xp.array(np.array([[0, 0], [2**63, 0], [0, 1]], dtype=np.uint64)))
    empty = xp.host(wagener.convex_hull(xp.array(np.empty((0, 2), np.float32))))
    assert empty.shape == (0, 2) and empty.dtype == np.float32
    with pytest.raises(TypeError):
        wagener.convex_hull(xp.array(np.zeros((4, 2), dtype=bool)))
    with pytest.raises(ValueError, match=r"got shape \(4, 3\)"):
        wagener.convex_hull(xp.array(np.zeros((4, 3))))


def test_device_arrays_errors(xp):
    points = np.random.default_rng(5).random((5000, 2))
    points[1234, 0] = np.inf
    with pytest.raises(ValueError, match="point 1234 is not finite"):
        wagener.convex_hull(xp.array(points))
    with pytest.raises(ValueError, match="not sorted"):
        wagener.convex_hull(xp.array(np.array([[1.0, 0], [0, 0]])), upper=True, presorted=True)
    with pytest.raises(NotImplementedError, match="return_indices"):
        wagener.convex_hull(xp.array(points[:10]), return_indices=True)
    with pytest.raises(ValueError, match="host"):
        wagener.convex_hull(xp.array(points[:10]), backend="cpu")


def test_device_arrays_on_a_side_stream(xp, rng):
    points = families.gaussian(1_000_000, rng, np.float32)
    stream = xp.side_stream()
    with xp.on(stream):
        device = xp.array(points)
        hull = wagener.convex_hull(device)
    stream.synchronize()
    np.testing.assert_array_equal(xp.host(hull), wagener.convex_hull(points, backend="cpu"))


def test_device_int64_beyond_2_to_53_and_at_the_ends_of_the_range(xp, rng):
    """Exact where float64 would round: the whole int64 range, lines nudged by a unit at 2^62."""
    info = np.iinfo(np.int64)
    whole = rng.integers(info.min, info.max, size=(300_000, 2), dtype=np.int64, endpoint=True)
    x = rng.integers(-(2**60), 2**60, 300_000)
    nudged = (np.column_stack((x, 3 * x)) + rng.integers(-1, 2, (300_000, 2))).astype(np.int64)
    ends = np.array([[info.min, info.min], [info.max, info.min], [info.max, info.max], [0, 0], [-1, -1]], np.int64)
    for points in (whole, nudged, ends, np.concatenate((nudged, ends))):
        device = xp.array(points)
        full = xp.host(wagener.convex_hull(device))
        assert full.dtype == np.int64
        np.testing.assert_array_equal(full, wagener.convex_hull(points, backend="cpu"))
        if len(points) <= 5000:
            assert rows(full) == exact.convex_hull(points.tolist())
        np.testing.assert_array_equal(xp.host(wagener.convex_hull(device, upper=True)),
                                      wagener.convex_hull(points, upper=True, backend="cpu"))
        result = wagener.convex_hulls(device, [0, len(points) // 2, len(points)])
        expected = wagener.convex_hulls(points, [0, len(points) // 2, len(points)], backend="cpu")
        np.testing.assert_array_equal(xp.host(result.vertices), expected.vertices)


def test_torch_tensors_that_require_grad(rng):
    torch = Torch().lib
    require_device()
    points = torch.tensor(families.uniform_disk(1000, rng, np.float64), device="cuda", requires_grad=True)
    hull = wagener.convex_hull(points)
    assert not hull.requires_grad
    np.testing.assert_array_equal(hull.cpu().numpy(), wagener.convex_hull(points.detach().cpu().numpy()))


# --- wagener.convex_hulls on CuPy and PyTorch arrays ---------------------------------------------


def assert_same_hulls(xp, got, expected):
    """A device result equals the host's: vertices, hull offsets and indices the library's arrays."""
    vertices = xp.host(got.vertices)
    assert vertices.dtype == expected.vertices.dtype
    np.testing.assert_array_equal(vertices, expected.vertices)
    offsets = xp.host(got.offsets)
    assert offsets.dtype == np.int64
    np.testing.assert_array_equal(offsets, expected.offsets)
    if expected.indices is None:
        assert got.indices is None
    else:
        indices = xp.host(got.indices)
        assert indices.dtype == np.int64
        np.testing.assert_array_equal(indices, expected.indices)
    if expected.groups is None:
        assert got.groups is None
    else:
        assert isinstance(got.groups, np.ndarray)
        np.testing.assert_array_equal(got.groups, expected.groups)


def with_large_groups(points, offsets, rng, dtype):
    """Family groups plus a group of 5000 and one of 100 000 points (the pipeline's deferred paths:
    the host's, and the device's single-hull pipeline for the full hull without indices)."""
    large = [families.circle(5000, rng, dtype), families.uniform_disk(100_000, rng, dtype)]
    points = np.concatenate([points[: offsets[3]], large[0], points[offsets[3] :], large[1]])
    sizes = np.diff(offsets).tolist()
    sizes = sizes[:3] + [len(large[0])] + sizes[3:] + [len(large[1])]
    return points, np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("upper", [False, True])
def test_device_grouped_offsets_like_the_host(xp, dtype, upper, rng):
    points, offsets = with_large_groups(*family_groups(rng, dtype), rng, dtype)
    device = xp.array(points)
    for return_indices in (True, False):
        expected = wagener.convex_hulls(points, offsets, upper=upper, backend="cpu", return_indices=return_indices)
        for given in (offsets, xp.array(offsets), xp.array(offsets.astype(np.int32))):
            assert_same_hulls(xp, wagener.convex_hulls(device, given, upper=upper, return_indices=return_indices),
                              expected)
    got = wagener.convex_hulls(device, offsets, upper=upper, backend="cuda")
    host_offsets = xp.host(got.offsets)
    for g in range(len(offsets) - 1):
        group = rows(points[offsets[g] : offsets[g + 1]])
        if len(group) <= 60:
            reference = exact.upper_hull(group) if upper else exact.convex_hull(group)
            assert rows(xp.host(got.vertices)[host_offsets[g] : host_offsets[g + 1]]) == reference, g
    assert_same_hulls(xp, wagener.convex_hulls(xp.fortran(device), offsets, upper=upper),
                      wagener.convex_hulls(points, offsets, upper=upper, backend="cpu"))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_device_grouped_labels_like_the_host(xp, dtype, rng):
    points, offsets = with_large_groups(*family_groups(rng, dtype), rng, dtype)
    n = len(points)
    shuffled = rng.permutation(n)
    group_labels = rng.choice(np.arange(-1000, 1000), size=len(offsets) - 1, replace=False)
    family_labels = np.repeat(group_labels, np.diff(offsets))[shuffled]  # the groups, rows shuffled
    for labels, pts in (
        (family_labels, points[shuffled]),
        (rng.integers(-5, 40, size=n).astype(np.int32), points),
        (rng.integers(0, 2, size=n).astype(bool), points),
    ):
        device = xp.array(pts)
        for upper in (False, True):
            expected = wagener.convex_hulls(pts, groups=labels, upper=upper, backend="cpu", return_indices=True)
            for given in (labels, xp.array(labels)):
                assert_same_hulls(xp, wagener.convex_hulls(device, groups=given, upper=upper, return_indices=True),
                                  expected)


def test_device_grouped_many_small_groups(xp, rng):
    sizes = rng.integers(0, 8, size=200_000)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    points = rng.integers(-3, 4, size=(offsets[-1], 2)).astype(np.float64)
    device = xp.array(points)
    assert_same_hulls(xp, wagener.convex_hulls(device, offsets, return_indices=True),
                      wagener.convex_hulls(points, offsets, backend="cpu", return_indices=True))
    labels = rng.integers(0, 50_000, size=len(points))
    assert_same_hulls(xp, wagener.convex_hulls(device, groups=xp.array(labels), return_indices=True),
                      wagener.convex_hulls(points, groups=labels, backend="cpu", return_indices=True))


def test_device_grouped_empty_and_other_dtypes(xp):
    got = wagener.convex_hulls(xp.array(np.zeros((0, 2), np.float32)), [0, 0, 0], return_indices=True)
    assert xp.host(got.vertices).shape == (0, 2) and xp.host(got.vertices).dtype == np.float32
    assert xp.host(got.offsets).tolist() == [0, 0, 0] and len(xp.host(got.indices)) == 0
    got = wagener.convex_hulls(xp.array(np.zeros((0, 2))), groups=xp.array(np.zeros(0, np.int64)))
    assert xp.host(got.offsets).tolist() == [0] and len(got.groups) == 0
    square = np.array([[0, 0], [2, 0], [1, 1], [2, 2], [0, 2]], dtype=np.int32)
    got = wagener.convex_hulls(xp.array(square), [0, 2, 5])
    assert xp.host(got.vertices).dtype == np.int32
    assert rows(xp.host(got.hull(0))) == exact.convex_hull(rows(square[:2]))
    assert rows(xp.host(got.hull(1))) == exact.convex_hull(rows(square[2:]))


def test_device_grouped_errors(xp):
    points = np.random.default_rng(6).random((5000, 2))
    points[[1234, 3001], 1] = [np.nan, np.inf]
    labels = np.where(np.arange(5000) < 2000, 7, 3)
    labels[[0, 3001]] = 1  # grouped, row 3001 comes second: the device sees it before row 1234
    for kind, grouping in (("offsets", [0, 2000, 5000]), ("groups", labels), ("groups", xp.array(labels))):
        with pytest.raises(wagener.InputError, match="point 1234 is not finite"):
            wagener.convex_hulls(xp.array(points), **{kind: grouping})
    unsorted = np.array([[0, 0], [1, 0], [2, 0], [1, 1], [0, 5], [3, 3.0]])
    for kind, grouping in (("offsets", [0, 4, 6]), ("offsets", [0, 3, 6]), ("groups", [1, 1, 2, 1, 2, 2])):
        with pytest.raises(wagener.InputError) as on_host:
            wagener.convex_hulls(unsorted, **{kind: grouping}, presorted=True)
        with pytest.raises(wagener.InputError) as on_device:
            wagener.convex_hulls(xp.array(unsorted), **{kind: grouping}, presorted=True)
        assert str(on_device.value) == str(on_host.value)
    with pytest.raises(ValueError, match=r"offsets\[2\] = 1 is smaller than offsets\[1\] = 3"):
        wagener.convex_hulls(xp.array(unsorted), xp.array(np.array([0, 3, 1, 6])))
    with pytest.raises(TypeError, match="string labels are host-only"):
        wagener.convex_hulls(xp.array(unsorted), groups=np.array(list("abcabc")))
    with pytest.raises(ValueError, match="host"):
        wagener.convex_hulls(xp.array(unsorted), [0, 6], backend="cpu")


def test_device_grouped_on_a_side_stream(xp, rng):
    sizes = rng.integers(50, 150, size=20_000)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    points = families.gaussian(int(offsets[-1]), rng, np.float32)
    labels = np.repeat(rng.permutation(len(sizes)), sizes)
    stream = xp.side_stream()
    with xp.on(stream):
        device = xp.array(points)
        by_offsets = wagener.convex_hulls(device, offsets)
        by_labels = wagener.convex_hulls(device, groups=xp.array(labels))
    stream.synchronize()
    assert_same_hulls(xp, by_offsets, wagener.convex_hulls(points, offsets, backend="cpu"))
    assert_same_hulls(xp, by_labels, wagener.convex_hulls(points, groups=labels, backend="cpu"))
