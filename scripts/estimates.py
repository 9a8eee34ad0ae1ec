#!/usr/bin/env python3
"""board/estimates.tsv, the table `auto` follows on a Pi (board/estimates.h, docs/boards.md "GPU or
cores: what `auto` follows"), from the two estimates' TSV files:

    scripts/pi_passes.py build-aarch64 SYSROOT PI_GPU --tsv gpu.tsv > docs/pi-passes.md
    scripts/cpu_estimate.py build-aarch64 SYSROOT PLUGIN_DIR --tsv cpu.tsv
    scripts/estimates.py gpu.tsv cpu.tsv > board/estimates.tsv

One row per board, chain, size and backend: the estimated ms of a frame. The GPU rows are the
compilers' model (scripts/pi_passes.py), the cpu rows the arm64 build on the board's four cores
(scripts/cpu_estimate.py). Boards only where both exist.
"""
import csv
import sys


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f, delimiter="\t"))


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: scripts/estimates.py GPU.tsv CPU.tsv > board/estimates.tsv")
    gpu, cpu = rows(sys.argv[1]), rows(sys.argv[2])
    cpu = [r for r in cpu if r["arch"] == "arm64"]
    boards = sorted({r["board"] for r in gpu} & {r["board"] for r in cpu})
    print("# Estimated ms of a frame of each main chain, per board and backend: made by scripts/estimates.py")
    print("# (its docstring has the commands) from scripts/pi_passes.py (GPU: the Pi's real compilers'")
    print("# instruction counts, the boards' published clocks) and scripts/cpu_estimate.py (cpu: the arm64")
    print("# build's instructions counted under qemu-user, the cores' clocks, an assumed IPC). Estimates,")
    print("# not measurements; docs/boards.md lists them and their constants. board/CMakeLists.txt compiles")
    print("# the rows into board/estimates.cpp.")
    print("board\tchain\tsize\tbackend\tms\tsource")
    for board in boards:
        for r in gpu:
            if r["board"] == board:
                print("%s\t%s\t%s\t%s\t%s\tscripts/pi_passes.py" % (board, r["chain"], r["size"], r["backend"], r["ms"]))
        for r in cpu:
            if r["board"] == board:
                print("%s\t%s\t%s\tcpu\t%s\tscripts/cpu_estimate.py" % (board, r["chain"], r["size"], r["ms"]))


if __name__ == "__main__":
    main()
