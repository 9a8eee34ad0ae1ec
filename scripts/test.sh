#!/usr/bin/env bash
# The README's test command: installs dependencies, builds, and runs every test.
#   scripts/test.sh           everything (CI's .ci/run)
#   scripts/test.sh --quick   the developers' inner loop, not CI: the host build, then its unit and
#                             cpu tests, the GLES tests and the GLES conformance on the host profile
#                             (under a minute with warm caches and nothing to rebuild)
# On an x86-64 PC the builds are:
#   build          host, Release, NEON through SIMDe: unit, conformance, GLES, GStreamer, cli, package
#   build-san      clang, AddressSanitizer + UBSan, with the libFuzzer targets (tests/fuzz): the same
#                  tests (no gst-launch lines: gst-launch-1.0 is not instrumented) and the fuzzers,
#                  STRIATE_FUZZ_SECONDS (10) each, going on from the corpus they grew in earlier
#                  runs ($STRIATE_CACHE/fuzz-corpus)
#   build-tsan     ThreadSanitizer: the tests whose threads meet (scripts/tsan.sh)
#   build-aarch64, build-armhf
#                  the whole project against Debian 12 (bookworm, Raspberry Pi OS Legacy) sysroots
#                  (scripts/sysroot.sh, cached in $STRIATE_CACHE, default ~/.cache/striate), its
#                  tests under qemu-user (label cross)
#   build-aarch64-trixie, build-armhf-trixie
#                  the same against Debian 13 (trixie, today's Raspberry Pi OS): GStreamer 1.26,
#                  Mesa 25, Python 3.13 and NumPy 2. arm64 runs every test; armhf its package,
#                  its dependencies on the board, the Python module and selftest
#   build-amd64-trixie
#                  the host build on the other Debian release (trixie here; bookworm on a trixie
#                  PC), made natively with its compiler (gcc 14) in a root of that release
#                  (scripts/debian_root.sh, cached in $STRIATE_CACHE; scripts/in_root.sh), with no
#                  warnings allowed, and every test of the host build run there
# and then one schedule (scripts/test_jobs.py) runs every test of every build, and the real Raspberry
# Pi GPU compilers' check (Mesa's vc4, v3d 4.2 and v3d 7.1 under the noop DRM shim: scripts/pi_gpu.sh,
# scripts/pi_compilers.sh; docs/boards.md: bookworm's Mesa 22.3.6 with backports' 25 for V3D 7.1,
# and trixie's Mesa 25.0.7) and the Pi estimates' model against those compilers'
# counts (scripts/pi_model_check.py), as jobs on all cores, the longest first. Caches, all
# under $STRIATE_CACHE: the sysroots, ccache (compiles), Mesa's shader cache (the GLES tests'
# llvmpipe programs), the fuzzers' corpora and the jobs' measured costs. A step table with
# seconds ends every run.
# On a Raspberry Pi (arm64 or armhf) the host, sanitizer and ThreadSanitizer builds run natively with
# real NEON; no cross builds.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=
case ${1:-} in
  --quick) quick=yes ;;
  "") ;;
  *) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
esac
start=$SECONDS
step_names=()
step_starts=()
step() {
  step_names+=("$1")
  step_starts+=($((SECONDS - start)))
  printf '\n==== %s (%d s) ====\n' "$1" $((SECONDS - start))
}
table() {  # the step table: each step's seconds, then the test jobs' seconds by suite
  local i n=${#step_names[@]} end=$((SECONDS - start))
  printf '\n==== steps (seconds) ====\n'
  for ((i = 0; i < n; i++)); do
    local next=$end
    [ $((i + 1)) -lt "$n" ] && next=${step_starts[$((i + 1))]}
    printf '%-46s %6d\n' "${step_names[$i]}" $((next - step_starts[i]))
  done
  printf '%-46s %6d\n' "total" "$end"
  if [ -n "${skipped:-}" ]; then printf 'skipped: %s\n' "$skipped"; fi
  if [ -n "${scheduled:-}" ]; then
    printf '\n==== test jobs by suite (job-seconds; they ran side by side) ====\n'
    awk '/Test +#[0-9]+: / && $4 ~ /\// { name = $4; sub("/.*", "", name); for (i = NF; i > 0; i--) if ($i == "sec") { s[name] += $(i - 1); n[name]++; break } }
         END { for (k in s) printf "%-46s %6.0f  (%d jobs)\n", k, s[k], n[k] }' build-tests/jobs.log | sort
  fi
}

step "dependencies (apt)"
if [ -n "$quick" ]; then bash scripts/deps.sh --native; else bash scripts/deps.sh; fi
jobs=$(nproc)
cache=${STRIATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/striate}
mkdir -p "$cache"
# The compiler cache: paths under the tree hashed relative to it (and -ffile-prefix-map keeps
# them out of the objects), so a clone anywhere hits the same entries.
export CCACHE_DIR="$cache/ccache" CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-4G}
# Mesa's shader cache for the GLES tests on llvmpipe: a program compiled by an earlier run (or by
# another build's tests in this one) is loaded, not compiled again. The Pi compilers' check turns it
# off: it must see every compile.
export MESA_SHADER_CACHE_DIR="$cache/mesa-shader-cache"
# The Pi compilers' matrix runs that passed, by the hash of everything they ran: the same inputs
# give the same verdict, so their report is reused (scripts/pi_compilers.sh).
export STRIATE_PI_RESULTS="$cache/pi-results"

