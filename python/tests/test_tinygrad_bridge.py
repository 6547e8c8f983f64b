"""tinygrad on lazy-mlir in process: the C API, the bridge that turns
lazy-mlir's schedule into tinygrad ScheduleItems, and the hook that makes
tinygrad use it (enable()/disable(), LAZY_MLIR=schedule)."""

import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

from conftest import fresh
from corpus import registry
from lazy_mlir import REPO_ROOT, _capi
from lazy_mlir.tinygrad import _bridge, _hook
from lazy_mlir.tinygrad._canonical import canonical_items, moved_line, var_vals_line
from lazy_mlir.tinygrad._compare import (_copy_kernel_env, _plan_lines, _with_plan, differences,
                                         export_built, tinygrad_schedule)
from lazy_mlir.tinygrad._export import ExportError, collect_outputs, scheduler_flags
from lazy_mlir.tinygrad._script import Built

GRAPHS = registry.load()
NAMES = sorted(GRAPHS)

EXAMPLE = os.path.join(REPO_ROOT, "examples", "sum_add.mlir")


@pytest.fixture(scope="module")
def session():
    if _capi.library_path() is None:
        pytest.fail("liblazy-mlir-c.so is not built (ninja -C build lazy-mlir-c)")
    return _capi.session()


@pytest.fixture
def scheduler():
    """lazy-mlir's scheduler for the test, tinygrad's again after it."""
    _hook.enable("schedule")
    try:
        yield
    finally:
        _hook.disable()


# -- the C API -------------------------------------------------------------------

def test_capi_schedules_in_process(session):
    with open(EXAMPLE) as f:
        text = f.read()
    ok, out, diags = session.run(text, "lazy-schedule", _capi.MODULE)
    assert ok, diags
    assert "lazy.launch @step_k0" in out and "lazy.kernel @step_k0" in out
    ok, out, diags = session.run(text, "lazy-schedule", _capi.CANONICAL_SCHEDULE)
    assert ok and "n1 = SUM (1,) n0" in out and "bufs: b0 b1 b2" in out


def test_capi_reports_errors_with_locations(session):
    bad = "func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = lazy.exp2 %a : tensor<5xf32>\n}\n"
    ok, out, diags = session.run(bad, "lazy-schedule", _capi.MODULE, name="bad.mlir")
    assert not ok and out == ""
    assert diags.startswith("bad.mlir:2:"), diags
    assert ": error: " in diags


def test_capi_reports_unknown_passes(session):
    ok, _, diags = session.run("module {}", "lazy-no-such-pass", _capi.MODULE)
    assert not ok and "lazy-no-such-pass" in diags


def test_capi_refuses_deep_nesting(session):
    ok, _, diags = session.run("module {" * 20000, "lazy-schedule", _capi.MODULE, name="deep.mlir")
    assert not ok and "deep.mlir:1:" in diags and "nests deeper than" in diags


def test_bridge_text_needs_recorded_nodes(session):
    with open(EXAMPLE) as f:
        text = f.read()
    ok, _, diags = session.run(text, "lazy-schedule", _capi.BRIDGE_SCHEDULE)
    assert not ok and "has no 'lazy.nodes'" in diags
    ok, out, diags = session.run(text, "lazy-schedule{record-nodes=true}", _capi.BRIDGE_SCHEDULE)
    assert ok, diags
    # positions count the ops before folding: permute 0, shrink 1, sum 2, add 3
    assert "item KERNEL @step_k0\n  out 3\n  buf n3:n3@0 a0:a0@0 a1:a1@0\n" in out


# -- the bridge against tinygrad's own scheduler ---------------------------------

def _tinygrad_lines(built):
    """tinygrad's schedule as `compare` takes it: exported first, the
    exporter alive while tinygrad schedules. The exporter holds the realized
    inputs, so tinygrad's planner never reuses one that is not allocated
    yet (it would, once the graph's last reference to it goes, and
    lazy-mlir never plans a graph argument: see docs/tinygrad.md)."""
    from tinygrad.helpers import Context
    _, keep_alive = export_built(built)  # noqa: F841
    flags = scheduler_flags(built.flags)
    with Context(MULTIOUTPUT=int(flags["multi_output"]), FUSE_CONV_BW=int(flags["fuse_conv_bw"]),
                 FUSE_ARANGE=int(flags["fuse_arange"])), _copy_kernel_env(flags["use_copy_kernel"]):
        lines, _ = tinygrad_schedule(built)
    return lines


