"""docs/pipelines.md lists exactly the options `lazy-opt --help` gives
each pipeline."""

import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PIPELINES = ("lazy-schedule", "lazy-to-cpu", "lazy-to-nvvm", "lazy-to-rocdl")


def help_options(lazy_opt):
    """pipeline -> the option names --help lists under it."""
    text = subprocess.run([lazy_opt, "--help"], capture_output=True, text=True).stdout
    options, current = {}, None
    for line in text.splitlines():
        head = re.match(r"^      --([\w-]+)\s", line)
        if head:
            current = head.group(1) if head.group(1) in PIPELINES else None
            if current:
                options[current] = set()
            continue
        option = re.match(r"^        --([\w-]+)", line)
        if current and option:
            options[current].add(option.group(1))
    return options


def doc_options():
    """pipeline -> the option names docs/pipelines.md's tables list."""
    text = (ROOT / "docs" / "pipelines.md").read_text()
    options, current = {}, []
    for line in text.splitlines():
        heading = re.match(r"^## (.+)$", line)
        if heading:
            current = [p for p in PIPELINES if p in heading.group(1)]
            for p in current:
                options[p] = set()
            continue
        row = re.match(r"^\| `([\w-]+)` \|", line)
        if row:
            for p in current:
                options[p].add(row.group(1))
    return options


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_pipeline_options_are_documented(pipeline, lazy_opt):
    have = help_options(lazy_opt)
    docs = doc_options()
    assert pipeline in have and have[pipeline], f"--help lists no options for {pipeline}"
    assert docs.get(pipeline) == have[pipeline]
