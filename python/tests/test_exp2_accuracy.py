"""The CPU's f32 exp2 (lazy-expand-exp2): by default (--fast-exp2, in f32)
within one unit in the last place of 2^x; with --fast-exp2=false the
correctly rounded 2^x (a polynomial in double, rounded once). Both are exact where the result
is: NaN stays NaN, +-inf and values beyond the range give inf and 0,
integers give their power of two. Both code shapes are run: vectors (lanes,
which scale with ldexp, or with --fast-exp2 vscalefps, on AVX-512 hosts)
and scalars (exponent bits)."""

import os
import subprocess

import numpy as np
import pytest

from lazy_mlir import tool_path

LAZY_RUN = tool_path("lazy-run")

# An elementwise kernel (in lanes of 16: a planned kernel), a row kernel
# (lanes of 16: the second output divides by a row sum of ones, exactly
# the row length, so its exp2 runs in the row's lanes) and a transposed
# read (each lane on its own: scalar code).
GRAPH = """module attributes {{lazy.flags = {{fusion = "aggressive"}}}} {{
func.func @graph(%x: tensor<{rows}x64xf32>) -> (tensor<{rows}x64xf32>, tensor<{rows}x64xf32>, tensor<64x{rows}xf32>) {{
  %e = lazy.exp2 %x : tensor<{rows}x64xf32>
  %one = lazy.const 1.0 : tensor<f32>
  %ones = lazy.view %one as <[({rows}, 64):(0, 0)]> : tensor<f32> -> tensor<{rows}x64xf32>
  %n = lazy.reduce_sum %ones axes [1] : tensor<{rows}x64xf32> -> tensor<{rows}x1xf32>
  %nv = lazy.view %n as <[({rows}, 64):(1, 0)]> : tensor<{rows}x1xf32> -> tensor<{rows}x64xf32>
  %s = lazy.mul %x, %nv : tensor<{rows}x64xf32>
  %t = lazy.mul %s, %nv : tensor<{rows}x64xf32>
  %r = lazy.recip %nv : tensor<{rows}x64xf32>
  %u = lazy.mul %t, %r : tensor<{rows}x64xf32>
  %v = lazy.mul %u, %r : tensor<{rows}x64xf32>
  %w = lazy.exp2 %v : tensor<{rows}x64xf32>
  %xt = lazy.permute %x [1, 0] : tensor<{rows}x64xf32> -> tensor<64x{rows}xf32>
  %z = lazy.exp2 %xt : tensor<64x{rows}xf32>
  return %e, %w, %z : tensor<{rows}x64xf32>, tensor<{rows}x64xf32>, tensor<64x{rows}xf32>
}}
}}
"""


def inputs():
    rng = np.random.default_rng(0)
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 128.0, 127.99999, -126.0,
                        -140.5, -149.0, -149.5, -150.0, -151.0, -160.0, 200.0, -1e30,
                        1e30, 1.0, -1.0, 0.5, 1e-8, -1e-8], dtype=np.float32)
    parts = [special,
             np.arange(-150, 129, dtype=np.float32),
             rng.uniform(-160, 130, 1 << 16).astype(np.float32),
             rng.uniform(-2, 2, 1 << 16).astype(np.float32),
             rng.uniform(-150, -120, 1 << 14).astype(np.float32)]
    x = np.concatenate(parts)
    pad = (-len(x)) % 64
    return np.concatenate([x, np.zeros(pad, np.float32)]).reshape(-1, 64)


def ulps(got, x):
    """|got - 2^x| in units in the last place of the f32 nearest 2^x,
    exact as the double 2^x (numpy's exp2 of a double is within 1e-16)."""
    want = np.exp2(x.astype(np.float64))
    nearest = want.astype(np.float32)
    unit = np.spacing(np.abs(nearest)).astype(np.float64)
    unit = np.maximum(unit, np.float64(2.0 ** -149))
    return np.abs(got.astype(np.float64) - want) / unit


@pytest.mark.parametrize("fast", [False, True], ids=["rounded", "fast"])
def test_exp2_accuracy(tmp_path, fast):
    if not os.access(LAZY_RUN, os.X_OK):
        pytest.skip(f"{LAZY_RUN} is not built")
    x = inputs()
    (tmp_path / "graph.mlir").write_text(GRAPH.format(rows=x.shape[0]))
    np.save(tmp_path / "x.npy", x)
    proc = subprocess.run([LAZY_RUN, str(tmp_path / "graph.mlir"), f"--input=0={tmp_path / 'x.npy'}",
                           f"--output-dir={tmp_path / 'out'}", f"--fast-exp2={str(fast).lower()}"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in ("out0.npy", "out1.npy", "out2.npy"):
        got = np.load(tmp_path / "out" / name).ravel()
        flat = (x.T if name == "out2.npy" else x).ravel()
        nan = np.isnan(flat)
        assert np.isnan(got[nan]).all(), name
        assert not np.isnan(got[~nan]).any(), name
        # Finite results (inf ones are checked exactly below).
        finite = ~nan & np.isfinite(np.exp2(flat.astype(np.float64)).astype(np.float32))
        if not fast:
            rounded = np.exp2(flat[finite].astype(np.float64)).astype(np.float32)
            wrong = np.flatnonzero(got[finite] != rounded)
            assert len(wrong) == 0, (name, flat[finite][wrong[:5]], got[finite][wrong[:5]])
        err = ulps(got[finite], flat[finite])
        worst = int(np.argmax(err))
        assert err.max() <= 1.0, (name, flat[finite][worst], got[finite][worst], err.max())
        # Exact where the result is exact: powers of two, inf and 0.
        exact = np.isin(flat, np.arange(-149, 128, dtype=np.float32)) | np.isinf(flat) | \
            (flat <= -151) | (flat >= 128)
        want = np.exp2(flat[exact].astype(np.float64)).astype(np.float32)
        assert np.array_equal(got[exact], want), name
