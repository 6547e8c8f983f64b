#!/usr/bin/env python3
"""Scheduling time: lazy-opt's lazy-schedule against tinygrad 0.9.2.

For each graph, one export; then in one run, tinygrad's and lazy-opt's runs
interleaved round by round:
  * tinygrad: create_schedule_with_vars on the same LazyBuffers, then
    memory_planner on its schedule, as Tensor.schedule_with_vars does
    (lazy-schedule runs lazy-plan-memory too); best of --repeat builds,
    since scheduling consumes the graph;
  * lazy-mlir: the lazy-schedule passes' wall time from --mlir-timing
    (parsing and printing excluded), best of --repeat runs, with lazy-opt's
    default verifier after every pass and without it (-verify-each=0; the
    verifier has no counterpart in tinygrad). Each run is a fresh process;
    "warm" is the best of --repeat second runs, each after a first one in
    the same process (tinygrad's best of --repeat is taken in one warm
    Python process too).
First prints the host's page-fault cost and Python loop speed: the host's
state moves both sides' times by up to 3-4x between runs, and not alike.
Then prints nodes, both times, µs per node and the speed-up, then the
scaling ratio time(5N) / (5 time(N)) of lazy-schedule on elementwise chains
and on chains of reduces (best of --repeat rounds, each round timing every size once,
so that a slow spell of the machine slows all sizes alike).

With --instructions (needs valgrind), the same ratio is also computed from
the instructions the passes execute (callgrind, collecting only inside the
pass manager): wall time also pays for cache misses once the IR outgrows
the cache, instruction counts show the work itself.

  python3 bench/schedule_bench.py [--layers 2 12 24 48] [--repeat 3]
                                  [--threads] [--instructions]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
from lazy_mlir.tinygrad._compare import pass_seconds  # noqa: E402
LAZY_OPT = os.path.join(ROOT, "build", "bin", "lazy-opt")

PASSES = ("LazyFoldViews", "LazyMarkRealize", "LazyGroup", "LazyFormKernels",
          "LazyToposort", "LazyPlanMemory")


def transformer_step(layers, dim=64, heads=4, seq=16, batch=2, vocab=128):
    from tinygrad import Tensor, nn
    from tinygrad.nn.optim import AdamW
    Tensor.manual_seed(0)

    class Block:
        def __init__(self):
            self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
            self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
            self.fc1, self.fc2 = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)

        def __call__(self, x):
            q, k, v = self.qkv(self.ln1(x)).split(dim, dim=-1)
            shape = (batch, seq, heads, dim // heads)
            q, k, v = [t.reshape(shape).transpose(1, 2) for t in (q, k, v)]
            a = q.scaled_dot_product_attention(k, v, is_causal=True)
            x = x + self.proj(a.transpose(1, 2).reshape(batch, seq, dim))
            return x + self.fc2(self.fc1(self.ln2(x)).gelu())

    emb = nn.Embedding(vocab, dim)
    blocks = [Block() for _ in range(layers)]
    head = nn.Linear(dim, vocab)
    params = nn.state.get_parameters([emb, blocks, head])
    for p in params:
        p.realize()
    opt = AdamW(params, lr=1e-3)
    tokens = Tensor.randint(batch, seq, high=vocab).realize()
    labels = Tensor.randint(batch, seq, high=vocab).realize()
    with Tensor.train():
        x = emb(tokens)
        for b in blocks:
            x = b(x)
        loss = head(x).sparse_categorical_crossentropy(labels)
        opt.zero_grad()
        loss.backward()
        return opt.schedule_step() + [loss]


def convnet_step(blocks=4, channels=16):
    from tinygrad import Tensor, nn
    from tinygrad.nn.optim import SGD
    Tensor.manual_seed(0)
    convs = [nn.Conv2d(3 if i == 0 else channels, channels, 3, padding=1) for i in range(blocks)]
    norms = [nn.BatchNorm2d(channels) for _ in range(blocks)]
    fc = nn.Linear(channels, 10)
    params = nn.state.get_parameters([convs, norms, fc])
    for p in params:
        p.realize()
    opt = SGD(params, lr=0.01, momentum=0.9)
    img = Tensor.rand(4, 3, 16, 16).realize()
    labels = Tensor.randint(4, high=10).realize()
    with Tensor.train():
        x = img
        for c, n in zip(convs, norms):
            x = x + n(c(x)).relu() if x.shape[1] == channels else n(c(x)).relu()
        loss = fc(x.mean((2, 3))).sparse_categorical_crossentropy(labels)
        opt.zero_grad()
        loss.backward()
        return opt.schedule_step() + [loss]


def lazy_time(path, repeat, verify=True, threads=False):
    """Best pass time; `verify` keeps lazy-opt's verifier after every pass
    (its default), which tinygrad has no counterpart of; `threads` lets
    lazy-form-kernels build kernels on all cores."""
    best = None
    for _ in range(repeat):
        r = subprocess.run([LAZY_OPT, "--lazy-schedule", "--mlir-timing",
                            f"-verify-each={int(verify)}", path, "-o", os.devnull]
                           + ([] if threads else ["--mlir-disable-threading"]),
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(r.stderr[:500])
        t = pass_seconds(r.stderr, lambda name: name in PASSES)
        best = t if best is None else min(best, t)
    return best


def lazy_warm_time(path, repeat):
    """Best pass time (-verify-each=0) of runs 2..repeat+1 of the graph in one
    lazy-opt process (--split-input-file): code, caches and allocator are
    warm, as for a long-running caller (the plugin, a library user), and as
    tinygrad is when its best of --repeat is taken in one Python process."""
    with open(path) as f:
        text = f.read()
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write("\n// -----\n".join([text] * (repeat + 1)))
    try:
        r = subprocess.run([LAZY_OPT, "--lazy-schedule", "--mlir-timing", "-verify-each=0",
                            "--split-input-file", "--mlir-disable-threading", f.name,
                            "-o", os.devnull], capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if r.returncode != 0:
        raise RuntimeError(r.stderr[:500])
    reports = r.stderr.split("Execution time report")[1:]
    if len(reports) != repeat + 1:
        raise RuntimeError(f"expected {repeat + 1} timing reports, got {len(reports)}")
    return min(pass_seconds(report, lambda name: name in PASSES) for report in reports[1:])


def measure(name, build, repeat, threads):
    from lazy_mlir.tinygrad import export
    from lazy_mlir.tinygrad._export import collect_outputs
    from tinygrad.engine.realize import memory_planner
    from tinygrad.engine.schedule import create_schedule_with_vars
    # tinygrad's runs and lazy-opt's are interleaved (one of each kind per
    # round), so that a slow spell of the machine slows both sides rather
    # than only the one measured during it.
    tiny_best, ours, bare, warm, parallel = None, None, None, None, None
    text, path = None, None

    def keep_min(best, t):
        return t if best is None else min(best, t)

    try:
        for i in range(repeat):
            outs = build()
            if i == 0:
                text = export(outs)
                with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
                    f.write(text)
                path = f.name
            lbs = collect_outputs(outs)
            start = time.perf_counter()
            memory_planner(create_schedule_with_vars(lbs)[0])
            tiny_best = keep_min(tiny_best, time.perf_counter() - start)
            ours = keep_min(ours, lazy_time(path, 1))
            bare = keep_min(bare, lazy_time(path, 1, verify=False))
            warm = keep_min(warm, lazy_warm_time(path, 1))
            if threads:
                parallel = keep_min(parallel, lazy_time(path, 1, verify=False, threads=True))
    finally:
        if path:
            os.unlink(path)
    nodes = sum(1 for line in text.splitlines() if re.match(r"\s+%\w+ = lazy\.", line))
    nodes += text.count("lazy.buffer =")
    print(f"{name:<22} {nodes:>7} nodes  tinygrad {tiny_best * 1e3:9.2f} ms "
          f"({tiny_best / nodes * 1e6:7.2f} us/node)  lazy-schedule {ours * 1e3:8.2f} ms "
          f"({ours / nodes * 1e6:6.2f} us/node)  {tiny_best / ours:6.1f}x;  "
          f"without -verify-each {bare * 1e3:8.2f} ms ({bare / nodes * 1e6:6.2f} us/node) "
          f"{tiny_best / bare:6.1f}x;  warm (one process, -verify-each=0) "
          f"{warm * 1e3:8.2f} ms {tiny_best / warm:6.1f}x" +
          (f";  threaded {parallel * 1e3:8.2f} ms {tiny_best / parallel:6.1f}x"
           if parallel else ""), flush=True)


def chain_text(n):
    lines = ["func.func @chain(%a: tensor<64xf32>) -> tensor<64xf32> {"]
    prev = "%a"
    for i in range(n):
        op = ("lazy.exp2", "lazy.neg", "lazy.sqrt")[i % 3]
        lines.append(f"  %v{i} = {op} {prev} : tensor<64xf32>")
        prev = f"%v{i}"
    lines.append(f"  return {prev} : tensor<64xf32>\n}}")
    return "\n".join(lines) + "\n"


def reduce_chain_text(n):
    """n nodes: exp2 -> sum -> add, each add also reading the previous one
    (many reduces above one long unrealized elementwise chain)."""
    lines = ["func.func @reduces(%a: tensor<16x16xf32>) -> tensor<16x1xf32> {"]
    prev = None
    for i in range(n // 3):
        lines.append(f"  %e{i} = lazy.exp2 %a : tensor<16x16xf32>")
        lines.append(f"  %r{i} = lazy.reduce_sum %e{i} axes [1] : tensor<16x16xf32> -> tensor<16x1xf32>")
        lines.append(f"  %s{i} = lazy.add %r{i}, {prev or '%r0'} : tensor<16x1xf32>")
        prev = f"%s{i}"
    lines.append(f"  return {prev} : tensor<16x1xf32>\n}}")
    return "\n".join(lines) + "\n"


def instructions(path):
    """Instructions executed inside the pass manager (callgrind)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                            "--toggle-collect=mlir::PassManager::run(*",
                            LAZY_OPT, "--lazy-schedule", "-verify-each=0",
                            "--mlir-disable-threading", path, "-o", os.devnull],
                           capture_output=True, text=True)
        m = re.search(r"Collected : (\d+)", r.stderr)
        if r.returncode != 0 or not m:
            raise RuntimeError(r.stderr[-500:])
        return int(m.group(1))


