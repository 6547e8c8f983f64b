"""Casts from float64 to the 16-bit floats round once, to nearest even, in
the reference interpreter, in the compiled CPU program and in the emulated
GPU kernels.

Rounding twice (double to float, then to half or bfloat16) can land
exactly on a tie the double was not on, and the tie then goes to the even
neighbour: 1 + 2^-11 + 2^-30 became 1.0 in float16 instead of 1 + 2^-10.
A cast from float64 to bfloat16 also needs a runtime function
(__truncdfbf2) that the host's runtime library does not have: the compiled
program failed to link. The inputs are near ties, exact ties, the largest
finite values and subnormals, of both signs."""

import math
import os
import struct
import subprocess
from fractions import Fraction

import numpy as np
import pytest

from lazy_mlir import tool_path

LAZY_RUN = tool_path("lazy-run")
LAZY_INTERP = tool_path("lazy-interp")

# (significand bits with the leading one, smallest exponent of a unit in
# the last place, largest finite value) of each 16-bit float.
FORMATS = {
    "f16": (11, -24, Fraction(65504)),
    "bf16": (8, -133, Fraction(2) ** 127 * (2 - Fraction(1, 2 ** 7))),
}


def nearest_even(x, fmt):
    """x (a float) rounded once to `fmt`, as a float (exact)."""
    if math.isnan(x) or math.isinf(x) or x == 0:
        return x
    bits, min_exponent, largest = FORMATS[fmt]
    exact = Fraction(x)
    _, e = math.frexp(x)
    ulp = Fraction(2) ** max(e - bits, min_exponent)
    rounded = round(exact / ulp) * ulp  # round() of a Fraction: ties to even
    if abs(rounded) > largest:
        return math.copysign(math.inf, x)
    return math.copysign(float(rounded), x) if rounded == 0 else float(rounded)


def bits_of(value, fmt):
    """The 16-bit pattern of `value`, which `fmt` represents exactly (None
    for NaN: any NaN will do)."""
    if math.isnan(value):
        return None
    if fmt == "f16":
        return int(np.array(value, dtype=np.float16).view(np.uint16))
    return struct.unpack("<I", struct.pack("<f", value))[0] >> 16


def hard_inputs(fmt):
    bits = FORMATS[fmt][0]
    tie = 1 + 2.0 ** -bits  # halfway between 1 and the next value
    odd_tie = 1 + 3 * 2.0 ** -bits  # halfway between an odd and an even value
    tiny = 2.0 ** -30
    smallest = 2.0 ** FORMATS[fmt][1]
    largest = float(FORMATS[fmt][2])
    ulp_at_largest = 2.0 ** (math.frexp(largest)[1] - bits)
    values = [
        tie + tiny, tie - tiny, tie, odd_tie - tiny, odd_tie + tiny, odd_tie,
        smallest / 2 + smallest * 2.0 ** -30, smallest / 2, smallest * 0.75,
        largest + ulp_at_largest / 2 - ulp_at_largest * 2.0 ** -30,
        largest + ulp_at_largest / 2, 1e300, 1e-300,
        0.0, math.inf, 1.0, 3.14159,
    ]
    return values + [-v for v in values] + [math.nan]


GRAPH = """func.func @graph(%a: tensor<{n}xf64>) -> tensor<{n}x{fmt}> {{
  %0 = lazy.cast %a : tensor<{n}xf64> -> tensor<{n}x{fmt}>
  return %0 : tensor<{n}x{fmt}>
}}
"""


def run_graph(tmp_path, tool, graph, inputs):
    """Runs `graph` (text) on `inputs` (numpy arrays, one per argument) with
    lazy-interp (tool "interp") or lazy-run --device=TOOL; returns the bit
    patterns of its 16-bit output."""
    path = LAZY_INTERP if tool == "interp" else LAZY_RUN
    if not os.access(path, os.X_OK):
        pytest.skip(f"{path} is not built")
    (tmp_path / "graph.mlir").write_text(graph)
    args = [path, str(tmp_path / "graph.mlir"), f"--output-dir={tmp_path / 'out'}"]
    for i, array in enumerate(inputs):
        np.save(tmp_path / f"in{i}.npy", array)
        args.append(f"--input={i}={tmp_path / f'in{i}.npy'}")
    if tool != "interp":
        args.append(f"--device={tool}")
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [int(v) for v in np.load(tmp_path / "out" / "out0.npy").view(np.uint16)]


@pytest.mark.parametrize("tool", ["interp", "cpu", "emulate"])
@pytest.mark.parametrize("fmt", ["f16", "bf16"])
def test_cast_from_f64_rounds_once(tmp_path, tool, fmt):
    values = hard_inputs(fmt)
    got = run_graph(tmp_path, tool, GRAPH.format(n=len(values), fmt=fmt),
                    [np.array(values, dtype=np.float64)])
    assert len(got) == len(values)
    for value, bits in zip(values, got):
        want = bits_of(nearest_even(value, fmt), fmt)
        if want is None:  # NaN stays NaN
            exponent_all_ones = 0x7C00 if fmt == "f16" else 0x7F80
            mantissa = 0x03FF if fmt == "f16" else 0x007F
            assert bits & exponent_all_ones == exponent_all_ones and bits & mantissa, value
            continue
        assert bits == want, f"{value!r} -> {bits:#06x}, want {want:#06x}"


PRODUCT = """func.func @graph(%a: tensor<{n}xf32>, %b: tensor<{n}xf32>) -> tensor<{n}xbf16> {{
  %x = lazy.cast %a : tensor<{n}xf32> -> tensor<{n}xbf16>
  %y = lazy.cast %b : tensor<{n}xf32> -> tensor<{n}xbf16>
  %p = lazy.mul %x, %y : tensor<{n}xbf16>
  return %p : tensor<{n}xbf16>
}}
"""


@pytest.mark.parametrize("tool", ["interp", "cpu", "emulate"])
def test_bf16_keeps_subnormals(tmp_path, tool):
    """bfloat16 products and casts with subnormal results keep them, on
    every machine: LLVM would round with the host's conversion instruction
    where it has one, which flushes them to zero."""
    # Factors exact in bfloat16; products 2^-130, 2^-133 (the smallest
    # subnormal), 1.5 * 2^-128 and, rounded, 0.75 * 2^-133 -> 2^-133.
    a = [2.0 ** -70, 2.0 ** -70, 1.5 * 2.0 ** -64, 0.75 * 2.0 ** -66]
    b = [2.0 ** -60, 2.0 ** -63, 2.0 ** -64, 2.0 ** -67]
    got = run_graph(tmp_path, tool, PRODUCT.format(n=len(a)),
                    [np.array(a, dtype=np.float32), np.array(b, dtype=np.float32)])
    want = [bits_of(nearest_even(x * y, "bf16"), "bf16") for x, y in zip(a, b)]
    assert want == [0x0008, 0x0001, 0x0030, 0x0001]
    assert got == want


def test_reference_rounding_is_numpy_for_f16():
    """The test's own rounding agrees with numpy's float64 -> float16 (which
    rounds once) on every input. numpy has no bfloat16: the bf16 reference
    is the same function with bf16's parameters, and the hard-coded bits in
    test_bf16_keeps_subnormals check it there."""
    for value in hard_inputs("f16"):
        with np.errstate(over="ignore"):
            want = np.array(value, dtype=np.float64).astype(np.float16)
        got = np.float16(nearest_even(value, "f16"))
        assert (math.isnan(value) and np.isnan(want)) or got.view(np.uint16) == want.view(np.uint16), value
