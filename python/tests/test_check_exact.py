"""lazy-run --check's second opinion: a float result off the reference
interpreter's still matches where it lies between the interpreter's and
the graph evaluated in f64 (interpretInFloat64).
An in-order f32 sum that has stopped growing is the case: 1e8 followed by
2^20 ones sums to 1e8 in order (each 1 is under half an ulp), while the
compiled kernel's partial sums keep most of the ones."""

import os
import subprocess

import numpy as np
import pytest

from lazy_mlir import tool_path

LAZY_RUN = tool_path("lazy-run")
LAZY_INTERP = tool_path("lazy-interp")
N = 1 << 20

SUM = """module attributes {lazy.default_device = "CLANG"} {
  func.func @graph(%x: tensor<%Nxf32>) -> tensor<1xf32> {
    %s = lazy.reduce_sum %x axes [0] : tensor<%Nxf32> -> tensor<1xf32>
    return %s : tensor<1xf32>
  }
}
""".replace("%N", str(N))

# The same sum through a bitcast round trip: no f64 twin (the values would
# depend on float bits), so the difference stays a MISMATCH.
BITCAST = """module attributes {lazy.default_device = "CLANG"} {
  func.func @graph(%x: tensor<%Nxf32>) -> tensor<1xf32> {
    %i = lazy.bitcast %x : tensor<%Nxf32> -> tensor<%Nxsi32>
    %f = lazy.bitcast %i : tensor<%Nxsi32> -> tensor<%Nxf32>
    %s = lazy.reduce_sum %f axes [0] : tensor<%Nxf32> -> tensor<1xf32>
    return %s : tensor<1xf32>
  }
}
""".replace("%N", str(N))


@pytest.fixture
def stalled_sum(tmp_path):
    if not (os.access(LAZY_RUN, os.X_OK) and os.access(LAZY_INTERP, os.X_OK)):
        pytest.skip("lazy-run and lazy-interp are not built")
    x = np.ones(N, np.float32)
    x[0] = 1e8
    path = tmp_path / "x.npy"
    np.save(path, x)
    return f"--input=0={path}"


def run(tmp_path, text, *args):
    graph = tmp_path / "graph.mlir"
    graph.write_text(text)
    return subprocess.run([LAZY_RUN, str(graph), *args], capture_output=True, text=True,
                          timeout=300)


def test_a_sum_closer_to_exact_than_the_interpreter_matches(tmp_path, stalled_sum):
    # The interpreter's in-order sum stalls at 1e8 (1% off the exact value).
    graph = tmp_path / "graph.mlir"
    graph.write_text(SUM)
    out = tmp_path / "ref"
    subprocess.run([LAZY_INTERP, str(graph), stalled_sum, f"--output-dir={out}"], check=True,
                   capture_output=True)
    assert np.load(out / "out0.npy")[0] == np.float32(1e8)
    proc = run(tmp_path, SUM, stalled_sum, "--check", f"--output-dir={tmp_path}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ("out0: match" in proc.stdout
            and "(float); off the interpreter's, between it and the graph evaluated in "
                "f64: 1 of 1 elements" in proc.stdout), proc.stdout
    got = float(np.load(tmp_path / "out0.npy")[0])
    exact = 1e8 + N - 1
    assert abs(got - exact) < abs(1e8 - exact)


def test_without_an_f64_twin_the_difference_stays_a_mismatch(tmp_path, stalled_sum):
    proc = run(tmp_path, BITCAST, stalled_sum, "--check")
    assert proc.returncode == 1
    assert "out0: MISMATCH" in proc.stdout and "between it and" not in proc.stdout, proc.stdout
    assert "note: no f64 evaluation of this graph" in proc.stderr, proc.stderr


# A sum moved into a padded reduce whose input is not zero in the padding
# (exp2(0) = 1): lazy-opt warns, and the compiled result is wrong by the
# padding's 2 x 262144 ones, past the exact value. With inputs that stall
# the interpreter's sum below the exact value, the wrong result is as far
# from it as the interpreter's on the other side: still a MISMATCH.
PADDED = """module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = true, fuse_arange = false, use_copy_kernel = false}} {
  func.func @graph(%x: tensor<4x262144xf32>) -> tensor<1xf32> {
    %e = lazy.exp2 %x : tensor<4x262144xf32>
    %s = lazy.reduce_sum %e axes [1] : tensor<4x262144xf32> -> tensor<4x1xf32>
    %p = lazy.view %s as <[(6):(1) offset -1 mask [(1, 5)]]> : tensor<4x1xf32> -> tensor<6xf32>
    %t = lazy.reduce_sum %p axes [0] : tensor<6xf32> -> tensor<1xf32>
    return %t : tensor<1xf32>
  }
}
"""


