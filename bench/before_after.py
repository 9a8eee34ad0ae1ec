#!/usr/bin/env python3
"""Two builds' `striate bench` rows, alternately in one run: ROUNDS rounds, each running the old
build's bench then the new one's (same arguments, --json), so both see the same background load;
per row the median over rounds of our median ms from each, and new / old. A change is "within
noise" where new / old lies within the rounds' own spread (printed beside it).

    bench/before_after.py OLD_BUILD NEW_BUILD [--rounds N] -- [striate bench arguments]
e.g. bench/before_after.py /tmp/before/build build --rounds 3 -- --gles --size 1280x720 --repeat 7
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile


def main():
    args = sys.argv[1:]
    if "--" in args:
        split = args.index("--")
        args, bench = args[:split], args[split + 1:]
    else:
        bench = []
    rounds = 3
    if "--rounds" in args:
        i = args.index("--rounds")
        rounds = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    builds = {"old": args[0], "new": args[1]}
    times = {"old": {}, "new": {}}
    with tempfile.TemporaryDirectory() as work:
        for r in range(rounds):
            for which, build in builds.items():
                out = os.path.join(work, f"{which}-{r}.json")
                cmd = [os.path.join(build, "bin", "striate"), "bench", "--opencv", "built", "--json", out] + bench
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
                for row in json.load(open(out)):
                    times[which].setdefault((row["size"], row["filter"]), []).append(row["ours_ms"])
    print(f"| size | row | old ms | new ms | new / old | old spread | new spread |")
    print("|---|---|---|---|---|---|---|")
    for key, old in times["old"].items():
        new = times["new"].get(key)
        if not new:
            continue
        o, n = statistics.median(old), statistics.median(new)
        print(f"| {key[0]} | {key[1]} | {o:.2f} | {n:.2f} | {n / o:.3f} | {min(old):.2f}..{max(old):.2f} | {min(new):.2f}..{max(new):.2f} |")


if __name__ == "__main__":
    main()
