#!/usr/bin/env python3
"""Device plans for a GPU machine that has a driver but no LLVM/MLIR.

Records, with `lazy-run --device=cuda|hip --record=DIR` (no GPU needed
here), what lazy-run would run on the GPU:

  * check/<graph>/: every corpus graph with checked numerics, its inputs
    and the results the GPU emulator gives (which match the reference
    interpreter: bench/check_summary.py --device emulate);
  * bench/<graph>/: the bandwidth graphs of bench/kernels_bench.py at full
    size, zero-filled inputs (timing only).

There, `lazy-replay` (plain C++, the driver opened with dlopen) runs them:

  python3 bench/record_plans.py --out plans            # here
  build/bin/lazy-replay plans/check/*                  # there: numerics
  build/bin/lazy-replay plans/bench/* --repeat=5 --peak-gbs=4800   # GB/s

Prints the number of plans and their total size.
"""

import argparse
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
os.environ.setdefault("CLANG", "1")

from corpus import registry  # noqa: E402

import kernels_bench  # noqa: E402
from test_cpu_run import exported, lazy_run  # noqa: E402


def record(text, out, device, chip, inputs=True):
    args = [f"--device={device}", f"--record={out}",
            f"--record-inputs={'true' if inputs else 'false'}"]
    if chip:
        args.append(f"--chip={chip}")
    if inputs:
        args.append("--check")  # the emulator against the interpreter, here
    return lazy_run(text, *args, timeout=600)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--device", default="cuda", choices=["cuda", "hip"])
    ap.add_argument("--chip", help="default sm_90 (cuda) or gfx942 (hip)")
    ap.add_argument("--only", nargs="*", help="corpus graphs to record (default: all)")
    args = ap.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    failed = []
    graphs = registry.load()
    names = args.only or sorted(n for n in graphs if graphs[n].numerics is True)
    for name in names:
        proc = record(exported(name), os.path.join(args.out, "check", name.replace("/", "__")),
                      args.device, args.chip)
        if proc.returncode != 0:
            failed.append(name)
            print(f"FAILED: {name}\n{proc.stdout}{proc.stderr}", flush=True)
    if not args.only:
        for title, text, _, _ in kernels_bench.graphs(1):
            out = os.path.join(args.out, "bench", title.split()[-1].replace("*", "x").replace("+", "p"))
            proc = record(text, out, args.device, args.chip, inputs=False)
            if proc.returncode != 0:
                failed.append(title)
                print(f"FAILED: {title}\n{proc.stdout}{proc.stderr}", flush=True)
    plans, size = 0, 0
    for dirpath, _, files in os.walk(args.out):
        plans += "plan.txt" in files
        size += sum(os.path.getsize(os.path.join(dirpath, f)) for f in files)
    print(f"{plans} plans in {args.out}, {size / 1e6:.1f} MB; {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
