"""The reference interpreter's rounding noise (interpretWithRoundingNoise,
`lazy-interp --rounding-noise=N`), which lazy-run --check weighs a
differing float with: an element within the tolerance plus twice the
spread of three noisy evaluations and the plain one matches. The noise
must be as large as rounding makes a result move, and no larger: ops that
round nothing keep their values, and a long sum's spread stays far below
one of its terms, so that a dropped or misread term is still a mismatch."""

import os
import subprocess

import numpy as np
import pytest

from lazy_mlir import tool_path

LAZY_INTERP = tool_path("lazy-interp")

SUM = """func.func @graph(%x: tensor<65536xf32>) -> tensor<1xf32> {
  %s = lazy.reduce_sum %x axes [0] : tensor<65536xf32> -> tensor<1xf32>
  return %s : tensor<1xf32>
}
"""

# tinygrad's max backward: the gradient goes to the elements equal to the
# row max, divided by their count. Max, neg, casts from bools and exact
# results (1 + -0, a count of 1) round nothing.
MAX_GRADIENT = """func.func @graph(%x: tensor<4x64xf32>, %g: tensor<4x1xf32>) -> tensor<4x64xf32> {
  %m = lazy.reduce_max %x axes [1] : tensor<4x64xf32> -> tensor<4x1xf32>
  %mb = lazy.view %m as <[(4, 64):(1, 0)]> : tensor<4x1xf32> -> tensor<4x64xf32>
  %ne = lazy.cmpne %x, %mb : tensor<4x64xf32> -> tensor<4x64xi1>
  %nef = lazy.cast %ne : tensor<4x64xi1> -> tensor<4x64xf32>
  %nn = lazy.neg %nef : tensor<4x64xf32>
  %one = lazy.const 1.0 : tensor<f32>
  %ones = lazy.view %one as <[(4, 64):(0, 0)]> : tensor<f32> -> tensor<4x64xf32>
  %is = lazy.add %ones, %nn : tensor<4x64xf32>
  %n = lazy.reduce_sum %is axes [1] : tensor<4x64xf32> -> tensor<4x1xf32>
  %nb = lazy.view %n as <[(4, 64):(1, 0)]> : tensor<4x1xf32> -> tensor<4x64xf32>
  %r = lazy.recip %nb : tensor<4x64xf32>
  %q = lazy.mul %is, %r : tensor<4x64xf32>
  %gb = lazy.view %g as <[(4, 64):(1, 0)]> : tensor<4x1xf32> -> tensor<4x64xf32>
  %out = lazy.mul %q, %gb : tensor<4x64xf32>
  return %out : tensor<4x64xf32>
}
"""

# x * y + z on small integers: exact, so no noise, while the same on
# values that round does spread.
MULACC = """func.func @graph(%x: tensor<256xf32>, %y: tensor<256xf32>, %z: tensor<256xf32>) -> tensor<256xf32> {
  %m = lazy.mulacc %x, %y, %z : tensor<256xf32>
  return %m : tensor<256xf32>
}
"""

BITCAST = """func.func @graph(%x: tensor<4xf32>) -> tensor<4xf32> {
  %i = lazy.bitcast %x : tensor<4xf32> -> tensor<4xsi32>
  %f = lazy.bitcast %i : tensor<4xsi32> -> tensor<4xf32>
  return %f : tensor<4xf32>
}
"""


def hashed(n, lo, hi, salt=3):
    """n values uniform-looking in [lo, hi), from a multiplicative hash
    (no RNG stream whose numbers a numpy release could change)."""
    i = np.arange(n, dtype=np.uint64)
    u = ((i * np.uint64(2654435761) + np.uint64(salt)) % np.uint64(2**32)).astype(np.float64)
    return (lo + (hi - lo) * u / 2**32).astype(np.float32)


def evaluate(tmp_path, text, inputs, noise):
    """out0 of `lazy-interp --rounding-noise=noise` on `text`."""
    graph = tmp_path / "graph.mlir"
    graph.write_text(text)
    args = []
    for i, x in enumerate(inputs):
        np.save(tmp_path / f"in{i}.npy", x)
        args.append(f"--input={i}={tmp_path / f'in{i}.npy'}")
    out = tmp_path / f"out{noise}"
    subprocess.run([LAZY_INTERP, str(graph), *args, f"--output-dir={out}",
                    f"--rounding-noise={noise}"], check=True, capture_output=True, timeout=120)
    return np.load(out / "out0.npy").astype(np.float64)


