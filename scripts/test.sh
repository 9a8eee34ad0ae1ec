#!/usr/bin/env bash
# The README's test command: installs dependencies, builds, and runs every test.
# On an x86-64 PC:
#   1. host build (Release, NEON through SIMDe): unit, conformance, GLES, GStreamer, cli, package
#   2. AddressSanitizer + UBSan build: the same tests (no gst-launch lines: gst-launch-1.0 is not
#      instrumented)
#   3. the libFuzzer targets (tests/fuzz, scripts/fuzz.sh), STRIATE_FUZZ_SECONDS (20) each
#   4. the whole project for arm64 and armhf against Debian 12 sysroots (scripts/sysroot.sh, cached
#      in $STRIATE_CACHE, default ~/.cache/striate), its tests under qemu-user (label cross)
#   5. the real Raspberry Pi GPU compilers: every shader of a matrix of chains through Mesa's vc4,
#      v3d 4.2 and v3d 7.1 compilers (the arm64 build under qemu with the noop DRM shim:
#      scripts/pi_gpu.sh, scripts/pi_compilers.sh; docs/boards.md)
# On a Raspberry Pi (arm64 or armhf) steps 1 to 3 build natively with real NEON; no cross builds.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc)
start=$SECONDS
step() { printf '\n==== %s (%d s) ====\n' "$1" $((SECONDS - start)); }

# The one cmake line of the full build, natively and (with a toolchain file) for the boards.
configure() {
  local dir=$1; shift
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRIATE_WITH_GST=ON -DSTRIATE_WITH_GLES=ON "$@" >/dev/null
}

step "host build"
configure build -DSTRIATE_BUILD_BENCH=ON
ninja -C build -j "$jobs"

step "sanitizer build (ASan + UBSan)"
configure build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTRIATE_SANITIZE=ON -DSTRIATE_BUILD_BENCH=OFF
ninja -C build-asan -j "$jobs"

cross=()
case $(dpkg --print-architecture) in
  amd64) cross=(aarch64:arm64 armhf:armhf) ;;
esac
cache=${STRIATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/striate}
for pair in "${cross[@]}"; do
  toolchain=${pair%%:*} arch=${pair##*:}
  step "sysroot $arch"
  bash scripts/sysroot.sh "$arch" "$cache/sysroot-$arch"
  # The Pi GPU compilers' shims: a failed download fails their check below, not the other steps.
  if [ "$arch" = arm64 ]; then bash scripts/pi_gpu.sh "$cache/sysroot-arm64" "$cache/pi-gpu" || pi_gpu_failed=yes; fi
  step "cross build $arch"
  configure "build-$toolchain" -DCMAKE_TOOLCHAIN_FILE="toolchains/rpi-$toolchain.cmake" \
            -DSTRIATE_SYSROOT="$cache/sysroot-$arch" -DSTRIATE_BUILD_BENCH=OFF -DSTRIATE_HOST_BUILD="$PWD/build"
  ninja -C "build-$toolchain" -j "$jobs"
done

status=0
step "tests: sanitizer build"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
   ctest --output-on-failure -j "$jobs") || status=1
step "fuzzing (clang libFuzzer, ${STRIATE_FUZZ_SECONDS:-20} s a target)"
bash scripts/fuzz.sh "${STRIATE_FUZZ_SECONDS:-20}" || status=1
if [ -d build-aarch64 ]; then
  step "the real Pi GPU compilers (vc4, v3d 4.2, v3d 7.1 under the noop DRM shim)"
  if [ -n "${pi_gpu_failed:-}" ]; then
    echo "pi_compilers: FAIL scripts/pi_gpu.sh could not fetch the noop DRM shims or Mesa 25 (see the sysroot arm64 step)"
    status=1
  else
    bash scripts/pi_compilers.sh build-aarch64 "$cache/sysroot-arm64" "$cache/pi-gpu" build-aarch64/pi-compilers || status=1
  fi
fi
for pair in "${cross[@]}"; do
  toolchain=${pair%%:*}
  step "tests: $toolchain under qemu"
  (cd "build-$toolchain" && ctest --output-on-failure -j "$jobs" -L cross) || status=1
done
# The host run goes last: its summary is the closing line.
step "tests: host build"
(cd build && ctest --output-on-failure -j "$jobs") || status=1
step "done"
exit $status