# The sysroots download beside the host builds (network and unpacking, little CPU). A cross build
# is TOOLCHAIN:ARCH:RELEASE; bookworm's directories have no suffix, the others -RELEASE.
cross=()
case $(dpkg --print-architecture) in
  amd64) [ -z "$quick" ] && cross=(aarch64:arm64:bookworm armhf:armhf:bookworm aarch64:arm64:trixie armhf:armhf:trixie) ;;
esac
suffix() { [ "$1" = bookworm ] || echo "-$1"; }
# On an x86-64 PC, the other release's root: amd64 on the Debian release this machine does not run
# (trixie on bookworm, bookworm on trixie), where the host build is made natively and runs every
# test of its own (scripts/debian_root.sh, scripts/in_root.sh).
other=
if [ ${#cross[@]} -gt 0 ]; then
  case $(. /etc/os-release && echo "${VERSION_CODENAME:-}") in
    bookworm) other=trixie ;;
    trixie) other=bookworm ;;
  esac
fi
# The root needs what chroot and a private mount namespace need (root, CAP_SYS_ADMIN); a machine
# without them skips the leg and says so at the start and in the step table.
skipped=
if [ -n "$other" ] && ! unshare --mount --propagation private true 2>/dev/null; then
  skipped="the native $other leg: this machine cannot make a mount namespace (unshare --mount failed), so no $other root"
  echo "test.sh: skipped $skipped"
  other=
