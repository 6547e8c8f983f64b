"""LAZY_MLIR=compile: lazy-mlir's CPU kernels run on tinygrad's buffers.

The schedule comes from lazy-mlir as in "schedule" mode. Its kernels are
compiled by lazy-mlir's CPU pipeline (lazyCompileCpu: lazy-to-cpu, LLVM -O3
for this host, OpenMP) the first time each distinct kernel is seen, and
kept for the process (keyed by the kernel's AST text, so that a training
loop compiles once). Each kernel ScheduleItem carries its compiled kernel
(`LazyScheduleItem.lazy_kernel`), and tinygrad's `lower_schedule_item`
(patched while the mode is on) turns it into an ExecItem whose runner calls
the kernel with the addresses of tinygrad's buffers. On tinygrad's GPU
devices (CUDA, NV, AMD, HIP) the kernels come from lazy-mlir's GPU
pipelines instead and run as tinygrad's own CompiledRunner (_gpu.py).
Other items (COPY, EMPTY, CUSTOM, VIEW) and kernels on other devices run
as tinygrad runs them.

Under TinyJit, a replay runs each run of consecutive lazy-mlir kernels as
one native call (_jit.py).

A kernel over Variables (symbolic shapes) takes their values after its
buffers, in the order of their keys (`name[lo-hi]`), as the lowering
orders its `index` arguments; the runner reads them from the var_vals
tinygrad passes each call, so that a TinyJit replay at another value
runs the same compiled kernel.
"""

import ctypes
import re
from dataclasses import dataclass
from typing import Any, Optional

from tinygrad.engine.realize import ExecItem, Runner
from tinygrad.engine.schedule import ScheduleItem
from tinygrad.ops import MetaOps

from .. import _capi
from ._bridge_text import LazyMlirError, parse_bridge

#: Devices whose buffers are host memory a CPU kernel can take.
HOST_DEVICES = ("CLANG",)

_MEMREF = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64]


# An unbound Variable in a kernel's AST lines: name[lo:hi].
_VARIABLE = re.compile(r"([A-Za-z_][A-Za-z0-9_$.]*)\[(-?\d+):(-?\d+)\]")


def kernel_variables(lines):
    """The Variables a kernel's AST lines read, as (name, lo, hi), in the
    order of the compiled kernel's index arguments (by key, name[lo-hi])."""
    found = {(m.group(1), int(m.group(2)), int(m.group(3)))
             for line in lines for m in _VARIABLE.finditer(line)}
    return sorted(found, key=lambda v: f"{v[0]}[{v[1]}-{v[2]}]")


class CompiledKernel:
    """One compiled kernel: its function and the program that holds it;
    `variables` are the Variables it takes after its buffers."""

    def __init__(self, program, name, address, arity, variables=()):
        self.program, self.name, self.arity = program, name, arity
        self.variables = list(variables)
        self.function = ctypes.CFUNCTYPE(None, *(_MEMREF * arity),
                                         *([ctypes.c_int64] * len(self.variables)))(address)
        self.calls = 0

    def __call__(self, buffers, var_vals=None):
        self.calls += 1
        args = []
        for buf in buffers:
            address = ctypes.addressof(buf._buf)
            args += [address, address, 0, buf.size, 1]
        if self.variables:
            values = {(v.expr, v.min, v.max): value for v, value in (var_vals or {}).items()}
            missing = [v for v in self.variables if v not in values]
            if missing:
                raise LazyMlirError(f"kernel {self.name} needs a value for the Variables {missing}")
            args += [values[v] for v in self.variables]
        self.function(*args)


@dataclass(frozen=True)
class LazyScheduleItem(ScheduleItem):
    """A kernel ScheduleItem that runs lazy-mlir's compiled code."""
    lazy_kernel: Optional[Any] = None


class LazyMlirRunner(Runner):
    def __init__(self, kernel, device):
        super().__init__(f"lazy-mlir {kernel.name}", device)
        self.kernel = kernel

    def __call__(self, rawbufs, var_vals, wait=False):
        import time
        start = time.perf_counter()
        self.kernel(rawbufs, var_vals)
        return time.perf_counter() - start if wait else None


_kernels = {}  # kernel AST text -> CompiledKernel
# Programs this process compiled, and those it linked from the disk cache
# (compiled by an earlier process: lazyCompileCpu's program cache).
program_counts = {"compiled": 0, "from_cache": 0}


def kernel_key(lines):
    """A kernel's identity: its AST lines in the bridge text."""
    return "\n".join(lines)


def compile_missing(graph, kernels, pipeline):
    """{symbol: CompiledKernel} for the `kernels` of a bridge text (symbol ->
    (metadata, AST lines, argument count)); compiles the schedule of
    `graph` (text or the compact form) first when one of them is not
    compiled yet."""
    if any(kernel_key(k[1]) not in _kernels for k in kernels.values()):
        program, text, diagnostics = _capi.session().compile_cpu(graph, pipeline,
                                                                 name="<tinygrad graph>")
        if program is None:
            raise LazyMlirError("lazy-mlir cannot compile this graph's kernels:\n" +
                                diagnostics.rstrip())
        program_counts["from_cache" if program.from_cache else "compiled"] += 1
        for sym, (_, lines, arity) in parse_bridge(text)[0].items():
            key = kernel_key(lines)
            if key in _kernels:
                continue
            address = program.address(sym[1:])
            if not address:
                raise LazyMlirError(f"lazy-mlir compiled no function for kernel {sym}")
            _kernels[key] = CompiledKernel(program, sym[1:], address, arity,
                                           kernel_variables(lines))
    return {sym: _kernels[kernel_key(k[1])] for sym, k in kernels.items()}


def attach(si, arity, kernel):
    """`si` carrying `kernel` when the kernel can take its buffers (one
    buffer per kernel argument: host memory for a CPU kernel, the device's
    own for a GPU kernel, _gpu.py)."""
    from ._gpu import GpuKernel
    if len(si.bufs) != arity:
        return si
    if isinstance(kernel, GpuKernel):
        if all(b.device == si.bufs[0].device for b in si.bufs):
            return LazyScheduleItem(si.ast, si.bufs, si.metadata, kernel)
        return si
    if all(b.device.split(":")[0] in HOST_DEVICES for b in si.bufs):
        return LazyScheduleItem(si.ast, si.bufs, si.metadata, kernel)
    return si


_original_lower = None


def _lower_schedule_item(si):
    from ._gpu import GpuKernel, _debug
    kernel = getattr(si, "lazy_kernel", None)
    if isinstance(kernel, GpuKernel):
        # tinygrad's own runner over lazy-mlir's binary; a kernel the
        # device refuses runs tinygrad's instead.
        try:
            return ExecItem(kernel.runner(), list(si.bufs), si.metadata)
        except Exception as error:  # the runtime's own error types
            _debug(f"tinygrad's kernel for {kernel.name}: the device refused lazy-mlir's: {error}")
            kernel.made = None
            return _original_lower(si)
    if kernel is not None:
        return ExecItem(LazyMlirRunner(kernel, si.outputs[0].device), list(si.bufs), si.metadata)
    return _original_lower(si)


def install():
    global _original_lower
    import tinygrad.engine.realize as realize
    from . import _jit
    if _original_lower is None:
        _original_lower = realize.lower_schedule_item
    realize.lower_schedule_item = _lower_schedule_item
    _jit.install(LazyMlirRunner)


def uninstall():
    global _original_lower
    import tinygrad.engine.realize as realize
    from . import _jit
    if _original_lower is not None:
        realize.lower_schedule_item = _original_lower
        _original_lower = None
    _jit.uninstall()
