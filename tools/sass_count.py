#!/usr/bin/env python3
"""sass_count.py SASS RANGE [RANGE ...]: instructions in address ranges of a
tools/sass.sh listing, in all and by opcode.

A RANGE is START-END in hex, END excluded (1a20-1f30). A path through a
loop is the ranges it runs through: e.g. cuda_fused's race round where no
lane has a live token runs from the loop head to the early exit's VOTE and
branch, skipping the one-hot block, then the loop's back edge. Reading the
listing (branch targets are absolute) gives the ranges; the count is then
what one warp issues on that path, the number to compare across changes."""
import re
import sys


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    line = re.compile(r"\s+/\*([0-9a-f]+)\*/\s+(.*?)\s*;")
    listing = []
    with open(argv[1]) as f:
        for text in f:
            m = line.match(text)
            if m:
                listing.append((int(m.group(1), 16), m.group(2)))
    total, by_op = 0, {}
    for r in argv[2:]:
        try:
            lo, hi = (int(x, 16) for x in r.split("-"))
        except ValueError:
            print(f"sass_count.py: range {r!r} is not START-END in hex", file=sys.stderr)
            return 2
        for addr, ins in listing:
            if lo <= addr < hi:
                total += 1
                op = re.sub(r"^@!?U?P\w+\s+", "", ins).split()[0].split(".")[0]
                by_op[op] = by_op.get(op, 0) + 1
    print(total, "instructions:", ", ".join(f"{op} {n}" for op, n in
                                          sorted(by_op.items(), key=lambda kv: (-kv[1], kv[0]))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
