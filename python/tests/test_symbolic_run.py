"""Graphs with Variables (tinygrad's symbolic shapes) compiled and run:
kernels take the Variables as `index` arguments and launches pass their
values, so one schedule and one set of kernels serve every value.

- every symbolic corpus graph's outputs on the CPU and on the GPU emulator
  equal tinygrad's (test_cpu_run and test_gpu_emulated compare the same
  runs with the interpreter);
- the LLaMA-style decode step, scheduled at start_pos = 4, runs at every
  start_pos of its range (`lazy-run --var`), each result the
  interpreter's at that value;
- the decode step exported at start_pos 1, 4 and 7 lowers to the same
  kernel functions; only the values the host passes differ."""

import os
import re
import stat
import subprocess

import pytest

from conftest import fresh
from corpus import registry
from lazy_mlir import tool_path
from lazy_mlir.tinygrad._check import check_outputs
from test_cpu_run import exported, lazy_run

GRAPHS = registry.load()
SYMBOLIC = sorted(n for n in GRAPHS if GRAPHS[n].symbolic and GRAPHS[n].numerics is True)
LAZY_RUN = tool_path("lazy-run")


def _runner(device, folder):
    """A lazy-run command for check_outputs: lazy-run itself on the CPU,
    else a script that adds --device."""
    if device == "cpu":
        return LAZY_RUN
    path = os.path.join(folder, f"lazy-run-{device}")
    with open(path, "w") as f:
        f.write(f'#!/bin/sh\nexec "{LAZY_RUN}" --device={device} "$@"\n')
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


@pytest.mark.parametrize("device", ["cpu", "emulate"])
@pytest.mark.parametrize("name", SYMBOLIC)
def test_symbolic_outputs_match_tinygrad(name, device, tmp_path):
    if not os.access(LAZY_RUN, os.X_OK):
        pytest.skip(f"{LAZY_RUN} is not built")
    fresh()
    built = registry.build(name)
    results = check_outputs(built["outputs"], built["flags"], built.get("seen"), built["fill"],
                            seed=0, interp=_runner(device, str(tmp_path)), work=str(tmp_path / "w"))
    bad = [f"{label}: {detail}" for label, ok, detail in results if not ok]
    assert results and not bad, f"{name} on {device} differs from tinygrad:\n" + "\n".join(bad)


@pytest.mark.parametrize("device", ["cpu", "emulate"])
def test_decode_at_every_start_pos(device):
    """The decode attention graph bound at start_pos = 4, run at every
    value of start_pos[1:7] with --var: each matches the interpreter at
    that value (so the kernels do read the values they are given)."""
    fresh()
    text = exported("symbolic/llama_decode/attention_start_pos_4")
    assert "start_pos[1:7=4]" in text
    for pos in range(1, 8):
        proc = lazy_run(text, "--check", f"--device={device}", f"--var=start_pos={pos}")
        out = proc.stdout + proc.stderr
        assert proc.returncode == 0 and "all outputs match" in out, f"start_pos={pos}:\n{out}"


def _lowered(name):
    """The CPU lowering of corpus graph `name`: its kernel functions (by
    text) and the index constants its host function passes them."""
    fresh()
    proc = subprocess.run([tool_path("lazy-opt"), "--lazy-schedule", "--convert-lazy-to-loops", "-"],
                          input=exported(name), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    kernels = re.findall(r"^  func\.func @\w+_k\d+\(.*?^  }$", proc.stdout, re.M | re.S)
    return kernels, proc.stdout


def test_one_set_of_kernels_for_every_start_pos():
    lowered = {pos: _lowered(f"symbolic/llama_decode/attention_start_pos_{pos}") for pos in (1, 4, 7)}
    kernels = {pos: k for pos, (k, _) in lowered.items()}
    assert kernels[1] and kernels[1] == kernels[4] == kernels[7]
    with_variables = [k for k in kernels[4] if 'lazy.variables = ["start_pos[1:7]"]' in k]
    assert with_variables, "no kernel takes start_pos"
    # The programs differ only in the index constant the host passes for
    # start_pos.
    # (Index constants are named after their values: names normalized.)
    lines = {pos: re.sub(r"%c\d+(_\d+)?\b", "%c", text).splitlines()
             for pos, (_, text) in lowered.items()}
    for pos in (1, 7):
        assert len(lines[pos]) == len(lines[4])
        differ = [(a, b) for a, b in zip(lines[4], lines[pos]) if a != b]
        assert differ
        for a, b in differ:
            assert re.fullmatch(r"\s*%c = arith\.constant 4 : index", a), a
            assert b == a.replace("constant 4 :", f"constant {pos} :")
