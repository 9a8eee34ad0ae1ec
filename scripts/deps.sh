#!/usr/bin/env bash
# Installs what striate needs, with apt. Idempotent: it asks apt only for packages that are
# missing, and runs `apt-get update` only then.
#   scripts/deps.sh                     the build list: build, test, benchmark, fuzz and package
#   scripts/deps.sh --runtime           the runtime list: what the main job (striate-camera) and
#                                       the README's gst-launch lines need beside an installed
#                                       striate package (which brings its libraries)
#   scripts/deps.sh --native            the build list without the cross compilers, qemu-user and
#                                       mmdebstrap: what the host build and its tests need (the
#                                       test command's --quick, and its Debian 13 root:
#                                       scripts/debian_root.sh)
#   scripts/deps.sh [--runtime|--native] --list [ARCH [RELEASE]]
#                                       print the list for ARCH (amd64, arm64, armhf; default:
#                                       this machine's) on RELEASE (bookworm, trixie; default:
#                                       this machine's), installing nothing
# On an x86-64 PC the build list adds SIMDe (the NEON source on x86), the cross compilers and
# qemu-user (the arm64 and armhf builds and their tests) and mmdebstrap (the Debian 13 root); on
# a Raspberry Pi (arm64 or armhf: Raspberry Pi OS, Debian 13 trixie, or its Legacy, Debian 12
# bookworm) it holds native packages only: the NEON code compiles as it is. The names are the
# same on both releases but one. The striate package's Recommends are the runtime list
# (cmake/Install.cmake).
set -euo pipefail

runtime_for() {
  local arch=$1
  local packages=(
    gstreamer1.0-tools                                    # gst-launch-1.0
    gstreamer1.0-plugins-base gstreamer1.0-plugins-good   # videoconvert, videorate, pngenc, vp8enc, webmmux, v4l2src
    libegl-mesa0 libgl1-mesa-dri                          # GLES: Mesa's V3D, VC4, or llvmpipe without a GPU
    python3-pil                                           # the main job's side-by-side picture (scripts/side_by_side.py)
    v4l-utils                                             # v4l2-ctl: the main job finds a USB webcam and its modes
  )
  case $arch in
    arm64 | armhf) packages+=(gstreamer1.0-libcamera) ;;  # libcamerasrc: the camera module
  esac
  printf '%s\n' "${packages[@]}"
}

native_for() {
  local arch=$1 release=$2
  runtime_for "$arch"
  # The libFuzzer runtime: trixie has no libclang-rt-dev for armhf, only its versioned package.
  local fuzz_runtime=libclang-rt-dev
  [ "$arch:$release" = armhf:trixie ] && fuzz_runtime=libclang-rt-19-dev
  local packages=(
    cmake ninja-build g++ pkg-config python3 dpkg-dev
    ccache                 # the compiler cache of scripts/test.sh (in $STRIATE_CACHE)
    file                   # CPack's Debian generator (dpkg-shlibdeps) reads the binaries with it
    libpng-dev libjpeg62-turbo-dev
    googletest
    libegl-dev libgles-dev libgbm-dev
    libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev   # the plugin
    gstreamer1.0-gl time   # glupload / gldownload for the GL memory tests; /usr/bin/time measures their memory
    libopencv-dev gstreamer1.0-opencv   # benchmarks only: the peers (striate bench, bench/gst_compare.sh)
    python3-skimage        # real photos for the tests and the benchmarks
    python3-dev pybind11-dev python3-numpy python3-pytest   # the Python module and its tests
    python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0   # the GStreamer example (examples/)
    python3-opencv         # the Python benchmark's peer (bench/python_bench.py)
    clang "$fuzz_runtime"  # the libFuzzer targets (scripts/fuzz.sh)
  )
  case $arch in
    amd64 | i386) packages+=(libsimde-dev) ;;  # NEON intrinsics on x86
  esac
  printf '%s\n' "${packages[@]}"
}

build_for() {
  native_for "$@"
  case $1 in
    amd64 | i386)
      printf '%s\n' g++-aarch64-linux-gnu g++-arm-linux-gnueabihf qemu-user  # cross builds and their tests
      printf '%s\n' mmdebstrap   # the Debian 13 root of the test command's native trixie leg
      ;;
  esac
}

list=build_for
case ${1:-} in
  --runtime) list=runtime_for; shift ;;
  --native) list=native_for; shift ;;
esac
here_release=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
if [ "${1:-}" = "--list" ]; then
  $list "${2:-$(dpkg --print-architecture)}" "${3:-$here_release}"
  exit 0
fi
[ $# -eq 0 ] || { echo "usage: scripts/deps.sh [--runtime|--native] [--list [ARCH [RELEASE]]]" >&2; exit 2; }

mapfile -t packages < <($list "$(dpkg --print-architecture)" "$here_release")
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
