# NEON everywhere: native intrinsics on ARM, the same source through SIMDe elsewhere.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(STRIATE_SIMD "neon-a64")
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^arm")
  # Debian's armhf default (-mfpu=auto) leaves __ARM_NEON undefined; cpu/neon/neon.h has an
  # #error guard, so the toolchain file must pass -mfpu=neon-vfpv4.
  set(STRIATE_SIMD "neon-a32")
else()
  find_path(SIMDE_INCLUDE_DIR simde/arm/neon.h)
  if(NOT SIMDE_INCLUDE_DIR)
    message(FATAL_ERROR "SIMDe not found: install libsimde-dev (NEON intrinsics on non-ARM hosts)")
  endif()
  set(STRIATE_SIMD "simde")
endif()
message(STATUS "striate: CPU kernels use ${STRIATE_SIMD}")
