"""`check`: run an exported graph in lazy-interp and in tinygrad, compare.

Steps:

1. build the graph; realize every unrealized EMPTY base (and every CUSTOM
   base: host callables such as `custom_random` cannot be re-run by the
   interpreter, so their results become inputs);
2. export; fill every distinct realized device Buffer with seeded random
   values of its dtype (a sub-buffer argument then reads its slice of the
   filled base, so aliasing stays consistent); save one .npy per argument;
3. run `lazy-interp GRAPH.mlir --input=<i>=<in_i.npy> ... --output-dir=DIR`;
4. realize the same outputs in tinygrad (with NOOPT=1, see
   realize_outputs) and compare per output.

Random inputs (override per script with a `FILL` dict):

* floats: standard normal (`FILL["float"] = (lo, hi)` for uniform);
* signed ints: uniform in [-9, 9] without 0, unsigned ints: [1, 16], so
  that no integer division or modulo by zero can happen by accident
  (`FILL["int"] = (lo, hi)`, inclusive, may include 0);
* bools: fair coin;
* `FILL["keep"] = True` keeps the contents of buffers that already hold
  data (for example index tensors made from Python lists).

.npy encoding: bool as numpy bool, integers and f16/f32/f64 as the numpy
type of the same width, bf16 as its raw bits in uint16.

Comparison: integers and bools bit-exact. Floats: NaN must meet NaN, an
infinity the same infinity, and finite values must satisfy
`|got - want| <= atol * max(1, max|want|) + rtol * |want|` with the rtol
and atol lazy-run --check uses (include/lazy/Runtime/Tolerance.h says
why each is what it is; read through the C API). The atol is scaled by the
output's largest finite magnitude, so that catastrophic cancellation in
large sums is judged against the sum's size. The tolerance is that of the
narrowest float type the output was computed in (rounding_element_type):
an f64 output cast from f32 arithmetic is judged as f32.
"""

import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from .. import _capi
from . import _script

_NUMPY = {"i1": np.bool_, "si8": np.int8, "ui8": np.uint8, "si16": np.int16, "ui16": np.uint16,
          "si32": np.int32, "ui32": np.uint32, "si64": np.int64, "ui64": np.uint64,
          "f16": np.float16, "bf16": np.uint16, "f32": np.float32, "f64": np.float64}


def element_type(dtype):
    from ._export import ELEMENT_TYPES
    return ELEMENT_TYPES[dtype]


def bf16_bits_to_f32(bits):
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16_bits(values):
    bits = np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def random_values(rng, elt, count, fill):
    """`count` random values for MLIR element type `elt`, as numpy."""
    if elt == "i1":
        return rng.integers(0, 2, count).astype(np.bool_)
    if elt.startswith(("si", "ui")):
        if "int" in fill:
            lo, hi = fill["int"]
            values = rng.integers(lo, hi + 1, count)
        elif elt.startswith("ui"):
            values = rng.integers(1, 17, count)
        else:
            values = rng.integers(1, 10, count) * np.where(rng.integers(0, 2, count) == 1, 1, -1)
        return values.astype(_NUMPY[elt])
    if "float" in fill:
        lo, hi = fill["float"]
        values = rng.uniform(lo, hi, count)
    else:
        values = rng.standard_normal(count)
    if elt == "bf16":
        return f32_to_bf16_bits(values.astype(np.float32))
    return values.astype(_NUMPY[elt])


def concrete_shape(lb):
    """lb's shape with each Variable at the value it is bound to (what
    tinygrad computes for this call; its Buffer is sized for the largest
    values and holds the result as a prefix)."""
    from tinygrad.shape.symbolic import Node, NumNode
    dims = []
    for d in lb.shape:
        if isinstance(d, Node):
            d = d.substitute({v: NumNode(v.val) for v in d.vars()})
            d = d.b if isinstance(d, NumNode) else d
        dims.append(int(d))
    return tuple(dims)


