"""Bringing the arrays users hold to what the extension module takes.

Host arrays become C-contiguous (n, 2) numpy arrays of float32, float64, int32 or int64 (the
coordinate types the library hulls), copied only when their dtype or layout requires it. CUDA arrays
(CuPy, PyTorch) stay on their device: the extension gets their device pointer and stream, and their
own library allocates the result.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

import numpy as np

from . import _wagener
from ._wagener import InputError

_BACKENDS = ("auto", "cpu", "pram", "cuda")

# DLPack device types (dlpack.h): kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged.
_DLPACK_CPU = (1, 3)
_DLPACK_CUDA = (2, 13)


_INT64_MAX = np.iinfo(np.int64).max


def coordinate_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype the library hulls points of `dtype` in. Floats: float32 stays float32, every other
    float (float16, long double) becomes float64. Integers are never rounded: int8, int16, int32,
    uint8 and uint16 become int32, int64 and uint32 int64, and uint64 int64 where its values fit
    (check_fits_int64 checks them). Results come back in the input's dtype for integers."""
    if dtype.kind == "f":
        return np.dtype(np.float32) if dtype.itemsize == 4 else np.dtype(np.float64)
    if (dtype.kind == "i" and dtype.itemsize <= 4) or (dtype.kind == "u" and dtype.itemsize <= 2):
        return np.dtype(np.int32)
    if dtype.kind in "iu":
        return np.dtype(np.int64)
    raise TypeError(f"points must be real numbers (float or integer), not dtype {dtype}")


def check_fits_int64(largest: Any, dtype: Any) -> None:
    """uint64 points are hulled as int64: ValueError when the largest value does not fit."""
    if int(largest) > _INT64_MAX:
        raise ValueError(
            f"{dtype} points beyond 2**63 - 1 ({int(largest)}) cannot be hulled exactly: the library takes "
            "integers as int64 (subtract an offset first, or convert to a float type knowingly)"
        )


def check_shape(shape: tuple[int, ...]) -> None:
    if len(shape) != 2 or shape[1] != 2:
        raise ValueError(f"points must be an array of shape (n, 2), got shape {tuple(shape)}")


def refuse_masked(points: Any) -> None:
    """numpy's masked arrays hold no values at their masked entries: hulling them would hull garbage.
    Refused with scipy's ValueError."""
    if np.ma.isMaskedArray(points):
        raise ValueError("points cannot be a masked array: its masked entries hold no values (drop those rows first)")


def host_coordinates(points: Any) -> tuple[np.ndarray, np.dtype]:
    """A C-contiguous (n, 2) array of the coordinate dtype (coordinate_dtype), `points` itself when
    it already is one, and the dtype its vertices are returned in (result_dtype)."""
    refuse_masked(points)
    array = points if isinstance(points, np.ndarray) else np.asarray(points)
    dtype = coordinate_dtype(array.dtype)
    if array.ndim == 1 and array.size == 0:  # [] is no points
        array = array.reshape(0, 2)
    check_shape(array.shape)
    if array.dtype.kind == "u" and array.dtype.itemsize == 8 and array.size:
        check_fits_int64(array.max(), array.dtype)
    return np.ascontiguousarray(array, dtype=dtype), result_dtype(array.dtype)


def host_points(points: Any) -> np.ndarray:
    """The array of host_coordinates alone."""
    return host_coordinates(points)[0]


