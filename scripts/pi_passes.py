#!/usr/bin/env python3
"""The per-pass table of docs/boards.md (in full: docs/pi-passes.md) ("What the compilers say about speed"): the main chains
through `striate filter --explain` (the arm64 build) under qemu with Mesa's noop DRM shim, each
pass with what the Pi's real compiler reported for its program, and a per-frame estimate.

    scripts/pi_passes.py ARM64_BUILD ARM64_SYSROOT PI_GPU_DIR [--tsv FILE] [--llvmpipe-build BUILD]
                         [--chains "edges;blur sigma=2"] > docs/pi-passes.md

--tsv also writes one row per board, backend, chain and size: the estimate in ms (for
scripts/estimates.py, which makes board/estimates.tsv, the table `auto` follows). --chains
(';'-separated; default the main chains, CHAINS) estimates others: the example catalogue of
docs/boards.md.

The estimate is not a measurement: nothing executes under the shim. Per pass it takes the larger
of two bounds, issue (ceil(items / 16) x instructions x 4 clocks / (QPUs x clock): a QPU runs a
16-wide instruction in 4 clocks) and texture (items x fetches / (TMUs x clock)), summed over the
passes of a frame (a recursive line pass's items: its lines times their length, since each
invocation loops over its line; a sample's instructions: its two loops' as the driver's QPU code
has them (V3D_DEBUG=qpu; line_loops), the rest of the program once a line), with the boards'
published clocks and QPU counts (and the assumptions named in
BOARDS below). A step that repeats until stable (gles-fragment's hysteresis) is counted as often
as it ran: the same plan (the arm64 build, the board's profile) on llvmpipe under qemu, GLES 2.0
for vc4's boards, on two frames of a real photograph at each size (tests/support/photo_clip.py:
the first and last of a pan across scikit-image's astronaut), reports the rounds it ran (--llvmpipe-build BUILD: a native build of the same tree runs
instead, the same plan tens of times faster)
(`--explain`: "the last frame ran N draws, R rounds of the step that repeats until stable"); the
larger of the two counts, each round that pass's draws over the whole frame (the stencil's
limit to weak pixels is not counted: whether vc4 and v3d test it before the shader runs is not
known here). gles-compute's hysteresis is counted the same way, from the same llvmpipe runs on
gles-compute (`--explain`: "the last frame's hysteresis: P passes ran T tiles (the first all N
of ...), I iterations of the tile loop"): its first pass over the N tiles, its listed passes over
the other T - N, and each program's instructions I / T times a tile (the compiler counts the
program once, loads and stores included; counting the whole program each iteration of the tile
loop is an upper bound). A gles-fragment frame
is at least its memory floor: the bytes the same run's draws moved at the least and the tiles
their jobs loaded (`--explain`: "moving at least B bytes and loading L in tiles",
FragmentPlan::drawBytes and tileLoadBytes), over the board's bandwidth (BOARDS). Each draw or
dispatch adds DRAW_SECONDS (assumed), gles-compute's dispatches counted as the llvmpipe runs
issued them (`--explain`: "the last frame issued D dispatches": every batch of hysteresis passes
and gates, the empty indirect ones included, since Mesa's v3d reads each indirect grid on the cpu
and waits for the gate that wrote it). To that
it adds what the cpu does in the frame, from the same llvmpipe runs: the transfers (a frame's
upload and read-back in system memory, and the bytes the hysteresis's cpu flood read back and
uploaded again; none uploaded, no output draw and no result read back where the flood gives a
frame in system memory its `edges` result) at TRANSFER_SHARE of the bandwidth (assumed), and the
flood itself on one core (FLOOD_PER_*: the pixels it marked, from `--explain`). gles-compute's transfers (its unit floats
up, its float result down) come from the shim's `--explain`, scaled by the area.
"""
import math
import os
import re
import subprocess
import sys
import tempfile
import zlib
import struct

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cpu_estimate  # noqa: E402  (the boards' cores: CORES)