SCALING_FAMILIES = (("chain", chain_text), ("reduce chain", reduce_chain_text))


SCALING_SIZES = (1000, 5000, 20000, 100000)


def scaling_figures(make, measure, report, rounds=1):
    """measure(path) on the graphs make(n) for n from 10^3 to 10^5 nodes,
    `rounds` times, the sizes interleaved in each round (so that a slow
    spell of the machine slows every size rather than only the one measured
    during it); keeps each size's smallest figure, report(n, figure) once
    all rounds are done; returns the ratios (a, b, figure(b) / (5 figure(a)))
    at both ends."""
    paths = {}
    figures = {}
    try:
        for n in SCALING_SIZES:
            with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
                f.write(make(n))
            paths[n] = f.name
        for _ in range(rounds):
            for n in SCALING_SIZES:
                figure = measure(paths[n])
                figures[n] = figure if n not in figures else min(figures[n], figure)
    finally:
        for path in paths.values():
            os.unlink(path)
    for n in SCALING_SIZES:
        report(n, figures[n])
    return [(a, b, figures[b] / (5 * figures[a])) for a, b in ((1000, 5000), (20000, 100000))]


def instruction_scaling():
    for family, make in SCALING_FAMILIES:
        for a, b, r in scaling_figures(make, instructions, lambda n, count: print(
                f"{family} {n:>7} nodes: {count / 1e6:9.1f} M instructions "
                f"({count / n:7.0f} per node)", flush=True)):
            print(f"{family} instruction scaling {a}->{b}: "
                  f"instr({b}) / (5 * instr({a})) = {r:.2f}")


