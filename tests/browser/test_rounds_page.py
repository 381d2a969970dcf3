#!/usr/bin/env python3
"""The rounds page (`wagener hull --trace FILE.html`) in a real browser: headless Chromium loads each
test page with no console error and no request beyond the page itself; the arrow keys, the buttons,
the slider and the wheel change what the canvas shows (its pixels and the body's data-* state); a
screenshot of each page is not blank. The rounds shown are the trace's (read from the JSON trace of
the same input).

Usage: test_rounds_page.py WAGENER [--notebook] [--keep DIR]
  --notebook  also the page as a notebook shows it: wagener.trace(...)._repr_html_() (an iframe),
              with the wagener package importable (PYTHONPATH)
  --keep DIR  keep the pages and screenshots in DIR
Exits 77 (skipped) when chromium or python3-websocket is missing; ends with "N passed, N failed".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import traceback

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "render"))

try:
    import devtools
except ImportError as missing:  # python3-websocket
    print(f"SKIPPED: {missing} (scripts/setup.sh installs python3-websocket)")
    sys.exit(77)
from pixels import read_png

passed = failed = 0


def check(ok: bool, what: str) -> bool:
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {what}")
    return ok


# What the canvas shows, condensed: a hash of its pixels and counts of pixels by colour family.
CANVAS = """(() => {
  const c = document.getElementById('plot');
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let hash = 2166136261, red = 0, blue = 0, ink = 0;
  for (let i = 0; i < d.length; i += 4) {
    hash = Math.imul(hash ^ d[i] ^ (d[i + 1] << 8) ^ (d[i + 2] << 16), 16777619);
    const [r, g, b] = [d[i], d[i + 1], d[i + 2]];
    if (r > 170 && g < 90 && b < 90) ++red;
    if (b > 140 && r < 80 && g < 130) ++blue;
    if (r < 240 || g < 240 || b < 240) ++ink;
  }
  const s = document.body.dataset;
  return {hash: hash >>> 0, red, blue, ink, step: Number(s.step), drawnStep: s.drawnStep, chain: s.chain,
          round: s.round, drawn: s.drawn, raster: s.raster};
})()"""

DATA = "JSON.parse(document.getElementById('wagener-rounds').textContent)"


def canvas(page: devtools.Page, step: int | None = None) -> dict:
    if step is not None:  # the canvas shows that step (and the raster, if any, is drawn)
        page.wait_for(f"document.body.dataset.drawnStep === '{step}' && document.body.dataset.raster !== ''")
    return page.evaluate(CANVAS)


def not_blank(png: bytes, name: str) -> None:
    width, height, pixel = read_png_bytes(png)
    colours, inked = set(), 0
    for y in range(0, height, 2):
        for x in range(0, width, 2):
            p = pixel(x, y)
            colours.add(p)
            inked += p != (255, 255, 255)
    samples = ((width + 1) // 2) * ((height + 1) // 2)
    check(inked > samples // 100 and len(colours) >= 4,
          f"{name}: the screenshot looks blank ({inked} of {samples} samples inked, {len(colours)} colours)")


def read_png_bytes(png: bytes):
    with tempfile.NamedTemporaryFile(suffix=".png") as f:
        f.write(png)
        f.flush()
        return read_png(f.name)


def clean(page: devtools.Page, name: str, url: str) -> None:
    check(not page.errors, f"{name}: console errors {page.errors}")
    others = [u for u in page.requests() if u != url and not u.startswith("data:")]
    check(not others, f"{name}: the page asked for {others}")


def wagener(*args: str) -> None:
    subprocess.run([WAGENER, *args], check=True, stdout=subprocess.DEVNULL)


def shoot(page: devtools.Page, name: str) -> None:
    """Checks a screenshot of the page, keeps it with --keep, and closes the page."""
    png = page.screenshot(scale=0.25)
    not_blank(png, name)
    if KEEP:
        with open(os.path.join(KEEP, name + ".png"), "wb") as f:
            f.write(page.screenshot())
    page.close()


def test_steps_through_every_round(browser: devtools.Browser, folder: str) -> None:
    """Eight points, full hull, pram: every step is one round of the trace, in order, then the hull."""
    points = os.path.join(folder, "eight.txt")
    with open(points, "w") as f:
        f.write("0 0\n1 2\n2 1\n3 3\n4 0\n5 2\n6 1\n7 4\n")
    page_file = os.path.join(folder, "eight.html")
    wagener("hull", points, "--backend", "pram", "--trace", page_file)
    wagener("hull", points, "--backend", "pram", "--trace", os.path.join(folder, "eight.json"))
    with open(os.path.join(folder, "eight.json")) as f:
        trace = json.load(f)["rounds"]
    url = "file://" + page_file
    page = browser.open(url)
    name = "eight points"

    states = [canvas(page, 0)]
    check(states[0]["chain"] == "upper" and states[0]["round"] == "0", f"{name}: starts at upper round 0: {states[0]}")
    for step in range(1, len(trace) + 1):
        page.press("ArrowRight")
        states.append(canvas(page, step))
    for step, (r, state) in enumerate(zip(trace, states)):
        check(state["step"] == step and state["chain"] == r["chain"] and state["round"] == str(r["round"]),
              f"{name}: step {step} shows {state['chain']} round {state['round']}, the trace has {r['chain']} {r['round']}")
        check(state["hash"] != states[step - 1]["hash"] if step else True, f"{name}: step {step} draws what step {step - 1} drew")
        # A round that found bridges shows them in red; round 0 shows no red at all.
        check((state["red"] > 0) == bool(r["bridges"]),
              f"{name}: step {step} ({r['chain']} round {r['round']}, {len(r['bridges'])} bridges) has {state['red']} red pixels")
        check(r["round"] == 0 or state["blue"] > 0, f"{name}: step {step} draws no hood")
    final = states[-1]
    check(final["drawn"] == "hull" and final["red"] > 0 and final["hash"] != states[-2]["hash"],
          f"{name}: the last step is not the hull: {final}")

    page.press("ArrowRight")  # past the end: stays
    check(canvas(page, len(trace))["step"] == len(trace), f"{name}: stepping past the hull moved")
    page.press("Home")
    check(canvas(page, 0)["hash"] == states[0]["hash"], f"{name}: Home does not redraw the first step as it was")
    page.press("End")
    check(canvas(page, len(trace))["hash"] == final["hash"], f"{name}: End does not show the hull")
    page.press("ArrowLeft")
    check(canvas(page, len(trace) - 1)["hash"] == states[-2]["hash"], f"{name}: ArrowLeft does not go back")
    page.evaluate("document.getElementById('first').click()")
    page.evaluate("document.getElementById('on').click()")
    check(canvas(page, 1)["hash"] == states[1]["hash"], f"{name}: the buttons do not step")
    page.evaluate("(() => { const s = document.getElementById('step'); s.value = '3';"
                  " s.dispatchEvent(new Event('input')); })()")
    check(canvas(page, 3)["hash"] == states[3]["hash"], f"{name}: the slider does not step")

    # Zoom in with the wheel at the plot's centre, then 0 shows everything again.
    box = page.evaluate("(() => { const r = document.getElementById('plot').getBoundingClientRect();"
                        " return [r.left + r.width / 2, r.top + r.height / 2]; })()")
    page.wheel(box[0], box[1], -400)
    check(page.wait_for(f"{CANVAS}.hash !== {states[3]['hash']}"), f"{name}: the wheel does not zoom")
    page.press("0")
    check(page.wait_for(f"{CANVAS}.hash === {states[3]['hash']}"), f"{name}: 0 does not show everything again")
    clean(page, name, url)
    shoot(page, "eight")


def test_upper_hull_and_any_file_name(browser: devtools.Browser, folder: str) -> None:
    """--trace-format html writes a page whatever the name; an upper hull has no lower rounds."""
    points = os.path.join(folder, "parabola.txt")
    wagener("generate", "--distribution", "parabola", "-n", "100", "--seed", "3", "-o", points)
    written = os.path.join(folder, "parabola.trace")
    wagener("hull", points, "--upper", "--trace", written, "--trace-format", "html")
    page_file = os.path.join(folder, "parabola.html")  # a browser takes a file for HTML by its name
    os.rename(written, page_file)
    url = "file://" + page_file
    page = browser.open(url)
    name = "upper hull"
    data = page.evaluate(DATA)
    check(data["closed"] is False and {r["chain"] for r in data["rounds"]} == {"upper"},
          f"{name}: chains {sorted({r['chain'] for r in data['rounds']})}, closed {data['closed']}")
    first = canvas(page, 0)
    page.press("End")
    last = canvas(page, len(data["rounds"]))
    check(last["drawn"] == "hull" and last["red"] > 0 and last["hash"] != first["hash"], f"{name}: the hull step {last}")
    clean(page, name, "file://" + page_file)
    shoot(page, "upper")


def test_many_points_become_a_raster(browser: devtools.Browser, folder: str) -> None:
    """Beyond max_dots the points are a density raster (a PNG in the page), and the hoods' corners on
    the page stay within max_corners."""
    points = os.path.join(folder, "many.f64")
    wagener("generate", "--distribution", "disk", "-n", "150000", "--format", "f64", "-o", points)
    page_file = os.path.join(folder, "many.html")
    wagener("hull", points, "--trace", page_file)
    url = "file://" + page_file
    page = browser.open(url)
    name = "150000 points"
    data = page.evaluate(DATA)
    check("dots" not in data and data["density"]["png"].startswith("iVBORw0KGgo"), f"{name}: no density raster")
    drawn = sum(r["corners"] for r in data["rounds"] if r["drawn"] == "hoods") + data["hullVertices"]
    check(drawn <= data["maxCorners"], f"{name}: {drawn} corners drawn, more than {data['maxCorners']}")
    check(any(r["drawn"] == "counts" for r in data["rounds"]), f"{name}: every round drawn: the budget is not used")
    first = canvas(page, 0)
    check(first["raster"] == "drawn" and first["ink"] > 1000, f"{name}: the raster is not drawn: {first}")
    check(page.evaluate("!document.getElementById('notice').hidden"), f"{name}: no notice of the raster")
    upper_last = max(i for i, r in enumerate(data["rounds"]) if r["chain"] == "upper")
    page.evaluate(f"(() => {{ const s = document.getElementById('step'); s.value = '{upper_last}';"
                  " s.dispatchEvent(new Event('input')); })()")
    top = canvas(page, upper_last)
    check(top["blue"] > 0 and top["hash"] != first["hash"], f"{name}: the last upper round draws no hood")
    clean(page, name, url)
    shoot(page, "many")


def test_degenerate_inputs(browser: devtools.Browser, folder: str) -> None:
    """No points, one point repeated, a vertical line, coordinates near 1e300: pages that load and step."""
    inputs = {
        "empty": "",
        "repeated": "2 3\n2 3\n2 3\n",
        "vertical": "1 0\n1 5\n1 2\n1 9\n1 2\n",
        "huge": "-1e300 -1e300\n1e300 1e300\n1e300 -1e300\n0 5e299\n-1.5e300 0\n",
    }
    for name, text in inputs.items():
        points = os.path.join(folder, name + ".txt")
        with open(points, "w") as f:
            f.write(text)
        page_file = os.path.join(folder, name + ".html")
        wagener("hull", points, "--trace", page_file)
        url = "file://" + page_file
        page = browser.open(url)
        data = page.evaluate(DATA)
        state = canvas(page, 0)
        page.press("End")
        end = canvas(page, len(data["rounds"]))
        check(end["drawn"] == "hull" and (state["step"] == 0), f"{name}: {state} then {end}")
        check(name == "empty" or end["red"] > 0, f"{name}: the hull is not drawn")
        clean(page, name, url)
        shoot(page, name)


def test_notebook_frame(browser: devtools.Browser, folder: str) -> None:
    """wagener.trace(...)._repr_html_(): the same page in an iframe, as a notebook shows it."""
    import numpy as np
    import wagener as wg

    rounds = wg.trace(np.random.default_rng(7).normal(size=(64, 2)))
    page_file = os.path.join(folder, "notebook.html")
    with open(page_file, "w") as f:
        f.write(f"<!DOCTYPE html><html><body><p>Out[1]:</p>{rounds._repr_html_()}</body></html>")
    url = "file://" + page_file
    page = browser.open(url)
    name = "notebook"
    frames = []
    for _ in range(100):
        frames = page.frames()
        if frames:
            break
        browser.pump(0.05)
    if not check(bool(frames), f"{name}: no frame"):
        return
    frame = frames[-1]
    first = canvas(frame, 0)
    frame.evaluate("document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight'}))")
    second = canvas(frame, 1)
    check(second["step"] == 1 and second["hash"] != first["hash"], f"{name}: the key does not step: {first} {second}")
    check(frame.evaluate(f"{DATA}.rounds.length") == len(rounds), f"{name}: the frame's rounds are not the trace's")
    clean(page, name, url)
    shoot(page, name)


def main() -> int:
    global WAGENER, KEEP
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    WAGENER = os.path.abspath(args[0])
    KEEP = args[args.index("--keep") + 1] if "--keep" in args else None
    if devtools.find_chromium() is None:
        print("SKIPPED: chromium is missing (scripts/setup.sh installs it)")
        return 77
    tests = [test_steps_through_every_round, test_upper_hull_and_any_file_name, test_many_points_become_a_raster,
             test_degenerate_inputs]
    if "--notebook" in args:
        tests = [test_notebook_frame]
    with tempfile.TemporaryDirectory() as folder, devtools.Browser() as browser:
        for test in tests:
            try:
                start = time.monotonic()
                test(browser, folder)
                print(f"{test.__name__}: {time.monotonic() - start:.1f} s")
            except Exception:  # noqa: BLE001 - one test's failure is reported and the others still run
                check(False, f"{test.__name__} raised:\n{traceback.format_exc()}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
