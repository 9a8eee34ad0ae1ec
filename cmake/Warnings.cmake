# Warnings for every target of the project, and the sanitizer build.
add_library(striate_warnings INTERFACE)
target_compile_options(striate_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                       -Wnon-virtual-dtor -Wno-psabi)
# A switch over an enum that misses one of its values (and has no default) does not compile, in
# GCC and clang alike: a new method or output is a compile error at every switch that lacks it.
target_compile_options(striate_warnings INTERFACE -Werror=switch)
# Bit-comparable float code across x86 and ARM (docs/algorithms.md 7): no silent mul+add contraction.
target_compile_options(striate_warnings INTERFACE -ffp-contract=off)

# The fuzzing build is the sanitizer build with the libFuzzer targets added (tests/fuzz): one clang
# build serves the sanitizer tests and the fuzzers (scripts/test.sh, scripts/fuzz.sh).
if(STRIATE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "STRIATE_FUZZ needs clang (libFuzzer): configure with CC=clang CXX=clang++")
  endif()
  set(STRIATE_SANITIZE ON CACHE BOOL "Build with AddressSanitizer and UndefinedBehaviorSanitizer" FORCE)
endif()

if(STRIATE_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
  # AddressSanitizer's default options, compiled into every executable of the build (so a test, a
  # fuzzer or `build-san/bin/striate` run by hand get them): cmake/asan_defaults.c says why.
  target_sources(striate_warnings INTERFACE
                 $<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:${CMAKE_CURRENT_LIST_DIR}/asan_defaults.c>)
endif()

if(STRIATE_SANITIZE_THREAD)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=thread)
endif()

# striate_fuzz_coverage(TARGET...): libFuzzer's coverage in the code the fuzz targets feed (the chain
# parser, the image readers, the plugin's caps and properties), so they steer by it; the kernels'
# hot loops stay free of it, which keeps the sanitizer tests of the same build fast.
function(striate_fuzz_coverage)
  if(STRIATE_FUZZ)
    foreach(target ${ARGN})
      target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link)
    endforeach()
  endif()
endfunction()
