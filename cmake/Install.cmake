# Installation and packages (toolchains/README.md, README "On a Raspberry Pi"):
#   cmake --install build         the plugin into GStreamer's plugin directory, bin/striate, the
#                                 libraries' headers and static archives, striate.pc, a CMake
#                                 package (find_package(striate): striate::striate)
#   cpack --config build/CPackConfig.cmake
#                                 striate_<version>_<arch>.deb (amd64, arm64, armhf: the build's
#                                 target), its dependencies from dpkg-shlibdeps
# The default prefix is GStreamer's (/usr on Debian), so the installed plugin is found with no
# GST_PLUGIN_PATH; --prefix DIR stages an install elsewhere (GStreamer then needs
# GST_PLUGIN_PATH=DIR/<libdir>/gstreamer-1.0).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(STRIATE_INCLUDE_SUBDIR ${CMAKE_INSTALL_INCLUDEDIR}/striate)
set(STRIATE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/striate)

# The libraries: static archives (PIC), linked in order by striate::striate.
set(STRIATE_LIBRARIES striate_board striate_reference striate_sensors striate_cpu striate_core)
if(STRIATE_WITH_GLES)
  list(INSERT STRIATE_LIBRARIES 1 striate_gles)
endif()
add_library(striate_all INTERFACE)
set_target_properties(striate_all PROPERTIES EXPORT_NAME striate)
target_link_libraries(striate_all INTERFACE ${STRIATE_LIBRARIES})
add_library(striate::striate ALIAS striate_all)
install(TARGETS ${STRIATE_LIBRARIES} striate_all striate_warnings EXPORT striateTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${STRIATE_INCLUDE_SUBDIR})
install(EXPORT striateTargets NAMESPACE striate:: DESTINATION ${STRIATE_CMAKE_DIR})

# The public headers, what a program that runs chains needs: Backend and startBackend, which makes
# every backend by kind (backend.h), the chain parser (chain.h), the specs (spec.h) and their
# parameter tables (params.h), images and Status. The rest of core/ (plans, coefficients, the
# recursive filters' responses, liveness, the flood) is the library's inside, as every other
# folder is; tests/scripts/package_test.sh compiles each installed header alone.
install(FILES core/backend.h core/chain.h core/image.h core/params.h core/spec.h core/status.h
        DESTINATION ${STRIATE_INCLUDE_SUBDIR}/core)

set(STRIATE_PC_REQUIRES "")
if(STRIATE_WITH_GLES)
  set(STRIATE_PC_REQUIRES "egl glesv2 gbm")
