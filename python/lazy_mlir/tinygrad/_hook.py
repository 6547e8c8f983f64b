"""Switching tinygrad 0.9.2 onto lazy-mlir's scheduler.

    LAZY_MLIR=schedule python3 train.py        # through the .pth hook
    lazy_mlir.tinygrad.enable("schedule")      # or in code; disable() undoes it

enable() replaces, without editing tinygrad's files:

* `tinygrad.engine.schedule.create_schedule_with_vars` (and the name
  `tinygrad.tensor` imported): lazy-mlir's schedule without the memory
  plan, as tinygrad's function returns it (test code calls it directly);
* `Tensor.schedule_with_vars` (what `realize` runs): lazy-mlir's schedule
  with lazy-mlir's memory plan, instead of tinygrad's scheduler followed by
  its `memory_planner`;
* with "compile", `tinygrad.engine.realize.lower_schedule_item` too: kernel
  items run lazy-mlir's compiled CPU kernels (_compile.py).

LAZY_MLIR_DEBUG=1 prints one `lazy-mlir:` line per schedule to stderr.
When lazy-mlir refuses a graph, the caller gets `LazyMlirError` with the
located diagnostics; with LAZY_MLIR_FALLBACK=1 tinygrad's own scheduler
takes that graph instead, with a warning.
"""

import os
import sys
import time
import warnings

MODES = ("schedule", "compile")

_originals = {}
_mode = None


def mode():
    """The enabled mode, or None."""
    return _mode


def _debug():
    return os.environ.get("LAZY_MLIR_DEBUG", "") not in ("", "0")


def _fallback():
    return os.environ.get("LAZY_MLIR_FALLBACK", "") not in ("", "0")


def _bridged(outs, seen, plan_memory, original):
    from . import _bridge
    from ._export import ExportError
    try:
        items, var_vals, stats = _bridge.schedule(outs, seen, plan_memory,
                                                  compile=_mode == "compile")
    except (_bridge.LazyMlirError, ExportError) as error:
        if not _fallback():
            raise
        warnings.warn(f"lazy-mlir: falling back to tinygrad's scheduler: {error}", RuntimeWarning,
                      stacklevel=3)
        if _debug():
            print("lazy-mlir: fell back to tinygrad's scheduler", file=sys.stderr)
        return original()
    if _debug():
        where = "cached" if stats["cached"] else "schedule"
        print(f"lazy-mlir: {stats['items']} items, {stats['kernels']} kernels, "
              f"{stats['total_s'] * 1e3:.2f} ms in lazy-mlir (export {stats['export_s'] * 1e3:.2f}, "
              f"{where} {stats['schedule_s'] * 1e3:.2f}, items {stats['build_s'] * 1e3:.2f})",
              file=sys.stderr)
    return items, var_vals


def _create_schedule_with_vars(outs, seen=None):
    if seen is None:
        seen = set()
    return _bridged(list(outs), seen, False,
                    lambda: _originals["create_schedule_with_vars"](outs, seen))


def _schedule_with_vars(self, *lst, seen=None):
    from tinygrad.helpers import flatten, getenv
    outs = flatten([x.lazydata.lbs for x in (self,) + lst])
    if seen is None:
        seen = set()

    def original():
        from tinygrad.engine.realize import memory_planner
        schedule, var_vals = _originals["create_schedule_with_vars"](outs, seen)
        return memory_planner(schedule), var_vals
    return _bridged(outs, seen, not getenv("NO_MEMORY_PLANNER"), original)


def enable(which="schedule"):
    """Routes tinygrad's scheduling through lazy-mlir (`which`: "schedule"),
    and its CPU kernels too ("compile")."""
    global _mode
    if which not in MODES:
        raise ValueError(f"unknown lazy-mlir mode {which!r} (known: {', '.join(MODES)})")
    import tinygrad.engine.schedule as schedule_module
    import tinygrad.tensor as tensor_module
    if _mode is None:
        _originals["create_schedule_with_vars"] = schedule_module.create_schedule_with_vars
        _originals["tensor.create_schedule_with_vars"] = tensor_module.create_schedule_with_vars
        _originals["Tensor.schedule_with_vars"] = tensor_module.Tensor.schedule_with_vars
    schedule_module.create_schedule_with_vars = _create_schedule_with_vars
    tensor_module.create_schedule_with_vars = _create_schedule_with_vars
    tensor_module.Tensor.schedule_with_vars = _schedule_with_vars
    from . import _compile
    if which == "compile":
        _compile.install()
    else:
        _compile.uninstall()
    _mode = which


def disable():
    """Gives tinygrad its own scheduler back."""
    global _mode
    if _mode is None:
        return
    import tinygrad.engine.schedule as schedule_module
    import tinygrad.tensor as tensor_module
    schedule_module.create_schedule_with_vars = _originals["create_schedule_with_vars"]
    tensor_module.create_schedule_with_vars = _originals["tensor.create_schedule_with_vars"]
    tensor_module.Tensor.schedule_with_vars = _originals["Tensor.schedule_with_vars"]
    from . import _compile
    _compile.uninstall()
    _mode = None
