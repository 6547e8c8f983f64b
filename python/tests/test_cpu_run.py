"""Every corpus graph with checked numerics, scheduled and compiled for the
CPU (`lazy-run --check`): the compiled program's outputs equal the
reference interpreter's on the same seeded inputs.

Graphs the CPU path cannot run would be skipped with lazy-run's own
reason (a clear error, never a crash): CUSTOM ops other than
custom_random (Python callables, which the reference interpreter cannot
run either); the corpus has none. A const output is read through
.contiguous(), as tinygrad's .numpy() reads it."""

import os
import re
import tempfile

import numpy as np
import pytest

from conftest import fresh
from corpus import registry
from lazy_mlir import LAZY_RUN_REFUSALS, run_tool, tool_path
from lazy_mlir.tinygrad import export
from lazy_mlir.tinygrad._check import random_values

GRAPHS = registry.load()
NAMES = sorted(n for n in GRAPHS if GRAPHS[n].numerics is True)
# fusion=aggressive does not take Variables yet (a located refusal).
AGGRESSIVE_NAMES = [n for n in NAMES if not GRAPHS[n].symbolic]
SYMBOLIC_NAMES = [n for n in NAMES if GRAPHS[n].symbolic]
LAZY_RUN = tool_path("lazy-run")
UNSUPPORTED = (LAZY_RUN_REFUSALS["cpu"], LAZY_RUN_REFUSALS["interpreter"])


def exported(name, fusion="tinygrad"):
    """Corpus graph `name`, built afresh and exported (with the `fusion`
    policy the module's flags give lazy-run)."""
    fresh()
    built = registry.build(name)
    flags = dict(built["flags"])
    if fusion != "tinygrad":
        flags["fusion"] = fusion
    return export(built["outputs"], flags=flags, seen=built.get("seen"))


def lazy_run(text, *args, timeout=300):
    """lazy-run on the graph `text` (through a temporary file) with `args`."""
    return run_tool("lazy-run", text, *args, timeout=timeout)


# A graph argument: `%name: tensor<AxBx...xTYPE[, encoding]>`.
_ARGUMENT = re.compile(r"%[\w.]+: tensor<((?:\d+x)*)(\w+)[^>]*>")


def filled_inputs(text, fill, folder):
    """`--input=I=PATH` options giving each argument of the graph in `text`
    values drawn as the corpus entry's `fill` says (the ranges its numerics
    assume: an optimizer's counters and state from lazy-run's seeded normal
    values make NaNs whose pattern a last-bit difference changes); none
    for an entry without one, or with a bfloat16 argument."""
    if not fill:
        return []
    start = text.index("func.func @")
    signature = text[start:text.index("{", text.index(") ->", start))]
    args = []
    rng = np.random.default_rng(0)
    for i, (dims, elt) in enumerate(_ARGUMENT.findall(signature)):
        if elt == "bf16":
            return []
        shape = tuple(int(d) for d in dims.split("x") if d)
        values = random_values(rng, elt, int(np.prod(shape, dtype=np.int64)), fill)
        path = os.path.join(folder, f"in{i}.npy")
        np.save(path, values.reshape(shape))
        args.append(f"--input={i}={path}")
    return args


def check_against_interpreter(name, device, unsupported, fusion="tinygrad"):
    """Exports corpus graph `name`, runs `lazy-run --check --device=DEVICE`
    on it (inputs drawn as the entry's fill says, where it has one) and
    asserts that every output matches the interpreter; skips with
    lazy-run's reason when the graph is refused for a reason in
    `unsupported`. With fusion="aggressive", lazy-run schedules with
    fusion=aggressive (the module's flags) and the interpreter evaluates the
    graph itself: the fused kernels must compute the unfused graph."""
    if not os.access(LAZY_RUN, os.X_OK):
        pytest.skip(f"{LAZY_RUN} is not built")
    text = exported(name, fusion)
    if fusion != "tinygrad":
        assert f'fusion = "{fusion}"' in text
    with tempfile.TemporaryDirectory() as folder:
        inputs = filled_inputs(text, GRAPHS[name].fill, folder)
        proc = lazy_run(text, "--check", f"--device={device}", *inputs)
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


@pytest.mark.parametrize("name", AGGRESSIVE_NAMES)
def test_cpu_matches_interpreter_aggressive(name):
    check_against_interpreter(name, "cpu", UNSUPPORTED, fusion="aggressive")
