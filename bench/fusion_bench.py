#!/usr/bin/env python3
"""Kernels and bytes moved: tinygrad 0.9.2's schedule against lazy-mlir's
with fusion=aggressive, on training steps.

For each step the graph is built once and exported; tinygrad schedules it
(create_schedule_with_vars plus memory_planner, as Tensor.schedule does)
and lazy-opt schedules the export with `--lazy-schedule=fusion=tinygrad`
(which must equal tinygrad's counts) and `fusion=aggressive`. Bytes moved
are each kernel's distinct buffers at their full size, summed over the
kernels (the last line of `--lazy-print-schedule`). Prints one row per
step, the sums, and the aggressive/tinygrad ratios (issue 27's targets:
kernels <= 0.7x, bytes <= 0.8x, summed). Deterministic: no timing.

  python3 bench/fusion_bench.py
"""

import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
from schedule_bench import convnet_step, transformer_step  # noqa: E402

LAZY_OPT = os.path.join(ROOT, "build", "bin", "lazy-opt")


def mlp_step(sizes=(784, 128, 10), batch=32):
    from tinygrad import Tensor, nn
    from tinygrad.nn.optim import Adam
    Tensor.manual_seed(0)
    layers = [nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])]
    params = nn.state.get_parameters(layers)
    for p in params:
        p.realize()
    opt = Adam(params, lr=1e-3)
    x = Tensor.rand(batch, sizes[0]).realize()
    labels = Tensor.randint(batch, high=sizes[-1]).realize()
    with Tensor.train():
        h = x
        for i, layer in enumerate(layers):
            h = layer(h)
            if i + 1 < len(layers):
                h = h.relu()
        loss = h.sparse_categorical_crossentropy(labels)
        opt.zero_grad()
        loss.backward()
        return opt.schedule_step() + [loss]


STEPS = {
    "mlp + Adam": mlp_step,
    "conv net + SGD": lambda: convnet_step(4, 16),
    "transformer x2 + AdamW": lambda: transformer_step(2),
    "transformer x12 + AdamW": lambda: transformer_step(12),
}


def tinygrad_moved(outs):
    from tinygrad.engine.realize import memory_planner
    from tinygrad.engine.schedule import create_schedule_with_vars
    from lazy_mlir.tinygrad._canonical import moved_line
    schedule, _ = create_schedule_with_vars(outs)
    return parse_moved(moved_line(memory_planner(schedule)))


def parse_moved(text):
    found = re.findall(r"moved: (\d+) kernels, (\d+) bytes", text)
    return sum(int(k) for k, _ in found), sum(int(b) for _, b in found)


def lazy_moved(text, fusion):
    r = subprocess.run([LAZY_OPT, f"--lazy-schedule=fusion={fusion}", "--lazy-print-schedule",
                        "-o", os.devnull, "-"], input=text, capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(f"lazy-opt failed ({fusion}):\n{r.stderr[-2000:]}")
    return parse_moved(r.stdout)


def main():
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    os.environ.setdefault("CLANG", "1")
    from lazy_mlir.tinygrad import export
    from lazy_mlir.tinygrad._export import collect_outputs
    rows, sums = [], [0, 0, 0, 0]
    for name, build in STEPS.items():
        outs = build()
        text = export(outs)
        tiny = tinygrad_moved(collect_outputs(outs))
        compat = lazy_moved(text, "tinygrad")
        if compat != tiny:
            raise SystemExit(f"{name}: fusion=tinygrad gives {compat}, tinygrad {tiny}")
        aggr = lazy_moved(text, "aggressive")
        rows.append((name, *tiny, *aggr))
        for i, v in enumerate((*tiny, *aggr)):
            sums[i] += v
    print("| step | tinygrad kernels | bytes | aggressive kernels | bytes | kernels x | bytes x |")
    print("|---|---|---|---|---|---|---|")
    for name, tk, tb, ak, ab in rows + [("sum", *sums)]:
        print(f"| {name} | {tk} | {tb:,} | {ak} | {ab:,} | {ak / tk:.3f} | {ab / tb:.3f} |")


if __name__ == "__main__":
    main()