def _read_buffer(buffer, elt, shape):
    """The first prod(shape) elements of `buffer` (an ASSIGN's base is
    smaller than the target Buffer it shares and reads as its prefix)."""
    count = int(np.prod(shape, dtype=np.int64))
    if count == 0:
        return np.zeros(shape, dtype=_NUMPY[elt])
    data = bytes(buffer.as_buffer())
    return np.frombuffer(data, dtype=_NUMPY[elt])[:count].reshape(shape).copy()


def prerealize(outs):
    """Realize every unrealized EMPTY or CUSTOM base reachable from outs."""
    from tinygrad.engine.realize import run_schedule
    from tinygrad.engine.schedule import create_schedule
    from tinygrad.ops import MetaOps
    found, visited, stack = [], set(), list(outs)
    while stack:
        lb = stack.pop().base
        if id(lb) in visited:
            continue
        visited.add(id(lb))
        if not hasattr(lb, "srcs"):
            continue
        if lb.op in (MetaOps.EMPTY, MetaOps.CUSTOM):
            found.append(lb)
        stack.extend(lb.srcs)
    if found:
        run_schedule(create_schedule(found))
    return len(found)


def fill_inputs(graph, seed, fill):
    """Fill the argument Buffers; return one numpy array per argument."""
    rng = np.random.default_rng(seed)
    filled = set()
    keep = bool(fill.get("keep"))
    for lb, number, _ in graph.args:
        root = lb.buffer.base
        if number in filled:
            continue
        filled.add(number)
        if root.device.startswith("DISK"):
            continue
        if keep and root.is_allocated():
            continue
        elt = element_type(root.dtype)
        values = random_values(rng, elt, root.size, fill)
        root.ensure_allocated()
        try:
            root.copyin(memoryview(bytearray(np.ascontiguousarray(values).tobytes())))
        except (AttributeError, NotImplementedError, TypeError):
            pass  # a device without copyin (NPY) or read-only data (PYTHON bytes): keep it
    arrays = []
    for lb, _, _ in graph.args:
        lb.buffer.ensure_allocated()
        arrays.append(_read_buffer(lb.buffer, element_type(lb.dtype), concrete_shape(lb)))
    return arrays


def realize_outputs(outs, flags):
    """Realize outs in tinygrad (same flags) and read each as numpy."""
    from tinygrad.engine.realize import memory_planner, run_schedule
    from tinygrad.engine.schedule import create_schedule_with_vars
    from tinygrad.helpers import Context
    from tinygrad.tensor import Tensor
    # NOOPT=1: 0.9.2's CLANG upcasts emit 16-byte aligned vector loads even
    # from sub-buffers at unaligned offsets (MetaOps.VIEW) and crash; NOOPT
    # changes code generation only, not the schedule.
    with Context(MULTIOUTPUT=int(flags["multi_output"]), FUSE_CONV_BW=int(flags["fuse_conv_bw"]),
                 FUSE_ARANGE=int(flags["fuse_arange"]), NOOPT=1):
        schedule, var_vals = create_schedule_with_vars(outs)
        run_schedule(memory_planner(schedule), var_vals)
    results = []
    for lb in outs:
        elt = element_type(lb.dtype)
        shape = concrete_shape(lb)
        if lb.size == 0:
            results.append(np.zeros(shape, dtype=_NUMPY[elt]))
        elif lb.base is lb and lb.realized is not None and lb.realized.is_allocated():
            results.append(_read_buffer(lb.realized, elt, shape))
        else:
            with Context(NOOPT=1):
                t = Tensor(lb, device=lb.device).contiguous().realize()
            results.append(_read_buffer(t.lazydata.base.realized, elt, shape))
    return results


_MANTISSA_BITS = {"f64": 53, "f32": 24, "f16": 11, "bf16": 8}


