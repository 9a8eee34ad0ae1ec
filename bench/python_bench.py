#!/usr/bin/python3
"""striate from Python against OpenCV from Python, on the same frame, alternating in one run.

    bench/python_bench.py [--size 1920x1080] [--threads 2] [--rounds 7] [--repeat 5] [--backend cpu]
                          [--photo FILE] [--json FILE]

Rows (issue 30; docs/performance-history.md):
  - Filter("edges")(frame)        against cv2.GaussianBlur(sigma 1.4) + cv2.Canny (L2 gradient,
                                  thresholds in its 3x3 Sobel units: 8 * 255 times ours, as
                                  striate-bench does)
  - Filter("blur sigma=2")(frame) against cv2.GaussianBlur(sigma 2, BORDER_REPLICATE)
  - the per-call overhead at 64x48: a Python call of Filter("blur sigma=2") (a new output array
    each call) less the same frame run from C++ alone (Filter._native_seconds), in microseconds.
Each round times ours then theirs (median of REPEAT calls each), so both see the same load; a row
prints the median over rounds of each and of ours / theirs. Both use THREADS threads
(cv2.setNumThreads). Run it with the module on PYTHONPATH (a build: build/python).
"""
import argparse
import json
import statistics
import time

import cv2
import numpy as np

import striate


def median_seconds(call, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--photo", default="/usr/lib/python3/dist-packages/skimage/data/motorcycle_left.png")
    parser.add_argument("--overhead-calls", type=int, default=20000)
    parser.add_argument("--json")
    a = parser.parse_args()
    width, height = (int(v) for v in a.size.split("x"))
    cv2.setNumThreads(a.threads)
    photo = striate.read_luma(a.photo)
    frame = cv2.resize(photo, (width, height), interpolation=cv2.INTER_AREA)
    scale = 8 * 255.0
    edges = striate.Filter("edges", backend=a.backend, threads=a.threads)
    blur = striate.Filter("blur sigma=2", backend=a.backend, threads=a.threads)
    rows = [
        ("edges", lambda: edges(frame), "GaussianBlur + Canny L2",
         lambda: cv2.Canny(cv2.GaussianBlur(frame, (0, 0), 1.4, borderType=cv2.BORDER_REPLICATE),
                           0.02 * scale, 0.05 * scale, apertureSize=3, L2gradient=True)),
        ("blur sigma=2", lambda: blur(frame), "GaussianBlur",
         lambda: cv2.GaussianBlur(frame, (0, 0), 2.0, borderType=cv2.BORDER_REPLICATE)),
    ]
    for _, ours, _, theirs in rows:  # warm: configure, first-touch the planes
        ours()
        theirs()
    results = {name: ([], []) for name, _, _, _ in rows}
    for _ in range(a.rounds):
        for name, ours, _, theirs in rows:
            results[name][0].append(median_seconds(ours, a.repeat))
            results[name][1].append(median_seconds(theirs, a.repeat))

    small = np.ascontiguousarray(cv2.resize(photo, (64, 48), interpolation=cv2.INTER_AREA))
    tiny = striate.Filter("blur sigma=2", backend=a.backend, threads=a.threads)
    tiny(small)
    overheads = []
    for _ in range(a.rounds):
        start = time.perf_counter()
        for _ in range(a.overhead_calls):
            tiny(small)
        python_call = (time.perf_counter() - start) / a.overhead_calls
        overheads.append((python_call, tiny._native_seconds(small, a.overhead_calls)))

    print(f"python_bench: {width}x{height}, {a.threads} threads each, backend {edges.active_backend}, "
          f"{a.rounds} rounds x {a.repeat} calls, striate {striate.__version__}, OpenCV {cv2.__version__}")
    print(f"{'ours':<16} {'theirs':<26} {'ours ms':>9} {'theirs ms':>10} {'ratio':>7}")
    report = {"size": f"{width}x{height}", "threads": a.threads, "backend": edges.active_backend, "rows": []}
    for name, _, peer, _ in rows:
        ours, theirs = results[name]
        ratio = statistics.median(o / t for o, t in zip(ours, theirs))
        print(f"{name:<16} {peer:<26} {statistics.median(ours) * 1e3:9.2f} {statistics.median(theirs) * 1e3:10.2f} {ratio:7.2f}")
        report["rows"].append({"ours": name, "theirs": peer, "ours_ms": statistics.median(ours) * 1e3,
                               "theirs_ms": statistics.median(theirs) * 1e3, "ratio": ratio})
    python_call = statistics.median(p for p, _ in overheads)
    native = statistics.median(n for _, n in overheads)
    overhead = statistics.median(p - n for p, n in overheads)
    print(f"per-call overhead at 64x48 (blur sigma=2): Python call {python_call * 1e6:.1f} us, C++ alone "
          f"{native * 1e6:.1f} us, overhead {overhead * 1e6:.1f} us")
    report["overhead_us"] = overhead * 1e6
    report["python_call_us"] = python_call * 1e6
    report["native_us"] = native * 1e6
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
