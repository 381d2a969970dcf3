"""What convex_hull accepts: dtypes, shapes, layouts, containers, bad values; no copies; threads."""

import threading
import tracemalloc

import numpy as np
import pytest

import exact
import wagener
from wagener import _arrays

SQUARE = [(0, 0), (2, 0), (1, 1), (2, 2), (0, 2), (1, 0)]
SQUARE_HULL = [(0, 0), (2, 0), (2, 2), (0, 2)]


def rows(array):
    return [(float(x), float(y)) for x, y in array]


def test_list_of_tuples():
    hull = wagener.convex_hull(SQUARE)
    assert hull.dtype == np.int64 and rows(hull) == SQUARE_HULL  # Python ints: int64, never rounded
    hull = wagener.convex_hull([(float(x), float(y)) for x, y in SQUARE])
    assert hull.dtype == np.float64 and rows(hull) == SQUARE_HULL


@pytest.mark.parametrize("dtype", [np.float32, ">f4"])
def test_float32_stays_float32(dtype):
    hull = wagener.convex_hull(np.array(SQUARE, dtype=dtype))
    assert hull.dtype == np.float32 and rows(hull) == SQUARE_HULL


@pytest.mark.parametrize("dtype", [np.float16, np.longdouble, ">f8"])
def test_other_float_dtypes_become_float64(dtype):
    hull, indices = wagener.convex_hull(np.array(SQUARE, dtype=dtype), return_indices=True)
    assert hull.dtype == np.float64 and rows(hull) == SQUARE_HULL
    assert indices.tolist() == [0, 1, 3, 4]


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, ">i8"])
def test_integer_dtypes_stay_themselves(dtype):
    hull, indices = wagener.convex_hull(np.array(SQUARE, dtype=dtype), return_indices=True)
    assert hull.dtype == np.dtype(dtype) and rows(hull) == SQUARE_HULL
    assert indices.tolist() == [0, 1, 3, 4]


@pytest.mark.parametrize("dtype", [bool, np.complex128, object, "U3", "datetime64[s]"])
def test_other_dtypes_are_type_errors(dtype):
    with pytest.raises(TypeError, match="real numbers"):
        wagener.convex_hull(np.zeros((4, 2), dtype=dtype))


@pytest.mark.parametrize("shape", [(5,), (5, 3), (2, 5), (5, 2, 1), (), (0, 3)])
def test_wrong_shapes_name_the_shape(shape):
    with pytest.raises(ValueError, match=r"shape \(n, 2\), got shape " + str(shape).replace("(", r"\(").replace(")", r"\)")):
        wagener.convex_hull(np.zeros(shape))


@pytest.mark.parametrize("empty", [np.empty((0, 2)), [], np.empty((0, 2), np.float32)])
def test_no_points(empty):
    hull, indices = wagener.convex_hull(empty, return_indices=True)
    assert hull.shape == (0, 2) and indices.shape == (0,) and indices.dtype == np.int64
    assert hull.dtype == (np.float32 if getattr(empty, "dtype", None) == np.float32 else np.float64)
    assert wagener.convex_hull(empty, upper=True).shape == (0, 2)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("options", [{}, {"upper": True}, {"backend": "pram"}, {"return_indices": True}])
def test_non_finite_names_the_first_bad_row(bad, dtype, options):
    points = np.random.default_rng(1).random((40, 2)).astype(dtype)
    points[12, 1] = bad
    points[30, 0] = bad
    with pytest.raises(ValueError, match=r"\bpoint 12 is not finite"):
        wagener.convex_hull(points, **options)


def test_input_errors_are_value_errors():
    assert issubclass(wagener.InputError, ValueError)
    with pytest.raises(wagener.InputError):
        wagener.convex_hull([[0, 0], [np.nan, 0]])


def test_presorted_is_checked():
    points = np.array([[0, 0], [1, 1], [0.5, 3], [2, 0]])
    with pytest.raises(ValueError, match="not sorted.*point 2"):
        wagener.convex_hull(points, upper=True, presorted=True)
    with pytest.raises(ValueError, match="not sorted"):
        wagener.convex_hull(points, presorted=True)


def test_unknown_backend():
    with pytest.raises(ValueError, match="unknown backend"):
        wagener.convex_hull(SQUARE, backend="gpu")


