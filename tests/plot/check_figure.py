#!/usr/bin/python3
"""check_figure.py FIGURE.svg [--series N] [--intervals [M]] [--integer-x]

What can be checked of a gnuplot figure without looking at it (issue 39):
its PNG and PDF beside the SVG (each starting with its format's magic), N
legend entries (gnuplot puts a titled series' key text inside the series'
group, gnuplot_plot_I), every text inside the canvas (its width estimated
from the font size, rotated labels upright), interval bars drawn (vertical
segments in as many series' paths as there are legend entries, or in M:
a series whose every interval has zero width draws none), and integer tick labels on the x axis
(the numeric labels that share the lowest baseline of the tick labels).
Prints one line per failure; exit 1 on any, 0 when all hold."""
import re
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
NUMBER = re.compile(r"^-?[0-9.]+(e[-+]?[0-9]+)?$")


def texts(root):
    """(text, x, y, anchor, font size, rotation, inside a series) per <text>."""
    out = []

    def walk(node, x, y, anchor, size, rot, series):
        tag = node.tag.replace(SVG, "")
        if tag == "g":
            m = re.search(r"translate\(([-0-9.]+),([-0-9.]+)\)", node.get("transform", ""))
            if m:
                x, y = float(m.group(1)), float(m.group(2))
            r = re.search(r"rotate\(([-0-9.]+)\)", node.get("transform", ""))
            if r:
                rot = float(r.group(1))
            anchor = node.get("text-anchor", anchor)
            size = float(node.get("font-size", size))
            series = series or (node.get("id") or "").startswith("gnuplot_plot_")
        if tag == "text":
            out.append(("".join(node.itertext()).strip(), x, y, anchor, size, rot, series))
            return
        for child in node:
            walk(child, x, y, anchor, size, rot, series)

    walk(root, 0.0, 0.0, "start", 11.0, 0.0, False)
    return out


def vertical_segments(group):
    n = 0
    for path in group.iter(SVG + "path"):
        for m in re.finditer(r"M([-0-9.]+),([-0-9.]+) L([-0-9.]+),([-0-9.]+)", path.get("d", "")):
            x1, y1, x2, y2 = map(float, m.groups())
            n += abs(x1 - x2) < 0.01 and abs(y1 - y2) > 0.01
    return n


def main(argv):
    path = argv[1]
    series = int(argv[argv.index("--series") + 1]) if "--series" in argv else None
    failures = []
    stem = path[:-4]
    for ext, magic in (("png", b"\x89PNG"), ("pdf", b"%PDF")):
        try:
            with open(f"{stem}.{ext}", "rb") as f:
                if f.read(4) != magic:
                    failures.append(f"{stem}.{ext} does not start with {magic!r}")
        except OSError as e:
            failures.append(f"no {ext} beside the svg: {e}")
    root = ET.parse(path).getroot()
    width, height = float(root.get("width")), float(root.get("height"))
    all_texts = texts(root)
    for text, x, y, anchor, size, rot, _ in all_texts:
        if not text:
            continue
        w, h = 0.55 * size * len(text), size  # a generous estimate of Arial's width
        left = {"start": x, "middle": x - w / 2, "end": x - w}[anchor]
        box = (left, y - h, left + w, y) if rot % 180 == 0 else (x - h, y - w / 2, x, y + w / 2)
        if box[0] < -1 or box[1] < -1 or box[2] > width + 1 or box[3] > height + 1:
            failures.append(f"text {text!r} at ({x:.0f}, {y:.0f}) leaves the {width:.0f}x{height:.0f} canvas")
    groups = [g for g in root.iter(SVG + "g") if (g.get("id") or "").startswith("gnuplot_plot_")]
    titled = [g for g in groups if any("".join(t.itertext()).strip() for t in g.iter(SVG + "text"))]
    if series is not None and len(titled) != series:
        names = ["".join(t.itertext()).strip() for g in titled for t in g.iter(SVG + "text")]
        failures.append(f"{len(titled)} legend entries, expected {series}: {names}")
    if "--intervals" in argv:
        # as many series with bars as legend entries (bench draws its bars
        # in an upper panel, its legend in the lower)
        at = argv.index("--intervals") + 1
        want = int(argv[at]) if at < len(argv) and argv[at].isdigit() else max(1, len(titled))
        barred = [g for g in groups if vertical_segments(g) > 0]
        if len(barred) < want:
            failures.append(f"interval bars in {len(barred)} series, expected {want}")
    if "--integer-x" in argv:
        ticks = [t for t in all_texts if not t[6] and t[3] == "middle" and t[5] == 0 and NUMBER.match(t[0])]
        base = max((t[2] for t in ticks), default=None)
        xs = [t[0] for t in ticks if base is not None and abs(t[2] - base) < 0.5]
        if not xs or any(not re.match(r"^-?[0-9]+$", v) for v in xs):
            failures.append(f"x tick labels not all integers: {xs}")
    for f in failures:
        print(f"FAIL {path}: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
