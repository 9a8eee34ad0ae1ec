#!/usr/bin/env bash
# scripts/pi_compilers.sh BUILD SYSROOT PI_GPU OUT [PART...]: every shader Striate generates for the
# Raspberry Pi boards, through Mesa's real vc4 (Pi 0-3), v3d 4.2 (Pi 4) and v3d 7.1 (Pi 5) compilers
# (docs/boards.md, "The real Pi GPU compilers").
#   BUILD    the arm64 build (its bin/pi_compilers)
#   SYSROOT  the arm64 sysroot (scripts/sysroot.sh arm64), whose Mesa 22.3.6 has both drivers
#   PI_GPU   scripts/pi_gpu.sh's directory (the noop DRM shims; Mesa 25 and the V3D 7.1 identity)
#   OUT      where the reports go: vc4.tsv, v3d42.tsv and v3d71.tsv, one row per distinct shader,
#            and the logs
# The arm64 binary runs under qemu-aarch64 with the driver's noop shim preloaded: EGL opens a fake
# device, every shader goes through the real backend compiler, nothing executes and no pixel is
# read. PART (default all, the three compilers side by side): vc4, v3d42, v3d71 (the matrix on
# that compiler), plugin (the main job's elements in gst-launch-1.0 under the shims), gl-memory
# (striateedges in GstGL's context on vc4: its passes heard there, and a test-only pass over the
# limit caught with a cpu fallback and no frame lost), over-limit (a
# test-only shader over vc4's limit must fail the same check by name); the test command runs each
# as a job of its own. Exit status 1 names what failed. STRIATE_PI_RESULTS=DIR keeps the matrix
# runs that passed, by their inputs, and reuses one whose inputs are the same (matrix() below).
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: scripts/pi_compilers.sh ARM64_BUILD ARM64_SYSROOT PI_GPU_DIR OUT [vc4|v3d42|v3d71|plugin|gl-memory|over-limit...]" >&2
  exit 2
fi
build=$(realpath "$1") sysroot=$(realpath "$2") gpu=$(realpath "$3") out=$4
shift 4
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(vc4 v3d42 v3d71 plugin gl-memory over-limit)
shim=$gpu/shim
mkdir -p "$out"
out=$(realpath "$out")
start=$SECONDS
# A shader cache hit compiles nothing and reports nothing: no cache, and a private one besides.
export MESA_SHADER_CACHE_DISABLE=true XDG_CACHE_HOME="$out/xdg-cache"

# emulator GPU: the qemu-aarch64 line (in the array `emu`) that runs an arm64 command with GPU's
# compiler: vc4, v3d42 (both from the sysroot's Mesa: bookworm's 22.3.6 or trixie's 25.0.7) or
# v3d71 (the Pi 5's identity in front of the v3d shim, with Mesa 25: PI_GPU's from
# bookworm-backports over a bookworm sysroot, a trixie sysroot's own).
emulator() {
  emu=(qemu-aarch64 -cpu cortex-a72 -L "$sysroot")  # no SVE, as on a Pi (toolchains/rpi-aarch64.cmake)
  case $1 in
    vc4) emu+=(-E MESA_LOADER_DRIVER_OVERRIDE=vc4 -E "LD_PRELOAD=$shim/libvc4_noop_drm_shim.so") ;;
    v3d42) emu+=(-E MESA_LOADER_DRIVER_OVERRIDE=v3d -E "LD_PRELOAD=$shim/libv3d_noop_drm_shim.so") ;;
    v3d71) emu+=(-E MESA_LOADER_DRIVER_OVERRIDE=v3d -E "LD_PRELOAD=$gpu/v3d71_ident.so:$shim/libv3d_noop_drm_shim.so")
           [ -d "$gpu/mesa25" ] && emu+=(-E "LD_LIBRARY_PATH=$gpu/mesa25/usr/lib/aarch64-linux-gnu"
                                         -E "LIBGL_DRIVERS_PATH=$gpu/mesa25/usr/lib/aarch64-linux-gnu/dri") ;;
  esac
}
run() {  # run GPU ARGS...: bin/pi_compilers
  local emu
  emulator "$1"
  shift
  "${emu[@]}" "$build/bin/pi_compilers" "$@"
}

