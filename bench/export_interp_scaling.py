#!/usr/bin/env python3
"""Export and lazy-interp time per node on transformer training steps.

    python3 bench/export_interp_scaling.py [LAYERS ...] [--repeat N] [--interp-repeat M]

For each layer count (default 2 4 8 12 24 48) builds one AdamW training
step of the corpus transformer (python/tests/corpus/training.py: dim 16,
2 heads, batch 2, sequence 8), exports it, and runs build/bin/lazy-interp
on the exported graph. Prints the graph's node count (ops plus arguments),
the best export time of N runs, the best lazy-interp wall time of M runs
(process start, parse, seeded inputs, evaluation and writing the outputs
to a temporary directory) and both per node. Linear behaviour shows as
flat microseconds-per-node columns.

lazy-interp cannot evaluate CUSTOM ops or read unallocated EMPTY buffers,
so, as `python3 -m lazy_mlir.tinygrad check` does, every unrealized EMPTY
or CUSTOM base is realized in tinygrad first; its contents become one of
the graph's arguments, which lazy-interp fills itself (--seed). Not a test.
"""

import argparse
import gc
import os
import shutil
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("CLANG", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
LAZY_INTERP = os.path.join(ROOT, "build", "bin", "lazy-interp")


def build_step(layers):
    """The outputs (LazyBuffers) of one training step, EMPTY/CUSTOM inputs realized."""
    from corpus.registry import Entry, building
    from corpus.training import transformer_step
    from lazy_mlir.tinygrad._check import prerealize
    from lazy_mlir.tinygrad._export import collect_outputs
    entry = Entry(f"bench/transformer{layers}", None, {}, {}, False, None, None, {}, True)
    with building(entry):
        outs = collect_outputs(transformer_step(layers))
    prerealize(outs)
    return outs


def node_count(graph):
    return len(graph.args) + sum(1 for line in graph.text.splitlines() if line.startswith("    %"))


def best_of(repeat, fn):
    best, result = None, None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best, result


def run_interp(interp, graph_path, out_dir, seed):
    proc = subprocess.run([interp, graph_path, f"--seed={seed}", f"--output-dir={out_dir}"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        message = (proc.stderr or proc.stdout).strip().splitlines()
        raise RuntimeError(f"lazy-interp exit {proc.returncode}: {message[-1] if message else ''}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("layers", nargs="*", type=int, default=[2, 4, 8, 12, 24, 48])
    parser.add_argument("--repeat", type=int, default=3, help="export runs per graph (best is shown)")
    parser.add_argument("--interp-repeat", type=int, default=3, help="lazy-interp runs per graph (best is shown)")
    parser.add_argument("--interp", default=LAZY_INTERP, help="the lazy-interp binary")
    parser.add_argument("--seed", type=int, default=1, help="lazy-interp's --seed for the inputs")
    args = parser.parse_args()
    if not os.access(args.interp, os.X_OK):
        parser.error(f"{args.interp} is not built (ninja -C build lazy-interp)")

    from lazy_mlir.tinygrad import export_graph

    print(f"{'layers':>6} {'nodes':>7} {'build s':>8} {'export s':>9} {'exp us/node':>11} "
          f"{'interp s':>9} {'interp us/node':>14}")
    work = tempfile.mkdtemp(prefix="lazy-interp-bench-")
    try:
        for layers in args.layers:
            gc.collect()
            start = time.perf_counter()
            outs = build_step(layers)
            built = time.perf_counter() - start
            exported, graph = best_of(args.repeat, lambda: export_graph(outs))
            nodes = node_count(graph)
            graph_path = os.path.join(work, f"transformer{layers}.mlir")
            with open(graph_path, "w") as f:
                f.write(graph.text)
            out_dir = os.path.join(work, f"out{layers}")
            os.makedirs(out_dir, exist_ok=True)
            try:
                interp, _ = best_of(args.interp_repeat,
                                    lambda: run_interp(args.interp, graph_path, out_dir, args.seed))
                interp_cols = f"{interp:>9.4f} {1e6 * interp / nodes:>14.2f}"
            except RuntimeError as exc:
                interp_cols = f"{'failed':>9} {'-':>14}  ({exc})"
            print(f"{layers:>6} {nodes:>7} {built:>8.2f} {exported:>9.4f} {1e6 * exported / nodes:>11.2f} "
                  f"{interp_cols}", flush=True)
            shutil.rmtree(out_dir, ignore_errors=True)
            os.remove(graph_path)
            del outs, graph
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