endif()
list(TRANSFORM STRIATE_LIBRARIES PREPEND "-l" OUTPUT_VARIABLE STRIATE_PC_LIBS)
list(JOIN STRIATE_PC_LIBS " " STRIATE_PC_LIBS)
file(RELATIVE_PATH STRIATE_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" STRIATE_PC_TO_PREFIX "${STRIATE_PC_TO_PREFIX}")
configure_file(cmake/striate.pc.in ${PROJECT_BINARY_DIR}/striate.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/striate.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

configure_package_config_file(cmake/striateConfig.cmake.in ${PROJECT_BINARY_DIR}/striateConfig.cmake
                              INSTALL_DESTINATION ${STRIATE_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/striateConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/striateConfig.cmake ${PROJECT_BINARY_DIR}/striateConfigVersion.cmake
        DESTINATION ${STRIATE_CMAKE_DIR})
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/striate RENAME copyright)

# One Debian package per architecture (the build's target, not the host's).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(STRIATE_DEB_ARCH arm64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^arm")
  set(STRIATE_DEB_ARCH armhf)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(STRIATE_DEB_ARCH amd64)
else()
  set(STRIATE_DEB_ARCH ${CMAKE_SYSTEM_PROCESSOR})
endif()
set(CPACK_GENERATOR DEB)
# The Debian release the packages are for (the sysroot's, scripts/sysroot.sh, or this machine's),
# in the version as Debian versions one source built for two releases: 0.1.0~deb12u1 for bookworm
# (Raspberry Pi OS Legacy), 0.1.0~deb13u1 for trixie (Raspberry Pi OS). Each release's packages
# take their Depends from that release's libraries, and python3-striate its Python's ABI.
if(CMAKE_CROSSCOMPILING AND CMAKE_SYSROOT)
  if(EXISTS ${CMAKE_SYSROOT}/.striate-release)
    file(STRINGS ${CMAKE_SYSROOT}/.striate-release STRIATE_DEB_RELEASE LIMIT_COUNT 1)
  endif()
elseif(EXISTS /etc/os-release)
  file(STRINGS /etc/os-release STRIATE_DEB_RELEASE REGEX "^VERSION_CODENAME=")
  string(REGEX REPLACE "^VERSION_CODENAME=\"?([a-z]*)\"?$" "\\1" STRIATE_DEB_RELEASE "${STRIATE_DEB_RELEASE}")
endif()
set(STRIATE_DEB_VERSION ${PROJECT_VERSION})
if(STRIATE_DEB_RELEASE STREQUAL "bookworm")
  string(APPEND STRIATE_DEB_VERSION "~deb12u1")
elseif(STRIATE_DEB_RELEASE STREQUAL "trixie")
  string(APPEND STRIATE_DEB_VERSION "~deb13u1")
else()
  message(STATUS "Debian release '${STRIATE_DEB_RELEASE}' unknown: the packages are versioned ${STRIATE_DEB_VERSION}")
endif()
set(CPACK_DEBIAN_PACKAGE_VERSION ${STRIATE_DEB_VERSION})
# One .deb per component: striate (everything installed without a component) and, where the
# Python module is built, python3-striate (python/CMakeLists.txt). Both are named
# <package>_<version>_<arch>.deb.
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL striate)
set(CPACK_DEBIAN_STRIATE_PACKAGE_NAME striate)
if(TARGET striate_python)
  list(APPEND CPACK_COMPONENTS_ALL python)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-striate)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
  # Debian's python3 of the version it was built for, its numpy (the module imports numpy's API),
  # and the striate package of the same version (selftest()'s photo and goldens in /usr/share/striate);
  # the libraries it links come from dpkg-shlibdeps.
  math(EXPR next "${STRIATE_PYTHON_MINOR} + 1")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS
      "python3 (>= 3.${STRIATE_PYTHON_MINOR}), python3 (<< 3.${next}), python3-numpy, striate (= ${STRIATE_DEB_VERSION})")
  # The GStreamer example's imports (examples/gst_contact_sheet.py).
  set(CPACK_DEBIAN_PYTHON_PACKAGE_RECOMMENDS "python3-gi, gir1.2-gstreamer-1.0, gir1.2-gst-plugins-base-1.0")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SUGGESTS "python3-opencv")
  set(CPACK_COMPONENT_PYTHON_DESCRIPTION
      "The Python module (import striate): striate.Filter runs a chain of Striate's filters (Gaussian blur, recursive Gabor, edges, adaptive \
threshold) on numpy arrays: uint8 and uint16 luma, RGB/BGR/RGBA/BGRA, picamera2's YUV420, on the \
cpu (NEON, threads) or the board's GPU through OpenGL ES, with the GIL released; striate.probe() \
and striate.selftest() as the striate tool's commands.")
endif()
set(CPACK_PACKAGE_NAME striate)
set(CPACK_PACKAGE_VENDOR "Striate developers")
set(CPACK_PACKAGE_CONTACT "Striate developers <striate@localhost>")
# The summary line is both packages' (CPack's DEB generator has one); each body says what it holds.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Vision filters for camera boards (Striate)")
set(CPACK_PACKAGE_DESCRIPTION
    "Gaussian blur, recursive Gabor filtering, live edge detection and adaptive threshold on the GPU of \
small camera devices through OpenGL ES (3.1 compute, or 2.0/3.0 fragment passes), with a NEON cpu path: the \
GStreamer plugin striate (striateblur, striategabor, striateedges, striatethreshold, striatechain, striatesrc), the striate tool \
and the library's headers, archives, striate.pc and CMake package.")
set(CPACK_COMPONENT_STRIATE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # striate_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${STRIATE_DEB_ARCH})
set(CPACK_DEBIAN_PACKAGE_SECTION video)
# Recommends (installed with the package by default): the runtime list of scripts/deps.sh, what
# striate-camera and the README's gst-launch lines use: gst-launch-1.0, the base and good plugins,
# Mesa's EGL driver, python3-pil for the side-by-side picture, v4l-utils for a webcam's modes and,
# on the boards, libcamerasrc. Suggests: GstGL's glupload / gldownload (GL memory pipelines) and
# libcamera's `cam` (what libcamera sees).
execute_process(COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/deps.sh --runtime --list ${STRIATE_DEB_ARCH}
                OUTPUT_VARIABLE STRIATE_RUNTIME_PACKAGES OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
string(REPLACE "\n" ", " CPACK_DEBIAN_PACKAGE_RECOMMENDS "${STRIATE_RUNTIME_PACKAGES}")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "gstreamer1.0-gl, libcamera-tools")
# dpkg-shlibdeps reads what the plugin and the tool link. A cross build's libraries and their
# symbols files are in the sysroot (scripts/sysroot.sh keeps a dpkg database there):
# cmake/CPackProject.cmake points dpkg-shlibdeps at it when cpack runs.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
if(CMAKE_CROSSCOMPILING AND CMAKE_SYSROOT)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS
      ${CMAKE_SYSROOT}/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE} ${CMAKE_SYSROOT}/lib/${CMAKE_LIBRARY_ARCHITECTURE})
  set(STRIATE_CPACK_SYSROOT ${CMAKE_SYSROOT})
endif()
configure_file(cmake/CPackProject.cmake.in ${PROJECT_BINARY_DIR}/CPackProject.cmake @ONLY)
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_BINARY_DIR}/CPackProject.cmake)
include(CPack)
