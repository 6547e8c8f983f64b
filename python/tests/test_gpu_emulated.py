"""Every corpus graph with checked numerics, through the GPU lowering on
the GPU emulator (`lazy-run --device=emulate --check`): the
convert-lazy-to-gpu kernels run as CPU functions, one fiber per GPU thread,
meeting at every gpu.all_reduce, over fewer blocks than launched. Their
outputs equal the reference interpreter's on the same seeded inputs.

This checks the GPU lowering's decisions (grid-stride loops, block-wide
reductions and their widening, host views and launch arguments) on
machines without a GPU; vendor code generation is checked by
test_gpu_compile.py and, on a GPU, by lazy-run --device=cuda|hip."""

import os
import subprocess
import tempfile

import pytest

from conftest import fresh
from corpus import registry
from lazy_mlir import tool_path
from lazy_mlir.tinygrad import export
from test_cpu_run import _const_outputs

GRAPHS = registry.load()
NAMES = sorted(n for n in GRAPHS if GRAPHS[n].numerics is True)
LAZY_RUN = tool_path("lazy-run")
UNSUPPORTED = ("which has no GPU lowering",
               "which the reference interpreter cannot run")


@pytest.mark.parametrize("name", NAMES)
def test_emulated_gpu_matches_interpreter(name):
    if not os.access(LAZY_RUN, os.X_OK):
        pytest.skip(f"{LAZY_RUN} is not built")
    fresh()
    built = registry.build(name)
    text = export(built["outputs"], flags=built["flags"], seen=built.get("seen"))
    if _const_outputs(text):
        pytest.skip("an output is an unrealized const, which no kernel computes")
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
    try:
        proc = subprocess.run([LAZY_RUN, f.name, "--device=emulate", "--check"],
                              capture_output=True, text=True, timeout=300)
    finally:
        os.unlink(f.name)
    out = proc.stdout + proc.stderr
    assert "PLEASE submit a bug report" not in out, f"lazy-run crashed on {name}:\n{out}"
    reason = next((r for r in UNSUPPORTED if r in out), None)
    if proc.returncode != 0 and reason and "MISMATCH" not in out:
        pytest.skip(f"not supported on the GPU path: {reason}")
    assert proc.returncode == 0, f"{name}: emulated GPU result differs:\n{out}"
    assert "all outputs match" in out
