#!/usr/bin/env python3
"""CPU kernels side by side with the compilers a user would pick instead.

    python3 bench/peers.py [--rounds 3] [--runs 5] [--warmup 5]
                           [--threads 1,2] [--only NAME,...]

The programs of issue 50's table (matmul 1024^3, conv2d 1x64x56x56 with
64x3x3, row sum, softmax and layernorm over 4096x4096 with tinygrad's
fusion and with fusion=aggressive, a*b+c over 2^24 floats, all f32) run
on lazy-mlir (`lazy-run --repeat`, compile excluded, buffers reused) and
on each peer that is importable here, each in a fresh process pinned to
the same cores with `taskset` (1 thread: core 0; 2: cores 0 and 1):
  - xla: `jax.jit` on the CPU;
  - iree: the same jax function lowered to StableHLO, compiled by
    iree.compiler for llvm-cpu (host CPU, data tiling on: it halves
    IREE's matmul time here) and run by iree.runtime's local-task driver
    with as many workers as threads (needs jax for the StableHLO);
  - inductor: `torch.compile`; torch: torch eager;
  - numpy (OpenBLAS), which has no conv.
A peer that is not installed is skipped with its reason: none of them is a
dependency of the project. Peers compile during their warm-up runs and
allocate their outputs on every call; lazy-run reuses its buffers.

Rounds interleave every side of a program, so that a slow spell of a
shared machine slows all of them; each figure is the median over rounds
of each side's median of --runs runs. Prints, per thread count, the
milliseconds of every side, the best peer and lazy-mlir's time over the
best peer's (below 1: lazy-mlir is faster), then lazy-mlir's speed-up
from 1 to 2 threads.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys

os.environ.setdefault("CLANG", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# program name (cpu_bench.PROGRAMS) -> the computation the peers run.
PROGRAMS = [
    ("matmul 1024^3", "matmul"),
    ("conv2d 64x56x56 3x3", "conv2d"),
    ("row sum 4096^2", "rowsum"),
    ("softmax 4096^2", "softmax"),
    ("softmax 4096^2 aggr", "softmax"),
    ("layernorm 4096^2", "layernorm"),
    ("layernorm 4096^2 aggr", "layernorm"),
    ("a*b+c 2^24", "fma"),
]
PEERS = ["xla", "iree", "inductor", "torch", "numpy"]

#===-------------------------------------------------------------------===#
# Child: one peer, one computation, timed in this process
#===-------------------------------------------------------------------===#


def _inputs(key):
    import numpy as np
    rng = np.random.default_rng(1)

    def r(*shape):
        return rng.random(shape, dtype=np.float32)
    if key == "matmul":
        return [r(1024, 1024), r(1024, 1024)]
    if key == "conv2d":
        return [r(1, 64, 56, 56), r(64, 64, 3, 3)]
    if key == "fma":
        return [r(1 << 24), r(1 << 24), r(1 << 24)]
    return [r(4096, 4096)]


class _Ops:
    """What the programs need of a numpy-like module: elementwise exp and
    sqrt, row reductions that keep the reduced axis, and conv2d (None:
    the peer has none)."""

    def __init__(self, module, keep="keepdims", rowmax="max", conv=None):
        self.exp, self.sqrt, self.conv = module.exp, module.sqrt, conv
        self._keep, self._max = keep, rowmax

    def rowmax(self, x):
        return getattr(x, self._max)(1, **{self._keep: True})

    def rowsum(self, x):
        return x.sum(1, **{self._keep: True})

    def rowmean(self, x):
        return x.mean(1, **{self._keep: True})


def _program(key, ops):
    """The computation `key` written with `ops` (an _Ops)."""
    def softmax(x):
        e = ops.exp(x - ops.rowmax(x))
        return e / ops.rowsum(e)

    def layernorm(x):
        d = x - ops.rowmean(x)
        return d / ops.sqrt(ops.rowmean(d * d) + 1e-5)
    if key == "conv2d":
        if ops.conv is None:
            raise NotImplementedError("no conv2d")
        return ops.conv
    return {
        "matmul": lambda a, b: a @ b,
        "rowsum": lambda x: x.sum(1),
        "softmax": softmax,
        "layernorm": layernorm,
        "fma": lambda a, b, c: a * b + c,
    }[key]


def _torch_fn(key):
    import torch
    import torch.nn.functional as F
    return _program(key, _Ops(torch, keep="keepdim", rowmax="amax",
                              conv=lambda x, w: F.conv2d(x, w, padding=1)))


def _jax_fn(key):
    import jax
    import jax.numpy as jnp

    def conv(x, w):
        return jax.lax.conv_general_dilated(x, w, (1, 1), [(1, 1), (1, 1)])
    return _program(key, _Ops(jnp, conv=conv))


def _runner(peer, key, threads):
    """A function computing `key` once on `peer`, blocking until done."""
    args = _inputs(key)
    if peer == "numpy":
        import numpy as np
        fn = _program(key, _Ops(np))
        return lambda: fn(*args)
    if peer == "xla":
        import jax
        jax.config.update("jax_platforms", "cpu")
        fn = jax.jit(_jax_fn(key))
        dev = [jax.device_put(a) for a in args]
        return lambda: fn(*dev).block_until_ready()
    if peer in ("torch", "inductor"):
        import torch
        torch.set_num_threads(threads)
        fn = _torch_fn(key)
        if peer == "inductor":
            fn = torch.compile(fn)
        tensors = [torch.from_numpy(a) for a in args]

        def run():
            with torch.no_grad():
                return fn(*tensors)
        return run
    if peer == "iree":
        import jax
        import iree.compiler as ireec
        import iree.runtime as ireert
        jax.config.update("jax_platforms", "cpu")
        text = jax.jit(_jax_fn(key)).lower(*args).as_text()
        vmfb = ireec.compile_str(text, target_backends=["llvm-cpu"], input_type="stablehlo",
                                 extra_args=["--iree-llvmcpu-target-cpu=host",
                                             "--iree-opt-data-tiling=true"])
        ireert.flags.parse_flags(f"--task_topology_max_group_count={threads}")
        config = ireert.Config("local-task")
        ctx = ireert.SystemContext(config=config)
        ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
        module = next(m for name, m in ctx.modules.items() if name not in ("hal",))
        fn = module["main"]
        dev = [ireert.asdevicearray(config.device, a) for a in args]
        return lambda: fn(*dev).to_host()
    raise ValueError(f"unknown peer {peer}")


def child(peer, key, threads, runs, warmup):
    from cpu_bench import median_time
    try:
        run = _runner(peer, key, threads)
    except (ImportError, NotImplementedError) as e:
        print(f"skip: {type(e).__name__}: {e}")
        return
    print(median_time(run, runs, warmup))


#===-------------------------------------------------------------------===#
# Parent: rounds over programs and sides
#===-------------------------------------------------------------------===#


def _pinned(threads, env_extra=None):
    """(command prefix, environment) for a process on `threads` cores."""
    cores = ",".join(str(i) for i in range(threads))
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    if threads == 1:
        env["XLA_FLAGS"] = ("--xla_cpu_multi_thread_eigen=false "
                            "intra_op_parallelism_threads=1")
    env.update(env_extra or {})
    prefix = ["taskset", "-c", cores] if shutil.which("taskset") else []
    return prefix, env


def peer_time(peer, key, threads, runs, warmup):
    """Seconds, or a string saying why the peer was skipped."""
    prefix, env = _pinned(threads)
    proc = subprocess.run([*prefix, sys.executable, os.path.abspath(__file__), "--child", peer,
                           "--program", key, "--threads", str(threads), "--runs", str(runs),
                           "--warmup", str(warmup)],
                          capture_output=True, text=True, env=env)
    out = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not out:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return f"failed: {last[:120]}"
    if out[-1].startswith("skip:"):
        return out[-1][len("skip: "):]
    return float(out[-1])


def lazy_time(lazy_run, path, threads, runs, warmup, extra):
    prefix, env = _pinned(threads)
    proc = subprocess.run([*prefix, lazy_run, path, "--seed=1", f"--repeat={runs}",
                           f"--warmup={warmup}", *extra],
                          capture_output=True, text=True, env=env)
    m = re.search(r"time: median ([0-9.]+) ms", proc.stdout)
    if proc.returncode != 0 or not m:
        sys.exit(f"lazy-run failed on {path}:\n{proc.stdout}{proc.stderr}")
    return float(m.group(1)) / 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=5,
                    help="untimed runs before each side's timed ones (peers compile in them)")
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    ap.add_argument("--only", default="", help="comma-separated program names (substrings)")
    ap.add_argument("--peers", default=",".join(PEERS))
    ap.add_argument("--work", default="/tmp/lazy-peers-bench")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--program", help=argparse.SUPPRESS)
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",") if t]
    if args.child:
        return child(args.child, args.program, threads[0], args.runs, args.warmup)

    sys.path.insert(0, os.path.join(ROOT, "python"))
    sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
    sys.path.insert(0, HERE)
    import cpu_bench
    from lazy_mlir import tool_path
    from lazy_mlir.tinygrad import export
    lazy_run = tool_path("lazy-run")
    if not os.access(lazy_run, os.X_OK):
        sys.exit(f"{lazy_run} is not built")
    os.makedirs(args.work, exist_ok=True)
    builders = dict(cpu_bench.PROGRAMS)
    peers = [p for p in args.peers.split(",") if p]
    wanted = [w for w in args.only.split(",") if w]
    programs = [(n, k) for n, k in PROGRAMS if not wanted or any(w in n for w in wanted)]

    # Export each program once (tinygrad builds the graph; its fusion flags).
    exported = {}
    for name, _ in programs:
        outputs, info = builders[name]()
        path = os.path.join(args.work, re.sub(r"\W+", "_", name) + ".mlir")
        with open(path, "w") as f:
            f.write(export(outputs, flags=info.get("flags")))
        exported[name] = (path, list(info.get("lazy_args", ())))

    sides = ["lazy"] + peers
    times = {(n, t, s): [] for n, _ in programs for t in threads for s in sides}
    skipped = {}
    for _ in range(args.rounds):
        for name, key in programs:
            for t in threads:
                path, extra = exported[name]
                times[(name, t, "lazy")].append(
                    lazy_time(lazy_run, path, t, args.runs, args.warmup, extra))
                for peer in peers:
                    if (peer, key) in skipped:
                        continue
                    got = peer_time(peer, key, t, args.runs, args.warmup)
                    if isinstance(got, str):
                        skipped[(peer, key)] = got
                        continue
                    times[(name, t, peer)].append(got)

    def med(name, t, side):
        v = times[(name, t, side)]
        return statistics.median(v) if v else None

    for t in threads:
        print(f"\n{t} thread{'s' if t > 1 else ''}: medians in ms (lazy/best < 1: lazy-mlir faster)")
        print(f"{'program':24s} {'lazy':>8s}" + "".join(f" {p:>9s}" for p in peers)
              + f" {'best peer':>10s} {'lazy/best':>9s}")
        for name, _ in programs:
            lazy = med(name, t, "lazy")
            cells, best = [], None
            for p in peers:
                v = med(name, t, p)
                cells.append(f" {v * 1e3:9.2f}" if v is not None else f" {'-':>9s}")
                if v is not None and (best is None or v < best[1]):
                    best = (p, v)
            tail = (f" {best[0]:>10s} {lazy / best[1]:9.2f}" if best
                    else f" {'-':>10s} {'-':>9s}")
            print(f"{name:24s} {lazy * 1e3:8.2f}" + "".join(cells) + tail)
    if 1 in threads and len(threads) > 1:
        t2 = max(threads)
        print(f"\nlazy-mlir's speed-up from 1 to {t2} threads:")
        for name, _ in programs:
            print(f"  {name:24s} {med(name, 1, 'lazy') / med(name, t2, 'lazy'):.2f}x")
    if skipped:
        print("\nskipped:")
        for (peer, key), why in sorted(skipped.items()):
            print(f"  {peer} {key}: {why}")


if __name__ == "__main__":
    main()
