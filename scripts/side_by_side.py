#!/usr/bin/python3
"""The main job's picture: its three snapshots side by side, each labelled.

    side_by_side.py OUT.png LABEL=IN.png...   (the last "=" separates the label from the file)

Each input is converted to grey and scaled to the first one's height; a bar above each holds its
label. Needs python3-pil (scripts/deps.sh)."""
import sys

from PIL import Image, ImageDraw, ImageFont


def main(args):
    if len(args) < 2 or any("=" not in a for a in args[1:]):
        sys.exit(__doc__)
    panels = [(label, Image.open(path).convert("L")) for label, path in (a.rsplit("=", 1) for a in args[1:])]
    height = panels[0][1].height
    panels = [(label, im.resize((max(1, im.width * height // im.height), height))) for label, im in panels]
    font = ImageFont.load_default()
    bar, gap = 16, 4
    out = Image.new("L", (sum(im.width for _, im in panels) + gap * (len(panels) - 1), height + bar), 32)
    draw = ImageDraw.Draw(out)
    x = 0
    for label, im in panels:
        out.paste(im, (x, bar))
        draw.text((x + 4, 2), label, fill=255, font=font)
        x += im.width + gap
    out.save(args[0])


if __name__ == "__main__":
    main(sys.argv[1:])