def rounding_element_type(lb):
    """The narrowest float element type `lb`'s value is computed in: of lb
    and every unrealized buffer it is computed from, except those that move,
    copy or reinterpret values (views, COPY, CONTIGUOUS, ASSIGN, VIEW,
    BITCAST) or make them from nothing (CONST, EMPTY); None when none is a
    float. Read before
    the buffers are realized (realizing drops their sources). An f64 output
    cast from f32 arithmetic is judged at f32's tolerance, as lazy-run
    --check judges it (roundingElementType)."""
    from tinygrad.ops import MetaOps, UnaryOps
    from ._export import ELEMENT_TYPES
    exact = (MetaOps.CONST, MetaOps.EMPTY, MetaOps.COPY, MetaOps.CONTIGUOUS, MetaOps.ASSIGN,
             MetaOps.VIEW, UnaryOps.BITCAST)
    narrowest = None

    def consider(dtype):
        nonlocal narrowest
        elt = ELEMENT_TYPES.get(dtype)
        if elt in _MANTISSA_BITS and (narrowest is None
                                      or _MANTISSA_BITS[elt] < _MANTISSA_BITS[narrowest]):
            narrowest = elt

    consider(lb.dtype)
    # A worklist, not recursion: graphs are deep.
    stack, seen = [lb], set()
    while stack:
        base = stack.pop().base
        if id(base) in seen or not hasattr(base, "srcs"):
            continue
        seen.add(id(base))
        # An integer or bool value (a comparison, a cast to an integer)
        # ends the cone: its operands' rounding reaches the output as a
        # choice, which no tolerance covers.
        if ELEMENT_TYPES.get(base.dtype) not in _MANTISSA_BITS:
            continue
        if base.op not in exact:
            consider(base.dtype)
        stack.extend(base.srcs)
    return narrowest


def compare(elt, want, got, rounded_as=None):
    """(ok, detail) for one output; floats at the tolerance of `rounded_as`
    (the narrowest float type they were computed in) when given."""
    if got.shape != want.shape:
        return False, f"shape {got.shape} != {want.shape}"
    if elt == "bf16":
        want = bf16_bits_to_f32(want)
        got = bf16_bits_to_f32(got) if got.dtype.itemsize == 2 and got.dtype.kind in "ui" else got
    elif got.dtype != want.dtype:
        return False, f"dtype {got.dtype} != {want.dtype}"
    tolerance = _capi.float_tolerance(elt)
    if tolerance is not None and rounded_as:
        tolerance = _capi.float_tolerance(rounded_as)
    if tolerance is None:
        bad = int(np.count_nonzero(got != want))
        return bad == 0, "exact" if bad == 0 else f"{bad} of {want.size} elements differ"
    rtol, atol = tolerance
    w = want.astype(np.float64)
    g = got.astype(np.float64)
    wn, gn = np.isnan(w), np.isnan(g)
    finite = np.isfinite(w) & np.isfinite(g)
    bad = (wn != gn) | (~finite & ~wn & ~gn & (w != g))
    if finite.any():
        scale = max(1.0, float(np.max(np.abs(w[np.isfinite(w)]))))
        err = np.abs(g - w)
        bad |= finite & (err > atol * scale + rtol * np.abs(w))
        max_err = float(np.max(err[finite]))
    else:
        max_err = 0.0
    nbad = int(np.count_nonzero(bad))
    if nbad:
        return False, f"{nbad} of {want.size} elements differ (max abs error {max_err:.3g})"
    return True, f"max abs error {max_err:.3g}"


class InterpError(Exception):
    """lazy-interp failed or timed out."""


class TinygradError(Exception):
    """tinygrad itself failed to schedule or run the graph."""


def _tinygrad(what, fn, *args):
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 - report tinygrad's failure in one line
        first = (str(exc).strip().splitlines() or [""])[0]
        raise TinygradError(f"tinygrad failed to {what}: {type(exc).__name__}: {first}") from exc


