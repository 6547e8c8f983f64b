"""The tinygrad 0.9.2 bridge: export lazy graphs as `lazy` dialect text.

    from lazy_mlir.tinygrad import export
    text = export([loss, *grads])          # before scheduling / realize

Command line (see `python3 -m lazy_mlir.tinygrad --help`):

    python3 -m lazy_mlir.tinygrad export SCRIPT.py -o graph.mlir
    python3 -m lazy_mlir.tinygrad check SCRIPT.py [--seed S]

tinygrad on lazy-mlir's scheduler, in process (see _hook.py):

    LAZY_MLIR=schedule python3 train.py    # unchanged tinygrad programs
    lazy_mlir.tinygrad.enable("schedule"); ...; lazy_mlir.tinygrad.disable()

tinygrad is imported on first use, not when this package is imported, so
that a script can set tinygrad's flags (os.environ) before that happens.
"""

__all__ = ["export", "export_graph", "scheduler_flags", "ExportError", "enable", "disable",
           "schedule", "LazyMlirError"]


def enable(mode="schedule"):
    """tinygrad's scheduling goes through lazy-mlir from now on."""
    from ._hook import enable as _enable
    _enable(mode)


def disable():
    """tinygrad's own scheduler again."""
    from ._hook import disable as _disable
    _disable()


def schedule(tensors, seen=None, plan_memory=True):
    """(ScheduleItems, var_vals) of `tensors` from lazy-mlir, in process, as
    `Tensor.schedule_with_vars` would return them (memory plan included)."""
    from ._bridge import schedule as _schedule
    from ._export import collect_outputs
    items, var_vals, _ = _schedule(collect_outputs(tensors), seen, plan_memory)
    return items, var_vals


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
    if name == "LazyMlirError":
        from ._bridge_text import LazyMlirError
        return LazyMlirError
    raise AttributeError(name)
