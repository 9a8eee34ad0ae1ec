#!/usr/bin/env bash
# scripts/debian_root.sh RELEASE DIR: a Debian root of this machine's architecture for the release,
# with what the host build and its tests need (scripts/deps.sh --native), for the test command's
# native leg on another release (scripts/test.sh: Debian 13, trixie, on a Debian 12 machine).
#   RELEASE  bookworm or trixie: its suites, -updates and -security from this machine's mirror
#   DIR      where the root goes; rebuilt only when the package list or this script changed
#            (DIR/.striate-root holds the key), so a second run costs nothing.
# mmdebstrap (root mode) makes it: apt inside the new root, so the release's own apt and dpkg
# resolve and unpack; its package lists are kept (the package test asks apt with them).
# scripts/in_root.sh runs commands in it.
set -euo pipefail
if [ $# -ne 2 ] || { [ "$1" != bookworm ] && [ "$1" != trixie ]; }; then
  echo "usage: scripts/debian_root.sh bookworm|trixie DIR" >&2
  exit 2
fi
release=$1
dir=$2
here=$(dirname "$0")
arch=$(dpkg --print-architecture)
mapfile -t packages < <(bash "$here/deps.sh" --native --list "$arch" "$release")
key="$(printf '%s\n' "$arch" "$release" "${packages[@]}" | cat - "$0" | sha256sum | cut -c1-16)"
if [ -f "$dir/.striate-root" ] && [ "$(cat "$dir/.striate-root")" = "$key" ]; then
  echo "root: $dir is up to date ($arch $release, key $key)"
  exit 0
fi

start=$SECONDS
rm -rf "$dir"
mirror=$(bash "$here/debian_mirror.sh")
mmdebstrap --quiet --variant=minbase --components=main --skip=cleanup/apt/lists \
           --include="$(IFS=,; echo "${packages[*]}")" \
           --aptopt='APT::Install-Recommends "false"' \
           "$release" "$dir" \
           "deb $mirror $release main" "deb $mirror $release-updates main" \
           "deb ${mirror%/debian*}/debian-security $release-security main"
echo "$key" >"$dir/.striate-root"
echo "root: $dir ($arch $release, key $key, $(du -sh "$dir" | cut -f1)) in $((SECONDS - start)) s"
