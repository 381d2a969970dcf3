#!/usr/bin/env python3
"""A screenshot of a rounds page at one step, as headless Chromium shows it (for docs/img/).

Usage: screenshot.py PAGE.html OUT.png [--step K] [--size WIDTHxHEIGHT]
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import devtools  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page")
    parser.add_argument("out")
    parser.add_argument("--step", type=int, default=0, help="the step shown (0: the first round)")
    parser.add_argument("--size", default="1200x720", help="the window, in CSS pixels")
    args = parser.parse_args()
    width, height = map(int, args.size.split("x"))
    with devtools.Browser() as browser:
        page = browser.open("file://" + os.path.abspath(args.page), width, height)
        page.evaluate(f"(() => {{ const s = document.getElementById('step'); s.value = '{args.step}';"
                      " s.dispatchEvent(new Event('input')); })()")
        page.wait_for(f"document.body.dataset.drawnStep === '{args.step}' && document.body.dataset.raster !== ''")
        if page.errors:
            print("\n".join(page.errors), file=sys.stderr)
            return 1
        png = page.screenshot()
    with open(args.out, "wb") as f:
        f.write(png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