# name: (gpu, board, backends, QPUs, clock MHz, TMUs, memory GB/s, note). The memory bandwidth:
# the Pi 4's is measured (STREAM copy, 5.5 GB/s, headless: sci-pi.org.uk/bench/stream.html), 43% of
# its LPDDR4-3200 x 32-bit peak of 12.8 GB/s; the Pi 3's and Pi 5's are assumed at the same share
# of their peaks (LPDDR2 at 800 MT/s x 32 bits: 3.2 GB/s; LPDDR4X-4267 x 32 bits: 17.1 GB/s).
BOARDS = [
    ("vc4", "rpi3", ["gles-fragment"], 12, 300, 6, 1.4,
     "VideoCore IV: 12 QPUs in 3 slices, 2 TMUs a slice, 3D clock 300 MHz (Pi 3; 250 MHz on Pi 0-2); "
     "memory 1.4 GB/s (assumed: 43% of LPDDR2's 3.2 GB/s peak, the Pi 4's measured share)"),
    ("v3d42", "rpi4", ["gles-compute", "gles-fragment"], 8, 500, 2, 5.5,
     "V3D 4.2: 8 QPUs in 2 slices, 500 MHz; one TMU a slice (assumed); memory 5.5 GB/s (STREAM copy, measured)"),
    ("v3d71", "rpi5", ["gles-compute", "gles-fragment"], 8, 800, 2, 7.4,
     "V3D 7.1: 800 MHz; QPU and TMU counts assumed equal to the Pi 4's (not known here); "
     "memory 7.4 GB/s (assumed: 43% of LPDDR4X-4267's 17.1 GB/s peak)"),
]
CHAINS = ["edges", "gabor sigma=4 wavelength=8 orientations=6", "blur sigma=2", "blur sigma=8", "threshold"]
SIZES = [(1280, 720), (640, 480), (1920, 1080)]  # the first is the one explained


def png(path, w, h):
    """A grey PNG of w x h (its pixels do not matter: nothing executes)."""
    raw = b"".join(b"\x00" + bytes((x * 7 + y * 3) & 255 for x in range(w)) for y in range(h))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


# qemu-aarch64 as the Pi 4's core: no SVE, as on every Pi (toolchains/rpi-aarch64.cmake).
QEMU = ["qemu-aarch64", "-cpu", "cortex-a72"]
PASS = re.compile(r"^  (.+?) -> (.+), (\d+ draws?.*|\d+ strip draws.*|\d+ one-texel-wide draws|\d+x\d+ workgroups.*)$")
STATS = re.compile(r"^  (.+?): MESA_SHADER_\w+: (\d+) inst, (\d+) threads(?:, (\d+) loops)?")
LINE_LOOPS = re.compile(r"^  (.+): loops of ([\d, ]+) instructions$")


def emulator(gpu, sysroot, pi):
    shim = os.path.join(pi, "shim")
    e = QEMU + ["-L", sysroot, "-E", "MESA_LOADER_DRIVER_OVERRIDE=" + ("vc4" if gpu == "vc4" else "v3d")]
    if gpu == "vc4":
        e += ["-E", "LD_PRELOAD=%s/libvc4_noop_drm_shim.so" % shim]
    elif gpu == "v3d42":
        e += ["-E", "LD_PRELOAD=%s/libv3d_noop_drm_shim.so" % shim]
    else:
        lib = os.path.join(pi, "mesa25/usr/lib/aarch64-linux-gnu")
        e += ["-E", "LD_PRELOAD=%s/v3d71_ident.so:%s/libv3d_noop_drm_shim.so" % (pi, shim),
              "-E", "LD_LIBRARY_PATH=" + lib, "-E", "LIBGL_DRIVERS_PATH=" + lib + "/dri"]
    return e


def explain(build, sysroot, pi, gpu, board, backend, chain, image, work):
    """`striate filter --explain` of the chain under the board's compiler; for gles-compute with
    a line "  PROGRAM: loops of A, B instructions" added for each recursive line program
    (line_loops)."""
    env = dict(os.environ, MESA_SHADER_CACHE_DISABLE="true", XDG_CACHE_HOME=os.path.join(work, "xdg"))
    cmd = emulator(gpu, sysroot, pi) + [os.path.join(build, "bin/striate"), "filter", image, os.path.join(work, "out.png"),
                                        "--chain", chain, "--backend", backend, "--board", board, "--explain"]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    if r.returncode != 0 or "using the cpu backend" in r.stderr:
        raise SystemExit("%s %s %s '%s' failed: %s" % (gpu, board, backend, chain, r.stderr[-500:]))
    text = r.stdout
    lines = sorted({m.group(1) for m in map(STATS.match, text.splitlines()) if m and m.group(1).startswith(LINE_PROGRAMS)})
    for program, loops in line_loops(build, sysroot, pi, gpu, lines, work).items():
        text += "  %s: loops of %s instructions\n" % (program, ", ".join(map(str, loops)))
    return text


