"""`compare`: lazy-opt's schedule against tinygrad 0.9.2's, item by item.

Both schedules are turned into the canonical schedule text (see
`_canonical.py` and `lazy-opt --lazy-print-schedule`): same item count,
kind, output/input counts, kernel ASTs modulo naming, and memory plan
(`bufs:` lines after tinygrad's memory_planner and lazy-plan-memory).

The memory plan depends on which buffers Python still references after
scheduling (tinygrad's lb_refcount). The exporter marks the bases held from
outside the graph `lazy.external`; identical plans on the corpus check that
inference against tinygrad's own reference counts.

Where tinygrad raises while scheduling, the case is identical only if
lazy-opt rejects the graph too.
"""

import contextlib
import os
import re
import subprocess
import time

from . import _script
from ._canonical import canonical_items, moved_line, var_vals_line, view_text  # noqa: F401 - re-exported


def _plan_lines(schedule):
    """`bufs:` lines of tinygrad's planned schedule, as lazy-print-schedule
    numbers them (base buffers by first appearance, sub-buffers @offset)."""
    ids, lines = {}, []
    for si in schedule:
        parts = []
        for buf in si.bufs:
            base = buf._base if getattr(buf, "_base", None) is not None else buf
            n = ids.setdefault(id(base), len(ids))
            parts.append(f"b{n}" + (f"@{buf.offset}" if base is not buf else ""))
        lines.append("  bufs: " + " ".join(parts))
    return lines


def _with_plan(items, plans):
    """Attach each item's `bufs:` line after the item's block."""
    result, item = [], -1
    for line in items:
        if line.startswith("item "):
            if item >= 0:
                result.append(plans[item])
            item += 1
        result.append(line)
    if item >= 0:
        result.append(plans[item])
    return result


def tinygrad_schedule(built):
    """(canonical lines with plan, seconds) or (['RAISES ...'], seconds)."""
    from tinygrad.engine.realize import memory_planner
    from tinygrad.engine.schedule import create_schedule_with_vars
    from ._export import collect_outputs, seen_buffers
    outs = collect_outputs(built.outputs)
    seen = set(seen_buffers(built.seen)) if built.seen else None
    start = time.perf_counter()
    try:
        schedule, var_vals = create_schedule_with_vars(outs, seen)
    except Exception as exc:  # noqa: BLE001 - tinygrad's own failure is a result
        first = str(exc).strip().splitlines()
        return [f"RAISES {type(exc).__name__}: {first[0] if first else ''}"], \
            time.perf_counter() - start
    elapsed = time.perf_counter() - start
    planned = memory_planner(schedule)
    lines = _with_plan(canonical_items(schedule), _plan_lines(planned))
    lines.append(moved_line(planned))
    if (values := var_vals_line(var_vals)) is not None:
        lines.append(values)
    return lines, elapsed


def pass_seconds(timing_text, wanted):
    """Seconds spent in the passes whose names `wanted(name)` accepts, read
    from lazy-opt's --mlir-timing text report as their share of the total:
    durations are printed to 0.1 ms only, too coarse for small graphs, and
    the percentages to 0.1 % of the total. 0.0 without a report."""
    m = re.search(r"Total Execution Time: ([\d.]+) seconds", timing_text)
    if not m:
        return 0.0
    total, percent = float(m.group(1)), 0.0
    for line in timing_text.splitlines():
        m = re.match(r"\s*[\d.]+ \(\s*([\d.]+)%\)\s+(\w+)\s*$", line)
        if m and wanted(m.group(2)):
            percent += float(m.group(1))
    return total * percent / 100


def lazy_schedule(text, lazy_opt, with_plan=True):
    """(canonical lines with plan, pass seconds) or (['ERROR ...'], 0)."""
    cmd = [lazy_opt, "--lazy-schedule",
           "--lazy-print-schedule=buffers=" + ("true" if with_plan else "false"),
           "--mlir-timing", "--mlir-disable-threading", "-o", "/dev/null", "-"]
    r = subprocess.run(cmd, input=text, capture_output=True, text=True)
    seconds = pass_seconds(r.stderr, lambda name: name.startswith("Lazy") and
                           name != "LazyPrintSchedule")
    if r.returncode != 0:
        errors = [l for l in r.stderr.splitlines() if "error:" in l]
        return [f"ERROR {errors[0] if errors else r.stderr.strip()[:200]}"], seconds
    lines = [l for l in r.stdout.splitlines() if not l.startswith("schedule @")]
    return lines, seconds


def _items(lines):
    """Split canonical lines into per-item blocks."""
    blocks, current = [], None
    for line in lines:
        if line.startswith("item "):
            current = [line]
            blocks.append(current)
        elif current is not None:
            current.append(line)
        else:
            blocks.append([line])
    return blocks