@pytest.mark.parametrize("name", NAMES)
def test_bridge_gives_tinygrads_schedule(name, session):
    """Every corpus graph: the ScheduleItems the bridge makes from
    lazy-mlir's schedule print as tinygrad's own (ASTs, buffers, memory
    plan), or both refuse the graph."""
    fresh()
    built = registry.build(name)
    want = _tinygrad_lines(Built(built["outputs"], built.get("seen"), built["flags"], {}))
    del built
    fresh()
    built = registry.build(name)
    outs = collect_outputs(built["outputs"])
    seen = set(collect_outputs(built["seen"])) if built.get("seen") else None
    try:
        items, var_vals, _ = _bridge.schedule(outs, seen, plan_memory=True, flags=built["flags"])
    except _bridge.LazyMlirError as error:
        errors = [line for line in str(error).splitlines() if "error:" in line]
        got = [f"ERROR {errors[0] if errors else error}"]
    else:
        got = _with_plan(canonical_items(items), _plan_lines(items)) + [moved_line(items)]
        if (values := var_vals_line(var_vals)) is not None:
            got.append(values)
    assert not differences(want, got), f"{name}:\n" + "\n".join(differences(want, got))


def test_bridge_marks_outputs_scheduled(session):
    from tinygrad import Tensor
    a = Tensor.empty(4, 4).realize()
    hidden = (a * 2).contiguous()
    out = hidden.sum(axis=1)
    seen = set()
    items, var_vals, stats = _bridge.schedule(collect_outputs([out]), seen)
    assert var_vals == {} and stats["items"] == stats["kernels"] == 2
    assert hidden.lazydata.base.realized is not None and out.lazydata.base.realized is not None
    assert {hidden.lazydata.base, out.lazydata.base} <= seen
    assert items[0].outputs[0] is hidden.lazydata.base.buffer


def _step_graph(scale):
    from tinygrad import Tensor
    a = Tensor(np.arange(16, dtype=np.float32).reshape(4, 4)).realize()
    return a, ((a * scale).contiguous().sum(axis=1) + 1)


def test_schedule_cache_reuses_the_text_of_a_graph_seen(session, monkeypatch):
    """The same graph built again schedules from the cache: the same items
    over the new graph's buffers, computing the same numbers. Another
    constant or another shape is another graph."""
    from tinygrad.engine.realize import run_schedule
    monkeypatch.delenv("LAZY_MLIR_SCHEDULE_CACHE", raising=False)
    cache = _bridge.SCHEDULES
    results = []
    for scale, want_cached in ((2.0, None), (2.0, True), (3.0, False), (3.0, True)):
        fresh()
        a, out = _step_graph(scale)
        misses = cache.misses
        items, var_vals, stats = _bridge.schedule(collect_outputs([out]), set())
        if want_cached is not None:
            assert stats["cached"] is want_cached, scale
        assert cache.misses == misses + (0 if stats["cached"] else 1)
        assert items[-1].outputs[0] is out.lazydata.base.buffer  # the new graph's buffer
        run_schedule(items, var_vals)
        results.append(np.frombuffer(bytes(out.lazydata.base.realized.as_buffer()), np.float32))
    want = np.arange(16, dtype=np.float32).reshape(4, 4).sum(axis=1)
    np.testing.assert_array_equal(results[0], want * 2 + 1)
    np.testing.assert_array_equal(results[1], results[0])
    np.testing.assert_array_equal(results[2], want * 3 + 1)
    np.testing.assert_array_equal(results[3], results[2])


def test_cached_schedule_is_parsed_once(session, monkeypatch):
    """A cache hit reuses the parsed bridge text and its kernel ASTs: a
    loop's schedule call does not read the text again."""
    monkeypatch.delenv("LAZY_MLIR_SCHEDULE_CACHE", raising=False)
    parses = []
    original = _bridge.parse_bridge
    monkeypatch.setattr(_bridge, "parse_bridge", lambda text: parses.append(text) or original(text))
    _bridge._PARSED.clear()
    asts = []
    for _ in range(3):
        fresh()
        a, out = _step_graph(5.0)
        items, _, _ = _bridge.schedule(collect_outputs([out]), set())
        asts.append([si.ast for si in items])
    assert len(parses) == 1
    assert all(x is y for x, y in zip(asts[0], asts[2]))


