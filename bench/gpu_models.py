#!/usr/bin/env python3
"""A small model set on tinygrad's GPU device: plain tinygrad against
LAZY_MLIR=schedule and LAZY_MLIR=compile, and the two kernel figures.

    python3 bench/gpu_models.py --device CUDA [--steps 20] [--small]
                                [--peak-tflops 989] [--peak-gbs 3350]

Models (tinygrad 0.9.2 code, fixed seeds, each step under TinyJit):
  - decode: a 4-layer GPT-style decoder (width 256, 8 heads) on a
    64-token window, one jitted forward per step;
  - convnet: a training step of a 3-layer conv net with batch norm on
    32x32 images (batch 32), SGD;
  - attention: scaled_dot_product_attention in f16, 1x8x512x64, causal.
Each (model, mode) runs in a fresh process (the mode is set before tinygrad
is imported): 3 warm-up steps, then --steps timed ones, each synchronized
with the device; the last step's outputs are saved. The parent prints, per
model, each mode's median step time and its ratio to plain tinygrad, and
checks the outputs: schedule mode bit for bit, compile mode within the
dtype's tolerance (f16 1e-2, f32 1e-3 relative and absolute).

Figures, in compile mode: an f16 matmul (4096^3; --small 1024^3) in
TFLOP/s and as a fraction of --peak-tflops (the card's dense f16 peak;
default: H100 SXM), and a*b+c over 2^26 f32 elements (--small 2^22) in
GB/s and as a fraction of --peak-gbs (its HBM bandwidth).

Exit status 1 when an output differs. --device CLANG runs the same on the
CPU (a smoke test of this script: compile mode is lazy-mlir's CPU there).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODELS = ("decode", "convnet", "attention")
MODES = ("tinygrad", "schedule", "compile")


def build(model, small):
    """(step function under TinyJit, its argument list)."""
    from tinygrad import Tensor, TinyJit, dtypes, nn
    from tinygrad.nn.optim import SGD
    from tinygrad.nn.state import get_parameters
    Tensor.manual_seed(0)
    if model == "decode":
        width, heads, layers, window = (64, 4, 2, 16) if small else (256, 8, 4, 64)

        class Block:
            def __init__(self):
                self.qkv, self.out = nn.Linear(width, 3 * width), nn.Linear(width, width)
                self.up, self.down = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)
                self.n1, self.n2 = nn.LayerNorm(width), nn.LayerNorm(width)

            def __call__(self, x):
                b, t, _ = x.shape
                q, k, v = [y.reshape(b, t, heads, width // heads).transpose(1, 2)
                           for y in self.qkv(self.n1(x)).chunk(3, dim=2)]
                a = q.scaled_dot_product_attention(k, v, is_causal=True)
                x = x + self.out(a.transpose(1, 2).reshape(b, t, width))
                return x + self.down(self.up(self.n2(x)).gelu())

        embed, blocks, head = nn.Embedding(512, width), [Block() for _ in range(layers)], \
            nn.Linear(width, 512)

        @TinyJit
        def step(tokens):
            x = embed(tokens)
            for block in blocks:
                x = block(x)
            return [head(x)[:, -1, :].softmax().realize()]
        return step, lambda i: [Tensor([[(i * 7 + j) % 512 for j in range(window)]])]
    if model == "convnet":
        size, batch = (16, 8) if small else (32, 32)
        c1, c2, c3 = nn.Conv2d(3, 16, 3, padding=1), nn.Conv2d(16, 32, 3, padding=1), \
            nn.Conv2d(32, 64, 3, padding=1)
        b1, b2, b3 = nn.BatchNorm2d(16), nn.BatchNorm2d(32), nn.BatchNorm2d(64)
        fc = nn.Linear(64 * (size // 8) ** 2, 10)
        params = get_parameters([c1, c2, c3, b1, b2, b3, fc])
        opt = SGD(params, lr=0.01, momentum=0.9)
        images = Tensor.randn(batch, 3, size, size).realize()
        labels = Tensor([i % 10 for i in range(batch)]).realize()

        @TinyJit
        def step():
            with Tensor.train():
                x = images
                for conv, norm in ((c1, b1), (c2, b2), (c3, b3)):
                    x = norm(conv(x)).relu().max_pool2d()
                loss = fc(x.flatten(1)).sparse_categorical_crossentropy(labels)
                opt.zero_grad()
                loss.backward()
                opt.step()
                return [loss.realize()] + [p.realize() for p in params[:2]]
        return step, lambda i: []
    if model == "attention":
        seq = 128 if small else 512
        q, k, v = [Tensor.randn(1, 8, seq, 64, dtype=dtypes.half).realize() for _ in range(3)]

        @TinyJit
        def step():
            return [q.scaled_dot_product_attention(k, v, is_causal=True).realize()]
        return step, lambda i: []
    raise ValueError(model)


def child(args):
    """One (model, mode) in this process: times and the last outputs."""
    import numpy as np
    from tinygrad import Device
    step, inputs = build(args.model, args.small)
    device = Device[Device.DEFAULT]
    times = []
    for i in range(3 + args.steps):
        start = time.perf_counter()
        outs = step(*inputs(i))
        device.synchronize()
        if i >= 3:
            times.append(time.perf_counter() - start)
    np.savez(args.save, *[o.numpy() for o in outs])
    figures = {"step_ms": statistics.median(times) * 1e3}
    if args.figures:
        from tinygrad import Tensor, dtypes
        n = 1024 if args.small else 4096
        a, b = (Tensor.randn(n, n, dtype=dtypes.half).realize() for _ in range(2))
        runs = []
        for _ in range(5):
            start = time.perf_counter()
            (a @ b).realize()
            device.synchronize()
            runs.append(time.perf_counter() - start)
        figures["matmul_tflops"] = 2 * n ** 3 / min(runs) / 1e12
        count = 1 << (22 if args.small else 26)
        x, y, z = (Tensor.randn(count).realize() for _ in range(3))
        runs = []
        for _ in range(5):
            start = time.perf_counter()
            (x * y + z).realize()
            device.synchronize()
            runs.append(time.perf_counter() - start)
        figures["fma_gbs"] = 16 * count / min(runs) / 1e9
    print("RESULT " + json.dumps(figures))


def run_child(model, mode, args, folder, figures=False):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    env[args.device.split(":")[0]] = "1"
    env.pop("LAZY_MLIR", None)
    if mode != "tinygrad":
        env["LAZY_MLIR"] = mode
    save = os.path.join(folder, f"{model}-{mode}.npz")
    command = [sys.executable, __file__, "--child", "--model", model, "--save", save,
               "--steps", str(args.steps), "--device", args.device] + \
        (["--small"] if args.small else []) + (["--figures"] if figures else [])
    proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1800)
    if proc.returncode != 0:
        sys.exit(f"{model} under {mode} failed:\n{proc.stdout}{proc.stderr}")
    line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")][-1]
    return json.loads(line[7:]), save


def compare(reference, other, exact):
    import numpy as np
    a, b = np.load(reference), np.load(other)
    worst = 0.0
    for key in a.files:
        x, y = a[key], b[key]
        if exact:
            if not np.array_equal(x, y, equal_nan=True):
                return False, float(np.max(np.abs(x.astype(np.float64) - y)))
            continue
        tol = 1e-2 if x.dtype == np.float16 else 1e-3
        diff = np.abs(x.astype(np.float64) - y.astype(np.float64))
        worst = max(worst, float(np.max(diff)) if diff.size else 0.0)
        if not np.allclose(x, y, rtol=tol, atol=tol, equal_nan=True):
            return False, worst
    return True, worst


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="CUDA", help="tinygrad device (CUDA, NV, AMD, HIP; CLANG)")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--small", action="store_true", help="small sizes (a smoke test)")
    parser.add_argument("--peak-tflops", type=float, default=989.0)
    parser.add_argument("--peak-gbs", type=float, default=3350.0)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--model", help=argparse.SUPPRESS)
    parser.add_argument("--save", help=argparse.SUPPRESS)
    parser.add_argument("--figures", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)
    failed = False
    with tempfile.TemporaryDirectory() as folder:
        for model in args.models.split(","):
            results = {mode: run_child(model, mode, args, folder) for mode in MODES}
            base = results["tinygrad"][0]["step_ms"]
            row = [f"{model}: tinygrad {base:.3f} ms"]
            for mode in MODES[1:]:
                ok, worst = compare(results["tinygrad"][1], results[mode][1], exact=mode == "schedule")
                failed |= not ok
                ms = results[mode][0]["step_ms"]
                row.append(f"{mode} {ms:.3f} ms ({ms / base:.3f}x, outputs "
                           f"{'match' if ok else 'DIFFER'}, max abs diff {worst:.2e})")
            print("; ".join(row), flush=True)
        figures, _ = run_child("attention", "compile", args, folder, figures=True)
        print(f"f16 matmul under compile: {figures['matmul_tflops']:.1f} TFLOP/s "
              f"({figures['matmul_tflops'] / args.peak_tflops:.3f} of {args.peak_tflops:g})")
        print(f"a*b+c under compile: {figures['fma_gbs']:.1f} GB/s "
              f"({figures['fma_gbs'] / args.peak_gbs:.3f} of {args.peak_gbs:g})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
