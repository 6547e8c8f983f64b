"""Every corpus graph with checked numerics, scheduled and compiled for the
CPU (`lazy-run --check`): the compiled program's outputs equal the
reference interpreter's on the same seeded inputs.

Graphs the CPU path cannot run are skipped with lazy-run's own reason (a
clear error, never a crash): CUSTOM ops (host code, which the reference
interpreter cannot run either). An output that is an unrealized const is
never computed by the schedule (as in tinygrad), so those graphs are
skipped too."""

import os
import re
import subprocess
import tempfile

import pytest

from conftest import fresh
from corpus import registry
from lazy_mlir import tool_path
from lazy_mlir.tinygrad import export

GRAPHS = registry.load()
NAMES = sorted(n for n in GRAPHS if GRAPHS[n].numerics is True)
LAZY_RUN = tool_path("lazy-run")
UNSUPPORTED = ("which has no CPU lowering",
               "which the reference interpreter cannot run")


def _const_outputs(text):
    """Whether some result is a const (or a view of one)."""
    consts, views = set(), {}
    for line in text.splitlines():
        m = re.match(r"\s*(%\w+) = lazy\.const ", line)
        if m:
            consts.add(m.group(1))
        m = re.match(r"\s*(%\w+) = lazy\.view (%\w+) ", line)
        if m:
            views[m.group(1)] = m.group(2)
    ret = [l for l in text.splitlines() if l.strip().startswith("return ")]
    names = re.findall(r"%\w+", ret[-1].split(":")[0]) if ret else []
    return any(n in consts or views.get(n) in consts for n in names)


@pytest.mark.parametrize("name", NAMES)
def test_cpu_matches_interpreter(name):
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
        proc = subprocess.run([LAZY_RUN, f.name, "--check"], capture_output=True,
                              text=True, timeout=300)
    finally:
        os.unlink(f.name)
    out = proc.stdout + proc.stderr
    assert "PLEASE submit a bug report" not in out, f"lazy-run crashed on {name}:\n{out}"
    reason = next((r for r in UNSUPPORTED if r in out), None)
    if proc.returncode != 0 and reason and "MISMATCH" not in out:
        pytest.skip(f"not supported on the CPU path yet: {reason}")
    assert proc.returncode == 0, f"{name}: compiled CPU result differs:\n{out}"
    assert "all outputs match" in out
