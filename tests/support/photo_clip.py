#!/usr/bin/python3
"""photo_clip.py OUT.yuv WIDTH HEIGHT FRAMES: a raw I420 clip of a real photograph, a slow pan and
zoom across scikit-image's astronaut.png (Eileen Collins, NASA; public domain), from Debian's
python3-skimage. Deterministic: the same bytes on every machine."""
import sys

import numpy as np
from skimage import data

out, w, h, frames = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rgb = data.astronaut().astype(np.float64)
luma = np.clip(np.rint(0.299 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2]), 0, 255)
src_h, src_w = luma.shape
with open(out, "wb") as f:
    for i in range(frames):
        t = i / max(frames - 1, 1)
        scale = 1.0 - 0.15 * t  # zoom in by 15% over the clip
        cw, ch = src_w * scale, src_w * scale * h / w
        x0, y0 = (src_w - cw) * t, (src_h - ch) * (0.2 + 0.3 * t)
        xs = np.clip((x0 + (np.arange(w) + 0.5) * cw / w).astype(int), 0, src_w - 1)
        ys = np.clip((y0 + (np.arange(h) + 0.5) * ch / h).astype(int), 0, src_h - 1)
        f.write(luma[np.ix_(ys, xs)].astype(np.uint8).tobytes())
        f.write(np.full(((h + 1) // 2) * ((w + 1) // 2) * 2, 128, np.uint8).tobytes())
