#!/usr/bin/env bash
# End-to-end tests of `striate filter`: outputs, raw arrays, and one clear line with exit status 2
# for every usage or input error (never a crash).
set -u
bin=$(realpath "$1")
work=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# A cross build's tool runs under the emulator its CTest entry names (STRIATE_EMULATOR, e.g.
# "qemu-aarch64 -L SYSROOT"); a native build's runs as it is.
read -r -a emulator <<<"${STRIATE_EMULATOR:-}"
# memlimit (set by `limited` below): the address-space limit of the run, in KiB.
striate() {
    if [ -n "${memlimit:-}" ]; then (ulimit -v "$memlimit" && exec "${emulator[@]}" "$bin" "$@"); else "${emulator[@]}" "$bin" "$@"; fi
}
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
# shellcheck source=tests/scripts/checks.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../scripts/checks.sh"

# A 40x30 PGM test image (gradient plus a bright square) and a colour PPM.
python3 - <<'PY' || { echo "python3 needed"; exit 1; }
w, h = 40, 30
pix = bytes(min(255, (x * 6 + y * 2) + (120 if 10 < x < 25 and 8 < y < 20 else 0)) for y in range(h) for x in range(w))
open("in.pgm", "wb").write(b"P5\n# comment\n%d %d\n255\n" % (w, h) + pix)
rgb = bytes(v for p in pix for v in (p, 255 - p, 50))
open("in.ppm", "wb").write(b"P6\n%d %d\n255\n" % (w, h) + rgb)
open("broken.png", "wb").write(b"\x89PNG\r\n\x1a\n" + b"garbage" * 10)
open("broken.jpg", "wb").write(b"\xff\xd8\xff\xe0" + b"\x00" * 40)
open("notimage.txt", "w").write("hello\n")
open("empty.png", "wb").write(b"")
PY

