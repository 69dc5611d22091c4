#!/usr/bin/env python3
"""CPU seconds of the C++ build's compiles, per target, from a sample.

    hack/compile-cpu.py [--build DIR] [--every N] [--match TEXT] [--swap=FLAG=FLAG ...]

Runs every Nth compile command of each target in DIR/compile_commands.json
again, without ccache and at nice 19, writing the objects to a scratch
file, and prints each target's mean and its estimate (mean x TUs). CPU is
user + system of the compiler (getrusage), so the figures hold on a machine
that other work shares; wall times there would not. --match keeps only
the sources whose path contains TEXT; --swap=-g=-g1 also runs each command
with that flag replaced and prints both (bench/RESULTS.md, "Where a fresh
machine's make test waits, and what changed").
"""
import argparse
import collections
import json
import os
import re
import resource
import shlex
import subprocess
import sys
import tempfile


def cpu_of(args, cwd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(["nice", "-n", "19"] + args, cwd=cwd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"compile-cpu: {' '.join(args[-1:])} failed:\n{done.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--every", type=int, default=8)
    ap.add_argument("--match", default="")
    ap.add_argument("--swap", action="append", default=[], help="FLAG=REPLACEMENT, e.g. -g=-g1")
    opts = ap.parse_args()
    db = os.path.join(opts.build, "compile_commands.json")
    if not os.path.isfile(db):
        sys.exit(f"compile-cpu: {db} is missing (hack/build.sh {opts.build} writes it)")
    swaps = [s.split("=", 1) for s in opts.swap]
    if any(len(s) != 2 for s in swaps):
        sys.exit("compile-cpu: --swap wants FLAG=REPLACEMENT")
    by_target = collections.defaultdict(list)
    for entry in json.load(open(db)):
        args = shlex.split(entry["command"])
        if args[0] == "ccache":
            args = args[1:]
        out = args[args.index("-o") + 1]
        target = re.match(r"(?:.*/)?([^/]+)\.p/", out)
        by_target[target.group(1) if target else out].append((entry["file"], args, entry["directory"]))
    scratch = tempfile.NamedTemporaryFile(suffix=".o", delete=False).name
    total = [0.0] * (1 + len(swaps))
    try:
        for target, tus in sorted(by_target.items()):
            tus.sort()
            picked = [t for t in tus[:: opts.every] if opts.match in t[0]]
            if not picked:
                continue
            sums = [0.0] * (1 + len(swaps))
            for _, args, cwd in picked:
                args = list(args)
                args[args.index("-o") + 1] = scratch
                if "-MD" in args:
                    args.remove("-MD")
                if "-MQ" in args:
                    i = args.index("-MQ")
                    del args[i : i + 4]  # -MQ OBJ -MF DEPFILE
                sums[0] += cpu_of(args, cwd)
                for k, (old, new) in enumerate(swaps, 1):
                    sums[k] += cpu_of([new if a == old else a for a in args], cwd)
            means = [s / len(picked) for s in sums]
            for k, m in enumerate(means):
                total[k] += m * len(tus)
            cols = "  ".join(f"{m:6.2f}" for m in means)
            print(f"{target:32} TUs {len(tus):4}  sampled {len(picked):3}  mean CPU s {cols}  "
                  f"estimate {means[0] * len(tus):7.0f}", flush=True)
    finally:
        os.unlink(scratch)
    print("estimate of all TUs, CPU s: " + "  ".join(f"{t:.0f}" for t in total))


if __name__ == "__main__":
    main()
