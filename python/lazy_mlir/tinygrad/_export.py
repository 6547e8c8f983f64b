"""tinygrad 0.9.2 LazyBuffer graph -> `lazy` dialect text.

The graph is taken before scheduling: the outputs are
`flatten(t.lazydata.lbs for t in tensors)`, exactly what
`Tensor.schedule_with_vars` hands to `create_schedule_with_vars`.

Mapping (see docs/generated/LazyDialect.md and the scheduler spec, section 5):

* realized bases (a base without a `srcs` attribute) are arguments of
  `func.func @graph`, tagged `lazy.buffer = N` where N numbers distinct
  device Buffers by first appearance; a sub-buffer (a realized
  MetaOps.VIEW) gets the number of its base Buffer plus
  `lazy.buffer_offset = <bytes>`;
* every unrealized base is one op, every distinct view object one
  `lazy.view`; node identity is Python object identity;
* the results are the outputs, in order.

The walk is an iterative post-order DFS: no recursion on graph depth, and
every node and edge is handled a constant number of times.
"""

import array
import collections
import functools
import itertools
import math
import re
import struct
import sys

from tinygrad.device import Device
from tinygrad.dtype import ImageDType, dtypes
from tinygrad.helpers import getenv
from tinygrad import helpers as _helpers
from tinygrad.lazy import LazyBuffer
from tinygrad.ops import BinaryOps, MetaOps, ReduceOps, TernaryOps, UnaryOps
from tinygrad.shape.symbolic import DivNode, ModNode, MulNode, Node, NumNode, SumNode, Variable

from .. import _capi
from ._canonical import sint_text


class ExportError(Exception):
    """A graph that the `lazy` dialect cannot represent (yet)."""


#: tinygrad dtype -> MLIR element type.
ELEMENT_TYPES = {
    dtypes.bool: "i1",
    dtypes.int8: "si8", dtypes.uint8: "ui8",
    dtypes.int16: "si16", dtypes.uint16: "ui16",
    dtypes.int32: "si32", dtypes.uint32: "ui32",
    dtypes.int64: "si64", dtypes.uint64: "ui64",
    dtypes.float16: "f16", dtypes.bfloat16: "bf16",
    dtypes.float32: "f32", dtypes.float64: "f64",
}


_OP_NAMES = {}
for _enum in (UnaryOps, BinaryOps, TernaryOps):
    for _member in _enum:
        _OP_NAMES[_member] = "lazy." + _member.name.lower()
_OP_NAMES[ReduceOps.SUM] = "lazy.reduce_sum"
_OP_NAMES[ReduceOps.MAX] = "lazy.reduce_max"
for _member in (MetaOps.EMPTY, MetaOps.CONST, MetaOps.COPY, MetaOps.CONTIGUOUS,
                MetaOps.CUSTOM, MetaOps.ASSIGN):
    _OP_NAMES[_member] = "lazy." + _member.name.lower()
_OP_NAMES[MetaOps.VIEW] = "lazy.buffer_view"
_VIEW_OP = "view"  # a LazyBuffer view (not an op of tinygrad's)
_OP_NAMES[_VIEW_OP] = "lazy.view"

# Ops whose custom syntax is `%src : T_src -> T_result`.
_CONVERTING = {UnaryOps.CAST, UnaryOps.BITCAST, MetaOps.COPY, MetaOps.VIEW,
               BinaryOps.CMPLT, BinaryOps.CMPNE}


#: The fusion policies of the `fusion` flag (ScheduleFlags.td).
FUSION_POLICIES = ("tinygrad", "aggressive")


def flag_names():
    """The module's `lazy.flags` keys, in the order they are printed: the
    library's list (ScheduleFlags.td)."""
    return tuple(key for key, _, _ in _capi.schedule_flags())


def scheduler_flags(overrides=None):
    """The scheduler flags (the library's list, ScheduleFlags.td), read as
    tinygrad 0.9.2's schedule.py reads them: MULTIOUTPUT, FUSE_CONV_BW and
    FUSE_ARANGE are ContextVars of tinygrad.helpers (so `Context(...)` and
    `X.value = ...` count), USE_COPY_KERNEL and LAZY_ONLINE_SOFTMAX are
    cached `getenv`s (unset: the library's default); `fusion`
    (a policy, no tinygrad variable) is "tinygrad" unless overridden.
    `overrides` (keys as printed, or the tinygrad names) wins."""
    flags = {}
    for key, variable, tinygrad, default in _flag_sources():
        if not isinstance(default, bool):
            flags[key] = default
        elif variable is not None:
            flags[key] = bool(variable)
        else:
            flags[key] = bool(getenv(tinygrad, int(default)))
    if not overrides:
        return flags
    aliases = {tinygrad: key for key, _, tinygrad, default in _flag_sources()
               if isinstance(default, bool)}
    for key, value in overrides.items():
        name = aliases.get(key, key)
        if name not in flags:
            raise ExportError(f"unknown scheduler flag {key!r} (known: {', '.join(flags)})")
        if isinstance(flags[name], bool):
            flags[name] = bool(value)
        elif value not in FUSION_POLICIES:
            raise ExportError(f"scheduler flag {name!r} must be one of "
                              f"{', '.join(FUSION_POLICIES)}, not {value!r}")
        else:
            flags[name] = value
    return flags


