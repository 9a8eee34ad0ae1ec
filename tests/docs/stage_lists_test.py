#!/usr/bin/env python3
"""Every list of the stages names every stage (issue 41: per-stage lists made from the tables).

The stages are the tool's own list, `striate filter --help` (made from core/params.cpp's tables).
Checked against them:
- the README's element table: a row `striate<stage>` for each stage, and the opening's list of
  elements;
- the boards' estimates' main chains (scripts/pi_passes.py CHAINS, scripts/cpu_estimate.py
  MAIN_CHAINS): the stages' main chains, `striate selftest --help`'s list (their tables' `timed`);
- every prose list of the stages in the README, docs/, the build's descriptions, the plugin's
  and the tool's texts: a sentence that lists a blur and a Gabor ("Gaussian blur, Gabor, ...",
  "striateblur, striategabor, ...") must name every stage. A new stage that a list forgets fails
  here with the file and the sentence.
Usage: stage_lists_test.py STRIATE SOURCE_DIR
"""
import ast
import glob
import os
import re
import subprocess
import sys

striate, src = sys.argv[1:3]
help_text = subprocess.run([striate, "filter", "--help"], capture_output=True, text=True, check=True).stdout
block = help_text.split("stages and parameters", 1)[1]
stages = re.findall(r"^  ([a-z]+)\s{2,}\S", block, re.M)
if len(stages) < 2:
    sys.exit(f"FAIL: no list of stages in `striate filter --help` (found {stages})")


def word(stage):
    """How prose names a stage: 'edges' as 'edge' (edge detection), the others as they are."""
    return stage[:-1] if stage.endswith("s") else stage


failures = []
readme = open(os.path.join(src, "README.md")).read()
for stage in stages:
    if not re.search(r"^\| `striate" + stage + r"` \|", readme, re.M):
        failures.append(f"README.md: the element table has no row for striate{stage}")

selftest = subprocess.run([striate, "selftest", "--help"], capture_output=True, text=True, check=True).stdout
timed = re.findall(r"^  (\S.*)$", selftest.split("main chains (timed", 1)[-1].split("\n\n", 1)[0], re.M)
if len(timed) < len(stages):
    sys.exit(f"FAIL: `striate selftest --help` lists {timed} as the main chains, fewer than the stages")
for script, name in (("scripts/pi_passes.py", "CHAINS"), ("scripts/cpu_estimate.py", "MAIN_CHAINS")):
    m = re.search(r"^" + name + r" = (\[.*?\])", open(os.path.join(src, script)).read(), re.M | re.S)
    listed = ast.literal_eval(m.group(1)) if m else None
    if listed is None or sorted(listed) != sorted(timed):
        failures.append(f"{script}: {name} = {listed}, not the stages' main chains {timed}")

# A sentence that lists a blur and then a Gabor is a list of the stages.
LIST = re.compile(r"(gaussian blur|\bblur|striateblur`?),\s+(recursive )?`?(striate)?gabor", re.I)
files = ["README.md", "cmake/striate.pc.in", "cmake/Install.cmake", "pipeline/plugin.cpp", "tools/striate/main.cpp",
         "python/module.cpp"]
files += [os.path.relpath(p, src) for p in glob.glob(os.path.join(src, "docs", "*.md"))]
# Logs of what was measured or generated at a date, not lists of what exists.
skip = {"docs/performance-history.md", "docs/pi-passes.md", "docs/pi-passes-catalogue.md", "docs/planner-choices.md"}
lists = 0
for rel in sorted(set(files) - skip):
    text = open(os.path.join(src, rel)).read()
    flat = re.sub(r"\s+", " ", text.replace('\\\n', ' ').replace('"\n', ' '))
    for m in LIST.finditer(flat):
        end = flat.find(". ", m.start())
        # The list itself: up to the sentence's end, within 120 characters.
        sentence = flat[m.start():end if end >= 0 else len(flat)][:120]
        lists += 1
        missing = [s for s in stages if word(s) not in sentence.lower()]
        if missing:
            failures.append(f"{rel}: a list of the stages without {', '.join(missing)}: \"{sentence[:160]}...\"")

for f in failures:
    print("FAIL:", f)
print(f"{len(stages)} stages ({', '.join(stages)}), {len(timed)} main chains; {lists} prose lists checked; "
      f"{len(failures)} failures")
sys.exit(1 if failures else 0)
