#!/usr/bin/python3
"""The test command's one schedule (scripts/test.sh): every test of every build, and the extra jobs,
as one CTest project, so `ctest -j N` keeps every core busy to the end across the builds, longest
jobs first.

    test_jobs.py OUT COSTS [--build NAME DIR [--only=REGEX] [--wrap=COMMAND] [VAR=VALUE...] --] ...
                 [--job NAME COMMAND...] ...
    test_jobs.py --costs-from CTEST_COST_DATA COSTS    rewrite COSTS from a run's measured costs

OUT gets a CTestTestfile.cmake; each test of build DIR (from `ctest --show-only=json-v1`, disabled
ones left out, and with --only=REGEX those whose names it does not match) becomes the test
NAME/TEST, which runs that one test through DIR's own CTest (its environment, labels and timeout
as the build registered them), with VAR=VALUE added; with --wrap=COMMAND (split as the shell
would) that CTest runs under COMMAND, and so does the listing of DIR's tests (a build made inside
another release's root: scripts/in_root.sh ROOT). A --job is a
command of its own (it ends at the next --build or --job). Each gets label NAME (the part before
the first '/') and COST from COSTS ("NAME/TEST SECONDS" lines, measured: scripts/test.sh rewrites
them after a run); CTest's own cost data, when OUT holds some, then takes over.
"""
import json
import re
import os
import shlex
import subprocess
import sys


def cmake_quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace(";", "\\;") + '"'


def parse(args):
    builds, jobs = [], []
    i = 0
    while i < len(args):
        if args[i] == "--build":
            name, directory = args[i + 1], args[i + 2]
            i += 3
            env = []
            while i < len(args) and args[i] != "--":
                env.append(args[i])
                i += 1
            i += 1
            builds.append((name, directory, env))
        elif args[i] == "--job":
            name = args[i + 1]
            i += 2
            command = []
            while i < len(args) and args[i] not in ("--build", "--job"):
                command.append(args[i])
                i += 1
            jobs.append((name, command))
        else:
            sys.exit("test_jobs.py: unexpected argument %r\n%s" % (args[i], __doc__))
    return builds, jobs


def tests_of(directory, wrap):
    out = subprocess.run(wrap + ["ctest", "--test-dir", directory, "--show-only=json-v1"], check=True,
                         capture_output=True, text=True).stdout
    names = []
    for t in json.loads(out)["tests"]:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        if not props.get("DISABLED", False):
            names.append(t["name"])
    return names


def rewrite_costs(cost_data, costs_file):
    """COSTS' comment lines, then CTest's measured average of each job (its CTestCostData.txt:
    "NAME RUNS AVERAGE" lines, then "---" and the failed ones), longest first."""
    header = [l for l in open(costs_file) if l.startswith("#")] if os.path.exists(costs_file) else []
    measured = []
    for line in open(cost_data):
        if line.startswith("---"):
            break
        parts = line.split()
        if len(parts) == 3:
            measured.append((float(parts[2]), parts[0]))
    with open(costs_file, "w") as f:
        f.writelines(header)
        for cost, name in sorted(measured, reverse=True):
            f.write("%s %.1f\n" % (name, cost))
    print("test_jobs: %d costs into %s" % (len(measured), costs_file))


def main(argv):
    if len(argv) == 4 and argv[1] == "--costs-from":
        return rewrite_costs(argv[2], argv[3])
    if len(argv) < 3:
        sys.exit(__doc__)
    out, costs_file = argv[1], argv[2]
    builds, jobs = parse(argv[3:])
    costs = {}
    if os.path.exists(costs_file):
        for line in open(costs_file):
            parts = line.split()
            if len(parts) == 2 and not line.startswith("#"):
                costs[parts[0]] = float(parts[1])
    os.makedirs(out, exist_ok=True)
    lines = ["# Made by scripts/test_jobs.py: one CTest schedule over every build's tests."]

    def add(name, command, env):
        lines.append("add_test(%s %s)" % (cmake_quote(name), " ".join(cmake_quote(c) for c in command)))
        props = ["LABELS", cmake_quote(name.split("/")[0]), "COST", str(costs.get(name, 10.0))]
        if env:  # a CMake list: the items quoted, the separators not
            props += ["ENVIRONMENT", '"' + ";".join(cmake_quote(e)[1:-1] for e in env) + '"']
        lines.append("set_tests_properties(%s PROPERTIES %s)" % (cmake_quote(name), " ".join(props)))

    for name, directory, env in builds:
        directory = os.path.abspath(directory)
        only = [e[len("--only="):] for e in env if e.startswith("--only=")]
        wrap = [w for e in env if e.startswith("--wrap=") for w in shlex.split(e[len("--wrap="):])]
        env = [e for e in env if not e.startswith(("--only=", "--wrap="))]
        for test in tests_of(directory, wrap):
            if only and not re.search(only[0], test):
                continue
            add(name + "/" + test, wrap + ["ctest", "--test-dir", directory, "-R", "^%s$" % test, "--output-on-failure",
                                    "--no-tests=error"], env)
    for name, command in jobs:
        add(name, command, [])
    with open(os.path.join(out, "CTestTestfile.cmake"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("test_jobs: %d jobs in %s" % (sum(1 for l in lines if l.startswith("add_test")), out))


if __name__ == "__main__":
    main(sys.argv)
