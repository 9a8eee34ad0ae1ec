#!/usr/bin/env bash
# scripts/pi_gpu.sh SYSROOT DIR: what the real Raspberry Pi GPU compilers need to run here
# (docs/boards.md, "The real Pi GPU compilers").
#   SYSROOT  an arm64 sysroot (scripts/sysroot.sh arm64 DIR [RELEASE]): bookworm's Mesa 22.3.6 has
#            the vc4 (Pi 0-3) and v3d (Pi 4, V3D 4.2) drivers; trixie's Mesa 25.0.7 has V3D 7.1 too
#   DIR      where the result goes; rebuilt only when this script or the sysroot's key changed
# DIR/shim/       Mesa's noop DRM shims for arm64 (package mesa-drm-shim: bookworm-backports' for a
#                 bookworm sysroot, trixie's own for a trixie one): libvc4_noop_drm_shim.so and
#                 libv3d_noop_drm_shim.so. Preloaded into an arm64 process under qemu-aarch64, they
#                 make EGL open a fake vc4 or v3d device, so every shader goes through the real
#                 backend compiler; nothing executes.
# DIR/mesa25/     (bookworm only) the Pi 5 (V3D 7.1, which Mesa 22.3.6 cannot compile for):
#                 bookworm-backports' Mesa 25 libraries and DRI drivers, run with the sysroot under
#                 them (LD_LIBRARY_PATH, LIBGL_DRIVERS_PATH); a trixie sysroot's own Mesa compiles
#                 for V3D 7.1
# DIR/v3d71_ident.so  the Pi 5's identity over the v3d noop shim, which answers as a V3D 4.2
#                 (scripts/v3d71_ident.c says which values are known and which assumed)
# Fallback where backports no longer has mesa-drm-shim: `apt-get source mesa` and build
# src/drm-shim/*.c with src/broadcom/drm-shim/{vc4,v3d}_noop.c (docs/boards.md).
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: scripts/pi_gpu.sh ARM64_SYSROOT DIR" >&2
  exit 2
fi
sysroot=$(realpath "$1")
dir=$2
here=$(cd "$(dirname "$0")" && pwd)
shim_packages=(mesa-drm-shim)
mesa25_packages=(mesa-libgallium libgl1-mesa-dri libegl-mesa0 libgbm1 libdrm2 libdrm-common libdrm-amdgpu1)
release=$(cat "$sysroot/.striate-release" 2>/dev/null || echo bookworm)
suite=bookworm-backports
[ "$release" = bookworm ] || { suite=$release; mesa25_packages=(); }
key="$(cat "$0" "$here/v3d71_ident.c" "$sysroot/.striate-sysroot" | sha256sum | cut -c1-16)"
if [ -f "$dir/.striate-pi-gpu" ] && [ "$(cat "$dir/.striate-pi-gpu")" = "$key" ]; then
  echo "pi-gpu: $dir is up to date (key $key)"
  exit 0
fi
start=$SECONDS
rm -rf "$dir"
mkdir -p "$dir"
dir=$(realpath "$dir")
state="$dir/.apt"
mkdir -p "$state/etc/apt/sources.list.d" "$state/etc/apt/preferences.d" "$state/etc/apt/apt.conf.d" "$state/lists/partial" \
         "$state/cache/archives/partial"
: >"$state/status"
# The host's mirror, the one suite (bookworm-backports, or the sysroot's release: apt's resolver
# still sees what each package needs, and the download is of the named packages alone: the rest
# comes from the sysroot).
mirror=$(bash "$here/debian_mirror.sh")
cat >"$state/etc/apt/sources.list.d/backports.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
cat >"$state/apt.conf" <<EOF
Dir::Etc "$state/etc/apt";
Dir::Etc::TrustedParts "/etc/apt/trusted.gpg.d";
Dir::Etc::Trusted "/etc/apt/trusted.gpg";
Dir::State "$state";
Dir::State::Lists "$state/lists";
Dir::Cache "$state/cache";
Dir::State::status "$state/status";
APT::Architecture "arm64";
APT::Architectures { "arm64"; };
Debug::NoLocking "true";
APT::Sandbox::User "$(id -un)";
EOF
export APT_CONFIG="$state/apt.conf"
apt-get -q update >"$state/update.log" 2>&1 || { cat "$state/update.log" >&2; echo "pi-gpu: apt update failed" >&2; exit 1; }
(cd "$state/cache/archives" && apt-get -q download "${shim_packages[@]}" "${mesa25_packages[@]}") >"$state/download.log" 2>&1 \
  || { cat "$state/download.log" >&2; echo "pi-gpu: could not download ${shim_packages[*]} ${mesa25_packages[*]} (arm64, $suite)" >&2; exit 1; }

mkdir -p "$dir/shim"
[ ${#mesa25_packages[@]} -eq 0 ] || mkdir -p "$dir/mesa25"
for deb in "$state"/cache/archives/*.deb; do
  case $(dpkg-deb -f "$deb" Package) in
    mesa-drm-shim) dpkg-deb -x "$deb" "$state/x" ;;
    *) dpkg-deb -x "$deb" "$dir/mesa25" ;;
  esac
done
find "$state/x" \( -name libvc4_noop_drm_shim.so -o -name libv3d_noop_drm_shim.so \) -exec cp {} "$dir/shim/" \;
for so in libvc4_noop_drm_shim.so libv3d_noop_drm_shim.so; do
  [ -f "$dir/shim/$so" ] || { echo "pi-gpu: mesa-drm-shim has no $so" >&2; exit 1; }
done
aarch64-linux-gnu-gcc --sysroot="$sysroot" -shared -fPIC -O2 -Wall -Wextra -o "$dir/v3d71_ident.so" "$here/v3d71_ident.c" -ldl
rm -rf "$state/cache/archives"/*.deb "$state/x"
echo "$key" >"$dir/.striate-pi-gpu"
echo "pi-gpu: the vc4 and v3d noop shims ($suite)$([ -d "$dir/mesa25" ] && echo ", Mesa 25"), and the V3D 7.1 identity in $dir ($((SECONDS - start)) s)"
