"""Canonical text of a tinygrad 0.9.2 schedule.

The same text `lazy-opt --lazy-print-schedule` prints for a scheduled
module, so two schedules are identical exactly when their texts are:

    item 0 KERNEL outs=1 ins=2
      n0 = LOAD 1 float [(4, 2):(1, 4) offset 4]
      n1 = SUM (1,) n0
      ...
      STORE 0 float [(4, 1):(1, 0)] n3
    item 1 EXT COPY 64 outs=1 ins=1

Kernel nodes are numbered in depth-first post-order from the stores,
sources in order, structurally equal nodes once. Views print like the
`#lazy.st` attribute body; consts print as Python prints the value, exactly:
a float const is the Python float tinygrad holds (0.8, not float32's
0.800000011920929), since tinygrad's code generators fold and render
constants from that double, and the dialect keeps it as an f64.
"""

import math
import re

from tinygrad.dtype import dtypes
from tinygrad.ops import BufferOps, MetaOps, ReduceOps, UnaryOps
from tinygrad.shape.symbolic import DivNode, ModNode, MulNode, Node, NumNode, SumNode, Variable


# A Variable name the dialect's sint syntax takes.
VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*\Z")


def sint_text(value, canonical=True, refuse=None):
    """A sint in the dialect's syntax (SymbolicSyntax.h): a Variable as
    `start_pos[1:8]` (`=4` when bound), sums, products, floordiv and mod; a
    NumNode as its int.

    canonical: as lazy-opt prints it (a sum's terms sorted, a product of
    two Variables in name order), else in tinygrad's construction order,
    as the exporter writes it. refuse(why), when given, is called for what
    the dialect cannot spell (a Variable whose range is not two ints or
    whose name is not an identifier, another kind of node) and must raise;
    without it such a value prints as str() does."""
    def text(x):
        return sint_text(x, canonical, refuse)

    if type(value) is int:
        return str(value)
    if isinstance(value, NumNode):
        return str(value.b)
    if isinstance(value, Variable):
        if refuse and not (isinstance(value.min, int) and isinstance(value.max, int)):
            refuse(f"{value!r}, a Variable whose range is not two ints")
        if refuse and not VARIABLE_NAME.match(value.expr):
            refuse(f"the Variable {value.expr!r}, whose name is not an identifier")
        bound = f"={value._val}" if value._val is not None else ""
        return f"{value.expr}[{value.min}:{value.max}{bound}]"
    if isinstance(value, SumNode):
        terms = [text(x) for x in value.nodes]
        return "(" + " + ".join(sorted(terms) if canonical else terms) + ")"
    if isinstance(value, MulNode):
        a, b = value.a, value.b
        # tinygrad renders a product of two Variables in name order
        if (canonical and isinstance(a, Variable) and isinstance(b, Variable) and a.expr
                and b.expr and b.expr < a.expr):
            a, b = b, a
        return f"({text(a)} * {text(b)})"
    if isinstance(value, DivNode):
        return f"({text(value.a)} floordiv {value.b})"
    if isinstance(value, ModNode):
        return f"({text(value.a)} mod {value.b})"
    if refuse and isinstance(value, Node):
        refuse(f"{value}, which has no `lazy` spelling")
    return str(value) if canonical else str(int(value))


def _tuple(values):
    return "(" + ", ".join(sint_text(v) for v in values) + ")"


def view_text(st):
    parts = []
    for v in st.views:
        text = f"{_tuple(v.shape)}:{_tuple(v.strides)}"
        if v.offset != 0:
            text += f" offset {sint_text(v.offset)}"
        if v.mask is not None:
            text += " mask [" + ", ".join(f"({sint_text(b)}, {sint_text(e)})" for b, e in v.mask) + "]"
        parts.append(text)
    return "[" + ", ".join(parts) + "]"


def var_vals_line(var_vals):
    """The last line for a schedule with Variables: their values, by
    unbound Variable; None without any."""
    if not var_vals:
        return None
    items = sorted((sint_text(var), int(val)) for var, val in var_vals.items())
    return "var_vals: " + " ".join(f"{name}={val}" for name, val in items)


