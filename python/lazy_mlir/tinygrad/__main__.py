"""Command line: `python3 -m lazy_mlir.tinygrad {export,check,compare,run} SCRIPT.py`.

Exit status: 0 success (check: every output matches; compare: the
schedules are identical), 1 a check or compare found a difference or a tool
failed, 2 a user mistake (bad path, no build(), unsupported graph, ...),
reported as one `error: ...` line.
"""

import argparse
import os
import sys

from .. import tool_path, write_text_atomically
from . import _script

# Environment variables that select tinygrad's default device.
_DEVICE_VARS = ("CLANG", "LLVM", "CUDA", "NV", "AMD", "HSA", "METAL", "GPU", "PYTHON", "QCOM", "DISK")


def _parser():
    parser = argparse.ArgumentParser(
        prog="python3 -m lazy_mlir.tinygrad",
        description="Export tinygrad 0.9.2 lazy graphs as `lazy` dialect MLIR and check them "
                    "against the reference interpreter.")
    sub = parser.add_subparsers(dest="command", metavar="{export,check,compare,run}")
    sub.required = True
    exp = sub.add_parser("export", help="write the graph of SCRIPT's build() as MLIR")
    exp.add_argument("script", help="Python file defining build() -> list of Tensors")
    exp.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    exp.add_argument("--device", help="tinygrad default device to build on (default: tinygrad's choice)")
    exp.add_argument("--fusion", choices=("tinygrad", "aggressive"), default=None,
                     help="the fusion policy the module's lazy.flags ask for (default: tinygrad)")
    chk = sub.add_parser("check", help="compare lazy-interp with tinygrad on SCRIPT's graph")
    chk.add_argument("script", help="Python file defining build() -> list of Tensors")
    chk.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    chk.add_argument("--device", default=None, help="tinygrad device (default: CLANG)")
    chk.add_argument("--interp", default=None, help="lazy-interp binary (default: build/bin/lazy-interp)")
    chk.add_argument("--keep", metavar="DIR", help="keep graph.mlir, inputs and outputs in DIR")
    chk.add_argument("-v", "--verbose", action="store_true", help="print the lazy-interp command")
    chk.add_argument("--fusion", choices=("tinygrad", "aggressive"), default=None,
                     help="aggressive: schedule with fusion=aggressive and run the fused kernels "
                          "(lazy-run, CPU) instead of lazy-interp (default: tinygrad)")
    run = sub.add_parser("run", help="run SCRIPT's graph with lazy-mlir in this process (lazy-run's "
                                     "job through the C API)")
    run.add_argument("script", help="Python file defining build() -> list of Tensors")
    run.add_argument("--device", default=None, help="tinygrad device (default: CLANG)")
    run.add_argument("--distributed", action="store_true",
                     help="one rank of `mpirun -n N`: run this process's device's part "
                          "(every rank runs the script; docs/distributed.md)")
    run.add_argument("--check", action="store_true", help="compare with the reference interpreter")
    run.add_argument("--seed", type=int, default=0, help="seed of the inputs (default 0)")
    run.add_argument("--output-dir", default=None, help="write out<i>.npy here")
    run.add_argument("--mpi-timeout", type=int, default=0,
                     help="with --distributed: seconds without progress before the job ends")
    run.add_argument("--repeat", type=int, default=0, help="timed re-runs (median printed)")
    run.add_argument("--fusion", choices=("tinygrad", "aggressive"), default=None,
                     help="the fusion policy (default: tinygrad)")
    cmp = sub.add_parser("compare", help="compare lazy-opt's schedule with tinygrad's on SCRIPT's graph")
    cmp.add_argument("script", help="Python file defining build() -> list of Tensors")
    cmp.add_argument("--device", default=None, help="tinygrad device (default: CLANG)")
    cmp.add_argument("--lazy-opt", default=None, help="lazy-opt binary (default: build/bin/lazy-opt)")
    cmp.add_argument("--time", action="store_true", help="also print both schedulers' times")
    return parser


def _select_device(device, default):
    if device:
        os.environ[device.split(":")[0].upper()] = "1"
    elif default and not any(os.environ.get(v) not in (None, "", "0") for v in _DEVICE_VARS):
        os.environ[default] = "1"


def _with_fusion(flags, fusion):
    """The script's flags, with the --fusion policy when one was given."""
    return {**(flags or {}), "fusion": fusion} if fusion else flags


def _export(args):
    _select_device(args.device, None)
    module = _script.load_script(args.script)
    built = _script.call_build(module, args.script)
    from ._export import ExportError, export
    try:
        text = export(built.outputs, flags=_with_fusion(built.flags, args.fusion), seen=built.seen)
        from ._export import collect_outputs
        outs = collect_outputs(built.outputs)
    except ExportError as exc:
        raise _script.UserError(str(exc)) from None
    if outs and all(lb.base.realized is not None for lb in outs):
        print(f"warning: {args.script}: every tensor build() returned is already realized, "
              "so the graph computes nothing; return them without .realize()", file=sys.stderr)
    if args.output == "-":
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except OSError as exc:
            # What could not be written goes to /dev/null: Python would
            # retry it at exit and print a traceback.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise _script.UserError(f"standard output: cannot write: {exc.strerror}") from None
    else:
        try:
            write_text_atomically(args.output, text)
        except OSError as exc:
            raise _script.UserError(f"{args.output}: cannot write: {exc.strerror}") from None
    return 0


def _check(args):
    _select_device(args.device, "CLANG")
    from ._check import run_check
    interp = args.interp or tool_path("lazy-interp")
    return run_check(args.script, args.seed, interp, keep_dir=args.keep, verbose=args.verbose,
                     fusion=args.fusion)


def _run(args):
    import tempfile
    from .. import _capi
    _select_device(args.device, "CLANG")
    module = _script.load_script(args.script)
    built = _script.call_build(module, args.script)
    from ._export import ExportError, export
    try:
        text = export(built.outputs, flags=_with_fusion(built.flags, args.fusion), seen=built.seen)
    except ExportError as exc:
        raise _script.UserError(str(exc)) from None
    # Each rank of a job writes its own copy: ranks may share a folder.
    with tempfile.TemporaryDirectory(prefix="lazy-run-") as folder:
        path = os.path.join(folder, "graph.mlir")
        with open(path, "w") as f:
            f.write(text)
        return _capi.run_graph(path, output_dir=args.output_dir, seed=args.seed, check=args.check,
                               distributed=args.distributed, mpi_timeout=args.mpi_timeout,
                               repeat=args.repeat)


def _compare(args):
    _select_device(args.device, "CLANG")
    lazy_opt = args.lazy_opt or tool_path("lazy-opt")
    if not os.access(lazy_opt, os.X_OK):
        raise _script.UserError(f"{lazy_opt} not found; build it first (bash scripts/setup.sh)")
    from ._compare import run_compare
    from ._export import ExportError
    try:
        return run_compare(args.script, lazy_opt, show_time=args.time)
    except ExportError as exc:
        raise _script.UserError(str(exc)) from None


def main(argv=None):
    args = _parser().parse_args(argv)
    # Before anything imports tinygrad: a script's folder or the working
    # folder may hold a file named like a standard module (copy.py).
    _script.shadow_guard(args.script)
    commands = {"export": _export, "check": _check, "compare": _compare, "run": _run}
    try:
        return commands[args.command](args)
    except _script.UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
