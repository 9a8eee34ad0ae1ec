#!/usr/bin/env bash
# The ThreadSanitizer job (part of the test command, scripts/test.sh): a TSan build (build-tsan) of
# the cpu backend and the plugin, and the tests whose threads meet (tests/CMakeLists.txt lists
# them: the thread pool, the banded kernels and hysteresis, elements changed while playing and two
# pipelines in one process). GLib and GStreamer are not instrumented: reports whose stacks lie in
# them are suppressed (tests/tsan.supp); a race in striate's own code is not.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTRIATE_SANITIZE_THREAD=ON -DSTRIATE_WITH_GLES=OFF \
  -DSTRIATE_BUILD_BENCH=OFF -DSTRIATE_BUILD_TOOLS=OFF "$@" >/dev/null
ninja -C build-tsan
(cd build-tsan && ctest --output-on-failure -j "$(nproc)")
echo "tsan: no data race"
