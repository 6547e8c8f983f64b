#!/usr/bin/env python3
"""Generated kernels on large fused graphs.

CPU (informational): lazy-run's compiled program (lazy-to-cpu, every core
unless OMP_NUM_THREADS says otherwise) against numpy on the same
computation, median of --repeat runs each; bench/cpu_bench.py is the
side-by-side comparison with tinygrad CLANG.
GPU (--device cuda|hip, needs a GPU): every kernel's time from
`lazy-run --profile` (warm run, each launch alone, timed by the driver's events), the bytes
of the buffers it reads and writes, GB/s and the share of --peak-gbs (the
device's HBM bandwidth; H200: 4800).

Graphs: an elementwise a*b+c, a row sum, a row softmax (tinygrad's three
kernels: max, sum of exp2, normalize).

  python3 bench/kernels_bench.py [--repeat 5] [--scale 1]
  python3 bench/kernels_bench.py --device cuda --peak-gbs 4800
"""

import argparse
import os
import re
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

# LAZY_MLIR_BUILD_DIR picks another build (one carried to a GPU machine).
from lazy_mlir import run_tool, tool_path  # noqa: E402

LAZY_RUN = tool_path("lazy-run")


def graphs(scale):
    # Elements of the big tensors: 4 MB (scale 0), 64 MB (1, past the
    # H200's 60 MB L2) or 256 MB (2, so that a launch runs far longer than
    # its start-up) per tensor.
    n = {0: 1 << 20, 1: 1 << 24}.get(scale, 1 << 26)
    rows, cols = {0: (1024, 1024), 1: (4096, 4096)}.get(scale, (16384, 4096))
    srows, scols = {0: (1024, 1024), 1: (16384, 1024)}.get(scale, (65536, 1024))
    ew = f"""func.func @ew(%a: tensor<{n}xf32> {{lazy.buffer = 0 : i64}}, %b: tensor<{n}xf32> {{lazy.buffer = 1 : i64}}, %c: tensor<{n}xf32> {{lazy.buffer = 2 : i64}}) -> tensor<{n}xf32> {{
  %m = lazy.mul %a, %b : tensor<{n}xf32>
  %o = lazy.add %m, %c : tensor<{n}xf32>
  return %o : tensor<{n}xf32>
}}"""
    rs = f"""func.func @rowsum(%x: tensor<{rows}x{cols}xf32> {{lazy.buffer = 0 : i64}}) -> tensor<{rows}x1xf32> {{
  %s = lazy.reduce_sum %x axes [1] : tensor<{rows}x{cols}xf32> -> tensor<{rows}x1xf32>
  return %s : tensor<{rows}x1xf32>
}}"""
    t = f"tensor<{srows}x{scols}xf32>"
    r = f"tensor<{srows}x1xf32>"
    sm = f"""func.func @softmax(%x: {t} {{lazy.buffer = 0 : i64}}) -> {t} {{
  %m = lazy.reduce_max %x axes [1] : {t} -> {r}
  %mb = lazy.expand %m : {r} -> {t}
  %n = lazy.neg %mb : {t}
  %d = lazy.add %x, %n : {t}
  %e = lazy.exp2 %d : {t}
  %s = lazy.reduce_sum %e axes [1] : {t} -> {r}
  %sb = lazy.expand %s : {r} -> {t}
  %q = lazy.recip %sb : {t}
  %o = lazy.mul %e, %q : {t}
  return %o : {t}
}}"""

    def np_ew(a, b, c):
        return a * b + c

    def np_rowsum(x):
        return x.sum(1, keepdims=True)

    def np_softmax(x):
        e = np.exp2(x - x.max(1, keepdims=True))
        return e * (1 / e.sum(1, keepdims=True))

    return [
        ("elementwise a*b+c", ew, [(n,)] * 3, np_ew),
        ("row sum", rs, [(rows, cols)], np_rowsum),
        ("row softmax", sm, [(srows, scols)], np_softmax),
    ]


def numpy_time(fn, shapes, repeat):
    rng = np.random.default_rng(1)
    args = [rng.standard_normal(s, dtype=np.float32) for s in shapes]
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


def lazy_run(text, device, repeat, profile, kernel_options=""):
    args = ["--seed=1", f"--repeat={repeat}", f"--device={device}"]
    if profile:
        args.append("--profile")
    if kernel_options:
        args.append(f"--kernel-options={kernel_options}")
    proc = run_tool("lazy-run", text, *args, timeout=None)
    if proc.returncode != 0:
        sys.exit(f"lazy-run failed:\n{proc.stderr}")
    m = re.search(r"time: median ([0-9.]+) ms", proc.stdout)
    kernels = re.findall(r"kernel (\w+): ([0-9.]+) us, (\d+) bytes, ([0-9.]+) GB/s", proc.stdout)
    return float(m.group(1)) / 1e3, kernels


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda", "hip"])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--scale", type=int, default=1, choices=[0, 1, 2],
                    help="0: small sizes for a quick look; 2: 256 MB per tensor")
    ap.add_argument("--peak-gbs", type=float, default=4800.0)
    ap.add_argument("--kernel-options", default="",
                    help="GPU: convert-lazy-to-gpu options, e.g. 'unroll=8 block-size=512'")
    args = ap.parse_args()
    if not os.access(LAZY_RUN, os.X_OK):
        sys.exit(f"{LAZY_RUN} is not built")
    for name, text, shapes, fn in graphs(args.scale):
        t_lazy, kernels = lazy_run(text, args.device, args.repeat, args.device != "cpu",
                                   args.kernel_options)
        if args.device == "cpu":
            t_np = numpy_time(fn, shapes, args.repeat)
            print(f"{name:20s} lazy-run {t_lazy * 1e3:9.2f} ms   numpy {t_np * 1e3:9.2f} ms"
                  f"   numpy/lazy {t_np / t_lazy:5.2f}")
        else:
            print(f"{name:20s} whole program {t_lazy * 1e3:9.3f} ms")
            for kernel, us, nbytes, gbs in kernels:
                print(f"  {kernel:16s} {float(us):9.1f} us {int(nbytes) / 1e6:9.1f} MB"
                      f" {float(gbs):8.1f} GB/s  {100 * float(gbs) / args.peak_gbs:5.1f}% of peak")


if __name__ == "__main__":
    main()
