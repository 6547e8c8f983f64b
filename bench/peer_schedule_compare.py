#!/usr/bin/env python3
"""Every schedule tinygrad 0.9.2's own test files make, compared with lazy-opt's.

    python3 bench/peer_schedule_compare.py TINYGRAD_TESTS [--files test_assign.py ...]

TINYGRAD_TESTS is a folder holding tinygrad's `test/`, `extra/` and
`examples/` at tag v0.9.2, e.g. made with

    git -C TINYGRAD_CHECKOUT archive v0.9.2 test extra examples | tar -x -C /tmp/tg092

(never commit tinygrad's files). test_symbolic_ops.py imports
examples/gpt2.py, which needs tiktoken (PyPI). Each file runs under pytest
with CLANG=1 and a plugin that wraps tinygrad's create_schedule_with_vars:
every graph it is asked to schedule is first exported (the text form,
Variables and all), then scheduled by tinygrad as usual (the test goes on
with tinygrad's schedule), and by `lazy-opt --lazy-schedule`; the two
canonical schedule texts (kernel ASTs and var_vals; not the memory plan,
which create_schedule_with_vars does not make) must be identical, or both
must refuse the graph. Prints, per file, how many schedules were identical,
different, refused by the exporter or refused by lazy-opt alone, and the
first differences; exits 1 when any schedule is not identical.
Not part of the test suite: it needs tinygrad's tests and takes minutes.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

DEFAULT_FILES = ("test_assign.py", "test_symbolic_ops.py", "test_symbolic_jit.py",
                 "test_tensor_variable.py", "test_symbolic_shapetracker.py")

PLUGIN = r'''
import json, os, sys
import tinygrad.engine.schedule as _schedule
import tinygrad.tensor as _tensor
from lazy_mlir import tool_path
from lazy_mlir.tinygrad import _canonical, _compare, _export

_original = _schedule.create_schedule_with_vars
_results = {"identical": 0, "different": 0, "export_refused": 0, "lazy_refused": 0, "both_raise": 0}
_examples = []


def _lines(lines):
    return [l for l in lines if not l.startswith("moved:")]


def create_schedule_with_vars(outs, seen=None):
    try:
        text = _export.export_graph(list(outs), seen=list(seen) if seen else None).text
    except Exception as error:  # noqa: BLE001 - the exporter's refusal is a result
        text, reason = None, f"{type(error).__name__}: {error}"
    try:
        schedule, var_vals = _original(outs, seen)
    except Exception as error:  # noqa: BLE001
        if text is not None:
            got, _ = _compare.lazy_schedule(text, tool_path("lazy-opt"), with_plan=False)
            if got and got[0].startswith("ERROR"):
                _results["both_raise"] += 1
            else:
                _results["different"] += 1
                _examples.append(["tinygrad raises", str(error)[:200]])
        raise
    if text is None:
        _results["export_refused"] += 1
        _examples.append(["export refused", reason[:300]])
        return schedule, var_vals
    want = _canonical.canonical_items(schedule)
    if (values := _canonical.var_vals_line(var_vals)) is not None:
        want.append(values)
    got, _ = _compare.lazy_schedule(text, tool_path("lazy-opt"), with_plan=False)
    got = _lines(got)
    if got and got[0].startswith("ERROR"):
        _results["lazy_refused"] += 1
        _examples.append(["lazy-opt refused", got[0][:300]])
    elif got == want:
        _results["identical"] += 1
    else:
        _results["different"] += 1
        first = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
        _examples.append(["different", f"line {first}: tinygrad {want[first:first + 1]} lazy-opt {got[first:first + 1]}"])
    return schedule, var_vals


_schedule.create_schedule_with_vars = create_schedule_with_vars
_tensor.create_schedule_with_vars = create_schedule_with_vars


def pytest_sessionfinish(session, exitstatus):
    with open(os.environ["PEER_COMPARE_OUT"], "w") as f:
        json.dump({"counts": _results, "examples": _examples[:20]}, f)
'''


def run_file(folder, test_file, timeout):
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "peer_compare_plugin.py"), "w") as f:
            f.write(PLUGIN)
        out = os.path.join(tmp, "out.json")
        env = dict(os.environ, CLANG="1", PEER_COMPARE_OUT=out,
                   PYTHONPATH=os.pathsep.join([tmp, folder, os.environ.get("PYTHONPATH", "")]))
        for key in ("LAZY_MLIR", "LAZY_MLIR_FALLBACK", "LAZY_MLIR_DEBUG"):
            env.pop(key, None)
        cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "peer_compare_plugin", "-p", "no:cacheprovider",
               os.path.join(folder, "test", test_file)]
        cmd.remove("-x")
        proc = subprocess.run(cmd, env=env, cwd=folder, capture_output=True, text=True, timeout=timeout)
        if not os.path.exists(out):
            return None, proc.stdout[-2000:] + proc.stderr[-2000:]
        with open(out) as f:
            return json.load(f), proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--files", nargs="*", default=list(DEFAULT_FILES))
    parser.add_argument("--timeout", type=int, default=1800)
    args = parser.parse_args()
    bad = False
    for test_file in args.files:
        result, summary = run_file(args.folder, test_file, args.timeout)
        if result is None:
            print(f"{test_file}: did not run\n{summary}")
            bad = True
            continue
        c = result["counts"]
        print(f"{test_file}: {c['identical']} identical, {c['different']} different, "
              f"{c['export_refused']} refused by the exporter, {c['lazy_refused']} refused by lazy-opt only, "
              f"{c['both_raise']} raised by both   (pytest: {summary})")
        for kind, detail in result["examples"]:
            print(f"  {kind}: {detail}")
        bad |= bool(c["different"] or c["export_refused"] or c["lazy_refused"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
