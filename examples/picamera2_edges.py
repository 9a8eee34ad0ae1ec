#!/usr/bin/python3
"""Live edges from the Raspberry Pi camera module through picamera2 and striate.

    examples/picamera2_edges.py [OUT.png] [--frames N] [--size WxH] [--chain CHAIN] [--backend B]

picamera2 captures YUV420 frames into numpy arrays (height x 3/2 rows, planar); striate.Filter
reads their luma in place (layout="yuv420") and filters them on the board's GPU or the cpu
(backend="auto"). It prints the backend and the frames per second, and writes the last frame's
edges to OUT (default edges.png).

picamera2 is not in Debian: it comes with Raspberry Pi OS (`sudo apt install python3-picamera2`
there), so this script runs only where it is installed, with a camera module attached. Elsewhere
it says so and exits with status 2; examples/gst_contact_sheet.py runs anywhere.
"""
import argparse
import sys
import time

import striate


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", default="edges.png")
    parser.add_argument("--frames", type=int, default=100)
    parser.add_argument("--size", default="640x480")
    parser.add_argument("--chain", default="edges")
    parser.add_argument("--backend", default="auto")
    a = parser.parse_args()
    try:
        from picamera2 import Picamera2
    except ImportError as e:
        print(f"picamera2_edges.py: picamera2 is not installed ({e}); it is not in Debian: on Raspberry Pi OS "
              "`sudo apt install python3-picamera2`. examples/gst_contact_sheet.py runs without it.", file=sys.stderr)
        sys.exit(2)
    width, height = (int(v) for v in a.size.split("x"))
    f = striate.Filter(a.chain, backend=a.backend)
    camera = Picamera2()
    camera.configure(camera.create_video_configuration(main={"size": (width, height), "format": "YUV420"}))
    camera.start()
    try:
        start = time.perf_counter()
        for _ in range(a.frames):
            edges = f(camera.capture_array("main"), layout="yuv420")
        seconds = time.perf_counter() - start
    finally:
        camera.stop()
    striate.write_gray(a.out, edges)
    print(f"{f.chain}: {f.active_backend}, {a.frames / seconds:.1f} frames/s at {width}x{height} (capture included)")
    print(f"last frame's output: {a.out}")


if __name__ == "__main__":
    main()