# inputs GPU: a key for everything a matrix run on GPU's compiler depends on: the arm64 pi_compilers
# (the planners and shader generators are linked into it), this script, qemu, the sysroot (its key)
# and its Mesa, the shims and Mesa 25, and the Mesa variables of the environment.
inputs() {
  local lib=$sysroot/usr/lib/aarch64-linux-gnu
  {
    echo "$1"
    cat "$sysroot/.striate-sysroot"
    for f in "$build/bin/pi_compilers" "${BASH_SOURCE[0]}" "$(command -v qemu-aarch64)" "$lib/dri/vc4_dri.so" \
             "$lib/dri/v3d_dri.so" "$lib/libEGL_mesa.so.0" "$lib"/libglapi.so.0 "$lib"/libgallium-*.so "$lib/libgbm.so.1" \
             "$lib/libdrm.so.2"; do
      if [ -e "$f" ]; then sha256sum <"$f"; fi  # Mesa 25 has libgallium, not libglapi
    done
    (cd "$gpu" && find shim v3d71_ident.so $([ -d mesa25 ] && echo mesa25) -type f -print0 | sort -z | xargs -0 sha256sum)
    env | grep -E '^(MESA|V3D|VC4|LIBGL|GALLIUM|NIR)_' | sort || true
  } | sha256sum | cut -c1-16
}

# vc4: every shader at 2 threads (1 thread halves vc4's latency hiding; none of ours needs it).
# v3d: no spill, at least 2 threads (of 4).
# Where STRIATE_PI_RESULTS names a directory (the test command's cache), a run that passed is kept
# there under its inputs' key, and a run with the same key takes its report and log instead of
# compiling every shader again: the compilers are deterministic, so the verdict would be the same.
# A failure is never kept. The log says which run it came from.
matrix() {  # matrix GPU: the chains' shaders on that compiler, its report and log in OUT
  local boards key="" kept=""
  case $1 in vc4) boards=rpi0,rpi1,rpi2,rpi3 ;; v3d42) boards=rpi4 ;; v3d71) boards=rpi5 ;; esac
  if [ -n "${STRIATE_PI_RESULTS:-}" ]; then
    key=$(inputs "$1")
    kept=$STRIATE_PI_RESULTS/$1-$key
    if [ -f "$kept/passed" ]; then
      cp "$kept/$1.tsv" "$kept/$1.log" "$kept/$1.stderr" "$out/"
      echo "pi_compilers: $1: the report of a passing run with the same inputs ($(cat "$kept/passed"), key $key): nothing compiled again" >>"$out/$1.log"
      return 0
    fi
  fi
  run "$1" --boards "$boards" --min-threads 2 --report "$out/$1.tsv" >"$out/$1.log" 2>"$out/$1.stderr" || return 1
  if [ -n "$kept" ]; then
    mkdir -p "$kept"
    cp "$out/$1.tsv" "$out/$1.log" "$out/$1.stderr" "$kept/"
    date -u '+%Y-%m-%d %H:%M UTC' >"$kept/passed"
    # The newest five of each compiler are kept.
    ls -dt "$STRIATE_PI_RESULTS/$1-"* | tail -n +6 | xargs -r rm -rf
  fi
}
status=0
pids=()
for part in "${parts[@]}"; do
  case $part in
    vc4 | v3d42 | v3d71) matrix "$part" & pids+=("$!:$part") ;;
    plugin | gl-memory | over-limit) ;;
    *) echo "pi_compilers: unknown part '$part' (vc4, v3d42, v3d71, plugin, gl-memory, over-limit)" >&2; exit 2 ;;
  esac
