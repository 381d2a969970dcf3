"""CUDA arrays, hulled on their device (label cuda). Every test here skips, visibly, without a CUDA
device, a CUDA build of wagener, or the array library it needs (CuPy, PyTorch)."""

import ctypes

import numpy as np
import pytest

import exact
import families
import wagener
from wagener import _wagener

pytestmark = pytest.mark.cuda


def rows(array):
    return [(float(x), float(y)) for x, y in array]


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
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_device_entry_points(cudart, family, dtype, rng):
    points = families.ALL[family](50_000, rng, dtype)
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


def test_device_entry_points_reject_bad_points(cudart):
    points = np.random.default_rng(3).random((1000, 2))
    points[77] = np.nan
    with DeviceCopy(cudart, points) as d_points, DeviceCopy(cudart, points) as d_hull:
        with pytest.raises(ValueError, match="point 77 is not finite"):
            _wagener.convex_hull_device(d_points.ptr.value, len(points), d_hull.ptr.value, 0, "float64")
    with pytest.raises(TypeError):
        _wagener.convex_hull_device(0, 0, 0, 0, "int32")


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
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_device_arrays_hull_like_the_host(xp, family, dtype, rng):
    for n in (1, 2, 3, 200, 100_000):
        points = families.ALL[family](n, rng, dtype)
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
    assert hull.dtype == np.float64 and rows(hull) == [(0, 0), (2, 0), (2, 2), (0, 2)]
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


def test_torch_tensors_that_require_grad(rng):
    torch = Torch().lib
    require_device()
    points = torch.tensor(families.uniform_disk(1000, rng, np.float64), device="cuda", requires_grad=True)
    hull = wagener.convex_hull(points)
    assert not hull.requires_grad
    np.testing.assert_array_equal(hull.cpu().numpy(), wagener.convex_hull(points.detach().cpu().numpy()))
