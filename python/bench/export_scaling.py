#!/usr/bin/env python3
"""Export time per node on transformer training steps (not a test).

    python3 python/bench/export_scaling.py [LAYERS ...] [--repeat N]

For each layer count (default 2 4 8 12 24 48) builds one AdamW training
step of the corpus transformer (tests/corpus/training.py: dim 16, 2 heads,
batch 2, sequence 8), exports it, and prints the graph's node count (ops plus
arguments), the best export time of N runs and the time per node. Linear
export shows as a flat microseconds-per-node column.
"""

import argparse
import gc
import os
import sys
import time

os.environ.setdefault("CLANG", "1")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("layers", nargs="*", type=int, default=[2, 4, 8, 12, 24, 48])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from corpus.registry import Entry, building
    from corpus.training import transformer_step
    from lazy_mlir.tinygrad import export_graph

    print(f"{'layers':>6} {'nodes':>8} {'build s':>8} {'export s':>9} {'us/node':>8}")
    for layers in args.layers:
        gc.collect()
        entry = Entry(f"bench/transformer{layers}", None, {}, {}, False, None, None, {}, True)
        start = time.perf_counter()
        with building(entry):
            outputs = transformer_step(layers)
        built = time.perf_counter() - start
        best = None
        for _ in range(args.repeat):
            start = time.perf_counter()
            graph = export_graph(outputs)
            elapsed = time.perf_counter() - start
            best = elapsed if best is None else min(best, elapsed)
        nodes = len(graph.args) + sum(1 for line in graph.text.splitlines() if line.startswith("    %"))
        print(f"{layers:>6} {nodes:>8} {built:>8.2f} {best:>9.4f} {1e6 * best / nodes:>8.2f}", flush=True)
        del outputs, graph


if __name__ == "__main__":
    main()
