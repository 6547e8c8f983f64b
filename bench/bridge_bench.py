#!/usr/bin/env python3
"""The in-process schedule round trip against tinygrad's own scheduler.

    python3 bench/bridge_bench.py [--repeat 5] [--layers 12]

For a transformer + AdamW training step (--layers blocks) and a conv net +
SGD step (4 conv/BatchNorm blocks), each round builds the graph twice,
fresh, and times `Tensor.schedule_with_vars` on it once with tinygrad's own
scheduler (create_schedule_with_vars + memory_planner) and once with
lazy-mlir's (LAZY_MLIR=schedule: export, lazy-schedule through the C API,
ScheduleItems back, memory plan included), interleaved. Prints nodes, the
median of each side, the speed-up, and where lazy-mlir's time goes
(export, schedule, building the items). Not a test.
"""

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("CLANG", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
sys.path.insert(0, HERE)

from schedule_bench import convnet_step, transformer_step  # noqa: E402


def timed_schedule(build, lazy):
    import gc
    from lazy_mlir.tinygrad import _bridge, _hook
    outs = build()
    gc.collect()
    stats = {}
    if lazy:
        _hook.enable("schedule")
        original = _bridge.schedule

        def recording(*args, **kwargs):
            items, var_vals, s = original(*args, **kwargs)
            stats.update(s)
            return items, var_vals, s
        _bridge.schedule = recording
    try:
        start = time.perf_counter()
        schedule, _ = outs[0].schedule_with_vars(*outs[1:])
        seconds = time.perf_counter() - start
    finally:
        if lazy:
            _bridge.schedule = original
            _hook.disable()
    nodes = len(schedule)
    del outs, schedule
    return seconds, nodes, stats


def measure(name, build, repeat):
    from lazy_mlir.tinygrad._export import _post_order, collect_outputs
    outs = build()
    lbs = collect_outputs(outs)
    nodes = len(_post_order(lbs, lambda lb: (lb._base,) if lb._base is not None
                            else getattr(lb, "srcs", ())))
    del outs, lbs
    tiny, ours, parts = [], [], []
    for _ in range(repeat):
        t, items_t, _ = timed_schedule(build, lazy=False)
        l, items_l, stats = timed_schedule(build, lazy=True)
        if items_t != items_l:
            raise SystemExit(f"{name}: tinygrad made {items_t} items, lazy-mlir {items_l}")
        tiny.append(t)
        ours.append(l)
        parts.append(stats)
    t, l = statistics.median(tiny), statistics.median(ours)
    part = {k: statistics.median(p[k] for p in parts) for k in ("export_s", "schedule_s", "build_s")}
    print(f"{name:<24} {nodes:>6} nodes {items_t:>5} items  tinygrad {t * 1e3:8.1f} ms  "
          f"lazy-mlir {l * 1e3:8.1f} ms  {t / l:5.2f}x  (export {part['export_s'] * 1e3:.1f}, "
          f"schedule {part['schedule_s'] * 1e3:.1f}, items {part['build_s'] * 1e3:.1f} ms)",
          flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--layers", type=int, default=12)
    args = ap.parse_args()
    print(f"median of {args.repeat} interleaved rounds, Tensor.schedule_with_vars on a fresh graph")
    measure(f"transformer{args.layers} adamw", lambda: transformer_step(args.layers), args.repeat)
    measure("convnet4 sgd", convnet_step, args.repeat)


if __name__ == "__main__":
    main()
