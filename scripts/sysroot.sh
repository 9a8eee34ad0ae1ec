#!/usr/bin/env bash
# scripts/sysroot.sh ARCH DIR [RELEASE]: a Debian sysroot for cross builds of the whole project (the
# plugin, both GLES backends, the tool, every test) and for running them under qemu-user.
#   ARCH     arm64 or armhf
#   DIR      where the sysroot goes; rebuilt only when the package list or this script changed
#            (DIR/.striate-sysroot holds the key), so a second run costs nothing.
#   RELEASE  bookworm (Debian 12, Raspberry Pi OS Legacy; the default) or trixie (Debian 13,
#            today's Raspberry Pi OS): the suites, its -updates and -security, from the host's
#            mirror whatever release the host runs.
# How (docs/boards.md, "Cross builds and tests under qemu"): apt's own resolver on a
# private state (its own lists, cache and an empty dpkg status, APT::Architectures=ARCH) downloads
# the packages and their dependencies; `dpkg-deb -x` unpacks each into DIR; absolute symlinks are
# rewritten as relative ones (a linker under --sysroot would follow them out of DIR). No root
# changes, no `dpkg --add-architecture`: multiarch cannot hold these -dev packages beside the
# host's. Each package's symbols, shlibs and file list go to DIR/var/lib/dpkg/info and its control
# to DIR/var/lib/dpkg/status, so dpkg-shlibdeps (DPKG_ADMINDIR=DIR/var/lib/dpkg) finds which
# package holds a library and its symbols (cpack; cmake/Install.cmake). The file lists name the
# files by their path here (DIR/usr/lib/...): that is the path dpkg-shlibdeps asks about.
#
# `scripts/sysroot.sh --packages` prints the package list (the cache key's main part).
set -euo pipefail

packages=(
  libc6-dev libstdc++6
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev                 # the plugin, GstHarness
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-gl  # gst-launch lines
  libegl-dev libgles-dev libgbm-dev libegl-mesa0 libgl1-mesa-dri        # GLES on llvmpipe
  libpng-dev libjpeg62-turbo-dev                                        # the tool's image files
  python3-dev pybind11-dev python3-numpy python3-pytest                 # the Python module and its tests
)

if [ "${1:-}" = "--packages" ]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi
release=${3:-bookworm}
if [ $# -lt 2 ] || [ $# -gt 3 ] || { [ "$1" != arm64 ] && [ "$1" != armhf ]; } ||
   { [ "$release" != bookworm ] && [ "$release" != trixie ]; }; then
  echo "usage: scripts/sysroot.sh arm64|armhf DIR [bookworm|trixie]" >&2
  exit 2
fi
arch=$1
dir=$2
key="$(printf '%s\n' "$arch" "$release" "${packages[@]}" | cat - "$0" | sha256sum | cut -c1-16)"
if [ -f "$dir/.striate-sysroot" ] && [ "$(cat "$dir/.striate-sysroot")" = "$key" ]; then
  echo "sysroot: $dir is up to date ($arch $release, key $key)"
  exit 0
fi

start=$SECONDS
rm -rf "$dir"
mkdir -p "$dir"
dir=$(realpath "$dir")
state="$dir/.apt"
mkdir -p "$state/etc/apt/sources.list.d" "$state/etc/apt/preferences.d" "$state/etc/apt/apt.conf.d" \
         "$state/lists/partial" "$state/cache/archives/partial" "$dir/var/lib/dpkg/info"
# The release's suites from the host's mirror (whatever release the host runs), read for ARCH.
mirror=$(bash "$(dirname "$0")/debian_mirror.sh")
cat >"$state/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $release $release-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${mirror%/debian*}/debian-security
Suites: $release-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
: >"$dir/var/lib/dpkg/status"
echo 1 >"$dir/var/lib/dpkg/info/format"  # dpkg's multiarch layout: info/pkg:arch.* for Multi-Arch: same
echo "$arch" >"$dir/var/lib/dpkg/arch"
# apt's configuration for this sysroot, kept for later questions (tests/scripts/deps_test.sh:
# APT_CONFIG=DIR/.apt/apt.conf apt-get --simulate ...).
cat >"$state/apt.conf" <<EOF
Dir::Etc "$state/etc/apt";
Dir::Etc::TrustedParts "/etc/apt/trusted.gpg.d";
Dir::Etc::Trusted "/etc/apt/trusted.gpg";
Dir::State "$state";
Dir::State::Lists "$state/lists";
Dir::Cache "$state/cache";
Dir::State::status "$dir/var/lib/dpkg/status";
APT::Architecture "$arch";
APT::Architectures { "$arch"; };
APT::Install-Recommends "false";
Debug::NoLocking "true";
APT::Sandbox::User "$(id -un)";
EOF
export APT_CONFIG="$state/apt.conf"
# An index that fails (this mirror cannot serve armhf's security index) leaves its suite out;
# the install below says so if a package is then missing.
apt-get -q update || echo "sysroot: some $arch indexes failed to download (carrying on)"
apt-get -q -y --download-only install "${packages[@]}" >"$state/install.log" \
  || { cat "$state/install.log" >&2; echo "sysroot: apt could not resolve the $arch packages" >&2; exit 1; }

n=0
for deb in "$state"/cache/archives/*.deb; do
  dpkg-deb -x "$deb" "$dir"
  # dpkg's own naming: pkg:arch for Multi-Arch: same packages, pkg otherwise.
  name=$(dpkg-deb -f "$deb" Package)
  [ "$(dpkg-deb -f "$deb" Multi-Arch)" = same ] && name="$name:$arch"
  control="$state/control"
  rm -rf "$control" && dpkg-deb -e "$deb" "$control"
  for f in symbols shlibs; do
    [ -f "$control/$f" ] && cp "$control/$f" "$dir/var/lib/dpkg/info/$name.$f"
  done
  dpkg-deb -c "$deb" | awk -v root="$dir" '{ p = $6; sub(/^\./, "", p); sub(/\/$/, "", p); print root p }' \
    >"$dir/var/lib/dpkg/info/$name.list"
  { dpkg-deb -f "$deb" | sed '1a Status: install ok installed'; echo; } >>"$dir/var/lib/dpkg/status"
  n=$((n + 1))
done
rm -rf "$state/cache/archives"/*.deb "$state/control"

# Absolute symlinks point into the host; make them relative to their place in the sysroot.
find "$dir" -type l -lname '/*' -print0 | while IFS= read -r -d '' link; do
  target=$(readlink "$link")
  ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$dir$target")" "$link"
done
# What update-alternatives would have made (maintainer scripts do not run here): the reference
# BLAS and LAPACK numpy loads (libblas.so.3, liblapack.so.3) beside the other libraries.
for alt in blas/libblas.so.3 lapack/liblapack.so.3; do
  lib="$dir/usr/lib/$(dpkg-architecture -a"$arch" -qDEB_HOST_MULTIARCH 2>/dev/null)"
  [ -e "$lib/$alt" ] && [ ! -e "$lib/$(basename "$alt")" ] && ln -s "$alt" "$lib/$(basename "$alt")"
done
echo "$key" >"$dir/.striate-sysroot"
echo "$release" >"$dir/.striate-release"
echo "sysroot: $arch $release, $n packages, $(du -sh "$dir" | cut -f1) in $dir ($((SECONDS - start)) s)"
