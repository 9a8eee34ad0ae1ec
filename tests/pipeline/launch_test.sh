#!/usr/bin/env bash
# The gst-launch lines of the issue and the README, run against the plugin in the build tree.
set -u
lib=$(realpath "$1")
work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
export GST_PLUGIN_PATH="$lib" GST_REGISTRY="$work/registry.bin"
failures=0
pass() { echo "ok: $1"; }
fail() { echo "FAIL: $1"; failures=$((failures + 1)); }
run() {  # run NAME COMMAND...: exit 0 within 120 s
    local name=$1; shift
    if timeout 120 "$@" >out.txt 2>err.txt; then pass "$name"; else fail "$name: exit $? $(tail -3 err.txt)"; fi
}

run "inspect" gst-inspect-1.0 striate
for e in striateblur striategabor striateedges striatesrc; do
    if grep -q "$e" out.txt; then pass "lists $e"; else fail "lists $e"; fi
done
for backend in auto cpu; do
    run "striateedges backend=$backend, NV12 1280x720" gst-launch-1.0 -q striatesrc num-buffers=30 is-live=false \
        ! video/x-raw,format=NV12,width=1280,height=720 ! striateedges backend=$backend ! fakesink
done
run "live source at its framerate" gst-launch-1.0 -q striatesrc num-buffers=10 \
    ! video/x-raw,format=GRAY8,width=320,height=240,framerate=30/1 ! striateedges ! fakesink
run "raw clip" gst-launch-1.0 -q striatesrc num-buffers=8 is-live=false scene=grating \
    ! video/x-raw,format=I420,width=1280,height=720 ! filesink location=clip.yuv
run "gabor bank from raw I420" gst-launch-1.0 -q filesrc location=clip.yuv \
    ! rawvideoparse format=i420 width=1280 height=720 ! striategabor orientations=6 ! videoconvert ! pngenc \
    ! multifilesink location=gabor-%02d.png
[ "$(ls gabor-*.png 2>/dev/null | wc -l)" -eq 8 ] && pass "8 gabor PNGs" || fail "8 gabor PNGs: $(ls)"
run "colour blur" gst-launch-1.0 -q striatesrc num-buffers=3 is-live=false ! video/x-raw,format=I420,width=96,height=64 \
    ! videoconvert ! video/x-raw,format=RGBA ! striateblur sigma=3 ! video/x-raw,format=RGBA ! fakesink
run "16-bit edge strength" gst-launch-1.0 -q striatesrc num-buffers=3 is-live=false \
    ! striateedges output=strength ! video/x-raw,format=GRAY16_LE ! fakesink
# A refused property value: a warning naming it, the previous value kept, the stream goes on.
run "sigma=0 refused" gst-launch-1.0 -q striatesrc num-buffers=3 is-live=false ! striateblur sigma=0 ! fakesink
grep -q "sigma" err.txt && pass "sigma=0 warning names the property" || fail "sigma=0 warning: $(cat err.txt)"
run "board=pi4 refused" gst-launch-1.0 -q striatesrc num-buffers=3 is-live=false ! striateblur board=pi4 ! fakesink
grep -q "refusing board 'pi4'" err.txt && pass "board=pi4 warning names the board" || fail "board warning: $(cat err.txt)"

# GL memory from glupload (GstGL headless on Mesa: PLATFORM-NOTES.md). The elements read the
# textures back and output system memory (a GPU-resident chain is not built yet): the acceptance
# line runs, and the edges equal those of the same frames in system memory.
export GST_GL_WINDOW=egl-device GST_GL_API=gles2
run "glupload ! striateblur ! gldownload" gst-launch-1.0 -q striatesrc num-buffers=10 ! glupload ! striateblur sigma=8 \
    ! gldownload ! fakesink
for backend in cpu gles-fragment; do
    run "GL memory in, $backend" gst-launch-1.0 -q striatesrc num-buffers=4 is-live=false seed=3 \
        ! video/x-raw,format=GRAY8,width=96,height=64 ! glupload ! striateedges backend=$backend ! gldownload \
        ! filesink location=gl-$backend.raw
done
run "system memory" gst-launch-1.0 -q striatesrc num-buffers=4 is-live=false seed=3 \
    ! video/x-raw,format=GRAY8,width=96,height=64 ! striateedges backend=cpu ! filesink location=sys.raw
cmp -s gl-cpu.raw sys.raw && pass "GL memory in: the same edges" || fail "GL memory in: edges differ"
[ -s gl-gles-fragment.raw ] && pass "GL memory in, GLES backend output" || fail "GL memory in, GLES backend output"

echo "$failures failed"
[ "$failures" -eq 0 ]
