#!/usr/bin/env bash
# scripts/package.sh [amd64|arm64|armhf]: builds striate_<version>_<arch>.deb and
# python3-striate_<version>_<arch>.deb (the Python module) into dist/.
#   no argument: this machine's architecture (natively, also on a Raspberry Pi)
#   arm64, armhf on an x86-64 PC: cross-built against a Debian 12 sysroot (scripts/sysroot.sh,
#   cached in $STRIATE_CACHE, default ~/.cache/striate)
# Install them with `sudo apt install ./dist/striate_<version>_<arch>.deb
# ./dist/python3-striate_<version>_<arch>.deb` (on the Pi: copy them there first);
# `gst-inspect-1.0 striate` and `python3 -c "import striate"` then work with no search path set.
set -euo pipefail
cd "$(dirname "$0")/.."
native=$(dpkg --print-architecture)
arch=${1:-$native}
case $arch in amd64 | arm64 | armhf) ;; *) echo "usage: scripts/package.sh [amd64|arm64|armhf]" >&2; exit 2 ;; esac
bash scripts/deps.sh
options=(-DCMAKE_BUILD_TYPE=Release -DSTRIATE_WITH_GST=ON -DSTRIATE_WITH_GLES=ON -DSTRIATE_BUILD_BENCH=OFF -DBUILD_TESTING=OFF)
if [ "$arch" != "$native" ]; then
  [ "$native" = amd64 ] || { echo "package.sh: cross builds run on an x86-64 PC (this is $native)" >&2; exit 2; }
  sysroot=${STRIATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/striate}/sysroot-$arch
  bash scripts/sysroot.sh "$arch" "$sysroot"
  toolchain=$([ "$arch" = arm64 ] && echo aarch64 || echo armhf)
  options+=(-DCMAKE_TOOLCHAIN_FILE="toolchains/rpi-$toolchain.cmake" -DSTRIATE_SYSROOT="$sysroot")
fi
build="build-package-$arch"
cmake -S . -B "$build" -G Ninja "${options[@]}" >/dev/null
ninja -C "$build"
rm -f "$build"/cpack/*.deb
cpack --config "$build/CPackConfig.cmake" -B "$build/cpack" >/dev/null
mkdir -p dist
for deb in "$build"/cpack/striate_*_"$arch".deb "$build"/cpack/python3-striate_*_"$arch".deb; do
  [ -f "$deb" ] || continue
  cp "$deb" dist/
  echo "package: dist/$(basename "$deb")"
  dpkg-deb -f "dist/$(basename "$deb")" Package Version Architecture Depends
done
