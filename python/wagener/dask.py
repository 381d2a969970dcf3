"""Convex hulls of Dask arrays: a hull per block, then a tree of exact merges.

    >>> import dask.array as da, wagener.dask
    >>> points = da.random.random((10**8, 2), chunks=(10**7, 2))
    >>> hull = wagener.dask.convex_hull(points)          # a numpy array, as wagener.convex_hull gives

hull(A ∪ B) = hull(hull(A) ∪ hull(B)): each block is hulled where it lies (``wagener.convex_hull``
on the worker that holds it), and the blocks' hulls, a few vertices each for most inputs, are merged
``split_every`` at a time by ``wagener.merge_hulls`` until one is left. The result equals
``wagener.convex_hull`` of the whole array, vertex for vertex. Needs Dask (Debian: python3-dask;
python3-distributed for a cluster); ``import wagener`` works without it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import wagener


def _block_hull(block: np.ndarray, backend: str) -> np.ndarray:
    return wagener.convex_hull(block, backend=backend)


def _merge(*hulls: np.ndarray) -> np.ndarray:
    return wagener.merge_hulls(hulls)


def _upper(hull: np.ndarray) -> np.ndarray:
    return wagener.convex_hull(hull, upper=True, backend="cpu")


def convex_hull(
    array: Any,
    *,
    upper: bool = False,
    backend: str = "auto",
    split_every: int = 8,
    compute: bool = True,
) -> Any:
    """The exact convex hull of an (n, 2) Dask array's points.

    Parameters
    ----------
    array : dask.array.Array of shape (n, 2)
        Any real dtype, any chunking (blocks split along the columns are joined first). The dtype
        rule is ``wagener.convex_hull``'s: float32 stays float32, other floats become float64, and
        integers are hulled exactly and come back in their own dtype.
    upper : bool
        Return only the upper hull (as ``wagener.convex_hull(..., upper=True)``).
    backend : {"auto", "cpu", "pram", "cuda"}
        The backend each block is hulled on, on its worker.
    split_every : int
        How many hulls each merge of the tree reduction takes (at least 2).
    compute : bool
        True: compute and return the vertices as a numpy array. False: return a
        ``dask.delayed.Delayed`` that computes them.

    NaN or infinity raises ValueError (from the block that holds it) when computed.
    """
    import dask
    import dask.array as da

    if not isinstance(array, da.Array):
        raise TypeError(f"wagener.dask.convex_hull takes a dask array, not {type(array).__name__}")
    if array.ndim != 2 or array.shape[1] != 2:
        raise ValueError(f"points must have shape (n, 2), got {array.shape}")
    if split_every < 2:
        raise ValueError(f"split_every must be at least 2, got {split_every}")
    if len(array.chunks[1]) > 1:
        array = array.rechunk({1: 2})  # a block holds whole points
    level = [dask.delayed(_block_hull)(block, backend) for block in array.to_delayed().ravel()]
    if not level:  # no blocks at all
        level = [dask.delayed(np.empty)((0, 2))]
    while len(level) > 1:
        level = [dask.delayed(_merge)(*level[i : i + split_every]) for i in range(0, len(level), split_every)]
    result = level[0]
    if upper:
        result = dask.delayed(_upper)(result)
    return result.compute() if compute else result
