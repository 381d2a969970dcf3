# Type stubs of the wagener package (see __init__.py for the documentation).
import os
from collections.abc import Sequence
from typing import Any, Literal, NamedTuple, overload

import numpy as np
import numpy.typing as npt

__version__: str

class InputError(ValueError): ...
class CudaError(RuntimeError): ...
class UnsupportedError(RuntimeError): ...

Backend = Literal["auto", "cpu", "pram", "cuda"]
# numpy arrays and nested sequences give numpy results; CuPy arrays and tensors give their own kind.
HostPoints = npt.NDArray[Any] | Sequence[Sequence[float]] | Sequence[Sequence[int]]

def merge_hulls(hulls: Sequence[npt.ArrayLike]) -> np.ndarray: ...
@overload
def convex_hull(
    points: HostPoints,
    *,
    upper: bool = ...,
    presorted: bool = ...,
    backend: Backend = ...,
    return_indices: Literal[False] = ...,
) -> np.ndarray: ...
@overload
def convex_hull(
    points: HostPoints,
    *,
    upper: bool = ...,
    presorted: bool = ...,
    backend: Backend = ...,
    return_indices: Literal[True],
) -> tuple[np.ndarray, np.ndarray]: ...
@overload
def convex_hull(
    points: Any,
    *,
    upper: bool = ...,
    presorted: bool = ...,
    backend: Backend = ...,
    return_indices: bool = ...,
) -> Any: ...
class GroupedHulls(NamedTuple):
    vertices: Any
    # numpy int64 arrays for host points; the input library's int64 arrays for CUDA points.
    offsets: npt.NDArray[np.int64] | Any
    indices: npt.NDArray[np.int64] | Any | None
    groups: npt.NDArray[Any] | None
    def hull(self, g: int) -> Any: ...

def convex_hulls(
    points: HostPoints | Any,
    offsets: npt.ArrayLike | Any | None = ...,
    groups: npt.ArrayLike | Any | None = ...,
    *,
    upper: bool = ...,
    presorted: bool = ...,
    backend: Backend = ...,
    return_indices: bool = ...,
) -> GroupedHulls: ...
def read_points(
    path: str | os.PathLike[str],
    *,
    precision: Literal["double", "float", "int32", "int64"] = ...,
    format: Literal["auto", "text", "csv", "f32", "f64", "i32", "i64"] = ...,
    columns: tuple[str | int, str | int] | None = ...,
) -> np.ndarray: ...
def orient2d(a: npt.ArrayLike, b: npt.ArrayLike, c: npt.ArrayLike) -> Literal[-1, 0, 1]: ...
def cuda_available() -> bool: ...

class ConvexHull:
    points: npt.NDArray[np.float64] | npt.NDArray[np.integer[Any]]  # integer input stays integer
    vertices: npt.NDArray[np.int64]
    simplices: npt.NDArray[np.int64]
    neighbors: npt.NDArray[np.int64]
    equations: npt.NDArray[np.float64]
    volume: float
    area: float
    npoints: int
    ndim: int
    nsimplex: int
    min_bound: npt.NDArray[np.float64]
    max_bound: npt.NDArray[np.float64]
    def __init__(self, points: npt.ArrayLike) -> None: ...