def test_a_wrong_result_past_the_exact_value_stays_a_mismatch(tmp_path):
    if not os.access(LAZY_RUN, os.X_OK):
        pytest.skip("lazy-run is not built")
    x = np.zeros((4, 262144), np.float32)
    x[:, 0] = np.log2(1e8)
    path = tmp_path / "x.npy"
    np.save(path, x)
    proc = run(tmp_path, PADDED, f"--input=0={path}", "--check")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "out0: MISMATCH" in proc.stdout and "between it and" not in proc.stdout, proc.stdout


# An f16 sum of 2^17 ones: the interpreter's in-order sum stalls at 2048
# (each 1 is half an ulp there, rounded to even), the exact 131072 is past
# half's largest value, and the compiled kernel's partial sums overflow to
# +inf as the exact value does: a match, not an infinite difference.
HALF_SUM = """module attributes {lazy.default_device = "CLANG"} {
  func.func @graph(%x: tensor<131072xf16>) -> tensor<1xf16> {
    %s = lazy.reduce_sum %x axes [0] : tensor<131072xf16> -> tensor<1xf16>
    return %s : tensor<1xf16>
  }
}
"""


def test_an_overflow_the_exact_value_shares_matches(tmp_path):
    if not (os.access(LAZY_RUN, os.X_OK) and os.access(LAZY_INTERP, os.X_OK)):
        pytest.skip("lazy-run and lazy-interp are not built")
    path = tmp_path / "x.npy"
    np.save(path, np.ones(131072, np.float16))
    graph = tmp_path / "graph.mlir"
    graph.write_text(HALF_SUM)
    ref = tmp_path / "ref"
    subprocess.run([LAZY_INTERP, str(graph), f"--input=0={path}", f"--output-dir={ref}"],
                   check=True, capture_output=True)
    assert np.load(ref / "out0.npy")[0] == np.float16(2048)
    proc = run(tmp_path, HALF_SUM, f"--input=0={path}", "--check", f"--output-dir={tmp_path}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert np.isposinf(np.load(tmp_path / "out0.npy")[0])
    assert ("out0: match, max abs error INF (half); off the interpreter's, between it and "
            "the graph evaluated in f64: 1 of 1 elements" in proc.stdout), proc.stdout


# A sum that cancels: 32768 values and their negations, interleaved by a
# fixed permutation. Its exact value is 0; the interpreter's in-order sum
# and the compiled kernel's lane sums each end a few rounding errors of the
# partial sums away from it, on either side. The compiled result is not
# between the interpreter's and 0, but it is within the spread that
# rounding noise gives the interpreter's own (interpretWithRoundingNoise):
# a match, counted as such.
CANCELLING_SUM = """module attributes {lazy.default_device = "CLANG"} {
  func.func @graph(%x: tensor<65536xf32>) -> tensor<1xf32> {
    %s = lazy.reduce_sum %x axes [0] : tensor<65536xf32> -> tensor<1xf32>
    return %s : tensor<1xf32>
  }
}
"""


def cancelling_values():
    n = 32768
    i = np.arange(n, dtype=np.uint64)
    # Knuth's multiplicative hash: values in [-100, 100), no RNG stream.
    v = ((i * np.uint64(2654435761) + np.uint64(3)) % np.uint64(2**32)).astype(np.float64)
    v = (v / 2**32 - 0.5) * 200
    x = np.concatenate([v, -v]).astype(np.float32)
    perm = (np.arange(2 * n, dtype=np.uint64) * np.uint64(40503)) % np.uint64(2 * n)
    return x[perm]


def test_a_cancellation_within_the_interpreters_rounding_noise_matches(tmp_path):
    if not (os.access(LAZY_RUN, os.X_OK) and os.access(LAZY_INTERP, os.X_OK)):
        pytest.skip("lazy-run and lazy-interp are not built")
    path = tmp_path / "x.npy"
    np.save(path, cancelling_values())
    graph = tmp_path / "graph.mlir"
    graph.write_text(CANCELLING_SUM)
    ref = tmp_path / "ref"
    subprocess.run([LAZY_INTERP, str(graph), f"--input=0={path}", f"--output-dir={ref}"],
                   check=True, capture_output=True)
    want = float(np.load(ref / "out0.npy")[0])
    proc = run(tmp_path, CANCELLING_SUM, f"--input=0={path}", "--check",
               f"--output-dir={tmp_path}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = float(np.load(tmp_path / "out0.npy")[0])
    # Off the interpreter's by more than the tolerance (atol 1e-5 here),
    # and on the far side of the exact 0 or past it: not between them.
    assert abs(got - want) > 1e-4
    assert not (min(want, 0.0) <= got <= max(want, 0.0))
    assert ("out0: match" in proc.stdout
            and "within its rounding noise: 1 of 1 elements" in proc.stdout
            and "between it and" not in proc.stdout), proc.stdout
