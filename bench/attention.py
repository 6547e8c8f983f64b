#!/usr/bin/env python3
"""Attention on the CPU: lazy-mlir's fusions against torch SDPA and XLA.

    python3 bench/attention.py [--shape 1,8,1024,64] [--rounds 3] [--runs 3]
                               [--threads 1] [--peers xla,torch]

tinygrad's `scaled_dot_product_attention` (f32, plain and causal) is built
in tinygrad, exported to `lazy` IR three times, with tinygrad's fusion,
with fusion=aggressive without online_softmax (three kernels), and with
fusion=aggressive and online_softmax, its default (one kernel, one pass
over the keys: lazy.softmax_sum), and run by
`lazy-run --repeat` (compile excluded). The
peers compute the same attention in a fresh process pinned to the same
cores (bench/peers.py's rules):
  - xla: `jax.nn.dot_product_attention` under `jax.jit`;
  - torch: `torch.nn.functional.scaled_dot_product_attention` (its CPU
    flash kernel).
A peer that is not installed is skipped with its reason; neither is a
dependency of the project.

Prints per variant (plain, causal) and side: the median over rounds of
each side's median of --runs runs, in ms; for lazy-mlir also the kernels
its schedule launches and the largest buffer the schedule allocates (the
scores of every head, S x S floats each, where they are stored).
"""

import argparse
import os
import re
import statistics
import subprocess
import sys

os.environ.setdefault("CLANG", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
VARIANTS = [("plain", False), ("causal", True)]
PEERS = ["xla", "torch"]


def _inputs(shape):
    import numpy as np
    rng = np.random.default_rng(1)
    return [rng.standard_normal(shape, dtype=np.float32) for _ in range(3)]


def _runner(peer, shape, causal, threads):
    """A function computing the attention once on `peer`, blocking."""
    q, k, v = _inputs(shape)
    if peer == "xla":
        import jax
        jax.config.update("jax_platforms", "cpu")
        # jax's layout is (batch, positions, heads, head dim).
        fn = jax.jit(lambda q, k, v: jax.nn.dot_product_attention(q, k, v, is_causal=causal))
        dev = [jax.device_put(a.transpose(0, 2, 1, 3)) for a in (q, k, v)]
        return lambda: fn(*dev).block_until_ready()
    if peer == "torch":
        import torch
        import torch.nn.functional as F
        torch.set_num_threads(threads)
        tq, tk, tv = (torch.from_numpy(a) for a in (q, k, v))

        def run():
            with torch.no_grad():
                return F.scaled_dot_product_attention(tq, tk, tv, is_causal=causal)
        return run
    raise ValueError(f"unknown peer {peer}")


def child(peer, shape, causal, threads, runs, warmup):
    from cpu_bench import median_time
    try:
        run = _runner(peer, shape, causal, threads)
    except ImportError as e:
        print(f"skip: {type(e).__name__}: {e}")
        return
    print(median_time(run, runs, warmup))


def export_attention(shape, causal, flags):
    from tinygrad import Tensor
    from lazy_mlir.tinygrad import export
    q, k, v = (Tensor.rand(*shape).realize() for _ in range(3))
    return export([q.scaled_dot_product_attention(k, v, is_causal=causal)], flags=flags)


def schedule_facts(lazy_opt, path):
    """(kernels launched, largest allocated buffer in bytes) of the
    schedule lazy-opt makes of `path`."""
    text = subprocess.run([lazy_opt, path, "--lazy-schedule"], capture_output=True,
                          text=True, check=True).stdout
    launches = len(re.findall(r"lazy\.launch @", text))
    itemsize = {"f32": 4, "f16": 2, "bf16": 2, "i32": 4, "f64": 8, "i64": 8}
    largest = 0
    for count, dtype in re.findall(r"lazy\.alloc : !lazy\.buffer<(\d+)x(\w+)>", text):
        largest = max(largest, int(count) * itemsize.get(dtype, 4))
    return launches, largest


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", default="1,8,1024,64", help="batch,heads,positions,head dim")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--work", default="/tmp/lazy-attention-bench")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--causal", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    shape = tuple(int(x) for x in args.shape.split(","))
    sys.path.insert(0, os.path.join(ROOT, "python"))
    sys.path.insert(0, HERE)
    if args.child:
        return child(args.child, shape, args.causal, args.threads, args.runs, args.warmup)

    import peers
    from lazy_mlir import tool_path
    lazy_run, lazy_opt = tool_path("lazy-run"), tool_path("lazy-opt")
    for tool in (lazy_run, lazy_opt):
        if not os.access(tool, os.X_OK):
            sys.exit(f"{tool} is not built")
    os.makedirs(args.work, exist_ok=True)
    wanted = [p for p in args.peers.split(",") if p]
    fusions = [("tinygrad", None),
               ("aggressive", {"fusion": "aggressive", "online_softmax": False}),
               ("online", {"fusion": "aggressive", "online_softmax": True})]

    print(f"attention {shape} f32, {args.threads} thread(s); medians in ms")
    print(f"{'variant':8s} {'side':22s} {'ms':>9s} {'kernels':>8s} {'largest buffer':>15s}")
    skipped = {}
    for variant, causal in VARIANTS:
        paths = {}
        for name, flags in fusions:
            path = os.path.join(args.work, f"sdpa_{variant}_{name}.mlir")
            with open(path, "w") as f:
                f.write(export_attention(shape, causal, flags))
            paths[name] = path
        times = {f"lazy-mlir {name}": [] for name, _ in fusions}
        times.update({p: [] for p in wanted})
        for _ in range(args.rounds):
            for name, _ in fusions:
                times[f"lazy-mlir {name}"].append(
                    peers.lazy_time(lazy_run, paths[name], args.threads, args.runs,
                                    args.warmup, ["--no-cache"]))
            for peer in wanted:
                if peer in skipped:
                    continue
                prefix, env = peers._pinned(args.threads)
                proc = subprocess.run(
                    [*prefix, sys.executable, os.path.abspath(__file__), "--child", peer,
                     "--shape", args.shape, "--threads", str(args.threads), "--runs",
                     str(args.runs), "--warmup", str(args.warmup)] +
                    (["--causal"] if causal else []),
                    capture_output=True, text=True, env=env)
                out = proc.stdout.strip().splitlines()
                if proc.returncode != 0 or not out:
                    skipped[peer] = "failed: " + ((proc.stderr.strip().splitlines()
                                                    or ["no output"])[-1][:120])
                elif out[-1].startswith("skip:"):
                    skipped[peer] = out[-1][len("skip: "):]
                else:
                    times[peer].append(float(out[-1]))
        for side, figures in times.items():
            if not figures:
                continue
            facts = ""
            if side.startswith("lazy-mlir "):
                kernels, largest = schedule_facts(lazy_opt, paths[side.split()[1]])
                facts = f"{kernels:8d} {largest / 2**20:12.1f} MB"
            print(f"{variant:8s} {side:22s} {statistics.median(figures) * 1e3:9.2f} {facts}",
                  flush=True)
    for peer, why in skipped.items():
        print(f"skipped {peer}: {why}")


if __name__ == "__main__":
    main()
