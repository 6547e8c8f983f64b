#!/usr/bin/env python3
"""A data-parallel SGD step on MPI ranks: bytes moved and time.

    python3 bench/distributed.py [--hidden 1024] [--batch 512] [--ranks 2,4]
                                 [--repeat 10] [--rounds 3]

The workload: an MLP 784-H-H-10 (ReLU), mean squared error, SGD with
momentum (the second step: the first ran in tinygrad, so the momentum
buffers hold values), written in tinygrad 0.9.2. For N ranks the
parameters are replicated on N CLANG devices and the batch is sharded
over them (Tensor.shard), so tinygrad builds its naive all-reduce of
every gradient out of copies and adds.

Bytes, per rank and step, from the schedules (lazy-opt): the gradient
bytes G that lazy-distribute hands to mpi.allreduce, what tinygrad's
copies move into each device ((N-1)·G for the naive all-reduce, plus the
loss), what the ring all-reduce moves per rank (2(N-1)/N·G, the bound
MPI's ring algorithm reaches), and the point-to-point bytes left as
lazy.send (copies that are not all-reduces).

Time: the median over --rounds of lazy-run's median step time
(--repeat runs after 2 warm-ups, compile excluded), each rank one core
(OMP_NUM_THREADS=1, mpirun --bind-to core): one process on the unsharded
step (the whole batch), and `mpirun -n 2 lazy-run --distributed` on the
step sharded over 2 devices; the ratio is the figure issue 52 asks for
(at most 0.6). The same at --threads all cores for the single process,
for reference. Without MPI (no mpirun or no libmpi.so.40) the timing is
skipped with the reason.
"""

import argparse
import ctypes
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

os.environ.setdefault("CLANG", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))

from lazy_mlir import tool_path  # noqa: E402

LAZY_OPT = tool_path("lazy-opt")
LAZY_RUN = tool_path("lazy-run")
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
ITEM_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "f64": 8, "si32": 4, "ui32": 4, "si64": 8, "ui64": 8,
              "si8": 1, "ui8": 1, "si16": 2, "ui16": 2, "i1": 1}


def parameter_bytes(hidden):
    return 4 * (784 * hidden + hidden + hidden * hidden + hidden + hidden * 10 + 10)


def mlp_step(ranks, hidden, batch, ring=None):
    from tinygrad import Tensor, nn
    from tinygrad.helpers import Context
    from tinygrad.nn.optim import SGD
    if ring is not None:
        with Context(RING=ring):
            return mlp_step(ranks, hidden, batch)
    Tensor.manual_seed(0)
    layers = [nn.Linear(784, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, 10)]
    params = [p for layer in layers for p in (layer.weight, layer.bias)]
    x, y = Tensor.randn(batch, 784), Tensor.randn(batch, 10)
    if ranks > 1:
        devs = tuple("CLANG" if i == 0 else f"CLANG:{i}" for i in range(ranks))
        for p in params:
            p.shard_(devs)
        x, y = x.shard(devs, axis=0), y.shard(devs, axis=0)
    for t in params + [x, y]:
        t.realize()
    opt = SGD(params, lr=0.01, momentum=0.9)

    def loss():
        h = x
        for layer in layers[:-1]:
            h = layer(h).relu()
        return ((layers[-1](h) - y) ** 2).mean()

    with Tensor.train():
        opt.zero_grad()
        loss().backward()
        opt.step()
        opt.zero_grad()
        step_loss = loss()
        step_loss.backward()
        return [step_loss] + opt.schedule_step()


def export_step(folder, ranks, hidden, batch, ring=None):
    import gc
    from lazy_mlir.tinygrad import export
    gc.collect()
    path = os.path.join(folder, f"step{ranks}-{ring}.mlir")
    with open(path, "w") as f:
        f.write(export(mlp_step(ranks, hidden, batch, ring)))
    return path


def buffer_bytes(type_text):
    size, element = re.match(r"!lazy\.buffer<(\d+)x(\w+)", type_text).groups()
    return int(size) * ITEM_BYTES[element]


def lazy_opt(path, *passes):
    proc = subprocess.run([LAZY_OPT, *passes, path], capture_output=True, text=True, check=True)
    return proc.stdout


