#!/usr/bin/env bash
# scripts/qemu_plugin.sh DIR: bench/qemu/insn_count.c built as a plugin of this machine's
# qemu-user (DIR/insn_count.so), for scripts/cpu_estimate.py (docs/boards.md, "The boards' own
# cores"). Debian ships qemu-user with plugin support but not the plugin API's header: it comes
# from the source package of the installed qemu-user (apt-get source, checked against the signed
# Sources index as apt checks every download), include/qemu/qemu-plugin.h alone. Rebuilt only
# when this script, the plugin's source or qemu-user's version changed.
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: scripts/qemu_plugin.sh DIR" >&2
  exit 2
fi
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
source_c="$here/../bench/qemu/insn_count.c"
version=$(dpkg-query -W -f '${source:Version}' qemu-user 2>/dev/null) || { echo "qemu-plugin: qemu-user is not installed (scripts/deps.sh)" >&2; exit 1; }
key="$(cat "$0" "$source_c" | sha256sum | cut -c1-16)-$version"
if [ -f "$dir/.striate-qemu-plugin" ] && [ "$(cat "$dir/.striate-qemu-plugin")" = "$key" ]; then
  echo "qemu-plugin: $dir/insn_count.so is up to date (qemu-user $version)"
  exit 0
fi
start=$SECONDS
rm -rf "$dir"
mkdir -p "$dir"
dir=$(realpath "$dir")
state="$dir/.apt"
mkdir -p "$state/etc/apt/sources.list.d" "$state/etc/apt/preferences.d" "$state/etc/apt/apt.conf.d" "$state/lists/partial" \
         "$state/src"
: >"$state/status"
# The host's mirror and suites, as source lines (the installed qemu-user may come from any of them).
mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null |
         awk '/^URIs:/ || /^deb / { for (i = 2; i <= NF; ++i) if ($i ~ /^https?:\/\/.*\/debian\/?$/) { print $i; exit } }') || true
mirror=${mirror:-http://deb.debian.org/debian}
codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
cat >"$state/etc/apt/sources.list.d/source.sources" <<EOS
Types: deb-src
URIs: $mirror
Suites: $codename $codename-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: ${mirror%/debian*}/debian-security
Suites: $codename-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
cat >"$state/apt.conf" <<EOS
Dir::Etc "$state/etc/apt";
Dir::Etc::TrustedParts "/etc/apt/trusted.gpg.d";
Dir::Etc::Trusted "/etc/apt/trusted.gpg";
Dir::State "$state";
Dir::State::Lists "$state/lists";
Dir::Cache "$state/cache";
Dir::State::status "$state/status";
Debug::NoLocking "true";
APT::Sandbox::User "$(id -un)";
EOS
export APT_CONFIG="$state/apt.conf"
apt-get -q update >"$state/update.log" 2>&1 || { cat "$state/update.log" >&2; echo "qemu-plugin: apt update failed" >&2; exit 1; }
(cd "$state/src" && apt-get -q source --download-only "qemu=$version") >"$state/download.log" 2>&1 \
  || { cat "$state/download.log" >&2; echo "qemu-plugin: could not download the source of qemu $version" >&2; exit 1; }
orig=$(ls "$state"/src/qemu_*.orig.tar.* | head -n 1)
header=$(tar -tf "$orig" | grep '/include/qemu/qemu-plugin\.h$' | sed -n 1p)
[ -n "$header" ] || { echo "qemu-plugin: $orig has no include/qemu/qemu-plugin.h" >&2; exit 1; }
tar -xf "$orig" -C "$state" "$header"
mkdir -p "$dir/include"
cp "$state/$header" "$dir/include/"
gcc -shared -fPIC -O2 -Wall -Wextra -Werror -I"$dir/include" -o "$dir/insn_count.so" "$source_c"
rm -rf "$state/src" "$state/${header%%/*}"
echo "$key" >"$dir/.striate-qemu-plugin"
echo "qemu-plugin: $dir/insn_count.so against qemu $version's plugin API ($((SECONDS - start)) s)"