def in_dtype(vertices: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Vertices in `dtype` (result_dtype of the input): integers narrowed back exactly, since every
    vertex is an input point."""
    return vertices if vertices.dtype == dtype else vertices.astype(dtype)


def result_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype of the vertices for points of `dtype`: the input's own for integers (the vertices
    are input points, so narrowing them back is exact), the coordinate dtype for floats."""
    dtype = np.dtype(dtype)
    return dtype if dtype.kind in "iu" else coordinate_dtype(dtype)


def index_array(values: Any, name: str) -> np.ndarray:
    """A C-contiguous int64 array of integer values (TypeError for any other dtype)."""
    array = np.asarray(values)
    if array.size == 0 and array.dtype.kind == "f":  # [] is no entries
        array = array.astype(np.int64)
    if array.dtype.kind not in "iu":
        raise TypeError(f"{name} must be integers, not dtype {array.dtype}")
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.dtype.kind == "u" and array.size and array.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{name} holds values beyond int64")
    return np.ascontiguousarray(array, dtype=np.int64)


def check_offsets(offsets: np.ndarray, n: int) -> None:
    """The checks wagener::convex_hulls makes of group offsets, in its words (ValueError naming the
    first bad entry), for the device entry point, which takes its offsets unchecked."""
    if offsets.size == 0:
        raise ValueError("offsets is empty: it needs groups + 1 entries, from 0 to n")
    if offsets[0] != 0:
        raise ValueError(f"offsets[0] is {offsets[0]}, not 0")
    drops = np.flatnonzero(offsets[1:] < offsets[:-1])
    if drops.size:
        g = int(drops[0]) + 1
        raise ValueError(f"offsets[{g}] = {offsets[g]} is smaller than offsets[{g - 1}] = {offsets[g - 1]}")
    if offsets[-1] != n:
        raise ValueError(f"offsets[{len(offsets) - 1}] = {offsets[-1]} is not the number of points, {n}")


def label_values(labels: np.ndarray) -> np.ndarray:
    """Group labels as the host path returns them: int64 when they fit, else as given."""
    kind = labels.dtype.kind
    if kind in "ib" or (kind == "u" and (labels.size == 0 or labels.max() <= np.iinfo(np.int64).max)):
        return labels.astype(np.int64)
    return labels


def _module(name: str) -> Any:
    """An array library the caller has already imported (we never import one ourselves)."""
    return sys.modules.get(name)


def is_torch_tensor(obj: Any) -> bool:
    torch = _module("torch")
    return torch is not None and isinstance(obj, torch.Tensor)


def is_cupy_array(obj: Any) -> bool:
    cupy = _module("cupy")
    return cupy is not None and isinstance(obj, cupy.ndarray)


def host_input(points: Any) -> tuple[Any, Callable[[np.ndarray], Any]]:
    """For host input: (something numpy reads, a function giving results the input's kind).

    PyTorch CPU tensors are read through numpy without a copy and get tensors back; other objects
    with __dlpack__ on the CPU are read through numpy.from_dlpack; the rest through numpy.asarray.
    """
    if is_torch_tensor(points):
        torch = _module("torch")
        tensor = points.detach()
        if tensor.dtype == torch.bfloat16 or tensor.dtype == torch.float16:  # no numpy view for bfloat16
            tensor = tensor.to(torch.float64)
        return tensor.numpy(), torch.from_numpy
    if not isinstance(points, np.ndarray) and hasattr(points, "__dlpack__") and hasattr(points, "__dlpack_device__"):
        if points.__dlpack_device__()[0] in _DLPACK_CPU:
            return np.from_dlpack(points), lambda a: a
    return points, lambda a: a


def device_library(points: Any) -> Any:
    """The adapter for a CUDA array (CuPy or PyTorch), else None (host input)."""
    if is_torch_tensor(points):
        return _Torch(_module("torch")) if points.is_cuda else None
    if is_cupy_array(points):
        return _Cupy(_module("cupy"))
    if isinstance(points, np.ndarray):
        return None
    on_cuda = hasattr(points, "__cuda_array_interface__")
    if not on_cuda and hasattr(points, "__dlpack__") and hasattr(points, "__dlpack_device__"):
        on_cuda = points.__dlpack_device__()[0] in _DLPACK_CUDA
    if not on_cuda:
        return None
    # Another library's CUDA array: viewed (no copy) through CuPy or PyTorch when one is importable.
    for name, adapter in (("cupy", _Cupy), ("torch", _Torch)):
        try:
            library = __import__(name)
        except ImportError:
            continue
        return adapter(library)
    raise TypeError(
        f"{type(points).__name__} is a CUDA array; wagener hulls CUDA arrays through CuPy or PyTorch, "
        "and neither is installed"
    )


class _Device:
    """What the device path needs from an array library; one subclass per library."""

    def __init__(self, library: Any) -> None:
        self.lib = library

    def hull(self, points: Any, *, upper: bool, presorted: bool, backend: str, return_indices: bool) -> Any:
        check_device_backend(backend)
        if return_indices:
            raise NotImplementedError("return_indices=True is not supported for CUDA arrays yet; hull a host copy")
        points = self.adopt(points)
        with self.device_of(points):
            source = points
            points = self.coordinate_points(points)
            n = int(points.shape[0])
            dtype = self.dtype_name(points)
            if n == 0:
                return self.like_input(points[:0].reshape(0, 2), source)
            stream = self.stream(points)
            if upper and presorted:
                points = self.c_contiguous(points)
                out = self.empty_like(points)
                h = _wagener.upper_hull_device(self.pointer(points), n, self.pointer(out), stream, dtype)
                return self.like_input(self.copy(out[:h]), source)
            out = self.empty_like(points)
            column_stride = self.column_layout(points)
            if column_stride is not None:  # x and y each contiguous: the structure-of-arrays entry point
                x = self.pointer(points)
                h = _wagener.convex_hull_device_soa(x, x + column_stride, n, self.pointer(out), stream, dtype)
            else:
                points = self.c_contiguous(points)
                h = _wagener.convex_hull_device(self.pointer(points), n, self.pointer(out), stream, dtype)
            hull = self.like_input(self.copy(out[:h]), source)
            if not upper:
                return hull
            # The upper chain of the full hull (counter-clockwise from the lexicographically smallest
            # vertex): that vertex, then the vertices from the last back to the largest one. The
            # order comes from the small hull on the host; the vertices are gathered on the device.
            order = upper_chain_order(self.to_host(hull))
            return self.take(hull, order)

    def hulls(
        self, points: Any, offsets: Any, groups: Any, *, upper: bool, presorted: bool, backend: str,
        return_indices: bool
    ) -> tuple[Any, Any, Any, np.ndarray | None]:
        """wagener::cuda::convex_hulls_device on the array's memory and stream: (vertices, hull
        offsets, indices or None, group labels or None), the first three this library's arrays on
        the points' device, the labels a numpy array. Exactly one of offsets and groups is given."""
        check_device_backend(backend)
        points = self.adopt(points)
        with self.device_of(points):
            input_points = points
            points = self.c_contiguous(self.coordinate_points(points))
            n = int(points.shape[0])
            source = points  # in input order
            order = None  # with groups=: grouped row -> input row
            labels = None
            if offsets is not None:
                # Validated on the host (groups + 1 integers, a small copy), then that very copy is
                # what the device reads: the entry point takes offsets unchecked.
                offsets_library = device_library(offsets)
                if offsets_library is not None:
                    offsets = offsets_library.to_host(offsets_library.adopt(offsets))
                host_offsets = index_array(offsets, "offsets")
                check_offsets(host_offsets, n)
            else:
                order, host_offsets, labels = self.group_by_label(points, groups, n)
                points = points[order]
            if presorted:
                self.check_presorted(points, host_offsets)
            g = len(host_offsets) - 1
            hull_offsets = self.index_to_device(np.zeros(g + 1, np.int64), points)
            if n == 0:  # only empty groups: nothing for the device to do
                empty = self.index_to_device(np.zeros(0, np.int64), points)
                vertices = self.like_input(points[:0], input_points)
                return vertices, hull_offsets, empty if return_indices else None, labels
            out = self.empty_like(points)
            indices = self.empty_index(n, points) if return_indices else None
            device_offsets = self.index_to_device(host_offsets, points)  # held until the call returns
            try:
                total = _wagener.convex_hulls_device(
                    self.pointer(points), self.pointer(device_offsets), n, g,
                    self.pointer(out), self.pointer(hull_offsets), 0 if indices is None else self.pointer(indices),
                    bool(upper), self.stream(points), self.dtype_name(points),
                )
            except InputError:
                if order is None:
                    raise
                # The device saw the grouped rows; name the first non-finite input row, as the host does.
                bad = self.first_non_finite_row(source)
                if bad is None:
                    raise
                raise InputError(f"point {bad} is not finite") from None
            vertices = self.like_input(self.copy(out[:total]), input_points)
            if indices is not None:
                # Rows of the grouped points, mapped back to input rows; the grouping was stable, so
                # the smallest grouped row of a vertex is its smallest input row.
                indices = order[indices[:total]] if order is not None else self.copy(indices[:total])
            return vertices, hull_offsets, indices, labels

    def coordinate_points(self, points: Any) -> Any:
        """The (n, 2) array in the coordinate dtype (coordinate_dtype; an empty 1-D array is no
        points)."""
        points = self.as_coordinates(points)
        if points.ndim == 1 and points.shape[0] == 0:
            points = points.reshape(0, 2)
        check_shape(tuple(points.shape))
        return points

    def group_by_label(self, points: Any, groups: Any, n: int) -> tuple[Any, np.ndarray, np.ndarray]:
        """Groups the rows by label on the device with the library's stable sort, the group order
        (each label's first row) worked out on the host from one entry per group. Returns (grouped
        row -> input row on the device, the group offsets on the host, the labels in group order)."""
        labels = self.device_labels(groups, points)
        if labels.ndim != 1 or int(labels.shape[0]) != n:
            raise ValueError(f"groups must hold one label per point ({n}), got shape {tuple(labels.shape)}")
        if n == 0:
            return self.index_to_device(np.zeros(0, np.int64), points), np.zeros(1, np.int64), np.zeros(0, np.int64)
        by_label = self.stable_argsort(labels)  # runs of equal labels, each in input order
        sorted_labels = labels[by_label]
        boundary = sorted_labels[1:] != sorted_labels[:-1]
        run_start = np.concatenate(([0], self.to_host(self.flatnonzero(boundary)) + 1)).astype(np.int64)
        first_row = self.to_host(by_label[self.index_to_device(run_start, points)]).astype(np.int64)
        run_order = np.argsort(first_row)  # the runs in the order of their labels' first rows
        run_rank = np.empty_like(run_order)
        run_rank[run_order] = np.arange(len(run_order))
        # Each sorted row's run, then the runs in first-appearance order by a second stable sort.
        run_of = self.concat(self.index_to_device(np.zeros(1, np.int64), points), self.cumsum(boundary))
        order = by_label[self.stable_argsort(self.index_to_device(run_rank, points)[run_of])]
        sizes = np.diff(np.append(run_start, n))[run_order]
        host_offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        values = self.to_host(labels[self.index_to_device(first_row[run_order], points)])
        return order, host_offsets, label_values(np.asarray(values))

    def device_labels(self, groups: Any, points: Any) -> Any:
        """Integer labels as this library's array on the points' device (host labels are copied
        there); TypeError for floating-point labels and for strings (host only)."""
        if device_library(groups) is not None:
            labels = self.adopt(groups)
            if self.device_key(labels) != self.device_key(points):
                raise ValueError("groups must be on the points' device")
            kind = self.kind(labels)
            if kind not in "iub":
                raise TypeError(f"groups must be integer labels, not dtype {labels.dtype}")
            return labels * 1 if kind == "b" else labels  # bool as int64 (the host's labels), which all sort
        host = np.asarray(groups)
        kind = "i" if host.size == 0 else host.dtype.kind  # [] is no labels
        if kind in "USO":
            raise TypeError(
                "string labels are host-only: with CUDA points, give integer labels "
                "(np.unique(labels, return_inverse=True)[1] numbers them) or copy the points to the host"
            )
        if kind not in "iub":
            raise TypeError(f"groups must be integer or string labels, not dtype {host.dtype}")
        return self.labels_to_device(np.ascontiguousarray(host if kind != "b" else host.astype(np.int64)), points)

    def check_presorted(self, points: Any, host_offsets: np.ndarray) -> None:
        """The promise that each group is sorted by (x, y), checked as the host checks it (the first
        point smaller than the one before it, within a group; the host's message)."""
        x, y = points[:, 0], points[:, 1]
        smaller = (x[1:] < x[:-1]) | ((x[1:] == x[:-1]) & (y[1:] < y[:-1]))
        at = self.to_host(self.flatnonzero(smaller)) + 1  # rows smaller than their predecessor
        at = at[~np.isin(at, host_offsets)]  # a group's first row has no predecessor in its group
        if at.size:
            row = int(at[0])
            g = int(np.searchsorted(host_offsets, row, side="right")) - 1
            raise InputError(f"group {g} is not sorted by (x, y): point {row} is smaller than point {row - 1}")

    # What each library provides.
    def adopt(self, points: Any) -> Any:
        """The array as this library's (a view, no copy) when it is another library's."""
        raise NotImplementedError

    def device_of(self, points: Any) -> Any:
        """A context manager making the array's device the current one."""
        raise NotImplementedError

    def as_coordinates(self, points: Any) -> Any:
        """The array in the coordinate dtype (coordinate_dtype; converted on the device)."""
        raise NotImplementedError

    def like_input(self, result: Any, source: Any) -> Any:
        """Vertices of integer points in the input's own dtype (exact: they are input points)."""
        raise NotImplementedError

    def dtype_name(self, points: Any) -> str:
        raise NotImplementedError

    def stream(self, points: Any) -> int:
        """The cudaStream_t the array's data is ready on, as an integer."""
        raise NotImplementedError

    def c_contiguous(self, points: Any) -> Any:
        raise NotImplementedError

    def column_layout(self, points: Any) -> int | None:
        """For an (n, 2) array whose columns are each contiguous (Fortran order), the byte offset
        from x to y; else None."""
        raise NotImplementedError

    def empty_like(self, points: Any) -> Any:
        """A new (n, 2) array of the same dtype on the same device."""
        raise NotImplementedError

    def pointer(self, points: Any) -> int:
        raise NotImplementedError

    def copy(self, points: Any) -> Any:
        raise NotImplementedError

    def to_host(self, points: Any) -> np.ndarray:
        raise NotImplementedError

    def take(self, points: Any, order: np.ndarray) -> Any:
        """points[order], gathered on the device."""
        raise NotImplementedError

    # For grouped hulls (indexing, slicing and comparisons are the arrays' own operators).
    def device_key(self, array: Any) -> Any:
        """What tells the array's device apart from others."""
        raise NotImplementedError

    def kind(self, array: Any) -> str:
        """The numpy dtype kind of the array's dtype ("i", "u", "b", "f", "c")."""
        raise NotImplementedError

    def index_to_device(self, values: np.ndarray, like: Any) -> Any:
        """A host int64 array copied to like's device."""
        raise NotImplementedError

    def labels_to_device(self, values: np.ndarray, like: Any) -> Any:
        """Host integer labels copied to like's device, in a dtype the library sorts."""
        raise NotImplementedError

    def empty_index(self, n: int, like: Any) -> Any:
        """A new int64 array of n entries on like's device."""
        raise NotImplementedError

    def stable_argsort(self, values: Any) -> Any:
        """The int64 positions that sort values, equal values in their order (a stable sort)."""
        raise NotImplementedError

    def cumsum(self, mask: Any) -> Any:
        """The inclusive sum of a boolean array, int64."""
        raise NotImplementedError

    def flatnonzero(self, mask: Any) -> Any:
        """The positions of the true entries of a boolean array, int64."""
        raise NotImplementedError

    def concat(self, first: Any, second: Any) -> Any:
        raise NotImplementedError

    def first_non_finite_row(self, points: Any) -> int | None:
        """The first row holding NaN or infinity, None if every row is finite."""
        raise NotImplementedError


def check_device_backend(backend: str) -> None:
    """The backends a CUDA array may ask for: "auto" and "cuda"."""
    if backend not in _BACKENDS:
        raise ValueError(f'unknown backend "{backend}" ({", ".join(_BACKENDS)})')
    if backend in ("cpu", "pram"):
        raise ValueError(
            f'backend "{backend}" runs on the host; this array is on a CUDA device: copy it to the host '
            "first (cupy.asnumpy, tensor.cpu()) or use backend 'auto' or 'cuda'"
        )


class _Cupy(_Device):
    def adopt(self, points: Any) -> Any:
        if isinstance(points, self.lib.ndarray):
            return points
        if hasattr(points, "__cuda_array_interface__"):
            return self.lib.asarray(points)
        return self.lib.from_dlpack(points)

    def device_of(self, points: Any) -> Any:
        return points.device

    def as_coordinates(self, points: Any) -> Any:
        dtype = coordinate_dtype(np.dtype(points.dtype))
        if np.dtype(points.dtype) == np.uint64 and points.size:
            check_fits_int64(points.max(), points.dtype)
        return points if points.dtype == dtype else points.astype(dtype)

    def like_input(self, result: Any, source: Any) -> Any:
        wanted = result_dtype(np.dtype(source.dtype))
        return result if result.dtype == wanted else result.astype(wanted)

    def dtype_name(self, points: Any) -> str:
        return np.dtype(points.dtype).name

    def stream(self, points: Any) -> int:
        # __cuda_array_interface__ v3 names the stream the data is ready on (1: the legacy default
        # stream, 2: per-thread default, else a cudaStream_t); without one, CuPy's current stream.
        stream = points.__cuda_array_interface__.get("stream")
        return int(stream) if stream is not None else int(self.lib.cuda.get_current_stream().ptr)

    def c_contiguous(self, points: Any) -> Any:
        return self.lib.ascontiguousarray(points)

    def column_layout(self, points: Any) -> int | None:
        if points.flags.c_contiguous:
            return None
        item = points.dtype.itemsize
        return int(points.strides[1]) if points.strides[0] == item and points.strides[1] > 0 else None

    def empty_like(self, points: Any) -> Any:
        return self.lib.empty((points.shape[0], 2), dtype=points.dtype)

    def pointer(self, points: Any) -> int:
        return int(points.data.ptr)

    def copy(self, points: Any) -> Any:
        return points.copy()

    def to_host(self, points: Any) -> np.ndarray:
        return self.lib.asnumpy(points)

    def take(self, points: Any, order: np.ndarray) -> Any:
        return points[self.lib.asarray(order)]

    def device_key(self, array: Any) -> Any:
        return array.device.id

    def kind(self, array: Any) -> str:
        return np.dtype(array.dtype).kind

    def index_to_device(self, values: np.ndarray, like: Any) -> Any:
        return self.lib.asarray(values, dtype=self.lib.int64)

    def labels_to_device(self, values: np.ndarray, like: Any) -> Any:
        return self.lib.asarray(values)

    def empty_index(self, n: int, like: Any) -> Any:
        return self.lib.empty(n, dtype=self.lib.int64)

    def stable_argsort(self, values: Any) -> Any:
        return self.lib.argsort(values)  # CuPy's sorts are stable

    def cumsum(self, mask: Any) -> Any:
        return self.lib.cumsum(mask, dtype=self.lib.int64)

    def flatnonzero(self, mask: Any) -> Any:
        return self.lib.flatnonzero(mask)

    def concat(self, first: Any, second: Any) -> Any:
        return self.lib.concatenate((first, second))

    def first_non_finite_row(self, points: Any) -> int | None:
        bad = self.lib.flatnonzero(~self.lib.isfinite(points).all(axis=1))
        return int(bad[0]) if bad.size else None


class _Torch(_Device):
    def adopt(self, points: Any) -> Any:
        if isinstance(points, self.lib.Tensor):
            return points.detach()
        return self.lib.from_dlpack(points)

    def device_of(self, points: Any) -> Any:
        return self.lib.cuda.device(points.device)

    def as_coordinates(self, points: Any) -> Any:
        torch = self.lib
        if points.dtype in (torch.float32, torch.float64, torch.int32, torch.int64):
            return points
        if points.dtype == torch.bool or points.is_complex():
            raise TypeError(f"points must be real numbers (float or integer), not dtype {points.dtype}")
        if points.is_floating_point():
            return points.to(torch.float64)
        # The integer rule of coordinate_dtype; PyTorch's uint16, uint32 and uint64 (2.3 on) have few
        # operations, so they are compared and converted through int64 on the host's terms.
        unsigned = {getattr(torch, name, None): name for name in ("uint16", "uint32", "uint64")}
        if points.dtype in (torch.int8, torch.int16, torch.uint8) or unsigned.get(points.dtype) == "uint16":
            return points.to(torch.int32)
        if unsigned.get(points.dtype) == "uint64" and points.numel():
            check_fits_int64(points.max().item(), points.dtype)
        return points.to(torch.int64)

    def like_input(self, result: Any, source: Any) -> Any:
        if source.is_floating_point() or result.dtype == source.dtype:
            return result
        return result.to(source.dtype)

    def dtype_name(self, points: Any) -> str:
        torch = self.lib
        names = {torch.float32: "float32", torch.float64: "float64", torch.int32: "int32", torch.int64: "int64"}
        return names[points.dtype]

    def stream(self, points: Any) -> int:
        return int(self.lib.cuda.current_stream(points.device).cuda_stream)

    def c_contiguous(self, points: Any) -> Any:
        return points.contiguous()

    def column_layout(self, points: Any) -> int | None:
        if points.is_contiguous():
            return None
        stride = points.stride()
        return stride[1] * points.element_size() if stride[0] == 1 and stride[1] > 0 else None

    def empty_like(self, points: Any) -> Any:
        return self.lib.empty((points.shape[0], 2), dtype=points.dtype, device=points.device)

    def pointer(self, points: Any) -> int:
        return int(points.data_ptr())

    def copy(self, points: Any) -> Any:
        return points.clone()

    def to_host(self, points: Any) -> np.ndarray:
        return points.cpu().numpy()

    def take(self, points: Any, order: np.ndarray) -> Any:
        return points[self.lib.as_tensor(order, device=points.device)]

    def device_key(self, array: Any) -> Any:
        return array.device

    def kind(self, array: Any) -> str:
        torch = self.lib
        if array.dtype == torch.bool:
            return "b"
        if array.is_floating_point():
            return "f"
        if array.is_complex():
            return "c"
        return "u" if array.dtype == torch.uint8 else "i"

    def index_to_device(self, values: np.ndarray, like: Any) -> Any:
        return self.lib.as_tensor(values, dtype=self.lib.int64, device=like.device)

    def labels_to_device(self, values: np.ndarray, like: Any) -> Any:
        if values.dtype.kind == "u" and values.dtype.itemsize > 1:  # PyTorch sorts no uint16..uint64
            if values.size and values.max() > np.iinfo(np.int64).max:
                raise TypeError("PyTorch sorts no uint64 labels beyond int64: give int64 labels")
            values = values.astype(np.int64)
        return self.lib.as_tensor(values, device=like.device)

    def empty_index(self, n: int, like: Any) -> Any:
        return self.lib.empty(n, dtype=self.lib.int64, device=like.device)

    def stable_argsort(self, values: Any) -> Any:
        return self.lib.argsort(values, stable=True)

    def cumsum(self, mask: Any) -> Any:
        return self.lib.cumsum(mask, 0, dtype=self.lib.int64)

    def flatnonzero(self, mask: Any) -> Any:
        return self.lib.nonzero(mask).flatten()

    def concat(self, first: Any, second: Any) -> Any:
        return self.lib.cat((first, second))

    def first_non_finite_row(self, points: Any) -> int | None:
        bad = self.lib.nonzero(~self.lib.isfinite(points).all(dim=1)).flatten()
        return int(bad[0]) if bad.numel() else None


def upper_chain_order(hull: np.ndarray) -> np.ndarray:
    """Positions of the upper chain in a full hull (counter-clockwise from the smallest vertex)."""
    h = len(hull)
    if h <= 2:
        return np.arange(h)
    largest = int(np.lexsort((hull[:, 1], hull[:, 0]))[-1])
    return np.concatenate((np.zeros(1, dtype=np.intp), np.arange(h - 1, largest - 1, -1)))
