#!/usr/bin/env python3
"""The cpu backend on each Pi's own cores, estimated from the instructions it executes
(docs/boards.md, "The boards' own cores"). Not a measurement: nothing runs on a Pi.

    scripts/cpu_estimate.py BUILD SYSROOT PLUGIN_DIR [--sizes 640x480,...]
                            [--chains "edges;blur sigma=2"] [--frames K] [--tsv FILE]

BUILD (arm64, or armhf: the 32-bit Raspberry Pi OS a Pi 0-3 often runs) and its SYSROOT
(scripts/sysroot.sh). BUILD's `striate filter` runs under qemu-user with scripts/qemu_plugin.sh's instruction
counter, on scikit-image's motorcycle photo as luma, resized with OpenCV's INTER_AREA (the photo
and resize of `striate bench`), with --threads 4 (every Pi from the 2 up has four cores) and
--backend cpu. Each chain and size runs twice, on 1 frame and on 1 + K frames of one started
backend (`--frames`): the difference over K is one frame's instructions on each thread, without
start-up, planning, decoding or encoding. The estimate of a frame is its instructions over
(cores x IPC x clock): the four cores evenly loaded (the pool hands out rows as its threads free
up; under qemu, on this machine's two cores, how they fell to the threads varies from run to run,
so the split seen here says nothing about a Pi's), nothing waiting for memory beyond what the IPC
already holds. The IPC and clocks are in CORES, each with its source.

The counter checks itself first (bench/qemu/calibrate.c): threads that each run a loop of exactly
2 instructions N times (10 million) must count 2N more each in a run of 2N, within 0.01% (a wait at
the barrier that starts them all varies by up to a thousand instructions), and 2N x threads in all
within 0.01%.
"""
import argparse
import os
import subprocess
import sys
import tempfile

# board: (core, cores, clock GHz, IPC, the clock's source). The IPC is instructions per clock on
# this code (NEON filters over image rows, in 128-bit vectors), an assumption: no Pi ran here.
# What bounds it: Cortex-A53 is in-order and dual-issue; A72 3-wide out of order, two 128-bit
# NEON pipes; A76 4-wide, two 128-bit NEON pipes. The one published like-for-like measurement
# found (the same NEON code timed in cycles on A53 and A72 by checkasm, dav1d MRs 809 and 836,
# x264 MR 139: CDEF, loop filter and dequant kernels) has A53 take 1.33 to 2.1 times A72's
# cycles, median about 1.5: the ratio of the two IPCs below. A76 over A72: Arm's stated gain of
# A76 over A73/A72-class cores at the same clock (about 1.35x), taken as 2.0 / 1.5.
CORES = {
    "rpi3": ("Cortex-A53", 4, 1.2, 1.0,
             "BCM2837, 4x Cortex-A53 at 1.2 GHz (Pi 3 Model B; 1.4 GHz on the 3B+, 1.0 GHz on the Zero 2 W)"),
    "rpi4": ("Cortex-A72", 4, 1.5, 1.5,
             "BCM2711, 4x Cortex-A72 at 1.5 GHz (1.8 GHz on boards from rev 1.4 and the Pi 400)"),
    "rpi5": ("Cortex-A76", 4, 2.4, 2.0, "BCM2712, 4x Cortex-A76 at 2.4 GHz"),
}
PHOTO = "/usr/lib/python3/dist-packages/skimage/data/motorcycle_left.png"
MAIN_CHAINS = ["edges", "gabor sigma=4 wavelength=8 orientations=6", "blur sigma=2", "blur sigma=8", "threshold"]  # pi_passes.py's


# arch: (qemu-user, cross compiler)
ARCHES = {"arm64": ("qemu-aarch64", "aarch64-linux-gnu-gcc"), "armhf": ("qemu-arm", "arm-linux-gnueabihf-gcc")}


def counted(arch, plugin, sysroot, argv, work, name):
    """{thread index: instructions} of one run of argv under qemu-user with the counter."""
    out = os.path.join(work, name + ".counts")
    cmd = [ARCHES[arch][0], "-plugin", "%s,out=%s" % (plugin, out), "-L", sysroot] + argv
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if r.returncode != 0:
        raise SystemExit("cpu_estimate: %s failed (exit %d): %s" % (" ".join(argv), r.returncode, r.stderr[-800:]))
    counts = {}
    with open(out) as f:
        for line in f:
            parts = line.split()
            if parts[0] == "thread":
                counts[int(parts[1])] = int(parts[2])
    return counts


def per_frame(a, b, k):
    """Each thread's instructions per frame between a run of 1 frame (a) and of 1 + k (b)."""
    return {t: (b.get(t, 0) - a.get(t, 0)) / k for t in set(a) | set(b) if b.get(t, 0) != a.get(t, 0)}


