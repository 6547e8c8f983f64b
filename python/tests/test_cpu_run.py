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


def check_against_interpreter(name, device, unsupported):
    """Exports corpus graph `name`, runs `lazy-run --check --device=DEVICE`
    on it and asserts that every output matches the interpreter; skips with
    lazy-run's reason when the graph is refused for a reason in
    `unsupported`, or when an output is an unrealized const."""
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
        proc = subprocess.run([LAZY_RUN, f.name, "--check", f"--device={device}"],
                              capture_output=True, text=True, timeout=300)
    finally:
        os.unlink(f.name)
    out = proc.stdout + proc.stderr
    assert "PLEASE submit a bug report" not in out, f"lazy-run crashed on {name}:\n{out}"
    reason = next((r for r in unsupported if r in out), None)
    if proc.returncode != 0 and reason and "MISMATCH" not in out:
        pytest.skip(f"not supported on --device={device}: {reason}")
    assert proc.returncode == 0, f"{name}: result on --device={device} differs:\n{out}"
    assert "all outputs match" in out


@pytest.mark.parametrize("name", NAMES)
def test_cpu_matches_interpreter(name):
    check_against_interpreter(name, "cpu", UNSUPPORTED)