def bytes_per_rank(path, ranks):
    """(bytes all-reduced with MPI, tinygrad's copies into each device,
    point-to-point sends) per rank, averaged over the ranks."""
    scheduled = lazy_opt(path, "--lazy-schedule=plan-memory=false")
    copies = 0
    for m in re.finditer(r'lazy\.ext "copy" outs\(%\S+ : (!lazy\.buffer<[^>]*>>?)\) '
                         r'ins\(%\S+ : (!lazy\.buffer<[^>]*>>?)\)', scheduled):
        out, src = m.groups()
        if "NPY" not in src and out.split(",")[1:] != src.split(",")[1:]:
            copies += buffer_bytes(out)
    distributed = lazy_opt(path, "--lazy-schedule=plan-memory=false", "--lazy-distribute")
    gradient = sum(buffer_bytes(t) for t in re.findall(
        r'lazy\.all_reduce "sum" %\S+ into %\S+ : (!lazy\.buffer<[^>]*>>?)', distributed))
    sends = sum(buffer_bytes(t) for t in re.findall(
        r"lazy\.send %\S+ to rank \d+ tag \d+ : (!lazy\.buffer<[^>]*>>?)", distributed))
    return gradient / ranks, copies / ranks, sends / ranks


def median_time(command, env):
    proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1800)
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{proc.stdout}{proc.stderr}")
    return float(re.search(r"time: median ([0-9.]+) ms", proc.stdout).group(1))


def mpi_available():
    if not shutil.which("mpirun"):
        return "no mpirun"
    try:
        ctypes.CDLL("libmpi.so.40", mode=ctypes.RTLD_GLOBAL)
    except OSError:
        return "no libmpi.so.40"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hidden", type=int, default=1024)
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--ranks", default="2,4", help="rank counts for the byte counts")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        one = export_step(folder, 1, args.hidden, args.batch)
        g = parameter_bytes(args.hidden)
        print(f"MLP 784-{args.hidden}-{args.hidden}-10, batch {args.batch}, SGD with momentum; "
              f"gradient G = {g / 1e6:.3f} MB")
        paths = {}
        for n in sorted({2} | {int(r) for r in args.ranks.split(",")}):
            # tinygrad's default (RING=1: by hand as a ring past 2 devices and
            # 256k elements), and its naive all-reduce (RING=0).
            for ring in ((None,) if n == 2 else (None, 0)):
                path = paths.setdefault((n, ring), export_step(folder, n, args.hidden, args.batch,
                                                               ring))
                reduced, copies, sends = bytes_per_rank(path, n)
                factor = 2 * (n - 1) / n
                moved = factor * reduced + sends
                print(f"ranks {n}{'' if ring is None else f' RING={ring}'}: tinygrad's copies into "
                      f"each device {copies / g:.2f} G; lazy-mlir per rank: mpi.allreduce of "
                      f"{reduced / g:.2f} G (ring: {factor:.2f} x that) + sends {sends / g:.4f} G = "
                      f"{moved / g:.3f} G = {moved / 1e6:.3f} MB; ring bound {factor:.2f} G")
        why = mpi_available()
        if why:
            print(f"timing skipped: {why} (install openmpi-bin libopenmpi-dev)")
            return
        env = dict(os.environ, **MPI_ENV, OMP_NUM_THREADS="1")
        timed = ["--repeat", str(args.repeat), "--warmup", "2", "--no-cache"]
        single, double, wide = [], [], []
        for _ in range(args.rounds):
            single.append(median_time([LAZY_RUN, one, *timed], env))
            double.append(median_time(["mpirun", "--oversubscribe", "--bind-to", "core", "-n", "2",
                                       LAZY_RUN, "--distributed", paths[(2, None)], *timed],
                                      env))
            wide.append(median_time([LAZY_RUN, one, *timed],
                                    {k: v for k, v in env.items() if k != "OMP_NUM_THREADS"}))
        t1, t2, tw = (statistics.median(t) for t in (single, double, wide))
        print(f"step, one core per rank: 1 rank {t1:.2f} ms, 2 ranks {t2:.2f} ms, "
              f"ratio {t2 / t1:.3f} (rounds: {single} / {double})")
        print(f"step, 1 process on all {os.cpu_count()} cores: {tw:.2f} ms (rounds: {wide})")


if __name__ == "__main__":
    main()