# The recursive line programs: an invocation loops over its line (a row or a column, or a pair of
# columns for recursive_pairs.comp's vertical pass), SAMPLES_PER_TRIP of its samples a trip.
LINE_PROGRAMS = ("recursive_line.comp", "recursive_pairs.comp")
QPU_BRANCH = re.compile(r"^0x[0-9a-f]+ +b[a-z]*\.[a-z]+ +(-?\d+),")
PROGRAM_COUNT = re.compile(r"^  (.+): (\d+) inst, \d+ threads$")
LOOPS = {}


def line_loops(build, sysroot, pi, gpu, programs, work):
    """{program: [instructions of each loop]} of gles-compute programs on a V3D compiler: each
    compiled alone by `pi_compilers --compute` with V3D_DEBUG=qpu, which prints the QPU code of
    every program the driver compiles (the program's, and any variant of it); the code whose length
    is the compiler's count for the program is its own. A loop is a backward branch, and its
    instructions run every trip are the branch's distance (v3d's branch offset counts from the
    instruction after the three delay slots, so the distance covers the branch and its delay
    slots)."""
    env = dict(os.environ, MESA_SHADER_CACHE_DISABLE="true", XDG_CACHE_HOME=os.path.join(work, "xdg"))
    for program in programs:
        if (gpu, program) in LOOPS:
            continue
        cmd = emulator(gpu, sysroot, pi) + ["-E", "V3D_DEBUG=qpu", os.path.join(build, "bin/pi_compilers"), "--compute", program]
        r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
        counted = [int(m.group(2)) for m in map(PROGRAM_COUNT.match, r.stdout.splitlines()) if m]
        if r.returncode != 0 or len(counted) != 1:
            raise SystemExit("%s pi_compilers --compute '%s' failed: %s" % (gpu, program, r.stdout[-500:]))
        codes = []
        for line in r.stdout.splitlines():
            if line.startswith("MESA_SHADER_COMPUTE"):
                codes.append([])
            elif line.startswith("0x") and codes:
                codes[-1].append(line)
        own = [c for c in codes if len(c) == counted[0]]
        if not own:
            raise SystemExit("%s %s: no QPU code printed of the %d instructions the compiler counted (%s)" % (
                gpu, program, counted[0], ", ".join(str(len(c)) for c in codes)))
        LOOPS[(gpu, program)] = [-int(b.group(1)) // 8 for b in map(QPU_BRANCH.match, own[-1]) if b and int(b.group(1)) < 0]
    return {p: LOOPS[(gpu, p)] for p in programs}


FRAME = re.compile(r"the last frame ran (\d+) draws moving at least (\d+) bytes and loading (\d+) in tiles"
                   r"(?:, (\d+) rounds of the step that repeats until stable)?")
FLOOD = re.compile(r"the hysteresis's cpu flood read back (\d+) bytes and uploaded (\d+) between its draws \(it marked (\d+) pixels\)")
# gles-fragment's plan where the flood gives a frame in system memory its result (the `edges`
# output, the chain's last): no output draw, no upload of the classes, no read-back of a result.
FLOOD_RESULT = "(the flood gives the result)"
NOT_IN_SYSTEM_MEMORY = "a frame in system memory: none"
SYSTEM_MEMORY = re.compile(r"a frame in system memory uploads (\d+) bytes and reads back (\d+)")


def llvmpipe_explain(build, sysroot, gpu, board, chain, w, h, work, frame, native=None, backend="gles-fragment"):
    """`striate filter --explain` of frame `frame` (0 or 1) of the photo clip (tests/support/
    photo_clip.py: the first and last of a pan across scikit-image's astronaut) at w x h, the
    board's plan on `backend` on llvmpipe (GLES 2.0 for vc4's boards). `native`: a build of
    this machine's to run instead of the arm64 one under qemu (the same plan, tens of times
    faster)."""
    clip = os.path.join(work, "clip-%dx%d.yuv" % (w, h))
    if not os.path.exists(clip):
        subprocess.run(["/usr/bin/python3", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "support",
                                                         "photo_clip.py"), clip, str(w), str(h), "2"], check=True)
    data = open(clip, "rb").read()
    size = w * h + ((h + 1) // 2) * ((w + 1) // 2) * 2
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "xdg"))
    if gpu == "vc4":
        env["MESA_GLES_VERSION_OVERRIDE"] = "2.0"
    image = os.path.join(work, "photo-%d.pgm" % frame)
    with open(image, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (w, h) + data[frame * size:frame * size + w * h])
    tool = [os.path.join(native, "bin/striate")] if native else QEMU + ["-L", sysroot, os.path.join(build, "bin/striate")]
    cmd = tool + ["filter", image, os.path.join(work, "out.png"), "--chain", chain, "--backend", backend,
                  "--board", board, "--explain"]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
    if r.returncode != 0 or "using the cpu backend" in r.stderr:
        raise SystemExit("llvmpipe %s '%s' %dx%d failed: %s" % (board, chain, w, h, r.stderr[-500:]))
    if backend == "gles-fragment" and not FRAME.search(r.stdout):
        raise SystemExit("llvmpipe %s '%s' %dx%d: --explain reports no draws of the last frame" % (board, chain, w, h))
    return r.stdout


