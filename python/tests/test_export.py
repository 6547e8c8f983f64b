"""The exporter's mapping, rule by rule (the text it writes, checked by
lazy-opt where the rule is about validity)."""

import math
import re
import subprocess
import time

import numpy as np
import pytest

from conftest import fresh
from tinygrad import Tensor, dtypes
from tinygrad.helpers import Context, getenv
from tinygrad.ops import BinaryOps, UnaryOps

from lazy_mlir.tinygrad import ExportError, export, export_graph, scheduler_flags
from lazy_mlir.tinygrad import _export
from lazy_mlir.tinygrad._export import _const_literal, mlir_string


def verify(lazy_opt, text, *extra):
    proc = subprocess.run([lazy_opt, *extra], input=text, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr + "\n" + text
    return proc.stdout


def body(text):
    return [line.strip() for line in text.splitlines() if line.startswith("    %")]


def setup_function(_):
    fresh()


def test_module_header_and_flags():
    text = export(Tensor.empty(4) + 1)
    assert text.startswith('module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, '
                           'fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false, '
                           'online_softmax = true}} {')
    assert "func.func @graph() -> tensor<4xf32> {" in text


def test_flags_follow_context_vars_and_overrides():
    with Context(FUSE_ARANGE=1, MULTIOUTPUT=0):
        flags = scheduler_flags()
    assert flags == {"multi_output": False, "fuse_conv_bw": False, "fuse_arange": True,
                     "use_copy_kernel": False, "online_softmax": True, "fusion": "tinygrad"}
    flags = scheduler_flags({"FUSE_CONV_BW": 1, "use_copy_kernel": True})
    assert flags["fuse_conv_bw"] and flags["use_copy_kernel"] and flags["multi_output"]
    with pytest.raises(ExportError, match="unknown scheduler flag"):
        scheduler_flags({"FUSE_EVERYTHING": 1})


def test_flags_and_tolerances_come_from_the_library():
    """One list of flags (ScheduleFlags.td) and one table of tolerances
    (runtime/Tolerance.h), read through the C API."""
    from lazy_mlir import _capi
    assert _capi.schedule_flags() == (
        ("multi_output", "MULTIOUTPUT", True), ("fuse_conv_bw", "FUSE_CONV_BW", False),
        ("fuse_arange", "FUSE_ARANGE", False), ("use_copy_kernel", "USE_COPY_KERNEL", False),
        ("online_softmax", "LAZY_ONLINE_SOFTMAX", True), ("fusion", "-", "tinygrad"))
    assert tuple(scheduler_flags()) == tuple(key for key, _, _ in _capi.schedule_flags())
    assert _capi.float_tolerance("f32") == (1e-4, 1e-5)
    assert _capi.float_tolerance("bf16") == (3e-2, 1e-2)
    assert _capi.float_tolerance("si32") is None


def test_package_and_library_versions_agree():
    """python/pyproject.toml and include/lazy/Tools/Version.h give one
    version."""
    import pathlib
    import re
    from lazy_mlir import _capi
    pyproject = (pathlib.Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    version = re.search(r'^version = "([^"]+)"', pyproject, re.M).group(1)
    assert _capi.version().startswith(version + " (LLVM 22.")


def test_fusion_policy_is_written_only_when_aggressive():
    from tinygrad import Tensor
    a = Tensor.empty(4).realize()
    out = a + 1
    assert "fusion" not in export([out])
    assert 'online_softmax = true, fusion = "aggressive"}' in export([out], flags={"fusion": "aggressive"})
    assert scheduler_flags({"fusion": "aggressive"})["fusion"] == "aggressive"
    with pytest.raises(ExportError, match="must be one of tinygrad, aggressive, not 'greedy'"):
        scheduler_flags({"fusion": "greedy"})


def _flags_with_env(monkeypatch, name, value="1"):
    """scheduler_flags() with the environment variable `name` set to
    `value` (tinygrad's getenv is cached: cleared before and after)."""
    monkeypatch.setenv(name, value)
    getenv.cache_clear()
    try:
        return scheduler_flags()
    finally:
        monkeypatch.delenv(name)
        getenv.cache_clear()


def test_online_softmax_is_a_flag_and_an_environment_variable(monkeypatch):
    """online_softmax (fusion=aggressive's rule 6, on by default) is unset
    by an override or by LAZY_ONLINE_SOFTMAX=0, and reaches the module."""
    from tinygrad import Tensor
    out = Tensor.empty(4).realize() + 1
    assert scheduler_flags()["online_softmax"]
    assert "online_softmax = false, fusion" in export(
        [out], flags={"fusion": "aggressive", "online_softmax": False})
    assert not _flags_with_env(monkeypatch, "LAZY_ONLINE_SOFTMAX", "0")["online_softmax"]
    assert _flags_with_env(monkeypatch, "LAZY_ONLINE_SOFTMAX", "1")["online_softmax"]
    assert scheduler_flags()["online_softmax"]


def test_use_copy_kernel_is_a_cached_getenv(monkeypatch):
    assert _flags_with_env(monkeypatch, "USE_COPY_KERNEL")["use_copy_kernel"]
    assert not scheduler_flags()["use_copy_kernel"]


@pytest.mark.parametrize("dtype,element", [
    (dtypes.bool, "i1"), (dtypes.int8, "si8"), (dtypes.uint8, "ui8"), (dtypes.int16, "si16"),
    (dtypes.uint16, "ui16"), (dtypes.int32, "si32"), (dtypes.uint32, "ui32"), (dtypes.int64, "si64"),
    (dtypes.uint64, "ui64"), (dtypes.float16, "f16"), (dtypes.bfloat16, "bf16"), (dtypes.float32, "f32"),
    (dtypes.float64, "f64")])
def test_dtypes(dtype, element, lazy_opt):
    x = Tensor.empty(2, 3, dtype=dtype).realize()
    text = export(x.lazydata.e(BinaryOps.CMPNE, x.lazydata))
    assert f"%arg0: tensor<2x3x{element}> {{lazy.buffer = 0 : i64}}" in text
    assert f"lazy.cmpne %arg0, %arg0 : tensor<2x3x{element}> -> tensor<2x3xi1>" in text
    verify(lazy_opt, text)


@pytest.mark.parametrize("value,dtype,literal", [
    (True, dtypes.bool, "true"), (False, dtypes.bool, "false"), (-128, dtypes.int8, "-128"),
    (2**64 - 1, dtypes.uint64, "18446744073709551615"), (300, dtypes.uint8, "44"), (-1, dtypes.uint16, "65535"),
    (2.0, dtypes.float32, "2.0"), (1e-5, dtypes.float32, "1.0e-05"), (1.5e300, dtypes.float64, "1.5e+300"),
    (-0.0, dtypes.float16, "-0.0"), (math.inf, dtypes.float32, "inf"), (-math.inf, dtypes.float64, "-inf"),
    (math.nan, dtypes.bfloat16, "nan"), (0.1, dtypes.float64, "0.1")])
def test_const_literals(value, dtype, literal):
    assert _const_literal(value, dtype, None) == literal


def test_consts_parse(lazy_opt):
    outs = [Tensor(v, dtype=d) for v, d in [(math.inf, dtypes.float32), (-math.inf, dtypes.half), (math.nan, dtypes.double),
                                           (1e-5, dtypes.float32), (True, dtypes.bool), (-7, dtypes.int64)]]
    text = export(outs)
    for literal in ("inf", "-inf", "nan", "1.0e-05", "true", "-7"):
        assert f"lazy.const {literal} :" in text
    verify(lazy_opt, text)


def test_views_print_tinygrad_shapetrackers(lazy_opt):
    x = Tensor.empty(4, 6).realize()
    outs = [x.pad(((1, 0), (0, 2)))[::-1], x[2:3, 1], x.reshape(2, 12).permute(1, 0).reshape(4, 6), x[1, 1]]
    text = export(outs)
    for out in outs:
        views = ", ".join(_view_text(v) for v in out.lazydata.st.views)
        assert f"lazy.view %arg0 as <[{views}]>" in text
    assert "as <[():()" in text or "offset 7]>" in text
    verify(lazy_opt, text)


def _view_text(v):
    text = f"({', '.join(map(str, v.shape))}):({', '.join(map(str, v.strides))})"
    if v.offset:
        text += f" offset {v.offset}"
    if v.mask is not None:
        text += " mask [" + ", ".join(f"({b}, {e})" for b, e in v.mask) + "]"
    return text


def test_each_distinct_node_once():
    a, b = Tensor.empty(4), Tensor.empty(4)  # EMPTY is never hash-consed: two nodes
    s = a + b
    text = export([s * s, s, s])
    lines = body(text)
    assert sum("lazy.empty" in line for line in lines) == 2
    assert sum("lazy.add" in line for line in lines) == 1
    add = next(line.split(" = ")[0] for line in lines if "lazy.add" in line)
    assert re.search(rf"return %\d+, {add}, {add} :", text)


def test_buffer_numbers_and_offsets(lazy_opt):
    x = Tensor.empty(10).realize()
    part = x[2:6].contiguous().realize()  # MetaOps.VIEW: a sub-buffer 8 bytes in
    target = Tensor(x.lazydata)
    updated = x.assign(x + 1)             # (x now holds the ASSIGN)
    updated.schedule()                    # realized, and sharing target's Buffer
    y = Tensor.empty(3).realize()
    graph = export_graph([part * 2, updated + target, y + 1])
    assert [(n, off) for _, n, off in graph.args] == [(0, 8), (0, None), (0, None), (1, None)]
    assert "{lazy.buffer = 0 : i64, lazy.buffer_offset = 8 : i64}" in graph.text
    verify(lazy_opt, graph.text)


def test_devices_are_encodings(lazy_opt):
    x = Tensor.empty(4).realize()
    text = export([(x + 1).to("CLANG:1") * 2])
    assert re.search(r'lazy.copy %\d+ : tensor<4xf32> -> tensor<4xf32, #lazy.device<"CLANG:1">>', text)
    assert re.search(r'lazy.mul %\d+, %\d+ : tensor<4xf32, #lazy.device<"CLANG:1">>', text)
    assert '-> tensor<4xf32, #lazy.device<"CLANG:1">> {' in text
    verify(lazy_opt, text)


def test_meta_ops(lazy_opt):
    x = Tensor.empty(4, 4).realize()
    outs = [Tensor.rand(3), x[1:3].contiguous(), x.T.contiguous(), x.bitcast(dtypes.int32),
            x[:, 1:3].assign(Tensor.empty(4, 2)), x.lazydata.cast(dtypes.half)]
    text = export(outs)
    assert re.search(r'lazy.custom "custom_random" tensor<3xf32>', text)
    assert "lazy.buffer_view %arg0 : tensor<4x4xf32> -> tensor<4x4xsi32>" in text
    assert re.search(r"lazy.buffer_view %\d+ : tensor<2x4xf32> -> tensor<2x4xf32>", text)
    assert re.search(r"lazy.contiguous %\d+ : tensor<4x4xf32>", text)
    assert re.search(r"lazy.assign %\d+ to %arg0 view <\[\(4, 2\):\(4, 1\) offset 1\]> : "
                     r"tensor<4x2xf32>, tensor<4x4xf32>", text)
    assert "lazy.cast %arg0 : tensor<4x4xf32> -> tensor<4x4xf16>" in text
    verify(lazy_opt, text)


def test_assign_into_a_contiguous_prefix(lazy_opt):
    grid = Tensor.empty(2, 2).realize()
    text = export(grid[0].assign(Tensor.empty(2)))  # arg () but 2 of 4 elements
    assert re.search(r"lazy.assign %\d+ to %arg0 view <\[\(2\):\(1\)\]> : tensor<2xf32>, tensor<2x2xf32>", text)
    verify(lazy_opt, text)


def test_forced_realize_and_seen(lazy_opt):
    x = Tensor.empty(4).realize()
    first = (x + 1).contiguous()          # contiguous of a full base: forced_realize
    text = export([first * 2], seen=[first.lazydata.base])
    # (`first` is still referenced here, so it is external too.)
    assert re.search(r"lazy.add %arg0, %\d+ \{lazy.forced_realize, lazy.seen, lazy.external\} : tensor<4xf32>",
                     text)
    verify(lazy_opt, text)


def test_seen_accepts_tensors(lazy_opt):
    """`seen` may hold Tensors: their LazyBuffers are what the scheduler's
    set holds (a Tensor itself would match nothing)."""
    x = Tensor.empty(4).realize()
    first = (x + 1).contiguous()
    text = export([first * 2], seen=[first])
    assert re.search(r"lazy.add %arg0, %\d+ \{[^}]*lazy.seen", text)
    verify(lazy_opt, text)
    with pytest.raises(ExportError, match="seen entry 0 is a int"):
        export([first * 2], seen=[3])


def test_metadata_locations(lazy_opt):
    w = Tensor.empty(3, 3).realize()
    w.requires_grad = True
    (Tensor.empty(2, 3).realize() @ w).relu().sum().backward()
    text = export(w.grad)
    assert 'loc("relu bw")' in text and 'loc("__matmul__ bw")' in text and 'loc("relu")' in text
    printed = verify(lazy_opt, text, "--mlir-print-debuginfo")
    assert 'loc("relu bw")' in printed
    assert mlir_string('a "b"\\\n') == '"a \\"b\\"\\\\\\0A"'


def test_image_dtype_is_rejected():
    lb = Tensor.empty(2, 4, 4).lazydata.cast(dtypes.imagef((2, 4, 4)))
    with pytest.raises(ExportError, match=r"image dtypes cannot be exported: UnaryOps.CAST node of shape \(2, 4, 4\)"):
        export(lb)


def test_op_over_two_devices_is_rejected():
    """tinygrad 0.9.2's gradient through Tensor.to() multiplies a buffer of
    one device by one of the other (found by scripts/fuzz_compare.py); the
    export says so instead of writing IR that does not parse."""
    fresh()
    x = Tensor.empty(4, requires_grad=True).realize()
    ((x * x).to("CLANG:1") * 2.0).to("CLANG").log().sum().backward()
    with pytest.raises(ExportError, match=r"BinaryOps.MUL node of shape \(4,\) \(dtypes.float, CLANG:1\) "
                                          r"reads UnaryOps.RECIP node .* CLANG\): tinygrad built one op "
                                          r"over two devices"):
        export(x.grad)


def test_symbolic_views_and_types(lazy_opt):
    """tinygrad 0.9.2's kv-cache update: shapes and views over the bound
    Variable start_pos, in the dialect's sint syntax; a symbolic dim's
    static size is its largest value."""
    from tinygrad.shape.symbolic import Variable
    cache = Tensor.empty(2, 8, 1, 1).realize()
    xk = Tensor.empty(2, 1, 1, 1).realize()
    start_pos = Variable("start_pos", 1, 8).bind(4)
    keys = cache.shrink((None, (0, start_pos), None, None)).cat(xk, dim=1).contiguous()
    text = export(cache.assign(keys.pad((None, (0, 8 - start_pos - 1), None, None)).contiguous()))
    sym = "#lazy.sym_shape<[2, (start_pos[1:8=4] + 1), 1, 1]>"
    assert (f"lazy.view %arg0 as <[(2, (start_pos[1:8=4] + 1), 1, 1):(8, 1, 0, 0) mask [(0, 2), "
            f"(0, start_pos[1:8=4]), (0, 1), (0, 1)]]> : tensor<2x8x1x1xf32> -> tensor<2x9x1x1xf32, {sym}>") in text
    assert re.search(r"lazy.add %0, %1 \{lazy.forced_realize.*\} : " + re.escape(f"tensor<2x9x1x1xf32, {sym}>"), text)
    assert "as <[(2, 8, 1, 1):((start_pos[1:8=4] + 1), 1, 0, 0) mask [(0, 2), (0, (start_pos[1:8=4] + 1))" in text
    verify(lazy_opt, text)


def test_symbolic_products_and_devices(lazy_opt):
    """Two Variables, a product of them in a shape, an unbound range, and
    a symbolic shape on a device other than the default."""
    from tinygrad.shape.symbolic import Variable
    i, j = Variable("i", 1, 10).bind(3), Variable("j", 1, 10).bind(4)
    a, b = Tensor.empty(3, 3).realize(), Tensor.empty(3, 4).realize()
    text = export(a.reshape(i, 3) @ b.reshape(3, j) + 1)
    assert "#lazy.sym_shape<[i[1:10=3], j[1:10=4]]>" in text
    verify(lazy_opt, text)
    c = Tensor.empty(3, 3, device="PYTHON").realize()
    text = export(c.reshape(3, i).exp2())
    assert '#lazy.sym_shape<[3, i[1:10=3]], device = "PYTHON">' in text
    verify(lazy_opt, text)


def test_symbolic_const(lazy_opt):
    """A CONST of a bound Variable (Tensor(Variable(...).bind(n)))."""
    from tinygrad.shape.symbolic import Variable
    v = Variable("n", 1, 8).bind(3)
    text = export(Tensor.empty(4) * Tensor(v).cast(dtypes.float32))
    assert "lazy.const n[1:8=3] : tensor<si32>" in text
    verify(lazy_opt, text)


def test_symbolic_rejections():
    """What has no spelling is refused, not mis-exported: a Variable whose
    name is no identifier; and the compact form takes no Variables."""
    from tinygrad.shape.symbolic import Variable
    with pytest.raises(ExportError, match="whose name is not an identifier"):
        export(Tensor.empty(4) * Tensor(Variable("n 1", 1, 8).bind(3)).cast(dtypes.float32))
    v = Variable("n", 1, 8).bind(3)
    with pytest.raises(ExportError, match="a CONST of a Variable needs the text export"):
        _export.export_graph(Tensor.empty(4) * Tensor(v).cast(dtypes.float32), compact=True)
    lb = Tensor.empty(8).lazydata
    with pytest.raises(ExportError, match="symbolic shapes need the text export"):
        _export.export_graph(lb.shrink(((0, v),)).e(UnaryOps.NEG), compact=True)


def test_deep_chain_is_iterative_and_linear():
    x = Tensor.empty(4)
    times = {}
    for n in (2000, 8000):
        y = x
        for i in range(n):
            y = y + 1 if i % 2 else y * 1.5
        start = time.perf_counter()
        text = export(y)
        times[n] = time.perf_counter() - start
        assert len(body(text)) > n
    assert times[8000] < 8 * times[2000] + 0.05  # linear, not quadratic


def test_non_tensor_outputs_are_rejected():
    with pytest.raises(ExportError, match="output 1 is a ndarray"):
        export([Tensor.empty(2), np.zeros(2)])


def test_rank_n_const_bases_have_zero_strides():
    """A CONST base of rank > 0 (cast() of an unmasked const view) keeps that
    view's st, which the dialect cannot attach to `lazy.const`; it is always
    all-zero strides, so a reader can rebuild it from the shape."""
    t = Tensor.full((4, 4), 2).cast(dtypes.float32)
    base = t.lazydata.base
    assert base.op.name == "CONST" and not base.st.contiguous
    assert [(v.strides, v.offset, v.mask) for v in base.st.views] == [((0, 0), 0, None)]
    assert "lazy.const 2.0 : tensor<4x4xf32>" in export(t + Tensor.empty(4, 4))


def test_bases_python_still_holds_are_external(lazy_opt):
    """A base a Tensor still references is marked `lazy.external` (tinygrad's
    lb_refcount > 0 after scheduling), and the memory planner keeps it."""
    fresh()
    x = Tensor.empty(4, 4).realize()
    held = (x + 1).sum(1)          # realized: a reduce read by the next one
    out = (held.exp2() * 2).sum()
    def marked():
        return [line.split(" = ")[1].split(" {")[0] for line in body(export([out]))
                if "lazy.external" in line]
    # `held` is referenced by this frame (outputs are not marked: their
    # buffers are results, kept anyway).
    assert marked() == ["lazy.reduce_sum %2 axes [1]"]
    verify(lazy_opt, export([out]), "--lazy-schedule")
    del held
    assert marked() == []
