#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (build-fuzz: coverage, ASan and UBSan in every target,
# the plugin with the cpu backend) and runs each: its kept crashers, then fuzzing for SECONDS
# (default 30, as the test command runs them). tests/fuzz/CMakeLists.txt lists the targets.
#   scripts/fuzz.sh [SECONDS] [NAME...]   e.g. scripts/fuzz.sh 600 png jpeg
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTRIATE_FUZZ=ON \
  -DSTRIATE_WITH_GLES=OFF -DSTRIATE_BUILD_BENCH=OFF >/dev/null
ninja -C build-fuzz
filter=()
if [ $# -gt 0 ]; then
  filter=(-R "^fuzz_($(IFS='|'; echo "$*"))\$")
fi
cd build-fuzz
STRIATE_FUZZ_SECONDS=$seconds ctest --output-on-failure -j "$(nproc)" -L fuzz "${filter[@]}"
