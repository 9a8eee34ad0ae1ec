#!/usr/bin/env python3
"""board/estimates.tsv, the table `auto` follows on a Pi (board/estimates.h, docs/boards.md "GPU or
cores: what `auto` follows"), from the two estimates' TSV files:

    scripts/pi_passes.py build-aarch64 SYSROOT PI_GPU --tsv gpu.tsv > docs/pi-passes.md
    scripts/cpu_estimate.py build-aarch64 SYSROOT PLUGIN_DIR --tsv cpu.tsv
    scripts/estimates.py gpu.tsv cpu.tsv > board/estimates.tsv

--markdown prints the same as docs/boards.md's tables instead (a table per size; the cpu file may
hold armhf rows too, from the armhf build's cpu_estimate.py --tsv, appended): how the example
catalogue's table there is made.

One row per board, chain, size and backend: the estimated ms of a frame. The GPU rows are the
compilers' model (scripts/pi_passes.py), the cpu rows the arm64 build on the board's four cores
(scripts/cpu_estimate.py). Boards only where both exist.
"""
import csv
import sys


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f, delimiter="\t"))


def markdown(gpu, cpu):
    """A table per size: each board and chain's GPU backends, the cpu (arm64 and, where the file
    has them, armhf rows) and which is lower."""
    ms = {}
    for r in gpu:
        ms[(r["board"], r["chain"], r["size"], r["backend"])] = float(r["ms"])
    for r in cpu:
        ms[(r["board"], r["chain"], r["size"], "cpu " + r["arch"])] = float(r["ms"])
    sizes = sorted({k[2] for k in ms}, key=lambda s: tuple(map(int, s.split("x"))))
    boards = sorted({k[0] for k in ms})
    chains = list(dict.fromkeys(r["chain"] for r in gpu))
    cell = lambda k: "%.1f" % ms[k] if k in ms else "—"
    for size in sizes:
        print("%s, ms a frame (estimates):" % size)
        print()
        print("| board | chain | gles-compute | gles-fragment | cpu, arm64 | cpu, armhf | lower (best GPU / cpu) |")
        print("|---|---|---|---|---|---|---|")
        for board in boards:
            for chain in chains:
                gpus = [ms[(board, chain, size, b)] for b in ("gles-compute", "gles-fragment") if (board, chain, size, b) in ms]
                arm64 = ms.get((board, chain, size, "cpu arm64"))
                if not gpus or arm64 is None:
                    continue
                lower = "cpu" if arm64 < min(gpus) else "GPU"
                print("| %s | `%s` | %s | %s | %s | %s | %s (%.1fx) |" % (
                    board, chain, cell((board, chain, size, "gles-compute")), cell((board, chain, size, "gles-fragment")),
                    cell((board, chain, size, "cpu arm64")), cell((board, chain, size, "cpu armhf")), lower,
                    min(gpus) / arm64))
        print()


def main():
    args = sys.argv[1:]
    as_markdown = "--markdown" in args
    if as_markdown:
        args.remove("--markdown")
    if len(args) != 2:
        raise SystemExit("usage: scripts/estimates.py [--markdown] GPU.tsv CPU.tsv > board/estimates.tsv")
    gpu, cpu = rows(args[0]), rows(args[1])
    if as_markdown:
        return markdown(gpu, cpu)
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