def scaling(repeat):
    for family, make in SCALING_FAMILIES:
        for a, b, r in scaling_figures(make, lambda path: lazy_time(path, 1, verify=False),
                                       lambda n, t: print(
                f"{family} {n:>7} nodes: lazy-schedule (-verify-each=0) {t * 1e3:8.2f} ms "
                f"({t / n * 1e6:5.2f} us/node)", flush=True), rounds=repeat):
            print(f"{family} scaling {a}->{b}: time({b}) / (5 * time({a})) = {r:.2f}")


def host_speed(repeat=5):
    """Two figures of the host's state at the time of the run, which moves
    both sides' times (and not alike) from one run to the next: the cost of
    a page's first touch (fault plus zeroing: 64 MiB of fresh anonymous
    memory written a byte per page, less a second pass over the same
    pages), and the time of a step of a plain Python loop. Best of
    `repeat`."""
    import mmap
    size, page = 64 << 20, mmap.PAGESIZE
    fault, step = None, None
    for _ in range(repeat):
        m = mmap.mmap(-1, size)
        passes = []
        for _ in range(2):
            start = time.perf_counter()
            for offset in range(0, size, page):
                m[offset] = 1
            passes.append(time.perf_counter() - start)
        m.close()
        t = (passes[0] - passes[1]) / (size // page)
        fault = t if fault is None else min(fault, t)
        start = time.perf_counter()
        total = 0
        for i in range(10 ** 6):
            total += i
        t = (time.perf_counter() - start) / 10 ** 6
        step = t if step is None else min(step, t)
    return fault, step


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, nargs="*", default=[2, 12, 24, 48])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", action="store_true",
                        help="also time lazy-schedule with threads enabled")
    parser.add_argument("--instructions", action="store_true",
                        help="also count instructions of the scaling graphs (valgrind)")
    args = parser.parse_args()
    if not os.path.exists(LAZY_OPT):
        sys.exit(f"error: {LAZY_OPT} not found; build first (bash scripts/setup.sh)")
    fault, step = host_speed()
    print(f"host: first touch of a page {fault * 1e6:.2f} us, "
          f"a Python loop step {step * 1e9:.1f} ns", flush=True)
    for layers in args.layers:
        measure(f"transformer x{layers}", lambda: transformer_step(layers), args.repeat,
                args.threads)
    measure("convnet sgd", convnet_step, args.repeat, args.threads)
    scaling(args.repeat)
    if args.instructions:
        instruction_scaling()


if __name__ == "__main__":
    main()
