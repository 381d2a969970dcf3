"""wagener.trace (Wagener's rounds as arrays and as the rounds page) and ConvexHull's SVG picture.
The pages are loaded in a real browser by tests/browser/test_rounds_page.py (CTest: rounds_page_*)."""

import base64
import html
import json
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import exact
import families
import wagener

DTYPES = (np.float32, np.float64)


def rows(array):
    return [tuple(map(float, p)) for p in array]


def expected_hoods(points, chain, width):
    """The trace's definition (include/wagener/trace.hpp): the upper hulls of blocks of `width`
    sorted points; the lower chain's are the upper hulls of the reflected points' blocks, mapped back
    and listed left to right."""
    if chain == "upper":
        ordered = sorted(rows(points))
        return [exact.upper_hull(ordered[i : i + width]) for i in range(0, len(ordered), width)]
    reflected = sorted((-x, -y) for x, y in rows(points))
    hoods = [exact.upper_hull(reflected[i : i + width]) for i in range(0, len(reflected), width)]
    return [[(-x, -y) for x, y in reversed(hood)] for hood in reversed(hoods)]


@pytest.mark.parametrize("family", ["gaussian", "parabola", "duplicates", "collinear", "equal_x_columns", "huge"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
def test_trace_gives_every_rounds_hoods(family, dtype, upper, rng):
    for n in (1, 2, 5, 33):
        points = families.ALL[family](n, rng, dtype)
        traced = wagener.trace(points, upper=upper)
        assert rows(traced.hull) == rows(wagener.convex_hull(points, upper=upper))
        assert traced.hull.dtype == dtype and traced.points.dtype == dtype
        chains = [r.chain for r in traced]
        assert chains == sorted(chains, key=["upper", "lower"].index) and set(chains) == ({"upper"} if upper else {"upper", "lower"})
        for r in traced:
            assert r.block_width == 2**r.round and r.corners.dtype == dtype and r.bridges.dtype == dtype
            assert r.hood_sizes.sum() == len(r.corners) and len(r.bridge_hoods) == len(r.bridges)
            hoods = [rows(r.hood(k)) for k in range(len(r.hood_sizes))]
            assert hoods == expected_hoods(points, r.chain, r.block_width), (family, n, r.chain, r.round)
            for k, (a, b) in zip(r.bridge_hoods, r.bridges):
                hood = hoods[k]  # the merged hood runs over its bridge: a, then b
                assert (tuple(map(float, a)), tuple(map(float, b))) in zip(hood, hood[1:])


def page_data(page):
    return json.loads(re.search(r'<script type="application/json" id="wagener-rounds">(.*?)</script>', page, re.S)[1])


def floats(text):
    return np.frombuffer(base64.b64decode(text), dtype="<f4")


def test_page_holds_the_rounds(rng):
    points = families.gaussian(200, rng, np.float64)
    traced = wagener.trace(points)
    page = traced.html(title="two hundred <points>")
    assert page.startswith("<!DOCTYPE html>") and "<title>two hundred &lt;points&gt;</title>" in page
    assert not re.search(r"\b(src|href)=|https?:", page)
    data = page_data(page)
    assert data["points"] == 200 and data["closed"] is True and data["hullVertices"] == len(traced.hull)
    assert [(r["chain"], r["round"], r["corners"]) for r in data["rounds"]] == [
        (r.chain, r.round, len(r.corners)) for r in traced
    ]
    x0, y0, x1, y1 = data["view"]
    for r, d in zip(traced, data["rounds"]):
        if r.round == 0:
            assert d["drawn"] == "points"
            continue
        assert d["drawn"] == "hoods"
        uv = floats(d["xy"]).reshape(-1, 2)
        np.testing.assert_allclose(uv[:, 0], ((r.corners[:, 0] - x0) / (x1 - x0)).astype(np.float32), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(uv[:, 1], ((r.corners[:, 1] - y0) / (y1 - y0)).astype(np.float32), rtol=1e-6, atol=1e-7)
        assert np.array_equal(np.frombuffer(base64.b64decode(d["sizes"]), dtype="<u4"), r.hood_sizes)
    assert len(floats(data["dots"])) == 400


def test_page_budget_raster_and_upper_hull(rng):
    points = families.uniform_disk(5000, rng, np.float32)
    data = page_data(wagener.trace(points, upper=True).html(max_dots=1000, max_corners=800))
    assert "dots" not in data and base64.b64decode(data["density"]["png"])[:8] == b"\x89PNG\r\n\x1a\n"
    assert data["closed"] is False and data["precision"] == "float"
    drawn = [r["corners"] for r in data["rounds"] if r["drawn"] == "hoods"]
    assert sum(drawn) + data["hullVertices"] <= 800 and any(r["drawn"] == "counts" for r in data["rounds"])


def test_notebook_repr_is_the_page_in_a_frame(rng):
    traced = wagener.trace(families.gaussian(20, rng, np.float64))
    frame = traced._repr_html_()
    source = re.fullmatch(r'<iframe srcdoc="([^"]*)".*</iframe>', frame, re.S)
    assert source and html.unescape(source[1]) == traced.html()
    assert "20 points" in repr(traced) and len(traced) == len(traced.rounds)


def test_save_writes_the_page_or_nothing(tmp_path, rng):
    traced = wagener.trace(families.gaussian(10, rng, np.float64))
    traced.save(tmp_path / "rounds.html")
    assert (tmp_path / "rounds.html").read_text(encoding="utf-8") == traced.html()
    with pytest.raises(OSError):
        traced.save(tmp_path / "missing" / "rounds.html")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rounds.html"]


def test_trace_refuses_what_it_cannot_show():
    with pytest.raises(wagener.UnsupportedError):
        wagener.trace([[0, 0], [1, 1], [2, 0]], backend="cpu")
    with pytest.raises(ValueError, match="point 1"):  # as convex_hull names it
        wagener.trace([[0, 0], [np.nan, 1]])
    with pytest.raises(ValueError):
        wagener.trace(np.zeros((3, 3)))
    bad = wagener.Round("upper", 1, 2, np.zeros((2, 2)), np.array([1, 2]), np.zeros(0, np.int64), np.zeros((0, 2, 2)))
    rounds = wagener.trace([[0, 0], [1, 1], [2, 0]])
    rounds.rounds = [bad]
    with pytest.raises(ValueError, match="sum"):
        rounds.html()
    rounds.rounds = [bad._replace(chain="middle")]
    with pytest.raises(ValueError, match="chain"):
        rounds.html()


def test_convex_hull_draws_itself_as_svg(rng):
    points = families.gaussian(300, rng, np.float64)
    hull = wagener.ConvexHull(points)
    svg = hull._repr_svg_()
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    path = root.find(".//{http://www.w3.org/2000/svg}g[@id='hull']/{http://www.w3.org/2000/svg}path")
    assert path is not None and len(re.findall(r"[ML]", path.get("d"))) == hull.nsimplex
    assert f"300 points, hull of {hull.nsimplex} vertices" in svg
    many = wagener.ConvexHull(families.uniform_disk(50_000, rng, np.float64))._repr_svg_()
    assert many.count("<image") == 1  # a density raster beyond 20000 points


@pytest.mark.cuda
@pytest.mark.parametrize("dtype", DTYPES)
def test_cuda_trace_is_the_prams(dtype, rng):
    if not wagener.cuda_available():
        pytest.skip("no CUDA device")
    points = families.gaussian(3000, rng, dtype)
    on_gpu, on_pram = wagener.trace(points, backend="cuda"), wagener.trace(points, backend="pram")
    assert len(on_gpu) == len(on_pram)
    for a, b in zip(on_gpu, on_pram):
        assert a.chain == b.chain and a.round == b.round
        for x, y in zip(a[3:], b[3:]):
            assert np.array_equal(x, y)
    assert on_gpu.html() == on_pram.html()
