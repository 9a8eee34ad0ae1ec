#!/usr/bin/env bash
# `striate selftest`: the quick battery passes on every backend this machine runs (also under
# GLES 3.0 and 2.0), stores its timings, and `auto` then picks what it measured; a corrupted
# golden and a deliberately wrong backend (tests/tools/wrong_backend.cpp) each make it exit 1
# naming the cases. Under an emulator (a cross build) the cpu backend alone: the reference on the
# board against the goldens made on x86 is the point there. In the sanitizer build
# (STRIATE_SELFTEST_SANITIZED=1) every backend runs, unmeasured: the timings, `auto` after them and
# the report's rendering are the host build's checks.
#   selftest_test.sh STRIATE WRONG_BACKEND_PROGRAM WORK_DIR
set -u
bin=$(realpath "$1")
wrong=$(realpath "$2")
work=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
read -r -a emulator <<<"${STRIATE_EMULATOR:-}"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
export XDG_CACHE_HOME=$work/cache
# shellcheck source=tests/scripts/checks.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../scripts/checks.sh"
only=()
measured=yes
if [ ${#emulator[@]} -gt 0 ]; then
    only=(--backend cpu --no-measure) measured=
elif [ -n "${STRIATE_SELFTEST_SANITIZED:-}" ]; then
    only=(--no-measure) measured=
fi

"${emulator[@]}" "$bin" selftest "${only[@]}" --json report.json --report html >out.txt 2>err.txt
rc=$?
if [ "$rc" -eq 0 ] && grep -q "^selftest: .* 0 failed" out.txt; then
    pass "selftest passes: $(grep "^selftest:" out.txt)"
else
    fail "selftest: exit $rc $(grep -E "^regression|^selftest" out.txt | head -5) $(cat err.txt)"
fi
grep -q '"failures": 0' report.json && grep -q '"check": "golden"' report.json && pass "json report" || fail "json report"
for backend in cpu gles-compute gles-fragment; do
    [ ${#emulator[@]} -gt 0 ] && [ "$backend" != cpu ] && continue
    grep -q "^PASS $backend " out.txt && pass "rows on $backend" || fail "no passing rows on $backend"
    if [ -n "${GST_PLUGIN_PATH:-}" ]; then
        # The elements through appsrc ! element ! appsink, every 8-bit input format but packed 4:2:2 on cpu.
        n=$(grep -c "^PASS $backend .* element .*131x67" out.txt)
        # Five elements (a stage element per stage, striatechain): nine cases each on cpu (the 8-bit
        # input formats but packed 4:2:2, and 16-bit output), four on GLES.
        want=$([ "$backend" = cpu ] && echo 45 || echo 20)
        [ "$n" -eq "$want" ] && pass "$n element cases on $backend" || fail "$n of $want element cases pass on $backend"
    fi
done

# The HTML report: complete (every image it names exists, a chart), and it renders: a headless
# Chromium screenshot of it that is not blank.
NO_CHART=${only[*]} python3 - <<'PY' && pass "report: every image it names exists, chart and sections present" || fail "report incomplete"
import os, re
page = open("html/index.html").read()
images = re.findall(r'<img src="([^"]+)"', page)
assert images and all(os.path.getsize(os.path.join("html", i)) > 60 for i in images), "missing images"
assert page.count("<section") * 4 == len(images), "four images a section"
assert "<svg" in page or os.environ["NO_CHART"], "no chart"  # the chart needs the timings
PY
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$measured" ]; then
    echo "skip: the report's rendering (an unmeasured run: the host build renders it)"
elif [ -z "$browser" ]; then
    echo "skip: the report's rendering (no chromium here; apt install chromium)"
else
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,1400 \
        --screenshot="$PWD/shot.png" "file://$PWD/html/index.html" >browser.txt 2>&1
    /usr/bin/python3 - <<'PY' && pass "report renders (headless Chromium screenshot shows text, chart and images)" || fail "report screenshot: $(tail -2 browser.txt)"
import skimage.io
shot = skimage.io.imread("shot.png")[..., :3].astype(float)
# Not blank: the page's light background plus a real share of darker text, bars and photos.
dark = (shot.mean(axis=2) < 128).mean()
colours = len({tuple(p) for p in shot[::7, ::7].reshape(-1, 3).astype(int)})
assert dark > 0.01 and colours > 50, (dark, colours)
PY
fi

if [ ${#emulator[@]} -eq 0 ] && "$bin" probe | grep -q "^gles: "; then
    if [ -n "$measured" ]; then
        # auto after selftest: the measured fastest, and probe says that rule chose it.
        ls cache/striate/*.json >/dev/null 2>&1 && pass "timings stored: $(ls cache/striate)" || fail "no timings in cache/striate"
        "$bin" probe >probe.txt 2>&1
        grep -q "^auto backend: .* (measured fastest on board 'host' by striate selftest" probe.txt &&
            pass "probe: $(grep "^auto backend" probe.txt)" || fail "probe after selftest: $(grep "^auto" probe.txt)"
        # ... for a chain of every kind of stage (each stage's timed chains, core/params.cpp).
        for chain in "blur sigma=3" "gabor sigma=3 wavelength=9" "edges method=gabor" "threshold sigma=5"; do
            "$bin" probe --chain "$chain" --size 64x48 >probe-chain.txt 2>&1
            grep -q "^auto backend: .* (measured fastest on board 'host' by striate selftest" probe-chain.txt &&
                pass "probe --chain '$chain': $(grep "^auto backend" probe-chain.txt)" ||
                fail "probe --chain '$chain' after selftest: $(grep "^auto" probe-chain.txt)" probe-chain.txt
        done
    fi
    for version in 3.0 2.0; do
        MESA_GLES_VERSION_OVERRIDE=$version "$bin" selftest --no-measure >out.txt 2>&1 &&
            pass "selftest under GLES $version: $(tail -1 out.txt)" || fail "selftest under GLES $version: $(grep -E "^regression" out.txt | head -3)"
    done
fi

# gst-launch needs the installed plugins (videotestsrc) beside the build tree's.
launch=(env -u GST_PLUGIN_SYSTEM_PATH -u GST_REGISTRY -u GST_REGISTRY_FORK)
if [ -n "$measured" ] && "${launch[@]}" gst-inspect-1.0 striateedges >/dev/null 2>&1; then
    # The elements' auto reads the same measurements.
    "${launch[@]}" gst-launch-1.0 -v videotestsrc num-buffers=1 ! video/x-raw,width=64,height=48 ! striateedges ! fakesink >launch.txt 2>&1
    expected=$(sed -n "s/^auto backend: \([a-z-]*\) (measured.*/\1/p" probe.txt)
    grep -q "striateedges0: active-backend = $expected" launch.txt && pass "the element's auto runs $expected too" ||
        fail "element auto: $(grep active-backend launch.txt)"
fi

[ ${#emulator[@]} -gt 0 ] && finish  # the rest is no matter of the target

# A corrupted golden: the reference no longer matches it; exit 1 naming the case.
cp -r "$here/../data" data
python3 - <<'PY'
import struct
path = "data/goldens/shapes-17x13-blur_sigma_2_method_direct.npy"
d = bytearray(open(path, "rb").read())
start = 10 + (d[8] | d[9] << 8)
d[start:start + 4] = struct.pack("<f", struct.unpack("<f", d[start:start + 4])[0] + 0.01)
open(path, "wb").write(d)
PY
"$bin" selftest --backend cpu --no-measure --data data >out.txt 2>&1
rc=$?
[ "$rc" -eq 1 ] && grep -q "^regression: FAIL reference .* golden .*blur sigma=2 method=direct .* shapes *17x13" out.txt &&
    pass "a corrupted golden: exit 1, $(grep -c "^regression" out.txt) case named" || fail "corrupted golden: exit $rc $(grep "^regression" out.txt)"

# A wrong backend: exit 1, each wrong case named.
"$wrong" --backend cpu --no-measure >out.txt 2>&1
rc=$?
[ "$rc" -eq 1 ] && grep -q "^regression: FAIL cpu .* reference .*blur sigma=2 method=direct" out.txt &&
    pass "a wrong backend: exit 1, $(grep -c "^regression" out.txt) cases named" || fail "wrong backend: exit $rc $(tail -3 out.txt)"
if [ -n "${GST_PLUGIN_PATH:-}" ]; then
    # The elements (running the real backend) no longer match the wrong one's direct result.
    grep -q "^regression: FAIL cpu .* element .*striateedges .*NV12>GRAY8" out.txt &&
        pass "a wrong backend: the element cases named too" || fail "wrong backend: no element case named"
fi

"$bin" selftest --backend gpu >out.txt 2>err.txt
[ $? -eq 2 ] && grep -q "unknown backend 'gpu'" err.txt && pass "usage error: exit 2" || fail "usage error"

finish