# expect_ok NAME ARGS...: exit 0 and the output file exists.
expect_ok() {
    local name=$1; shift
    if striate "$@" >out.txt 2>err.txt; then pass "$name"; else fail "$name: exit $? $(cat err.txt)"; fi
}
# expect_error NAME FRAGMENT ARGS...: exit 2, exactly one line on stderr containing FRAGMENT.
expect_error() {
    local name=$1 fragment=$2; shift 2
    striate "$@" >out.txt 2>err.txt
    local rc=$?
    local lines
    lines=$(wc -l <err.txt)
    if [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && grep -qF -- "$fragment" err.txt; then
        pass "$name"
    else
        fail "$name: exit $rc, $lines lines: $(cat err.txt)"
    fi
}

expect_ok "help" --help
expect_ok "filter help" filter --help
expect_ok "version" --version
expect_ok "gabor cpu with raw" filter in.pgm g_cpu.png --chain "gabor sigma=4 wavelength=8 orientation=30" --backend cpu --raw g_cpu.npy
expect_ok "gabor reference with raw" filter in.pgm g_ref.png --chain "gabor sigma=4 wavelength=8 orientation=30" --backend reference --raw g_ref.npy
expect_ok "complex raw" filter in.ppm c.pgm --chain "gabor output=complex" --raw c.npy
expect_ok "explain" filter in.pgm e.png --chain "blur sigma=2 ! edges" --explain --backend cpu
grep -q "edges.canny" out.txt && pass "explain names kernels" || fail "explain names kernels: $(cat out.txt)"
for chain in "blur method=direct" "blur method=boxes" "blur method=recursive" "blur method=auto sigma=9" \
             "gabor method=direct" "gabor method=recursive" "gabor orientations=6" "gabor output=phase" \
             "edges" "edges method=gabor" "edges output=overlay" "edges output=strength"; do
    expect_ok "stage: $chain" filter in.ppm s.png --chain "$chain" --raw s.npy
done
expect_ok "png round trip" filter g_cpu.png g2.pgm --chain "blur sigma=1"

python3 - <<'PY' && pass "raw arrays agree and have the documented shapes" || fail "raw arrays"
import struct, sys
def load(path):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", path
    hl = data[8] | (data[9] << 8)
    header = data[10:10 + hl].decode()
    assert "'<f4'" in header and (10 + hl) % 64 == 0, header
    shape = tuple(int(v) for v in header.split("(")[1].split(")")[0].split(",") if v.strip())
    n = 1
    for s in shape: n *= s
    return shape, struct.unpack("<%df" % n, data[10 + hl:])
s1, a = load("g_cpu.npy"); s2, b = load("g_ref.npy")
assert s1 == s2 == (30, 40), (s1, s2)
worst = max(abs(x - y) for x, y in zip(a, b))
assert worst <= 1e-5, worst
s3, _ = load("c.npy")
assert s3 == (30, 40, 2), s3
PY
python3 -c "
d=open('g_cpu.png','rb').read(); assert d[:8]==b'\x89PNG\r\n\x1a\n'
p=open('g2.pgm','rb').read(); assert p.startswith(b'P5\n40 30\n255\n')" && pass "output formats" || fail "output formats"

expect_error "missing file" "cannot open 'nope.png'" filter nope.png o.png --chain blur
expect_error "empty file" "'empty.png' is empty" filter empty.png o.png --chain blur
expect_error "corrupt png" "is not a readable PNG" filter broken.png o.png --chain blur
expect_error "corrupt jpeg" "is not a readable JPEG" filter broken.jpg o.png --chain blur
expect_error "not an image" "is not a PNG, JPEG, PGM or PPM image" filter notimage.txt o.png --chain blur
expect_error "unknown stage" "unknown stage 'sharpen'" filter in.pgm o.png --chain "sharpen"
expect_error "sigma=0" "sigma=0 is outside [0.3, 256]" filter in.pgm o.png --chain "blur sigma=0"
expect_error "sigma=nan" "sigma=nan is not a finite number" filter in.pgm o.png --chain "blur sigma=nan"
expect_error "low > high" "low-threshold=0.5 is above high-threshold=0.1" filter in.pgm o.png --chain "edges low-threshold=0.5 high-threshold=0.1"
expect_error "no chain" "filter needs --chain" filter in.pgm o.png
expect_error "no output" "filter needs IN and OUT" filter in.pgm --chain blur
expect_error "bad output name" "must end in .png or .pgm" filter in.pgm o.jpg --chain blur
expect_error "unknown backend" "unknown backend 'gpu'" filter in.pgm o.png --chain blur --backend gpu
expect_error "unknown option" "unknown option '--fast'" filter in.pgm o.png --chain blur --fast
expect_error "bad threads" "--threads '0'" filter in.pgm o.png --chain blur --threads 0
expect_error "bad frames" "--frames '0'" filter in.pgm o.png --chain blur --frames 0
# --frames runs the chain on the image again from the same backend: the last frame's output is the first's.
expect_ok "edges once" filter in.pgm f1.png --chain "blur sigma=2 ! edges" --backend cpu
expect_ok "edges on 3 frames" filter in.pgm f3.png --chain "blur sigma=2 ! edges" --backend cpu --frames 3
cmp -s f1.png f3.png && pass "3 frames end as 1 does" || fail "3 frames end as 1 does: f1.png and f3.png differ"
# One set of rules with the elements (issue 16, finding 9): their ranges, decimal numbers only,
# nothing given twice.
expect_error "orientation=1e30" "orientation=1e+30 is outside [-360, 360]" filter in.pgm o.png --chain "gabor orientation=1e30"
expect_error "gain=1e300" "gain=1e+300 is outside [0, 1e+06]" filter in.pgm o.png --chain "gabor gain=1e300"
expect_error "threshold 1e308" "high-threshold=1e+308 is outside [0, 1e+06]" filter in.pgm o.png --chain "edges high-threshold=1e308"
expect_error "canny with orientations=-5 wavelength=-1" "wavelength=-1 is outside [2, 1e+06]" filter in.pgm o.png --chain "edges orientations=-5 wavelength=-1"
expect_error "sigma=0x10" "sigma='0x10' is not a number" filter in.pgm o.png --chain "blur sigma=0x10"
expect_error "a parameter twice" "sigma is given twice" filter in.pgm o.png --chain "blur sigma=2 sigma=3"
expect_error "--chain twice" "--chain is given twice" filter in.pgm o.png --chain blur --chain edges
expect_error "unknown command" "unknown command 'blur'" blur
expect_error "unwritable raw" "cannot write '/nonexistent/x.npy': no folder '/nonexistent'" filter in.pgm o.png --chain blur --raw /nonexistent/x.npy
expect_error "output in no folder" "cannot write '/nonexistent/o.png': no folder '/nonexistent'" filter in.pgm /nonexistent/o.png --chain blur
mkdir -p adir.png
expect_error "output is a folder" "cannot write 'adir.png': it is a folder" filter in.pgm adir.png --chain blur

# Inputs that are not image files, and headers that claim more than the limit: refused by name
# before anything is allocated. Natively under a 2 GB address-space limit (a small Pi): reading a
# header's size first is what keeps these from allocating gigabytes or aborting. (qemu reserves a
# 32-bit guest's whole address space up front, and AddressSanitizer terabytes for its shadow
# (STRIATE_NO_MEMORY_LIMIT): the limit is left out under the emulator and in that build.)
data=$here/../data
python3 "$here/../support/png_cases.py" . || fail "png_cases.py"
memory_limit=$([ ${#emulator[@]} -eq 0 ] && [ -z "${STRIATE_NO_MEMORY_LIMIT:-}" ] && echo 2000000)
limited() { local memlimit=$memory_limit; "$@"; }
mkdir -p adir
expect_error "a directory" "'adir' is a directory" filter adir o.png --chain edges --backend cpu
expect_error "a device" "'/dev/zero' is not a regular file" filter /dev/zero o.png --chain edges --backend cpu
# The output is checked before the input is read or filtered: a bad name fails at once.
expect_error "output checked before the input" "must end in .png or .pgm" filter huge.ppm o.jpg --chain "gabor orientations=6"
limited expect_error "huge ppm header" "32768x32768 = 1073741824 pixels, beyond the limit of 67108864" filter huge.ppm o.png --chain edges --backend cpu
limited expect_error "huge png header" "32768x32768 = 1073741824 pixels, beyond the limit" filter huge.png o.png --chain edges --backend cpu
limited expect_error "huge progressive jpeg" "32767x32768 = 1073709056 pixels, beyond the limit" filter "$data/huge-progressive.jpg" o.png --chain edges --backend cpu
limited expect_error "huge ppm, limit raised: truncated, not allocated" "'huge.ppm' is truncated" filter huge.ppm o.png --chain edges --backend cpu --max-pixels 1073741824
expect_error "20-digit pgm width" "12345678901234567890 is out of range" filter digits.pgm o.png --chain blur --backend cpu
expect_error "max-pixels refuses" "40x30 = 1200 pixels, beyond the limit of 1199" filter in.pgm o.png --chain blur --backend cpu --max-pixels 1199
expect_ok "max-pixels admits" filter in.pgm o.png --chain blur --backend cpu --max-pixels 1200
expect_error "bad max-pixels" "--max-pixels '0' is not an integer in 1..1073741824" filter in.pgm o.png --chain blur --backend cpu --max-pixels 0
if [ -n "$memory_limit" ]; then
    # A header within a raised limit whose frame does not fit the memory there: a clear error.
    limited striate filter huge_rgb16.png o.png --chain edges --backend cpu --max-pixels 1073741824 >out.txt 2>err.txt
    rc=$?
    [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q "out of memory\|not a readable PNG" err.txt &&
        pass "allocation failure is an error, not an abort" || fail "allocation failure: exit $rc $(cat err.txt)"
fi

# PNG reads the stored values: every form gives the output of its Netpbm twin, byte for byte.
striate filter in.pgm twin_grey.pgm --chain "blur sigma=1" --backend cpu && striate filter in.ppm twin_rgb.pgm --chain "blur sigma=1" --backend cpu ||
    fail "netpbm twins"
for pair in grey16:twin_grey gamma:twin_grey greya16:twin_grey interlaced:twin_grey rgba:twin_rgb palette:twin_rgb \
            interlaced_rgb:twin_rgb; do
    striate filter "${pair%%:*}.png" "${pair%%:*}.pgm" --chain "blur sigma=1" --backend cpu 2>err.txt &&
        cmp -s "${pair%%:*}.pgm" "${pair##*:}.pgm" && pass "png ${pair%%:*} reads the stored values" ||
        fail "png ${pair%%:*}: $(cat err.txt) $(cmp "${pair%%:*}.pgm" "${pair##*:}.pgm" 2>&1)"
done
for name in grey16odd bits; do
    striate filter "$name.png" "${name}_png.pgm" --chain "blur sigma=1" --backend cpu && striate filter "$name.pgm" "${name}_pgm.pgm" --chain "blur sigma=1" --backend cpu &&
        cmp -s "${name}_png.pgm" "${name}_pgm.pgm" && pass "png $name equals its pgm" || fail "png $name"
done

# The machine probe (GLES context on Mesa llvmpipe here), in builds that have GLES.
if striate probe 2>&1 | grep -q "this build has no GLES support"; then
    expect_error "probe without GLES" "this build has no GLES support" probe
else
    expect_ok "probe" probe
    grep -q "^gles: " out.txt && grep -q "^cpu: neon" out.txt && pass "probe reports gles and cpu" || fail "probe: $(cat out.txt)"
    expect_ok "probe json" probe --json
    head -c 1 out.txt | grep -q "{" && pass "probe json is an object" || fail "probe json: $(cat out.txt)"
    expect_error "probe bad option" "unknown option '--xml'" probe --xml
    grep -q '"board": {"profile": "host"' <(striate probe --json) && pass "probe json has the board" || fail "probe json board"
    expect_ok "probe board" probe --board rpi4
    grep -q "^board: rpi4 (chosen by --board)" out.txt && grep -q "^auto backend: " out.txt &&
        pass "probe applies the board and names auto's pick" || fail "probe board: $(cat out.txt)"
    STRIATE_BOARD=tight striate probe >out.txt 2>&1 && grep -q "^board: tight (chosen by STRIATE_BOARD)" out.txt &&
        pass "STRIATE_BOARD selects the profile" || fail "STRIATE_BOARD: $(cat out.txt)"
    expect_error "unknown board" "unknown board 'rpi9'" probe --board rpi9
    [ ! -s out.txt ] && pass "unknown board: nothing probed or printed first" || fail "probe printed before its error: $(head -2 out.txt)"
    # The memory each backend's plan of a chain holds, and a board's GPU memory refusing one.
    expect_ok "probe memory" probe --chain edges --size 64x48
    grep -q "^memory of 'edges .*' at 64x48:" out.txt && grep -q "^  gles-compute: .* of GPU memory, .* of host memory" out.txt &&
        grep -q "^  gles-fragment: .* of GPU memory" out.txt && grep -q "^  cpu: .* of host memory" out.txt &&
        pass "probe says each backend's memory for a chain" || fail "probe memory: $(cat out.txt)"
    grep -q '"memory": {"chain": "blur sigma=2 method=auto", "width": 64, "height": 48, "backends": {"gles-compute": {"gpu_bytes": [0-9]' \
        <(striate probe --json --chain blur --size 64x48) && pass "probe json has the memory" || fail "probe json memory"
    expect_ok "probe memory over the board's" probe --board tight --chain "gabor sigma=4 wavelength=8 orientations=6" --size 1920x1080
    grep -q "gles-fragment: not here: gles-fragment needs .* MiB of GPU memory for 1920x1080 frames .* more than the 32.0 MiB the board lends it" out.txt &&
        pass "probe names a chain beyond the board's GPU memory" || fail "probe memory over: $(cat out.txt)"
    expect_error "probe size without chain" "--size needs --chain" probe --size 64x48
    expect_error "probe bad size" "--size '6x' is not WxH" probe --chain blur --size 6x
    # On a software renderer auto picks cpu, whatever the board and the GLES version.
    for args in "" "--board rpi3"; do
        # shellcheck disable=SC2086
        MESA_GLES_VERSION_OVERRIDE=3.0 striate probe $args >out.txt 2>&1 || fail "probe under GLES 3.0 $args"
        if grep -q "a software renderer" out.txt; then
            grep -q "^auto backend: cpu (.* is a software renderer: it runs on the same cores" out.txt &&
                pass "auto picks cpu on a software renderer ${args:-(no board named)}" ||
                fail "auto on a software renderer $args: $(cat out.txt)"
        fi
    done
    if grep -q "renderer: llvmpipe" out.txt; then
        grep -q "a software renderer: it runs on the CPU" out.txt && pass "probe names a software renderer" ||
            fail "software renderer: $(cat out.txt)"
        grep -q '"software_renderer": true' <(striate probe --json) && pass "probe json names a software renderer" ||
            fail "probe json software renderer"
    fi
    # By the rules measured on llvmpipe, a short recursive response runs as its FIR, a wide one
    # on per-pixel planes in strips.
    expect_ok "fragment explain on a packed board" filter in.pgm e.png --chain "blur sigma=3 method=recursive" \
        --backend gles-fragment --board rpi3 --explain
    grep -q "packed RGBA8 intermediates" out.txt && grep -q "recursive.response x" out.txt &&
        pass "fragment explain lists the response form and packing" || fail "fragment explain: $(cat out.txt)"
    # With float targets FIR blurs run on quads (four pixels per texel), the last pass four rows
    # per fragment into array layers.
    expect_ok "fragment explain on float targets" filter in.pgm e.png --chain "blur sigma=3" --backend gles-fragment \
        --board host --explain
    grep -q "quad.pack" out.txt && grep -q "recursive.response x R=[0-9]* on quads" out.txt &&
        grep -q "four rows per fragment -> RGBA32F quad, rows in 4 layers" out.txt &&
        pass "fragment explain lists the quad passes" || fail "fragment explain, quads: $(cat out.txt)"
    # (tight: packed planes, and no speed to estimate by, so the rule: strips for a wide one)
    expect_ok "fragment explain, wide recursive" filter in.pgm e.png --chain "blur sigma=24 method=recursive" \
        --backend gles-fragment --board tight --explain
    grep -q "recursive.section x causal" out.txt && pass "fragment explain lists strips" || fail "fragment explain: $(cat out.txt)"
    # On a Pi board the forms are the board's estimate's choice: said, with the alternatives.
    expect_ok "fragment explain, forms by the board" filter in.pgm e.png --chain "blur sigma=24 method=recursive" \
        --backend gles-fragment --board rpi3 --explain
    grep -q "^forms chosen by the board's estimate (not a measurement): recursive .*; the alternatives: recursive " out.txt &&
        grep -q "^the board's estimate of a frame (not a measurement; docs/boards.md): [0-9.]* ms in [0-9]* draws, per pass:" out.txt &&
        grep -q "^  ~ [0-9.]* ms, 1 draw, 1200 fragments, [0-9]* instructions a fragment (.* bound): recursive\." out.txt &&
        pass "fragment explain says the forms the board's estimate chose" || fail "fragment explain on rpi3: $(cat out.txt)"
    expect_ok "probe estimate per pass" probe --board rpi4 --chain "blur sigma=8" --size 640x480
    grep -q "^    forms chosen by the board's estimate" out.txt && grep -q "^      ~ [0-9.]* ms, " out.txt &&
        pass "probe prints gles-fragment's estimate per pass on a Pi board" || fail "probe estimate: $(cat out.txt)"
    expect_error "unknown board in filter" "unknown board 'pi4'" filter in.pgm o.png --chain blur --backend gles-compute --board pi4
    expect_error "unknown board with cpu" "unknown board 'pi4'" filter in.pgm o.png --chain blur --backend cpu --board pi4
    # The GPU backend runs and explains its passes; one that cannot run under the board warns
    # once and the cpu backend writes the output.
    expect_ok "gles explain" filter in.pgm e.png --chain "blur sigma=2 ! edges" --backend gles-compute --explain
    grep -q "^backend: gles-compute" out.txt && grep -q "gaussian_direct.comp AXIS=0 RADIUS=8 -> R32F" out.txt &&
        grep -q "hysteresis.comp" out.txt && pass "gles explain lists the passes" || fail "gles explain: $(cat out.txt)"
    striate filter in.pgm f.png --chain edges --backend gles-compute --board rpi3 >out.txt 2>err.txt
    rc=$?
    if [ "$rc" -eq 0 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q "board 'rpi3' has none; using the cpu backend" err.txt &&
        [ -s f.png ]; then pass "fallback warns once and writes the output"; else fail "fallback: exit $rc $(cat err.txt)"; fi
fi

# The benchmark program, when this build has it (OpenCV installed): one quick run of every row.
if [ -x "$(dirname "$bin")/striate-bench" ]; then
    expect_ok "bench runs" bench --size 64x48 --repeat 1 --json bench.json
    grep -q "GaussianBlur + Canny L2" out.txt && grep -q '"ratio"' bench.json && pass "bench rows" || fail "bench rows"
    grep -q "orientations=6 .*6 x (sep)filter2D Gabor, max" out.txt && pass "bench has the bank's row" || fail "bench: no bank row"
    # The second run, against OpenCV held to NEON's width, with its own JSON and its features named.
    grep -q "held to 128-bit SIMD: " out.txt && grep -q "u8 out" out.txt && grep -q '"ratio"' bench-simd128.json \
        && pass "bench at 128-bit SIMD" || fail "bench at 128-bit SIMD"
    expect_error "bench bad sigma" "--sigmas: '0.1' is not a sigma" bench --sigmas 0.1
    expect_error "bench bad size" "--size '0x0'" bench --size 0x0
else
    expect_error "bench without OpenCV" "striate bench needs" bench
fi

finish
