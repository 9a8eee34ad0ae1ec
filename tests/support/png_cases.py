#!/usr/bin/env python3
"""Writes PNG files that hold the same stored values as in.pgm / in.ppm in every way PNG can
(16-bit, gAMA, alpha, palette, 1-bit, Adam7 interlace), and ones whose headers claim huge sizes,
for tests/tools/cli_test.sh. A reader that returns the stored values gives each PNG the same
output as its Netpbm twin. Usage: png_cases.py DIR (DIR holds in.pgm and in.ppm)."""
import os
import struct
import sys
import zlib


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(path, width, height, depth, colour, rows, extra=b"", interlace=False, palette=None):
    """rows: one list of samples per row (channels interleaved); packed by depth."""
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]

    def pack(samples):
        if depth == 16:
            return b"".join(struct.pack(">H", v) for v in samples)
        if depth == 8:
            return bytes(samples)
        out, acc, bits = bytearray(), 0, 0
        for v in samples:
            acc, bits = (acc << depth) | v, bits + depth
            if bits == 8:
                out.append(acc)
                acc, bits = 0, 0
        if bits:
            out.append(acc << (8 - bits))
        return bytes(out)

    raw = b""
    if interlace:  # Adam7: seven sub-images, each row with its own filter byte
        for x0, y0, dx, dy in ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)):
            for y in range(y0, height, dy):
                xs = range(x0, width, dx)
                if xs:
                    raw += b"\0" + pack([s for x in xs for s in rows[y][x * channels:(x + 1) * channels]])
    else:
        raw = b"".join(b"\0" + pack(r) for r in rows)
    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 1 if interlace else 0)
    body = chunk(b"IHDR", ihdr) + extra
    if palette:
        body += chunk(b"PLTE", b"".join(bytes(c) for c in palette))
    body += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + body)


def netpbm(path):
    data = open(path, "rb").read()
    fields, pos = [], 2
    while len(fields) < 3:
        while data[pos:pos + 1].isspace() or data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1 if data[pos:pos + 1] == b"#" else pos + 1
        end = pos
        while data[end:end + 1].isdigit():
            end += 1
        fields.append(int(data[pos:end]))
        pos = end
    w, h, _ = fields
    return w, h, data[pos + 1:]


os.chdir(sys.argv[1])
w, h, grey = netpbm("in.pgm")
_, _, rgb = netpbm("in.ppm")
grey_rows = [list(grey[y * w:(y + 1) * w]) for y in range(h)]
rgb_rows = [list(rgb[y * w * 3:(y + 1) * w * 3]) for y in range(h)]

# 16-bit grey holding v * 257, the exact 16-bit form of v (12850 = 50 / 255 of the range).
png("grey16.png", w, h, 16, 0, [[v * 257 for v in r] for r in grey_rows])
# 16-bit grey with values between the exact ones, and its PGM twin (maxval 65535).
odd = [[(v * 257 + 97 * x) % 65536 for x, v in enumerate(r)] for r in grey_rows]
png("grey16odd.png", w, h, 16, 0, odd)
open("grey16odd.pgm", "wb").write(b"P5\n%d %d\n65535\n" % (w, h) + b"".join(struct.pack(">H", v) for r in odd for v in r))
# gAMA 1.0: the stored values are the values (no gamma transform).
png("gamma.png", w, h, 8, 0, grey_rows, extra=chunk(b"gAMA", struct.pack(">I", 100000)))
# RGBA with alpha 0 everywhere: alpha is ignored, not composited.
png("rgba.png", w, h, 8, 6, [[s for x in range(w) for s in r[3 * x:3 * x + 3] + [0]] for r in rgb_rows])
# 16-bit grey + alpha.
png("greya16.png", w, h, 16, 4, [[s for v in r for s in (v * 257, 0)] for r in grey_rows])
# Palette: one entry per colour of in.ppm.
colours = sorted({tuple(r[3 * x:3 * x + 3]) for r in rgb_rows for x in range(w)})
index = {c: i for i, c in enumerate(colours)}
png("palette.png", w, h, 8, 3, [[index[tuple(r[3 * x:3 * x + 3])] for x in range(w)] for r in rgb_rows], palette=colours)
# Adam7 interlace, grey and RGB.
png("interlaced.png", w, h, 8, 0, grey_rows, interlace=True)
png("interlaced_rgb.png", w, h, 8, 2, rgb_rows, interlace=True)
# 1-bit grey and its PGM twin (maxval 1).
bits = [[1 if v > 128 else 0 for v in r] for r in grey_rows]
png("bits.png", w, h, 1, 0, bits)
open("bits.pgm", "wb").write(b"P5\n%d %d\n1\n" % (w, h) + bytes(v for r in bits for v in r))

# Headers that claim more than the data: 32768 x 32768 (1 Gpx), 8-bit grey and 16-bit RGB.
png("huge.png", 32768, 32768, 8, 0, [[0]])
png("huge_rgb16.png", 32768, 32768, 16, 2, [[0, 0, 0]])
open("huge.ppm", "wb").write(b"P6\n32768 32768\n255\n")
open("digits.pgm", "wb").write(b"P5\n12345678901234567890 2\n255\n")
