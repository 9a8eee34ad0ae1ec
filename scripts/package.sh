#!/usr/bin/env bash
# scripts/package.sh [amd64|arm64|armhf] [bookworm|trixie]: builds striate_<version>_<arch>.deb
# and python3-striate_<version>_<arch>.deb (the Python module) into dist/, the version saying the
# Debian release they are for: 0.1.0~deb12u1 (bookworm: Raspberry Pi OS Legacy, Debian 12) or
# 0.1.0~deb13u1 (trixie: Raspberry Pi OS, Debian 13; cmake/Install.cmake).
#   no argument: this machine's architecture and release (natively, also on a Raspberry Pi)
#   arm64, armhf on an x86-64 PC: cross-built against that release's sysroot (default bookworm;
#   scripts/sysroot.sh, cached in $STRIATE_CACHE, default ~/.cache/striate), so the Depends are
#   that release's libraries and python3-striate is for its Python
# Install them with `sudo apt install ./dist/striate_<version>_<arch>.deb
# ./dist/python3-striate_<version>_<arch>.deb` (on the Pi: copy them there first);
# `gst-inspect-1.0 striate` and `python3 -c "import striate"` then work with no search path set.
set -euo pipefail
cd "$(dirname "$0")/.."
native=$(dpkg --print-architecture)
arch=${1:-$native}
release=${2:-bookworm}
case $arch in amd64 | arm64 | armhf) ;; *) echo "usage: scripts/package.sh [amd64|arm64|armhf] [bookworm|trixie]" >&2; exit 2 ;; esac
case $release in bookworm | trixie) ;; *) echo "usage: scripts/package.sh [amd64|arm64|armhf] [bookworm|trixie]" >&2; exit 2 ;; esac
bash scripts/deps.sh
options=(-DCMAKE_BUILD_TYPE=Release -DSTRIATE_WITH_GST=ON -DSTRIATE_WITH_GLES=ON -DSTRIATE_BUILD_BENCH=OFF -DBUILD_TESTING=OFF)
build="build-package-$arch"
if [ "$arch" != "$native" ]; then
  [ "$native" = amd64 ] || { echo "package.sh: cross builds run on an x86-64 PC (this is $native)" >&2; exit 2; }
  suffix=$([ "$release" = bookworm ] || echo "-$release")
  sysroot=${STRIATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/striate}/sysroot-$arch$suffix
  bash scripts/sysroot.sh "$arch" "$sysroot" "$release"
  toolchain=$([ "$arch" = arm64 ] && echo aarch64 || echo armhf)
  options+=(-DCMAKE_TOOLCHAIN_FILE="toolchains/rpi-$toolchain.cmake" -DSTRIATE_SYSROOT="$sysroot")
  build+=$suffix
elif [ $# -ge 2 ] && ! grep -q "^VERSION_CODENAME=$release\$" /etc/os-release; then
  echo "package.sh: a native package is for this machine's release ($(. /etc/os-release && echo "$VERSION_CODENAME")), not $release" >&2
  exit 2
fi
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
