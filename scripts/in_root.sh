#!/usr/bin/env bash
# scripts/in_root.sh ROOT COMMAND...: runs COMMAND as root inside the Debian root ROOT
# (scripts/debian_root.sh), in the current directory, which must lie in this source tree or in
# $STRIATE_CACHE: those two appear at their own paths there, so a build made inside names the
# same files as seen from outside; /proc, /sys and /dev are the machine's. The mounts live in a mount namespace of their own
# (unshare), so they go when COMMAND ends, whatever way it ends.
set -euo pipefail
[ $# -ge 2 ] && [ -d "$1/usr" ] || { echo "usage: scripts/in_root.sh ROOT COMMAND... (ROOT: a Debian root)" >&2; exit 2; }
root=$(realpath "$1")
shift
tree=$(cd "$(dirname "$0")/.." && pwd)
cache=${STRIATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/striate}
mkdir -p "$cache"
case $PWD/ in
  "$tree"/* | "$cache"/*) ;;
  *) echo "in_root.sh: the current directory $PWD is outside $tree and $cache, so not in the root" >&2; exit 2 ;;
esac
exec unshare --mount --propagation private -- /bin/sh -euc '
root=$1 tree=$2 cache=$3 here=$4
shift 4
for d in proc sys dev; do mount --rbind "/$d" "$root/$d"; done
mkdir -p "$root$tree" "$root$cache"
mount --bind "$tree" "$root$tree"
mount --bind "$cache" "$root$cache"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
exec chroot "$root" /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$here" "$@"
' in_root "$root" "$tree" "$cache" "$PWD" "$@"
