"""Command line: `python3 -m lazy_mlir.tinygrad {export,check} SCRIPT.py`.

Exit status: 0 success (check: every output matches), 1 a check found a
difference or lazy-interp failed, 2 a user mistake (bad path, no build(),
unsupported graph, ...), reported as one `error: ...` line.
"""

import argparse
import os
import sys

from .. import tool_path
from . import _script

# Environment variables that select tinygrad's default device.
_DEVICE_VARS = ("CLANG", "LLVM", "CUDA", "NV", "AMD", "HSA", "METAL", "GPU", "PYTHON", "QCOM", "DISK")


def _parser():
    parser = argparse.ArgumentParser(
        prog="python3 -m lazy_mlir.tinygrad",
        description="Export tinygrad 0.9.2 lazy graphs as `lazy` dialect MLIR and check them "
                    "against the reference interpreter.")
    sub = parser.add_subparsers(dest="command", metavar="{export,check}")
    sub.required = True
    exp = sub.add_parser("export", help="write the graph of SCRIPT's build() as MLIR")
    exp.add_argument("script", help="Python file defining build() -> list of Tensors")
    exp.add_argument("-o", "--output", default="-", help="output file (default: stdout)")
    exp.add_argument("--device", help="tinygrad default device to build on (default: tinygrad's choice)")
    chk = sub.add_parser("check", help="compare lazy-interp with tinygrad on SCRIPT's graph")
    chk.add_argument("script", help="Python file defining build() -> list of Tensors")
    chk.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    chk.add_argument("--device", default=None, help="tinygrad device (default: CLANG)")
    chk.add_argument("--interp", default=None, help="lazy-interp binary (default: build/bin/lazy-interp)")
    chk.add_argument("--keep", metavar="DIR", help="keep graph.mlir, inputs and outputs in DIR")
    chk.add_argument("-v", "--verbose", action="store_true", help="print the lazy-interp command")
    return parser


def _select_device(device, default):
    if device:
        os.environ[device.split(":")[0].upper()] = "1"
    elif default and not any(os.environ.get(v) not in (None, "", "0") for v in _DEVICE_VARS):
        os.environ[default] = "1"


def _export(args):
    _select_device(args.device, None)
    module = _script.load_script(args.script)
    built = _script.call_build(module, args.script)
    from ._export import ExportError, export
    try:
        text = export(built.outputs, flags=built.flags, seen=built.seen)
    except ExportError as exc:
        raise _script.UserError(str(exc)) from None
    if args.output == "-":
        sys.stdout.write(text)
    else:
        try:
            with open(args.output, "w") as f:
                f.write(text)
        except OSError as exc:
            raise _script.UserError(f"{args.output}: cannot write: {exc.strerror}") from None
    return 0


def _check(args):
    _select_device(args.device, "CLANG")
    from ._check import run_check
    interp = args.interp or tool_path("lazy-interp")
    return run_check(args.script, args.seed, interp, keep_dir=args.keep, verbose=args.verbose)


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        return _export(args) if args.command == "export" else _check(args)
    except _script.UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
