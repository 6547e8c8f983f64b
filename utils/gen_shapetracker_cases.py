#!/usr/bin/env python3
"""Generate ShapeTracker reference cases from tinygrad 0.9.2.

Builds seeded random chains of movement ops on ShapeTracker.from_shape,
tracker compositions (st1 + st2), View.__add__ cases and inversions, and
records everything the C++ library must reproduce. Output is a line-based
text fixture read by unittests/ShapeTracker/ShapeTrackerFixtureTest.cpp.

Fixture grammar (whitespace separated tokens, one record per line):
  CASE <id> <kind>            kind: chain | compose | viewadd | invert
  BASE <rank> <dims...>       tracker A = ShapeTracker.from_shape(dims)
  OP <name> <n> <ints...>     movement op applied to A; pad/shrink take
                              n (begin, end) pairs, the others n ints
  BASE2 / OP2                 same for tracker B (compose, viewadd)
  INV <rank> <dims...>        invert A onto dims (invert)
  VIN <view>                  View.__add__ operands, earlier view first
  VRES NONE | VRES <view>     View.__add__ result (viewadd)
  RESULT NONE | RESULT        result tracker follows (other kinds)
  V <view>                    one view of the result, innermost first
  MIN <view>                  minify() of the preceding view
  FLAGS <contiguous> <consecutive> <size>
  RS <n> <int|N>... | RS ERR  real_strides(); RSI: ignore_valid=True
  USA <n> <axes...>           unit_stride_axes(); USAI: ignore_valid=True
  IDX <n> <ints...>           buffer index of every element, row major
  VALID <n> <0/1 string|->    validity of every element
  END
A <view> is: <rank> <shape...> <strides...> <offset> N|M [<b e>...] <0|1>
(M = mask present, followed by rank pairs; last token = contiguous).

Element indices come from expr_idxs() with constant (NumNode) indices, so
they are exact for every element, valid or not.

Usage: python3 utils/gen_shapetracker_cases.py [--seed S] [--out PATH]
"""
import argparse
import itertools
import math
import random
import sys

from tinygrad.shape.shapetracker import ShapeTracker
from tinygrad.shape.symbolic import NumNode
from tinygrad.shape.view import View

MAX_ELEMS = 256


def prod(xs):
  return math.prod(xs)


def rand_dim(rng, allow_zero=True):
  r = rng.random()
  if allow_zero and r < 0.03:
    return 0
  if r < 0.28:
    return 1
  return rng.choice([2, 2, 3, 3, 4, 4, 5, 6])


def rand_shape(rng, allow_zero=True):
  while True:
    shape = tuple(rand_dim(rng, allow_zero) for _ in range(rng.randint(0, 4)))
    if prod(shape) <= 64:
      return shape


def factorize(n):
  fs, p = [], 2
  while n > 1:
    while n % p == 0:
      fs.append(p)
      n //= p
    p += 1
  return fs


def rand_reshape(rng, shape):
  n = prod(shape)
  if n == 0:
    new = [rng.choice([1, 2, 3]) for _ in range(rng.randint(1, 3))]
    new[rng.randrange(len(new))] = 0
    return tuple(new)
  r = rng.random()
  if r < 0.3 and len(shape) >= 2:
    # merge two adjacent dims
    i = rng.randrange(len(shape) - 1)
    return shape[:i] + (shape[i] * shape[i + 1],) + shape[i + 2:]
  if r < 0.5 and any(s > 1 for s in shape):
    # split one dim
    i = rng.choice([i for i, s in enumerate(shape) if s > 1])
    fs = factorize(shape[i])
    rng.shuffle(fs)
    k = rng.randint(0, len(fs))
    a, b = prod(fs[:k]), prod(fs[k:])
    return shape[:i] + (a, b) + shape[i + 1:]
  # random refactorization, possibly with inserted 1s
  fs = factorize(n)
  rng.shuffle(fs)
  rank = rng.randint(1, 4) if fs else rng.randint(0, 3)
  dims = [1] * rank
  for f in fs:
    dims[rng.randrange(rank)] *= f
  if rng.random() < 0.3:
    dims.insert(rng.randint(0, len(dims)), 1)
  return tuple(dims)