@functools.lru_cache(maxsize=None)
def _flag_sources():
    """Per scheduler flag: (key, tinygrad's ContextVar or None, tinygrad's
    name, default); a policy's default is its name and stands unless
    overridden. Looked up once: every schedule call reads them all."""
    return tuple((key, getattr(_helpers, tinygrad, None) if isinstance(default, bool) else None,
                  tinygrad, default) for key, tinygrad, default in _capi.schedule_flags())


def _flag_items(flags):
    """(key, value) of the flags a module carries: every bool, and a policy
    only where it is not the default (so that tinygrad-mode modules read as
    they always have)."""
    items = []
    for key, _, default in _capi.schedule_flags():
        if isinstance(default, bool) or flags[key] != default:
            items.append((key, flags[key]))
    return items


def _flag_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return mlir_string(value)


_DOUBLE, _DOUBLE_BITS = struct.Struct("<d"), struct.Struct("<q")

_PLAIN = re.compile(r'[ !#-\[\]-~]*\Z')  # printable ASCII but `"` and `\\`


def mlir_string(text):
    """`text` as an MLIR string literal (quotes included)."""
    if _PLAIN.match(text):
        return '"' + text + '"'
    out = []
    for ch in text:
        code = ord(ch)
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif 32 <= code < 127:
            out.append(ch)
        else:
            out.extend("\\%02X" % b for b in ch.encode("utf-8"))
    return '"' + "".join(out) + '"'


def describe(lb):
    """Names a node in error messages: op, shape, dtype and device."""
    if lb._base is not None:
        what = "view of " + describe(lb._base)
        return f"{what} as shape {tuple(lb.shape)}"
    op = getattr(lb, "op", None)
    opname = f"{type(op).__name__}.{op.name}" if op is not None else "?"
    kind = "realized " if not hasattr(lb, "srcs") else ""
    return f"{kind}{opname} node of shape {tuple(lb.shape)} ({lb.dtype}, {lb.device})"


def _int(value, lb):
    if type(value) is int:
        return value
    if isinstance(value, NumNode):
        return value.b
    if isinstance(value, Node):
        raise ExportError(f"symbolic shapes need the text export: {describe(lb)} uses {value}")
    return int(value)


def _sint_text(value, lb):
    """A sint of `lb` as the exporter writes it (sint_text in tinygrad's
    construction order), ExportError for what the dialect cannot spell."""
    def refuse(why):
        raise ExportError(f"{describe(lb)} uses {why}")
    return sint_text(value, canonical=False, refuse=refuse)


def _is_symbolic(value):
    return isinstance(value, Node) and not isinstance(value, NumNode)


def _largest(value, lb):
    """The largest value of a dim: what the static shape of its type holds."""
    if not _is_symbolic(value):
        return _int(value, lb)
    if not isinstance(value.max, int):
        raise ExportError(f"{describe(lb)} has the dim {value}, whose largest value is not an int")
    return value.max


def _const_value(value, dtype, lb):
    """A CONST's value as the dialect holds it: a bool, an int wrapped into
    the dtype's range, or a float."""
    if isinstance(value, Node):
        raise ExportError(f"a CONST of a Variable needs the text export: {describe(lb)} "
                          f"holds {value}")
    if dtype == dtypes.bool:
        return bool(value)
    if dtypes.is_int(dtype):
        value = int(value)
        # C conversion semantics (what every tinygrad backend does): wrap into
        # the dtype's range, the dialect only accepts in-range literals.
        bits = 8 * dtype.itemsize
        value &= (1 << bits) - 1
        if not dtypes.is_unsigned(dtype) and value >= 1 << (bits - 1):
            value -= 1 << bits
        return value
    return float(value)


