#!/usr/bin/env python3
"""Generate symbolic ShapeTracker reference cases from tinygrad 0.9.2.

Builds seeded random chains of movement ops whose shapes and arguments
hold bound Variables (shrink to `v`, pad by `8-v`, expand to `v`, reshape
into `(v, 4)`, ...), and compositions of such trackers, and records what
the C++ SymShapeTracker must reproduce. Replayed by
unittests/ShapeTracker/SymViewFixtureTest.cpp.

Fixture grammar (one record per line, whitespace separated):
  CASE <id> <chain|compose>
  BASE <n> <sint...>          tracker = ShapeTracker.from_shape(...)
  OP <name> <n> <args...>     reshape/expand: n sints; pad/shrink: n pairs
                              of sints; permute/stride: n ints
  BASE2 / OP2                 a second tracker, added to the first (compose)
  ERR                         tinygrad raised; the case ends here
  V <view>                    one view of the result, innermost first
  FLAGS <contiguous> <size>
  UV <view>                   one view of st.unbind()[0]
  VARS <n> <key value>...     st.unbind()[1]
  END
Input sints: i<int> (int), n<int> (NumNode), v<name>:<lo>:<hi>:<bound>
(bound Variable), add(A,B), sub(A,B), mul(A,B).
A <view> is: <rank> <shape...> <strides...> <offset> N|M [<b e>...] <0|1>,
each entry I<int> for an int or N<key> for a node (its DEBUG rendering).

Usage: python3 utils/gen_symview_cases.py [--seed S] [--cases N] [--out PATH]
"""

import fixture_cli
from tinygrad.shape.shapetracker import ShapeTracker
from tinygrad.shape.symbolic import MulNode, Node, NumNode, SumNode, Variable


class Sym:
  """A sint together with its fixture spelling."""

  def __init__(self, value, text):
    self.value, self.text = value, text

  def __add__(self, o):
    return Sym(self.value + o.value, f"add({self.text},{o.text})")

  def __sub__(self, o):
    return Sym(self.value - o.value, f"sub({self.text},{o.text})")

  def __mul__(self, o):
    return Sym(self.value * o.value, f"mul({self.text},{o.text})")


def I(v):
  return Sym(v, f"i{v}")


def bound_var(rng):
  name = rng.choice(["start_pos", "i", "j"])
  lo, hi = rng.choice([(1, 8), (1, 5), (2, 10), (1, 4)])
  val = rng.randint(lo, hi)
  return Sym(Variable(name, lo, hi).bind(val), f"v{name}:{lo}:{hi}:{val}")


def ent(x):
  # NumNode(k) == k to tinygrad's lru caches, so which of the two a view
  # holds depends on what was computed before: record both as the int.
  if isinstance(x, int):
    return f"I{x}"
  if isinstance(x, NumNode):
    return f"I{x.b}"
  assert isinstance(x, Node)
  return f"N{x.key}"


def view_str(v):
  parts = [str(len(v.shape))] + [ent(x) for x in v.shape] + [ent(x) for x in v.strides] + [ent(v.offset)]
  if v.mask is None:
    parts.append("N")
  else:
    parts.append("M")
    for b, e in v.mask:
      parts += [ent(b), ent(e)]
  parts.append("1" if v.contiguous else "0")
  return " ".join(parts)


def rand_int_shape(rng):
  return [rng.choice([1, 2, 2, 3, 4]) for _ in range(rng.randint(1, 3))]


def rand_base(rng, var):
  dims = [I(d) for d in rand_int_shape(rng)]
  if rng.random() < 0.6:
    dims.insert(rng.randrange(len(dims) + 1), var)
  return dims