def frame_run(build, sysroot, gpu, board, chain, w, h, work, native=None):
    """{rounds, moved, flooded, flood_uploaded, marked, uploaded, read}: the most rounds of the
    repeated step (0 where the plan repeats nothing), bytes the draws moved, bytes the
    hysteresis's cpu flood read back and uploaded again and pixels it marked, over the photo
    clip's first and last frames; and a frame's upload and read-back in system memory."""
    run = dict(rounds=0, moved=0, loaded=0, draws=0, flooded=0, flood_uploaded=0, marked=0, uploaded=0, read=0)
    for i in range(2):
        text = llvmpipe_explain(build, sysroot, gpu, board, chain, w, h, work, i, native)
        m, f, s = FRAME.search(text), FLOOD.search(text), SYSTEM_MEMORY.search(text)
        seen = dict(rounds=int(m.group(4) or 0), moved=int(m.group(2)), loaded=int(m.group(3)), draws=int(m.group(1)),
                    flooded=int(f.group(1)) if f else 0, flood_uploaded=int(f.group(2)) if f else 0,
                    marked=int(f.group(3)) if f else 0, uploaded=int(s.group(1)), read=int(s.group(2)))
        run = {k: max(run[k], seen[k]) for k in run}
    return run


HYSTERESIS = re.compile(r"the last frame's hysteresis: (\d+) passes ran (\d+) tiles \(the first all (\d+) of \d+x\d+\), "
                        r"(\d+) iterations of the tile loop")
DISPATCHES = re.compile(r"the last frame issued (\d+) dispatches, (\d+) of them indirect")


def hysteresis_counts(text):
    """{passes, tiles, first, loop, dispatches} of one gles-compute --explain, or None where it
    reports no hysteresis: the passes that ran a tile, the tiles they ran, those of the first pass
    (every tile), the tile loop's iterations a tile, and the dispatches issued in the frame (every
    batch of hysteresis passes and gates, indirect ones with an empty grid included: Mesa's v3d
    reads each one's grid on the cpu, waiting for the gate)."""
    m = HYSTERESIS.search(text)
    if not m:
        return None
    passes, tiles, first, iterations = map(int, m.groups())
    return dict(passes=passes, tiles=tiles, first=first, loop=iterations / tiles,
                dispatches=int(DISPATCHES.search(text).group(1)))


def compute_run(build, sysroot, gpu, board, chain, w, h, work, native=None):
    """hysteresis_counts() over the photo clip's first and last frames: the most of each."""
    run = dict(passes=0, tiles=0, first=0, loop=0.0, dispatches=0)
    for i in range(2):
        counts = hysteresis_counts(llvmpipe_explain(build, sysroot, gpu, board, chain, w, h, work, i, native, "gles-compute"))
        if not counts:
            raise SystemExit("llvmpipe %s '%s' %dx%d: gles-compute's --explain reports no hysteresis" % (board, chain, w, h))
        run = {k: max(run[k], counts[k]) for k in run}
    return run


def as_run(rows, text, backend, ran=0, looped=None, scale=1.0):
    """The passes of one --explain (`passes()`'s rows) as a frame runs them: each pass's items
    scaled by the area, a pass repeated until stable times its draws and the `ran` rounds
    (gles-fragment), or as `looped` counted gles-compute's hysteresis (its first pass over every
    tile, its listed passes over the tiles they ran, its gate once a pass, each program's
    instructions times the tile loop's iterations a tile); and the frame's draws or dispatches
    where known here (gles-compute without hysteresis: one a pass; gles-fragment's come from
    llvmpipe, frame_run)."""
    repeated = {PASS.match(l).group(1): int(re.search(r"(\d+) draws?", l).group(1)) for l in text.splitlines()
                if PASS.match(l) and "repeated until stable" in l and backend == "gles-fragment"}
    out = []
    for name, items, fetches, inst, threads in rows:
        items *= scale
        if name in repeated:
            items *= ran * repeated[name]
        if looped and name.startswith("hysteresis.comp"):
            inst *= looped["loop"]
            if "LISTED=1" in name:
                items *= (looped["tiles"] - looped["first"]) / looped["first"]
        elif looped and name.startswith("hysteresis_gate"):
            items *= looped["passes"]
        out.append((name, items, fetches, inst, threads))
    dispatches = looped["dispatches"] if looped else len(rows)
    return out, dispatches


