"""tinygrad's schedule from lazy-mlir, in process.

`schedule(outs, seen, plan_memory)` does what tinygrad 0.9.2's
`create_schedule_with_vars` (and, with plan_memory, its `memory_planner`)
does for the same LazyBuffers, by way of lazy-mlir:

1. the graph is exported in the compact form (`_export`: int64 words and
   a string table, built into ops by the C API without text), remembering
   the LazyBuffer behind each op position;
2. liblazy-mlir-c runs `lazy-schedule{record-nodes}` on it and prints the
   schedule in its bridge form (each distinct kernel's AST once; for each
   item the op positions of its outputs and where each buffer lives after
   memory planning);
3. the text becomes ScheduleItems: LazyOp ASTs over tinygrad's own Buffers;
   the outputs lose their `srcs` and join `seen`, as tinygrad's scheduler
   leaves them.

A graph lazy-mlir refuses raises `LazyMlirError` with lazy-mlir's located
diagnostics.
"""

import gc
import re
import time

from tinygrad.device import Buffer
from tinygrad.dtype import DTYPES_DICT, dtypes
from tinygrad.engine.schedule import ScheduleItem
from tinygrad.ops import (BinaryOps, BufferOps, ConstBuffer, LazyOp, MemBuffer, MetaOps, ReduceOps,
                          TernaryOps, UnaryOps)
from tinygrad.shape.shapetracker import ShapeTracker
from tinygrad.shape.view import View

from .. import _capi
from . import _compile, _export
from ._bridge_text import LazyMlirError, parse_bridge  # noqa: F401 (re-exported)


_DTYPES = {dt.name: dt for dt in DTYPES_DICT.values()}
_DTYPES[dtypes.bool.name] = dtypes.bool

_ELEMENTWISE = {}
for _enum in (UnaryOps, BinaryOps, TernaryOps):
    for _member in _enum:
        _ELEMENTWISE.setdefault(_member.name, _member)
_REDUCES = {"SUM": ReduceOps.SUM, "MAX": ReduceOps.MAX}

_VIEW = re.compile(r"\(([^)]*)\):\(([^)]*)\)(?: offset (-?\d+))?(?: mask \[((?:\(-?\d+, -?\d+\)(?:, )?)*)\])?")
_PAIR = re.compile(r"\((-?\d+), (-?\d+)\)")
_INT = re.compile(r"-?\d+")
_NAME = re.compile(r"([A-Za-z_][A-Za-z0-9_$.]*)\[(-?\d+):(-?\d+)(?:=(-?\d+))?\]")
# `LOAD <idx> <dtype> [<views>]`, `CONST <value> <dtype> [<views>]`,
# `STORE <idx> <dtype> [<views>] <node>`: dtype names may hold a space.
_LOAD = re.compile(r"LOAD (\d+) (.+?) (\[.*\])$")
_CONST = re.compile(r"CONST (\S+) (.+?) (\[.*\])$")
_STORE = re.compile(r"STORE (\d+) (.+?) (\[.*\]) (n\d+)$")


def _ints(text):
    return tuple(int(x) for x in text.split(",") if x.strip())


class _SintParser:
    """Reads the dialect's text of sints (SymbolicSyntax.h) into tinygrad
    Nodes: `i[1:10]`, `(a + b)`, `(a * b)`, `(a floordiv 2)`, `(a mod 2)`."""

    def __init__(self, text):
        self.text, self.pos = text, 0

    def _skip(self):
        while self.pos < len(self.text) and self.text[self.pos] == " ":
            self.pos += 1

    def _take(self, word):
        self._skip()
        if self.text.startswith(word, self.pos):
            self.pos += len(word)
            return True
        return False

    def _int(self):
        self._skip()
        m = _INT.match(self.text, self.pos)
        self.pos = m.end()
        return int(m.group(0))

    def sint(self):
        from tinygrad.shape.symbolic import Node, NumNode, Variable
        self._skip()
        if self._take("("):
            first = self.sint()
            if self._take("+"):
                terms = [first, self.sint()]
                while self._take("+"):
                    terms.append(self.sint())
                value = Node.sum([t if isinstance(t, Node) else NumNode(t) for t in terms])
            elif self._take("*"):
                value = first * self.sint()
            elif self._take("floordiv"):
                value = first // self._int()
            elif self._take("mod"):
                value = first % self._int()
            else:
                raise LazyMlirError(f"lazy-mlir wrote a sint the bridge cannot read: {self.text!r}")
            self._take(")")
            return value.b if isinstance(value, NumNode) else value
        m = _NAME.match(self.text, self.pos)
        if m:
            self.pos = m.end()
            lo, hi = int(m.group(2)), int(m.group(3))
            var = Variable(m.group(1), lo, hi)
            if m.group(4) is not None:
                var.bind(int(m.group(4)))
            return var
        return self._int()


