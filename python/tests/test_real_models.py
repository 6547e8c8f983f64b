"""A real training step under TinyJit in the three modes: plain tinygrad,
LAZY_MLIR=schedule and LAZY_MLIR=compile.

The model stands in for tinygrad's examples (beautiful_mnist, hlb-CIFAR10):
two convolutions with batch-norm, max-pooling, a linear head, Adam, and
the step captured by TinyJit, so that the later steps are jit replays.
bench/models.py runs tinygrad's own examples the same way; this test
needs no tinygrad checkout.

schedule runs tinygrad's own kernels on lazy-mlir's schedule: every loss,
weight, Adam moment and batch-norm statistic is bit-identical. compile runs
lazy-mlir's kernels, which round differently (FMA, vector lanes, another
summation order). Its yardstick is tinygrad's own NOOPT=1 run, whose
kernels sum in another order than plain's: per tensor, compile drifts from
plain at most 5x as far as NOOPT=1 does (normwise, max|x - plain| /
max|plain|, floor 1e-4). A tensor on which NOOPT=1 itself drifts by more
than 1% holds rounding noise only: a convolution's bias followed by
batch-norm has a gradient that is zero but for rounding, and Adam turns
that noise into whole steps (13% drift in c2.bias under NOOPT=1). Of
those, only finiteness and magnitude are checked.
"""

import numpy as np
import pytest

from conftest import fresh
from lazy_mlir import _capi
from lazy_mlir.tinygrad import _hook

STEPS = 5


def _train(steps):
    """Per step the loss; then every parameter and buffer of the model and
    optimizer by name; and the jit's ExecItems of the replayed step."""
    from tinygrad import Tensor, TinyJit, nn
    from tinygrad.nn.state import get_state_dict

    class Net:
        def __init__(self):
            self.c1, self.bn1 = nn.Conv2d(1, 8, 3), nn.BatchNorm2d(8)
            self.c2, self.bn2 = nn.Conv2d(8, 16, 3), nn.BatchNorm2d(16)
            self.head = nn.Linear(16 * 2 * 2, 10)

        def __call__(self, x):
            x = self.bn1(self.c1(x)).relu().max_pool2d()
            x = self.bn2(self.c2(x)).relu().max_pool2d()
            return self.head(x.flatten(1))

    Tensor.manual_seed(5)
    net = Net()
    opt = nn.optim.Adam(nn.state.get_parameters(net), lr=3e-3)
    rng = np.random.default_rng(3)
    images = Tensor(rng.standard_normal((16, 1, 14, 14)).astype(np.float32)).realize()
    labels = Tensor((np.arange(16) % 10).astype(np.int32)).realize()

    @TinyJit
    def step(x, y):
        with Tensor.train():
            opt.zero_grad()
            loss = net(x).sparse_categorical_crossentropy(y).backward()
            opt.step()
            return loss.realize()

    losses = [step(images, labels).item() for _ in range(steps)]
    state = {name: t.numpy() for name, t in get_state_dict(net).items()}
    state.update({f"adam.m{i}": t.numpy() for i, t in enumerate(opt.m)})
    state.update({f"adam.v{i}": t.numpy() for i, t in enumerate(opt.v)})
    return np.array(losses), state, list(step.jit_cache)


@pytest.fixture(scope="module")
def plain():
    fresh()
    return _train(STEPS)


@pytest.fixture(scope="module")
def noopt():
    from tinygrad.helpers import Context
    fresh()
    with Context(NOOPT=1):
        return _train(STEPS)


def _in_mode(mode):
    if _capi.library_path() is None:
        pytest.fail("liblazy-mlir-c.so is not built (ninja -C build lazy-mlir-c)")
    fresh()
    _hook.enable(mode)
    try:
        return _train(STEPS)
    finally:
        _hook.disable()


def _drift(got, want):
    """Normwise drift: max|got - want| / max|want|."""
    scale = max(float(np.abs(want).max(initial=0.0)), 1e-30)
    return float(np.abs(got.astype(np.float64) - want).max(initial=0.0)) / scale


NOISE = 1e-2  # NOOPT=1's own drift past which a tensor is rounding noise
FLOOR = 1e-4


def test_plain_step_trains_and_replays(plain):
    losses, _, jit_cache = plain
    assert losses[-1] < losses[0]
    assert len(jit_cache) > 0  # the later steps were replays


def test_schedule_mode_is_bit_identical(plain):
    losses, state, jit_cache = _in_mode("schedule")
    want_losses, want_state, want_cache = plain
    np.testing.assert_array_equal(losses, want_losses)
    assert state.keys() == want_state.keys()
    for name in state:
        np.testing.assert_array_equal(state[name], want_state[name], err_msg=name)
    assert len(jit_cache) == len(want_cache)


def test_compile_mode_drifts_within_noopts_yardstick(plain, noopt):
    losses, state, jit_cache = _in_mode("compile")
    want_losses, want_state, _ = plain
    assert _drift(losses, want_losses) <= max(5 * _drift(noopt[0], want_losses), FLOOR)
    checked = 0
    for name, want in want_state.items():
        got, yardstick = state[name], _drift(noopt[1][name], want)
        if yardstick > NOISE:
            assert np.isfinite(got).all(), name
            assert np.abs(got).max() <= 10 * np.abs(want).max() + 1e-30, name
            continue
        checked += 1
        assert _drift(got, want) <= max(5 * yardstick, FLOOR), \
            f"{name}: drift {_drift(got, want):.2e}, NOOPT=1's {yardstick:.2e}"
    assert checked >= len(want_state) * 3 // 4  # noise is the exception


def test_compile_mode_replays_lazy_mlir_kernels_in_one_call(plain):
    """A replay runs lazy-mlir's kernels, the consecutive ones as one native
    call (LazyGraphRunner), and keeps computing what plain computes."""
    from lazy_mlir.tinygrad._compile import LazyMlirRunner
    from lazy_mlir.tinygrad._jit import LazyGraphRunner
    _, _, jit_cache = _in_mode("compile")
    graphs = [ji.prg for ji in jit_cache if isinstance(ji.prg, LazyGraphRunner)]
    assert graphs, [type(ji.prg).__name__ for ji in jit_cache]
    kernels = sum(len(g.jit_cache) for g in graphs)
    loose = sum(isinstance(ji.prg, LazyMlirRunner) for ji in jit_cache)
    assert kernels > 10 * max(loose, 1)  # nearly every kernel is in a graph
    assert all(isinstance(ji.prg, LazyMlirRunner) for g in graphs for ji in g.jit_cache)
    # every batched kernel ran once per replay (steps 3 to 5)
    assert all(ji.prg.kernel.calls >= STEPS - 2 for g in graphs for ji in g.jit_cache)
