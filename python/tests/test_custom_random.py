"""tinygrad's custom_random (Tensor.rand with THREEFRY off) on the CPU.

lazy-mlir runs it as tinygrad does: numpy's default_rng(seed), with the
k-th custom_random the schedule runs seeded Tensor._seed + k. Checked bit
for bit against numpy itself (every dtype, seeds of one and two 32-bit
words) and against tinygrad realizing the same graphs."""

import os
import re
import subprocess
import tempfile

import numpy as np
import pytest

from conftest import fresh
from lazy_mlir import tool_path
from lazy_mlir.tinygrad import export

LAZY_RUN = tool_path("lazy-run")
LAZY_OPT = tool_path("lazy-opt")


@pytest.fixture(params=["cpu", "emulate"])
def device(request):
    """The CPU path, and the GPU lowering on the GPU emulator (host buffer,
    runtime call, copy to the device)."""
    return request.param


def run(text, *extra):
    """lazy-run --check on `text`; returns the outputs as numpy arrays."""
    if not os.access(LAZY_RUN, os.X_OK):
        pytest.skip(f"{LAZY_RUN} is not built")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "graph.mlir")
        with open(path, "w") as f:
            f.write(text)
        proc = subprocess.run([LAZY_RUN, path, "--check", f"--output-dir={tmp}", *extra],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "all outputs match" in proc.stdout
        outs, i = [], 0
        while os.path.exists(os.path.join(tmp, f"out{i}.npy")):
            outs.append(np.load(os.path.join(tmp, f"out{i}.npy")))
            i += 1
        return outs


def numpy_custom_random(seed, n, dtype):
    rng = np.random.default_rng(seed)
    if dtype == np.float16:
        return (rng.integers(low=0, high=2047, size=n) / 2048).astype(np.half)
    return rng.random(size=n, dtype=np.float32).astype(dtype)


DTYPES = [("f32", np.float32), ("f16", np.float16), ("f64", np.float64),
          ("si32", np.int32), ("ui8", np.uint8), ("i1", np.bool_)]


@pytest.mark.parametrize("seed", [0, 1, 1337, 2**40 + 3])
@pytest.mark.parametrize("mlir_type,dtype", DTYPES)
def test_explicit_seed_is_numpys_generator(seed, mlir_type, dtype, device):
    n = 1031  # odd: the last 64-bit draw is half used
    text = (f"func.func @main() -> tensor<{n}x{mlir_type}> {{\n"
            f"  %r = lazy.custom \"custom_random\" {{seed = {seed} : i64}} tensor<{n}x{mlir_type}>\n"
            f"  return %r : tensor<{n}x{mlir_type}>\n}}\n")
    (out,) = run(text, f"--device={device}")
    want = numpy_custom_random(seed, n, dtype)
    assert out.dtype == want.dtype
    assert np.array_equal(out.view(np.uint8), want.view(np.uint8))


def test_counter_follows_schedule_order(device):
    # Three draws: the seeded one keeps its seed; the others take
    # lazy.rng_seed + 1, + 2 in the order the schedule runs them.
    text = """module attributes {lazy.rng_seed = 41 : i64} {
  func.func @main() -> (tensor<5xf32>, tensor<6xf16>, tensor<5xf32>) {
    %a = lazy.custom "custom_random" tensor<5xf32>
    %h = lazy.custom "custom_random" tensor<6xf16>
    %s = lazy.custom "custom_random" {seed = 7 : i64} tensor<5xf32>
    %c = lazy.add %a, %s : tensor<5xf32>
    return %a, %h, %c : tensor<5xf32>, tensor<6xf16>, tensor<5xf32>
  }
}
"""
    schedule = subprocess.run([LAZY_OPT, "--lazy-schedule"], input=text,
                              capture_output=True, text=True, check=True).stdout
    order = [line for line in schedule.splitlines() if 'lazy.ext "custom"' in line]
    assert len(order) == 3
    a, h, c = run(text, f"--device={device}")
    first = 42 if "5xf32" in order[0] else 43
    assert np.array_equal(a, numpy_custom_random(first, 5, np.float32))
    assert np.array_equal(h, numpy_custom_random(85 - first, 6, np.float16))
    assert np.array_equal(c, a + numpy_custom_random(7, 5, np.float32))


def graphs():
    from tinygrad import Tensor, dtypes

    def one():
        return [Tensor.rand(4, 6)]

    def two_and_arith():
        a, b = Tensor.rand(3, 5), Tensor.rand(5)
        return [a * 2 + b, b.exp()]

    def uniform_and_half():
        return [Tensor.uniform(8, 3, low=-2, high=3), Tensor.rand(7, dtype=dtypes.half)]

    def randint():
        return [Tensor.randint(16, low=3, high=11)]

    return {"one": one, "two_and_arith": two_and_arith,
            "uniform_and_half": uniform_and_half, "randint": randint}


@pytest.mark.parametrize("name", sorted(graphs()))
def test_matches_tinygrad(name, device):
    from tinygrad import Tensor
    fresh()
    Tensor.manual_seed(123)
    outs = graphs()[name]()
    text = export(outs)
    assert "lazy.rng_seed = 123 : i64" in text
    ours = run(text, f"--device={device}")
    # tinygrad realizes all outputs in one schedule, as lazy-run does: the
    # custom items draw seeds 124, 125, ... in that schedule's order.
    Tensor.realize(*outs)
    want = [o.numpy() for o in outs]
    assert len(ours) == len(want)
    for got, ref in zip(ours, want):
        assert got.dtype == ref.dtype and got.shape == ref.shape
        if name == "one":  # the draw itself: bit for bit
            assert np.array_equal(got.view(np.uint8), ref.view(np.uint8))
        elif np.issubdtype(ref.dtype, np.floating):  # then arithmetic: 1 ulp
            np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6)
        else:
            assert np.array_equal(got, ref)


def test_compiled_alone_the_counter_starts_at_the_module_seed():
    # Without lazy-run, the lowering numbers the draws itself, in schedule
    # order: lazy.rng_seed + 1, + 2.
    text = """module attributes {lazy.rng_seed = 10 : i64} {
  func.func @main() -> (tensor<4xf32>, tensor<4xf32>) {
    %a = lazy.custom "custom_random" tensor<4xf32>
    %b = lazy.custom "custom_random" tensor<4xf32>
    return %a, %b : tensor<4xf32>, tensor<4xf32>
  }
}
"""
    proc = subprocess.run([LAZY_OPT, "--lazy-schedule", "--lazy-to-cpu"], input=text,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    seeds = [int(m) for m in re.findall(r"llvm\.mlir\.constant\((\d+) : i64\)", proc.stdout)]
    assert 11 in seeds and 12 in seeds


def test_unused_draws_and_large_counters(device):
    # A draw nothing uses is not scheduled; it still gets a seed (after the
    # scheduled ones) so that the interpreter can evaluate it. A counter
    # near 2^62 is an ordinary counter.
    text = """module attributes {lazy.rng_seed = 4611686018427387903 : i64} {
  func.func @main() -> tensor<4xf32> {
    %dead = lazy.custom "custom_random" tensor<4xf32>
    %a = lazy.custom "custom_random" tensor<4xf32>
    return %a : tensor<4xf32>
  }
}
"""
    (a,) = run(text, f"--device={device}")
    assert np.array_equal(a, numpy_custom_random(2**62, 4, np.float32))