def const_text(value, dtype):
    if isinstance(value, Variable):
        return sint_text(value)
    if dtype == dtypes.bool:
        return "True" if value else "False"
    if dtypes.is_int(dtype):
        # Python ints are unbounded; the dialect stores the dtype's value.
        bits = 8 * dtype.itemsize
        value = int(value) & ((1 << bits) - 1)
        if not dtypes.is_unsigned(dtype) and value >= 1 << (bits - 1):
            value -= 1 << bits
        return str(value)
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(value)


class _KernelPrinter:
    def __init__(self, lines):
        self.lines = lines
        self.names = {}  # id(LazyOp) -> name
        self.by_text = {}
        self.count = 0

    def node(self, root):
        # Iterative post-order over sources, in order.
        stack = [(root, 0, [])]
        last = None
        while stack:
            op, i, srcs = stack[-1]
            if id(op) in self.names:
                last = self.names[id(op)]
                stack.pop()
                if stack:
                    stack[-1][2].append(last)
                continue
            if op.op not in (BufferOps.LOAD, BufferOps.CONST) and i < len(op.src):
                stack[-1] = (op, i + 1, srcs)
                stack.append((op.src[i], 0, []))
                continue
            text = self.describe(op, srcs)
            name = self.by_text.get(text)
            if name is None:
                name = self.by_text[text] = f"n{self.count}"
                self.count += 1
                self.lines.append(f"  {name} = {text}")
            self.names[id(op)] = name
            last = name
            stack.pop()
            if stack:
                stack[-1][2].append(last)
        return last

    @staticmethod
    def describe(op, srcs):
        if op.op is BufferOps.LOAD:
            return f"LOAD {op.arg.idx} {op.arg.dtype.name} {view_text(op.arg.st)}"
        if op.op is BufferOps.CONST:
            return (f"CONST {const_text(op.arg.val, op.arg.dtype)} "
                    f"{op.arg.dtype.name} {view_text(op.arg.st)}")
        if op.op in ReduceOps:
            head = f"{op.op.name} {tuple(op.arg)}"
        elif op.op in (UnaryOps.CAST, UnaryOps.BITCAST):
            head = f"{op.op.name} {op.arg.name}"
        else:
            head = op.op.name
        return " ".join([head, *srcs])


def moved_line(schedule):
    """The last line lazy-print-schedule prints for a schedule: its kernels
    and the bytes they move (each kernel's distinct buffers, whole)."""
    kernels = nbytes = 0
    for si in schedule:
        if si.ast.op is MetaOps.KERNEL:
            kernels += 1
            distinct = {id(b): b for b in si.bufs}
            nbytes += sum(b.nbytes for b in distinct.values())
    return f"moved: {kernels} kernels, {nbytes} bytes"


def canonical_items(schedule):
    """Canonical text lines of a list of tinygrad ScheduleItems."""
    lines = []
    for i, si in enumerate(schedule):
        ast = si.ast
        if ast.op is MetaOps.KERNEL:
            outs = len(ast.src)
            loads = {x.arg.idx for x in ast.lazyops if x.op is BufferOps.LOAD and x.arg.idx >= outs}
            lines.append(f"item {i} KERNEL outs={outs} ins={len(loads)}")
            printer = _KernelPrinter(lines)
            for store in ast.src:
                value = printer.node(store.src[0])
                lines.append(f"  STORE {store.arg.idx} {store.arg.dtype.name} "
                             f"{view_text(store.arg.st)} {value}")
        else:
            op, arg = ast.arg
            text = f"item {i} EXT {op.name}"
            if op is MetaOps.COPY:
                text += f" {arg}"
            elif op is MetaOps.CUSTOM:
                text += f" {getattr(arg, '__name__', type(arg).__name__)}"
            lines.append(f"{text} outs=1 ins={len(si.bufs) - 1}")
    return lines
