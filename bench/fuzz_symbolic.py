#!/usr/bin/env python3
"""Random graphs over a bound Variable, run at several values against the
reference interpreter. Not a test: a differential check of the symbolic
lowering (kernels that take Variables as arguments).

    python3 bench/fuzz_symbolic.py [--seed 0] [--count 100] [--big]
        [--device cpu|emulate]

Each seed builds, with tinygrad 0.9.2, a realized (rows, val) or
(val, rows) buffer reshaped with Variable v = val, then one to four random
pads, permutes, shrinks of integer axes, expands, cats, exp2s and sums,
times 2 plus 1; exports it (v bound) and runs `lazy-run --check --var v=N`
at the range's ends and one value between. A run refused because a view
leaves its buffer at that value (buffers are sized for the bound value)
is not counted as a failure. --big takes 16-48 rows and v in [1, 40], where
kernels get CPU plans on their integer axes. Prints each mismatch (its
graph is kept as /tmp/fuzz_symbolic_SEED_VALUE.mlir) and the counts; exits
1 on any mismatch.
"""

import argparse
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
os.environ.setdefault("CLANG", "1")

FLAGS = {"multi_output": True, "fuse_conv_bw": False, "fuse_arange": False,
         "use_copy_kernel": False}
# lazy-run's refusals of a value at which a view leaves its source.
REFUSED = ("no valid view at these values", "outside the", "reaches elements")


def build(rng, big):
    from tinygrad import Tensor
    from tinygrad.shape.symbolic import Variable
    lo, hi = (1, 40) if big else (1, 6)
    val = rng.randint(lo, hi)
    v = Variable("v", lo, hi).bind(val)
    rows = rng.choice([16, 32, 48] if big else [2, 3, 4])
    if rng.random() < 0.5:
        t = Tensor.rand(rows, val).realize().reshape(rows, v)
        desc = [f"rand({rows},{val}).reshape({rows},v)"]
    else:
        t = Tensor.rand(val, rows).realize().reshape(v, rows)
        desc = [f"rand({val},{rows}).reshape(v,{rows})"]
    for _ in range(rng.randint(1, 4)):
        op = rng.choice(["pad", "permute", "shrink", "expand", "cat", "exp2", "sum"])
        try:
            if op == "pad":
                arg = [None] * t.ndim
                arg[rng.randint(0, t.ndim - 1)] = (rng.randint(0, 2), rng.randint(0, 2))
                t = t.pad(tuple(arg))
                desc.append(f"pad{tuple(arg)}")
            elif op == "permute" and t.ndim >= 2:
                order = list(range(t.ndim))
                rng.shuffle(order)
                t = t.permute(order)
                desc.append(f"permute{order}")
            elif op == "shrink":
                axes = [i for i, s in enumerate(t.shape) if isinstance(s, int) and s > 1]
                if axes:
                    a = rng.choice(axes)
                    b = rng.randint(0, t.shape[a] - 1)
                    arg = [None] * t.ndim
                    arg[a] = (b, rng.randint(b + 1, t.shape[a]))
                    t = t.shrink(tuple(arg))
                    desc.append(f"shrink{tuple(arg)}")
            elif op == "expand":
                t = t.unsqueeze(0).expand(2, *t.shape)
                desc.append("expand(2)")
            elif op == "cat":
                axes = [i for i, s in enumerate(t.shape) if isinstance(s, int)]
                if axes:
                    a = rng.choice(axes)
                    other = Tensor.rand(*[s if isinstance(s, int) else val for s in t.shape]).realize()
                    if any(not isinstance(s, int) for s in t.shape):
                        other = other.reshape(*t.shape)
                    t = t.cat(other, dim=a)
                    desc.append(f"cat(dim={a})")
            elif op == "exp2":
                t = t.exp2()
                desc.append("exp2")
            elif op == "sum":
                a = rng.randint(0, t.ndim - 1)
                t = t.sum(axis=a, keepdim=True)
                desc.append(f"sum({a})")
        except Exception as error:  # tinygrad refuses some of these on sints
            desc.append(f"[{op}: {type(error).__name__}]")
    return t * 2 + 1, desc, (lo, hi)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--big", action="store_true")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    from conftest import fresh
    from lazy_mlir.tinygrad import export
    from test_cpu_run import lazy_run
    runs = refused = bad = 0
    for seed in range(args.seed, args.seed + args.count):
        rng = random.Random(seed)
        fresh()
        out, desc, (lo, hi) = build(rng, args.big)
        text = export([out.lazydata], flags=FLAGS)
        for value in sorted({lo, hi, rng.randint(lo, hi)}):
            proc = lazy_run(text, "--check", f"--var=v={value}", f"--device={args.device}")
            output = proc.stdout + proc.stderr
            runs += 1
            if "all outputs match" in output:
                continue
            if any(r in output for r in REFUSED):
                refused += 1
                continue
            bad += 1
            path = f"/tmp/fuzz_symbolic_{seed}_{value}.mlir"
            with open(path, "w") as f:
                f.write(text)
            print(f"seed {seed} v={value}: {' '.join(desc)}\n  " +
                  "\n  ".join(output.strip().splitlines()[-3:]) + f"\n  graph: {path}")
    print(f"runs {runs}: {runs - refused - bad} match, {refused} refused at a value, {bad} differ")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
