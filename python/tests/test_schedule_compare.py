"""The scheduler's differential test: for every corpus graph, lazy-opt's
`lazy-schedule` gives tinygrad 0.9.2's schedule item by item (kinds,
outputs/inputs, kernel ASTs in canonical text, memory plan), or both
reject the graph."""

import re
import subprocess

import pytest

from conftest import fresh
from corpus import registry
from lazy_mlir.tinygrad import _script
from lazy_mlir.tinygrad._compare import compare_built, differences, export_built, pass_seconds

GRAPHS = registry.load()
NAMES = sorted(GRAPHS)


@pytest.mark.parametrize("name", NAMES)
def test_schedule_identical(name, lazy_opt):
    fresh()
    built = registry.build(name)
    diffs, _, _ = compare_built(
        _script.Built(built["outputs"], built.get("seen"), built["flags"], {}), lazy_opt)
    assert not diffs, f"{name}:\n" + "\n".join(diffs)


def _group_marks(printed):
    """Per graph function of lazy-group's output: {group: [(realize, op
    position)]}, op positions counted over the function's top-level ops."""
    funcs, ops, position = [], None, 0
    for line in printed.splitlines():
        if line.startswith("  func.func "):
            ops, position = {}, 0
            funcs.append(ops)
        elif line == "  }":
            ops = None
        elif ops is not None:
            group = re.search(r"lazy\.group = (\d+)", line)
            if group:
                realize = int(re.search(r"lazy\.realize = (\d+)", line).group(1))
                ops.setdefault(int(group.group(1)), []).append((realize, position))
            position += 1
    return [[[p for _, p in sorted(members)] for _, members in sorted(groups.items())]
            for groups in funcs]


def _item_nodes(formed):
    """Per graph function of lazy-form-kernels{record-nodes}' output: each
    item's output positions (`lazy.nodes` of its launch or ext), in item
    (group) order."""
    funcs, items = [], None
    for line in formed.splitlines():
        if line.startswith("  func.func "):
            items = []
            funcs.append(items)
        elif items is not None and re.search(r"= lazy\.(launch|ext)\b", line):
            nodes = re.search(r"lazy\.nodes = array<i64(?:: ([\d, ]*))?>", line)
            items.append([int(n) for n in (nodes.group(1) or "").split(",") if n.strip()])
    return funcs


@pytest.mark.parametrize("name", NAMES)
def test_printed_groups_are_the_kernels_formed(name, lazy_opt):
    """lazy-group prints the plan that lazy-form-kernels materializes (both
    call the schedule analysis; the marks are only a printout): each group,
    its members in realize order, is one schedule item writing exactly those
    ops, and the two passes fail on the same graphs."""
    fresh()
    built = registry.build(name)
    text, _ = export_built(_script.Built(built["outputs"], built.get("seen"), built["flags"], {}))

    def run(*args):
        r = subprocess.run([lazy_opt, *args, "-"], input=text, capture_output=True, text=True)
        return r.returncode, r.stdout

    (grouped_rc, printed), (formed_rc, formed) = \
        run("--lazy-group"), run("--lazy-form-kernels=record-nodes=true")
    if grouped_rc != 0:
        # The walk's errors come first in both (lazy-group prints groups
        # even where no kernel can be formed).
        assert formed_rc != 0
        return
    if formed_rc != 0:
        return  # a kernel cannot be built (as in tinygrad); groups printed
    marks, items = _group_marks(printed), _item_nodes(formed)
    assert len(marks) == len(items) > 0
    assert marks == items


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
    assert differences(want, ["ERROR boom"]) == ["lazy-opt fails: boom"]


def test_differences_matches_errors_by_counterpart():
    """Where tinygrad raises, lazy-opt's error must be the counterpart of
    tinygrad's message; any other error, or none, is a difference."""
    cycle = ["RAISES RuntimeError: cycle detected in graph, prescheduled 2 but only scheduled 0"]
    assert differences(cycle, ["ERROR x.mlir:2:3: error: cycle detected in graph, "
                               "prescheduled 2 but only scheduled 0"]) == []
    wrong = differences(cycle, ["ERROR x.mlir:2:3: error: self operand of augmented assign "
                                "must be contiguous"])
    assert wrong and "not with 'cycle detected in graph'" in wrong[0]
    assert differences(cycle, ["item 0 KERNEL outs=1 ins=1"])[0].startswith(
        "tinygrad fails (RuntimeError: cycle detected")
    unknown = differences(["RAISES KeyError: 3"], ["ERROR x.mlir:1:1: error: boom"])
    assert unknown and "no known lazy-opt counterpart" in unknown[0]
    pad = ["RAISES AssertionError: self.shape=(1, 3, 2, 3), arg=((0, 0), (0, 3))"]
    assert differences(pad, ["ERROR e: error: 'lazy.reduce_sum' op cannot pad the reduce "
                             "inputs of one kernel to a common shape (tinygrad fails here too)"]) == []


TIMING = """\
===-------------------------------------------------------------------------===
                         ... Execution time report ...
===-------------------------------------------------------------------------===
  Total Execution Time: 0.0200 seconds

  ----Wall Time----  ----Name----
    0.0080 ( 40.0%)  Parser
    0.0001 (  0.5%)  'func.func' Pipeline
    0.0001 (  0.4%)    LazyFoldViews
    0.0021 ( 10.3%)  LazyMarkRealize
    0.0009 (  4.7%)    (A) lazy::ScheduleGraphAnalysis
    0.0010 (  5.0%)  LazyPrintSchedule
    0.0060 ( 30.0%)  Output
    0.0200 (100.0%)  Total
"""


def test_pass_seconds():
    # Shares of the total, nested passes included: (0.4 + 10.3) % of 20 ms.
    lazy = pass_seconds(TIMING, lambda name: name in ("LazyFoldViews", "LazyMarkRealize"))
    assert lazy == pytest.approx(0.00214)
    assert pass_seconds(TIMING, lambda name: name == "LazyPrintSchedule") == pytest.approx(0.001)
    assert pass_seconds(TIMING, lambda name: False) == 0.0
    assert pass_seconds("error: no report", lambda name: True) == 0.0


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
