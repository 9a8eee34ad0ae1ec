#!/usr/bin/env bash
# package_test.sh BUILD_DIR WORK_DIR: the build's Debian package (cpack) is sane and works when
# unpacked into a scratch root:
#   - dpkg-deb -I: Package striate, the build's architecture, dependencies from dpkg-shlibdeps
#     (GStreamer, EGL/GLES, libpng, libjpeg, libc)
#   - the unpacked plugin loads: gst-inspect-1.0 striate with GST_PLUGIN_SYSTEM_PATH there and no
#     GST_PLUGIN_PATH (a cross build's under qemu, with the sysroot's gst-inspect-1.0)
#   - the unpacked tool runs (`striate --version`, `striate filter`)
#   - natively, a program outside the project builds against the unpacked headers and libraries
#     through find_package(striate) and through pkg-config, and runs
#   - where the build has the Python module: python3-striate, its dependencies (python3 of the
#     build's version, python3-numpy, striate of the same version, the linked libraries), the
#     module in Debian's dist-packages; unpacked beside striate, `import striate` and probe() run
#     with Debian's python3 (a cross build's: the sysroot's, under qemu), and selftest() finds the
#     photo and goldens striate installs
#   - apt would install the packages (both, where there are two) on an empty system of the build's
#     release and architecture: `apt-get --simulate install ./...deb` from an empty dpkg status,
#     with the package lists of the sysroot (a cross build) or of this machine (natively)
# Cross builds: STRIATE_EMULATOR and STRIATE_SYSROOT in the environment, as for launch_test.sh.
set -u
build=$(realpath "$1")
work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
# shellcheck source=tests/scripts/checks.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/checks.sh"

