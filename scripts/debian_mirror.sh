#!/usr/bin/env bash
# scripts/debian_mirror.sh: prints this machine's Debian mirror (the first .../debian URI of its
# apt sources, whatever release it runs), or deb.debian.org's. The sysroots (scripts/sysroot.sh)
# and the Pi GPU shims (scripts/pi_gpu.sh) read their suites from it.
set -euo pipefail
mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null |
         awk '/^URIs:/ || /^deb / { for (i = 2; i <= NF; ++i) if ($i ~ /^https?:\/\/.*\/debian\/?$/) { print $i; exit } }') || true
echo "${mirror:-http://deb.debian.org/debian}"