# The hysteresis's cpu flood (core/hysteresis.cpp) on one of the board's cores: arm64 instructions
# per marked pixel (the interior path of flood() in build-aarch64's hysteresis.cpp.o, counted from
# objdump: 10 to take a pixel off the queue, 86 for its eight neighbours, unrolled) and per pixel
# of the frame (memchr's scan for strong seeds, about half an instruction a byte in glibc's
# 16-byte loop: assumed; where the classes are one a texel (a budget too small for four a
# fragment, FLOOD_GATHERS), gathering the red of each texel and putting it back, 6 more: assumed),
# at the board's cpu IPC and clock (scripts/cpu_estimate.py's CORES).
# Where the flood gives the result (FLOOD_RESULT), writing it: a class byte into a float 0 or 1,
# 1 more a pixel (assumed: vectorised, 16 pixels in about a dozen instructions).
FLOOD_PER_MARKED, FLOOD_PER_PIXEL, FLOOD_PER_GATHERED_PIXEL, FLOOD_RESULT_PER_PIXEL = 96, 0.5, 6, 1
FLOOD_GATHERS = "edges.hysteresis (cpu flood) -> RGBA8 classes, no draw"
# A transfer between host memory and the GPU's buffers (the frame's upload and read-back, and the
# flood's) runs on the cpu, which reads write-combined GPU memory and (un)tiles it: assumed at a
# quarter of the board's memory bandwidth (not measured here; the least known constant of the model).
TRANSFER_SHARE = 0.25
# The fixed cost of a draw (gles-fragment) or a dispatch (gles-compute): an ioctl submitting the
# job, the binning and render jobs' set-up and each tile's list. Assumed at 50 us: no measurement of
# it on these boards was found (board/profile.cpp's GpuSpeed takes the same figure).
DRAW_SECONDS = 50e-6


FRAGMENTS = re.compile(r"^  (.+): (\d+)$")


def per_program(text, header):
    """{program: count} of the --explain block under the line starting with `header`."""
    out, inside = {}, False
    for line in text.splitlines():
        if line.startswith(header):
            inside = True
        elif inside:
            m = FRAGMENTS.match(line)
            if not m:
                break
            out[m.group(1)] = out.get(m.group(1), 0) + int(m.group(2))
    return out


def fragments_per_program(text):
    """{program: fragments} of gles-fragment's last frame, from --explain's "fragments per
    program" lines."""
    return per_program(text, "the last frame's fragments per program")


def invocations_per_program(text, w, h):
    """{program: invocations x the iterations of its loop} of gles-compute's last frame, from
    --explain's "invocations per program" lines (every dispatch as it ran, the driver's workgroup
    sizes): a recursive line's invocation loops over its line (the frame's width or height), and
    hysteresis.comp's workgroups loop over their tile as often as the GPU counted ("T tiles ...,
    I iterations of the tile loop": I / T times a workgroup's invocations)."""
    out = per_program(text, "the last frame's invocations per program")
    hysteresis = hysteresis_counts(text)
    for program in out:
        if program.startswith(LINE_PROGRAMS):
            out[program] *= w if "AXIS=0" in program else h
        elif program.startswith("hysteresis.comp") and hysteresis:
            out[program] *= hysteresis["loop"]
    return out


def loop_trips(program, loops):
    """How many times a compute program's kept loops run per invocation, where its instruction
    count (the compiler's, one trip's worth) is the model's per trip: 1 where the compiler kept no
    loop (gaussian_direct and gabor_direct take their radius as a define, so the compiler unrolls
    their taps: v3d reports 0 loops up to a radius of about 16). The line programs' loops and
    the hysteresis's tile loop are counted as items and from the llvmpipe runs (as_run), not here.
    A taps loop the compiler kept counts the whole program once a tap: an upper bound (the
    prologue and the store are counted every trip). box_blur's loops (its line shared by a
    workgroup, the blocks' prefix sums) are counted once: a lower bound. Each bound is noted in
    BOUNDED, which the tables print. Any other loop is an error, so that no loop is counted once
    without saying so."""
    if not loops or program.startswith(LINE_PROGRAMS + ("hysteresis.comp",)):
        return 1
    radius = re.search(r"\bRADIUS=(\d+)", program)
    if radius:
        BOUNDED[program] = "the compiler kept its taps loop: the whole program counted once a tap, %s times (an upper bound)" % radius.group(1)
        return int(radius.group(1))
    if program.startswith("box_blur.comp"):
        BOUNDED[program] = "its loops over the shared line and the blocks counted once (a lower bound)"
        return 1
    raise SystemExit("%s: the compiler kept %d loops the model cannot count (scripts/pi_passes.py loop_trips)" % (program, loops))


