"""Memory: the reference interpreter holds only the live set, and the tools
work under a process address-space limit (RLIMIT_AS, `ulimit -v`): they
start, and a graph that needs more than the limit allows gets the
interpreter's budget error rather than an abort in the allocator."""

import os
import resource
import subprocess

import numpy as np
import pytest

from conftest import LAZY_INTERP, LAZY_OPT, tool_path

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "examples", "sum_add.mlir")
MB = 1 << 20


def run_limited(cmd, limit_bytes, **kwargs):
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return subprocess.run(cmd, preexec_fn=limit, capture_output=True, text=True,
                          timeout=300, **kwargs)


def broadcast_sums(count, rows, computed):
    """`count` sums of a 1024-float row broadcast to `rows` rows, all the
    broadcasts made before the first sum: views when `computed` is false,
    computed tensors (the broadcast plus 1) when true."""
    ty = f"tensor<{rows}x1024xf32>"
    out = "tensor<1x1xf32>"
    lines = [f"func.func @sums(%x: tensor<1024xf32> {{lazy.buffer = 0 : i64}}) -> ({', '.join([out] * count)}) {{"]
    if computed:
        lines.append(f"  %one = lazy.const 1.0 : {ty}")
    for i in range(count):
        lines += [f"  %c{i} = lazy.const {i}.0 : tensor<1024xf32>",
                  f"  %y{i} = lazy.add %x, %c{i} : tensor<1024xf32>",
                  f"  %r{i} = lazy.reshape %y{i} : tensor<1024xf32> -> tensor<1x1024xf32>",
                  f"  %v{i} = lazy.expand %r{i} : tensor<1x1024xf32> -> {ty}"]
        if computed:
            lines.append(f"  %w{i} = lazy.add %v{i}, %one : {ty}")
    name = "w" if computed else "v"
    for i in range(count):
        lines.append(f"  %s{i} = lazy.reduce_sum %{name}{i} axes [0, 1] : {ty} -> {out}")
    lines.append(f"  return {', '.join(f'%s{i}' for i in range(count))} : {', '.join([out] * count)}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def test_views_cost_no_memory(tmp_path):
    # 24 broadcasts of 64 MiB each, alive at once: 1.5 GiB if views were
    # copies (as before), a few KiB as views. Under a 1.2 GB limit the old
    # interpreter refused the graph.
    src = tmp_path / "views.mlir"
    src.write_text(broadcast_sums(24, 16384, computed=False))
    x = np.linspace(-1, 1, 1024, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    proc = run_limited([LAZY_INTERP, str(src), f"--input=0={tmp_path / 'x.npy'}",
                        f"--output-dir={tmp_path / 'out'}"], 1200 * MB)
    assert proc.returncode == 0, proc.stderr
    for i in range(24):
        got = np.load(tmp_path / "out" / f"out{i}.npy")
        # The interpreter sums in row-major order, one float32 at a time,
        # as cumsum does.
        want = np.cumsum(np.tile(x + np.float32(i), 16384), dtype=np.float32)[-1]
        assert got.shape == (1, 1)
        assert got[0, 0] == want


def test_budget_error_under_address_limit(tmp_path):
    # The same sums of computed tensors: 1.5 GiB that are truly alive at
    # once. Under the limit this is the budget's error, naming the limit,
    # never an abort.
    src = tmp_path / "computed.mlir"
    src.write_text(broadcast_sums(24, 16384, computed=True))
    proc = run_limited([LAZY_INTERP, str(src), "--seed=1", f"--output-dir={tmp_path / 'out'}"],
                       1200 * MB)
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert "over its budget" in proc.stderr
    assert "ulimit -v" in proc.stderr
    assert "LLVM ERROR" not in proc.stderr
    written = os.listdir(tmp_path / "out") if (tmp_path / "out").exists() else []
    assert not [name for name in written if name.startswith("out")]


@pytest.mark.parametrize("cmd", [
    [LAZY_OPT, EXAMPLE, "--lazy-schedule"],
    [LAZY_INTERP, EXAMPLE, "--seed=1", "--print"],
    [tool_path("lazy-run"), EXAMPLE, "--seed=1", "--check"],
    [tool_path("lazy-run"), EXAMPLE, "--seed=1", "--check", "--device=emulate"],
], ids=["lazy-opt", "lazy-interp", "lazy-run", "lazy-run-emulate"])
def test_tools_start_under_address_limit(cmd):
    # The tools run on a thread with a 1 GiB stack reservation, which an
    # 800 MB limit cannot map: a smaller stack is taken instead of dying in
    # pthread_create.
    proc = run_limited(cmd, 800 * MB)
    assert proc.returncode == 0, proc.stderr
    assert "LLVM ERROR" not in proc.stderr
