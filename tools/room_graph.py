#!/usr/bin/env python3
"""room_graph.py [--check] [ROOT]: the harness's rooms and what each includes.

Reads the #include "..." lines of every source and header under harness/ROOM/,
samplers/, distributions/ and kernels/, maps each included header to the part
it lives in, and prints one line per part: the parts it depends on. The parts
are ordered from the bottom up (ORDER below); a part may depend only on parts
below it. --check exits 1, naming the file and the include, for any arrow
that points up or sideways into a part above, and when the graph that
docs/design.md shows under "Room dependencies" is not this script's output.
"""
import os
import re
import sys

# bottom first: the public contract (samplers/sv_sampler.h and the
# engines' grids it includes, sv_engine_rng.h: installed together, needing
# nothing), the kernels, the cases, the samplers, then the harness's rooms in
# the order harness/CMakeLists.txt links them
ORDER = ["contract", "kernels", "distributions", "samplers", "base", "sandbox", "stats", "store", "run", "check",
         "report", "plot", "bench", "sweep", "cli"]
SOURCES = (".c", ".h", ".cu", ".cuh", ".cpp")


def part_of(path):
    """The part a repository path belongs to, or None."""
    if path in ("samplers/sv_sampler.h", "samplers/sv_engine_rng.h"):
        return "contract"
    parts = path.split("/")
    if parts[0] == "harness" and len(parts) > 2:
        return parts[1]
    if parts[0] in ("samplers", "distributions", "kernels"):
        return parts[0]
    return None


def files(root):
    for top in ("harness", "samplers", "distributions", "kernels"):
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                if n.endswith(SOURCES):
                    yield os.path.relpath(os.path.join(d, n), root)


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    all_files = sorted(files(root))
    home = {}  # header name -> its part
    for f in all_files:
        if f.endswith((".h", ".cuh")) and part_of(f):
            home.setdefault(os.path.basename(f), part_of(f))
    edges, bad = {}, []
    for f in all_files:
        src = part_of(f)
        if src is None or src not in ORDER:
            continue
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            for line_no, line in enumerate(fh, 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                dst = home.get(os.path.basename(m.group(1)))
                if dst is None or dst == src:
                    continue
                edges.setdefault(src, set()).add(dst)
                if dst not in ORDER or ORDER.index(dst) > ORDER.index(src):
                    bad.append(f"{f}:{line_no}: {src} includes {m.group(1)} of {dst}, "
                               f"which is above it")
    width = max(len(p) for p in ORDER)
    lines = []
    for p in reversed(ORDER):
        below = sorted(edges.get(p, ()), key=ORDER.index, reverse=True)
        lines.append(f"{p:>{width}} -> {', '.join(below) if below else '(nothing)'}")
    print("\n".join(lines))
    for b in bad:
        print("UPWARD: " + b, file=sys.stderr)
    stale = check and not shown_in_design(root, lines)
    if stale:
        print("STALE: docs/design.md's 'Room dependencies' graph is not the one above; "
              "paste this output there", file=sys.stderr)
    return 1 if check and (bad or stale) else 0


def shown_in_design(root, lines):
    """Whether docs/design.md's graph block is exactly these lines."""
    with open(os.path.join(root, "docs", "design.md"), encoding="utf-8") as fh:
        text = fh.read()
    section = text.split("### Room dependencies", 1)[-1]
    m = re.search(r"```output\n(.*?)```", section, re.S)
    return bool(m) and m.group(1).rstrip("\n").split("\n") == lines


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