@pytest.mark.skipif(wagener.cuda_available(), reason="this machine has a CUDA device")
def test_cuda_backend_without_a_device():
    with pytest.raises(RuntimeError):
        wagener.convex_hull(SQUARE, backend="cuda")


def test_non_contiguous_layouts(rng):
    base = rng.normal(size=(3000, 4))
    cases = {
        "every other row": base[::2, :2],
        "columns 1 and 3": base[:, 1::2],
        "reversed columns": base[:, 1::-1],
        "fortran order": np.asfortranarray(base[:, :2]),
        "transposed (2, n)": np.ascontiguousarray(base[:, :2].T).T,
        "read-only": np.lib.stride_tricks.as_strided(base[:, :2]),
    }
    cases["read-only"].flags.writeable = False
    for name, points in cases.items():
        assert rows(wagener.convex_hull(points)) == exact.convex_hull(rows(points)), name


def test_view_between_two_points_is_read_correctly(rng):
    """A contiguous float64 view that starts 8 bytes into a buffer: aligned for numpy, not for a
    16-byte point; the module copies it into aligned storage."""
    points = rng.normal(size=(1001, 2))
    view = np.frombuffer(points.tobytes(), dtype=np.float64, offset=8, count=2000).reshape(1000, 2)
    assert view.ctypes.data % 16 == 8 and view.flags.c_contiguous
    assert rows(wagener.convex_hull(view)) == exact.convex_hull(rows(view))


def test_contiguous_input_is_used_in_place():
    points = np.zeros((10, 2))
    assert _arrays.host_points(points) is points
    single = np.zeros((10, 2), dtype=np.float32)
    assert _arrays.host_points(single) is single
    assert _arrays.host_points(points[::2]) is not points
    for dtype in (np.int32, np.int64):
        integers = np.zeros((10, 2), dtype=dtype)
        assert _arrays.host_points(integers) is integers


def peak_traced_bytes(f):
    """Peak memory traced by tracemalloc (which sees every numpy array allocation) while f runs."""
    tracemalloc.start()
    try:
        f()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_contiguous_input_is_not_copied(dtype, rng):
    points = (rng.normal(size=(1_000_000, 2)) * 2**20).astype(dtype)
    peak = peak_traced_bytes(lambda: wagener.convex_hull(points, return_indices=True))
    assert peak < points.nbytes / 20
    # The measurement does see a copy: a Fortran-order input is copied once.
    fortran = np.asfortranarray(points)
    assert peak_traced_bytes(lambda: wagener.convex_hull(fortran)) >= points.nbytes


def test_cpu_dlpack_objects_are_read_through_numpy():
    class Exporter:  # a foreign array type that speaks only DLPack
        def __init__(self, array):
            self.array = array

        def __dlpack__(self, **kwargs):  # whatever this numpy's from_dlpack asks of its own arrays
            return self.array.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    assert rows(wagener.convex_hull(Exporter(np.array(SQUARE, dtype=float)))) == SQUARE_HULL


def test_torch_cpu_tensors():
    torch = pytest.importorskip("torch")
    tensor = torch.tensor(SQUARE, dtype=torch.float32, requires_grad=True)
    hull, indices = wagener.convex_hull(tensor, return_indices=True)
    assert isinstance(hull, torch.Tensor) and hull.dtype == torch.float32
    assert rows(hull.numpy()) == SQUARE_HULL and indices.tolist() == [0, 1, 3, 4]
    assert wagener.convex_hull(torch.tensor(SQUARE)).dtype == torch.int64  # integers stay integers
    assert wagener.convex_hull(torch.tensor(SQUARE, dtype=torch.int16)).dtype == torch.int16


def test_hulls_run_in_parallel_threads(rng):
    """Two threads hull at once (the GIL is released around the library call); both are right."""
    inputs = [rng.normal(size=(200_000, 2)) for _ in range(4)]
    expected = [wagener.convex_hull(p, backend="cpu") for p in inputs]
    results = [None] * len(inputs)

    def work(i):
        results[i] = wagener.convex_hull(inputs[i], backend="pram" if i % 2 else "cpu")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got, want in zip(results, expected):
        np.testing.assert_array_equal(got, want)
