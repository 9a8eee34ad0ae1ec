# Shared by rpi-aarch64.cmake and rpi-armhf.cmake, which set STRIATE_TRIPLET, STRIATE_QEMU and the
# compilers first.
#
# With STRIATE_SYSROOT (a -D or the environment variable; scripts/sysroot.sh makes one) the whole
# project cross-builds against that Debian 12 sysroot: the GStreamer plugin, both GLES backends,
# the tool and every test, with pkg-config and find_* looking only there, and tests run under
# `qemu-<arch> -L <sysroot>`. Without it only core/ and cpu/ build (-DSTRIATE_WITH_GST=OFF
# -DSTRIATE_WITH_GLES=OFF -DSTRIATE_BUILD_TOOLS=OFF), against the cross compiler's own libc.
if(NOT STRIATE_SYSROOT AND DEFINED ENV{STRIATE_SYSROOT})
  set(STRIATE_SYSROOT "$ENV{STRIATE_SYSROOT}")
endif()
# try_compile projects read this file again: hand them the sysroot.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES STRIATE_SYSROOT)

if(STRIATE_SYSROOT)
  get_filename_component(STRIATE_SYSROOT "${STRIATE_SYSROOT}" ABSOLUTE)
  if(NOT EXISTS "${STRIATE_SYSROOT}/usr/lib/${STRIATE_TRIPLET}")
    message(FATAL_ERROR "STRIATE_SYSROOT=${STRIATE_SYSROOT} holds no /usr/lib/${STRIATE_TRIPLET}: "
                        "make it with scripts/sysroot.sh")
  endif()
  set(CMAKE_SYSROOT "${STRIATE_SYSROOT}")
  set(CMAKE_FIND_ROOT_PATH "${STRIATE_SYSROOT}")
  set(ENV{PKG_CONFIG_SYSROOT_DIR} "${STRIATE_SYSROOT}")
  set(ENV{PKG_CONFIG_LIBDIR} "${STRIATE_SYSROOT}/usr/lib/${STRIATE_TRIPLET}/pkgconfig:${STRIATE_SYSROOT}/usr/share/pkgconfig")
  set(ENV{PKG_CONFIG_PATH} "")
  set(CMAKE_CROSSCOMPILING_EMULATOR ${STRIATE_QEMU} -L "${STRIATE_SYSROOT}")
  # The sysroot's C library before the cross compiler's own (bookworm's glibc 2.36): a trixie
  # sysroot's libraries need glibc 2.38's symbols, which only its own libc.so has.
  foreach(kind EXE SHARED MODULE)
    set(CMAKE_${kind}_LINKER_FLAGS_INIT "-L${STRIATE_SYSROOT}/usr/lib/${STRIATE_TRIPLET} -L${STRIATE_SYSROOT}/lib/${STRIATE_TRIPLET}")
  endforeach()
else()
  set(CMAKE_FIND_ROOT_PATH /usr/${STRIATE_TRIPLET})
  set(CMAKE_CROSSCOMPILING_EMULATOR ${STRIATE_QEMU} -L /usr/${STRIATE_TRIPLET})
endif()
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
