#!/usr/bin/env python3
"""scripts/planner_choices.py BUILD > docs/planner-choices.md: the forms gles-fragment's planner
chooses on each Pi board by the board's estimate (gles/fragment/plan_cost.h), with each
alternative's estimate and memory, for the main chains and the example catalogue (every stage's
example chains in core/params.cpp, which `striate selftest` runs) at three sizes.

BUILD is a host build (its bin/striate). `striate probe --board B --chain C --size S` makes the
plan on this machine's GLES context (llvmpipe) under the board's profile; the choice itself is
made without a GL call, from the board's figures. Estimates, not measurements.
"""
import os
import re
import subprocess
import sys

MAIN = ["edges", "gabor sigma=4 wavelength=8 orientations=6", "blur sigma=2", "blur sigma=8", "threshold"]
BOARDS = ["rpi3", "rpi4", "rpi5"]
SIZES = ["640x480", "1280x720", "1920x1080"]
CHOSEN = re.compile(r"forms chosen by the board's estimate \(not a measurement\): (.*?): ([\d.]+ ms), ([\d.]+ \w+)"
                    r"(?:; the alternatives: (.*)|; no alternative differs)$")


def catalogue(root):
    text = open(os.path.join(root, "core", "params.cpp")).read()
    found = sorted(set(re.findall(r'"((?:blur|gabor|edges|threshold)(?: [a-z-]+=[^" ]+)+)"', text)))
    return [c for c in found if c not in MAIN]


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    build = sys.argv[1]
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    env = dict(os.environ, GALLIUM_DRIVER=os.environ.get("GALLIUM_DRIVER", "llvmpipe"))
    chains = MAIN + catalogue(root)
    same, rows = [], []
    for board in BOARDS:
        for chain in chains:
            for size in SIZES:
                out = subprocess.run([os.path.join(build, "bin", "striate"), "probe", "--board", board, "--chain", chain,
                                      "--size", size], env=env, capture_output=True, text=True).stdout
                m = next((CHOSEN.search(l.strip()) for l in out.splitlines() if "forms chosen" in l), None)
                if not m:
                    rows.append("| %s | `%s` | %s | no gles-fragment plan here | | |" % (board, chain, size))
                    continue
                forms, ms, mem, others = m.groups()
                if others:
                    rows.append("| %s | `%s` | %s | %s | %s, %s | %s |" % (board, chain, size, forms, ms, mem, others))
                else:
                    same.append("%s `%s` %s (%s, %s)" % (board, chain, size, ms, mem))
    print("| board | chain | size | chosen forms | estimate, GPU memory | the alternatives (estimate, GPU memory) |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    print("Where every alternative plans the same draws (the chain has no use for the forms):")
    print()
    print("; ".join(same) + ".")
    return 0


if __name__ == "__main__":
    sys.exit(main())
