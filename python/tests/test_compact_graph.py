"""The compact graph form (include/lazy-c/Lazy.h): the bridge's exporter
writes it (in C++ through `_lazy_walk`, or in Python), the C API builds it
into a module (lib/CAPI/CompactGraph.cpp). Both walks give the same words,
the module equals the one parsed from the exporter's text, and malformed
words get a located error, never a crash."""

import array

import pytest

from conftest import fresh
from corpus import registry
from lazy_mlir import _capi
from lazy_mlir.tinygrad import _export
from lazy_mlir.tinygrad._export import ExportError, collect_outputs, scheduler_flags

GRAPHS = registry.load()
NAMES = sorted(GRAPHS)


@pytest.fixture(scope="module")
def session():
    if _capi.library_path() is None:
        pytest.fail("liblazy-mlir-c.so is not built (ninja -C build lazy-mlir-c)")
    return _capi.session()


def _compact(outs, seen, flags, native):
    from tinygrad.device import Device
    exporter = _export._CompactExporter(Device.DEFAULT, seen, native=native)
    words, strings = exporter.module(outs, scheduler_flags(flags))
    return words, strings


def test_native_walk_is_built():
    """scripts/setup.sh builds the C++ walk for the Python it configures."""
    assert _capi.walker() is not None, "build/lib/_lazy_walk*.so is missing"


@pytest.mark.parametrize("name", NAMES)
def test_compact_graph_equals_text(name, session):
    """Every corpus graph: the C++ walk writes the Python walk's words, and
    the module built from them prints as the one parsed from the text."""
    if GRAPHS[name].symbolic:
        pytest.skip("the compact form takes no Variables yet (graphs with them use the text)")
    fresh()
    built = registry.build(name)
    outs = collect_outputs(built["outputs"])
    seen = collect_outputs(built["seen"]) if built.get("seen") else None
    flags = built["flags"]
    try:
        text = _export.export_graph(outs, flags, seen=seen).text
    except ExportError as error:
        for native in (False, True):
            with pytest.raises(ExportError) as raised:
                _compact(outs, seen, flags, native)
            assert str(raised.value) == str(error)
        return
    python = _compact(outs, seen, flags, native=False)
    native = _compact(outs, seen, flags, native=True)
    assert python == native
    ok, from_text, diags = session.run(text, "", _capi.MODULE)
    assert ok, diags
    ok, from_words, diags = session.run(native, "", _capi.MODULE)
    assert ok, diags
    assert from_words == from_text


def test_native_walk_raises_the_exporters_errors():
    from tinygrad import Tensor, dtypes
    from tinygrad.shape.symbolic import Variable
    v = Variable("n", 1, 8).bind(3)
    for native in (False, True):
        graph = Tensor.empty(4) * Tensor(v).cast(dtypes.float32)
        with pytest.raises(ExportError, match="a CONST of a Variable needs the text export: MetaOps.CONST"):
            _compact(collect_outputs(graph), None, None, native)
        shrunk = Tensor.empty(8).reshape(2, 4).shrink(((0, 2), (0, v))).contiguous()
        with pytest.raises(ExportError, match="symbolic shapes need the text export"):
            _compact(collect_outputs(shrunk), None, None, native)


# -- malformed words ----------------------------------------------------------

class Writer:
    """Compact words from readable parts (tests only)."""

    def __init__(self):
        self.strings = []

    def s(self, text):
        if text not in self.strings:
            self.strings.append(text)
        return self.strings.index(text)

    def graph(self, ops, results, args=(), trackers=(), module_attrs=None):
        T = "tensor<4xf32>"
        body = []
        body.append(len(trackers))
        for t in trackers:
            body += [len(t), *t]
        module_attrs = module_attrs if module_attrs is not None else [
            (self.s("lazy.default_device"), 3, self.s("CLANG"))]
        body.append(len(module_attrs))
        for a in module_attrs:
            body += a
        body.append(len(args))
        for type_text in args:
            body += [self.s(type_text), 1, self.s("lazy.buffer"), 5, 0]
        body.append(len(ops))
        for name, type_text, attrs, operands in ops:
            body += [self.s(name), self.s(type_text or T), -1, len(attrs)]
            for a in attrs:
                body += a
            body += [len(operands), *operands]
        body += [len(results), *results]
        encoded = [x.encode() for x in self.strings]
        words = [0x4C5A47, 1, len(encoded), *map(len, encoded), *body]
        return array.array("q", words), b"".join(encoded)


def _const(w, value=1.0):
    import struct
    bits = struct.unpack("<q", struct.pack("<d", value))[0]
    return ("lazy.const", "tensor<f32>", [(w.s("value"), 4, bits)], [])


