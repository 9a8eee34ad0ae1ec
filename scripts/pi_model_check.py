#!/usr/bin/env python3
"""The Pi estimates' model held to the compilers' own counts (issue 38; docs/boards.md, "What the
compilers say about speed"):

    scripts/pi_model_check.py ARM64_BUILD ARM64_SYSROOT PI_GPU_DIR [--size WxH] [--llvmpipe-build BUILD]

For each board (rpi3 on vc4, rpi4 on v3d 4.2, rpi5 on v3d 7.1), GPU backend (the board's:
gles-fragment, and gles-compute on V3D) and main chain, two counts of the instructions a frame
issues, per pixel:

- the model's, as scripts/pi_passes.py makes its estimates (pi_passes.as_run): each pass of
  `--explain` under the board's real compiler (the noop DRM shim), its items as the model reads
  them from the pass line (a quarter of the fragments for quad planes, a tile's rows, a compute
  grid's workgroups times the shader's workgroup size, a recursive line's length ...), a
  repeated pass times its draws and the rounds it ran (gles-fragment) or the passes it ran and
  its tile loop (gles-compute's hysteresis), times the compiler's instruction count for its
  program;
- the frame's own: the same plan run on llvmpipe on a frame of the photo clip, every draw or
  dispatch as it ran (`--explain`'s "fragments per program": each draw's scissor, every round of
  the repeated step; or "invocations per program": each dispatch's workgroups times the size the
  driver reports, the indirect hysteresis passes as the GPU counted them), times the same
  instruction counts.

Both sides come from the same arm64 build (the llvmpipe side under qemu, or --llvmpipe-build: a
native build of the same tree). They must agree within 10%, or the check fails (exit 1) naming the
chain: the model would be counting work that does not run, or missing work that does.
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pi_passes  # noqa: E402

CHAINS = ["edges", "gabor sigma=4 wavelength=8 orientations=6", "blur sigma=2"]
TOLERANCE = 0.10


def main():
    args = sys.argv[1:]
    size = pi_passes.option(args, "--size", "320x240")
    native = pi_passes.option(args, "--llvmpipe-build")
    if len(args) != 3:
        raise SystemExit(__doc__)
    build, sysroot, pi = args
    w, h = map(int, size.split("x"))
    work = tempfile.mkdtemp()
    image = os.path.join(work, "in.png")
    pi_passes.png(image, w, h)
    failures = 0
    print("| board | backend | chain | %s: the model's instructions a pixel | the frame's draws' or dispatches' | model / frame |" % size)
    print("|---|---|---|---|---|---|")
    checked = 0
    for gpu, board, backends, *_ in pi_passes.BOARDS:
        for backend in backends:
            for chain in CHAINS:
                text = pi_passes.explain(build, sysroot, pi, gpu, board, backend, chain, image, work)
                rows = pi_passes.passes(text, w, h)
                inst = {re.sub(r" k=\d+$", "", name): i for name, _, _, i, _ in rows}
                ran = pi_passes.llvmpipe_explain(build, sysroot, gpu, board, chain, w, h, work, 0, native, backend)
                if backend == "gles-fragment":
                    rounds = int(pi_passes.FRAME.search(ran).group(4) or 0)
                    ran_rows, _ = pi_passes.as_run(rows, text, backend, rounds)
                    counted = pi_passes.fragments_per_program(ran)
                else:
                    ran_rows, _ = pi_passes.as_run(rows, text, backend, 0, pi_passes.hysteresis_counts(ran))
                    counted = pi_passes.invocations_per_program(ran, w, h)
                # A program the frame never ran (gles-fragment's output draw where the flood gives
                # the result) issues nothing, whatever its count.
                counted = {p: n for p, n in counted.items() if n}
                model = sum(items * i for _, items, _, i, _ in ran_rows)
                missing = sorted(p for p in counted if p not in inst)
                frame_count = sum(f * inst.get(p, 0) for p, f in counted.items())
                checked += 1
                if not counted or missing or frame_count == 0:
                    print("| %s | %s | `%s` | FAIL: no instruction count for %s |" % (
                        board, backend, chain, ", ".join(missing) or "any program"))
                    failures += 1
                    continue
                ratio = model / frame_count
                ok = abs(ratio - 1) <= TOLERANCE
                failures += not ok
                print("| %s | %s | `%s` | %.0f | %.0f | %.3f%s |" % (board, backend, chain, model / (w * h), frame_count / (w * h),
                                                                   ratio, "" if ok else " FAIL (over 10%)"))
                sys.stdout.flush()
    print("pi_model_check: %d of %d chains outside %d%%" % (failures, checked, TOLERANCE * 100))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