def rand_op(rng, st, flips=True, force_reshape=False):
  shape = st.shape
  while True:
    name = "reshape" if force_reshape else rng.choice(
        ["reshape", "reshape", "pad", "pad", "shrink", "expand", "permute", "permute", "stride"])
    if name == "reshape":
      return name, rand_reshape(rng, shape)
    if name == "pad" and shape:
      arg = tuple((rng.choice([0, 0, 1, 2]), rng.choice([0, 0, 1, 2])) for _ in shape)
      if prod(s + b + e for s, (b, e) in zip(shape, arg)) <= MAX_ELEMS:
        return name, arg
    if name == "shrink" and shape:
      arg = []
      for s in shape:
        if s == 0:
          arg.append((0, 0))
          continue
        b = rng.randint(0, s - 1)
        e = rng.randint(b + 1, s)
        if rng.random() < 0.03:
          e = b  # empty range: size-0 result
        arg.append((b, e))
      return name, tuple(arg)
    if name == "expand" and 1 in shape and 0 not in shape:
      new = tuple(rng.choice([2, 3, 4]) if s == 1 and rng.random() < 0.7 else s for s in shape)
      if prod(new) <= MAX_ELEMS:
        return name, new
    if name == "permute" and len(shape) >= 2:
      axes = list(range(len(shape)))
      rng.shuffle(axes)
      return name, tuple(axes)
    if name == "stride" and shape:
      choices = [1, 1, 2, 3, -1, -1, -2] if flips else [1, 1, 2, 3]
      return name, tuple(rng.choice(choices) for _ in shape)


def apply(st, name, arg):
  return getattr(st, name)(arg)


def fmt_op(tag, name, arg):
  if name in ("pad", "shrink"):
    return f"{tag} {name} {len(arg)} " + " ".join(f"{b} {e}" for b, e in arg)
  return f"{tag} {name} {len(arg)} " + " ".join(str(x) for x in arg)


def fmt_view(v):
  toks = [len(v.shape), *v.shape, *v.strides, v.offset]
  if v.mask is None:
    toks.append("N")
  else:
    toks.append("M")
    for b, e in v.mask:
      toks += [b, e]
  toks.append(int(v.contiguous))
  return " ".join(str(t) for t in toks)


def fmt_strides(tag, rs):
  return f"{tag} {len(rs)} " + " ".join("N" if s is None else str(s) for s in rs)


def tracker_lines(st):
  out = []
  for v in st.views:
    out.append("V " + fmt_view(v))
    out.append("MIN " + fmt_view(v.minify()))
  out.append(f"FLAGS {int(st.contiguous)} {int(st.consecutive)} {st.size}")
  for tag, usa_tag, ign in (("RS", "USA", False), ("RSI", "USAI", True)):
    try:
      rs = st.real_strides(ign)
      out.append(fmt_strides(tag, rs))
      usa = st.unit_stride_axes(ign)
      out.append(f"{usa_tag} {len(usa)} " + " ".join(map(str, usa)))
    except Exception:  # tinygrad raises e.g. for size-0 multi-view trackers
      out.append(f"{tag} ERR")
      out.append(f"{usa_tag} ERR")
  idxs, valids = [], []
  for multi in itertools.product(*[range(s) for s in st.shape]):
    idx, valid = st.expr_idxs([NumNode(i) for i in multi])
    idxs.append(idx.b)
    valids.append("1" if valid.b else "0")
  out.append(f"IDX {len(idxs)} " + " ".join(map(str, idxs)))
  out.append(f"VALID {len(valids)} " + ("".join(valids) if valids else "-"))
  return out


def rand_chain(rng, base, nops, flips=True):
  st = ShapeTracker.from_shape(base)
  ops = []
  force = False
  for _ in range(nops):
    name, arg = rand_op(rng, st, flips, force)
    # A reshape right after a layout change is the usual way a reshape fails
    # to merge into the last view, so bias towards it.
    force = name != "reshape" and rng.random() < 0.6
    st = apply(st, name, arg)
    ops.append((name, arg))
  if prod(st.shape) > MAX_ELEMS:
    raise ValueError("too big")
  return st, ops


def chain_lines(tag, base_tag, base, ops):
  return [f"{base_tag} {len(base)} " + " ".join(map(str, base))] + [fmt_op(tag, n, a) for n, a in ops]


