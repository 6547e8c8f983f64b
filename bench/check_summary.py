#!/usr/bin/env python3
"""Correctness figures of a lowering over the corpus: every graph with
checked numerics is run by `lazy-run --check --device=D` (scheduled,
compiled for the CPU or a GPU, compared with the reference interpreter on
the same seeded inputs). Prints how many graphs match, are refused (with
lazy-run's reason) or differ, and the largest error seen per dtype.

  python3 bench/check_summary.py                  # the CPU
  python3 bench/check_summary.py --device cuda    # needs an NVIDIA GPU
  python3 bench/check_summary.py --device hip --chip gfx90a
"""

import argparse
import collections
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
os.environ.setdefault("CLANG", "1")

from corpus import registry  # noqa: E402

from test_cpu_run import UNSUPPORTED, exported, lazy_run  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda", "hip", "emulate"])
    ap.add_argument("--chip", help="GPU to compile for (lazy-run --chip)")
    args = ap.parse_args()
    extra = [f"--device={args.device}"] + ([f"--chip={args.chip}"] if args.chip else [])
    unsupported = UNSUPPORTED + ("which has no GPU lowering",)
    graphs = registry.load()
    names = sorted(n for n in graphs if graphs[n].numerics is True)
    counts = collections.Counter()
    reasons = collections.Counter()
    worst = collections.defaultdict(float)
    outputs = collections.Counter()
    for name in names:
        proc = lazy_run(exported(name), "--check", *extra)
        out = proc.stdout + proc.stderr
        if "no GPU available" in out:
            sys.exit(out.strip().splitlines()[-1])
        for ok, err, dtype in re.findall(r"out\d+: (match|MISMATCH), max abs error (\S+) \((\w+)\)", out):
            outputs[dtype] += 1
            worst[dtype] = max(worst[dtype], float(err))
        reason = next((r for r in unsupported if r in out), None)
        if proc.returncode == 0:
            counts["match"] += 1
        elif reason and "MISMATCH" not in out:
            counts["refused"] += 1
            reasons[reason] += 1
        else:
            counts["differ"] += 1
            print(f"DIFFERS: {name}\n{out}")
    print(f"{len(names)} graphs with checked numerics on {args.device}: {counts['match']} match, "
          f"{counts['refused']} refused, {counts['differ']} differ")
    for reason, n in reasons.most_common():
        print(f"  {n:4d} {reason}")
    print("largest error per dtype (outputs checked):")
    for dtype in sorted(outputs):
        print(f"  {dtype:10s} {worst[dtype]:.3e}  ({outputs[dtype]} outputs)")
    return 1 if counts["differ"] else 0


if __name__ == "__main__":
    sys.exit(main())
