#!/usr/bin/env python3
"""Differential fuzzing of the scheduler against tinygrad 0.9.2.

Generates random tinygrad programs (realized inputs; elementwise ops with
broadcasting and casts; sums and maxes over random axes, double reduces;
reshape, permute, expand, pad, shrink, flip and strided slices;
contiguous; matmul, cumsum, softmax, conv2d and pooling; arange, const and
rand operands; assigns to the inputs; gradients; one to three outputs;
random scheduler flags), schedules each with
tinygrad and with `lazy-opt --lazy-schedule`, and compares them item by
item as `python3 -m lazy_mlir.tinygrad compare` does (kinds, buffers,
kernel ASTs, memory plan; where tinygrad raises, lazy-opt must reject the
graph with the matching diagnostic).

Each program is a build() script. Programs run one after another in one
process, where tinygrad's lazy cache can reuse nodes of an earlier program;
so a difference is confirmed by comparing the program alone, in a fresh
process, and only then counted (else "identical alone"). A different one
is written to --out, where `python3 -m lazy_mlir.tinygrad compare
OUT/fuzz_SEED.py` replays it. Programs tinygrad cannot build are counted
as invalid. Exits 1 when any program was different.

With --check-run, each identical program's graph also runs through
`lazy-run --check` (CPU build, or the GPU kernels in the emulator with
--run-device=emulate): compiled kernels against the reference
interpreter. With --check-numerics, the reference interpreter's values
are compared with tinygrad's own (`python3 -m lazy_mlir.tinygrad check`).

  python3 scripts/fuzz_compare.py --runs 500 --seed 1 --out /tmp/fuzz
  python3 scripts/fuzz_compare.py --runs 200 --check-run build/bin/lazy-run
  python3 scripts/fuzz_compare.py --runs 100 --check-numerics
  python3 scripts/fuzz_compare.py --runs 200 --check-run build/bin/lazy-run \
      --fusion aggressive
  python3 scripts/fuzz_compare.py --minutes 10 --check-run build/bin/lazy-run \
      --shapes large --fusion aggressive
"""

import argparse
import gc
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuzz_schedule import warned_mismatch, with_fusion  # noqa: E402  (one table of warned differences)

SHAPES = [(4,), (8,), (2, 3), (3, 4), (4, 4), (2, 3, 4), (4, 1, 3), (2, 2, 2, 2), (1, 6),
          (1, 2, 4, 4), (2, 3, 3, 3)]
# --shapes large: rows long enough for the CPU's row reduces in lanes and
# plans' vector axes (16 f32 lanes), odd lengths for their remainders, and
# tensors large enough for parallel loops and nontemporal stores.
LARGE_SHAPES = [(8, 128), (16, 33), (32, 64), (3, 17, 40), (130,), (4096,), (64, 48),
                (2, 64, 32), (1, 256), (24, 24), (1, 4, 20, 20), (2, 8, 12, 12), (512, 96)]
UNARY = ["{x}.exp()", "{x}.sqrt()", "{x}.relu()", "{x}.reciprocal()", "{x}.log()", "-{x}",
         "({x} * 2.0)", "({x} + 1.0)", "{x}.sigmoid()", "{x}.abs()"]
BINARY = ["({x} + {y})", "({x} * {y})", "({x} - {y})", "{x}.maximum({y})", "({x} < {y}).where({x}, {y})",
          "({x} / ({y}.abs() + 1.0))"]


VERBOSE = False
# Differences docs/design.md explains (counted apart): with FUSE_CONV_BW,
# tinygrad merges a reduce that is also an output into the reduce reading
# it and never writes that output; lazy-opt rejects the graph.
KNOWN_DIFFERENCES = (
    "is an output but belongs to no kernel: fuse-conv-bw merged it",
    # a meta op in a reduce's multi-output group: tinygrad schedules it and
    # then cannot run it; lazy-form-kernels refuses it with this error
    "but no kernel computes it: tinygrad 0.9.2 schedules this too",
)