def _symbolic_tracker(text):
    """A ShapeTracker of the dialect's view text with sints."""
    p = _SintParser(text)

    def tuple_():
        p._take("(")
        values = []
        while not p._take(")"):
            values.append(p.sint())
            p._take(",")
        return tuple(values)

    views = []
    p._take("[")
    while not p._take("]"):
        shape = tuple_()
        p._take(":")
        strides = tuple_()
        offset, mask = 0, None
        if p._take("offset"):
            offset = p.sint()
        if p._take("mask"):
            p._take("[")
            mask = []
            while not p._take("]"):
                p._take("(")
                b = p.sint()
                p._take(",")
                e = p.sint()
                p._take(")")
                mask.append((b, e))
                p._take(",")
            mask = tuple(mask)
        views.append(View.create(shape, strides, offset, mask))
        p._take(",")
    return ShapeTracker(tuple(views))


class _Reader:
    """Turns the bridge text into LazyOps, sharing equal views and ASTs."""

    def __init__(self):
        self.trackers = {}

    def tracker(self, text):
        st = self.trackers.get(text)
        if st is None and "[" in text[1:]:
            st = self.trackers[text] = _symbolic_tracker(text)
        if st is None:
            views = []
            for m in _VIEW.finditer(text):
                shape, strides = _ints(m.group(1)), _ints(m.group(2))
                offset = int(m.group(3)) if m.group(3) else 0
                mask = None
                if m.group(4) is not None:
                    mask = tuple((int(b), int(e)) for b, e in _PAIR.findall(m.group(4)))
                views.append(View.create(shape, strides, offset, mask))
            st = self.trackers[text] = ShapeTracker(tuple(views))
        return st

    @staticmethod
    def const(text, dtype):
        if "[" in text:  # a Variable (unbound, as tinygrad's ConstBuffer holds it)
            return _SintParser(text).sint()
        if dtype == dtypes.bool:
            return text == "True"
        if dtypes.is_int(dtype):
            return int(text)
        return float(text)

    def kernel(self, lines):
        """The KERNEL LazyOp of a kernel's node and STORE lines."""
        nodes, stores = {}, []
        for line in lines:
            if line.startswith("STORE "):
                m = _STORE.match(line)
                st = self.tracker(m.group(3))
                stores.append(LazyOp(BufferOps.STORE, (nodes[m.group(4)],),
                                     MemBuffer(int(m.group(1)), _DTYPES[m.group(2)], st)))
                continue
            name, _, body = line.partition(" = ")
            head = body.split(" ", 1)[0]
            if head == "LOAD":
                m = _LOAD.match(body)
                op = LazyOp(BufferOps.LOAD, (), MemBuffer(int(m.group(1)), _DTYPES[m.group(2)],
                                                          self.tracker(m.group(3))))
            elif head == "CONST":
                m = _CONST.match(body)
                dtype = _DTYPES[m.group(2)]
                op = LazyOp(BufferOps.CONST, (), ConstBuffer(self.const(m.group(1), dtype), dtype,
                                                             self.tracker(m.group(3))))
            elif head in _REDUCES and body[len(head) + 1:].startswith("("):
                axes, _, src = body[len(head) + 1:].rpartition(") ")
                op = LazyOp(_REDUCES[head], (nodes[src],), _ints(axes[1:]))
            elif head in ("CAST", "BITCAST"):
                dtype_name, _, src = body[len(head) + 1:].rpartition(" ")
                op = LazyOp(_ELEMENTWISE[head], (nodes[src],), _DTYPES[dtype_name])
            else:
                op = LazyOp(_ELEMENTWISE[head], tuple(nodes[s] for s in body.split(" ")[1:]))
            nodes[name] = op
        return LazyOp(MetaOps.KERNEL, tuple(stores))


# Kernels repeat from one schedule to the next (a training loop schedules
# the same step each time), and LazyOps and ShapeTrackers are immutable:
# each distinct kernel text is read once per process.
_READER = _Reader()
_ASTS = {}
_MAX_ASTS = 1 << 14


def _kernel_ast(lines):
    key = _compile.kernel_key(lines)
    ast = _ASTS.get(key)
    if ast is None:
        if len(_ASTS) >= _MAX_ASTS:
            _ASTS.clear()
            _READER.trackers.clear()
        ast = _ASTS[key] = _READER.kernel(lines)
    return ast


#: parsed bridge texts: text -> (kernels, items, var_vals, ASTs by symbol);
#: a loop's cached schedule is parsed once
_PARSED = {}
_MAX_PARSED = 256


