# Warnings for every target of the project, and the sanitizer build.
add_library(striate_warnings INTERFACE)
target_compile_options(striate_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow
                       -Wnon-virtual-dtor -Wno-psabi)
# Bit-comparable float code across x86 and ARM (ALGORITHMS.md 7): no silent mul+add contraction.
target_compile_options(striate_warnings INTERFACE -ffp-contract=off)

if(STRIATE_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

if(STRIATE_SANITIZE_THREAD)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=thread)
endif()

# The fuzzing build (tests/fuzz): coverage for libFuzzer in every target, the fuzzer's main only
# in the fuzz targets; the plugin, loaded by GStreamer in the fuzzer's process, is instrumented too.
if(STRIATE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "STRIATE_FUZZ needs clang (libFuzzer): configure with CC=clang CXX=clang++")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=address,undefined)
endif()
