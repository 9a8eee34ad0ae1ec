# Raspberry Pi 2/3 running a 32-bit OS (Cortex-A7/A53 in AArch32): Debian's g++-arm-linux-gnueabihf.
# Debian's armhf default (-mfpu=auto with -march=armv7-a) leaves __ARM_NEON undefined; the cpu
# backend refuses to build without it (#error in cpu/neon/neon.h), so NEON is switched on here.
# -DSTRIATE_SYSROOT=DIR (scripts/sysroot.sh armhf DIR) builds the whole project; see
# rpi-common.cmake and toolchains/README.md.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR armv7l)
set(CMAKE_C_COMPILER arm-linux-gnueabihf-gcc)
set(CMAKE_CXX_COMPILER arm-linux-gnueabihf-g++)
set(CMAKE_C_FLAGS_INIT "-march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard")
set(CMAKE_CXX_FLAGS_INIT "-march=armv7-a -mfpu=neon-vfpv4 -mfloat-abi=hard")
set(STRIATE_TRIPLET arm-linux-gnueabihf)
set(STRIATE_QEMU qemu-arm)
include(${CMAKE_CURRENT_LIST_DIR}/rpi-common.cmake)
