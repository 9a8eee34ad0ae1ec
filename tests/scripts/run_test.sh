#!/usr/bin/env bash
# run_test.sh BUILD WORK STANDIN_PLUGINS: the main job (scripts/run.sh, scripts/camera.sh) with
# what this machine has, no camera: the automatic choice says so and runs the synthetic camera;
# SOURCE=FILE runs the same pipeline on a clip; SOURCE=v4l2 / libcamera / a missing file fail with
# the reason. Then the camera module through a stand-in libcamerasrc (STANDIN_PLUGINS: a plain
# GstElement with no num-buffers, as libcamera's is; tests/pipeline/standin_libcamerasrc.cpp):
# the automatic choice and SOURCE=libcamera find it and run FRAMES frames. The V4L2 mode choice
# runs on v4l2-ctl listings of two kinds of UVC webcam (tests/scripts/data).
set -u
build=$(realpath "$1")
work=$2
standin=$(realpath "$3")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
# shellcheck source=tests/scripts/checks.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/checks.sh"
export STRIATE_BUILD="$build" FRAMES=12 SIZE=160x120

# shellcheck source=scripts/source.sh
. "$root/scripts/source.sh"
check_mode() {  # check_mode LISTING W H FPS EXPECTED
  local got
  got=$(v4l2_mode "$2" "$3" "$4" <"$here/data/$1")
  [ "$got" = "$5" ] && pass "$1 at $2x$3 $4 fps: $got" || fail "$1 at $2x$3 $4 fps: '$got', expected '$5'"
}
check_mode uvc-yuyv-mjpg.txt 640 480 30 "YUY2 640 480 30"
check_mode uvc-yuyv-mjpg.txt 1920 1080 30 "YUY2 1280 720 10"  # raw first, then the nearest size
check_mode uvc-yuyv-mjpg.txt 320 240 15 "YUY2 320 240 30"
check_mode uvc-mjpg-only.txt 1280 720 60 "jpeg 1280 720 60"   # MJPEG only: through jpegdec
check_mode uvc-mjpg-only.txt 1280 720 25 "jpeg 1280 720 30"
v4l2_mode 640 480 30 </dev/null >/dev/null && fail "an empty listing gives a mode" || pass "an empty listing gives no mode"

# No camera here: said, and the synthetic camera runs.
if bash "$root/scripts/run.sh" auto >auto.txt 2>&1; then pass "run.sh with no camera"; else fail "run.sh: $(tail -5 auto.txt)"; fi
grep -q "^no camera found" auto.txt && grep -q "^source: striatesrc scene=photo" auto.txt && pass "no camera: the photo scene" \
  || fail "no camera: $(head -3 auto.txt)"
grep -q "^caps: video/x-raw, format=(string)NV12, width=(int)160, height=(int)120" auto.txt && pass "caps printed" \
  || fail "caps: $(grep caps auto.txt)"
grep -q "^edges branch: 12 frames" auto.txt && grep -q "^Gabor branch: 12 frames" auto.txt && pass "12 frames a branch" \
  || fail "frames: $(grep branch auto.txt)"
for f in edges.webm edges.png gabor.webm gabor.png input.png side-by-side.png; do
  [ -s "auto/$f" ] && pass "auto/$f" || fail "auto/$f missing"
done

# A clip file: the same pipeline on it (the first run's clip, WebM through decodebin).
if SOURCE=auto/edges.webm FRAMES=8 bash "$root/scripts/run.sh" clip >clip.txt 2>&1; then pass "SOURCE=clip"; else fail "SOURCE=clip: $(tail -5 clip.txt)"; fi
grep -q "^source: clip auto/edges.webm" clip.txt && grep -q "^edges branch: 8 frames" clip.txt && [ -s clip/side-by-side.png ] \
  && pass "clip: 8 frames through both branches" || fail "clip: $(grep -E 'source|branch' clip.txt)"

# Forced sources that cannot run: status 2 and the reason.
for want in v4l2 libcamera missing.webm; do
  SOURCE=$want bash "$root/scripts/run.sh" forced >forced.txt 2>&1
  rc=$?
  [ $rc = 2 ] && grep -q "^SOURCE=$want: " forced.txt && pass "SOURCE=$want refused: $(tail -1 forced.txt)" \
    || fail "SOURCE=$want: status $rc, $(tail -2 forced.txt)"
done

# The camera module: libcamerasrc (the stand-in) opens "its camera" and delivers a frame; without
# it, no camera (the auto run above said so).
with_camera() { GST_PLUGIN_PATH="$standin" GST_REGISTRY="$work/standin-registry.bin" "$@"; }
with_camera libcamera_camera && pass "libcamera_camera finds the stand-in's camera" || fail "libcamera_camera: no camera with the stand-in"
GST_REGISTRY="$work/registry.bin" libcamera_camera && fail "libcamera_camera finds a camera without the stand-in" \
  || pass "libcamera_camera: no camera without the stand-in"
for want in auto libcamera; do
  if with_camera env SOURCE=$want bash "$root/scripts/run.sh" "camera-$want" >"camera-$want.txt" 2>&1; then
    pass "SOURCE=$want with a camera module"
  else
    fail "SOURCE=$want with a camera module: $(tail -5 "camera-$want.txt")"
  fi
  grep -q "^source: camera (libcamerasrc" "camera-$want.txt" && grep -q "^edges branch: 12 frames" "camera-$want.txt" &&
    grep -q "^caps: video/x-raw, format=(string)NV12, width=(int)160, height=(int)120" "camera-$want.txt" &&
    [ -s "camera-$want/side-by-side.png" ] && [ -s "camera-$want/edges.webm" ] &&
    pass "SOURCE=$want: libcamerasrc chosen, 12 frames at 160x120 through both branches" ||
    fail "SOURCE=$want: $(grep -E '^(source|caps|edges branch)' "camera-$want.txt")"
done
finish
