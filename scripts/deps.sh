#!/usr/bin/env bash
# Installs what striate needs to build, test, benchmark and cross-test, with apt. Idempotent: it
# asks apt only for packages that are missing, and runs `apt-get update` only then.
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config python3
  libpng-dev libjpeg62-turbo-dev libsimde-dev
  googletest
  libegl-dev libgles-dev libgbm-dev libegl-mesa0 libgl1-mesa-dri           # GLES (Mesa llvmpipe without a GPU)
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev gstreamer1.0-tools   # the plugin
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good                     # videoconvert, pngenc, vp8enc, webmmux
  gstreamer1.0-gl time   # glupload / gldownload for the GL memory tests; /usr/bin/time measures their memory
  libopencv-dev gstreamer1.0-opencv   # benchmarks only: the peers (striate bench, bench/gst_compare.sh)
  python3-skimage        # real photos for the main job and the benchmarks
  g++-aarch64-linux-gnu g++-arm-linux-gnueabihf qemu-user   # cross builds and their tests
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
