#!/usr/bin/env bash
# deps_test.sh ARCH SYSROOT: every package scripts/deps.sh would install on an ARCH board (a
# Raspberry Pi with the sysroot's release: Raspberry Pi OS trixie or bookworm), in its build list and its runtime list,
# exists for ARCH and resolves, asked of apt with the package lists of the sysroot
# scripts/sysroot.sh made for ARCH, from an empty system (nothing installed), so the README's two
# commands and the package's Recommends can set up a Pi.
set -u
arch=$1
sysroot=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
conf="$sysroot/.apt/apt.conf"
[ -f "$conf" ] || { echo "FAIL: $conf missing: make the sysroot with scripts/sysroot.sh $arch DIR"; exit 1; }
release=$(cat "$sysroot/.striate-release" 2>/dev/null || echo bookworm)
mapfile -t packages < <(bash "$root/scripts/deps.sh" --list "$arch" "$release")
mapfile -t runtime < <(bash "$root/scripts/deps.sh" --runtime --list "$arch" "$release")
# CPack's Debian generator needs file(1): native packaging on the board fails without it.
case " ${packages[*]} " in
  *" file "*) echo "ok: the $arch build list has file (CPack's dpkg-shlibdeps)" ;;
  *) echo "FAIL: the $arch build list lacks file"; exit 1 ;;
esac
case " ${packages[*]} " in
  *" qemu-user "* | *"-linux-gnu "* | *" libsimde-dev "*) echo "FAIL: the $arch list has cross-build packages: ${packages[*]}"; exit 1 ;;
esac
empty=$(mktemp)
trap 'rm -f "$empty"' EXIT
resolve() {  # resolve WHAT PACKAGE...
  local what=$1; shift
  if APT_CONFIG="$conf" apt-get -o "Dir::State::status=$empty" --simulate -q install "$@" >apt.txt 2>&1; then
    echo "ok: apt resolves all $# packages of deps.sh's $what for $arch $release ($(grep -c '^Inst ' apt.txt) to install from an empty system)"
  else
    echo "FAIL: apt cannot install deps.sh's $what for $arch:"; tail -20 apt.txt; exit 1
  fi
}
resolve "build list" "${packages[@]}"
resolve "runtime list" "${runtime[@]}"