def parsed_bridge(text):
    """(kernels, items, var_vals, asts) of a bridge text, parsed once per
    text: `asts` (symbol -> (kernel AST, metadata names)) fills as
    schedule_items builds them. The cache's texts are the same objects
    on each hit, whose hash Python keeps."""
    entry = _PARSED.get(text)
    if entry is None:
        if len(_PARSED) >= _MAX_PARSED:
            _PARSED.clear()
        kernels, items = parse_bridge(text)
        entry = _PARSED[text] = (kernels, items, var_values(text), {})
    return entry


def var_values(text):
    """tinygrad's var_vals of a bridge schedule text: {unbound Variable:
    value}."""
    values = {}
    for line in text.splitlines():
        if line.startswith("var_vals "):
            for entry in line.split()[1:]:
                name, _, value = entry.rpartition("=")
                values[_SintParser(name).sint()] = int(value)
    return values


def pipeline(plan_memory):
    return f"lazy-schedule{{record-nodes=true plan-memory={'true' if plan_memory else 'false'}}}"


def run_lazy_schedule(graph, plan_memory=True):
    """The bridge text of lazy-mlir's schedule of `graph` (text, or the
    compact form)."""
    ok, text, diagnostics = _capi.session().run(graph, pipeline(plan_memory),
                                                 _capi.BRIDGE_SCHEDULE, name="<tinygrad graph>")
    if not ok:
        raise LazyMlirError("lazy-mlir cannot schedule this graph:\n" + diagnostics.rstrip())
    return text


class ScheduleCache:
    """Bridge texts of graphs already scheduled, by the exported graph.

    The exported graph (the compact form's words and strings, or the text
    for a graph with Variables) is everything lazy-mlir reads: the ops,
    their shapes, dtypes and views, which buffers are arguments and which
    are held from outside (what the memory plan depends on), the flags and
    the Variables' bounds and values. Equal exports therefore schedule to
    equal texts, and a training or decode loop that realizes the same
    graph each step schedules it once. The LazyBuffers behind the op
    positions are the new graph's: only the text is reused.

    At most `max_entries` texts and `max_bytes` of keys and texts are
    kept, the least recently used dropped first. LAZY_MLIR_SCHEDULE_CACHE=0
    turns the cache off."""

    def __init__(self, max_entries=1024, max_bytes=64 << 20):
        import collections
        self.max_entries, self.max_bytes = max_entries, max_bytes
        self.entries = collections.OrderedDict()
        self.bytes = 0
        self.hits = self.misses = 0

    @staticmethod
    def key(graph, plan_memory):
        if isinstance(graph, tuple):
            words, strings = graph
            return (plan_memory, words.tobytes(), bytes(strings))
        return (plan_memory, graph)

    def schedule(self, graph, plan_memory):
        """(bridge text, whether it came from the cache)."""
        key = self.key(graph, plan_memory)
        text = self.entries.get(key)
        if text is not None:
            self.entries.move_to_end(key)
            self.hits += 1
            return text, True
        self.misses += 1
        text = run_lazy_schedule(graph, plan_memory)
        size = self._size(key, text)
        if size <= self.max_bytes:
            self.entries[key] = text
            self.bytes += size
            while len(self.entries) > self.max_entries or self.bytes > self.max_bytes:
                self.bytes -= self._size(*self.entries.popitem(last=False))
        return text, False

    @staticmethod
    def _size(key, text):
        return sum(len(part) for part in key[1:]) + len(text)

    def clear(self):
        self.entries.clear()
        self.bytes = 0


SCHEDULES = ScheduleCache()


def _cache_enabled():
    import os
    return os.environ.get("LAZY_MLIR_SCHEDULE_CACHE", "1") not in ("", "0")


class _Buffers:
    """The Buffer each bridge token stands for, with the memory plan."""

    def __init__(self, graph):
        self.graph = graph
        self.planned = {}  # id(natural Buffer) -> the Buffer it lives in
        self.keep = []  # natural Buffers whose ids key `planned`

    def node(self, name):
        if name[0] == "a":
            return self.graph.args[int(name[1:])][0]
        if name[0] == "n":
            return self.graph.ops[int(name[1:])]
        raise LazyMlirError(f"lazy-mlir's schedule names a buffer the graph does not own ({name})")

    def buffer(self, token):
        natural_name, _, where = token.partition(":")
        root_name, _, offset = where.rpartition("@")
        natural = self.node(natural_name).buffer
        if root_name == natural_name or root_name[0] == "x":
            return natural
        planned = self.planned.get(id(natural))
        if planned is not None:
            return planned
        root = self.node(root_name).buffer
        offset = int(offset)
        if natural.base is root.base and natural.offset == offset:
            planned = natural
        elif offset == 0 and root._base is None and root.nbytes == natural.nbytes:
            planned = root
        else:
            planned = Buffer(natural.device, natural.size, natural.dtype, base=root.base, offset=offset)
        self.planned[id(natural)] = planned
        self.keep.append(natural)
        return planned


