#!/usr/bin/env bash
# The README's main job: live edge detection on a camera (scripts/camera.sh, installed with the
# package as striate-camera, says what it does and takes FRAMES, SIZE, FPS, SOURCE, BACKEND).
#   scripts/run.sh [OUTDIR]   (default out/ in the source tree)
# With Striate installed (the package: /usr/bin/striate-camera) it runs that one, after the small
# runtime list of scripts/deps.sh; otherwise it installs the build list, builds the plugin and the
# tool into STRIATE_BUILD (default build/) where they are missing, and runs the build tree's. It
# says which. STRIATE_BUILD set: always that build tree.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out=$(realpath -m "${1:-$root/out}")
if [ -z "${STRIATE_BUILD:-}" ] && command -v striate-camera >/dev/null 2>&1; then
  bash "$root/scripts/deps.sh" --runtime
  echo "striate: the installed one ($(command -v striate-camera), $(striate --version 2>/dev/null || echo 'no striate tool'))"
  exec striate-camera "$out"
fi
bash "$root/scripts/deps.sh"
build=$(realpath -m "${STRIATE_BUILD:-$root/build}")
if [ ! -f "$build/lib/libgststriate.so" ] || [ ! -x "$build/bin/striate" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRIATE_WITH_GST=ON >/dev/null
  ninja -C "$build" gststriate striate
fi
echo "striate: the build tree $build"
# The build tree's tool and plugin first; a private registry unless the caller keeps one.
export PATH="$build/bin:$PATH"
export GST_PLUGIN_PATH="$build/lib${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
export GST_REGISTRY="${GST_REGISTRY:-$build/gst-registry.bin}"
exec bash "$root/scripts/camera.sh" "$out"
