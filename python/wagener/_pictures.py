"""Pictures in notebooks: a hull as SVG, and Wagener's rounds as the rounds page (``wagener.trace``).

The library draws both (``wagener::render`` and ``wagener::render_rounds_page``); this module only
hands them the arrays and wraps what comes back for Jupyter's rich display.
"""

from __future__ import annotations

import html
import os
import tempfile
from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np

from . import _arrays, _wagener


class Round(NamedTuple):
    """The hoods after one round of Wagener's algorithm (``wagener::TraceRound``)."""

    chain: str
    """"upper" or "lower" (the lower chain's hoods are given in the input's coordinates, left to right)."""
    round: int
    """0: every point its own hood; r: the hoods of blocks of 2**r sorted points."""
    block_width: int
    """2**round."""
    corners: np.ndarray
    """(c, 2): every hood's corners, hood after hood, each left to right."""
    hood_sizes: np.ndarray
    """(h,) int64: the corners of each hood; they sum to c."""
    bridge_hoods: np.ndarray
    """(b,) int64: for each bridge, the hood (of this round) its merge produced."""
    bridges: np.ndarray
    """(b, 2, 2): each bridge's ends ``[a, b]``, a on the left hood, b on the right one."""

    def hood(self, k: int) -> np.ndarray:
        """The corners of hood k."""
        start = int(self.hood_sizes[:k].sum())
        return self.corners[start : start + int(self.hood_sizes[k])]


class Rounds:
    """Wagener's rounds on a point set, as ``wagener.trace`` returns them.

    ``rounds`` lists the upper chain's rounds, then (for a full hull) the lower chain's; ``hull`` is
    the hull they end in (as ``convex_hull`` returns it). In a notebook the object shows as the
    rounds page, inline; ``html()`` gives the page and ``save(path)`` writes it.
    """

    def __init__(self, points: np.ndarray, hull: np.ndarray, rounds: list[Round], upper: bool) -> None:
        self.points = points
        self.hull = hull
        self.rounds = rounds
        self.upper = upper

    def __len__(self) -> int:
        return len(self.rounds)

    def __getitem__(self, i: int) -> Round:
        return self.rounds[i]

    def __iter__(self) -> Iterator[Round]:
        return iter(self.rounds)

    def __repr__(self) -> str:
        kind = "upper hull" if self.upper else "hull"
        return f"wagener.Rounds({len(self.points)} points, {len(self.rounds)} rounds, {kind} of {len(self.hull)} vertices)"

    def html(
        self, *, title: str = "Wagener's rounds", max_dots: int | None = None, max_corners: int | None = None
    ) -> str:
        """The rounds page: one self-contained HTML document (no network). Beyond ``max_dots`` points
        the points are a density raster; the hoods' corners are drawn up to ``max_corners`` in all,
        the rounds with the fewest first (docs/formats.md, "Rounds page"). None takes the library's
        defaults (``wagener::RoundsPageOptions``: 100000 for both)."""
        kind = "upper hull" if self.upper else "hull"
        caption = f"{len(self.points)} points ({self.points.dtype}), {kind} of {len(self.hull)} vertices"
        return _wagener.rounds_page(
            self.points, self.hull, [tuple(r) for r in self.rounds], not self.upper, str(title), caption,
            None if max_dots is None else int(max_dots), None if max_corners is None else int(max_corners),
        )

    def save(self, path: str | os.PathLike[str], **options: Any) -> None:
        """Writes ``html(**options)`` to ``path``, whole or not at all (a temporary file, renamed)."""
        page = self.html(**options)
        folder = os.path.dirname(os.path.abspath(path))
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=folder, suffix=".tmp", delete=False) as out:
            try:
                out.write(page)
            except BaseException:
                out.close()
                os.unlink(out.name)
                raise
        os.replace(out.name, path)

    def _repr_html_(self) -> str:
        # In a frame of its own, so that the page's style and keys stay out of the notebook's.
        return (
            f'<iframe srcdoc="{html.escape(self.html(), quote=True)}" title="Wagener\'s rounds" '
            'style="width: 100%; height: 640px; border: 1px solid #ddd" sandbox="allow-scripts"></iframe>'
        )


def trace(points: Any, *, upper: bool = False, presorted: bool = False, backend: str = "auto") -> Rounds:
    """Wagener's rounds on host points: the hoods after every round and each merge's bridge.

    ``points`` as ``convex_hull`` takes them on the host (the same dtype rule). ``backend`` "auto"
    and "pram" run the rounds on the PRAM emulator, "cuda" on the GPU (the same rounds); "cpu"
    raises ``UnsupportedError``. Returns a ``Rounds``, shown in a notebook as the rounds page.
    """
    if _arrays.device_library(points) is not None:
        raise TypeError("trace takes host arrays; copy CUDA points to the host first")
    source, _ = _arrays.host_input(points)
    array = _arrays.host_points(source)
    hull, rounds = _wagener.trace(array, bool(upper), bool(presorted), str(backend))
    return Rounds(array, hull, [Round(*r) for r in rounds], bool(upper))


class HullPicture:
    """Gives ``ConvexHull`` its picture in notebooks: the points and the hull, drawn by the library."""

    points: np.ndarray
    vertices: np.ndarray

    def _repr_svg_(self) -> str:
        points = _arrays.host_points(self.points)  # integer points as int32 or int64, exactly
        hull = np.ascontiguousarray(points[self.vertices])
        caption = f"{len(self.points)} points, hull of {len(hull)} vertices"
        return str(_wagener.render_svg(points, hull, True, 480, 20_000, caption))
