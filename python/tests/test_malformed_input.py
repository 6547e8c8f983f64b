"""Malformed input never crashes lazy-opt.

Mutants of the repository's own graphs and schedules (a number changed, a
line dropped or moved, an operand or an op name exchanged, a tensor's rank
changed) go through the scheduling and lowering pipelines. Each must be
processed, or rejected with an `error:` diagnostic and exit status 1; a
signal, a stack dump, another exit status or a hang fails the test. The
mutants come from a fixed seed, so every run tries the same ones.

This is the test suite's fast, fixed sample. scripts/fuzz_schedule.py is
the long-running fuzzer for lazy graphs: its mutants keep types consistent,
so more of them reach the passes, and scripts/sanitize.sh runs it on a
sanitizer build. The edits here are plain text, and they also reach what
that fuzzer never feeds the tools: hand-written kernels and schedules for
ordering, memory planning, printing and lowering.
"""

import importlib.util
import os
import random
import re
import subprocess
from pathlib import Path

import pytest


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _fuzzer_classify():
    """scripts/fuzz_schedule.py's verdict on one run (a crash, or a run
    that fails without a diagnostic), so that both fuzzers judge alike."""
    spec = importlib.util.spec_from_file_location(
        "fuzz_schedule", os.path.join(ROOT, "scripts", "fuzz_schedule.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.classify


classify = _fuzzer_classify()

# Graphs in LazyBuffer form (what the scheduler reads).
GRAPH_SEEDS = [
    "examples/sum_add.mlir",
    "test/Transforms/fold-views.mlir",
    "test/Transforms/mark-realize.mlir",
    "test/Transforms/group.mlir",
    "test/Transforms/form-kernels.mlir",
    "test/Transforms/schedule.mlir",
    "test/Transforms/Inputs/form-kernels-decision-errors.mlir",
]
# Kernels and schedules (what ordering, planning and lowering read).
SCHEDULE_SEEDS = [
    "test/Transforms/toposort.mlir",
    "test/Transforms/plan-memory.mlir",
    "test/Conversion/LazyToLoops/convert-lazy-to-loops.mlir",
    "test/Conversion/LazyToGPU/convert-lazy-to-gpu.mlir",
    "test/Dialect/Lazy/schedule-ops.mlir",
]

PIPELINES = {
    "schedule": (GRAPH_SEEDS, ["--lazy-schedule"]),
    "schedule-flags": (GRAPH_SEEDS, ["--lazy-schedule=fuse-conv-bw=true fuse-arange=true multi-output=false"]),
    "passes": (GRAPH_SEEDS, ["--lazy-fold-views", "--lazy-mark-realize", "--lazy-group", "--lazy-form-kernels",
                             "--lazy-toposort", "--lazy-plan-memory"]),
    "to-cpu": (GRAPH_SEEDS, ["--lazy-to-cpu"]),
    "order-and-plan": (SCHEDULE_SEEDS, ["--lazy-toposort", "--lazy-plan-memory"]),
    "to-loops": (SCHEDULE_SEEDS, ["--convert-lazy-to-loops"]),
    "to-gpu": (SCHEDULE_SEEDS, ["--convert-lazy-to-gpu"]),
    "print-schedule": (SCHEDULE_SEEDS, ["--lazy-print-schedule"]),
}
MUTANTS_PER_PIPELINE = 40

OP_NAMES = ["lazy.add", "lazy.mul", "lazy.max", "lazy.cmplt", "lazy.cmpne", "lazy.where", "lazy.neg",
            "lazy.exp2", "lazy.log2", "lazy.sqrt", "lazy.recip", "lazy.cast", "lazy.reduce_sum",
            "lazy.reduce_max", "lazy.view", "lazy.const", "lazy.contiguous", "lazy.copy", "lazy.assign",
            "lazy.empty", "lazy.buffer_view", "lazy.permute", "lazy.reshape", "lazy.expand", "lazy.pad",
            "lazy.shrink", "lazy.load", "lazy.store", "lazy.launch", "lazy.alloc", "lazy.suballoc"]
NUMBER = re.compile(r"(?<![%\w#.])-?\d+(?![\w.])")
TENSOR = re.compile(r"tensor<((?:\d+x)*)(\w+)")


def mutate(text, rng):
    """One or two edits on lines that hold IR (not on comments)."""
    lines = text.split("\n")
    code = [i for i, line in enumerate(lines)
            if re.search(r"lazy\.|return|func\.func", line) and not line.lstrip().startswith("//")]
    for _ in range(rng.randint(1, 2)):
        i = rng.choice(code)
        line = lines[i]
        kind = rng.randrange(6)
        if kind == 0:  # a number: a dimension, stride, offset, mask bound, axis, count
            numbers = list(NUMBER.finditer(line))
            if numbers:
                m = rng.choice(numbers)
                n = int(m.group())
                new = rng.choice([0, 1, 2, 3, -1, n + 1, n - 1, 2 * n, n // 2, 1 << 40])
                line = line[:m.start()] + str(new) + line[m.end():]
        elif kind == 1:  # a line dropped
            line = ""
        elif kind == 2:  # an operand replaced by another value defined above
            defined = re.findall(r"%[\w.#]+", "\n".join(lines[:i]))
            uses = list(re.finditer(r"%[\w.#]+", line))
            if defined and len(uses) > 1:
                m = rng.choice(uses[1:])
                line = line[:m.start()] + rng.choice(defined) + line[m.end():]
        elif kind == 3:  # another op's name
            ops = list(re.finditer(r"lazy\.\w+", line))
            if ops:
                m = rng.choice(ops)
                line = line[:m.start()] + rng.choice(OP_NAMES) + line[m.end():]
        elif kind == 4:  # two lines swapped
            j = rng.choice(code)
            lines[i], lines[j] = lines[j], lines[i]
            continue
        else:  # a tensor type's rank changed
            tensors = list(TENSOR.finditer(line))
            if tensors:
                m = rng.choice(tensors)
                dims = m.group(1)
                new = rng.choice([dims + "1x", dims[dims.find("x") + 1:], "2x" + dims])
                line = line[:m.start()] + "tensor<" + new + m.group(2) + line[m.end():]
        lines[i] = line
    return "\n".join(lines)


def mutants(name):
    """The pipeline's mutants: each of one input of a seed file (the files
    of lit tests hold several, split at `// -----`)."""
    seeds, _ = PIPELINES[name]
    inputs = [chunk for path in seeds
              for chunk in re.split(r"^// -----$", Path(ROOT, path).read_text(), flags=re.M)
              if "lazy." in chunk]
    rng = random.Random(f"lazy-mlir malformed input {name}")
    return [mutate(rng.choice(inputs), rng) for _ in range(MUTANTS_PER_PIPELINE)]


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_mutants_are_processed_or_rejected(name, tmp_path, lazy_opt):
    _, args = PIPELINES[name]
    processed = 0
    for k, text in enumerate(mutants(name)):
        path = tmp_path / f"mutant{k}.mlir"
        path.write_text(text)
        try:
            proc = subprocess.run([lazy_opt, *args, str(path), "-o", os.devnull],
                                  capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"lazy-opt {' '.join(args)} hung on mutant {k}:\n{text}")
        failed, what = classify(proc.returncode, proc.stderr)
        assert not failed, (f"lazy-opt {' '.join(args)} crashed or failed without a diagnostic "
                            f"({what}) on mutant {k}:\n{proc.stderr[-2000:]}\n--- input ---\n{text}")
        processed += proc.returncode == 0
    # Some mutants must get past parsing and verification, or the passes
    # themselves were not exercised.
    assert processed > 0, f"every mutant for {name} was rejected"


@pytest.mark.parametrize("warning, name", [
    ("the result depends on the order the kernel runs in", "order-dependent assign"),
    ("sees the new contents", "order-dependent assign"),
    ("renumbers the reduced axes", "renumbered fuse-conv-bw merge"),
    ("padded view that the kernel moves", "padding moved into an unsafe reduce input"),
])
def test_fuzzers_count_warned_mismatches_apart(warning, name):
    # Every difference lazy-opt warns of (docs/design.md) is counted apart by
    # both fuzzers, not as a failure; a MISMATCH without one fails.
    output = f"g.mlir:3:8: warning: ... {warning} ...\nout0: MISMATCH, max abs error 1\n"
    assert classify(1, output) == (False, f"MISMATCH, warned: {name}")
    assert classify(1, "out0: MISMATCH, max abs error 1\n") == (True, "MISMATCH")
