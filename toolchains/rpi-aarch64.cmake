# Raspberry Pi 3/4/5 running a 64-bit OS (Cortex-A53/A72/A76): Debian's g++-aarch64-linux-gnu.
# Tests run under qemu-aarch64 (qemu-user; no binfmt needed), so `ctest` in a build made with this
# file runs the real NEON code. -DSTRIATE_SYSROOT=DIR (scripts/sysroot.sh arm64 DIR) builds the
# whole project; see rpi-common.cmake and toolchains/README.md.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_C_FLAGS_INIT "-march=armv8-a")
set(CMAKE_CXX_FLAGS_INIT "-march=armv8-a")
set(STRIATE_TRIPLET aarch64-linux-gnu)
# The Pi 4's core: no SVE, as on every Pi. On qemu's default `max` CPU, trixie's glibc takes its SVE
# routines, which qemu runs several times slower (docs/testing.md).
set(STRIATE_QEMU qemu-aarch64 -cpu cortex-a72)
include(${CMAKE_CURRENT_LIST_DIR}/rpi-common.cmake)