def test_realized_outputs_schedule_nothing_without_an_export(session, monkeypatch):
    """A realized tensor (or a view of one) schedules nothing, as in
    tinygrad, and is not exported (a `.numpy()` asks for its schedule)."""
    from tinygrad import Tensor
    from tinygrad.engine.schedule import create_schedule_with_vars
    fresh()
    a = Tensor(np.arange(6, dtype=np.float32)).realize()
    outs = [a.lazydata, a.reshape(2, 3).T.lazydata]
    assert create_schedule_with_vars(outs, set()) == ([], {})

    def refuse(*args, **kwargs):
        raise AssertionError("exported a graph with nothing to schedule")
    monkeypatch.setattr(_bridge._export, "export_graph", refuse)
    items, var_vals, stats = _bridge.schedule(outs, set())
    assert (items, var_vals, stats["items"]) == ([], {}, 0)
    # An unrealized one among them is exported.
    with pytest.raises(AssertionError, match="nothing to schedule"):
        _bridge.schedule(outs + [(a + 1).lazydata], set())


def test_schedule_cache_keys_variables_and_switch(session, monkeypatch):
    """A graph with Variables goes as text, bound values included: another
    value is another key. LAZY_MLIR_SCHEDULE_CACHE=0 schedules every time."""
    from tinygrad import Tensor
    from tinygrad.shape.symbolic import Variable
    a = Tensor.rand(3, 10).realize()

    def schedule_at(i):
        fresh()
        out = (a.shrink((None, (0, Variable("i", 1, 10).bind(i)))) * 2).sum(axis=1)
        return _bridge.schedule([out.lazydata], set(), plan_memory=False)

    monkeypatch.delenv("LAZY_MLIR_SCHEDULE_CACHE", raising=False)
    schedule_at(7)
    assert schedule_at(7)[2]["cached"]
    items, var_vals, stats = schedule_at(5)
    assert [(v.expr, n) for v, n in var_vals.items()] == [("i", 5)]
    assert schedule_at(5)[2]["cached"]
    monkeypatch.setenv("LAZY_MLIR_SCHEDULE_CACHE", "0")
    assert not schedule_at(5)[2]["cached"]


def test_schedule_cache_stays_within_its_bounds():
    cache = _bridge.ScheduleCache(max_entries=2, max_bytes=1 << 20)
    texts = {}

    def fake_run(graph, plan_memory):
        texts[graph] = texts.get(graph, 0) + 1
        return f"schedule of {graph}"
    import unittest.mock
    with unittest.mock.patch.object(_bridge, "run_lazy_schedule", fake_run):
        assert cache.schedule("g1", True) == ("schedule of g1", False)
        assert cache.schedule("g1", True) == ("schedule of g1", True)
        assert cache.schedule("g1", False)[1] is False  # the pipeline is part of the key
        cache.schedule("g2", True)  # evicts the least recently used: (g1, True)
        assert list(cache.entries) == [(False, "g1"), (True, "g2")]
        assert cache.schedule("g1", False)[1] is True
        assert cache.schedule("g1", True)[1] is False
        small = _bridge.ScheduleCache(max_entries=10, max_bytes=20)  # one entry: 14 bytes
        small.schedule("a" * 50, True)  # larger than the whole cache: not kept
        assert not small.entries and small.bytes == 0
        small.schedule("b", True)
        small.schedule("c", True)
        assert small.bytes == 14 and list(small.entries) == [(True, "c")]
    assert texts == {"g1": 3, "g2": 1, "a" * 50: 1, "b": 1, "c": 1}


# -- tinygrad programs on lazy-mlir's schedule -------------------------------------

