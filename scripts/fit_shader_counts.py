#!/usr/bin/env python3
"""scripts/fit_shader_counts.py REPORT.tsv [...]: the instruction fit of each board's GpuSpeed.

The gles-fragment planner estimates a plan on a board (gles/fragment/plan_cost.h) before any
driver has compiled it, so it needs the driver's instruction count of a shader from what the
generator counted as it wrote the code (ShaderCost: vector operations and fetches). The boards'
QPUs are scalar per pixel, so a vector operation on a quad plane's four pixels (RGBA32F texels,
"on quads"; "four rows per fragment": a QuadRows target, sixteen pixels a fragment) costs more
instructions than one on a pixel's value. This fits, per compiler,

    instructions = base + (perAlu + quad x quadAlu + rows x rowsAlu) x ALU
                        + (perFetch + quad x quadFetch + rows x rowsFetch) x fetches

by least squares of the relative error over the distinct fragment shaders of scripts/
pi_compilers.sh's reports (vc4.tsv, v3d42.tsv, v3d71.tsv: the conformance matrix's shaders with
the real compiler's count and the planner's cost), and prints the coefficients for
board/profile.cpp with how far the shaders are from them.

    c=~/.cache/striate
    bash scripts/pi_compilers.sh build-aarch64 $c/sysroot-arm64 $c/pi-gpu /tmp/pi vc4 v3d42 v3d71
    /usr/bin/python3 scripts/fit_shader_counts.py /tmp/pi/vc4.tsv /tmp/pi/v3d42.tsv /tmp/pi/v3d71.tsv

(The test command keeps those reports under ~/.cache/striate/pi-results.)
"""
import csv
import re
import sys

COST = re.compile(r"(\d+) ALU, (\d+) fetches")
NAMES = ["base", "perAlu", "perFetch", "quadAlu", "quadFetch", "rowsAlu", "rowsFetch"]


def shaders(path):
    """(features, instructions, name) of each distinct gles-fragment shader with both counts."""
    seen = set()
    with open(path, newline="") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            m = COST.search(r.get("planned") or "")
            inst = int(r["instructions"])
            name = r["pass"]
            if r["backend"] != "gles-fragment" or not m or inst <= 0 or name in seen:
                continue
            seen.add(name)
            alu, fetches = int(m.group(1)), int(m.group(2))
            quad = "on quads" in name or name.startswith("quad.")
            rows = "four rows per fragment" in name
            yield [1, alu, fetches, alu * quad, fetches * quad, alu * rows, fetches * rows], inst, name


def solve(a, b):
    """x with a x = b (Gaussian elimination with partial pivoting); 0 for an empty column."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        if abs(m[c][c]) < 1e-9:
            continue
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] if abs(m[i][i]) >= 1e-9 else 0.0 for i in range(n)]


def fit(samples):
    """Least squares of (predicted - counted) / counted."""
    k = len(samples[0][0])
    w = [(x, y, 1.0 / y) for x, y, _ in samples]
    ata = [[sum(wt * wt * x[i] * x[j] for x, _, wt in w) for j in range(k)] for i in range(k)]
    aty = [sum(wt * wt * x[i] * y for x, y, wt in w) for i in range(k)]
    return solve(ata, aty)


def main(paths):
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    for path in paths:
        samples = list(shaders(path))
        if len(samples) < len(NAMES):
            print("%s: %d fragment shaders with counts, too few to fit" % (path, len(samples)), file=sys.stderr)
            return 1
        c = fit(samples)
        errors = sorted(sum(ci * xi for ci, xi in zip(c, x)) / y - 1 for x, y, _ in samples)
        within = lambda t: 100.0 * sum(1 for e in errors if abs(e) <= t) / len(errors)
        print("%s: %d distinct fragment shaders (%d on quads): %s" % (
            path, len(samples), sum(1 for x, _, _ in samples if x[3] or x[4]),
            ", ".join(".%s = %.2f" % (n, v) for n, v in zip(NAMES, c))))
        print("  each shader's fit against its count: median %+.0f%%, within 10%%: %.0f%%, within 25%%: %.0f%%, range %+.0f%% to %+.0f%%" % (
            100 * errors[len(errors) // 2], within(0.10), within(0.25), 100 * errors[0], 100 * errors[-1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