def rand_op(rng, st, var):
  """(name, fixture args, tinygrad args) for a random op on st."""
  shape = st.shape
  n = len(shape)
  r = rng.random()
  ints = [isinstance(s, int) for s in shape]
  if r < 0.15:
    axes = list(range(n))
    rng.shuffle(axes)
    return "permute", [str(a) for a in axes], tuple(axes)
  if r < 0.35:
    pairs = []
    for s in shape:
      c = rng.random()
      if c < 0.5:
        pairs.append((I(0), I(0)))
      elif c < 0.7:
        pairs.append((I(rng.randint(0, 2)), I(rng.randint(0, 2))))
      elif c < 0.85:
        pairs.append((I(0), I(var.value.max) - var))
      else:
        pairs.append((var, I(0)))
    return "pad", pairs, tuple((b.value, e.value) for b, e in pairs)
  if r < 0.55:
    pairs = []
    for s in shape:
      c = rng.random()
      if not isinstance(s, int) or c < 0.4:
        pairs.append((I(0), Sym(s, None)))
      elif s >= var.value.max and c < 0.7:
        pairs.append((I(0), var))
      elif s >= var.value.max + 1 and c < 0.85:
        pairs.append((var, var + I(1)))
      else:
        b = rng.randint(0, s - 1)  # no empty dims: tinygrad cannot compose them
        pairs.append((I(b), I(rng.randint(b + 1, s))))
    return "shrink", pairs, tuple((b.value, e.value) for b, e in pairs)
  if r < 0.7:
    ones = [i for i, s in enumerate(shape) if s == 1]
    if ones:
      dims = [Sym(s, None) for s in shape]
      for i in ones:
        dims[i] = var if rng.random() < 0.6 else I(rng.choice([2, 3]))
      return "expand", dims, tuple(d.value for d in dims)
  if r < 0.8 and all(ints):
    muls = [rng.choice([1, 1, 2, -1]) if s > 1 else 1 for s in shape]
    return "stride", [str(m) for m in muls], tuple(muls)
  # reshape: merge or split int dims, or rename an int dim as the Variable
  dims = [Sym(s, None) for s in shape]
  c = rng.random()
  if c < 0.3 and n >= 2:
    i = rng.randrange(n - 1)
    if all(ints[i:i + 2]):
      merged = I(shape[i] * shape[i + 1])
      dims = dims[:i] + [merged] + dims[i + 2:]
  elif c < 0.6:
    cand = [i for i in range(n) if ints[i] and shape[i] in (4, 6)]
    if cand:
      i = rng.choice(cand)
      dims = dims[:i] + [I(2), I(shape[i] // 2)] + dims[i + 1:]
  elif c < 0.8:
    cand = [i for i in range(n) if ints[i] and shape[i] == var.value.val]
    if cand:
      dims[rng.choice(cand)] = var
  else:
    dims.insert(rng.randrange(n + 1), I(1))
  return "reshape", dims, tuple(d.value for d in dims)


def spell(args):
  out = []
  for a in args:
    if isinstance(a, tuple):
      out += [spell_one(a[0]), spell_one(a[1])]
    elif isinstance(a, Sym):
      out.append(spell_one(a))
    else:
      out.append(a)
  return out


def spell_one(s):
  return s.text if s.text is not None else spell_value(s.value)


def spell_value(v):
  """A fixture spelling that rebuilds v through the same operators."""
  if isinstance(v, int):
    return f"i{v}"
  if isinstance(v, NumNode):
    return f"n{v.b}"
  if isinstance(v, Variable):
    return f"v{v.expr}:{v.min}:{v.max}:{v.val}"
  if isinstance(v, SumNode):
    text = spell_value(v.nodes[0])
    for x in v.nodes[1:]:
      text = f"add({text},{spell_value(x)})"
    return text
  if isinstance(v, MulNode):
    return f"mul({spell_value(v.a)},{spell_value(v.b)})"
  raise ValueError("unspellable")


def record_tracker(lines, st):
  for v in st.views:
    lines.append("V " + view_str(v))
  lines.append(f"FLAGS {int(st.contiguous)} {st.size}")
  ust, vals = st.unbind()
  for v in ust.views:
    lines.append("UV " + view_str(v))
  lines.append(f"VARS {len(vals)} " + " ".join(f"{k.key} {v}" for k, v in sorted(vals.items(), key=lambda kv: kv[0].key)))


def run_chain(rng, lines, var, tag, base_dims, steps):
  lines.append(f"{'BASE' if tag == '' else 'BASE2'} {len(base_dims)} " + " ".join(spell_one(d) for d in base_dims))
  st = ShapeTracker.from_shape(tuple(d.value for d in base_dims))
  for _ in range(steps):
    name, fargs, targs = rand_op(rng, st, var)
    try:
      text = spell(fargs)
    except ValueError:
      continue
    lines.append(f"OP{tag} {name} {len(fargs)} " + " ".join(text))
    st = getattr(st, name)(targs)
  return st


def gen_case(rng, cid):
  kind = "compose" if rng.random() < 0.3 else "chain"
  lines = [f"CASE {cid} {kind}"]
  var = bound_var(rng)
  try:
    st = run_chain(rng, lines, var, "", rand_base(rng, var), rng.randint(1, 5))
    if kind == "compose":
      base2 = [Sym(s, None) for s in st.shape]
      st2 = run_chain(rng, lines, var, "2", base2, rng.randint(1, 3))
      st = st + st2
    record_tracker(lines, st)
  except ValueError as e:
    if "unspellable" in str(e):
      return None
    lines.append("ERR")
  except Exception:  # tinygrad raised (assert, RuntimeError, ...)
    lines.append("ERR")
  lines.append("END")
  return lines


def main():
  fixture_cli.run(__doc__, __file__, 2000, gen_case)


if __name__ == "__main__":
  main()