def _view(w, src):
    # tracker 0: (4):(0), a broadcast of a scalar
    return ("lazy.view", None, [(w.s("tracker"), 1, 0)], [src])


BROADCAST = (1, 1, 4, 0, 0, 0)


def test_well_formed_words_schedule(session):
    w = Writer()
    graph = w.graph([_const(w), _view(w, 0), ("lazy.add", None, [], [1, -1])], [2],
                    args=["tensor<4xf32>"], trackers=[BROADCAST])
    ok, out, diags = session.run(graph, "lazy-schedule", _capi.CANONICAL_SCHEDULE, name="g")
    assert ok, diags
    assert "ADD" in out


def _run(session, graph):
    ok, _, diags = session.run(graph, "lazy-schedule", _capi.MODULE, name="<g>")
    assert not ok
    return diags


def _malformed(session, graph, message):
    diags = _run(session, graph)
    assert "malformed compact graph at word" in diags and message in diags, diags


def test_truncated_and_foreign_words(session):
    w = Writer()
    words, strings = w.graph([_const(w), _view(w, 0)], [1], trackers=[BROADCAST])
    for cut in (0, 1, 5, len(words) // 2, len(words) - 1):
        diags = _run(session, (words[:cut], strings))
        # a count the remaining words cannot hold fails as early as the end
        assert "malformed compact graph at word" in diags and (
            "the words end before" in diags or "count" in diags), (cut, diags)
    _malformed(session, (array.array("q", [7, 1]), b""), "not a compact graph of version 1")
    _malformed(session, (words + array.array("q", [0]), strings), "1 words after the results")


def test_string_table_errors(session):
    w = Writer()
    words, strings = w.graph([_const(w)], [0])
    _malformed(session, (words, strings + b"xyz"), "bytes no string uses")
    _malformed(session, (words, strings[:-3]), "runs past the string table")
    huge = array.array("q", [0x4C5A47, 1, 1 << 60])
    _malformed(session, (huge, b""), "bad string count")


def test_bad_ops_and_references(session):
    w = Writer()
    _malformed(session, w.graph([("func.return", None, [], [])], []),
               "'func.return' is not an op of the lazy dialect")
    w = Writer()
    _malformed(session, w.graph([("lazy.no_such_op", None, [], [])], []),
               "'lazy.no_such_op' is not an op of the lazy dialect")
    w = Writer()
    _malformed(session, w.graph([("lazy.neg", None, [], [1]), _const(w)], [0]),
               "value 1 is neither an argument nor an earlier op")
    w = Writer()
    _malformed(session, w.graph([_const(w)], [-1]), "value -1 is neither an argument")
    w = Writer()
    _malformed(session, w.graph([_const(w)], [0], module_attrs=[(w.s("x"), 99, 0)]),
               "unknown attribute kind 99")
    w = Writer()
    _malformed(session, w.graph([_const(w)], [0], module_attrs=[(w.s("x"), 4, 0)]),
               "a scalar attribute outside an op")
    w = Writer()
    _malformed(session, w.graph([_const(w)], [0], module_attrs=[(w.s("d"), 7, 1, w.s("e"), 7, 0)]),
               "a dictionary inside a dictionary")
    w = Writer()
    _malformed(session, w.graph([("lazy.empty", None, [(w.s("lazy.seen"), 0), (w.s("lazy.seen"), 0)],
                                  [])], [0]), "attribute 'lazy.seen' given twice")
    w = Writer()
    _malformed(session, w.graph([("lazy.empty", "i32", [], [])], [0]),
               "('i32') is not a ranked tensor type")
    w = Writer()
    _malformed(session, w.graph([_const(w), _view(w, 0)], [1]), "tracker 0 is out of range (0)")
    w = Writer()
    bool_const = ("lazy.const", "tensor<i1>", [(w.s("value"), 4, 2)], [])
    _malformed(session, w.graph([bool_const], [0]), "a bool scalar is 2")
    w = Writer()
    small = ("lazy.const", "tensor<si8>", [(w.s("value"), 4, 300)], [])
    _malformed(session, w.graph([small], [0]), "the integer 300 does not fit its type")


def test_invalid_tracker_is_named(session):
    w = Writer()
    # a size-1 dimension with a non-zero stride is not canonical
    diags = _run(session, w.graph([_const(w), _view(w, 0)], [1], trackers=[(1, 1, 1, 5, 0, 0)]))
    assert "malformed compact graph at word" in diags and "tracker 0" in diags, diags


def test_verifier_errors_are_located_at_the_op(session):
    w = Writer()
    # lazy.add takes two operands; op 2 is at <g>:2:0
    diags = _run(session, w.graph([_const(w), _view(w, 0), ("lazy.add", None, [], [1])], [2],
                                  trackers=[BROADCAST]))
    assert diags.startswith("<g>:2:0: error:"), diags
