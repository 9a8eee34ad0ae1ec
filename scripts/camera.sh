#!/usr/bin/env bash
# striate-camera: the main job, live edge detection on a camera. Installed with the package as
# /usr/bin/striate-camera (its helpers in /usr/share/striate); scripts/run.sh runs it from the
# source tree against a build.
#
# The source (source.sh): libcamerasrc when libcamera finds a camera, else the first V4L2 capture
# device (a USB webcam: the mode nearest SIZE and FPS it offers, MJPEG through jpegdec when that is
# all), else striatesrc, the synthetic camera on a real photo; SOURCE=libcamera|v4l2|synthetic|FILE
# forces one (FILE: a clip, decoded with decodebin). FRAMES frames go through striateedges and, on
# a second branch, striategabor (6-orientation energy); each branch writes a WebM clip and a PNG
# snapshot (the last second's frame) into OUTDIR, beside the input's snapshot and side-by-side.png
# (input | edges | Gabor energy, labelled). It prints the source, the negotiated caps, the backend
# that ran and the frames per second of each branch, and ends after FRAMES frames.
#
# Usage: striate-camera [OUTDIR]   (default ./out; environment: FRAMES=150, SIZE=640x480, FPS=30,
#        SOURCE=auto, BACKEND=auto: the board's GPU, or cpu where the GPU is a software renderer)
# Needs: gst-launch-1.0 and the GStreamer elements below (gstreamer1.0-tools, -plugins-base,
# -plugins-good; the striate plugin where GStreamer finds it, or on GST_PLUGIN_PATH), `striate`
# on PATH, python3-pil for side-by-side.png (skipped, and said, without it).
set -euo pipefail
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
fi
here=$(dirname "$(realpath "$0")")
# The helpers: beside this script in the source tree, in share/striate when installed.
share=$here
[ -f "$share/source.sh" ] || share=$(realpath -m "$here/../share/striate")
out=$(realpath -m "${1:-out}")
frames=${FRAMES:-150}
size=${SIZE:-640x480}
fps=${FPS:-30}
width=${size%x*}
height=${size#*x}
case "$frames$width$height$fps" in
  *[!0-9]*) echo "striate-camera: FRAMES, SIZE (WxH) and FPS must be whole numbers: FRAMES=$frames SIZE=$size FPS=$fps" >&2; exit 2 ;;
esac

# What the pipeline needs, named with the package that brings it.
command -v gst-launch-1.0 >/dev/null || { echo "striate-camera: no gst-launch-1.0 (install gstreamer1.0-tools)" >&2; exit 2; }
for pair in striateedges:striate striategabor:striate striatesrc:striate identity:libgstreamer1.0-0 tee:libgstreamer1.0-0 \
            queue:libgstreamer1.0-0 videoconvert:gstreamer1.0-plugins-base videorate:gstreamer1.0-plugins-base \
            capssetter:gstreamer1.0-plugins-good pngenc:gstreamer1.0-plugins-good multifilesink:gstreamer1.0-plugins-good vp8enc:gstreamer1.0-plugins-good \
            webmmux:gstreamer1.0-plugins-good; do
  gst-inspect-1.0 "${pair%%:*}" >/dev/null 2>&1 ||
    { echo "striate-camera: GStreamer has no element ${pair%%:*} (install ${pair##*:})" >&2; exit 2; }
done

mkdir -p "$out"
rm -f "$out"/edges-*.png "$out"/gabor-*.png "$out"/input-*.png

# shellcheck source=scripts/source.sh
. "$share/source.sh"
choose_source "${SOURCE:-auto}" "$frames" "$width" "$height" "$fps" || exit 2
echo "source: $label"

# The backend: BACKEND if set, else auto: the board's GPU, or the cpu backend where the GPU is a
# software renderer (Mesa llvmpipe on a machine without a GPU runs on the same cores, several
# times slower); `striate probe` says which and why.
backend=${BACKEND:-auto}
striate probe 2>/dev/null | grep "^auto backend:" || true

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
wrote="$out/edges.webm, $out/edges.png, $out/gabor.webm, $out/gabor.png, $out/input.png"
if /usr/bin/python3 -c "import PIL" 2>/dev/null; then
  /usr/bin/python3 "$share/side_by_side.py" "$out/side-by-side.png" "input: ${label%% (*}=$out/input.png" \
    "striateedges ($backend)=$out/edges.png" "striategabor, 6 orientations ($backend)=$out/gabor.png"
  wrote="$out/side-by-side.png, $wrote"
else
  echo "skipped side-by-side.png: it needs python3-pil"
fi
awk -v n="$frames" -v s="$start" -v e="$end" -v b="${backend:-unknown}" -v w="$wrote" 'BEGIN {
  printf "backend: %s\n", b
  printf "edges branch: %d frames in %.2f s, %.1f frames per second\n", n, e - s, n / (e - s)
  printf "Gabor branch: %d frames in %.2f s, %.1f frames per second (the tee feeds both; clips encoded)\n", n, e - s, n / (e - s)
  printf "wrote %s\n", w }'
