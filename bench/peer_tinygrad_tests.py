#!/usr/bin/env python3
"""The peer test: tinygrad 0.9.2's own test files, run plain and on lazy-mlir.

    python3 bench/peer_tinygrad_tests.py TINYGRAD_TESTS [--modes plain,schedule] [--files ...]

TINYGRAD_TESTS is a folder holding tinygrad's `test/` (and `extra/`) at tag
v0.9.2, e.g. made with

    git -C TINYGRAD_CHECKOUT archive v0.9.2 test extra | tar -x -C /tmp/tg092

(never commit tinygrad's files). test_ops.py needs torch==2.4.1, test_jit.py
hypothesis (both from PyPI). Each file
runs under pytest with CLANG=1, once per mode: `plain` (tinygrad alone),
`schedule` (LAZY_MLIR=schedule: lazy-mlir's scheduler through the start-up
hook) and `compile` (LAZY_MLIR=compile: lazy-mlir's CPU kernels too). The script prints, per file, passed/failed/skipped per mode and
every test whose outcome differs from plain tinygrad; it exits 1 when any
does. Not part of the test suite: it needs torch and tinygrad's tests, and
takes minutes.
"""

import argparse
import collections
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

FILES = ("test_ops.py", "test_nn.py", "test_schedule.py", "test_assign.py", "test_arange.py",
         "test_jit.py")
MODES = {"plain": None, "schedule": "schedule", "compile": "compile"}


def outcomes(junit_path):
    """{test id: outcome} from a pytest junit XML file."""
    results = {}
    root = ET.parse(junit_path).getroot()
    for case in root.iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed"
            elif child.tag == "skipped":
                outcome = "skipped"
        results[name] = outcome
    return results


def run_file(folder, test_file, mode, timeout):
    env = dict(os.environ, CLANG="1", PYTHONPATH=folder)
    for key in ("LAZY_MLIR", "LAZY_MLIR_FALLBACK", "LAZY_MLIR_DEBUG"):
        env.pop(key, None)
    if MODES[mode]:
        env["LAZY_MLIR"] = MODES[mode]
    with tempfile.TemporaryDirectory() as tmp:
        junit = os.path.join(tmp, "junit.xml")
        start = time.time()
        try:
            r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                f"--junitxml={junit}", os.path.join("test", test_file)],
                               cwd=folder, env=env, capture_output=True, text=True, timeout=timeout)
            tail = r.stdout.strip().splitlines()[-1:] if r.stdout else []
        except subprocess.TimeoutExpired:
            return None, time.time() - start, ["timed out"]
        seconds = time.time() - start
        if not os.path.exists(junit):
            return None, seconds, (r.stdout + r.stderr).strip().splitlines()[-5:]
        return outcomes(junit), seconds, tail


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", help="folder holding tinygrad 0.9.2's test/ and extra/")
    ap.add_argument("--modes", default="plain,schedule,compile")
    ap.add_argument("--files", nargs="*", default=list(FILES))
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per file and mode")
    args = ap.parse_args()
    modes = args.modes.split(",")
    for mode in modes:
        if mode not in MODES:
            ap.error(f"unknown mode {mode!r} (known: {', '.join(MODES)})")
    if "plain" not in modes:
        modes.insert(0, "plain")
    folder = os.path.abspath(args.folder)
    if not os.path.isdir(os.path.join(folder, "test")):
        ap.error(f"{folder} has no test/ folder")

    differing = 0
    print(f"{'file':<20} " + " ".join(f"{m + ' pass/fail/skip':>26}" for m in modes))
    for test_file in args.files:
        results, cells, notes = {}, [], []
        for mode in modes:
            res, seconds, tail = run_file(folder, test_file, mode, args.timeout)
            results[mode] = res
            if res is None:
                cells.append(f"{'(no result)':>26}")
                notes.append(f"  {mode}: {' | '.join(tail)}")
                continue
            count = collections.Counter(res.values())
            cells.append(f"{count['passed']:>8}/{count['failed']}/{count['skipped']} {seconds:7.0f} s")
        print(f"{test_file:<20} " + " ".join(cells), flush=True)
        for note in notes:
            print(note)
        plain = results.get("plain") or {}
        for mode in modes[1:]:
            res = results.get(mode)
            if res is None:
                continue
            for test in sorted(set(plain) | set(res)):
                a, b = plain.get(test, "absent"), res.get(test, "absent")
                if a != b:
                    differing += 1
                    print(f"  differs under {mode}: {test}: plain {a}, {mode} {b}")
    print(f"{differing} tests differ from plain tinygrad")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
