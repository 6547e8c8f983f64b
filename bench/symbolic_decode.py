#!/usr/bin/env python3
"""A LLaMA-style decode step over a bound start_pos, compiled once for
every value, against its integer twin at each value.

    python3 bench/symbolic_decode.py [--heads 8] [--head-dim 64]
        [--context 1024] [--positions 1,100,700,1023] [--repeat 9]

Builds the attention of one query over the first start_pos + 1 cached
keys and values (the cache update scheduled before; the corpus's
symbolic/llama_decode graph at this size), exports it with start_pos
bound, and per position runs `lazy-run --repeat` twice: the symbolic
graph at `--var start_pos=P` (its kernels take start_pos as an argument)
and the integer graph lazy-bind-variables makes at P. Prints both medians
and their ratio. Not a test.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
os.environ.setdefault("CLANG", "1")

BIN = os.path.join(ROOT, "build", "bin")


def median_ms(graph, *args, repeat):
    proc = subprocess.run([os.path.join(BIN, "lazy-run"), graph, f"--repeat={repeat}", *args],
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise SystemExit(f"lazy-run failed on {graph}:\n{proc.stderr}")
    return float(re.search(r"median ([0-9.]+) ms", proc.stdout + proc.stderr).group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--head-dim", type=int, default=64)
    parser.add_argument("--context", type=int, default=1024)
    parser.add_argument("--positions", default="1,100,700,1023")
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()

    from conftest import fresh
    import corpus.symbolic as corpus
    from lazy_mlir.tinygrad import export
    corpus.D_HEADS, corpus.D_HEAD_DIM, corpus.D_CONTEXT = args.heads, args.head_dim, args.context
    corpus.D_DIM = args.heads * args.head_dim
    positions = [int(p) for p in args.positions.split(",")]
    fresh()
    flags = {"multi_output": True, "fuse_conv_bw": False, "fuse_arange": False,
             "use_copy_kernel": False}
    text = export(corpus._decode(positions[0], "attention"), flags=flags)
    with tempfile.TemporaryDirectory() as work:
        symbolic = os.path.join(work, "decode.mlir")
        with open(symbolic, "w") as f:
            f.write(text)
        print(f"decode attention: {args.heads} heads x {args.head_dim}, context {args.context}; "
              f"lazy-run --repeat={args.repeat} medians")
        print(f"{'start_pos':>9} {'symbolic ms':>12} {'integer ms':>11} {'ratio':>6}")
        for pos in positions:
            integer = os.path.join(work, f"decode_{pos}.mlir")
            subprocess.run([os.path.join(BIN, "lazy-opt"), symbolic,
                            f"--lazy-bind-variables=values=start_pos={pos}", "-o", integer],
                           check=True)
            s = median_ms(symbolic, f"--var=start_pos={pos}", repeat=args.repeat)
            i = median_ms(integer, repeat=args.repeat)
            print(f"{pos:>9} {s:>12.3f} {i:>11.3f} {s / i:>6.2f}")


if __name__ == "__main__":
    main()
