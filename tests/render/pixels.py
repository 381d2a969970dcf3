#!/usr/bin/env python3
"""Checks colours at data points of a rendered wagener picture (standard library only).

Usage: pixels.py PICTURE.svg IMAGE.png X0 Y0 X1 Y1 CHECK...
  X0 Y0 X1 Y1  the input's bounding box (the picture pads it by 4% on each side, docs/formats.md)
  CHECK        red:X,Y  (a hull edge passes within 2 pixels of the data point X,Y)
               white:X,Y (the pixel at X,Y is background)
The plot frame is read from the SVG (the first path of the group "axes"); a PNG rendered from the
PostScript at 72 dpi has the same pixel geometry, so the same SVG locates it.
"""
import re
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and interlace == 0 and colour in (0, 2, 4, 6), "unsupported PNG"
            channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
        elif kind == b"IDAT":
            idat += body
    raw, stride = zlib.decompress(idat), width * channels
    rows, prev, at = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line

    def pixel(x, y):
        px = rows[y][x * channels:(x + 1) * channels]
        if channels in (1, 2):
            rgb = (px[0],) * 3
        else:
            rgb = tuple(px[:3])
        alpha = px[-1] if channels in (2, 4) else 255
        # composite on white, as a viewer would
        return tuple((v * alpha + 255 * (255 - alpha)) // 255 for v in rgb)

    return width, height, pixel


def main():
    svg, png = sys.argv[1], sys.argv[2]
    x0, y0, x1, y1 = map(float, sys.argv[3:7])
    text = open(svg).read()
    axes = re.search(r'<g id="axes">\s*<path [^>]*d="M([-\d.]+) ([-\d.]+)L([-\d.]+) ([-\d.]+)L([-\d.]+) ([-\d.]+)', text)
    assert axes, "no plot frame in the SVG"
    left, top, right, bottom = float(axes[1]), float(axes[2]), float(axes[5]), float(axes[6])
    hx, hy = (x1 - x0) / 2, (y1 - y0) / 2
    cx, cy = x0 + hx, y0 + hy
    vx0, vx1, vy0, vy1 = cx - hx * 1.08, cx + hx * 1.08, cy - hy * 1.08, cy + hy * 1.08
    width, height, pixel = read_png(png)
    failures = 0
    for check in sys.argv[7:]:
        kind, where = check.split(":")
        x, y = map(float, where.split(","))
        px = round(left + (x - vx0) / (vx1 - vx0) * (right - left))
        py = round(top + (vy1 - y) / (vy1 - vy0) * (bottom - top))
        if kind == "red":
            near = [pixel(i, j) for i in range(px - 2, px + 3) for j in range(py - 2, py + 3)
                    if 0 <= i < width and 0 <= j < height]
            ok = any(r > 150 and g < 110 and b < 110 for r, g, b in near)
        else:
            ok = pixel(px, py) == (255, 255, 255)
        if not ok:
            failures += 1
            print(f"{png}: expected {kind} at data ({x}, {y}) = pixel ({px}, {py}), got {pixel(px, py)}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
