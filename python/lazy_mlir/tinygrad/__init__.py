"""The tinygrad 0.9.2 bridge: export lazy graphs as `lazy` dialect text.

    from lazy_mlir.tinygrad import export
    text = export([loss, *grads])          # before scheduling / realize

Command line (see `python3 -m lazy_mlir.tinygrad --help`):

    python3 -m lazy_mlir.tinygrad export SCRIPT.py -o graph.mlir
    python3 -m lazy_mlir.tinygrad check SCRIPT.py [--seed S]

tinygrad is imported on first use, not when this package is imported, so
that a script can set tinygrad's flags (os.environ) before that happens.
"""

__all__ = ["export", "export_graph", "scheduler_flags", "ExportError"]


def export(tensors, flags=None, seen=None):
    """`lazy` dialect text of the graph of `tensors` (see _export.export)."""
    from ._export import export as _export
    return _export(tensors, flags=flags, seen=seen)


def export_graph(tensors, flags=None, seen=None):
    from ._export import export_graph as _export_graph
    return _export_graph(tensors, flags=flags, seen=seen)


def scheduler_flags(overrides=None):
    from ._export import scheduler_flags as _flags
    return _flags(overrides)


def __getattr__(name):
    if name == "ExportError":
        from ._export import ExportError
        return ExportError
    raise AttributeError(name)
