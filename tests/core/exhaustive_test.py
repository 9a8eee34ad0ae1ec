#!/usr/bin/env python3
"""A method a backend misses does not compile (docs/architecture.md, "Variants one level down").

For each case: a production source file, copied with one method's case taken out (a `case` of a
switch over the enum, or an alternative's function from a std::visit), must fail to compile with
an error that names the missing method; the unmodified copy must compile (so the failure is the
edit's). A pattern that no longer matches the source fails the test: it never passes vacuously.
Usage: exhaustive_test.py CXX SOURCE_DIR BUILD_DIR [FLAG...]
"""
import os
import re
import subprocess
import sys
import tempfile

cxx, src, build = sys.argv[1:4]
flags = sys.argv[4:] or ["-std=c++20", "-Werror=switch"]

# A balanced brace block, nested up to four deep.
BLOCK = r"\{(?:[^{}]|\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\})*\}"


def alternative(plan):
    """A visit's function for one alternative, with the comma before it."""
    return r",\s*\[[^\]]*\]\(const " + plan + r"&(?: \w+)?\)(?: -> [\w:*]+)? " + BLOCK


def case(value):
    """A switch's case for one enum value: its line, or its braced block."""
    return r"\n\s*case " + value + r":(?: " + BLOCK + r"|[^\n]*)"


# (file, what is taken out, the pattern, what the compiler must name)
CASES = [
    # Edge methods: Canny and Gabor energy.
    ("cpu/reference/reference.cpp", "the reference's case EdgeMethod::Gabor", case("EdgeMethod::Gabor"), r"Gabor"),
    ("core/plan.cpp", "the plan of EdgeMethod::Gabor", case("EdgeMethod::Gabor"), r"Gabor"),
    ("cpu/neon/cpu_edges.cpp", "the cpu's Gabor energy (GaborEnergyPlan)", alternative("GaborEnergyPlan"),
     r"GaborEnergyPlan"),
    ("gles/compute/edges.cpp", "gles-compute's Gabor energy (GaborEnergyPlan)", alternative("GaborEnergyPlan"),
     r"GaborEnergyPlan"),
    ("gles/fragment/plan_edges.cpp", "gles-fragment's Gabor energy (GaborEnergyPlan)",
     alternative("GaborEnergyPlan"), r"GaborEnergyPlan"),
    # Blur methods: direct, boxes, recursive.
    ("core/spec.cpp", "the validation of BlurMethod::Boxes", case("BlurMethod::Boxes"), r"Boxes"),
    ("core/plan.cpp", "the plan of BlurMethod::Boxes", case("BlurMethod::Boxes"), r"Boxes"),
    ("cpu/reference/reference.cpp", "the reference's case BlurMethod::Boxes", case("BlurMethod::Boxes"), r"Boxes"),
    ("cpu/neon/fixed.cpp", "the 8-bit taps' case BlurMethod::Boxes", case("BlurMethod::Boxes"), r"Boxes"),
    ("cpu/neon/cpu_blur.cpp", "the cpu's box blur (BoxBlur)", alternative("BoxBlur"), r"BoxBlur"),
    ("cpu/neon/cpu_backend.cpp", "the cpu's scratch for a box blur (BoxBlur)", alternative("BoxBlur"), r"BoxBlur"),
    ("cpu/neon/cpu_threshold.cpp", "the threshold's kernel name for a box mean (BoxBlur)", alternative("BoxBlur"),
     r"BoxBlur"),
    ("gles/compute/blur.cpp", "gles-compute's box blur (BoxBlur)", alternative("BoxBlur"), r"BoxBlur"),
    ("gles/fragment/plan_blur.cpp", "gles-fragment's box blur (BoxBlur)", alternative("BoxBlur"), r"BoxBlur"),
]

def compile_(path):
    r = subprocess.run([cxx, *flags, "-fsyntax-only", "-I", src, "-I", build, path],
                       capture_output=True, text=True)
    return r.returncode, r.stderr


failures = 0
with tempfile.TemporaryDirectory() as tmp:
    for rel, what, pattern, named in CASES:
        with open(os.path.join(src, rel)) as f:
            text = f.read()
        edited, n = re.subn(pattern, "", text, count=1)
        name = os.path.basename(rel)
        if n != 1:
            print(f"FAIL: {rel}: the pattern for {what} matches nothing (the source moved: update this test)")
            failures += 1
            continue
        whole, cut = os.path.join(tmp, "whole_" + name), os.path.join(tmp, "cut_" + name)
        # The copies sit beside each other in tmp; their includes are from the source root (-I src).
        with open(whole, "w") as f:
            f.write(text)
        with open(cut, "w") as f:
            f.write(edited)
        rc, err = compile_(whole)
        if rc != 0:
            print(f"FAIL: {rel} does not compile as it is:\n{err[-2000:]}")
            failures += 1
            continue
        rc, err = compile_(cut)
        errors = [line for line in err.splitlines() if "error" in line]
        if rc == 0:
            print(f"FAIL: {rel} without {what} still compiles")
            failures += 1
        elif not re.search(named, err):
            print(f"FAIL: {rel} without {what} fails, but the compiler's messages never name {named}:\n"
                  + "\n".join(errors[:5]))
            failures += 1
        else:
            first = next((line for line in errors if re.search(named, line)), errors[0] if errors else "")
            print(f"ok: {rel} without {what} does not compile: {first.strip()[:200]}")
print(f"{len(CASES) - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
