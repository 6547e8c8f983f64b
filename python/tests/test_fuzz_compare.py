"""scripts/fuzz_compare.py on a few fixed seeds: the programs are a
function of the seed, every one is compared with tinygrad and run through
lazy-run --check, and each outcome is counted."""

import os
import re
import subprocess
import sys

import pytest

from conftest import LAZY_OPT
from lazy_mlir import REPO_ROOT, tool_path

SCRIPT = os.path.join(REPO_ROOT, "scripts", "fuzz_compare.py")
LAZY_RUN = tool_path("lazy-run")
sys.path.insert(0, os.path.dirname(SCRIPT))
import fuzz_compare  # noqa: E402


def test_programs_are_a_function_of_the_seed():
    assert fuzz_compare.generate(7) == fuzz_compare.generate(7)
    assert fuzz_compare.generate(7) != fuzz_compare.generate(8)
    # A build() script with flags that `compare` can replay.
    source = fuzz_compare.generate(11)
    assert "def build():" in source and "FLAGS = {" in source


def test_fixed_seeds_are_identical_and_run(tmp_path):
    if not (os.access(LAZY_OPT, os.X_OK) and os.access(LAZY_RUN, os.X_OK)):
        pytest.skip("lazy-opt and lazy-run are not built")
    proc = subprocess.run([sys.executable, SCRIPT, "--runs", "12", "--seed", "40",
                           "--lazy-opt", LAZY_OPT, "--check-run", LAZY_RUN,
                           "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = proc.stdout.strip().splitlines()[-1]
    counts = {name: int(n) for n, name in re.findall(r"(\d+) ([a-z ]+?)(?:,|$)", summary)}
    assert counts["different"] == 0 and counts["identical"] >= 8, summary
    assert counts.get("run ok", 0) + counts.get("run rejected", 0) == counts["identical"], summary
    assert not os.listdir(tmp_path)


def test_large_shapes_reach_the_cpu_kernels_long_rows():
    source = fuzz_compare.generate(7, fuzz_compare.LARGE_SHAPES)
    shapes = re.findall(r"Tensor\.empty\(([\d, ]+)", source)
    assert shapes and all(tuple(map(int, s.split(","))) in fuzz_compare.LARGE_SHAPES for s in shapes)
    assert max(max(s) for s in fuzz_compare.LARGE_SHAPES) >= 128


def test_run_inputs_follow_the_programs_fill(tmp_path):
    import numpy as np
    text = ("module {\n  func.func @graph(%arg0: tensor<4x3xf32> {lazy.buffer = 0 : i64}, "
            "%arg1: tensor<5xsi32>, %arg2: tensor<f16>) -> tensor<4x3xf32> {\n"
            "    return %arg0 : tensor<4x3xf32>\n  }\n}\n")
    options = fuzz_compare.input_files(text, str(tmp_path))
    assert [o.split("=")[1] for o in options] == ["0", "1", "2"]
    x, i, h = (np.load(o.split("=", 2)[2]) for o in options)
    assert x.shape == (4, 3) and x.dtype == np.float32 and x.min() >= 0.5 and x.max() <= 2.0
    assert i.shape == (5,) and i.dtype == np.int32 and np.all(i != 0)
    assert h.shape == () and h.dtype == np.float16