def _assert_same(got, want, mode):
    """The schedule mode runs tinygrad's own kernels on the same schedule:
    bit for bit. The compile mode runs lazy-mlir's kernels, which sum in
    another order, in vector lanes and with FMA: equal to float32 rounding
    (seen: at most 2.4e-7 relative)."""
    if mode == "schedule":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _programs():
    from tinygrad import Tensor, dtypes

    def matmul_relu():
        Tensor.manual_seed(1)
        x, w = Tensor.rand(8, 16), Tensor.rand(16, 4)
        return (x @ w).relu().numpy()

    def softmax_rows():
        t = Tensor(np.arange(24, dtype=np.float32).reshape(4, 6) / 7)
        return t.softmax(1).numpy()

    def assign_in_place():
        t = Tensor.zeros(4, 4).contiguous().realize()
        for i in range(3):
            t.assign(t + Tensor.full((4, 4), float(i))).realize()
        return t.numpy()

    def arange_gather():
        idx = Tensor([3, 0, 2], dtype=dtypes.int32)
        table = Tensor(np.arange(20, dtype=np.float32).reshape(5, 4))
        return table[idx].numpy()

    def reduce_chain():
        t = Tensor(np.linspace(-1, 1, 60, dtype=np.float32).reshape(3, 4, 5))
        return (t.exp().sum(axis=2) / t.max(axis=2)).mean(axis=0).numpy()

    def float_constants():
        # 1.8 plain; 1.8000001 when 0.8 crossed the bridge as a float32
        x = Tensor(np.ones(4, np.float32)).realize()
        h = Tensor(np.ones(4, np.float16)).realize()
        return np.concatenate([(x + x * 0.8).numpy(), (x * 0.1 + 0.2).numpy(),
                               (h + h * 0.3).numpy().astype(np.float32)])

    return {f.__name__: f for f in (matmul_relu, softmax_rows, assign_in_place, arange_gather,
                                    reduce_chain, float_constants)}


@pytest.mark.parametrize("mode", ["schedule", "compile"])
@pytest.mark.parametrize("program", sorted(_programs()))
def test_programs_compute_as_tinygrad(program, mode, session):
    fn = _programs()[program]
    fresh()
    want = fn()
    _hook.enable(mode)
    try:
        fresh()
        got = fn()
    finally:
        _hook.disable()
    _assert_same(got, want, mode)


