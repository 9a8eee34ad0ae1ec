#!/usr/bin/env python3
"""Every citation in the repository points into the repository (docs/algorithms.md, docs/design.md).

Checks, over the source tree's text files (build trees and .git left out):
- no file cites the specification, the design or the notes the project grew from by a name
  outside the repository (spelled here in pieces so this file does not match itself);
- every file of docs/ named anywhere, and every relative link to a page inside docs/, exists;
- every numbered citation of the specification ("docs/algorithms.md 3.3", "algorithms.md 8")
  names a section that docs/algorithms.md has (a heading "## 3." or "### 3.3");
- every citation of a design.md heading ("docs/design.md, Boards and budgets") names one.
Usage: citations_test.py SOURCE_DIR
"""
import os
import re
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
OUTSIDE = re.compile(r"\b(" + "ALGO" + "RITHMS|DE" + "SIGN|PLATFORM-" + "NOTES|ST" + r"YLE)\.md\b|\.\./" + "shared/")
TEXT = {".cpp", ".h", ".c", ".comp", ".glsl", ".py", ".sh", ".md", ".txt", ".cmake", ".in", ".pc", ".toml", ""}


def text_files():
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirnames[:] = [d for d in dirnames
                       if not d.startswith(("build", ".")) and os.path.join(rel, d) not in ("tests/data", "./tests/data")
                       and not (rel == "tests/fuzz" and d == "corpus")]
        for name in filenames:
            if os.path.splitext(name)[1] in TEXT or name in ("CMakeLists.txt", "run"):
                path = os.path.join(dirpath, name)
                try:
                    with open(path, encoding="utf-8") as f:
                        yield os.path.relpath(path, root), f.read()
                except (UnicodeDecodeError, OSError):
                    continue


def headings(doc):
    with open(os.path.join(root, "docs", doc), encoding="utf-8") as f:
        return [line.lstrip("#").strip() for line in f if line.startswith("#")]


spec_sections = set()
for h in headings("algorithms.md"):
    m = re.match(r"(\d+(?:\.\d+)?)\.? ", h)
    if m:
        spec_sections.add(m.group(1))
design_headings = set(headings("design.md"))

failures = []
checked = 0
for path, text in text_files():
    for n, line in enumerate(text.splitlines(), 1):
        where = f"{path}:{n}"
        if OUTSIDE.search(line):
            failures.append(f"{where}: cites a file outside the repository: {line.strip()}")
        for doc in re.findall(r"\bdocs/([\w.-]+\.md)\b", line):
            checked += 1
            if not os.path.exists(os.path.join(root, "docs", doc)):
                failures.append(f"{where}: docs/{doc} does not exist")
        if path.startswith("docs/"):
            for doc in re.findall(r"\]\(([\w.-]+\.md)(?:#[\w-]*)?\)", line):
                checked += 1
                if not os.path.exists(os.path.join(root, "docs", doc)):
                    failures.append(f"{where}: link to {doc}, which docs/ lacks")
        for number in re.findall(r"\balgorithms\.md,? (?:sections? )?(\d+(?:\.\d+)?)(?![\d.]*\d)", line):
            checked += 1
            if number not in spec_sections:
                failures.append(f"{where}: docs/algorithms.md has no section {number}")
        for heading in re.findall(r"\bdesign\.md(?:,| \() ?\"?([A-Z][A-Za-z -]+?)\"?[):;]", line):
            checked += 1
            if heading not in design_headings:
                failures.append(f"{where}: docs/design.md has no heading \"{heading}\"")

for f in failures:
    print(f)
print(f"{checked} citations checked, {len(failures)} failures")
sys.exit(1 if failures or checked == 0 else 0)
