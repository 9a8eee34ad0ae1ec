#!/usr/bin/env bash
# Builds the libFuzzer targets in the sanitizer build (build-san: clang, ASan + UBSan, libFuzzer's
# coverage in the code they feed; the test command's same build) and runs each: its kept crashers,
# then fuzzing for SECONDS (default 30; the test command runs them 20 s each).
# tests/fuzz/CMakeLists.txt lists the targets.
#   scripts/fuzz.sh [SECONDS] [NAME...]   e.g. scripts/fuzz.sh 600 png jpeg
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
CC=clang CXX=clang++ cmake -S . -B build-san -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTRIATE_WITH_GST=ON \
  -DSTRIATE_WITH_GLES=ON -DSTRIATE_FUZZ=ON -DSTRIATE_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null
ninja -C build-san
filter=(-R "^fuzz_")
if [ $# -gt 0 ]; then
  filter=(-R "^fuzz_($(IFS='|'; echo "$*"))\$")
fi
cd build-san
STRIATE_FUZZ_SECONDS=$seconds ctest --output-on-failure -j "$(nproc)" -L fuzz "${filter[@]}"
