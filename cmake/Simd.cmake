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
  # SIMDe translates NEON to the SSE levels the compiler may use. x86-64-v2 (SSSE3 to SSE4.2,
  # every x86-64 CPU since 2009; the baseline of RHEL 9) gives it pmulhrsw for vqrdmulh, pshufb,
  # blends and 128-bit min/max, where baseline SSE2 takes several instructions for each.
  set(STRIATE_X86_LEVEL "x86-64-v2" CACHE STRING "-march level of x86 hosts (empty: the compiler's default)")
  if(STRIATE_X86_LEVEL AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    add_compile_options(-march=${STRIATE_X86_LEVEL})
  endif()
endif()
message(STATUS "striate: CPU kernels use ${STRIATE_SIMD}")