class Stats:
  def __init__(self):
    self.kinds, self.masked, self.multi, self.zero, self.flip, self.none, self.skipped = {}, 0, 0, 0, 0, 0, 0

  def note(self, kind, st, ops):
    self.kinds[kind] = self.kinds.get(kind, 0) + 1
    if st is None:
      self.none += 1
      return
    self.masked += any(v.mask is not None for v in st.views)
    self.multi += len(st.views) >= 2
    self.zero += 0 in st.shape or any(0 in v.shape for v in st.views)
    self.flip += any(n == "stride" and any(m < 0 for m in a) for n, a in ops)


def gen_case(rng, kind, cid, stats):
  lines = [f"CASE {cid} {kind}"]
  if kind == "chain":
    base = rand_shape(rng)
    st, ops = rand_chain(rng, base, rng.randint(1, 6))
    lines += chain_lines("OP", "BASE", base, ops)
    lines += ["RESULT"] + tracker_lines(st)
    stats.note(kind, st, ops)
  elif kind == "compose":
    base = rand_shape(rng)
    st1, ops1 = rand_chain(rng, base, rng.randint(1, 4))
    base2 = st1.shape if rng.random() < 0.7 else rand_reshape(rng, st1.shape)
    st2, ops2 = rand_chain(rng, base2, rng.randint(1, 4))
    res = st1 + st2
    if prod(res.shape) > MAX_ELEMS:
      raise ValueError("too big")
    lines += chain_lines("OP", "BASE", base, ops1) + chain_lines("OP2", "BASE2", base2, ops2)
    lines += ["RESULT"] + tracker_lines(res)
    stats.note(kind, res, ops1 + ops2)
  elif kind == "viewadd":
    base = rand_shape(rng, allow_zero=rng.random() < 0.2)
    st1, ops1 = rand_chain(rng, base, rng.randint(1, 4))
    st2, ops2 = rand_chain(rng, st1.shape, rng.randint(1, 4))
    vm2, vm1 = st1.views[-1], rng.choice(st2.views)
    if vm1.shape != st2.views[0].shape:  # a later view indexes a reshape
      vm1 = st2.views[0]
    res = vm2 + vm1
    lines += ["VIN " + fmt_view(vm2), "VIN " + fmt_view(vm1)]
    lines.append("VRES NONE" if res is None else "VRES " + fmt_view(res))
    stats.note(kind, None if res is None else ShapeTracker((res,)), ops1 + ops2)
    stats.masked += vm2.mask is not None or vm1.mask is not None
  elif kind == "invert":
    base = rand_shape(rng)
    st, ops = rand_chain(rng, base, rng.randint(1, 4), flips=True)
    lines += chain_lines("OP", "BASE", base, ops)
    lines.append(f"INV {len(base)} " + " ".join(map(str, base)))
    inv = st.invert(base)
    if inv is None:
      lines.append("RESULT NONE")
    else:
      lines += ["RESULT"] + tracker_lines(inv)
    stats.note(kind, inv, ops)
  lines.append("END")
  return lines


def main():
  ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  ap.add_argument("--seed", type=int, default=1234)
  ap.add_argument("--out", default="unittests/ShapeTracker/shapetracker_cases.txt")
  ap.add_argument("--chain", type=int, default=2500)
  ap.add_argument("--compose", type=int, default=700)
  ap.add_argument("--viewadd", type=int, default=700)
  ap.add_argument("--invert", type=int, default=400)
  args = ap.parse_args()

  rng = random.Random(args.seed)
  stats = Stats()
  out = ["# Generated by utils/gen_shapetracker_cases.py from tinygrad 0.9.2; do not edit.",
         f"# seed={args.seed}"]
  cid = 0
  for kind in ("chain", "compose", "viewadd", "invert"):
    want = getattr(args, kind)
    made = 0
    while made < want:
      try:
        case = gen_case(rng, kind, cid, stats)
      except (ValueError, AssertionError, ZeroDivisionError, RecursionError):
        stats.skipped += 1
        continue
      out += case
      made += 1
      cid += 1
  with open(args.out, "w") as f:
    f.write("\n".join(out) + "\n")
  print(f"wrote {cid} cases to {args.out}")
  for k, v in stats.kinds.items():
    print(f"  {k:8s} {v}")
  print(f"  masked {stats.masked}  multi-view {stats.multi}  size-0 {stats.zero}  "
        f"flips {stats.flip}  none-results {stats.none}  skipped {stats.skipped}")


if __name__ == "__main__":
  sys.exit(main())