def _train_mlp(steps):
    from tinygrad import Tensor, nn
    Tensor.manual_seed(7)
    l1, l2 = nn.Linear(6, 16), nn.Linear(16, 3)
    opt = nn.optim.Adam(nn.state.get_parameters([l1, l2]), lr=0.01)
    x = Tensor.rand(32, 6)
    y = Tensor((np.arange(32) % 3).astype(np.int32))
    losses = []
    with Tensor.train():
        for _ in range(steps):
            opt.zero_grad()
            loss = l2(l1(x).relu()).sparse_categorical_crossentropy(y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return losses


def _train_conv_bn(steps):
    from tinygrad import Tensor, nn
    Tensor.manual_seed(11)
    conv, bn, head = nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.Linear(4 * 6 * 6, 2)
    opt = nn.optim.SGD(nn.state.get_parameters([conv, bn, head]), lr=0.05, momentum=0.9)
    x = Tensor.rand(8, 2, 6, 6)
    y = Tensor((np.arange(8) % 2).astype(np.int32))
    losses = []
    with Tensor.train():
        for _ in range(steps):
            opt.zero_grad()
            loss = head(bn(conv(x)).relu().flatten(1)).sparse_categorical_crossentropy(y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return losses


@pytest.mark.parametrize("mode", ["schedule", "compile"])
@pytest.mark.parametrize("train", [_train_mlp, _train_conv_bn], ids=["mlp_adam", "conv_bn_sgd"])
def test_training_losses_match_tinygrad(train, mode, session):
    fresh()
    want = train(4)
    _hook.enable(mode)
    try:
        fresh()
        got = train(4)
    finally:
        _hook.disable()
    _assert_same(np.array(got), np.array(want), mode)
    assert want[-1] < want[0]  # it trains


def test_compile_mode_runs_lazy_mlirs_kernels(session):
    from tinygrad import Tensor
    from lazy_mlir.tinygrad import _compile
    before = sum(k.calls for k in _compile._kernels.values())
    _hook.enable("compile")
    try:
        t = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
        got = (t.exp2() * 3).sum(axis=1).numpy()
    finally:
        _hook.disable()
    np.testing.assert_allclose(got, [3 * (1 + 2 + 4), 3 * (8 + 16 + 32)], rtol=1e-6)
    assert sum(k.calls for k in _compile._kernels.values()) > before


def test_compile_mode_runs_symbolic_kernels_under_jit(session):
    """A TinyJit function over a bound Variable (test_symbolic_jit's
    matmul) in compile mode: lazy-mlir compiles one kernel that takes i as
    an argument, and every call, the JIT's replays at other values of i
    included, runs it with the value tinygrad passes."""
    from tinygrad import Tensor, TinyJit
    from tinygrad.shape.symbolic import Variable
    from lazy_mlir.tinygrad import _compile

    def symbolic_calls():
        return sum(k.calls for k in _compile._kernels.values() if k.variables == [("i", 1, 10)])

    before = symbolic_calls()
    _hook.enable("compile")
    try:
        jf = TinyJit(lambda a, b: (a @ b).realize())
        for i in range(1, 6):
            vi = Variable("i", 1, 10).bind(i)
            a, b = Tensor.rand(3, i).realize(), Tensor.rand(i, 5).realize()
            got = jf(a.reshape(3, vi), b.reshape(vi, 5)).numpy()
            np.testing.assert_allclose(got, a.numpy() @ b.numpy(), rtol=1e-5, atol=1e-5)
    finally:
        _hook.disable()
    assert symbolic_calls() - before == 5


def test_compile_mode_passes_two_variables_in_key_order(session):
    """A kernel over two Variables, n for the rows and m for the columns
    (m sorts first): the compiled kernel takes them in key order, so every
    (n, m) with n != m gives numpy's numbers only if the order is right."""
    from tinygrad import Tensor
    from tinygrad.shape.symbolic import Variable
    from lazy_mlir.tinygrad import _compile
    _hook.enable("compile")
    try:
        for n, m in [(2, 3), (3, 1), (1, 4)]:
            vn, vm = Variable("n", 1, 8).bind(n), Variable("m", 1, 8).bind(m)
            a, b = Tensor.rand(n, 3).realize(), Tensor.rand(3, m).realize()
            got = (a.reshape(vn, 3) @ b.reshape(3, vm) + 1).realize().reshape(n, m).numpy()
            np.testing.assert_allclose(got, a.numpy() @ b.numpy() + 1, rtol=1e-5, atol=1e-5)
    finally:
        _hook.disable()
    two = [k for k in _compile._kernels.values() if len(k.variables) == 2]
    assert two and two[0].variables == [("m", 1, 8), ("n", 1, 8)] and two[0].calls >= 3


def test_refused_graph_raises_or_falls_back(session, monkeypatch):
    """A graph lazy-mlir refuses raises its error, or with
    LAZY_MLIR_FALLBACK=1 goes to tinygrad's scheduler with a warning. (Every
    graph of tinygrad's test files is taken today, so the refusal is
    simulated.)"""
    from tinygrad import Tensor
    monkeypatch.delenv("LAZY_MLIR_FALLBACK", raising=False)

    def refuse(*args, **kwargs):
        raise _bridge.LazyMlirError("lazy-mlir cannot schedule this graph:\n<tinygrad graph>:3:5: error: no")

    monkeypatch.setattr(_bridge, "run_lazy_schedule", refuse)

    def graph():
        return Tensor.ones(2, 3).contiguous().realize().sum(axis=1)

    _hook.enable("schedule")
    try:
        with pytest.raises(_bridge.LazyMlirError, match="error: no"):
            graph().numpy()
        # tinygrad 0.9.2's Tensor methods set the Metadata context variable
        # and reset it only when they return: after an exception every later
        # op would carry this call's Metadata.
        from tinygrad.helpers import _METADATA
        _METADATA.set(None)
        monkeypatch.setenv("LAZY_MLIR_FALLBACK", "1")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert graph().numpy().tolist() == [3.0, 3.0]
        assert any("falling back to tinygrad's scheduler" in str(w.message) for w in caught)
    finally:
        _hook.disable()


def test_symbolic_shapes_through_the_bridge(session):
    """Graphs with bound Variables go to lazy-mlir as text (the compact form
    has no Variables): test_symbolic_ops' matmul at several values, and the
    kv-cache update of test_assign_kv_cache, give tinygrad's numbers; the
    schedule's var_vals are tinygrad's."""
    from tinygrad import Tensor
    from tinygrad.engine.realize import run_schedule
    from tinygrad.shape.symbolic import Variable
    _hook.enable("schedule")
    try:
        for i in (1, 3):
            vi = Variable("i", 1, 10).bind(i)
            a, b = Tensor.rand(3, i).realize(), Tensor.rand(i, 5).realize()
            out = a.reshape(3, vi) @ b.reshape(vi, 5)
            items, var_vals, _ = _bridge.schedule([out.lazydata], set(), plan_memory=False)
            assert [(v.expr, v.min, v.max, n) for v, n in var_vals.items()] == [("i", 1, 10, i)]
            run_schedule(items, var_vals)
            got = np.frombuffer(bytes(out.lazydata.base.realized.as_buffer()), dtype=np.float32)[:15]
            np.testing.assert_allclose(got.reshape(3, 5), a.numpy() @ b.numpy(), rtol=1e-5, atol=1e-5)
        cache = Tensor.zeros(2, 8, 1, 1).contiguous().realize()
        for pos in (3, 4, 5):
            start_pos = Variable("start_pos", 1, 8).bind(pos)
            xk = Tensor.ones(2, 1, 1, 1).contiguous().realize()
            keys = cache.shrink((None, (0, start_pos), None, None)).cat(xk, dim=1).contiguous()
            cache.assign(keys.pad((None, (0, 8 - start_pos - 1), None, None)).contiguous()).realize()
        assert cache.flatten().numpy().tolist() == [0, 0, 0, 1, 1, 1, 0, 0] * 2
    finally:
        _hook.disable()


def test_enable_and_disable_swap_the_scheduler():
    import tinygrad.engine.schedule as schedule_module
    from tinygrad import Tensor
    before = (schedule_module.create_schedule_with_vars, Tensor.schedule_with_vars)
    _hook.enable("schedule")
    try:
        assert _hook.mode() == "schedule"
        assert schedule_module.create_schedule_with_vars is _hook._create_schedule_with_vars
        with pytest.raises(ValueError, match="unknown lazy-mlir mode"):
            _hook.enable("fast")
    finally:
        _hook.disable()
    assert (schedule_module.create_schedule_with_vars, Tensor.schedule_with_vars) == before
    assert _hook.mode() is None


PROGRAM = textwrap.dedent("""
    from tinygrad import Tensor
    import lazy_mlir.tinygrad._hook as hook
    t = (Tensor.arange(12).reshape(3, 4) * 2).sum(axis=1)
    print(hook.mode(), t.numpy().tolist())
""")


@pytest.mark.parametrize("setting", ["schedule", "compile", ""])
def test_environment_switches_unchanged_programs(setting):
    """LAZY_MLIR=schedule takes effect through the .pth file the package
    installs, with no change to the program; unset, nothing changes."""
    env = dict(os.environ, LAZY_MLIR=setting, LAZY_MLIR_DEBUG="1", CLANG="1")
    r = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    if setting:
        assert r.stdout.strip() == f"{setting} [12, 44, 76]"
        lines = [l for l in r.stderr.splitlines() if l.startswith("lazy-mlir: ")]
        assert lines and "items" in lines[0] and "ms in lazy-mlir" in lines[0]
    else:
        assert r.stdout.strip() == "None [12, 44, 76]"
        assert "lazy-mlir:" not in r.stderr


def test_installed_package_carries_library_tools_and_hook(tmp_path):
    """A non-editable install from this built checkout works on its own:
    the C API library, the tools and the start-up hook come with it."""
    target = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation",
                        "--no-deps", "--target", str(target), os.path.join(REPO_ROOT, "python")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert (target / "lazy_mlir_autoload.pth").is_file()
    program = textwrap.dedent("""
        import lazy_mlir, lazy_mlir._capi as capi
        from tinygrad import Tensor
        print(capi.library_path())
        print(lazy_mlir.tool_path("lazy-opt"))
        print(capi.walker().__file__ if capi.walker() else "-")
        print((Tensor.arange(6) * 2).sum().item())
    """)
    env = dict(os.environ, PYTHONPATH=str(target), CLANG="1", LAZY_MLIR="schedule",
               LAZY_MLIR_DEBUG="1")
    env.pop("LAZY_MLIR_BUILD_DIR", None)
    # PYTHONPATH folders are not site folders: the hook is imported by hand
    # here, as site-packages' .pth processing would.
    r = subprocess.run([sys.executable, "-c", "import lazy_mlir._autoload\n" + program],
                       capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=120)
    assert r.returncode == 0, r.stderr
    library, tool, walker, value = r.stdout.split()
    assert library.startswith(str(target)) and tool.startswith(str(target))
    # the C++ walk comes along when the checkout built it
    assert walker.startswith(str(target)) or _capi.walker() is None
    assert value == "30" and "lazy-mlir: 2 items" in r.stderr