def _const_literal(value, dtype, lb):
    value = _const_value(value, dtype, lb)
    if type(value) is bool:
        return "true" if value else "false"
    if type(value) is int:
        return str(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = repr(value)
    if "e" in text and "." not in text:  # MLIR float literals need a '.'
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{exponent}"
    return text


def _const_word(value, dtype, lb):
    """A CONST's value as one int64 word of the compact form: the integer
    (two's complement), or the bits of the float as an IEEE double."""
    value = _const_value(value, dtype, lb)
    if type(value) is float:
        return _DOUBLE_BITS.unpack(_DOUBLE.pack(value))[0]
    value = int(value)
    return value - (1 << 64) if value >= 1 << 63 else value


_INT_TYPE_TEXTS = {}  # (shape, dtype, device, default device) -> type text
_MAX_INT_TYPE_TEXTS = 4096


class Graph:
    """One exported graph: the text (or the compact form) and what the
    check needs to feed it."""

    def __init__(self, text, args, outs, ops=None, compact=None):
        #: the `lazy` text, or None when the graph was exported compact
        self.text = text
        #: (int64 words, string bytes) of the compact form, or None
        self.compact = compact
        #: one (LazyBuffer, buffer number, byte offset or None) per argument
        self.args = args
        #: the output LazyBuffers, in result order
        self.outs = outs
        #: the LazyBuffer of each op of the function, by position (what
        #: `lazy.nodes` numbers)
        self.ops = ops


def collect_outputs(tensors, what="output"):
    """Flatten Tensors, MultiLazyBuffers and LazyBuffers into the scheduler's
    `outs` list (in order)."""
    from tinygrad.tensor import Tensor
    if isinstance(tensors, (Tensor, LazyBuffer)) or hasattr(tensors, "lbs"):
        tensors = [tensors]
    outs = []
    for i, t in enumerate(tensors):
        if isinstance(t, Tensor):
            outs.extend(t.lazydata.lbs)
        elif isinstance(t, LazyBuffer):
            outs.append(t)
        elif hasattr(t, "lbs"):
            outs.extend(t.lbs)
        else:
            raise ExportError(f"{what} {i} is a {type(t).__name__}, not a tinygrad Tensor")
    return outs


def seen_buffers(seen):
    """The LazyBuffers of a `seen` collection of Tensors or LazyBuffers (the
    scheduler's `seen` set holds LazyBuffers: a Tensor in it would match
    nothing), or None."""
    return None if seen is None else collect_outputs(list(seen), what="seen entry")


class _Exporter:
    def __init__(self, default_device, seen, record_ops=False):
        self.default_device = default_device
        self.seen = {id(x) for x in seen_buffers(seen)} if seen else set()
        self.names = {}  # id(lb) -> SSA name
        self.lines = []
        self.args = []  # (lb, type, number, offset)
        self.buffer_numbers = {}  # id(Buffer) -> N
        self.buffers = []  # keeps numbered Buffers alive while ids are in use
        self.types = {}
        self.st_texts = {}  # id(st) -> (st, text)
        self.held = set()  # ids of bases referenced from outside the graph
        self.locations = {}  # id(Metadata) -> (Metadata, ` loc("...")`)
        self.count = 0
        # With record_ops, the node of each emitted op, by position (filled
        # while emitting, after _held_bases has counted references). Off by
        # default: an exporter kept alive would otherwise keep every node
        # alive, and tinygrad's memory planner sees live nodes' buffers as
        # referenced.
        self.ops = [] if record_ops else None

    # -- types and attributes ------------------------------------------------

    def type_of(self, lb):
        # dtypes are module constants: their identity is a cheaper key than
        # their (dataclass) hash, and an equal copy only adds an entry.
        key = (lb.shape, id(lb.dtype), lb.device)
        text = self.types.get(key)
        if text is not None:
            return text
        # A loop's graphs repeat their types: texts of integer shapes are
        # kept for the process (keyed by the dtype itself, whose id a
        # collected copy could pass on).
        shared = (lb.shape, lb.dtype, lb.device, self.default_device)
        text = _INT_TYPE_TEXTS.get(shared)
        if text is None:
            text = self._type_text(lb)
            if all(type(d) is int for d in lb.shape):
                if len(_INT_TYPE_TEXTS) >= _MAX_INT_TYPE_TEXTS:
                    _INT_TYPE_TEXTS.clear()
                _INT_TYPE_TEXTS[shared] = text
        self.types[key] = text
        return text

    def _type_text(self, lb):
        dtype = lb.dtype
        if isinstance(dtype, ImageDType):
            raise ExportError(f"image dtypes cannot be exported: {describe(lb)}")
        element = ELEMENT_TYPES.get(dtype)
        if element is None:
            raise ExportError(f"dtype {dtype} has no `lazy` spelling: {describe(lb)}")
        device = lb.device
        if not isinstance(device, str):
            raise ExportError(f"device {device!r} is not a single device: {describe(lb)}")
        return f"tensor<{self.dims_text(lb)}{element}{self.encoding_text(lb)}>"

    def dims_text(self, lb):
        """The static dims of lb's type: a symbolic dim at its largest value,
        as tinygrad sizes buffers."""
        return "".join(f"{_largest(d, lb)}x" for d in lb.shape)

    def encoding_text(self, lb):
        device = lb.device
        on_default = device == self.default_device
        if any(_is_symbolic(d) for d in lb.shape):
            dims = ", ".join(_sint_text(d, lb) for d in lb.shape)
            device_text = "" if on_default else f", device = {mlir_string(device)}"
            return f", #lazy.sym_shape<[{dims}]{device_text}>"
        return "" if on_default else f", #lazy.device<{mlir_string(device)}>"

    def st_text(self, st, lb):
        entry = self.st_texts.get(id(st))
        if entry is not None:
            return entry[1]
        sint = lambda x: _sint_text(x, lb)
        views = []
        for v in st.views:
            text = f"({', '.join(map(sint, v.shape))}):({', '.join(map(sint, v.strides))})"
            if not (isinstance(v.offset, (int, NumNode)) and _int(v.offset, lb) == 0):
                text += f" offset {sint(v.offset)}"
            if v.mask is not None:
                text += " mask [" + ", ".join(f"({sint(b)}, {sint(e)})" for b, e in v.mask) + "]"
            views.append(text)
        text = "<[" + ", ".join(views) + "]>"
        self.st_texts[id(st)] = (st, text)
        return text

    def location(self, lb):
        metadata = lb.metadata
        if metadata is None:
            return ""
        # By identity (a Metadata's dataclass hash is slow); the entry keeps
        # the object, so the id stays its own.
        entry = self.locations.get(id(metadata))
        if entry is None:
            entry = self.locations[id(metadata)] = (metadata, f" loc({mlir_string(str(metadata))})")
        return entry[1]

    # -- nodes ----------------------------------------------------------------

    def dependencies(self, lb):
        if lb._base is not None:
            return (lb._base,)
        return getattr(lb, "srcs", ())

    def emit(self, lb):
        if lb._base is not None:
            self.emit_view(lb)
        elif not hasattr(lb, "srcs"):
            self.emit_argument(lb)
        else:
            self.emit_base(lb)

    def argument_buffer(self, lb):
        """(buffer number, byte offset or None) of a realized node: its
        Buffer's root numbered by first appearance."""
        buffer = lb.buffer
        root = buffer.base
        number = self.buffer_numbers.get(id(root))
        if number is None:
            number = self.buffer_numbers[id(root)] = len(self.buffer_numbers)
            self.buffers.append(root)
        return number, (buffer.offset if buffer._base is not None else None)

    def emit_argument(self, lb):
        number, offset = self.argument_buffer(lb)
        name = f"%arg{len(self.args)}"
        self.args.append((lb, self.type_of(lb), number, offset))
        self.names[id(lb)] = name

    def emit_view(self, lb):
        base = lb._base
        if lb.dtype != base.dtype:
            raise ExportError(f"a view whose dtype ({lb.dtype}) differs from its base's cannot be exported: {describe(lb)}")
        name = f"%{self.count}"
        self.count += 1
        self.names[id(lb)] = name
        if self.ops is not None:
            self.ops.append(lb)
        self.lines.append(f"    {name} = lazy.view {self.names[id(base)]} as {self.st_text(lb.st, lb)}"
                          f" : {self.type_of(base)} -> {self.type_of(lb)}{self.location(lb)}")

    def check_base(self, lb):
        """The op's mnemonic, after the checks every serialization needs."""
        op = lb.op
        mnemonic = _OP_NAMES.get(op)
        if mnemonic is None:
            raise ExportError(f"{type(op).__name__}.{op.name} has no `lazy` op: {describe(lb)}")
        if op not in (MetaOps.COPY, MetaOps.CUSTOM):
            for s in lb.srcs:
                if s.device != lb.device:
                    # tinygrad 0.9.2's gradient through Tensor.to() builds
                    # these; its kernels then read the other device's buffer
                    raise ExportError(
                        f"{describe(lb)} reads {describe(s)}: "
                        f"tinygrad built one op over two devices (the gradient of Tensor.to() "
                        f"does this), and a `lazy` op has one device")
        return mnemonic

    def emit_base(self, lb):
        op = lb.op
        mnemonic = self.check_base(lb)
        srcs = lb.srcs
        operands = [self.names[id(s)] for s in srcs]
        result_type = self.type_of(lb)
        attrs = []
        if lb.forced_realize:
            attrs.append("lazy.forced_realize")
        if id(lb) in self.seen:
            attrs.append("lazy.seen")
        if id(lb) in self.held:
            attrs.append("lazy.external")
        attr_text = " {" + ", ".join(attrs) + "}" if attrs else ""

        if op is MetaOps.CONST:
            if isinstance(lb.arg, Variable):  # Tensor(Variable(...).bind(n))
                literal = _sint_text(lb.arg, lb)
            else:
                literal = _const_literal(lb.arg, lb.dtype, lb)
            body = f"lazy.const {literal}{attr_text} : {result_type}"
        elif op is MetaOps.EMPTY:
            body = f"lazy.empty{attr_text} : {result_type}"
        elif op is MetaOps.CUSTOM:
            callee = mlir_string(_callable_name(lb.arg))
            if srcs:
                types = ", ".join(self.type_of(s) for s in srcs)
                body = f"lazy.custom {callee}({', '.join(operands)}) : ({types}) ->{attr_text} {result_type}"
            else:
                body = f"lazy.custom {callee}{attr_text} {result_type}"
        elif op is MetaOps.ASSIGN:
            value, target = srcs
            view = ""
            if lb.arg:
                view = f" view {self.st_text(lb.arg[0], lb)}"
            elif value.size != target.size:
                # arg () with a smaller value: tinygrad writes the value to
                # the first elements (a contiguous prefix view, e.g.
                # `t[0] = v`); the dialect spells that as an explicit view
                view = f" view <[{_contiguous_view(lb.shape, lb)}]>"
            body = (f"lazy.assign {operands[0]} to {operands[1]}{view}{attr_text}"
                    f" : {self.type_of(value)}, {self.type_of(target)}")
        elif op in ReduceOps:
            axes = ", ".join(str(int(a)) for a in lb.arg)
            body = (f"{mnemonic} {operands[0]} axes [{axes}]{attr_text}"
                    f" : {self.type_of(srcs[0])} -> {result_type}")
        elif op in _CONVERTING:
            body = (f"{mnemonic} {', '.join(operands)}{attr_text}"
                    f" : {self.type_of(srcs[0])} -> {result_type}")
        elif op is TernaryOps.WHERE:
            body = (f"{mnemonic} {', '.join(operands)}{attr_text}"
                    f" : {self.type_of(srcs[0])}, {result_type}")
        else:  # elementwise with one type, and CONTIGUOUS
            body = f"{mnemonic} {', '.join(operands)}{attr_text} : {result_type}"

        name = f"%{self.count}"
        self.count += 1
        self.names[id(lb)] = name
        if self.ops is not None:
            self.ops.append(lb)
        self.lines.append(f"    {name} = {body}{self.location(lb)}")

    # -- the walk -------------------------------------------------------------

    def walk(self, outs):
        order = _post_order(outs, self.dependencies)
        # Outputs are held by the caller; their buffers are kept anyway.
        outputs = {id(o._base if o._base is not None else o) for o in outs}
        self.held = _held_bases(order) - outputs
        for lb in order:
            self.emit(lb)

    def module(self, outs, flags):
        self.walk(outs)
        args = []
        for i, (_, type_text, number, offset) in enumerate(self.args):
            attrs = f"lazy.buffer = {number} : i64"
            if offset is not None:
                attrs += f", lazy.buffer_offset = {offset} : i64"
            args.append(f"%arg{i}: {type_text} {{{attrs}}}")
        result_types = [self.type_of(o) for o in outs]
        if not result_types:
            results = ""
        elif len(result_types) == 1:
            results = f" -> {result_types[0]}"
        else:
            results = " -> (" + ", ".join(result_types) + ")"
        flag_text = ", ".join(f"{k} = {_flag_text(v)}" for k, v in _flag_items(flags))
        # tinygrad seeds the k-th custom_random it runs with Tensor._seed + k;
        # lazy-run continues from the counter as it is now.
        seed_text = ""
        if any("lazy.custom " in line for line in self.lines):
            from tinygrad import Tensor
            seed_text = f", lazy.rng_seed = {int(Tensor._seed)} : i64"
        head = (f"module attributes {{lazy.default_device = {mlir_string(self.default_device)}, "
                f"lazy.flags = {{{flag_text}}}{seed_text}}} {{\n"
                f"  func.func @graph({', '.join(args)}){results} {{\n")
        ret = "    return"
        if outs:
            ret += " " + ", ".join(self.names[id(o)] for o in outs) + " : " + ", ".join(result_types)
        return head + "\n".join(self.lines) + ("\n" if self.lines else "") + ret + "\n  }\n}\n"



# The compact form (include/lazy-c/Lazy.h, "The compact graph"): the same
# graph as int64 words and a string table, built into ops by the C API
# without text. Attribute kinds, as the header numbers them:
_UNIT, _TRACKER, _I64_ARRAY, _STRING, _SCALAR, _I64, _BOOL, _DICT = range(8)
_COMPACT_MAGIC, _COMPACT_VERSION = 0x4C5A47, 1
# What an op's record needs (TinygradWalk.cpp's RecordKind): reduce axes,
# or record_attrs for CONST, CUSTOM and ASSIGN; CUSTOM and COPY may cross
# devices.
_REDUCE, _CONST, _CUSTOM, _ASSIGN, _COPY = 1, 2, 3, 4, 5
_RECORD_ATTRS_KINDS = (_CONST, _CUSTOM, _ASSIGN)
#: op -> what its record needs (TinygradWalk.cpp's RecordKind)
_RECORD_KINDS = {ReduceOps.SUM: _REDUCE, ReduceOps.MAX: _REDUCE, MetaOps.CONST: _CONST,
                 MetaOps.CUSTOM: _CUSTOM, MetaOps.ASSIGN: _ASSIGN, MetaOps.COPY: _COPY}
#: the words of a module's bool flags, by their (key, value) items
_FLAG_WORDS = {}


class _CompactExporter(_Exporter):
    """The exporter's walk, written as the compact form instead of text.
    Value references: argument k is -(k + 1), op k is k.

    With `native` (the default when the `_lazy_walk` module is built), the
    walk runs in C++ (lib/Bindings/Python/TinygradWalk.cpp): the same
    records word for word, calling back into this class for what is rare or
    first seen (type_ref, location_ref, emit_argument, record_attrs,
    tracker, check_base, emit_view); its tables below are shared with it."""

    _first_strings = None  # (string table, op_refs, names_ref) every export starts from

    def __init__(self, default_device, seen, record_ops=False, native=True):
        super().__init__(default_device, seen, record_ops)
        self.native = _capi.walker() if native else None
        self.arg_words = []
        self.op_words = []
        self.tracker_words = []
        self.trackers = {}  # id(st) (or a contiguous view's key) -> (st, index)
        self.type_refs = {}  # (shape, id(dtype), device) -> string index of the type text
        # The op names and the names used in records are interned up front,
        # so that string indices do not depend on which walk meets them
        # first; the table they start is the same for every export.
        if _CompactExporter._first_strings is None:
            self.strings = {}
            op_refs = {op: self.string(name) for op, name in _OP_NAMES.items()}
            # The module's attribute names and the flags' keys are shared
            # too, so that the flags' words can be made once per process.
            names_ref = {name: self.string(name) for name in (
                "lazy.forced_realize", "lazy.seen", "lazy.external", "tracker", "axes", "value",
                "callee", "view", "lazy.buffer", "lazy.buffer_offset", "lazy.default_device",
                "lazy.flags", "lazy.rng_seed", *(key for key, _, _ in _capi.schedule_flags()))}
            encoded = [text.encode() for text in self.strings]
            unit_refs = (names_ref["lazy.forced_realize"], names_ref["lazy.seen"],
                         names_ref["lazy.external"], names_ref["tracker"], names_ref["axes"],
                         op_refs[_VIEW_OP])
            _CompactExporter._first_strings = (dict(self.strings), op_refs, names_ref,
                                               b"".join(encoded), [len(e) for e in encoded],
                                               unit_refs)
        first, self.op_refs, self.names_ref, _, _, unit_refs = _CompactExporter._first_strings
        self.strings = dict(first)  # str -> index
        #: what the C++ walk reads: the unit attributes, "tracker", "axes", the view op
        self.unit_refs = unit_refs
        self.record_kinds = _RECORD_KINDS
        self.has_custom = False

    def string(self, text):
        index = self.strings.get(text)
        if index is None:
            index = self.strings[text] = len(self.strings)
        return index

    def type_ref(self, lb):
        key = (lb.shape, id(lb.dtype), lb.device)
        ref = self.type_refs.get(key)
        if ref is None:
            if any(_is_symbolic(d) for d in lb.shape):
                raise ExportError(f"symbolic shapes need the text export: {describe(lb)}")
            ref = self.type_refs[key] = self.string(self.type_of(lb))
        return ref

    def tracker(self, st, lb):
        entry = self.trackers.get(id(st))
        if entry is not None:
            return entry[1]
        words = [len(st.views)]
        for v in st.views:
            words.append(len(v.shape))
            words.extend(_int(d, lb) for d in v.shape)
            words.extend(_int(d, lb) for d in v.strides)
            words.append(_int(v.offset, lb))
            if v.mask is None:
                words.append(0)
            else:
                words.append(1)
                for b, e in v.mask:
                    words += (_int(b, lb), _int(e, lb))
        return self._add_tracker(id(st), st, words)

    def _add_tracker(self, key, owner, words):
        index = len(self.trackers)
        self.trackers[key] = (owner, index)
        self.tracker_words.append(len(words))
        self.tracker_words.extend(words)
        return index

    def contiguous_tracker(self, shape, lb):
        dims, strides = _contiguous_strides(shape, lb)
        key = ("contiguous", tuple(dims))
        entry = self.trackers.get(key)
        if entry is not None:
            return entry[1]
        return self._add_tracker(key, None, [1, len(dims), *dims, *strides, 0, 0])

    def location_ref(self, lb):
        metadata = lb.metadata
        if metadata is None:
            return -1
        entry = self.locations.get(id(metadata))
        if entry is None:
            entry = self.locations[id(metadata)] = (metadata, self.string(str(metadata)))
        return entry[1]

    def emit_argument(self, lb):
        """Records an argument; returns its value reference."""
        number, offset = self.argument_buffer(lb)
        ref = self.names[id(lb)] = -(len(self.args) + 1)
        self.args.append((lb, None, number, offset))
        words = self.arg_words
        words += (self.type_ref(lb), 1 if offset is None else 2, self.names_ref["lazy.buffer"], _I64,
                  number)
        if offset is not None:
            words += (self.names_ref["lazy.buffer_offset"], _I64, offset)
        return ref

    def emit_view(self, lb):
        base = lb._base
        if lb.dtype != base.dtype:
            raise ExportError(f"a view whose dtype ({lb.dtype}) differs from its base's cannot be exported: {describe(lb)}")
        type_ref, location = self.type_ref(lb), self.location_ref(lb)
        self.op_words += (self.op_refs[_VIEW_OP], type_ref, location,
                          1, self.names_ref["tracker"], _TRACKER, self.tracker(lb.st, lb),
                          1, self.names[id(base)])
        self.names[id(lb)] = self.count
        self.count += 1
        if self.ops is not None:
            self.ops.append(lb)

    def record_attrs(self, lb):
        """(count, words...) of the attributes particular to a CONST, CUSTOM
        or ASSIGN record."""
        op = lb.op
        if op is MetaOps.CONST:
            return (1, self.names_ref["value"], _SCALAR, _const_word(lb.arg, lb.dtype, lb))
        if op is MetaOps.CUSTOM:
            self.has_custom = True
            return (1, self.names_ref["callee"], _STRING, self.string(_callable_name(lb.arg)))
        if op is MetaOps.ASSIGN:
            value, target = lb.srcs
            if lb.arg:
                return (1, self.names_ref["view"], _TRACKER, self.tracker(lb.arg[0], lb))
            if value.size != target.size:
                # as in the text: a contiguous prefix view, spelled out
                return (1, self.names_ref["view"], _TRACKER, self.contiguous_tracker(lb.shape, lb))
        return (0,)

    def emit_base(self, lb):
        op = lb.op
        self.check_base(lb)
        type_ref, location = self.type_ref(lb), self.location_ref(lb)
        attrs = []
        if lb.forced_realize:
            attrs += (self.names_ref["lazy.forced_realize"], _UNIT)
        if id(lb) in self.seen:
            attrs += (self.names_ref["lazy.seen"], _UNIT)
        if id(lb) in self.held:
            attrs += (self.names_ref["lazy.external"], _UNIT)
        count = len(attrs) // 2
        kind = self.record_kinds.get(op)
        if kind == _REDUCE:
            attrs += (self.names_ref["axes"], _I64_ARRAY, len(lb.arg), *(int(a) for a in lb.arg))
            count += 1
        elif kind in _RECORD_ATTRS_KINDS:
            extra = self.record_attrs(lb)
            attrs += extra[1:]
            count += extra[0]
        srcs = lb.srcs
        names = self.names
        words = self.op_words
        words += (self.op_refs[op], type_ref, location, count)
        words += attrs
        words.append(len(srcs))
        words += [names[id(s)] for s in srcs]
        names[id(lb)] = self.count
        self.count += 1
        if self.ops is not None:
            self.ops.append(lb)

    def walk(self, outs):
        """Records the graph of `outs`; returns the results' references."""
        if self.native is not None:
            results = self.native.walk(self, outs)
            words = array.array("q")
            words.frombytes(self.op_words)
            self.op_words = words
            return results
        super().walk(outs)
        return [self.names[id(o)] for o in outs]

    def module_attr_words(self, flags):
        """The module's attribute words but the seed's: the device, then the
        flags (made once per process for each set of bool flags: their keys
        are in the shared table)."""
        items = tuple(_flag_items(flags))
        ref = self.names_ref
        words = [ref["lazy.default_device"], _STRING, self.string(self.default_device),
                 ref["lazy.flags"], _DICT, len(items)]
        flag_words = _FLAG_WORDS.get(items)
        if flag_words is None:
            flag_words = []
            for name, value in items:
                if isinstance(value, bool):
                    flag_words += (ref[name], _BOOL, 1 if value else 0)
                else:
                    flag_words += (ref[name], _STRING, self.string(value))
            if all(isinstance(value, bool) for _, value in items):
                _FLAG_WORDS[items] = flag_words
        words += flag_words
        return words

    def module(self, outs, flags):
        """(int64 words as an array, string table as bytes)."""
        results = self.walk(outs)
        module_attrs = self.module_attr_words(flags)
        count = 2
        if self.has_custom:
            # tinygrad seeds the k-th custom_random it runs with
            # Tensor._seed + k; lazy-run continues from the counter.
            from tinygrad import Tensor
            module_attrs += (self.names_ref["lazy.rng_seed"], _I64, int(Tensor._seed))
            count = 3
        # The table every export starts from is encoded once per process.
        _, _, _, first_bytes, first_lengths, _ = _CompactExporter._first_strings
        added = [text.encode() for text in itertools.islice(self.strings, len(first_lengths),
                                                            None)]
        words = [_COMPACT_MAGIC, _COMPACT_VERSION, len(self.strings), *first_lengths,
                 *map(len, added), len(self.trackers)]
        words += self.tracker_words
        words.append(count)
        words += module_attrs
        words.append(len(self.args))
        words += self.arg_words
        words.append(self.count)
        words = array.array("q", words)
        words.extend(self.op_words)
        words.append(len(results))
        words.extend(results)
        return words, first_bytes + b"".join(added)


def _post_order(outs, dependencies):
    """Every node reachable from `outs`, sources before users (iterative)."""
    order, visited = [], set()
    for out in outs:
        if id(out) in visited:
            continue
        stack = [(out, False)]
        while stack:
            lb, ready = stack.pop()
            if id(lb) in visited:
                continue
            if ready:
                visited.add(id(lb))
                order.append(lb)
                continue
            stack.append((lb, True))
            for dep in reversed(dependencies(lb)):
                if id(dep) not in visited:
                    stack.append((dep, False))
    return order


def _internal_references(order):
    """How many references each node gets from inside the graph (sources,
    views' bases), by id. A function of its own, so that no loop variable
    outlives it holding a node."""
    internal = collections.Counter()
    for lb in order:
        if lb._base is not None:
            internal[id(lb._base)] += 1
        for src in getattr(lb, "srcs", ()):
            internal[id(src)] += 1
    return internal


def _held_bases(order):
    """Ids of the unrealized bases that something outside the graph keeps
    alive (through the base itself or one of its views): a Tensor the
    program still holds, an autograd context's saved buffers. tinygrad's
    memory planner sees them as lb_refcount > 0 after scheduling and never
    reuses their buffers; lazy-form-kernels marks those buffers (and what
    the held nodes keep alive) `lazy.external`.

    References from inside the graph are subtracted from each node's
    reference count; what remains is held from outside. The baseline is 3:
    `order`, the loop variable and getrefcount's argument."""
    internal = _internal_references(order)
    held = []
    for lb in order:
        if sys.getrefcount(lb) - 3 - internal[id(lb)] > 0:
            held.append(id(lb._base) if lb._base is not None else id(lb))
    # Realized buffers are not planned, and consts have no buffer.
    skip = {id(lb) for lb in order if lb._base is None and
            (not hasattr(lb, "srcs") or lb.op is MetaOps.CONST)}
    return {i for i in held if i not in skip}


def _contiguous_strides(shape, lb):
    """(dims, strides) of the canonical contiguous view of `shape`."""
    dims = [_int(d, lb) for d in shape]
    strides, step = [], 1
    for d in reversed(dims):
        strides.append(0 if d == 1 else step)
        step *= d
    strides.reverse()
    if 0 in dims:
        strides = [0] * len(dims)
    return dims, strides


def _contiguous_view(shape, lb):
    dims, strides = _contiguous_strides(shape, lb)
    return f"({', '.join(map(str, dims))}):({', '.join(map(str, strides))})"


def _callable_name(fn):
    name = getattr(fn, "__name__", None)
    if name is None and hasattr(fn, "func"):  # functools.partial
        name = getattr(fn.func, "__name__", None)
    return name or type(fn).__name__


def export_graph(tensors, flags=None, seen=None, record_ops=False, compact=False):
    """Export and return a `Graph` (text, or with `compact` the compact
    form, plus argument and output nodes; with record_ops, the node of each
    op too, which keeps them all alive as long as the Graph is)."""
    outs = collect_outputs(tensors)
    exporter = (_CompactExporter if compact else _Exporter)(Device.DEFAULT, seen,
                                                            record_ops=record_ops)
    try:
        result = exporter.module(outs, scheduler_flags(flags))
    except ExportError:
        # The native walk and the exporter reference each other: emptied,
        # a refused exporter holds no node (the caller may export the same
        # nodes again, and counts references to them).
        exporter.__dict__.clear()
        raise
    args = [(lb, number, offset) for lb, _, number, offset in exporter.args]
    if compact:
        return Graph(None, args, outs, exporter.ops, compact=result)
    return Graph(result, args, outs, exporter.ops)


def export(tensors, flags=None, seen=None):
    """`lazy` dialect text of the graph that scheduling `tensors` would see.

    tensors: a Tensor or a list of Tensors (LazyBuffers are accepted too),
    not yet scheduled. flags: optional overrides of the scheduler flags
    (`{"fuse_arange": True}` or `{"FUSE_ARANGE": 1}`). seen: optional Tensors
    or LazyBuffers already in the scheduler's `seen` set (marked `lazy.seen`).
    """
    return export_graph(tensors, flags, seen).text
