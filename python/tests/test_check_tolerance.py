"""The bridge check judges a float output at the tolerance of the narrowest
float type it was computed in, as lazy-run --check does."""

import numpy as np

from lazy_mlir.tinygrad._check import compare, rounding_element_type


def test_f64_output_of_f32_arithmetic_rounds_as_f32():
    from tinygrad import Tensor, dtypes
    x = Tensor.empty(4, 8)
    out = x.softmax(1).cast(dtypes.float64)
    assert rounding_element_type(out.lazydata) == "f32"
    # A round trip through f32 rounds as f32 too.
    y = Tensor.empty(4, dtype=dtypes.float64)
    assert rounding_element_type((y + 1).cast(dtypes.float32).cast(dtypes.float64).lazydata) == "f32"


def test_widened_inputs_and_constants_keep_the_wide_type():
    from tinygrad import Tensor, dtypes
    x = Tensor.empty(4, 8, dtype=dtypes.float16)
    out = (x.cast(dtypes.float64) * Tensor(0.5, dtype=dtypes.float16).cast(dtypes.float64)).sum(1)
    assert rounding_element_type(out.lazydata) == "f64"
    assert rounding_element_type((Tensor.empty(3, dtype=dtypes.int32) + 1).lazydata) is None
    # A bf16 input widened exactly computes nothing; bf16 arithmetic, the
    # narrowest, does.
    h = Tensor.empty(3, dtype=dtypes.float16)
    b = Tensor.empty(3, dtype=dtypes.bfloat16)
    assert rounding_element_type((b.cast(dtypes.float16) + h).lazydata) == "f16"
    assert rounding_element_type(((b + 1).cast(dtypes.float16) + h).lazydata) == "bf16"
    # Views and copies of a half input round nothing: a float sum of them
    # is judged as float.
    mm = (h.reshape(3, 1).expand(3, 4).contiguous().cast(dtypes.float32) * 2).sum(1)
    assert rounding_element_type(mm.lazydata) == "f32"


def test_compare_uses_the_rounding_type_for_floats_only():
    want = np.array([100.0, 1.0])
    got = np.array([100.000001, 1.0])
    assert not compare("f64", want, got)[0]
    assert compare("f64", want, got, "f32")[0]
    assert not compare("f64", want, np.array([100.1, 1.0]), "f32")[0]
    ints = np.array([3], np.int32)
    assert not compare("si32", ints, ints + 1, "f32")[0]


def test_integer_and_bool_values_end_the_cone():
    from tinygrad import Tensor, dtypes
    x = Tensor.empty(4, 8)
    # An index found in half precision, as a float: not judged as half.
    assert rounding_element_type(x.half().argmax().float().lazydata) == "f32"
    # A half comparison choosing between float values.
    chosen = (x.half() < 0).where(x.exp(), x).sum(1)
    assert rounding_element_type(chosen.lazydata) == "f32"