def spread(tmp_path, text, inputs):
    """The plain result and the range of it and three noisy ones."""
    runs = [evaluate(tmp_path, text, inputs, noise) for noise in range(4)]
    return runs[0], np.max(runs, axis=0) - np.min(runs, axis=0)


@pytest.fixture(autouse=True)
def built():
    if not os.access(LAZY_INTERP, os.X_OK):
        pytest.skip("lazy-interp is not built")


def test_ops_that_round_nothing_keep_their_values(tmp_path):
    x = hashed(256, -2, 2).reshape(4, 64)
    g = hashed(4, 0.5, 2, salt=7).reshape(4, 1)
    plain, width = spread(tmp_path, MAX_GRADIENT, [x, g])
    # The row's argmax gets g, the rest 0, in every noisy run.
    assert np.count_nonzero(plain) == 4
    assert not width.any()


def test_exact_results_keep_their_values(tmp_path):
    ints = [np.floor(hashed(256, -50, 50, salt=k)) for k in (1, 2, 3)]
    plain, width = spread(tmp_path, MULACC, ints)
    assert not width.any()
    fractions = [hashed(256, -2, 2, salt=k) for k in (1, 2, 3)]
    plain, width = spread(tmp_path, MULACC, fractions)
    assert width.any()


def test_a_long_sum_spreads_far_less_than_a_term(tmp_path):
    # 65536 terms of random sign in [-2, 2): dropping or misreading one
    # moves the sum by about 1; rounding moves it by a few thousandths.
    plain, width = spread(tmp_path, SUM, [hashed(65536, -2, 2)])
    assert 0 < width[0] < 0.02, width


def test_a_sum_of_one_sign_spreads_below_the_tolerance(tmp_path):
    # About sqrt(n) half-ulps of the sum (sqrt(65536) * 2^-24 = 1.5e-5 of
    # it), below f32's relative tolerance of 1e-4.
    plain, width = spread(tmp_path, SUM, [hashed(65536, 0.5, 2)])
    assert 0 < width[0] < 1e-4 * plain[0], (plain, width)


def test_a_cancellation_spreads_as_far_as_its_rounding(tmp_path):
    # 32768 values and their negations: exact sum 0. The in-order sum's
    # distance from 0 is rounding alone, and the noise covers it.
    v = hashed(32768, -100, 100)
    x = np.concatenate([v, -v])
    perm = (np.arange(65536, dtype=np.uint64) * np.uint64(40503)) % np.uint64(65536)
    plain, width = spread(tmp_path, SUM, [x[perm]])
    assert plain[0] != 0
    assert width[0] >= abs(plain[0]), (plain, width)


def test_graphs_of_float_bits_have_no_noise(tmp_path):
    graph = tmp_path / "graph.mlir"
    graph.write_text(BITCAST)
    proc = subprocess.run([LAZY_INTERP, str(graph), "--seed=1", "--rounding-noise=1"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "--rounding-noise: this graph has no evaluation with rounding noise" in proc.stderr


UNARY = """func.func @graph(%x: tensor<4096xf32>) -> tensor<4096xf32> {{
  %y = lazy.{op} %x : tensor<4096xf32>
  return %y : tensor<4096xf32>
}}
"""


@pytest.mark.parametrize("op,lo,hi", [("exp2", -20, 20), ("log2", 0.01, 100), ("sin", -3, 3),
                                      ("sqrt", 0.01, 100)])
def test_transcendentals_move_as_one_ulp_functions(tmp_path, op, lo, hi):
    """exp2, log2 and sin are within one ulp, not correctly rounded (libm's,
    the CPU's default exp2): one noisy evaluation moves about two thirds of
    their values, by one ulp. sqrt is correctly rounded: about a quarter."""
    x = hashed(4096, lo, hi)
    plain = evaluate(tmp_path, UNARY.format(op=op), [x], 0)
    noisy = evaluate(tmp_path, UNARY.format(op=op), [x], 1)
    moved = plain != noisy
    ulp = np.spacing(np.abs(plain.astype(np.float32))).astype(np.float64)
    assert (np.abs(noisy - plain)[moved] <= ulp[moved] * 1.0001).all()
    share = moved.mean()
    if op == "sqrt":
        assert 0.2 < share < 0.3, share
    else:
        assert 0.6 < share < 0.73, share
