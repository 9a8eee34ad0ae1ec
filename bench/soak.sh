#!/usr/bin/env bash
# The soak benchmark: every filter element on every backend for FRAMES frames (default 10^5) at a
# small size (SIZE, default 64x48), striatesrc ! element ! appsink in one process per run
# (bench/soak.cpp), sampling the resident size and the GL objects alive every 1000 frames. Writes
# OUT/<element>-<backend>.csv, OUT/soak.svg (the curves) and OUT/summary.md (resident size and GL
# objects after warm-up (frame 10000) and at the end). Runs JOBS (default: the cores) at a time.
#   bench/soak.sh [OUT]      (after a build: build/bin/striate-soak, build/lib)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/soak}
frames=${FRAMES:-100000}
size=${SIZE:-64x48}
jobs=${JOBS:-$(nproc)}
mkdir -p "$out"
export GST_PLUGIN_PATH=$PWD/build/lib
[ -x build/bin/striate-soak ] || { echo "soak: build first (ninja -C build striate-soak)"; exit 2; }
runs=()
for backend in cpu gles-compute gles-fragment; do
  for element in striateblur striategabor striateedges; do runs+=("$element $backend"); done
done
printf '%s\n' "${runs[@]}" | xargs -P "$jobs" -L 1 bash -c \
  'build/bin/striate-soak --element "$0" --backend "$1" --size '"$size"' --frames '"$frames"' --every 1000 \
     >"'"$out"'/$0-$1.csv" 2>"'"$out"'/$0-$1.log" || echo "soak: $0 on $1 failed: $(cat "'"$out"'/$0-$1.log")"'
python3 - "$out" "$frames" "$size" <<'PY'
import csv, glob, os, sys
out, frames, size = sys.argv[1], int(sys.argv[2]), sys.argv[3]
runs = {}
for path in sorted(glob.glob(os.path.join(out, "*.csv"))):
    rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(open(path))]
    if rows:
        runs[os.path.basename(path)[:-4]] = rows
warm = min(10000, frames // 10)
lines = [f"{frames} frames at {size} each, one process per run; warm-up: the first {warm} frames.", "",
         "| element | backend | frames | fps | resident kB after warm-up | at the end | growth kB | GL objects after warm-up | at the end | most |",
         "|---|---|---|---|---|---|---|---|---|---|"]
for name, rows in runs.items():
    element, backend = name.split("-", 1)
    w = next((r for r in rows if r["frame"] >= warm), rows[-1])
    end = rows[-1]
    fps = end["frame"] / end["seconds"] if end["seconds"] > 0 else 0
    lines.append(f"| {element} | {backend} | {int(end['frame'])} | {fps:.0f} | {int(w['rss_kb'])} | {int(end['rss_kb'])} | "
                 f"{int(end['rss_kb'] - w['rss_kb']):+d} | {int(w['gl_objects'])} | {int(end['gl_objects'])} | "
                 f"{int(max(r['gl_objects'] for r in rows))} |")
open(os.path.join(out, "summary.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
# The curves: resident size (MB) against frames, one panel per run.
W, H, cols = 300, 140, 3
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{cols * (W + 20)}" height="{((len(runs) + cols - 1) // cols) * (H + 40)}" font-family="sans-serif" font-size="11">']
for i, (name, rows) in enumerate(runs.items()):
    x0, y0 = (i % cols) * (W + 20) + 10, (i // cols) * (H + 40) + 20
    top = max(r["rss_kb"] for r in rows) * 1.1 / 1024
    pts = " ".join(f"{x0 + W * r['frame'] / frames:.1f},{y0 + H - H * (r['rss_kb'] / 1024) / top:.1f}" for r in rows)
    svg += [f'<text x="{x0}" y="{y0 - 5}">{name}: resident MB (0..{top:.0f}) over {frames} frames</text>',
            f'<rect x="{x0}" y="{y0}" width="{W}" height="{H}" fill="none" stroke="#999"/>',
            f'<polyline points="{pts}" fill="none" stroke="#4477aa" stroke-width="1.5"/>']
svg.append("</svg>")
open(os.path.join(out, "soak.svg"), "w").write("\n".join(svg) + "\n")
PY