def check_outputs(outputs, flags=None, seen=None, fill=None, seed=0, interp=None, work=None, printer=None):
    """Steps 1-4 for already built outputs; returns one (label, ok, detail)
    per output. Raises ExportError for unexportable graphs and InterpError
    when lazy-interp fails, TinygradError when tinygrad does."""
    from .. import tool_path
    from ._export import collect_outputs, export_graph, scheduler_flags
    interp = interp or tool_path("lazy-interp")
    fill = fill or {}
    outs = collect_outputs(outputs)
    _tinygrad("realize the EMPTY/CUSTOM inputs", prerealize, outs)
    flags = scheduler_flags(flags)
    graph = export_graph(outs, flags=flags, seen=seen)
    rounded_as = [rounding_element_type(lb) for lb in graph.outs]
    inputs = fill_inputs(graph, seed, fill)
    # With fusion=aggressive the graph's own values are not in question but
    # the fused kernels are: lazy-run schedules (as the module's flags say),
    # compiles and runs them on the CPU, with lazy-interp's options.
    tool = "lazy-interp"
    if flags["fusion"] != "tinygrad":
        interp, tool = tool_path("lazy-run"), "lazy-run"

    own_dir = work is None
    work = work or tempfile.mkdtemp(prefix="lazy-check-")
    os.makedirs(work, exist_ok=True)
    try:
        graph_path = os.path.join(work, "graph.mlir")
        with open(graph_path, "w") as f:
            f.write(graph.text)
        command = [interp, graph_path]
        for i, array in enumerate(inputs):
            path = os.path.join(work, f"in{i}.npy")
            np.save(path, array)
            command.append(f"--input={i}={path}")
        out_dir = os.path.join(work, "out")
        os.makedirs(out_dir, exist_ok=True)
        command.append(f"--output-dir={out_dir}")
        if printer:
            printer("$ " + " ".join(command))
        try:
            proc = subprocess.run(command, capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            raise InterpError(f"{tool} timed out after 600 s") from None
        if proc.returncode != 0:
            message = (proc.stderr or proc.stdout).strip()
            raise InterpError(f"{tool} failed (exit {proc.returncode}): {message}")

        want = _tinygrad("realize the outputs", realize_outputs, graph.outs, flags)
        results = []
        for i, (lb, expected) in enumerate(zip(graph.outs, want)):
            elt = element_type(lb.dtype)
            path = os.path.join(out_dir, f"out{i}.npy")
            label = f"out{i} {tuple(lb.shape)} {elt}"
            if not os.path.exists(path):
                ok, detail = False, f"{tool} wrote no file"
            else:
                try:
                    got = np.load(path, allow_pickle=False)
                except ValueError as exc:
                    ok, detail = False, f"unreadable .npy: {exc}"
                else:
                    ok, detail = compare(elt, expected, got, rounded_as[i])
            results.append((label, ok, detail))
        return results
    finally:
        if own_dir:
            shutil.rmtree(work, ignore_errors=True)


def run_check(script_path, seed, interp, keep_dir=None, verbose=False, printer=print, fusion=None):
    """The `check` command; returns the exit status."""
    if not os.path.exists(interp):
        raise _script.UserError(f"lazy-interp not found at {interp}, build it (ninja -C build lazy-interp)")
    module = _script.load_script(script_path)
    built = _script.call_build(module, script_path)
    from ._export import ExportError
    try:
        flags = {**(built.flags or {}), "fusion": fusion} if fusion else built.flags
        results = check_outputs(built.outputs, flags, built.seen, built.fill, seed, interp,
                                work=keep_dir, printer=printer if verbose else None)
    except ExportError as exc:
        raise _script.UserError(str(exc)) from None
    except (InterpError, TinygradError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for label, ok, detail in results:
        printer(f"{label}: {'match' if ok else 'DIFFER'} ({detail})")
    differ = sum(not ok for _, ok, _ in results)
    printer(f"{len(results) - differ} outputs match, {differ} differ")
    return 0 if differ == 0 else 1
