"""The scheduler's differential test: for every corpus graph, lazy-opt's
`lazy-schedule` gives tinygrad 0.9.2's schedule item by item (kinds,
outputs/inputs, kernel ASTs in canonical text, memory plan), or both
reject the graph."""

import subprocess

import pytest

from conftest import fresh
from corpus import registry
from lazy_mlir.tinygrad import _script
from lazy_mlir.tinygrad._compare import compare_built, differences

GRAPHS = registry.load()
NAMES = sorted(GRAPHS)


@pytest.mark.parametrize("name", NAMES)
def test_schedule_identical(name, lazy_opt):
    fresh()
    built = registry.build(name)
    diffs, _, _ = compare_built(
        _script.Built(built["outputs"], built.get("seen"), built["flags"], {}), lazy_opt)
    assert not diffs, f"{name}:\n" + "\n".join(diffs)


def test_differences_reports_each_kind_of_mismatch():
    want = ["item 0 KERNEL outs=1 ins=1", "  n0 = LOAD 1 float [(4):(1)]",
            "  STORE 0 float [(4):(1)] n0", "  bufs: b0 b1"]
    assert differences(want, want) == []
    got = list(want)
    got[1] = "  n0 = LOAD 1 half [(4):(1)]"
    assert differences(want, got) == [
        "item 0: tinygrad `n0 = LOAD 1 float [(4):(1)]` vs lazy `n0 = LOAD 1 half [(4):(1)]`"]
    assert differences(want, want + ["item 1 EXT EMPTY outs=1 ins=0"])[0] == \
        "1 items in tinygrad, 2 in lazy-opt"
    assert differences(["RAISES ValueError: x"], ["ERROR y"]) == []
    assert differences(["RAISES ValueError: x"], want)[0].startswith("tinygrad fails")
    assert differences(want, ["ERROR boom"]) == ["lazy-opt fails: boom"]


def test_compare_cli(tmp_path, lazy_opt):
    script = tmp_path / "g.py"
    script.write_text(
        "from tinygrad import Tensor\n"
        "def build():\n"
        "    a = Tensor.empty(4, 4).realize()\n"
        "    return [(a.sum(1) + 2).exp2()]\n")
    import os
    import sys
    env = dict(os.environ, CLANG="1")
    proc = subprocess.run([sys.executable, "-m", "lazy_mlir.tinygrad", "compare", str(script), "--time"],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "1 identical, 0 different"
    assert "time: tinygrad" in proc.stdout
