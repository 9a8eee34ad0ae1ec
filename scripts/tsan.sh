#!/usr/bin/env bash
# The ThreadSanitizer job (part of the test command): a TSan build (build-tsan) of the cpu backend
# and the plugin, and the tests whose threads meet: the thread pool (test_cpu ThreadPool*), the cpu
# backend's banded kernels on frames tall enough for two bands a worker (test_cpu CpuVsReference
# 203x257 and 61x480, Process8), the banded hysteresis (test_cpu Hysteresis*), and
# the elements: property changes while playing and two pipelines in one process (test_pipeline
# Concurrency, Properties). GLib and GStreamer are not instrumented: their futex-based locks are
# invisible to TSan, so reports whose stacks lie in them are suppressed (tests/tsan.supp); a race
# in striate's own code is not.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTRIATE_SANITIZE_THREAD=ON -DSTRIATE_WITH_GLES=OFF \
  -DSTRIATE_BUILD_BENCH=OFF -DSTRIATE_BUILD_TOOLS=OFF >/dev/null
ninja -C build-tsan test_cpu test_pipeline gststriate
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/tests/tsan.supp"
build-tsan/bin/test_cpu --gtest_filter='*ThreadPool*:*Hysteresis*:*CpuVsReference*203x257*:*CpuVsReference*61x480*:*Process8*'
GST_PLUGIN_PATH=$PWD/build-tsan/lib GST_PLUGIN_SYSTEM_PATH= GST_REGISTRY=$PWD/build-tsan/tsan-registry.bin \
  GST_REGISTRY_FORK=no XDG_CACHE_HOME=$PWD/build-tsan/xdg-cache \
  build-tsan/bin/test_pipeline --gtest_filter='Concurrency.*:Properties.*'
echo "tsan: no data race"
