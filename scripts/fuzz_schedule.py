#!/usr/bin/env python3
"""Mutation fuzzing of lazy-opt: bad input must get a diagnostic, never a crash.

Takes lazy graphs (.mlir files, e.g. corpus graphs written by
`python3 -m lazy_mlir.tinygrad export`), mutates them in ways that mostly
keep them parseable and verifiable, so that the passes see them:

  * an operand replaced by an earlier value of the same type;
  * a number inside a view's ShapeTracker changed (strides, offsets,
    masks, shapes);
  * an elementwise op replaced by another of the same arity;
  * a constant changed;
  * an op removed, its uses given an earlier value of the same type;

then runs lazy-opt with the given pass options on each mutant (with
--fusion=aggressive, every mutant's lazy.flags ask for fusion=aggressive,
which lazy-schedule and lazy-run follow) or, with
--check-run, `lazy-run --check` (schedule, compile for the CPU, run, and
compare with the reference interpreter; --run-device=emulate compiles the
GPU kernels instead and runs them in lazy-run's emulator). A run is a failure when the tool
dies of a signal, exits with a code other than 0 or 1, exits 1 without an
`error:` diagnostic, prints a sanitizer report, an assertion failure or a
stack dump, reports an output that differs from the interpreter's
(MISMATCH; counted apart, not failed, when the scheduler warned that an
assign's result depends on its kernel's order), or runs past --timeout. Each failing mutant is written to
--out; the summary counts the outcomes by diagnostic. Exits 1 when any run
failed.

Run it on a sanitizer build (scripts/sanitize.sh) to catch memory errors
and failed assertions that a release build would let pass:

  python3 scripts/fuzz_schedule.py --lazy-opt build-sanitize/bin/lazy-opt \\
      --runs 2000 --pass=--lazy-schedule GRAPH.mlir ...
  python3 scripts/fuzz_schedule.py --check-run build/bin/lazy-run GRAPH.mlir ...
  python3 scripts/fuzz_schedule.py --check-run build/bin/lazy-run \\
      --run-device emulate GRAPH.mlir ...
"""

import argparse
import collections
import hashlib
import os
import random
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

_FLAGS = re.compile(r"lazy\.flags = \{([^}]*)\}")


def with_fusion(text, fusion):
    """The module `text` with its lazy.flags asking for the `fusion`
    policy (a module without lazy.flags gets them)."""
    if fusion == "tinygrad":
        return text
    entry = f'fusion = "{fusion}"'
    if _FLAGS.search(text):
        return _FLAGS.sub(lambda m: "lazy.flags = {" + ", ".join(
            p for p in (m.group(1).strip(), entry) if p) + "}", text, count=1)
    if text.lstrip().startswith("module attributes {"):
        return text.replace("module attributes {", "module attributes {lazy.flags = {"
                            + entry + "}, ", 1)
    if text.lstrip().startswith("module {"):
        return text.replace("module {", "module attributes {lazy.flags = {" + entry + "}} {", 1)
    return "module attributes {lazy.flags = {" + entry + "}} {\n" + text + "\n}\n"


# `%5 = lazy.add %3, %4 : tensor<...> loc(...)`: name, op, result type.
DEFINITION = re.compile(r"^\s+(%\w+) = lazy\.(\w+) (.*) : (.*?)(?: loc\(.*\))?$")
ARGUMENT = re.compile(r"(%arg\d+): (tensor<[^>]*>)")
BINARY = ("add", "mul", "max", "idiv", "mod", "xor")
UNARY = ("neg", "sqrt", "recip", "exp2", "log2", "sin")
# The warnings lazy-opt gives for schedules kept although they compute
# something else than the graph says (docs/design.md, Known gaps), and the
# name of each: a MISMATCH that follows one is counted apart, not failed.
# fuzz_compare.py reads the same table.
WARNED_MISMATCHES = (
    ("the result depends on the order the kernel runs in", "order-dependent assign"),
    ("sees the new contents", "order-dependent assign"),
    ("renumbers the reduced axes", "renumbered fuse-conv-bw merge"),
    ("padded view that the kernel moves", "padding moved into an unsafe reduce input"),
)


def warned_mismatch(output):
    """The name of the warned difference `output` reports, or None."""
    if "MISMATCH" not in output:
        return None
    return next((name for text, name in WARNED_MISMATCHES if text in output), None)
SANITIZER_MARKS = ("Stack dump", "LLVM ERROR", "Assertion", "UNREACHABLE",
                   "AddressSanitizer", "LeakSanitizer", "runtime error:")


class Graph:
    """One graph's lines and the values it defines, in order."""

    def __init__(self, text):
        self.lines = text.splitlines()
        self.values = []  # (line, name, type, op); arguments have op None
        for i, line in enumerate(self.lines):
            if "func.func" in line:
                for name, ty in ARGUMENT.findall(line):
                    self.values.append((i, name, ty, None))
            m = DEFINITION.match(line)
            if m:
                ty = m.group(4).split("->")[-1].strip()
                self.values.append((i, m.group(1), ty, m.group(2)))
        self.type_of = {name: ty for _, name, ty, _ in self.values}
        self.ops = [v for v in self.values if v[3] is not None]

    def earlier_of_type(self, line, ty, exclude):
        return [name for i, name, t, op in self.values
                if (i < line or op is None) and t == ty and name != exclude]


def replace_operand(rng, graph, lines, value):
    line, _, _, _ = value
    refs = re.findall(r"%\w+", lines[line].split(" : ")[0])[1:]
    if not refs:
        return
    old = rng.choice(refs)
    choices = graph.earlier_of_type(line, graph.type_of.get(old), old)
    if choices:
        lines[line] = re.sub(re.escape(old) + r"\b", rng.choice(choices),
                             lines[line], count=1)


