#!/usr/bin/env bash
# The README's main job. Until the GStreamer plugin lands (live edge detection from a camera or
# striatesrc), it runs `striate filter` on a real photo: a Gabor magnitude and an edge map.
# Usage: scripts/run.sh [IMAGE] [OUTDIR]   (defaults: scikit-image's camera photo, ./out)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/deps.sh"
if [ ! -x "$root/build/bin/striate" ]; then
  cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  ninja -C "$root/build" striate
fi
photo=${1:-/usr/lib/python3/dist-packages/skimage/data/camera.png}
out=${2:-$root/out}
mkdir -p "$out"
striate="$root/build/bin/striate"
"$striate" filter "$photo" "$out/gabor.png" --raw "$out/gabor.npy" --explain \
  --chain "gabor sigma=4 wavelength=8 orientations=6 gain=4"
"$striate" filter "$photo" "$out/edges.png" --explain --chain "edges sigma=1.4"
echo "wrote $out/gabor.png (Gabor energy, 6 orientations), $out/gabor.npy and $out/edges.png (Canny)"
