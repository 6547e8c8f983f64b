#!/usr/bin/env python3
"""Peak memory and time of `lazy-run --check` on a transformer training step.

    python3 bench/check_memory.py [--layers 12] [--dim 128] [--device cpu]
                                  [--check-kernels] [--save PATH]

Builds one AdamW training step of the corpus transformer
(python/tests/corpus/training.py) with LAYERS blocks of width DIM (4 heads,
hidden 4*DIM, vocabulary 64, batch 8, sequence 64), exports it and runs
`build/bin/lazy-run --check --seed=1` on it, which compiles and runs the
kernels and evaluates the whole graph in the reference interpreter. Prints
the graph's op count, the wall time and the peak resident memory of the
lazy-run process (getrusage of the child), and how many outputs matched.

Outputs of a deep random network can differ from the float32 reference by
more than --check's tolerance through rounding alone (Adam divides by the
square root of tiny second moments); the count is printed, not asserted.
With --check-kernels lazy-run also checks every kernel call on its own
inputs (KernelCheck.h), where no such amplification happens: the kernel
summary line says how many calls matched. Not a test.
"""

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("CLANG", "1")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
LAZY_RUN = os.path.join(ROOT, "build", "bin", "lazy-run")


def build_step(layers, dim):
    """The exported text of one training step, EMPTY/CUSTOM inputs realized."""
    from tinygrad import dtypes, nn
    from corpus import training
    from corpus.registry import Entry, building, realized
    from lazy_mlir.tinygrad import export
    from lazy_mlir.tinygrad._check import prerealize
    from lazy_mlir.tinygrad._export import collect_outputs
    entry = Entry(f"bench/transformer{layers}", None, {}, {}, False, None, None, {}, True)
    with building(entry):
        model = training.Transformer(layers, dim=dim, heads=4, hidden=4 * dim, vocab=64)
        tokens = realized(8, 64, dtype=dtypes.int32)
        targets = realized(8, 64, dtype=dtypes.int32)
        outs = collect_outputs(training.train_step(
            model, lambda p: nn.optim.AdamW(p, lr=1e-3, weight_decay=0.1), tokens, targets))
    prerealize(outs)
    return export(outs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--dim", type=int, default=128)
    parser.add_argument("--device", default="cpu", help="lazy-run --device (cpu or emulate)")
    parser.add_argument("--check-kernels", action="store_true",
                        help="also run lazy-run --check-kernels (CPU only)")
    parser.add_argument("--save", help="also write the exported step to this file")
    args = parser.parse_args()
    if not os.access(LAZY_RUN, os.X_OK):
        parser.error(f"{LAZY_RUN} is not built")
    text = build_step(args.layers, args.dim)
    ops = len(re.findall(r"= lazy\.", text))
    if args.save:
        with open(args.save, "w") as f:
            f.write(text)
    with tempfile.TemporaryDirectory(prefix="lazy-check-memory-") as work:
        path = os.path.join(work, "step.mlir")
        with open(path, "w") as f:
            f.write(text)
        start = time.perf_counter()
        command = [LAZY_RUN, path, "--check", "--seed=1", f"--device={args.device}"]
        if args.check_kernels:
            command.append("--check-kernels")
        proc = subprocess.run(command, capture_output=True, text=True)
        wall = time.perf_counter() - start
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    matched = proc.stdout.count(": match")
    mismatched = proc.stdout.count(": MISMATCH")
    if matched + mismatched == 0:
        sys.exit(f"lazy-run failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    print(f"transformer step: {args.layers} layers, dim {args.dim}, {ops} ops")
    print(f"lazy-run --check --device={args.device}: {wall:.1f} s, peak RSS {peak_kb / 1e6:.2f} GB")
    print(f"outputs: {matched} match, {mismatched} beyond the float32 tolerance")
    summary = re.search(r"^kernel calls: .*$", proc.stdout, re.M)
    if summary:
        print(summary.group(0))
        for line in proc.stdout.splitlines():
            if line.startswith("kernel call ") and "MISMATCH" in line:
                print(line[:400])


if __name__ == "__main__":
    main()
