"""Bringing the arrays users hold to what the extension module takes.

Host arrays become C-contiguous (n, 2) numpy arrays of float32 or float64, copied only when their
dtype or layout requires it. CUDA arrays (CuPy, PyTorch) stay on their device: the extension gets
their device pointer and stream, and their own library allocates the result.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

import numpy as np

from . import _wagener

_BACKENDS = ("auto", "cpu", "pram", "cuda")

# DLPack device types (dlpack.h): kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged.
_DLPACK_CPU = (1, 3)
_DLPACK_CUDA = (2, 13)


def real_dtype(dtype: np.dtype) -> np.dtype:
    """The one rule: float32 stays float32, every other real dtype becomes float64."""
    if dtype.kind == "f" and dtype.itemsize == 4:
        return np.dtype(np.float32)
    if dtype.kind in "fiu":
        return np.dtype(np.float64)
    raise TypeError(f"points must be real numbers (float or integer), not dtype {dtype}")


def check_shape(shape: tuple[int, ...]) -> None:
    if len(shape) != 2 or shape[1] != 2:
        raise ValueError(f"points must be an array of shape (n, 2), got shape {tuple(shape)}")


def host_points(points: Any) -> np.ndarray:
    """A C-contiguous (n, 2) float32/float64 array: `points` itself when it already is one."""
    array = points if isinstance(points, np.ndarray) else np.asarray(points)
    dtype = real_dtype(array.dtype)
    if array.ndim == 1 and array.size == 0:  # [] is no points
        array = array.reshape(0, 2)
    check_shape(array.shape)
    return np.ascontiguousarray(array, dtype=dtype)


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
        if backend not in _BACKENDS:
            raise ValueError(f'unknown backend "{backend}" ({", ".join(_BACKENDS)})')
        if backend in ("cpu", "pram"):
            raise ValueError(
                f'backend "{backend}" runs on the host; this array is on a CUDA device: copy it to the host '
                "first (cupy.asnumpy, tensor.cpu()) or use backend 'auto' or 'cuda'"
            )
        if return_indices:
            raise NotImplementedError("return_indices=True is not supported for CUDA arrays yet; hull a host copy")
        points = self.adopt(points)
        with self.device_of(points):
            points = self.as_real(points)
            if points.ndim == 1 and points.shape[0] == 0:
                points = points.reshape(0, 2)
            check_shape(tuple(points.shape))
            n = int(points.shape[0])
            dtype = self.dtype_name(points)
            if n == 0:
                return points[:0].reshape(0, 2)
            stream = self.stream(points)
            if upper and presorted:
                points = self.c_contiguous(points)
                out = self.empty_like(points)
                h = _wagener.upper_hull_device(self.pointer(points), n, self.pointer(out), stream, dtype)
                return self.copy(out[:h])
            out = self.empty_like(points)
            column_stride = self.column_layout(points)
            if column_stride is not None:  # x and y each contiguous: the structure-of-arrays entry point
                x = self.pointer(points)
                h = _wagener.convex_hull_device_soa(x, x + column_stride, n, self.pointer(out), stream, dtype)
            else:
                points = self.c_contiguous(points)
                h = _wagener.convex_hull_device(self.pointer(points), n, self.pointer(out), stream, dtype)
            hull = self.copy(out[:h])
            if not upper:
                return hull
            # The upper chain of the full hull (counter-clockwise from the lexicographically smallest
            # vertex): that vertex, then the vertices from the last back to the largest one. The
            # order comes from the small hull on the host; the vertices are gathered on the device.
            order = upper_chain_order(self.to_host(hull))
            return self.take(hull, order)

    # What each library provides.
    def adopt(self, points: Any) -> Any:
        """The array as this library's (a view, no copy) when it is another library's."""
        raise NotImplementedError

    def device_of(self, points: Any) -> Any:
        """A context manager making the array's device the current one."""
        raise NotImplementedError

    def as_real(self, points: Any) -> Any:
        """The array in float32 or float64 by the dtype rule (converted on the device)."""
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


class _Cupy(_Device):
    def adopt(self, points: Any) -> Any:
        if isinstance(points, self.lib.ndarray):
            return points
        if hasattr(points, "__cuda_array_interface__"):
            return self.lib.asarray(points)
        return self.lib.from_dlpack(points)

    def device_of(self, points: Any) -> Any:
        return points.device

    def as_real(self, points: Any) -> Any:
        dtype = real_dtype(np.dtype(points.dtype))
        return points if points.dtype == dtype else points.astype(dtype)

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


class _Torch(_Device):
    def adopt(self, points: Any) -> Any:
        if isinstance(points, self.lib.Tensor):
            return points.detach()
        return self.lib.from_dlpack(points)

    def device_of(self, points: Any) -> Any:
        return self.lib.cuda.device(points.device)

    def as_real(self, points: Any) -> Any:
        torch = self.lib
        if points.dtype in (torch.float32, torch.float64):
            return points
        if points.dtype == torch.bool or points.is_complex():
            raise TypeError(f"points must be real numbers (float or integer), not dtype {points.dtype}")
        return points.to(torch.float64)

    def dtype_name(self, points: Any) -> str:
        return "float32" if points.dtype == self.lib.float32 else "float64"

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


def upper_chain_order(hull: np.ndarray) -> np.ndarray:
    """Positions of the upper chain in a full hull (counter-clockwise from the smallest vertex)."""
    h = len(hull)
    if h <= 2:
        return np.arange(h)
    largest = int(np.lexsort((hull[:, 1], hull[:, 0]))[-1])
    return np.concatenate((np.zeros(1, dtype=np.intp), np.arange(h - 1, largest - 1, -1)))
