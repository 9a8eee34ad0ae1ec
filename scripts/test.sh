#!/usr/bin/env bash
# The README's test command: installs dependencies, builds, and runs every test:
#   1. host build (Release, SIMDe NEON) - unit, conformance, cli
#   2. AddressSanitizer + UBSan build   - the same tests
#   3. aarch64 and armhf cross builds   - their tests under qemu-user (label cross)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc)

step() { printf '\n==== %s ====\n' "$*"; }

step "host build"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRIATE_BUILD_BENCH=ON -DSTRIATE_WITH_GST=ON -DSTRIATE_WITH_GLES=ON >/dev/null
ninja -C build -j "$jobs"

step "sanitizer build (ASan + UBSan)"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTRIATE_SANITIZE=ON \
      -DSTRIATE_BUILD_BENCH=OFF -DSTRIATE_WITH_GST=ON -DSTRIATE_WITH_GLES=ON >/dev/null
ninja -C build-asan -j "$jobs"

for arch in aarch64 armhf; do
  step "cross build $arch"
  cmake -S . -B "build-$arch" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_TOOLCHAIN_FILE="toolchains/rpi-$arch.cmake" -DSTRIATE_BUILD_TOOLS=OFF \
        -DSTRIATE_WITH_GST=OFF -DSTRIATE_WITH_GLES=OFF >/dev/null
  ninja -C "build-$arch" -j "$jobs"
done

status=0
step "tests: sanitizer build"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
   ctest --output-on-failure -j "$jobs") || status=1
for arch in aarch64 armhf; do
  step "tests: $arch under qemu"
  (cd "build-$arch" && ctest --output-on-failure -j "$jobs" -L cross) || status=1
done
# The host run goes last: its summary is the closing line.
step "tests: host build"
(cd build && ctest --output-on-failure -j "$jobs") || status=1
exit $status
