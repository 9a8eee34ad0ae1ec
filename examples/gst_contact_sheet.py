#!/usr/bin/python3
"""Frames from GStreamer's appsink, filtered with striate, written as a PNG contact sheet.

    examples/gst_contact_sheet.py OUT.png [--source SOURCE] [--frames N] [--size WxH]
                                          [--chain CHAIN ...] [--backend B]

SOURCE is the start of a GStreamer pipeline: `striatesrc scene=photo motion=true` (the default:
Striate's synthetic camera), `libcamerasrc` (the Raspberry Pi camera module), `v4l2src` (a USB
webcam) or any other. Its frames are converted to GRAY8 at SIZE, pulled from an appsink and handed
to striate.Filter as numpy views of the mapped buffers (row padding included: read in place, no
copy). The sheet has one row per kept frame (every FRAMES/ROWS-th) and one column for the input
and each chain. It prints the backend and the frames per second of each chain.

Needs python3-gi, gir1.2-gstreamer-1.0 and gir1.2-gst-plugins-base-1.0 (apt) beside python3-striate.
"""
import argparse
import sys
import time

import numpy as np

import striate

try:
    import gi

    gi.require_version("Gst", "1.0")
    gi.require_version("GstVideo", "1.0")
    from gi.repository import Gst, GstVideo
except (ImportError, ValueError) as e:
    sys.exit(f"gst_contact_sheet.py: needs PyGObject and GStreamer's introspection data "
             f"(apt install python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0): {e}")


def frames(source, width, height, count):
    """Yields (index, luma view) for `count` frames; each view is valid until the next one."""
    pipeline = Gst.parse_launch(
        f"{source} ! videoconvert ! videoscale ! video/x-raw,format=GRAY8,width={width},height={height} "
        f"! appsink name=sink max-buffers=4 sync=false emit-signals=false")
    sink = pipeline.get_by_name("sink")
    if pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
        sys.exit(f"gst_contact_sheet.py: the pipeline '{source} ! ...' does not start")
    try:
        for index in range(count):
            sample = sink.emit("try-pull-sample", 10 * Gst.SECOND)
            if sample is None:
                bus = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
                why = bus.parse_error()[0].message if bus else "end of stream"
                sys.exit(f"gst_contact_sheet.py: no frame {index} from '{source}': {why}")
            info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
            buffer = sample.get_buffer()
            ok, mapped = buffer.map(Gst.MapFlags.READ)
            if not ok:
                sys.exit("gst_contact_sheet.py: cannot map a frame")
            try:
                # GRAY8 rows are padded to 4 bytes: a strided view of the mapped memory.
                data = np.frombuffer(mapped.data, dtype=np.uint8)
                yield index, np.lib.stride_tricks.as_strided(
                    data, shape=(info.height, info.width), strides=(info.stride[0], 1), writeable=False)
            finally:
                buffer.unmap(mapped)
    finally:
        pipeline.set_state(Gst.State.NULL)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="the contact sheet (.png or .pgm)")
    parser.add_argument("--source", default="striatesrc scene=photo motion=true")
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--rows", type=int, default=4)
    parser.add_argument("--size", default="320x240")
    parser.add_argument("--chain", action="append", help="repeatable; default: edges, a 6-orientation Gabor energy")
    parser.add_argument("--backend", default="auto")
    a = parser.parse_args()
    width, height = (int(v) for v in a.size.split("x"))
    chains = a.chain or ["edges", "gabor sigma=3 wavelength=8 orientations=6 gain=4"]
    Gst.init(None)
    filters = [striate.Filter(chain, backend=a.backend) for chain in chains]
    keep = max(1, a.frames // a.rows)
    gap = 4
    columns = 1 + len(filters)
    sheet = np.full((a.rows * (height + gap) - gap, columns * (width + gap) - gap), 255, dtype=np.uint8)
    seconds = [0.0] * len(filters)
    row = 0
    for index, luma in frames(a.source, width, height, a.frames):
        for k, f in enumerate(filters):
            start = time.perf_counter()
            out = f(luma)
            seconds[k] += time.perf_counter() - start
            if index % keep == 0 and row < a.rows:
                y, x = row * (height + gap), (k + 1) * (width + gap)
                sheet[y:y + height, x:x + width] = out
        if index % keep == 0 and row < a.rows:
            sheet[row * (height + gap):row * (height + gap) + height, :width] = luma
            row += 1
    striate.write_gray(a.out, sheet[: row * (height + gap) - gap])
    for f, s in zip(filters, seconds):
        print(f"{f.chain}: {f.active_backend}, {a.frames / s:.1f} frames/s ({a.frames} frames at {width}x{height})")
    print(f"contact sheet: {a.out} ({row} frames x {columns} columns: input, {', '.join(chains)})")


if __name__ == "__main__":
    main()