def calibrate(arch, plugin, sysroot, work):
    exe = os.path.join(work, "calibrate")
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench", "qemu", "calibrate.c")
    subprocess.run([ARCHES[arch][1], "--sysroot=" + sysroot, "-O2", "-o", exe, source, "-lpthread"], check=True)
    n, threads = 10000000, 3
    diff = per_frame(counted(arch, plugin, sysroot, [exe, str(n), str(threads)], work, "cal1"),
                     counted(arch, plugin, sysroot, [exe, str(2 * n), str(threads)], work, "cal2"), 1)
    total = sum(diff.values())
    spinning = [t for t in diff if abs(diff[t] - 2 * n) <= 2 * n * 1e-4]
    if abs(total - 2 * n * threads) > 2 * n * threads * 1e-4 or len(spinning) != threads:
        raise SystemExit("cpu_estimate: the counter is wrong: %d threads of a 2-instruction loop run %d more times "
                         "counted %s more (expected %d in all, %d each)" % (threads, n, diff, 2 * n * threads, 2 * n))
    return "the counter checked: %d threads x %d more turns of a 2-instruction loop counted %d more in all, %s each" % (
        threads, n, total, ", ".join("%d" % diff[t] for t in sorted(spinning)))


def photo(work, w, h):
    import cv2
    path = os.path.join(work, "photo-%dx%d.pgm" % (w, h))
    if not os.path.exists(path):
        grey = cv2.imread(PHOTO, cv2.IMREAD_GRAYSCALE)
        if grey is None:
            raise SystemExit("cpu_estimate: cannot read %s (python3-skimage)" % PHOTO)
        cv2.imwrite(path, cv2.resize(grey, (w, h), interpolation=cv2.INTER_AREA))
    return path


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("build")
    p.add_argument("sysroot")
    p.add_argument("plugin_dir")
    p.add_argument("--sizes", default="640x480,1280x720,1920x1080")
    p.add_argument("--chains", default=";".join(MAIN_CHAINS), help="chains separated by ';'")
    p.add_argument("--frames", type=int, default=2, help="K: the second run's frames less the first's")
    p.add_argument("--tsv", help="also one row per board, chain and size: the estimate in ms (scripts/estimates.py)")
    a = p.parse_args()
    plugin = os.path.join(os.path.abspath(a.plugin_dir), "insn_count.so")
    sysroot = os.path.abspath(a.sysroot)
    striate = os.path.join(os.path.abspath(a.build), "bin", "striate")
    work = tempfile.mkdtemp(prefix="cpu-estimate-")
    # The build's architecture, from its tool's ELF header (e_machine 183: AArch64, 40: ARM).
    with open(striate, "rb") as f:
        machine = int.from_bytes(f.read(20)[18:20], "little")
    arch = {183: "arm64", 40: "armhf"}.get(machine)
    if not arch:
        raise SystemExit("cpu_estimate: %s is neither an arm64 nor an armhf build" % striate)
    print("%s build; %s." % (arch, calibrate(arch, plugin, sysroot, work)))
    print()
    tsv = open(a.tsv, "w") if a.tsv else None
    if tsv:
        tsv.write("board\tarch\tchain\tsize\tms\tinstructions\n")
    sizes = [tuple(map(int, s.split("x"))) for s in a.sizes.split(",")]
    chains = [c.strip() for c in a.chains.split(";") if c.strip()]
    print("| chain | size | instructions a frame (4 threads) | "
          + " | ".join("%s (%s, %.1f GHz, IPC %.1f)" % (b, c[0], c[2], c[3]) for b, c in CORES.items()) + " |")
    print("|---|---|---|" + "---|" * len(CORES))
    for chain in chains:
        for w, h in sizes:
            image = photo(work, w, h)
            runs = []
            for frames in (1, 1 + a.frames):
                argv = [striate, "filter", image, os.path.join(work, "out.pgm"), "--chain", chain, "--backend", "cpu",
                        "--threads", "4", "--frames", str(frames)]
                runs.append(counted(arch, plugin, sysroot, argv, work, "run%d" % frames))
            frame = per_frame(runs[0], runs[1], a.frames)
            total = sum(frame.values())
            cells = []
            for board, (_, cores, ghz, ipc, _) in CORES.items():
                ms = total / (cores * ipc * ghz * 1e9) * 1e3
                cells.append("%.1f ms" % ms)
                if tsv:
                    tsv.write("%s\t%s\t%s\t%dx%d\t%.2f\t%d\n" % (board, arch, chain, w, h, ms, total))
            print("| `%s` | %dx%d | %.1f M | %s |" % (chain, w, h, total / 1e6, " | ".join(cells)))
            sys.stdout.flush()
    print()
    for board, (core, n, ghz, ipc, source) in CORES.items():
        print("- %s: %s; IPC %.1f assumed (the docstring of scripts/cpu_estimate.py says why)" % (board, source, ipc))


if __name__ == "__main__":
    main()