done
for entry in "${pids[@]}"; do
  wait "${entry%%:*}" || status=1
  gpu_name=${entry#*:}
  grep -v '^refused' "$out/$gpu_name.log" || true
  echo "  (refused by the planner, run on the cpu: $(grep -c '^refused' "$out/$gpu_name.log" || true); $out/$gpu_name.log)"
done

# launch DRIVER LOG [VAR=VALUE...] -- ARGS...: the sysroot's gst-launch-1.0 -v ARGS under DRIVER's
# shim, with the plugin from BUILD and GstGL headless (the shim's device, GLES); its output in LOG.
launch() {
  local driver=$1 log=$2 emu
  shift 2
  emulator "$driver"
  while [ "$1" != -- ]; do emu+=(-E "$1"); shift; done
  shift
  GST_PLUGIN_PATH="$build/lib" GST_REGISTRY="$out/registry-$driver.bin" GST_REGISTRY_FORK=no \
    GST_PLUGIN_SYSTEM_PATH="$sysroot/usr/lib/aarch64-linux-gnu/gstreamer-1.0" GST_GL_WINDOW=egl-device GST_GL_API=gles2 \
    timeout 300 "${emu[@]}" "$sysroot/usr/bin/gst-launch-1.0" -v "$@" >"$log" 2>&1
}

# report OK WHAT LOG: "ok WHAT" where OK is 0, else "FAIL WHAT:" with the log's warnings (and the
# check fails).
report() {
  if [ "$1" = 0 ]; then
    echo "pi_compilers: ok $2"
  else
    echo "pi_compilers: FAIL $2:"
    grep -v DRM_SHIM "$3" | grep "WARNING\|CRITICAL\|ERROR\|active-backend\|Failed" | head -n 5
    status=1
  fi
}

# The plugin too: the main job's elements in gst-launch-1.0 (the sysroot's, the arm64 plugin) under
# the shim. A pass the driver failed would make the element warn and run the cpu backend: the
# line must end with no warning and the element still on the GPU backend it was given.
plugin() {  # plugin GPU BOARD BACKEND ELEMENT...
  local driver=$1 board=$2 backend=$3
  shift 3
  local log="$out/gst-$driver-$board-$backend-$1.log" ok=1
  launch "$driver" "$log" -- striatesrc num-buffers=2 is-live=false ! video/x-raw,format=NV12,width=640,height=480 \
       ! "$@" backend="$backend" board="$board" ! fakesink \
     && ! grep -q "WARNING\|ERROR" "$log" && [ "$(grep -o "active-backend = [a-z-]*" "$log" | tail -n 1)" = "active-backend = $backend" ] \
     && ok=0
  report $ok "gst-launch $* backend=$backend board=$board on $driver" "$log"
}
if [[ " ${parts[*]} " == *" plugin "* ]]; then
  plugin vc4 rpi3 gles-fragment striateedges
  plugin vc4 rpi3 gles-fragment striategabor orientations=6 wavelength=8 sigma=4 gain=4
  for backend in gles-compute gles-fragment; do
    plugin v3d42 rpi4 $backend striateedges
    plugin v3d42 rpi4 $backend striategabor orientations=6 wavelength=8 sigma=4 gain=4
  done
fi

# GstGL's context on vc4 (the zero-copy route of a Pi 0-3: glupload ! striateedges in GL memory),
# where GstGL keeps a debug callback of its own: the element's passes run there and the driver is
# heard through ours in front of it. A GRAY8 texture is LUMINANCE there, which vc4 cannot render
# to: the element copies its result into it, and GstGL's gldownload cannot read it back
# (docs/boards.md), so the route to system memory goes through glcolorconvert to RGBA.
# With STRIATE_GLES_TEST_PASS=over-vc4-limit a test-only pass vc4 cannot register-allocate joins
# the plan: one warning naming it, then the cpu, every frame still there and each the cpu's edges
# (nothing executes under the shim: the GPU's own frames are never compared).
frames="striatesrc num-buffers=3 is-live=false seed=3 ! video/x-raw,format=GRAY8,width=97,height=63"
gl_verdict() {  # gl_verdict NAME LOG WANT_WARNINGS WANT_BACKENDS FILE BYTES [REFERENCE]: the line's outcome
  local name=$1 log=$2 warnings backends bytes
  warnings=$(grep -c "^WARNING\|CRITICAL" "$log" || true)
  backends=$(grep -o "active-backend = [a-z-]*" "$log" | sed 's/.* = //' | xargs)
  bytes=$(stat -c %s "$5" 2>/dev/null || echo 0)
  # GRAY8 rows are padded to 100 bytes: the 97 pixels of each must equal the reference's.
  local ok=1 same=""
  [ "$warnings" = "$3" ] && [ "$backends" = "$4" ] && [ "$bytes" = "$6" ] \
     && { [ -z "${7:-}" ] || ! cmp -l "$5" "$7" | awk '($1 - 1) % 100 < 97 { bad = 1 } END { exit !bad }'; } && ok=0
  [ -n "${7:-}" ] && same=", the cpu's edges wanted"
  report $ok "GstGL's context on vc4, $name: $warnings warnings (want $3), active-backend: $backends (want $4), $bytes bytes (want $6)$same" "$log"
}
if [[ " ${parts[*]} " == *" gl-memory "* ]]; then
  launch vc4 "$out/gl-memory-passes.log" -- $frames ! glupload ! striateedges board=rpi3 ! "video/x-raw(memory:GLMemory),format=GRAY8" \
    ! glcolorconvert ! "video/x-raw(memory:GLMemory),format=RGBA" ! gldownload ! filesink location="$out/gl-memory-passes.raw" || true
  gl_verdict "its passes" "$out/gl-memory-passes.log" 0 gles-fragment "$out/gl-memory-passes.raw" $((3 * 97 * 63 * 4))
  # The cpu's edges of the same frames, in system memory, for the fallback to equal.
  launch vc4 "$out/gl-memory-cpu.log" -- $frames ! striateedges backend=cpu ! filesink location="$out/gl-memory-cpu.raw" || true
  launch vc4 "$out/gl-memory-over-limit.log" STRIATE_GLES_TEST_PASS=over-vc4-limit -- $frames ! glupload ! striateedges board=rpi3 \
    ! "video/x-raw(memory:GLMemory),format=GRAY8" ! gldownload ! filesink location="$out/gl-memory-over-limit.raw" || true
  if grep -q "^WARNING.*did not compile the shader of pass 'test-only: 48 dependent" "$out/gl-memory-over-limit.log"; then
    gl_verdict "a test-only pass over the limit" "$out/gl-memory-over-limit.log" 1 "gles-fragment cpu" \
      "$out/gl-memory-over-limit.raw" $((3 * 100 * 63)) "$out/gl-memory-cpu.raw"
  else
    report 1 "GstGL's context on vc4: no warning names the test-only pass over the limit" "$out/gl-memory-over-limit.log"
  fi
fi

# The check can fail: a shader over vc4's limit fails it, by name.
if [[ " ${parts[*]} " == *" over-limit "* ]]; then
  set +e
  run vc4 --over-limit >"$out/over-limit.log" 2>"$out/over-limit.stderr"
  rc=$?
  set -e
  if [ $rc -eq 1 ] && grep -q "FAIL.*test-only: 48 dependent texture results kept live" "$out/over-limit.log"; then
    echo "pi_compilers: the over-limit shader fails the check by name, as it must"
  else
    echo "pi_compilers: FAIL the over-limit shader did not fail the check (exit $rc):"
    cat "$out/over-limit.log"
    status=1
  fi
fi
echo "pi_compilers: $((SECONDS - start)) s"
exit $status
