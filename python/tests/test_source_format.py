"""The C and C++ sources are formatted as .clang-format says (LLVM style):
scripts/format.sh formats them, this test fails on a file it would change."""

import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_sources_are_clang_formatted():
    if shutil.which("clang-format-22") is None:
        pytest.fail("clang-format-22 is missing: run scripts/setup.sh")
    proc = subprocess.run(["bash", "scripts/format.sh", "--check"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, "run scripts/format.sh:\n" + proc.stderr[-4000:]