BOUNDED = {}


def local_size(program):
    """A compute program's workgroup invocations: its shader's local_size declaration
    (gles/shaders/)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gles", "shaders", program.split()[0])
    layout = re.search(r"layout\(local_size_x\s*=\s*(\d+)(?:,\s*local_size_y\s*=\s*(\d+))?", open(path).read())
    return int(layout.group(1)) * int(layout.group(2) or 1)


def samples_per_trip(program):
    """The samples a compute program's loops run a trip (its shader's SAMPLES_PER_TRIP)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gles", "shaders", program.split()[0])
    return int(re.search(r"#define SAMPLES_PER_TRIP (\d+)", open(path).read()).group(1))


def passes(text, w, h):
    """[(name, items, fetches, instructions, threads)] of one --explain output."""
    stats = {}
    lines = text.splitlines()
    after = False
    for line in lines:
        if line.startswith("the driver's compiler"):
            after = True
        elif after:
            m = STATS.match(line)
            if m:
                stats[m.group(1)] = (int(m.group(2)) * loop_trips(m.group(1), int(m.group(4) or 0)), int(m.group(3)))
    loops = {m.group(1): [int(n) for n in m.group(2).split(", ")] for m in map(LINE_LOOPS.match, lines) if m}
    out = []
    for line in lines:
        if line.startswith("the driver's compiler"):
            break
        m = PASS.match(line)
        if not m:
            continue
        name, fmt, grid = m.groups()
        if NOT_IN_SYSTEM_MEMORY in grid:  # the frames estimated here are in system memory
            continue
        program = re.sub(r" k=\d+$", "", name)
        fetches = int(re.search(r"(\d+) fetches", grid).group(1)) if "fetches" in grid else 0
        if "workgroups" in grid:
            gx, gy = map(int, re.match(r"(\d+)x(\d+)", grid).groups())
            items = gx * gy * local_size(name)
            if name.startswith(LINE_PROGRAMS):
                # One invocation per line runs its causal and its anticausal loop over the line (a
                # FROM_DC pass: those of its own recursion, then the DC plane's two): a sample
                # costs the loops' instructions (line_loops: the QPU code's) over the samples a
                # trip, the rest of the program runs once a line. Where the loops are not known,
                # the whole program once a sample (an upper bound: the model before 2026-11-28).
                length = w if "AXIS=0" in name else h
                items *= length
                if program in loops and program in stats:
                    expected = 4 if "FROM_DC=1" in name else 2
                    if len(loops[program]) != expected:
                        raise SystemExit("%s: %d loops in its QPU code, the model counts %d (causal, anticausal%s)" % (
                            program, len(loops[program]), expected, " of each recursion" if expected == 4 else ""))
                    total, threads = stats[program]
                    per_sample = sum(loops[program]) / samples_per_trip(name)
                    stats[program] = (per_sample + (total - per_sample) / length, threads)
        elif "one-texel" in grid or "one texel per line" in grid:
            items = max(w, h) * (int(grid.split()[0]) if "one-texel-wide" in grid else 1)
        else:
            items = w * h
            if "four pixels a texel" in fmt:  # edge classes on quads
                items = math.ceil(w / 4) * h
            elif "two pixels a texel" in fmt:  # pixel pairs to texel W / 2 (packed Canny)
                items = (w // 2 + 1) * h
            elif "two rows a texel" in fmt:  # row pairs (a packed bank's vertical passes)
                items = w * math.ceil(h / 2)
            elif "rows in 4 layers" in fmt:
                items = math.ceil(w / 4) * math.ceil(h / 4)
            elif "quad" in fmt:
                items = math.ceil(w / 4) * h
                tile = re.search(r"a tile of (\d+) rows", fmt)
                if tile:  # the horizontal pass in tiles, one a band: draws x the tile's rows
                    items = math.ceil(w / 4) * int(tile.group(1)) * int(re.match(r"(\d+) draws", grid).group(1))
            blocks = re.search(r"1 draw of (\d+) blocks", grid)
            if blocks:
                items = int(blocks.group(1)) * (h if " x " in name else w)
        if program not in stats:
            raise SystemExit("%s: the driver's compiler reports no program of that name (--explain)" % program)
        inst, threads = stats[program]
        out.append((name, items, fetches, inst, threads))
    return out


def option(args, name, default=None):
    """The value after `name` in args (both taken out), or default."""
    if name not in args:
        return default
    at = args.index(name)
    value = args[at + 1]
    del args[at:at + 2]
    return value


def main():
    args = sys.argv[1:]
    native = option(args, "--llvmpipe-build")
    tsv = option(args, "--tsv")
    tsv = open(tsv, "w") if tsv else None
    chains = [c.strip() for c in option(args, "--chains", ";".join(CHAINS)).split(";") if c.strip()]
    build, sysroot, pi = args[:3]
    work = tempfile.mkdtemp()
    if tsv:
        tsv.write("board\tbackend\tchain\tsize\tms\n")
    print("| board | backend | chain | passes | largest pass (instructions, threads) | "
          + " | ".join("estimate %dx%d" % s for s in SIZES) + " |")
    print("|---|---|---|---|---|" + "---|" * len(SIZES))
    notes = []
    details = []
    repeats = []
    floors = []
    cpu_side = []
    for gpu, board, backends, qpus, mhz, tmus, bandwidth, note in BOARDS:
        notes.append("- %s: %s" % (board, note))
        for backend in backends:
            for chain in chains:
                # The passes at the first size; the second scales each pass's items by the area
                # (the passes are the same; only strip draws' counts differ, and on a Pi board
                # the forms the planner chose for that size: the llvmpipe runs at each size count
                # that size's plan's draws and bytes).
                w0, h0 = SIZES[0]
                image = os.path.join(work, "in.png")
                if not os.path.exists(image):
                    png(image, w0, h0)
                text = explain(build, sysroot, pi, gpu, board, backend, chain, image, work)
                rows = passes(text, w0, h0)
                repeated = any(PASS.match(line) and "repeated until stable" in line for line in text.splitlines()) \
                    and backend == "gles-fragment"
                est = []
                for w, h in SIZES:
                    scale = w * h / (w0 * h0)
                    total = 0.0
                    run = frame_run(build, sysroot, gpu, board, chain, w, h, work, native) \
                        if backend == "gles-fragment" else None
                    looped = compute_run(build, sysroot, gpu, board, chain, w, h, work, native) \
                        if any(r[0].startswith("hysteresis") for r in rows) and backend == "gles-compute" else None
                    ran, moved, loaded, draws = (run["rounds"], run["moved"], run["loaded"], run["draws"]) if run else (0, 0, 0, 0)
                    if repeated and not ran:
                        raise SystemExit("%s '%s' %dx%d: the plan repeats a step, llvmpipe reports no rounds" % (board, chain, w, h))
                    if ran:
                        repeats.append("| %s | %s | `%s` | %dx%d | %d |" % (board, backend, chain, w, h, ran))
                    if looped:
                        repeats.append("| %s | %s | `%s` | %dx%d | %d passes ran %d tiles (the first all %d), the tile loop %.2f times a tile, %d dispatches |" % (
                            board, backend, chain, w, h, looped["passes"], looped["tiles"], looped["first"], looped["loop"], looped["dispatches"]))
                    ran_rows, dispatches = as_run(rows, text, backend, ran, looped, scale)
                    for name, items, fetches, inst, threads in ran_rows:
                        issue = math.ceil(items / 16) * inst * 4 / (qpus * mhz * 1e6)
                        texture = items * fetches / (tmus * mhz * 1e6)
                        total += max(issue, texture)
                        if scale == 1:
                            details.append("| %s | %s | `%s` | %s | %d | %d | %d | %d | %.2f ms (%s) |" % (
                                board, backend, chain, name, items, fetches, inst, threads, max(issue, texture) * 1e3,
                                "issue" if issue >= texture else "texture"))
                    # The frame's memory floor: the bytes its draws moved at the least and the
                    # tiles their jobs loaded, over the board's bandwidth (gles-fragment;
                    # gles-compute's bytes are not counted yet); and the fixed cost of each draw
                    # or dispatch as issued (DRAW_SECONDS, assumed).
                    memory = (moved + loaded) / (bandwidth * 1e9)
                    fixed = (draws if backend == "gles-fragment" else dispatches) * DRAW_SECONDS
                    if backend == "gles-fragment":
                        floors.append("| %s | %s | `%s` | %dx%d | %.1f MB | %.1f MB | %.1f ms | %.1f ms | %d: %.1f ms | %s |" % (
                            board, backend, chain, w, h, moved / 1e6, loaded / 1e6, memory * 1e3, total * 1e3, draws,
                            fixed * 1e3, "memory" if memory > total else "the passes"))
                    total = max(total, memory) + fixed
                    # What the cpu does in the frame: the transfers (gles-compute's from the
                    # shim's --explain, scaled by the area) and gles-fragment's hysteresis flood.
                    if not run:
                        up, down = map(int, SYSTEM_MEMORY.search(text).groups())
                        run = dict(flooded=0, flood_uploaded=0, marked=0, uploaded=up * scale, read=down * scale)
                    moved_by_cpu = run["flooded"] + run["flood_uploaded"] + run["uploaded"] + run["read"]
                    transfer = moved_by_cpu / (TRANSFER_SHARE * bandwidth * 1e9)
                    _, _, ghz, ipc, _ = cpu_estimate.CORES[board]
                    per_pixel = FLOOD_PER_PIXEL + (FLOOD_PER_GATHERED_PIXEL if FLOOD_GATHERS in text else 0) \
                        + (FLOOD_RESULT_PER_PIXEL if FLOOD_RESULT in text else 0)
                    flood = (w * h * per_pixel + run["marked"] * FLOOD_PER_MARKED) / (ipc * ghz * 1e9) if run["flooded"] else 0
                    cpu_side.append("| %s | %s | `%s` | %dx%d | %.1f MB | %.1f ms | %d | %.1f ms |" % (
                        board, backend, chain, w, h, moved_by_cpu / 1e6, transfer * 1e3, run["marked"], flood * 1e3))
                    total += transfer + flood
                    est.append(total * 1e3)
                    if tsv:
                        tsv.write("%s\t%s\t%s\t%dx%d\t%.2f\n" % (board, backend, chain, w, h, total * 1e3))
                big = max(rows, key=lambda r: r[3])
                print("| %s | %s | `%s` | %d | %s: %d, %d | %s |" % (
                    board, backend, chain, len(rows), big[0], big[3], big[4], " | ".join("%.1f ms" % e for e in est)))
                sys.stdout.flush()
    print()
    print("\n".join(notes))
    print()
    print("The memory floor of gles-fragment's frames: the bytes the same plan's draws moved on llvmpipe (each")
    print("input's texels read once, each target's written once, every round of a repeated step) and the tiles")
    print("their jobs loaded (each target's texels in the scissor: no draw clears its target), over the board's")
    print("bandwidth; a frame's estimate is the larger of that and the passes' sum, plus %.0f us a draw" % (DRAW_SECONDS * 1e6))
    print("(assumed; gles-compute: a dispatch):")
    print()
    print("| board | backend | chain | size | bytes | tile loads | memory floor | passes' sum | draws: fixed cost | bound |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(floors))
    print()
    print("What the cpu does in a frame, added to it: the transfers (the frame's upload and read-back in")
    print("system memory, and gles-fragment's hysteresis flood's read-back, and upload where the flood does not")
    print("give the result) at %d%% of the board's bandwidth (assumed), and the flood on one core (%d" % (
        TRANSFER_SHARE * 100, FLOOD_PER_MARKED))
    print("instructions a marked pixel, %.1f a pixel, %d more where the classes are one a texel, %d more where" % (
        FLOOD_PER_PIXEL, FLOOD_PER_GATHERED_PIXEL, FLOOD_RESULT_PER_PIXEL))
    print("it writes the `edges` result; the pixels it marked on llvmpipe):")
    print()
    print("| board | backend | chain | size | bytes moved | transfers | pixels the flood marked | flood |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(cpu_side))
    print()
    if BOUNDED:
        print("Programs whose loops the compiler kept, and how the estimates bound them (scripts/pi_passes.py loop_trips):")
        print()
        print("\n".join("- %s: %s" % item for item in sorted(BOUNDED.items())))
        print()
    print("The step that repeats until stable, as it ran on llvmpipe (the rounds counted above):")
    print()
    print("| board | backend | chain | size | rounds |")
    print("|---|---|---|---|---|")
    print("\n".join(repeats))
    print()
    print("Every pass at %dx%d:" % SIZES[0])
    print()
    print("| board | backend | chain | pass | items | fetches | instructions | threads | estimate (bound) |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(details))


if __name__ == "__main__":
    main()
