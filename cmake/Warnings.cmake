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