def change_view_number(rng, graph, lines, value):
    line = value[0]
    m = re.search(r"as <\[(.*)\]>", lines[line])
    if not m:
        return
    inner = m.group(1)
    numbers = list(re.finditer(r"-?\d+", inner))
    if not numbers:
        return
    pick = rng.choice(numbers)
    v = int(pick.group())
    new = rng.choice([0, 1, -1, v + 1, v - 1, -v, 3 * v, 1 << 20])
    inner = inner[:pick.start()] + str(new) + inner[pick.end():]
    lines[line] = lines[line][:m.start(1)] + inner + lines[line][m.end(1):]


def change_op(rng, graph, lines, value):
    line, _, _, op = value
    for family in (BINARY, UNARY):
        if op in family:
            lines[line] = lines[line].replace("lazy." + op,
                                              "lazy." + rng.choice(family), 1)


def change_const(rng, graph, lines, value):
    line, _, ty, op = value
    if op != "const":
        return
    element = ty.rstrip(">").split("x")[-1].split("<")[-1]
    literal = rng.choice(["0", "-1", "3", "2147483647"])
    if element.startswith("f") or element.startswith("bf"):
        literal += ".5"
    elif element == "i1":
        literal = rng.choice(["true", "false"])
    lines[line] = re.sub(r"const \S+", "const " + literal, lines[line],
                         count=1)


def remove_op(rng, graph, lines, value):
    line, name, ty, _ = value
    choices = graph.earlier_of_type(line, ty, name)
    if not choices:
        return
    other = rng.choice(choices)
    lines[line] = ""
    for j in range(line + 1, len(lines)):
        lines[j] = re.sub(re.escape(name) + r"\b", other, lines[j])


MUTATIONS = (replace_operand, change_view_number, change_op, change_const,
             remove_op)


def mutant(rng, graph):
    lines = list(graph.lines)
    if graph.ops:
        for _ in range(rng.choice([1, 1, 2, 3])):
            rng.choice(MUTATIONS)(rng, graph, lines, rng.choice(graph.ops))
    return "\n".join(lines) + "\n"


def classify(returncode, stderr):
    """Returns (failed, what) for one run."""
    if "MISMATCH" in stderr:
        # lazy-opt warned that the schedule computes something else than
        # the graph (tinygrad schedules it too); the interpreter computes
        # what the graph says.
        warned = warned_mismatch(stderr)
        if warned:
            return False, f"MISMATCH, warned: {warned}"
        return True, "MISMATCH"
    if returncode == 0:
        return False, "ok"
    marks = [m for m in SANITIZER_MARKS if m in stderr]
    m = re.search(r"error: (?:loc\([^)]*\): )?(.{0,60})", stderr)
    if returncode != 1 or marks or not m:
        return True, "exit %d %s" % (returncode, ",".join(marks))
    return False, m.group(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graphs", nargs="+", help="lazy graphs (.mlir) to mutate")
    ap.add_argument("--lazy-opt",
                    default=os.path.join(ROOT, "build", "bin", "lazy-opt"))
    ap.add_argument("--pass", dest="passes", action="append",
                    help="lazy-opt option (repeatable; default --lazy-schedule)")
    ap.add_argument("--check-run", metavar="LAZY_RUN",
                    help="run `LAZY_RUN MUTANT --check --device=DEVICE` "
                         "instead of lazy-opt")
    ap.add_argument("--run-device", default="cpu", choices=("cpu", "emulate"),
                    help="lazy-run's --device with --check-run: the CPU "
                         "build, or the GPU kernels in the emulator")
    ap.add_argument("--fusion", choices=("tinygrad", "aggressive"), default="tinygrad",
                    help="the fusion policy each mutant's lazy.flags ask for")
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--minutes", type=float, default=None,
                    help="stop after this much wall time (runs as many as fit, "
                         "up to --runs)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--out", default="fuzz-failures",
                    help="directory for failing mutants")
    args = ap.parse_args()
    passes = args.passes or ["--lazy-schedule"]
    rng = random.Random(args.seed)
    graphs = []
    for path in args.graphs:
        with open(path) as f:
            graphs.append(Graph(f.read()))
    outcomes = collections.Counter()
    failures = 0
    deadline = time.monotonic() + 60 * args.minutes if args.minutes else None
    runs = 0
    for _ in range(args.runs):
        if deadline and time.monotonic() > deadline:
            break
        runs += 1
        text = with_fusion(mutant(rng, rng.choice(graphs)), args.fusion)
        try:
            if args.check_run:
                with tempfile.NamedTemporaryFile("w", suffix=".mlir") as f:
                    f.write(text)
                    f.flush()
                    run = subprocess.run(
                        [args.check_run, f.name, "--check",
                         f"--device={args.run_device}"],
                        capture_output=True, text=True, timeout=args.timeout)
            else:
                run = subprocess.run([args.lazy_opt, *passes, "-", "-o", os.devnull],
                                     input=text, capture_output=True, text=True,
                                     timeout=args.timeout)
            failed, what = classify(run.returncode, run.stdout + run.stderr)
        except subprocess.TimeoutExpired:
            failed, what = True, "timeout"
        outcomes[what] += 1
        if failed:
            failures += 1
            os.makedirs(args.out, exist_ok=True)
            name = hashlib.sha1(text.encode()).hexdigest()[:10] + ".mlir"
            with open(os.path.join(args.out, name), "w") as f:
                f.write(text)
            print(f"FAILED ({what}): {os.path.join(args.out, name)}",
                  flush=True)
    for what, n in outcomes.most_common():
        print(f"{n:6d}  {what}")
    print(f"{runs} runs, {outcomes['ok']} scheduled, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