fi
other_root=$cache/root-amd64-$other
if [ ${#cross[@]} -gt 0 ]; then
  rm -f "$cache"/pi-gpu*.failed "$other_root.failed"
  mkdir -p build
  (
    for triple in "${cross[@]}"; do
      IFS=: read -r _ arch release <<<"$triple"
      bash scripts/sysroot.sh "$arch" "$cache/sysroot-$arch$(suffix "$release")" "$release"
    done
    # The Pi GPU compilers' shims, for each release's arm64 Mesa: a failed download fails their
    # check, not the other steps.
    for release in bookworm trixie; do
      s=$(suffix "$release")
      bash scripts/pi_gpu.sh "$cache/sysroot-arm64$s" "$cache/pi-gpu$s" || touch "$cache/pi-gpu$s.failed"
    done
    if [ -n "$other" ]; then bash scripts/debian_root.sh "$other" "$other_root" || touch "$other_root.failed"; fi
  ) >build/sysroots.log 2>&1 &
  sysroots=$!
fi

# The one cmake line of the full build, natively and (with a toolchain file) for the boards. A
# unity build: each target's files compiled a batch at a time, their headers parsed once a batch (a
# third less compile time when the compiler cache is cold, as on a fresh machine).
# With $root set, cmake runs inside that Debian root (scripts/in_root.sh).
configure() {
  local dir=$1; shift
  ${root:+bash scripts/in_root.sh "$root"} cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRIATE_WITH_GST=ON -DSTRIATE_WITH_GLES=ON \
        -DCMAKE_UNITY_BUILD=ON -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache "$@" >/dev/null
}

step "host build"
configure build -DSTRIATE_BUILD_BENCH=ON
ninja -C build -j "$jobs"

if [ -n "$quick" ]; then
  step "tests: host, quick (unit, cpu, GLES, conformance on the host profile)"
  status=0
  (cd build && ctest --output-on-failure -j "$jobs" -R '^(test_core|test_reference|test_cpu|test_cpu_allocations|test_gles)$') ||
    status=1
  (cd build && XDG_CACHE_HOME="$PWD/tests/xdg-cache" bin/test_gles_conformance --gtest_brief=1 --gtest_filter='*_host_*') ||
    status=1
  table
  exit $status
fi

step "sanitizer build (clang: ASan + UBSan, the libFuzzer targets)"
CC=clang CXX=clang++ configure build-san -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTRIATE_FUZZ=ON -DSTRIATE_BUILD_BENCH=OFF
ninja -C build-san -j "$jobs"

step "ThreadSanitizer build"
configure build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTRIATE_SANITIZE_THREAD=ON -DSTRIATE_WITH_GLES=OFF \
          -DSTRIATE_BUILD_BENCH=OFF -DSTRIATE_BUILD_TOOLS=OFF
ninja -C build-tsan -j "$jobs"

if [ ${#cross[@]} -gt 0 ]; then
  step "sysroots (arm64, armhf; bookworm, trixie), the Pi GPU shims${other:+, the amd64 $other root}"
  wait "$sysroots" || { cat build/sysroots.log; echo "test.sh: the sysroots could not be made"; exit 1; }
  grep -E "^(sysroot|pi-gpu|root):" build/sysroots.log || true
  for triple in "${cross[@]}"; do
    IFS=: read -r toolchain arch release <<<"$triple"
    s=$(suffix "$release")
    step "cross build $arch $release"
    configure "build-$toolchain$s" -DCMAKE_TOOLCHAIN_FILE="toolchains/rpi-$toolchain.cmake" \
              -DSTRIATE_SYSROOT="$cache/sysroot-$arch$s" -DSTRIATE_BUILD_BENCH=OFF -DSTRIATE_HOST_BUILD="$PWD/build"
    ninja -C "build-$toolchain$s" -j "$jobs"
  done
fi
# The host build on the other release, natively in its root with that release's compiler (gcc 14 on
# trixie), its own compiler cache; no warnings allowed there.
other_build=build-amd64-$other
if [ -n "$other" ] && [ ! -e "$other_root.failed" ]; then
  step "native build on $other (its root, its compiler)"
  other_ccache=$cache/ccache-$other
  CCACHE_DIR=$other_ccache root=$other_root configure "$other_build" -DSTRIATE_BUILD_BENCH=ON
  CCACHE_DIR=$other_ccache bash scripts/in_root.sh "$other_root" ninja -C "$other_build" -j "$jobs" 2>&1 |
    tee build/native-$other.log
  warnings=$(grep -c 'warning:' build/native-$other.log || true)
  [ "$warnings" -eq 0 ] || { grep -A3 'warning:' build/native-$other.log; echo "test.sh: $warnings warnings on $other"; exit 1; }
fi

step "tests: every build's, one schedule on $jobs cores"
spec=(--build host build --
      --build san build-san ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
              "STRIATE_FUZZ_SECONDS=${STRIATE_FUZZ_SECONDS:-10}" "STRIATE_FUZZ_CORPUS=$cache/fuzz-corpus" --
      --build tsan build-tsan --)
if [ -n "$other" ]; then
  if [ -e "$other_root.failed" ]; then
    spec+=(--job "amd64-$other/root" false)  # fails, named, where the root could not be made (build/sysroots.log)
  else
    spec+=(--build "amd64-$other" "$other_build" "--wrap=bash $PWD/scripts/in_root.sh $other_root"
           "MESA_SHADER_CACHE_DIR=$cache/mesa-shader-cache-$other" --)
  fi
fi
for triple in "${cross[@]}"; do
  IFS=: read -r toolchain arch release <<<"$triple"
  s=$(suffix "$release")
  # trixie's armhf: what differs there from bookworm's (its package's dependencies, the Python
  # module on 3.13); arm64 on trixie runs everything.
  only=()
  [ "$arch$s" = armhf-trixie ] && only=("--only=^(package|deps_on_the_board|python|selftest)$")
  spec+=(--build "$arch$s" "build-$toolchain$s" "${only[@]}" --)
done
# The Pi compilers' check on trixie's Mesa 25 (vc4, v3d 4.2 and 7.1, and striateedges in GstGL
# 1.26's context), as on bookworm's below.
if [ -d build-aarch64-trixie ]; then
  if [ -e "$cache/pi-gpu-trixie.failed" ]; then
    spec+=(--job pi-trixie/shims false)
  else
    for part in vc4 v3d42 v3d71 gl-memory; do
      spec+=(--job "pi-trixie/$part" bash "$PWD/scripts/pi_compilers.sh" "$PWD/build-aarch64-trixie" "$cache/sysroot-arm64-trixie"
             "$cache/pi-gpu-trixie" "$PWD/build-aarch64-trixie/pi-compilers" "$part")
    done
  fi
fi
if [ -d build-aarch64 ]; then
  if [ -e "$cache/pi-gpu.failed" ]; then
    spec+=(--job pi/shims false)  # fails, named, where the shims could not be fetched (build/sysroots.log)
  else
    for part in vc4 v3d42 v3d71 plugin gl-memory over-limit; do
      spec+=(--job "pi/$part" bash "$PWD/scripts/pi_compilers.sh" "$PWD/build-aarch64" "$cache/sysroot-arm64" "$cache/pi-gpu"
             "$PWD/build-aarch64/pi-compilers" "$part")
    done
    # The Pi estimates' model against the compilers' counts and the draws as they run (issue 38):
    # the draws on the host build natively (the same plan; under qemu four times as long).
    spec+=(--job pi/model /usr/bin/python3 "$PWD/scripts/pi_model_check.py" "$PWD/build-aarch64" "$cache/sysroot-arm64"
           "$cache/pi-gpu" --llvmpipe-build "$PWD/build")
  fi
fi
rm -rf build-tests
python3 scripts/test_jobs.py build-tests tests/test-costs.txt "${spec[@]}"
# CTest's measured costs from the last run on this machine, where there are some.
mkdir -p build-tests/Testing/Temporary
[ -f "$cache/CTestCostData.txt" ] && cp "$cache/CTestCostData.txt" build-tests/Testing/Temporary/
status=0
scheduled=yes
(cd build-tests && ctest --output-on-failure -j "$jobs") 2>&1 | tee build-tests/jobs.log || status=1
cp build-tests/Testing/Temporary/CTestCostData.txt "$cache/" 2>/dev/null || true
step "done"
table
exit $status
