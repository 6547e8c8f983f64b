#!/usr/bin/env python3
"""Generate symbolic-integer reference cases from tinygrad 0.9.2.

Builds seeded random programs over Python ints, NumNodes and Variables
(some bound) with the operators tinygrad's View algebra uses on `sint`
(+ - * // % < <= > >= == bool max min, Node.sum, Node.ands,
create_lt_node, create_ge_node, substitute, unbind) and records every
result. Output is a line-based text fixture replayed by
unittests/ShapeTracker/SymbolicFixtureTest.cpp.

Fixture grammar (one record per line, whitespace separated):
  CASE <id>
  I <v>                      register := Python int v
  N <v>                      register := NumNode(v)
  V <name> <lo> <hi> <b|->   register := Variable(name, lo, hi)[.bind(b)]
  O <op> <regs...>           register := op(registers)
  = I <v>                    the op's result is the Python int (bool) v
  = N <min> <max> <key...>   ... is a node: its bounds and DEBUG rendering
  = ERR                      ... tinygrad raised; the case ends here
  END
Ops: add sub mul fdiv mod lt le gt ge (binary), eq max min (Python's ==,
max(a, b), min(a, b)), neg bool (unary), sum ands (Node.sum / Node.ands
of all listed registers), clt cge (create_lt_node / create_ge_node),
unbind (node.unbind()[0]), subst (substitute the first Variable, by
key, with NumNode of its min), render (the plain rendering, recorded as
`= R <text>`).

Usage: python3 utils/gen_symbolic_cases.py [--seed S] [--cases N] [--out PATH]
"""
import operator

import fixture_cli
from tinygrad.shape.symbolic import Node, NumNode, Variable, create_lt_node, create_ge_node

BINARY = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul,
    "fdiv": operator.floordiv, "mod": operator.mod,
    "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge,
    "eq": operator.eq, "max": max, "min": min,
}
NAMES = ["a", "b", "start_pos", "idx0"]


def record(v):
  if isinstance(v, bool):
    return f"= I {int(v)}"
  if isinstance(v, int):
    return f"= I {v}"
  assert isinstance(v, Node), type(v)
  return f"= N {v.min} {v.max} {v.key}"


def leaf(rng, lines):
  r = rng.random()
  if r < 0.3:
    v = rng.choice([0, 1, 2, 3, 4, 6, 8, -1, -2, 5, 12])
    lines.append(f"I {v}")
    return v
  if r < 0.4:
    v = rng.choice([0, 1, 2, 3, 4, -1])
    lines.append(f"N {v}")
    return NumNode(v)
  name = rng.choice(NAMES)
  lo = rng.choice([0, 0, 1, 1, 2])
  hi = lo + rng.choice([1, 2, 3, 5, 7, 15])
  var = Variable(name, lo, hi)
  bound = "-"
  if rng.random() < 0.4:
    b = rng.randint(lo, hi)
    var.bind(b)
    bound = str(b)
  lines.append(f"V {name} {lo} {hi} {bound}")
  return var


def gen_case(rng, cid):
  lines = [f"CASE {cid}"]
  regs = [leaf(rng, lines) for _ in range(rng.randint(2, 4))]
  for _ in range(rng.randint(3, 10)):
    r = rng.random()
    nodes = [i for i, v in enumerate(regs) if isinstance(v, Node)]
    if r < 0.6 or not nodes:
      op = rng.choice(list(BINARY))
      i, j = rng.randrange(len(regs)), rng.randrange(len(regs))
      args, fn = [i, j], lambda: BINARY[op](regs[i], regs[j])
    elif r < 0.7:
      op = rng.choice(["neg", "bool", "render"])
      i = rng.randrange(len(regs))
      args = [i]
      fn = {"neg": lambda: -regs[i], "bool": lambda: bool(regs[i]),
            "render": lambda: regs[i]}[op]
    elif r < 0.8:
      op = rng.choice(["sum", "ands"])
      args = rng.sample(nodes, min(len(nodes), rng.randint(1, 3)))
      fn = (lambda: Node.sum([regs[k] for k in args])) if op == "sum" else \
           (lambda: Node.ands([regs[k] for k in args]))
    elif r < 0.9:
      op = rng.choice(["clt", "cge"])
      i, j = rng.choice(nodes), rng.randrange(len(regs))
      args = [i, j]
      fn = (lambda: create_lt_node(regs[i], regs[j])) if op == "clt" else \
           (lambda: create_ge_node(regs[i], regs[j]))
    else:
      op = rng.choice(["unbind", "subst"])
      i = rng.choice(nodes)
      args = [i]
      def fn(i=i, op=op):
        x = regs[i]
        if op == "unbind":
          return x.unbind()[0]
        vs = sorted(x.vars(), key=lambda v: v.key)
        return x.substitute({vs[0]: NumNode(vs[0].min)}) if vs else x
    lines.append(f"O {op} " + " ".join(map(str, args)))
    try:
      res = fn()
    except Exception:  # tinygrad raised (assert, RuntimeError, ...)
      lines.append("= ERR")
      break
    if op == "render":
      text = str(res) if isinstance(res, int) else res.render()
      lines.append(f"= R {text}")
      continue
    if isinstance(res, bool):  # comparisons of ints: keep them ints
      res = int(res)
    lines.append(record(res))
    regs.append(res)
  lines.append("END")
  return lines


def main():
  fixture_cli.run(__doc__, __file__, 3000, gen_case)


if __name__ == "__main__":
  main()
