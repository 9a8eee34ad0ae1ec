#!/usr/bin/env bash
# Frames per second through gst-launch-1.0 at 1280x720 from a raw I420 clip, striate against the
# OpenCV elements of gst-plugins-bad, in one script: each pair runs alternately, REPEAT times,
# and the median wall time of each side gives its rate. Needs gstreamer1.0-opencv (the peers).
# 600 frames by default: at 120, process start-up (plugin loading, OpenCV's initialisation) is a
# large part of each run. The filter pairs write GRAY8 on both sides (like for like).
# Usage: bench/gst_compare.sh [FRAMES] [REPEAT]   (defaults 600, 3)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
frames=${1:-600}
repeat=${2:-3}
export GST_PLUGIN_PATH="$root/build/lib" GST_REGISTRY="$root/build/gst-registry.bin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gst-inspect-1.0 edgedetect >/dev/null 2>&1 || { echo "needs gstreamer1.0-opencv (edgedetect, cvsmooth): scripts/deps.sh installs it"; exit 2; }

gst-launch-1.0 -q striatesrc is-live=false num-buffers="$frames" ! video/x-raw,format=I420,width=1280,height=720 \
  ! filesink location="$work/clip.yuv"
head="filesrc location=$work/clip.yuv ! rawvideoparse format=i420 width=1280 height=720 framerate=30/1"

seconds() {  # wall time of one pipeline run
  local t0 t1
  t0=$(date +%s.%N)
  gst-launch-1.0 -q $head ! "$@" ! fakesink sync=false >/dev/null
  t1=$(date +%s.%N)
  awk -v a="$t1" -v b="$t0" 'BEGIN { print a - b }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

compare() {  # compare NAME "OURS" "PEER"
  local name=$1 ours=$2 peer=$3 a=() b=()
  for ((i = 0; i < repeat; i++)); do
    a+=("$(seconds $ours)")
    b+=("$(seconds $peer)")
  done
  local ta tb
  ta=$(printf '%s\n' "${a[@]}" | median)
  tb=$(printf '%s\n' "${b[@]}" | median)
  awk -v n="$frames" -v ta="$ta" -v tb="$tb" -v name="$name" -v ours="$ours" -v peer="$peer" 'BEGIN {
    printf "%-34s ours %6.1f fps  peer %6.1f fps  ours/peer %.2fx\n    ours: %s\n    peer: %s\n", name, n / ta, n / tb, tb / ta, ours, peer }'
}

echo "gst-launch at 1280x720 from raw I420, $frames frames, median of $repeat alternating runs, $(nproc) cores"
compare "edges: striateedges vs edgedetect" \
  "striateedges backend=cpu ! video/x-raw,format=GRAY8" \
  "videoconvert ! video/x-raw,format=RGB ! edgedetect ! videoconvert ! video/x-raw,format=GRAY8"
compare "blur sigma 2, grey out" \
  "striateblur sigma=2 backend=cpu ! video/x-raw,format=GRAY8" \
  "videoconvert ! video/x-raw,format=GRAY8 ! cvsmooth type=gaussian kernel-width=13 kernel-height=13 color=2"
compare "blur sigma 8, grey out" \
  "striateblur sigma=8 backend=cpu ! video/x-raw,format=GRAY8" \
  "videoconvert ! video/x-raw,format=GRAY8 ! cvsmooth type=gaussian kernel-width=49 kernel-height=49 color=8"
compare "blur sigma 8, I420 through" \
  "striateblur sigma=8 backend=cpu" \
  "videoconvert ! video/x-raw,format=GRAY8 ! cvsmooth type=gaussian kernel-width=49 kernel-height=49 color=8"
# The GLES backends against GstGL's own blur (headless GstGL on Mesa: docs/boards.md, GstGL memory). In GL
# memory striateblur runs gles-fragment in GstGL's context, texture to texture, as gleffects does;
# from system memory each GLES backend is named.
export GST_GL_WINDOW=egl-device GST_GL_API=gles2
peer="glupload ! glcolorconvert ! gleffects effect=blur ! gldownload"
compare "blur sigma 3, GL memory" "glupload ! striateblur sigma=3 ! gldownload" "$peer"
compare "blur sigma 3 direct, GL memory" "glupload ! striateblur sigma=3 method=direct ! gldownload" "$peer"
for backend in gles-fragment gles-compute; do
  compare "blur sigma 3 on $backend, system memory" \
    "striateblur sigma=3 backend=$backend board=host ! video/x-raw,format=GRAY8" "$peer"
done
