#!/usr/bin/env bash
# The README's main job: live edge detection. The source is the camera (libcamerasrc) when one
# is present, otherwise striatesrc, the synthetic camera. Frames go through striateedges and,
# on a second branch, striategabor (6-orientation energy); each branch writes a WebM clip and a
# PNG snapshot (the last second's frame) into the output folder. It prints the backend that ran
# and the frames per second.
# Usage: scripts/run.sh [OUTDIR]   (environment: FRAMES=150, SIZE=640x480, FPS=30, BACKEND: see below)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/deps.sh"
if [ ! -f "$root/build/lib/libgststriate.so" ] || [ ! -x "$root/build/bin/striate" ]; then
  cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRIATE_WITH_GST=ON >/dev/null
  ninja -C "$root/build" gststriate striate
fi
out=$(realpath -m "${1:-$root/out}")
frames=${FRAMES:-150}
size=${SIZE:-640x480}
fps=${FPS:-30}
width=${size%x*}
height=${size#*x}
mkdir -p "$out"
rm -f "$out"/edges-*.png "$out"/gabor-*.png
export GST_PLUGIN_PATH="$root/build/lib"
export GST_REGISTRY="$root/build/gst-registry.bin"

# A camera if libcamera finds one (it answers "no camera" in milliseconds when there is none).
if gst-inspect-1.0 libcamerasrc >/dev/null 2>&1 &&
   timeout 10 gst-launch-1.0 -q libcamerasrc num-buffers=1 ! fakesink >/dev/null 2>&1; then
  source="libcamerasrc num-buffers=$frames"
  echo "source: camera (libcamerasrc)"
else
  source="striatesrc num-buffers=$frames scene=shapes"
  echo "source: striatesrc (no camera found), live at $fps fps"
fi

# The backend: BACKEND if set, else auto: the board's GPU, or the cpu backend where the GPU is a
# software renderer (Mesa llvmpipe on a machine without a GPU runs on the same cores, several
# times slower); `striate probe` says which and why.
backend=${BACKEND:-auto}
"$root/build/bin/striate" probe 2>/dev/null | grep "^auto backend:" || true

caps="video/x-raw,format=NV12,width=$width,height=$height,framerate=$fps/1"
clip() {  # a branch's clip and snapshot
  echo "tee name=$1 \
    $1. ! queue ! videoconvert ! vp8enc deadline=1 cpu-used=16 threads=2 ! webmmux ! filesink location=$out/$1.webm \
    $1. ! queue leaky=downstream ! videorate drop-only=true ! video/x-raw,framerate=1/1 ! pngenc compression-level=1 \
         ! multifilesink location=$out/$1-%04d.png max-files=1"
}
start=$(date +%s.%N)
# shellcheck disable=SC2046
gst-launch-1.0 -e -v $source ! "$caps" ! tee name=camera \
  camera. ! queue ! striateedges name=edger backend=$backend ! $(clip edges) \
  camera. ! queue ! striategabor name=gaborer backend=$backend orientations=6 wavelength=8 sigma=4 gain=4 ! $(clip gabor) \
  > "$out/pipeline.log" 2>&1 || { tail -20 "$out/pipeline.log"; exit 1; }
end=$(date +%s.%N)

backend=$(grep -o 'GstStriateEdges:edger: active-backend = .*' "$out/pipeline.log" | tail -1 | sed 's/.*= //')
for f in "$out"/edges-*.png; do [ -e "$f" ] && mv "$f" "$out/edges.png"; done
for f in "$out"/gabor-*.png; do [ -e "$f" ] && mv "$f" "$out/gabor.png"; done
awk -v n="$frames" -v s="$start" -v e="$end" -v b="${backend:-unknown}" -v o="$out" 'BEGIN {
  printf "backend: %s\nprocessed %d frames in %.2f s: %.1f frames per second (edges and Gabor, clips encoded)\n", b, n, e - s, n / (e - s);
  printf "wrote %s/edges.webm, %s/edges.png, %s/gabor.webm, %s/gabor.png\n", o, o, o, o }'
