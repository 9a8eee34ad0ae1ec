#!/usr/bin/env bash
# The memory benchmark (issue 28): one 1920x1080 frame (SIZE) of striatesrc's photo scene through
# `striate filter --chain C --backend B` for each chain of `striate bench --gles` and the
# 6-orientation Gabor bank, on gles-compute, gles-fragment and cpu:
#   GPU: bytes of textures, buffers and renderbuffers alive at once (the peak), counted by
#        interposing the GL allocation calls (libstriate-gl-accounting.so, tests/support);
#   cpu: the peak resident size over the same run on a 1x1 frame (what the frame's size adds).
# Prints a Markdown table (MiB). BOARD (default host) is the board profile the GPU backends run
# under (rpi3: gles-fragment's packed RGBA8 planes, what a Pi 0-3 runs).
#   bench/memory.sh [BUILD]     (default build; needs gst-launch-1.0 and pngenc for the frame)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
size=${SIZE:-1920x1080}
board=${BOARD:-host}
bin=$build/bin
[ -x "$bin/striate" ] && [ -f "$bin/libstriate-gl-accounting.so" ] ||
  { echo "memory: build first (ninja -C $build striate striate-gl-accounting)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GST_PLUGIN_PATH=$build/lib
frame() {  # frame WIDTH HEIGHT FILE: one frame of striatesrc's photo scene as a grey PNG
  gst-launch-1.0 -q striatesrc num-buffers=1 scene=photo ! "video/x-raw,format=GRAY8,width=$1,height=$2" ! \
    pngenc ! filesink location="$3" >/dev/null
}
frame "${size%x*}" "${size#*x}" "$work/frame.png"
frame 1 1 "$work/tiny.png"
chains=("blur sigma=2" "blur sigma=3 method=recursive" "blur sigma=8 method=recursive"
        "blur sigma=16 method=recursive" "blur sigma=48 method=recursive" "blur sigma=8 method=boxes"
        "gabor sigma=4 wavelength=8 orientation=30" "gabor sigma=4 wavelength=8 orientations=6" "edges"
        "threshold sigma=4 offset=0.02")
mib() { python3 -c "print(f'{$1 / 1048576:.1f}')"; }
peakRss() {  # peakRss ARGS...: the peak resident kB of `striate ARGS`
  python3 - "$bin/striate" "$@" <<'PY'
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
if r.returncode:
    sys.exit(f"memory: {' '.join(sys.argv[1:])} failed: {r.stderr.strip()}")
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
echo "| chain ($size, board $board) | gles-compute MiB | gles-fragment MiB | cpu MiB (resident growth) |"
echo "|---|---|---|---|"
for chain in "${chains[@]}"; do
  row="| $chain |"
  for backend in gles-compute gles-fragment; do
    STRIATE_GL_ACCOUNTING=$work/gl.txt LD_PRELOAD=$bin/libstriate-gl-accounting.so \
      "$bin/striate" filter --backend "$backend" --board "$board" --chain "$chain" "$work/frame.png" "$work/out.png" \
      2>"$work/err" || { echo "memory: $chain on $backend failed: $(cat "$work/err")" >&2; exit 1; }
    if grep -q 'using the cpu backend' "$work/err"; then
      row+=" - ($(sed -n 's/.*warning: \(.*\); using the cpu backend/\1/p' "$work/err" | cut -c1-60)) |"
    else
      row+=" $(mib "$(awk '/^peak_bytes/ {print $2}' "$work/gl.txt")") |"
    fi
  done
  big=$(peakRss filter --backend cpu --threads 2 --chain "$chain" "$work/frame.png" "$work/out.png")
  small=$(peakRss filter --backend cpu --threads 2 --chain "$chain" "$work/tiny.png" "$work/out.png")
  row+=" $(mib "($big - $small) * 1024") |"
  echo "$row"
done
