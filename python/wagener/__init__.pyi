# Type stubs of the wagener package (see __init__.py for the documentation).
import os
from collections.abc import Iterator, Sequence
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

class Round(NamedTuple):
    chain: Literal["upper", "lower"]
    round: int
    block_width: int
    corners: np.ndarray
    hood_sizes: npt.NDArray[np.int64]
    bridge_hoods: npt.NDArray[np.int64]
    bridges: np.ndarray
    def hood(self, k: int) -> np.ndarray: ...

class Rounds:
    points: np.ndarray
    hull: np.ndarray
    rounds: list[Round]
    upper: bool
    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> Round: ...
    def __iter__(self) -> Iterator[Round]: ...
    def html(self, *, title: str = ..., max_dots: int | None = ..., max_corners: int | None = ...) -> str: ...
    def save(
        self, path: str | os.PathLike[str], *, title: str = ..., max_dots: int | None = ..., max_corners: int | None = ...
    ) -> None: ...
    def _repr_html_(self) -> str: ...

def trace(points: HostPoints, *, upper: bool = ..., presorted: bool = ..., backend: Backend = ...) -> Rounds: ...

class ConvexHull:
    points: npt.NDArray[np.float64] | npt.NDArray[np.integer[Any]]  # integer input stays integer
    vertices: npt.NDArray[np.intc]
    simplices: npt.NDArray[np.intc]
    neighbors: npt.NDArray[np.intc]
    equations: npt.NDArray[np.float64]
    coplanar: npt.NDArray[np.intc]
    good: npt.NDArray[np.bool_] | None
    volume: float
    area: float
    npoints: int
    ndim: int
    nsimplex: int
    min_bound: npt.NDArray[np.float64] | npt.NDArray[np.integer[Any]]  # the points' dtype
    max_bound: npt.NDArray[np.float64] | npt.NDArray[np.integer[Any]]
    def __init__(self, points: npt.ArrayLike, incremental: bool = ..., qhull_options: str | bytes | None = ...) -> None: ...
    def add_points(self, points: npt.ArrayLike, restart: bool = ...) -> None: ...
    def close(self) -> None: ...
    def _repr_svg_(self) -> str: ...