# Where tinygrad raises while scheduling, lazy-opt must reject the graph
# with the counterpart of tinygrad's message: (a regex of tinygrad's
# message, what lazy-opt's error says).
ERROR_COUNTERPARTS = (
    (r"cycle detected in graph", "cycle detected in graph"),
    (r"self operand of augmented assign must be contiguous",
     "self operand of augmented assign must be contiguous"),
    # ShapeTracker.reshape of a reduce to another size
    (r"size mismatched, can't reshape", "reshape must preserve the number of elements"),
    # _permute_reduce after pushing a view of lower rank into a reduce
    (r"invalid permutation", "(invalid permutation)"),
    # merging a reduce into one whose source is no reduce
    (r"can't merge reduceop", "cannot merge this reduce into the one it reads"),
    # View.pad's assertion while padding reduce inputs to a common shape
    (r"self\.shape=.*, arg=", "cannot pad the reduce inputs of one kernel to a common shape"),
)


def error_counterpart(raised):
    """What lazy-opt's error must say where tinygrad raised `raised`
    ("Type: message"); None for a failure with no known counterpart."""
    for pattern, ours in ERROR_COUNTERPARTS:
        if re.search(pattern, raised):
            return ours
    return None


def differences(want, got):
    """One line per difference between tinygrad's (want) and ours (got)."""
    if want and want[0].startswith("RAISES"):
        raised = want[0][len("RAISES "):]
        if not (got and got[0].startswith("ERROR")):
            return [f"tinygrad fails ({raised}) but lazy-opt schedules the graph"]
        ours = error_counterpart(raised)
        if ours is None:
            return [f"tinygrad fails ({raised}), a failure with no known lazy-opt "
                    f"counterpart; lazy-opt says: {got[0][len('ERROR '):]}"]
        if ours not in got[0]:
            return [f"tinygrad fails ({raised}) and lazy-opt rejects the graph, but not "
                    f"with '{ours}': {got[0][len('ERROR '):]}"]
        return []
    if got and got[0].startswith("ERROR"):
        return [f"lazy-opt fails: {got[0][6:]}"]
    w, g = _items(want), _items(got)
    out = []
    if len(w) != len(g):
        out.append(f"{len(w)} items in tinygrad, {len(g)} in lazy-opt")
    for i, (a, b) in enumerate(zip(w, g)):
        if a != b:
            for x, y in zip(a, b):
                if x != y:
                    out.append(f"item {i}: tinygrad `{x.strip()}` vs lazy `{y.strip()}`")
                    break
            else:
                out.append(f"item {i}: {len(a)} vs {len(b)} lines")
    return out


@contextlib.contextmanager
def _copy_kernel_env(enabled):
    """USE_COPY_KERNEL as tinygrad reads it: a cached getenv, so the cache
    is cleared around the change."""
    from tinygrad.helpers import getenv
    old = os.environ.get("USE_COPY_KERNEL")
    if bool(getenv("USE_COPY_KERNEL")) == bool(enabled):
        yield
        return
    os.environ["USE_COPY_KERNEL"] = "1" if enabled else "0"
    getenv.cache_clear()
    try:
        yield
    finally:
        if old is None:
            del os.environ["USE_COPY_KERNEL"]
        else:
            os.environ["USE_COPY_KERNEL"] = old
        getenv.cache_clear()


def export_built(built):
    """(module text, objects to keep alive): the lazy module of a built
    graph, with its flags in `lazy.flags`. Until tinygrad has scheduled the
    graph, keep the second value alive: tinygrad's memory planner keeps the
    buffers Python still references, and the module's `lazy.external` marks
    were made while these references were alive (dropping them first
    changes tinygrad's memory plan)."""
    from tinygrad.device import Device
    from ._export import _Exporter, collect_outputs, scheduler_flags
    outs = collect_outputs(built.outputs)
    exporter = _Exporter(Device.DEFAULT, built.seen)
    return exporter.module(outs, scheduler_flags(built.flags)), (exporter, outs)


def compare_built(built, lazy_opt):
    """Compare one built graph; returns (differences, tinygrad s, lazy s)."""
    from ._export import scheduler_flags
    text, keep_alive = export_built(built)  # noqa: F841 (see export_built)
    # tinygrad schedules under the flags the module records.
    from tinygrad.helpers import Context
    flags = scheduler_flags(built.flags)
    with Context(MULTIOUTPUT=int(flags["multi_output"]), FUSE_CONV_BW=int(flags["fuse_conv_bw"]),
                 FUSE_ARANGE=int(flags["fuse_arange"])), _copy_kernel_env(flags["use_copy_kernel"]):
        want, tiny_s = tinygrad_schedule(built)
    got, lazy_s = lazy_schedule(text, lazy_opt)
    return differences(want, got), tiny_s, lazy_s


def run_compare(script_path, lazy_opt, show_time=False, printer=print):
    module = _script.load_script(script_path)
    built = _script.call_build(module, script_path)
    diffs, tiny_s, lazy_s = compare_built(built, lazy_opt)
    for d in diffs:
        printer(d)
    if show_time:
        printer(f"time: tinygrad {tiny_s * 1e3:.2f} ms, lazy-schedule {lazy_s * 1e3:.2f} ms")
    identical = 0 if diffs else 1
    printer(f"{identical} identical, {1 - identical} different")
    return 0 if not diffs else 1