class Program:
    """A random program as Python source lines over named values."""

    def __init__(self, rng):
        self.rng = rng
        self.lines = []
        self.values = []  # (name, shape, is_realized_input)
        self.assigned = set()
        self.inputs = []  # realized inputs, whose gradients a differentiated program returns
        self.grad = False

    def new(self, expr, shape, realized=False):
        name = f"v{len(self.values)}"
        self.lines.append(f"{name} = {expr}")
        self.values.append((name, tuple(shape), realized))
        return name

    def pick(self, pred=lambda v: True):
        choices = [v for v in self.values if pred(v)]
        if not choices:
            return None
        # Recent values are likelier, so that chains grow deep.
        weights = [1 + i for i in range(len(choices))]
        return self.rng.choices(choices, weights)[0]

    # -- movement ops --------------------------------------------------
    def reshape(self, name, shape):
        total = 1
        for s in shape:
            total *= s
        dims = []
        rest = total
        while rest > 1:
            divisors = [d for d in range(2, rest + 1) if rest % d == 0]
            d = self.rng.choice(divisors)
            dims.append(d)
            rest //= d
        if self.rng.random() < 0.3:
            dims.insert(self.rng.randrange(len(dims) + 1), 1)
        dims = dims or [1]
        return self.new(f"{name}.reshape({tuple(dims)})", dims)

    def permute(self, name, shape):
        order = list(range(len(shape)))
        self.rng.shuffle(order)
        return self.new(f"{name}.permute({tuple(order)})", [shape[i] for i in order])

    def expand(self, name, shape):
        if 1 not in shape:
            shape1 = list(shape)
            at = self.rng.randrange(len(shape) + 1)
            shape1.insert(at, 1)
            name = self.new(f"{name}.reshape({tuple(shape1)})", shape1)
            shape = shape1
        new = [self.rng.choice([2, 3]) if s == 1 else s for s in shape]
        return self.new(f"{name}.expand({tuple(new)})", new)

    def pad(self, name, shape):
        arg = [(self.rng.randint(0, 2), self.rng.randint(0, 2)) if self.rng.random() < 0.6 else (0, 0)
               for _ in shape]
        return self.new(f"{name}.pad({tuple(arg)})", [s + a + b for s, (a, b) in zip(shape, arg)])

    def shrink(self, name, shape):
        arg = []
        for s in shape:
            lo = self.rng.randint(0, s - 1) if s > 1 and self.rng.random() < 0.6 else 0
            hi = self.rng.randint(lo + 1, s)
            arg.append((lo, hi))
        return self.new(f"{name}.shrink({tuple(arg)})", [b - a for a, b in arg])

    def flip(self, name, shape):
        axis = self.rng.randrange(len(shape))
        return self.new(f"{name}.flip({axis})", shape)

    def stride(self, name, shape):
        axis = self.rng.randrange(len(shape))
        if shape[axis] < 2:
            return self.flip(name, shape)
        index = ", ".join(["::2" if i == axis else ":" for i in range(len(shape))])
        new = list(shape)
        new[axis] = (shape[axis] + 1) // 2
        return self.new(f"{name}[{index}]", new)

    # -- compute ---------------------------------------------------------
    def reduce(self, name, shape):
        axis = self.rng.randrange(len(shape))
        keep = self.rng.random() < 0.6
        op = self.rng.choice(["sum", "sum", "max"])
        new = [1 if i == axis else s for i, s in enumerate(shape)] if keep else \
              [s for i, s in enumerate(shape) if i != axis]
        if not new:
            new = []
        return self.new(f"{name}.{op}(axis={axis}, keepdim={keep})", new)

    def binary(self, name, shape):
        def broadcastable(v):
            other = v[1]
            return len(other) == len(shape) and all(a == b or a == 1 or b == 1
                                                    for a, b in zip(other, shape))
        other = self.pick(broadcastable)
        oname, oshape = other[0], other[1]
        out = [max(a, b) for a, b in zip(shape, oshape)]
        expr = self.rng.choice(BINARY).format(x=name, y=oname)
        return self.new(expr, out)

    def matmul(self, name, shape):
        if len(shape) != 2:
            return self.reduce(name, shape)
        other = self.pick(lambda v: len(v[1]) == 2 and v[1][0] == shape[1])
        if other and self.rng.random() < 0.7:
            return self.new(f"({name} @ {other[0]})", [shape[0], other[1][1]])
        return self.new(f"({name} @ {name}.transpose())", [shape[0], shape[0]])

    def cumsum(self, name, shape):
        axis = self.rng.randrange(len(shape))
        return self.new(f"{name}.cumsum({axis})", shape)

    def softmax(self, name, shape):
        axis = self.rng.randrange(len(shape))
        op = self.rng.choice(["softmax", "log_softmax"])
        return self.new(f"{name}.{op}({axis})", shape)

    def source(self, name, shape):
        """A const or arange operand of the value's shape."""
        n = shape[-1]
        kind = self.rng.choice(["arange", "ones", "full"])
        if kind == "arange":
            src = f"Tensor.arange({n}).cast(dtypes.float32)"
            if len(shape) > 1:
                src += f".reshape({tuple([1] * (len(shape) - 1) + [n])}).expand({tuple(shape)})"
        elif kind == "ones":
            src = f"Tensor.ones{tuple(shape)}"
        else:
            src = f"Tensor.full({tuple(shape)}, 0.5)"
        return self.new(f"({name} + {src})", shape)

    def conv(self, name, shape):
        """conv2d with a new realized weight, or a 2x2 pool, on NCHW."""
        if len(shape) != 4 or shape[2] < 2 or shape[3] < 2:
            return self.reduce(name, shape)
        n, c, h, w = shape
        if self.rng.random() < 0.4:
            op = self.rng.choice(["avg_pool2d", "max_pool2d"])
            return self.new(f"{name}.{op}((2, 2))", [n, c, h // 2, w // 2])
        cout, k = self.rng.choice([1, 2, 3]), self.rng.choice([1, 2])
        grad = ", requires_grad=True" if self.grad else ""
        weight = self.new(f"Tensor.empty({cout}, {c}, {k}, {k}{grad}).realize()",
                          [cout, c, k, k], realized=True)
        self.inputs.append(weight)
        pad = self.rng.choice([0, 1]) if k == 2 else 0
        oh, ow = h + 2 * pad - k + 1, w + 2 * pad - k + 1
        return self.new(f"{name}.conv2d({weight}, padding={pad})", [n, cout, oh, ow])

    def double_reduce(self, name, shape):
        """A reduce of a reduce (what fuse-conv-bw merges)."""
        if len(shape) < 2:
            return self.reduce(name, shape)
        first = self.reduce(name, shape)
        return self.reduce(first, self.values[-1][1]) if self.values[-1][1] else first

    def rand(self, name, shape):
        """A custom_random operand (tinygrad's Tensor.rand without THREEFRY)."""
        return self.new(f"({name} + Tensor.rand{tuple(shape)})", shape)

    def copy(self, name, shape):
        """A round trip through another device (COPY items)."""
        return self.new(f"({name}.to('CLANG:1') * 2.0).to('CLANG')", shape)

    def bitcast(self, name, shape):
        return self.new(f"{name}.bitcast(dtypes.int32).bitcast(dtypes.float32)", shape)

    def step(self):
        name, shape, _ = self.pick(lambda v: len(v[1]) > 0)
        kind = self.rng.choices(
            ["unary", "binary", "reduce", "reshape", "permute", "expand", "pad", "shrink",
             "flip", "stride", "contiguous", "cast", "matmul", "cumsum", "softmax", "source",
             "conv", "double_reduce", "rand", "copy", "bitcast"],
            [4, 6, 4, 2, 2, 2, 1.5, 1.5, 1, 1, 1.5, 0.7, 1.5, 0.7, 0.7, 1, 1.5, 1, 0.3, 0.3,
             0.3])[0]
        if kind == "unary":
            return self.new(self.rng.choice(UNARY).format(x=name), shape)
        if kind == "contiguous":
            return self.new(f"{name}.contiguous()", shape)
        if kind == "cast":
            dtype = self.rng.choice(["dtypes.float16", "dtypes.int32", "dtypes.float32"])
            return self.new(f"{name}.cast({dtype}).cast(dtypes.float32)", shape)
        return getattr(self, kind)(name, shape)

    def assign(self):
        """An input gets a value of its shape (tinygrad's `a.assign(...)`),
        sometimes one computed from the input itself through a view."""
        inputs = [v for v in self.values if v[2] and v[0] not in self.assigned]
        self.rng.shuffle(inputs)
        for name, shape, _ in inputs:
            if shape[0] > 1 and self.rng.random() < 0.2:
                # a slice of the input: an ASSIGN through a view
                lo = self.rng.randrange(shape[0] - 1)
                part = (shape[0] - lo - 1,) + tuple(shape[1:])
                arg = ((lo, shape[0] - 1),) + tuple((0, d) for d in shape[1:])
                self.assigned.add(name)
                return self.new(f"{name}.shrink({arg}).assign({name}.shrink({arg}).exp() + 1.0)",
                                part)
            if len(shape) == 2 and shape[0] == shape[1] and self.rng.random() < 0.3:
                self.assigned.add(name)
                return self.new(f"{name}.assign({name}.transpose() + 1.0)", shape)
            value = self.pick(lambda v: v[1] == shape and not v[2])
            if value:
                self.assigned.add(name)
                return self.new(f"{name}.assign({value[0]})", shape)
        return None


def generate(seed, shapes=SHAPES):
    """The source of a build() script for one seed, its inputs of `shapes`."""
    rng = random.Random(seed)
    p = Program(rng)
    # Some programs are differentiated: the gradients' double reduces and
    # expands are what fuse-conv-bw and the realize rules are about.
    grad = p.grad = rng.random() < 0.3
    for _ in range(rng.randint(1, 3)):
        shape = rng.choice(shapes)
        args = ", ".join(map(str, shape)) + (", requires_grad=True" if grad else "")
        p.inputs.append(p.new(f"Tensor.empty({args}).realize()", shape, realized=True))
    for _ in range(rng.randint(2, 20)):
        p.step()
    outs = []
    if not grad and rng.random() < 0.3:
        for _ in range(rng.randint(1, 2)):
            assigned = p.assign()
            if assigned:
                outs.append(assigned)
    computed = [v[0] for v in p.values if not v[2]]
    if grad:
        p.lines.append(f"{computed[-1]}.sum().backward()")
        outs += [f"{x}.grad" for x in p.inputs]
    elif computed[-1] not in outs:
        outs.append(computed[-1])
    for _ in range(rng.randint(0, 2)):
        extra = rng.choice(computed)
        if extra not in outs:
            outs.append(extra)
    flags = {"multi_output": rng.random() < 0.8, "fuse_conv_bw": rng.random() < 0.3,
             "fuse_arange": rng.random() < 0.3}
    body = "\n".join("    " + line for line in p.lines)
    source = (f'"""fuzz_compare.py seed {seed}."""\n'
              "from tinygrad import Tensor, dtypes\n\n"
              f"FLAGS = {flags!r}\n"
              "# positive inputs for `check`: fewer NaNs from logs and roots, whose\n"
              "# folding tinygrad's codegen does not keep (x - x is 0 there)\n"
              "FILL = {'float': (0.5, 2.0)}\n\n\n"
              "def build():\n"
              f"{body}\n"
              f"    return [t for t in [{', '.join(outs)}] if t is not None]\n")
    return source


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lazy-opt", default=os.path.join(ROOT, "build", "bin", "lazy-opt"))
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--minutes", type=float, default=None,
                        help="stop after this much wall time (runs as many programs as fit, "
                             "up to --runs)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="directory for the programs that differ")
    parser.add_argument("--check-run", metavar="LAZY_RUN",
                        help="also run each identical program's graph with `LAZY_RUN GRAPH --check "
                             "--device=DEVICE` (compiled kernels against the reference interpreter)")
    parser.add_argument("--run-device", choices=("cpu", "emulate"), default="cpu")
    parser.add_argument("--check-numerics", action="store_true",
                        help="also compare each identical program's values in the reference "
                             "interpreter with tinygrad's (`python3 -m lazy_mlir.tinygrad check`, "
                             "in a fresh process; slower)")
    parser.add_argument("--fusion", choices=("tinygrad", "aggressive"), default="tinygrad",
                        help="with aggressive (needs --check-run), each program whose schedule "
                             "is tinygrad's is also scheduled with fusion=aggressive and run "
                             "against the reference interpreter")
    parser.add_argument("--shapes", choices=("small", "large"), default="small",
                        help="the inputs' shapes: small (scheduling rules) or large (the CPU "
                             "kernels' vector, row, parallel and nontemporal paths; use with "
                             "--check-run)")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    if args.fusion != "tinygrad" and not args.check_run:
        parser.error("--fusion=aggressive needs --check-run (its schedules are not tinygrad's)")
    global VERBOSE
    VERBOSE = args.verbose
    os.environ.setdefault("CLANG", "1")

    from lazy_mlir.tinygrad import _script
    from lazy_mlir.tinygrad import ExportError
    from lazy_mlir.tinygrad._compare import compare_built, export_built

    counts = {"identical": 0, "identical alone": 0, "known difference": 0, "different": 0,
              "invalid program": 0, "not exportable": 0}
    failed_runs = 0
    deadline = time.monotonic() + 60 * args.minutes if args.minutes else None
    programs = 0
    for seed in range(args.seed, args.seed + args.runs):
        if deadline and time.monotonic() > deadline:
            break
        programs += 1
        source = generate(seed, LARGE_SHAPES if args.shapes == "large" else SHAPES)
        gc.collect()
        namespace = {}
        try:
            exec(compile(source, f"fuzz_{seed}.py", "exec"), namespace)
            outputs = namespace["build"]()
        except Exception:  # noqa: BLE001 - tinygrad rejects the program itself
            counts["invalid program"] += 1
            if args.verbose:
                print(f"seed {seed}: invalid program\n{traceback.format_exc(limit=1)}")
            continue
        built = _script.Built(outputs, None, namespace["FLAGS"], {})
        try:
            text = export_built(built)[0] if args.check_run or args.check_numerics else None
            diffs, _, _ = compare_built(built, args.lazy_opt)
        except ExportError as exc:
            # a graph the exporter refuses with its reason (tinygrad's
            # gradient through Tensor.to() mixes devices in one op)
            counts["not exportable"] += 1
            if args.verbose:
                print(f"seed {seed}: not exportable: {exc}")
            continue
        except Exception:  # noqa: BLE001 - a harness failure is a finding too
            diffs = ["harness failed: " + traceback.format_exc(limit=2)]
        del outputs, built, namespace
        if not diffs:
            counts["identical"] += 1
            outcomes = []
            if args.check_numerics:
                outcomes.append(("numerics", check_numerics(source, seed, text, args.lazy_opt)))
            if args.check_run:
                outcome = check_run(args.check_run, args.run_device,
                                    with_fusion(text, args.fusion))
                # fusion=aggressive must not reject what tinygrad's
                # schedule runs.
                if (args.fusion != "tinygrad" and outcome == "run rejected"
                        and check_run(args.check_run, args.run_device, text) != outcome):
                    outcome = "run FAILED: rejected with fusion=" + args.fusion + " only"
                outcomes.append(("run", outcome))
            for kind, outcome in outcomes:
                counts[outcome] = counts.get(outcome, 0) + 1
                if "FAILED" not in outcome and "DIFFER" not in outcome:
                    continue
                failed_runs += 1
                print(f"seed {seed}: {outcome}")
                if args.out:
                    os.makedirs(args.out, exist_ok=True)
                    with open(os.path.join(args.out, f"{kind}_{seed}.py"), "w") as f:
                        f.write(source)
            continue
        # tinygrad's lazy cache can hand a program nodes of an earlier one
        # still alive in this process: a difference counts only when the
        # program, run alone, still shows it.
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(args.out or tmp, f"fuzz_{seed}.py")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(source)
            alone = subprocess.run(
                [sys.executable, "-m", "lazy_mlir.tinygrad", "compare", path,
                 "--lazy-opt", args.lazy_opt], capture_output=True, text=True,
                env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")})
            if alone.returncode == 0:
                counts["identical alone"] += 1
                if args.out:
                    os.remove(path)
                if args.verbose:
                    print(f"seed {seed}: identical when run alone ({diffs[0][:200]})")
                continue
        if any(known in diffs[0] for known in KNOWN_DIFFERENCES):
            counts["known difference"] += 1
            if args.out:
                os.remove(path)
            continue
        counts["different"] += 1
        print(f"seed {seed}: {len(diffs)} differences; first: {diffs[0][:300]}")
        if args.out:
            print(f"  written to {path}")
    print(f"{programs} programs (seeds {args.seed}..{args.seed + programs - 1}): "
          + ", ".join(f"{n} {k}" for k, n in counts.items()))
    return 1 if counts["different"] or failed_runs else 0


# Warnings of schedules that compute otherwise than the graph says, as
# tinygrad's do (its values then differ from the interpreter's).
MISCOMPUTE_WARNINGS = ("depends on the order the kernel runs in", "renumbers the reduced axes",
                       "padded view that the kernel moves", "sees the new contents")


def check_numerics(source, seed, text, lazy_opt):
    """The reference interpreter's values against tinygrad's: "numerics
    ok", "numerics: warned" (they differ where lazy-opt warned that
    tinygrad's kernel computes otherwise), "numerics: not checkable" (the
    check refused the program, or tinygrad failed to run its kernels) or "numerics
    DIFFER: ..."."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, f"fuzz_{seed}.py")
        with open(path, "w") as f:
            f.write(source)
        env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")}
        r = subprocess.run([sys.executable, "-m", "lazy_mlir.tinygrad", "check", path],
                           capture_output=True, text=True, env=env, timeout=600)
    if r.returncode == 0:
        return "numerics ok"
    if r.returncode == 2 or "tinygrad failed to realize" in r.stdout + r.stderr:
        return "numerics: not checkable"
    warned = subprocess.run([lazy_opt, "--lazy-schedule", "-o", os.devnull, "-"], input=text,
                            capture_output=True, text=True)
    if any(w in warned.stderr for w in MISCOMPUTE_WARNINGS):
        return "numerics: warned"
    first = next((l for l in r.stdout.splitlines() if "DIFFER" in l), r.stdout[-200:])
    return f"numerics DIFFER: {first.strip()[:300]}"


def input_files(text, directory):
    """`--input` options for the entry's arguments, written to `directory`:
    the programs' FILL (floats uniform in [0.5, 2], integers as `check`
    fills them). lazy-run's own fill is signed (floats uniform in [-2, 2)),
    whose cancellations make chained matmuls and divisions ill-conditioned:
    two correct summation orders then differ by more than the tolerance."""
    import numpy as np
    from lazy_mlir.tinygrad._check import random_values
    signature = text[text.index("func.func"):]
    signature = signature[:signature.index("{\n")]
    rng = np.random.default_rng(0)
    options = []
    for number, spec in re.findall(r"%arg(\d+): tensor<([^>]*)>", signature):
        *dims, elt = spec.split("x")
        shape = tuple(int(d) for d in dims)
        values = random_values(rng, elt, int(np.prod(shape, dtype=np.int64)), {"float": (0.5, 2.0)})
        path = os.path.join(directory, f"in{number}.npy")
        np.save(path, values.reshape(shape))
        options.append(f"--input={number}={path}")
    return options


def check_run(lazy_run, device, text):
    """The outcome of `lazy-run --check` on a module's text: "run ok",
    "run rejected" (a located error, as for graphs tinygrad rejects),
    "run: order-dependent assign", "run: renumbered fuse-conv-bw merge" or
    "run: padding moved into an unsafe reduce input" (a MISMATCH the
    scheduler warned about: tinygrad's kernel computes the same) or
    "run FAILED: ..."."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "graph.mlir")
        with open(path, "w") as f:
            f.write(text)
        try:
            r = subprocess.run([lazy_run, path, "--check", f"--device={device}",
                                f"--output-dir={tmp}", *input_files(text, tmp)],
                               capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return "run FAILED: timeout"
    out = r.stdout + r.stderr
    if r.returncode == 0 and "all outputs match" in r.stdout:
        return "run ok"
    warned = warned_mismatch(out)
    if warned:
        return f"run: {warned}"
    if r.returncode == 1 and "error:" in out and "MISMATCH" not in out:
        if VERBOSE:
            print("  rejected: " + next(l for l in out.splitlines() if "error:" in l)[:300])
        return "run rejected"
    # ("max abs error" is on every compared output's line: not a reason.)
    first = next((l for l in out.splitlines() if "error:" in l or "MISMATCH" in l), out[-300:])
    return f"run FAILED (exit {r.returncode}): {first.strip()[:300]}"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
