#!/usr/bin/env bash
# The README's main job: live edge detection. The source (scripts/source.sh): libcamerasrc when
# libcamera finds a camera, else the first V4L2 capture device (a USB webcam: the mode nearest
# SIZE and FPS it offers, MJPEG through jpegdec when that is all), else striatesrc, the synthetic
# camera; SOURCE=libcamera|v4l2|synthetic|FILE forces one (FILE: a clip, decoded with decodebin).
# Frames go through striateedges and, on a second branch, striategabor (6-orientation energy);
# each branch writes a WebM clip and a PNG snapshot (the last second's frame) into the output
# folder, beside the input's snapshot and side-by-side.png (input | edges | Gabor energy,
# labelled). It prints the source, the negotiated caps, the backend that ran and the frames per
# second of each branch.
# Usage: scripts/run.sh [OUTDIR]   (environment: FRAMES=150, SIZE=640x480, FPS=30, SOURCE=auto,
#        BACKEND: see below, STRIATE_BUILD: the build folder, default build/)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/deps.sh"
build=$(realpath -m "${STRIATE_BUILD:-$root/build}")
if [ ! -f "$build/lib/libgststriate.so" ] || [ ! -x "$build/bin/striate" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRIATE_WITH_GST=ON >/dev/null
  ninja -C "$build" gststriate striate
fi
out=$(realpath -m "${1:-$root/out}")
frames=${FRAMES:-150}
size=${SIZE:-640x480}
fps=${FPS:-30}
width=${size%x*}
height=${size#*x}
mkdir -p "$out"
rm -f "$out"/edges-*.png "$out"/gabor-*.png "$out"/input-*.png
export GST_PLUGIN_PATH="$build/lib"
export GST_REGISTRY="$build/gst-registry.bin"

# shellcheck source=scripts/source.sh
. "$root/scripts/source.sh"
choose_source "${SOURCE:-auto}" "$frames" "$width" "$height" "$fps" || exit 2
echo "source: $label"

# The backend: BACKEND if set, else auto: the board's GPU, or the cpu backend where the GPU is a
# software renderer (Mesa llvmpipe on a machine without a GPU runs on the same cores, several
# times slower); `striate probe` says which and why.
backend=${BACKEND:-auto}
"$build/bin/striate" probe 2>/dev/null | grep "^auto backend:" || true

snapshot() {  # the last second's frame of a branch as NAME.png
  echo "queue leaky=downstream ! videorate drop-only=true ! video/x-raw,framerate=1/1 ! videoconvert ! pngenc compression-level=1 \
    ! multifilesink location=$out/$1-%04d.png max-files=1"
}
clip() {  # a branch's clip and snapshot
  echo "tee name=$1 \
    $1. ! queue ! videoconvert ! vp8enc deadline=1 cpu-used=16 threads=2 ! webmmux ! filesink location=$out/$1.webm \
    $1. ! $(snapshot "$1")"
}
start=$(date +%s.%N)
# shellcheck disable=SC2046,SC2086
# The frames are counted before the tee (gst-launch -v prints every buffer of one thread; counters
# in several threads lose and repeat lines). The tee gives every frame to every branch (no leaky
# queue before the filters), so each branch's rate is the pipeline's.
gst-launch-1.0 -e -v $source ! identity name=frames silent=false$counter_limit ! tee name=camera \
  camera. ! $(snapshot input) \
  camera. ! queue ! striateedges name=edger backend=$backend ! $(clip edges) \
  camera. ! queue ! striategabor name=gaborer backend=$backend orientations=6 wavelength=8 sigma=4 gain=4 ! $(clip gabor) \
  > "$out/pipeline.log" 2>&1 || { tail -20 "$out/pipeline.log"; exit 1; }
end=$(date +%s.%N)

backend=$(grep -o 'GstStriateEdges:edger: active-backend = .*' "$out/pipeline.log" | tail -1 | sed 's/.*= //' || true)
# The caps the camera negotiated, and the frames through it. Both are read at the counter before
# the tee: gst-launch -v's caps lines from the branches' threads can be lost or printed twice when
# two threads notify at once (the edges branch's lines were missing from one CI run's log).
echo "caps: $(grep -o 'frames.GstPad:src: caps = .*' "$out/pipeline.log" | head -1 | sed 's/.*caps = //' || true)"
frames=$(grep -c "frames: last-message = chain" "$out/pipeline.log" || true)
for name in input edges gabor; do
  for f in "$out/$name"-*.png; do [ -e "$f" ] && mv "$f" "$out/$name.png"; done
done
/usr/bin/python3 "$root/scripts/side_by_side.py" "$out/side-by-side.png" "input: ${label%% (*}=$out/input.png" \
  "striateedges ($backend)=$out/edges.png" "striategabor, 6 orientations ($backend)=$out/gabor.png"
awk -v n="$frames" -v s="$start" -v e="$end" -v b="${backend:-unknown}" -v o="$out" 'BEGIN {
  printf "backend: %s\n", b
  printf "edges branch: %d frames in %.2f s, %.1f frames per second\n", n, e - s, n / (e - s)
  printf "Gabor branch: %d frames in %.2f s, %.1f frames per second (the tee feeds both; clips encoded)\n", n, e - s, n / (e - s)
  printf "wrote %s/side-by-side.png, %s/edges.webm, %s/edges.png, %s/gabor.webm, %s/gabor.png, %s/input.png\n", o, o, o, o, o, o }'
