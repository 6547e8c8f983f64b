"""LAZY_MLIR=compile under TinyJit: a replay is one native call.

When TinyJit captures a step, tinygrad batches its own kernels into one
graph runner per device (ClangGraph on CLANG: one C function that calls
them all). lazy-mlir's kernels are not tinygrad's CompiledRunners, so
tinygrad would replay them one ExecItem at a time: Python, ctypes and the
argument list of every kernel between two kernels.

While compile mode is on, `apply_graph_to_jit` (tinygrad.engine.jit) is
replaced: each run of consecutive lazy-mlir kernels in the captured jit
cache becomes one `LazyGraphRunner`; the rest goes to tinygrad's own
batching unchanged. The runner binds every buffer once:

* one int64 word array holds each call's arguments, the kernel's
  expanded signature (per buffer: allocated and aligned pointer, offset,
  size, stride; then its Variables' values);
* each kernel is called through its packed wrapper (`_mlir_NAME`, a
  function of one `void **`), with a pointer array into the words;
* a replay writes the addresses of the jit's inputs (the only buffers that
  change between replays) and the Variables' values into the words, then
  makes one call, `lazyRunPacked`, which runs the kernels in order.

EmptyOp and ViewOp items do nothing on replay; tinygrad's batching drops
them as well.
"""

import ctypes

import numpy as np

from tinygrad.engine.jit import GraphRunner
from tinygrad.engine.realize import EmptyOp, ExecItem, ViewOp

from .. import _capi

_original_apply = None
#: the runner class whose jit items this module batches (set by install)
_runner_class = None

#: words of one buffer argument: allocated, aligned, offset, size, stride
_BUFFER_WORDS = 5


class LazyGraphRunner(GraphRunner):
    """A run of lazy-mlir kernels replayed as one native call."""

    def __init__(self, jit_cache, input_rawbuffers, var_vals):
        super().__init__(jit_cache, input_rawbuffers, var_vals)
        self.display_name = f"<lazy-mlir {len(jit_cache)} kernels>"
        functions, offsets, count = [], [], 0
        for ji in jit_cache:
            kernel = ji.prg.kernel
            address = kernel.program.packed_address(kernel.name)
            if not address:
                from tinygrad.engine.jit import GraphException
                raise GraphException(f"kernel {kernel.name} has no packed wrapper")
            functions.append(address)
            offsets.append(count)
            count += _BUFFER_WORDS * kernel.arity + len(kernel.variables)
        self.words = np.zeros(max(count, 1), np.int64)
        base = self.words.ctypes.data
        self.pointers = (ctypes.c_void_p * max(count, 1))(*(base + 8 * k for k in range(count)))
        pointers_base = ctypes.addressof(self.pointers)
        self.functions = (ctypes.c_void_p * len(functions))(*functions)
        self.arguments = (ctypes.c_void_p * len(offsets))(
            *(pointers_base + ctypes.sizeof(ctypes.c_void_p) * o for o in offsets))
        # Every buffer but the jit's inputs is bound now, for good. (The
        # captured inputs are still in place: TinyJit clears them after.)
        input_slots, variable_slots = [], []
        for j, (ji, offset) in enumerate(zip(jit_cache, offsets)):
            for i, buf in enumerate(ji.bufs):
                slot = offset + _BUFFER_WORDS * i
                self.words[slot + 3] = buf.size
                self.words[slot + 4] = 1
                if (j, i) in self.input_replace:
                    input_slots.append((slot, self.input_replace[(j, i)]))
                else:
                    self.words[slot] = self.words[slot + 1] = ctypes.addressof(buf._buf)
            slot = offset + _BUFFER_WORDS * len(ji.bufs)
            for k, variable in enumerate(ji.prg.kernel.variables):
                variable_slots.append((slot + k, variable))
        self.input_slots = np.array([s for s, _ in input_slots], np.int64)
        self.input_index = np.array([i for _, i in input_slots], np.int64)
        self.variable_slots = variable_slots
        self.native = _capi.library().lazyRunPacked

    def __call__(self, rawbufs, var_vals, wait=False):
        import time
        start = time.perf_counter()
        if len(self.input_slots):
            addresses = np.array([ctypes.addressof(b._buf) for b in rawbufs], np.int64)
            self.words[self.input_slots] = addresses[self.input_index]
            self.words[self.input_slots + 1] = addresses[self.input_index]
        if self.variable_slots:
            values = {(v.expr, v.min, v.max): value for v, value in var_vals.items()}
            for slot, variable in self.variable_slots:
                self.words[slot] = values[variable]
        self.native(len(self.functions), self.functions, self.arguments)
        for ji in self.jit_cache:
            ji.prg.kernel.calls += 1
        return time.perf_counter() - start if wait else None


def _apply_graph_to_jit(jit_cache, input_rawbuffers, var_vals):
    """tinygrad's apply_graph_to_jit, with runs of lazy-mlir kernels as
    LazyGraphRunners."""
    from tinygrad.engine.jit import GraphException
    graphed, theirs, ours = [], [], []

    def flush_theirs():
        if theirs:
            graphed.extend(_original_apply(list(theirs), input_rawbuffers, var_vals))
            theirs.clear()

    def flush_ours():
        if len(ours) > 1:
            try:
                runner = LazyGraphRunner(list(ours), input_rawbuffers, var_vals)
            except GraphException:
                graphed.extend(ours)
            else:
                # the inputs are bound at each replay: free the captured ones
                for j, i in runner.input_replace:
                    runner.jit_cache[j].bufs[i] = None
                graphed.append(ExecItem(runner, list(input_rawbuffers)))
        else:
            graphed.extend(ours)
        ours.clear()

    for ji in jit_cache:
        if ji.prg.__class__ in (EmptyOp, ViewOp):
            continue
        if _runner_class is not None and isinstance(ji.prg, _runner_class):
            flush_theirs()
            ours.append(ji)
        else:
            flush_ours()
            theirs.append(ji)
    flush_ours()
    flush_theirs()
    return graphed


def install(runner_class):
    """Replaces apply_graph_to_jit; `runner_class` is the runner of
    lazy-mlir's kernels (_compile.LazyMlirRunner, passed in so that this
    module does not import _compile, which imports it)."""
    global _original_apply, _runner_class
    import tinygrad.engine.jit as jit
    _runner_class = runner_class
    if _original_apply is None:
        _original_apply = jit.apply_graph_to_jit
    jit.apply_graph_to_jit = _apply_graph_to_jit


def uninstall():
    global _original_apply
    import tinygrad.engine.jit as jit
    if _original_apply is not None:
        jit.apply_graph_to_jit = _original_apply
        _original_apply = None
