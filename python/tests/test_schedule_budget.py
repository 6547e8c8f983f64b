"""Scheduling cost as instructions, not time: a guard against regressions
that a timed test could not hold (the machines' speed drifts 2x).

lazy-opt schedules a fixed 48-layer transformer training step (the graph
bench/schedule_bench.py times) under callgrind, counting only inside the
pass manager, once with lazy-opt's default verifier after every pass and
once without. Instruction counts are deterministic for a build. Two
bounds:
- the passes alone stay within a budget (1.25x what they took when it was
  set: 115 M);
- the verifier adds at most 45% to them. It added 66% (191 M against
  115 M) while verifying each `lazy.buffer` argument scanned all the
  earlier arguments (quadratic in them: 83 ms against 23 ms of passes on a
  held-out 48-layer step); it adds 36% (156 M) now.
A third bound holds the 12-layer step with the default verifier (what
lazy-opt runs without flags) within 1.25x of its 39.5 M instructions when
it was set.
Skipped where valgrind is not installed (scripts/setup.sh installs it).
"""

import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import fresh
from lazy_mlir import REPO_ROOT

PASSES_BUDGET = int(115e6 * 1.25)
VERIFIER_SHARE = 0.45
VERIFIED_12_BUDGET = int(39.5e6 * 1.25)


def _instructions(lazy_opt, path, verify):
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
         "--toggle-collect=mlir::PassManager::run(*", lazy_opt, "--lazy-schedule",
         f"-verify-each={int(verify)}", "--mlir-disable-threading", path, "-o", os.devnull],
        capture_output=True, text=True, timeout=600)
    found = re.search(r"Collected : (\d+)", proc.stderr)
    assert proc.returncode == 0 and found, proc.stderr[-2000:]
    return int(found.group(1))


def _training_step(tmp_path, layers):
    """bench/schedule_bench.py's transformer training step, exported."""
    sys.path.insert(0, os.path.join(REPO_ROOT, "bench"))
    try:
        import schedule_bench
    finally:
        sys.path.pop(0)
    from lazy_mlir.tinygrad import export
    fresh()
    path = tmp_path / f"step{layers}.mlir"
    path.write_text(export(schedule_bench.transformer_step(layers)))
    return str(path)


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_scheduling_a_48_layer_step_stays_within_its_instruction_budget(lazy_opt, tmp_path):
    path = _training_step(tmp_path, 48)
    passes = _instructions(lazy_opt, path, verify=False)
    verified = _instructions(lazy_opt, path, verify=True)
    assert passes <= PASSES_BUDGET, f"lazy-schedule took {passes / 1e6:.0f} M instructions"
    share = verified / passes - 1
    assert share <= VERIFIER_SHARE, \
        f"the verifier adds {share:.0%} to lazy-schedule's {passes / 1e6:.0f} M instructions"


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_scheduling_a_12_layer_step_with_the_verifier_stays_within_budget(lazy_opt, tmp_path):
    verified = _instructions(lazy_opt, _training_step(tmp_path, 12), verify=True)
    assert verified <= VERIFIED_12_BUDGET, \
        f"lazy-schedule with its verifier took {verified / 1e6:.1f} M instructions"
