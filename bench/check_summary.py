#!/usr/bin/env python3
"""Correctness figures of a lowering over the corpus: every graph with
checked numerics is run by `lazy-run --check --device=D` (scheduled,
compiled for the CPU or a GPU, compared with the reference interpreter on
the same seeded inputs). Prints how many graphs match, are refused (with
lazy-run's reason) or differ, and the largest error seen per dtype.

  python3 bench/check_summary.py                  # the CPU
  python3 bench/check_summary.py --device cuda    # needs an NVIDIA GPU
  python3 bench/check_summary.py --device hip --chip gfx90a

A GPU machine without tinygrad takes the graphs exported beforehand:

  python3 bench/check_summary.py --save graphs/          # here: export only
  python3 bench/check_summary.py --graphs graphs/ --device cuda --jobs 8
"""

import argparse
import collections
import concurrent.futures
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
os.environ.setdefault("CLANG", "1")

from lazy_mlir import LAZY_RUN_REFUSALS, run_tool  # noqa: E402

# A GPU result that differs from the interpreter's is looked at kernel by
# kernel (lazy-run --lockstep): if every kernel agrees with the emulator to
# this relative difference on the same inputs, the graph amplifies rounding
# (a fused multiply-add, a 2-ulp exp2) across kernels, as a training step
# does with a gradient that is zero up to rounding under Adam's
# normalization; it is counted as ill-conditioned, not as a wrong kernel.
LOCKSTEP_TOLERANCE = 1e-5


def kernel_by_kernel(text, extra):
    """(ill-conditioned?, largest per-kernel difference) from lazy-run
    --check --lockstep on the graph `text`."""
    proc = run_tool("lazy-run", text, "--check", "--lockstep", *extra)
    out = proc.stdout + proc.stderr
    diffs = [float(d) for d in re.findall(r"largest relative difference (\S+) at word", out)]
    largest = max(diffs, default=0.0)
    return "all outputs match" in out and largest <= LOCKSTEP_TOLERANCE, largest


def load_graphs(directory):
    """{name: IR text}: the corpus graphs with checked numerics, exported
    now (needs tinygrad) or read from `directory` (written by --save)."""
    if directory:
        found = {}
        for parent, _, files in os.walk(directory):
            for f in files:
                if f.endswith(".mlir"):
                    path = os.path.join(parent, f)
                    with open(path) as text:
                        found[os.path.relpath(path, directory)[:-5]] = text.read()
        if not found:
            sys.exit(f"no .mlir graphs under {directory}")
        return dict(sorted(found.items()))
    from corpus import registry
    from test_cpu_run import exported
    graphs = registry.load()
    return {n: exported(n) for n in sorted(graphs) if graphs[n].numerics is True}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda", "hip", "emulate"])
    ap.add_argument("--chip", help="GPU to compile for (lazy-run --chip)")
    ap.add_argument("--graphs", help="read the graphs from this folder instead of exporting")
    ap.add_argument("--save", help="only export the graphs into this folder")
    ap.add_argument("--jobs", type=int, default=1, help="lazy-run processes at a time")
    ap.add_argument("--kernel-options", default="",
                    help="GPU: convert-lazy-to-gpu options (lazy-run --kernel-options)")
    args = ap.parse_args()
    graphs = load_graphs(args.graphs)
    if args.save:
        os.makedirs(args.save, exist_ok=True)
        for name, text in graphs.items():
            path = os.path.join(args.save, name + ".mlir")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        print(f"{len(graphs)} graphs written to {args.save}")
        return 0
    extra = [f"--device={args.device}"] + ([f"--chip={args.chip}"] if args.chip else [])
    if args.kernel_options:
        extra.append(f"--kernel-options={args.kernel_options}")
    gpu = args.device in ("cuda", "hip")
    names = list(graphs)
    counts = collections.Counter()
    reasons = collections.Counter()
    worst = collections.defaultdict(float)
    outputs = collections.Counter()
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        procs = list(pool.map(lambda n: run_tool("lazy-run", graphs[n], "--check", *extra), names))
    for name, proc in zip(names, procs):
        out = proc.stdout + proc.stderr
        if "no GPU available" in out:
            sys.exit(out.strip().splitlines()[-1])
        for ok, err, dtype in re.findall(r"out\d+: (match|MISMATCH), max abs error (\S+) \((\w+)\)", out):
            if ok == "match":  # mismatching outputs are listed below
                outputs[dtype] += 1
                worst[dtype] = max(worst[dtype], float(err))
        reason = next((r for r in LAZY_RUN_REFUSALS.values() if r in out), None)
        mismatches = "\n".join(line for line in out.splitlines() if "MISMATCH" in line)
        if proc.returncode == 0:
            counts["match"] += 1
        elif reason and "MISMATCH" not in out:
            counts["refused"] += 1
            reasons[reason] += 1
        elif gpu and "MISMATCH" in out and (judged := kernel_by_kernel(graphs[name], extra))[0]:
            counts["ill-conditioned"] += 1
            print(f"ILL-CONDITIONED: {name} (every kernel within {judged[1]:.2e} of the emulator "
                  f"under --lockstep)\n{mismatches}")
        else:
            counts["differ"] += 1
            print(f"DIFFERS: {name}\n{out}")
    print(f"{len(names)} graphs with checked numerics on {args.device}: {counts['match']} match, "
          f"{counts['refused']} refused, {counts['differ']} differ"
          + (f"; {counts['ill-conditioned']} ill-conditioned" if gpu else ""))
    for reason, n in reasons.most_common():
        print(f"  {n:4d} {reason}")
    print("largest error per dtype (matching outputs):")
    for dtype in sorted(outputs):
        print(f"  {dtype:10s} {worst[dtype]:.3e}  ({outputs[dtype]} outputs)")
    return 1 if counts["differ"] else 0


if __name__ == "__main__":
    sys.exit(main())
