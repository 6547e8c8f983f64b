"""A kernel fused from a 100,000-op elementwise chain lowers for the CPU and
the GPU: the per-element emitter walks expressions with an explicit stack,
so depth is bounded by memory, not by the C++ stack."""

import subprocess

DEPTH = 100_000


def _chain(depth):
    lines = ["func.func @chain(%a: tensor<16xf32> {lazy.buffer = 0 : i64}) -> tensor<16xf32> {"]
    prev = "%a"
    for i in range(depth):
        lines.append(f"  %v{i} = lazy.neg {prev} : tensor<16xf32>")
        prev = f"%v{i}"
    lines += [f"  return {prev} : tensor<16xf32>", "}"]
    return "\n".join(lines) + "\n"


def test_deep_fused_chain_lowers(lazy_opt, tmp_path):
    graph = tmp_path / "chain.mlir"
    graph.write_text(_chain(DEPTH))
    scheduled = tmp_path / "scheduled.mlir"
    subprocess.run([lazy_opt, "--lazy-schedule", str(graph), "-o", str(scheduled)],
                   check=True, timeout=300)
    text = scheduled.read_text()
    assert text.count("lazy.kernel @") == 1
    assert text.count("lazy.neg") == DEPTH
    # unroll=1: one copy of the element's code (the default unrolls it).
    for lowering, op in (("--convert-lazy-to-loops", "arith.negf"),
                         ("--convert-lazy-to-gpu=unroll=1", "arith.negf")):
        proc = subprocess.run([lazy_opt, lowering, str(scheduled)], capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert proc.stdout.count(op) == DEPTH