cpack --config "$build/CPackConfig.cmake" -B "$work/dist" >cpack.txt 2>&1 || { cat cpack.txt; echo "FAIL: cpack"; exit 1; }
debs=("$work"/dist/striate_*.deb)
pydebs=("$work"/dist/python3-striate_*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || { echo "FAIL: no single .deb in $(ls dist)"; exit 1; }
deb=${debs[0]}
arch=$(dpkg-deb -f "$deb" Architecture)
version=$(dpkg-deb -f "$deb" Version)
upstream=${version%%~*}  # 0.1.0 of 0.1.0~deb12u1 (cmake/Install.cmake): what the tool and module say
[ "$(basename "$deb")" = "striate_${version}_${arch}.deb" ] && pass "named $(basename "$deb")" || fail "name $(basename "$deb")"
expected=$(grep -o 'CPACK_DEBIAN_PACKAGE_ARCHITECTURE "[a-z0-9]*"' "$build/CPackConfig.cmake" | cut -d'"' -f2)
[ "$arch" = "$expected" ] && pass "architecture $arch" || fail "architecture $arch, the build targets $expected"
depends=$(dpkg-deb -f "$deb" Depends)
missing=""
for lib in libc6 libstdc++6 libgstreamer1.0-0 libgstreamer-plugins-base1.0-0 libglib2.0-0 libegl1 libgles2 libpng16-16 libjpeg62-turbo; do
    # trixie's 64-bit time_t names: libglib2.0-0t64, libpng16-16t64
    echo "$depends" | grep -qE "\b$(printf '%s' "$lib" | sed 's/[.+]/\\&/g')(t64)?\b" || missing+=" $lib"
done
if [ -z "$missing" ] && echo "$depends" | grep -q "libgstreamer1.0-0 (>= 1\."; then
    pass "dependencies from the linked libraries: $depends"
else
    fail "dependencies lack$missing: $depends"
fi

# Recommends: the runtime list of scripts/deps.sh, what striate-camera and the README's lines use.
recommends=$(dpkg-deb -f "$deb" Recommends)
expected=$(bash "$here/../../scripts/deps.sh" --runtime --list "$arch" | paste -sd, | sed 's/,/, /g')
[ "$recommends" = "$expected" ] && echo "$recommends" | grep -q "gstreamer1.0-plugins-good" \
    && pass "Recommends the runtime list: $recommends" || fail "Recommends '$recommends', the runtime list '$expected'"

root="$work/root"
dpkg -x "$deb" "$root"
plugin=$(find "$root" -name libgststriate.so)
case $plugin in
    "$root"/usr/lib/*/gstreamer-1.0/libgststriate.so) pass "plugin in GStreamer's directory: ${plugin#"$root"}" ;;
    *) fail "plugin at '${plugin#"$root"}'" ;;
esac
# No path of the building machine in the installed plugin (GStreamer's debug lines name sources
# relative to the tree).
tree=$(cd "$here/../.." && pwd -P)
if strings "$plugin" | grep -qF -e "$tree" -e "$build"; then
    fail "the plugin holds this machine's paths: $(strings "$plugin" | grep -F -e "$tree" -e "$build" | head -3)"
else
    pass "the plugin holds no path of this machine ($tree, $build)"
fi
for f in usr/bin/striate usr/bin/striate-camera usr/share/striate/source.sh usr/share/striate/side_by_side.py \
         usr/include/striate/core/chain.h usr/share/doc/striate/copyright; do
    [ -f "$root/$f" ] && pass "has /$f" || fail "lacks /$f"
done
pc=$(find "$root" -name striate.pc)
config=$(find "$root" -name striateConfig.cmake)
[ -n "$pc" ] && [ -n "$config" ] && pass "has striate.pc and the CMake package" || fail "pc '$pc' config '$config'"
# Debian's multiarch layout for every architecture, cross-built or native.
multiarch=$(dpkg-architecture -a"$arch" -qDEB_HOST_MULTIARCH 2>/dev/null)
[ "$pc" = "$root/usr/lib/$multiarch/pkgconfig/striate.pc" ] && [ "$config" = "$root/usr/lib/$multiarch/cmake/striate/striateConfig.cmake" ] \
    && [ -f "$root/usr/lib/$multiarch/libstriate_core.a" ] && pass "libraries, striate.pc and the CMake package in /usr/lib/$multiarch" \
    || fail "not in /usr/lib/$multiarch: ${pc#"$root"}, ${config#"$root"}"

if [ -n "${STRIATE_EMULATOR:-}" ]; then
    read -r -a emulator <<<"$STRIATE_EMULATOR"
    inspect=("${emulator[@]}" "$STRIATE_SYSROOT/usr/bin/gst-inspect-1.0")
    tool=("${emulator[@]}" "$root/usr/bin/striate")
    export GST_REGISTRY_FORK=no
else
    inspect=(gst-inspect-1.0)
    tool=("$root/usr/bin/striate")
fi
unset GST_PLUGIN_PATH
if GST_PLUGIN_SYSTEM_PATH=$(dirname "$plugin") GST_REGISTRY="$work/registry.bin" "${inspect[@]}" striate >inspect.txt 2>&1 \
    && grep -q "striateedges" inspect.txt && grep -q "License *LGPL" inspect.txt; then
    pass "gst-inspect-1.0 striate loads the unpacked plugin ($(grep -c '^  striate' inspect.txt) features)"
else
    fail "gst-inspect-1.0 striate: $(tail -5 inspect.txt)"
fi
"${tool[@]}" --version >version.txt 2>&1 && grep -q "$upstream" version.txt && pass "striate --version: $(cat version.txt)" \
    || fail "striate --version: $(cat version.txt)"
printf 'P5\n8 6\n255\n%s' "$(head -c 48 /dev/zero | tr '\0' '\200')" >in.pgm
"${tool[@]}" filter in.pgm out.pgm --chain "blur sigma=1" --backend cpu >filter.txt 2>&1 && [ -s out.pgm ] \
    && pass "striate filter runs" || fail "striate filter: $(cat filter.txt)"

# The on-device regression test from the package: its photo and goldens come with it.
if [ -z "${STRIATE_EMULATOR:-}" ]; then
    # Its element checks run the unpacked plugin, found where GStreamer looks for installed ones.
    XDG_CACHE_HOME=$PWD/cache GST_PLUGIN_SYSTEM_PATH=$(dirname "$plugin") GST_REGISTRY="$work/registry.bin" \
        "${tool[@]}" selftest --backend cpu --no-measure >selftest.txt 2>&1 &&
        grep -q "^selftest: .* 0 failed" selftest.txt && grep -q "^elements: the plugin $plugin " selftest.txt &&
        pass "striate selftest from the package: $(tail -1 selftest.txt), $(grep "^elements:" selftest.txt)" ||
        fail "striate selftest from the package: $(tail -3 selftest.txt)"
else
    [ -s "$root/usr/share/striate/astronaut.png" ] && ls "$root"/usr/share/striate/goldens/*.npy >/dev/null 2>&1 &&
        pass "the package holds selftest's photo and goldens" || fail "no selftest data in the package"
fi

# The main job from the package: scripts/run.sh finds the installed striate-camera (first on PATH
# here) and runs it, which finds its helpers in share/striate and the photo beside the plugin.
if [ -z "${STRIATE_EMULATOR:-}" ]; then
    if env -u STRIATE_BUILD PATH="$root/usr/bin:$PATH" GST_PLUGIN_PATH=$(dirname "$plugin") GST_REGISTRY="$work/registry.bin" \
        XDG_CACHE_HOME=$PWD/cache SOURCE=synthetic FRAMES=6 SIZE=96x64 BACKEND=cpu \
        bash "$here/../../scripts/run.sh" camera >camera.txt 2>&1 && grep -q "^edges branch: 6 frames" camera.txt \
        && grep -q "^striate: the installed one ($root/usr/bin/striate-camera, striate $upstream" camera.txt \
        && [ -s camera/side-by-side.png ] && [ -s camera/gabor.webm ]; then
        pass "scripts/run.sh runs the installed striate-camera: $(grep '^edges branch' camera.txt)"
    else
        fail "scripts/run.sh with the package installed: $(tail -5 camera.txt)"
    fi
fi

if [ -z "${STRIATE_EMULATOR:-}" ]; then
    # The public headers alone: each compiles by itself against the package's include directory
    # (no header of the source tree), and none names a GLES type or header (gles::, EGL, GLES).
    headers=$(cd "$root/usr/include/striate" && find . -name '*.h' | sort)
    bad=""
    for h in $headers; do
        printf '#include "%s"\nint main() { return 0; }\n' "${h#./}" >header.cpp
        c++ -std=c++20 -fsyntax-only -I "$root/usr/include/striate" header.cpp >header.txt 2>&1 || bad="$bad ${h#./}"
    done
    named=$(grep -lE "gles::|#include.*(gles|GLES|EGL)" $(printf "$root/usr/include/striate/%s " $headers) 2>/dev/null | sed "s|$root/usr/include/striate/||" || true)
    if [ -n "$headers" ] && [ -z "$bad" ] && [ -z "$named" ]; then
        pass "the $(echo $headers | wc -w) installed headers compile alone and name no GLES type: $(echo $headers | sed 's|\./core/||g')"
    else
        fail "installed headers: not alone:${bad:- none}; naming GLES: ${named:-none} ($(tail -3 header.txt 2>/dev/null))"
    fi
    # The package's paths are /usr/...; unpacked elsewhere, both the CMake package and striate.pc
    # find their prefix from where they are (relocatable).
    for how in cmake pkg-config; do
        flags=(-DCMAKE_PREFIX_PATH="$root/usr")
        [ "$how" = pkg-config ] && flags=(-DUSE_PKG_CONFIG=ON)
        if PKG_CONFIG_PATH="$(dirname "$pc")" cmake -S "$here/consumer" -B "consumer-$how" -G Ninja "${flags[@]}" >cfg.txt 2>&1 \
            && ninja -C "consumer-$how" >make.txt 2>&1 && "consumer-$how/consumer" >run.txt 2>&1 \
            && grep -Eq "^cpu: 0\.00[0-9]( [01]\.[0-9]{3}){6} (0\.99[0-9]|1\.000)$" run.txt; then
            pass "a program builds against the package through $how and runs: $(cat run.txt)"
        else
            fail "consumer through $how: $(tail -5 cfg.txt make.txt run.txt 2>/dev/null)"
        fi
    done
fi

# The Python module's package, where the build made the module.
if [ -n "$(find "$build/python" -maxdepth 1 -name 'striate.*.so' 2>/dev/null)" ]; then
    if [ ${#pydebs[@]} -eq 1 ] && [ -f "${pydebs[0]}" ]; then
        pydeb=${pydebs[0]}
        pydepends=$(dpkg-deb -f "$pydeb" Depends)
        [ "$(basename "$pydeb")" = "python3-striate_${version}_${arch}.deb" ] && [ "$(dpkg-deb -f "$pydeb" Architecture)" = "$arch" ] \
            && pass "named $(basename "$pydeb")" || fail "python package name $(basename "$pydeb")"
        if echo "$pydepends" | grep -q "python3 (>= 3\.[0-9]*), python3 (<< 3\.[0-9]*), python3-numpy, striate (= $version)" \
            && echo "$pydepends" | grep -q "libstdc++6"; then
            pass "python3-striate depends on $pydepends"
        else
            fail "python3-striate's dependencies: $pydepends"
        fi
        dpkg -x "$pydeb" "$root"
        module=$(find "$root/usr/lib/python3/dist-packages" -name 'striate.cpython-3*.so' 2>/dev/null)
        case $module in
            "$root"/usr/lib/python3/dist-packages/striate.cpython-3[0-9]*-"$multiarch".so) pass "module in dist-packages: ${module#"$root"}" ;;
            *) fail "module at '${module#"$root"}'" ;;
        esac
        if [ -n "${STRIATE_EMULATOR:-}" ]; then
            python=("${emulator[@]}" "$(ls "$STRIATE_SYSROOT"/usr/bin/python3.[0-9]* | grep -E 'python3\.[0-9]+$' | head -1)")
            backends="['cpu']"
        else
            python=(/usr/bin/python3)
            backends="['cpu']"
        fi
        code="import striate; p = striate.probe(); rows = striate.selftest(backends=$backends, measure=False)
print('striate', striate.__version__, 'auto', p.get('auto'), len(rows), 'rows', sum(not r['pass'] for r in rows), 'failed')"
        if PYTHONPATH="$root/usr/lib/python3/dist-packages" XDG_CACHE_HOME=$PWD/cache GST_PLUGIN_SYSTEM_PATH=$(dirname "$plugin") \
            GST_REGISTRY="$work/registry.bin" "${python[@]}" -c "$code" >python.txt 2>&1 \
            && grep -q "^striate $upstream auto .* 0 failed$" python.txt; then
            pass "import striate from the package: probe() and selftest(): $(tail -1 python.txt)"
        else
            fail "import striate from the package: $(tail -5 python.txt)"
        fi
    else
        fail "no single python3-striate .deb in $(ls "$work/dist")"
    fi
fi

# What `apt install ./striate_*.deb ./python3-striate_*.deb` does on a fresh system of the build's
# release: every Depends resolves there (trixie's armhf renamed its libraries, and a python3-striate
# is only for its release's Python).
empty=$work/empty-status
: >"$empty"
apt_config=${STRIATE_SYSROOT:+$STRIATE_SYSROOT/.apt/apt.conf}  # scripts/sysroot.sh's package lists
debs_here=("$deb")
[ ${#pydebs[@]} -eq 1 ] && [ -f "${pydebs[0]}" ] && debs_here+=("${pydebs[0]}")
names=$(for d in "${debs_here[@]}"; do basename "$d"; done | paste -sd' ')
if ${apt_config:+env APT_CONFIG="$apt_config"} apt-get -o "Dir::State::status=$empty" --simulate -q install "${debs_here[@]}" \
    >apt.txt 2>&1; then
    pass "apt installs $names on an empty $arch system ($(grep -c '^Inst ' apt.txt) packages)"
else
    fail "apt cannot install $names: $(grep -E '^ |^E:' apt.txt | head -8)"
fi

finish