def schedule_items(graph, text, seen, compiled=None):
    """ScheduleItems of the bridge `text` of `graph`'s schedule; marks the
    outputs scheduled (no `srcs`, in `seen`) as tinygrad does. With
    `compiled` (a function from the kernels of the text to {symbol:
    compiled kernel}), kernel items carry their compiled kernel."""
    kernels, items, _, asts = parsed_bridge(text)
    binary = compiled(kernels) if compiled is not None else {}
    metadata, named = {}, set()
    for lb in graph.ops:
        m = lb.metadata
        if m is not None and id(m) not in named:  # str() once per object
            named.add(id(m))
            metadata.setdefault(str(m), m)
    buffers = _Buffers(graph)
    schedule = []
    for kind, what, outs, tokens in items:
        outputs = [graph.ops[p] for p in outs]
        if kind == "KERNEL":
            ast = asts.get(what)
            if ast is None:
                names, lines, _ = kernels[what]
                ast = asts[what] = (_kernel_ast(lines), names)
            ast, names = ast
            item_metadata = [metadata[n] for n in names if n in metadata]
        else:
            out = outputs[0]
            ast, item_metadata = LazyOp(MetaOps.EXT, (), (out.op, out.arg)), []
        bufs = tuple(buffers.buffer(t) for t in tokens)
        for out in outputs:
            seen.add(out)
            if hasattr(out, "srcs"):
                del out.srcs  # can only schedule once
        si = ScheduleItem(ast, bufs, list(item_metadata))
        if kind == "KERNEL" and what in binary:
            si = _compile.attach(si, kernels[what][2], binary[what])
        schedule.append(si)
    return schedule


def schedule(outs, seen=None, plan_memory=True, flags=None, compile=False):
    """(ScheduleItems, var_vals, statistics) for the LazyBuffers `outs`, as
    tinygrad's create_schedule_with_vars (and memory_planner, with
    plan_memory) would make them; with `compile`, kernel items run
    lazy-mlir's compiled CPU code (see _compile.py)."""
    if seen is None:
        seen = set()
    # Realized outputs schedule nothing (a `.numpy()` of a realized tensor
    # asks for its schedule): no export for them.
    if all(lb.base.realized is not None for lb in outs):
        return [], {}, {"items": 0, "kernels": 0, "cached": True, "export_s": 0.0,
                        "schedule_s": 0.0, "build_s": 0.0, "total_s": 0.0}
    # Export and item building allocate tens of thousands of objects and
    # free none: without this, the collector walks the whole heap several
    # times for nothing.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _schedule(outs, seen, plan_memory, flags, compile)
    finally:
        if collecting:
            gc.enable()


def _schedule(outs, seen, plan_memory, flags, compile):
    start = time.perf_counter()
    graph = None
    try:
        graph = _export.export_graph(outs, flags, seen=seen, record_ops=True, compact=True)
        ir = graph.compact
    except _export.ExportError as error:
        # Variables have no compact spelling: such a graph goes as text.
        if "need the text export" not in str(error) and "needs the text export" not in str(error):
            raise
    if graph is None:
        graph = _export.export_graph(outs, flags, seen=seen, record_ops=True)
        ir = graph.text
    exported = time.perf_counter()
    if _cache_enabled():
        text, cached = SCHEDULES.schedule(ir, plan_memory)
    else:
        text, cached = run_lazy_schedule(ir, plan_memory), False
    scheduled = time.perf_counter()
    var_vals = dict(parsed_bridge(text)[2])
    compiled = None
    if compile:
        device = outs[0].device if outs and isinstance(outs[0].device, str) else ""

        def compiled(kernels):
            from . import _gpu
            if device.split(":")[0] in _gpu.NVIDIA_DEVICES + _gpu.AMD_DEVICES:
                return _gpu.compile_missing(ir, kernels, device, pipeline(plan_memory))
            return _compile.compile_missing(ir, kernels, pipeline(plan_memory))
    items = schedule_items(graph, text, seen, compiled)
    done = time.perf_counter()
    stats = {"items": len(items),
             "kernels": sum(1 for si in items if si.ast.op is MetaOps.KERNEL),
             "cached": cached,
             "export_s": exported - start, "schedule_s": scheduled - exported,
             "build_s": done - scheduled, "total_s": done - start}
    return items, var_vals, stats
