#!/usr/bin/env python3
"""CPU kernels against tinygrad 0.9.2 CLANG and numpy, side by side.

Each program is built once in tinygrad (CLANG, inputs realized), exported
to `lazy` IR and run by `lazy-run --repeat` (compile excluded; one thread
with OMP_NUM_THREADS=1, then every core), while tinygrad runs the same
schedule: create_schedule plus memory_planner, every item lowered (compiled)
once, then its ExecItems run and timed (compile excluded, buffers kept).
numpy runs the same computation in a fresh process with one OpenBLAS thread
(OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset, which would slow it).
Rounds interleave the sides, so that a slow spell of a shared machine slows
all of them; every figure is the median over the rounds of each side's
median of --runs runs, each side first running --warmup times untimed (on
this VM a fresh process reads 64 MB at half speed for its first several
runs, numpy as much as lazy-run).

  python3 bench/cpu_bench.py [--rounds 5] [--runs 5] [--warmup 10] [--only NAME,...]

Programs marked "aggr" are exported with fusion=aggressive: lazy-run runs
lazy-mlir's own schedule of them, tinygrad its own. Programs marked
"exact-exp2" run lazy-run --fast-exp2=false (the correctly rounded exp2);
every other row keeps the default numerics (exp2 within 1 ulp).

Prints per program: milliseconds for lazy-run on 1 and all threads,
tinygrad and numpy, the ratios, and GFLOP/s or GB/s where they mean
something (the copy bandwidth line first: numpy copying a 256 MB array).
Then the compile times of the same schedules, cold, medians over the
rounds: lazy-run's lower and compile phases (`--timing`: lazy-to-cpu and
LLVM to machine code, kernels on every core) against tinygrad's
lower_schedule (every kernel rendered and compiled by clang, its on-disk
cache off and its in-memory cache cleared each round). lazy-run's are
given twice: in a fresh process ("lazy-run"), and after an untimed
compile of a copy in the same process ("warm", `--warm-compile`: shared
libraries bound and LLVM initialized, nothing cached), which is how
tinygrad's are taken, in its long-running Python process. The cold
figures run with the program cache off (--no-cache); "cached" is the load
phase of a process that finds the program in a cache an earlier run
filled (the disk cache's warm start: key, read, link).
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

os.environ.setdefault("CLANG", "1")
# Compile times are cold on both sides: tinygrad's on-disk cache of
# compiled kernels off (lazy-run keeps none).
os.environ.setdefault("DISABLE_COMPILER_CACHE", "1")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))

from lazy_mlir import run_tool, tool_path  # noqa: E402

LAZY_RUN = tool_path("lazy-run")
MB = 1 << 20


def _rand(*shape):
    from tinygrad import Tensor
    return Tensor.rand(*shape).realize()


def matmul():
    a, b = _rand(1024, 1024), _rand(1024, 1024)
    return [a @ b], dict(flops=2 * 1024 ** 3,
                         numpy="a=r(1024,1024);b=r(1024,1024)", np_expr="a@b")


def conv2d():
    x, w = _rand(1, 64, 56, 56), _rand(64, 64, 3, 3)
    return [x.conv2d(w, padding=1)], dict(flops=2 * 64 * 56 * 56 * 64 * 9)


def elementwise():
    n = 1 << 24
    a, b, c = _rand(n), _rand(n), _rand(n)
    return [a * b + c], dict(bytes=4 * 4 * n, numpy=f"a=r({n});b=r({n});c=r({n})",
                             np_expr="a*b+c")


def _square(op, np_expr, reduce_bytes=True, flags=None, lazy_args=()):
    def build():
        x = _rand(4096, 4096)
        return [op(x)], dict(bytes=4 * 4096 * 4096 * (1 if reduce_bytes else 2),
                             numpy="x=r(4096,4096)", np_expr=np_expr, flags=flags,
                             lazy_args=list(lazy_args))
    return build


SOFTMAX_NP = "e=np.exp(x-x.max(1,keepdims=True));e/e.sum(1,keepdims=True)"
LAYERNORM_NP = "m=x.mean(1,keepdims=True);d=x-m;d/np.sqrt((d*d).mean(1,keepdims=True)+1e-5)"
# lazy-mlir's own fusion: each is one row kernel (tinygrad still runs its
# own three-kernel schedule).
AGGRESSIVE = {"fusion": "aggressive"}


def _corpus(name):
    def build():
        from corpus import registry
        built = registry.build(name)
        return built["outputs"], dict(flags=built["flags"])
    return build


def transformer_large():
    from tinygrad import dtypes
    from corpus import training
    from corpus.registry import realized
    model = training.Transformer(2, dim=128, heads=4, hidden=512, vocab=64)
    tokens = realized(8, 64, dtype=dtypes.int32)
    targets = realized(8, 64, dtype=dtypes.int32)
    from tinygrad import nn
    return training.train_step(model, lambda p: nn.optim.AdamW(p, lr=1e-3, weight_decay=0.1),
                               tokens, targets), {}


PROGRAMS = [
    ("matmul 1024^3", matmul),
    ("conv2d 64x56x56 3x3", conv2d),
    ("a*b+c 2^24", elementwise),
    ("row sum 4096^2", _square(lambda x: x.sum(1), "x.sum(1)")),
    ("full sum 4096^2", _square(lambda x: x.sum(), "x.sum()")),
    ("row max 4096^2", _square(lambda x: x.max(1), "x.max(1)")),
    ("full max 4096^2", _square(lambda x: x.max(), "x.max()")),
    ("softmax 4096^2", _square(lambda x: x.softmax(1), SOFTMAX_NP, reduce_bytes=False)),
    ("layernorm 4096^2", _square(lambda x: x.layernorm(1), LAYERNORM_NP, reduce_bytes=False)),
    ("softmax 4096^2 aggr", _square(lambda x: x.softmax(1), SOFTMAX_NP, reduce_bytes=False,
                                    flags=AGGRESSIVE)),
    ("layernorm 4096^2 aggr", _square(lambda x: x.layernorm(1), LAYERNORM_NP, reduce_bytes=False,
                                      flags=AGGRESSIVE)),
    # The correctly rounded exp2 instead of the default 1-ulp one
    # (lazy-run --fast-exp2=false).
    ("softmax 4096^2 exact-exp2", _square(lambda x: x.softmax(1), SOFTMAX_NP, reduce_bytes=False,
                                          lazy_args=["--fast-exp2=false"])),
    ("softmax 4096^2 aggr exact-exp2", _square(lambda x: x.softmax(1), SOFTMAX_NP,
                                               reduce_bytes=False, flags=AGGRESSIVE,
                                               lazy_args=["--fast-exp2=false"])),
    ("transformer2 step", _corpus("training/transformer2_adamw")),
    ("convnet step", _corpus("training/convnet_sgd")),
    ("transformer d128 step", transformer_large),
]


def tinygrad_runner(outputs):
    """A function running the outputs' schedule once (compiled already),
    and one timing a cold compile of that schedule."""
    from tinygrad import Device
    from tinygrad.engine import realize
    from tinygrad.engine.realize import lower_schedule, memory_planner
    from tinygrad.engine.schedule import create_schedule
    from lazy_mlir.tinygrad._export import collect_outputs
    schedule = memory_planner(create_schedule(collect_outputs(outputs)))
    # lower_schedule consumes its list.
    items = list(lower_schedule(list(schedule)))
    device = Device[Device.DEFAULT]

    def run():
        for item in items:
            item.run()
        device.synchronize()

    def compile_time():
        realize.method_cache.clear()
        start = time.perf_counter()
        list(lower_schedule(list(schedule)))
        return time.perf_counter() - start
    return run, compile_time


def median_time(fn, runs, warmup=0):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def lazy_time(path, runs, threads, warmup, extra=(), cache_dir=None):
    """The median run time and the compile time (lower + compile, or the
    program cache's load), seconds. Without `cache_dir` the program cache
    is off: the compile is cold."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    cache = [f"--cache-dir={cache_dir}"] if cache_dir else ["--no-cache"]
    proc = subprocess.run([LAZY_RUN, path, "--seed=1", f"--repeat={runs}", f"--warmup={warmup}",
                           "--timing", *cache, *extra],
                          capture_output=True, text=True, env=env)
    m = re.search(r"time: median ([0-9.]+) ms", proc.stdout)
    phases = dict(re.findall(r"lazy-run: time (\w+) +([0-9.]+) ms", proc.stderr))
    if proc.returncode != 0 or not m or not ("compile" in phases or "load" in phases):
        sys.exit(f"lazy-run failed on {path}:\n{proc.stdout}{proc.stderr}")
    if "load" in phases:
        return float(m.group(1)) / 1e3, float(phases["load"]) / 1e3
    compile_s = (float(phases["lower"]) + float(phases["compile"])) / 1e3
    return float(m.group(1)) / 1e3, compile_s


NUMPY_SNIPPET = """
import time, statistics, numpy as np
rng = np.random.default_rng(1)
r = lambda *s: rng.random(s, dtype=np.float32)
{setup}
for _ in range({warmup}):
    {expr}
times = []
for _ in range({runs}):
    t = time.perf_counter(); {expr}; times.append(time.perf_counter() - t)
print(statistics.median(times))
"""


def numpy_time(setup, expr, runs, warmup):
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    env["OPENBLAS_NUM_THREADS"] = "1"
    proc = subprocess.run([sys.executable, "-c", NUMPY_SNIPPET.format(setup=setup, expr=expr, runs=runs, warmup=warmup)],
                          capture_output=True, text=True, env=env, check=True)
    return float(proc.stdout.strip())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=10, help="untimed runs before each side's timed ones")
    ap.add_argument("--only", default="", help="comma-separated program names (substrings)")
    ap.add_argument("--work", default="/tmp/lazy-cpu-bench")
    args = ap.parse_args()
    if not os.access(LAZY_RUN, os.X_OK):
        sys.exit(f"{LAZY_RUN} is not built")
    os.makedirs(args.work, exist_ok=True)
    from lazy_mlir.tinygrad import export

    copy = numpy_time("x=r(64*1024*1024);y=np.empty_like(x)", "np.copyto(y,x)", args.runs, args.warmup)
    copy_gbs = 2 * 256 * MB / copy / 1e9
    print(f"copy bandwidth (numpy, 256 MB): {copy_gbs:.1f} GB/s; cores: {os.cpu_count()}")
    print(f"{'program':24s} {'lazy 1t':>9s} {'lazy all':>9s} {'tinygrad':>9s} {'numpy':>9s}"
          f" {'1t/tg':>6s} {'all/tg':>6s} {'np/1t':>6s}  rate (1 thread)")
    wanted = [w for w in args.only.split(",") if w]
    compiles = []
    for name, build in PROGRAMS:
        if wanted and not any(w in name for w in wanted):
            continue
        outputs, info = build()
        path = os.path.join(args.work, re.sub(r"\W+", "_", name) + ".mlir")
        with open(path, "w") as f:
            f.write(export(outputs, flags=info.get("flags")))
        run_tg, compile_tg = tinygrad_runner(outputs)
        run_tg()  # warm: buffers allocated
        sides = {"1t": [], "all": [], "tg": [], "np": []}
        compile_times = {"lazy": [], "warm": [], "tg": [], "cached": []}
        cache_dir = os.path.join(args.work, "programs", re.sub(r"\W+", "_", name))
        shutil.rmtree(cache_dir, ignore_errors=True)
        lazy_time(path, 1, 1, 0, info.get("lazy_args", ()), cache_dir)  # fills the cache
        for _ in range(args.rounds):
            sides["tg"].append(median_time(run_tg, args.runs, args.warmup))
            extra = list(info.get("lazy_args", ()))
            run_1t, compile_cold = lazy_time(path, args.runs, 1, args.warmup, extra)
            sides["1t"].append(run_1t)
            run_all, compile_warm = lazy_time(path, args.runs, os.cpu_count(), args.warmup,
                                              extra + ["--warm-compile"])
            sides["all"].append(run_all)
            compile_times["lazy"].append(compile_cold)
            compile_times["warm"].append(compile_warm)
            compile_times["tg"].append(compile_tg())
            compile_times["cached"].append(
                lazy_time(path, 1, 1, 0, extra, cache_dir)[1])
            if "np_expr" in info:
                sides["np"].append(numpy_time(info["numpy"], info["np_expr"], args.runs, args.warmup))
        compiles.append((name, statistics.median(compile_times["lazy"]),
                         statistics.median(compile_times["warm"]),
                         statistics.median(compile_times["tg"]),
                         statistics.median(compile_times["cached"])))
        t = {k: statistics.median(v) if v else float("nan") for k, v in sides.items()}
        rate = ""
        if "flops" in info:
            rate = f"{info['flops'] / t['1t'] / 1e9:.1f} GFLOP/s"
            if t["np"] == t["np"]:
                rate += f" (numpy {info['flops'] / t['np'] / 1e9:.1f})"
        elif "bytes" in info:
            gbs = info["bytes"] / t["1t"] / 1e9
            rate = f"{gbs:.1f} GB/s, {100 * gbs / copy_gbs:.0f}% of copy"
        print(f"{name:24s} {t['1t'] * 1e3:9.2f} {t['all'] * 1e3:9.2f} {t['tg'] * 1e3:9.2f}"
              f" {t['np'] * 1e3:9.2f} {t['1t'] / t['tg']:6.2f} {t['all'] / t['tg']:6.2f}"
              f" {t['np'] / t['1t']:6.2f}  {rate}", flush=True)
    print(f"\n{'compile (cold)':24s} {'lazy-run':>9s} {'warm':>9s} {'tinygrad':>9s} {'tg/lazy':>8s}"
          f" {'tg/warm':>8s} {'cached':>8s} {'lazy/cached':>11s}")
    for name, lazy_s, warm_s, tg_s, cached_s in compiles:
        print(f"{name:24s} {lazy_s * 1e3:9.0f} {warm_s * 1e3:9.0f} {tg_s * 1e3:9.0f}"
              f" {tg_s / lazy_s:8.2f} {tg_s / warm_s:8.2f} {cached_s * 1e3:8.1f}"
              f" {lazy_s / cached_s:11.1f}")


if __name__ == "__main__":
    main()
