"""Output files are written whole or not at all (a temporary file beside
the output, renamed over it): concurrent writers to one path leave one
writer's complete output, and a failing run leaves an existing file alone,
for lazy-opt -o, lazy-run / lazy-interp --output-dir and the export CLI."""

import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import LAZY_INTERP


def chain(op, n):
    """A graph of `n` elementwise ops, a few hundred KB of text."""
    lines = ["func.func @g(%a: tensor<64xf32> {lazy.buffer = 0 : i64}) -> tensor<64xf32> {"]
    prev = "%a"
    for i in range(n):
        lines.append(f"  %v{i} = lazy.{op} {prev}, %a : tensor<64xf32>")
        prev = f"%v{i}"
    lines.append(f"  return {prev} : tensor<64xf32>")
    lines.append("}")
    return "\n".join(lines) + "\n"


def test_concurrent_lazy_opt_writers_leave_one_whole_output(tmp_path, lazy_opt):
    inputs, expected = [], []
    for op in ("add", "mul"):
        src = tmp_path / f"{op}.mlir"
        src.write_text(chain(op, 4000))
        alone = tmp_path / f"{op}.out"
        subprocess.run([lazy_opt, str(src), "-o", str(alone)], check=True, timeout=120)
        inputs.append(src)
        expected.append(alone.read_bytes())
    assert expected[0] != expected[1] and len(expected[0]) > 200_000
    target = tmp_path / "shared.mlir"
    for _ in range(12):
        writers = [subprocess.Popen([lazy_opt, str(src), "-o", str(target)]) for src in inputs]
        assert [w.wait(timeout=120) for w in writers] == [0, 0]
        assert target.read_bytes() in expected
    assert not [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name]


def test_failing_lazy_opt_keeps_the_output(tmp_path, lazy_opt):
    out = tmp_path / "out.mlir"
    out.write_text("previous contents\n")
    bad = tmp_path / "bad.mlir"
    bad.write_text("garbage\n")
    proc = subprocess.run([lazy_opt, str(bad), "-o", str(out)], capture_output=True, text=True)
    assert proc.returncode == 1 and "error:" in proc.stderr
    assert out.read_text() == "previous contents\n"


def test_lazy_interp_output_dir_is_written_whole(tmp_path):
    if not os.access(LAZY_INTERP, os.X_OK):
        pytest.skip("lazy-interp is not built")
    graph = tmp_path / "g.mlir"
    graph.write_text(chain("add", 3))
    for _ in range(2):  # the second run replaces the first's files
        subprocess.run([LAZY_INTERP, str(graph), "--seed=3", f"--output-dir={tmp_path}"],
                       check=True, capture_output=True, timeout=120)
    assert np.load(tmp_path / "out0.npy").shape == (64,)
    assert not [p.name for p in tmp_path.iterdir() if ".temp-" in p.name or ".tmp-" in p.name]


def test_failing_export_keeps_the_output(tmp_path):
    out = tmp_path / "graph.mlir"
    out.write_text("previous contents\n")
    script = tmp_path / "broken.py"
    script.write_text("def build():\n    raise ValueError('no graph')\n")
    assert export(script, out).returncode != 0
    assert out.read_text() == "previous contents\n"


def test_export_writes_through_a_temporary_file(tmp_path):
    out = tmp_path / "graph.mlir"
    out.write_text("previous contents\n")
    script = tmp_path / "ok.py"
    script.write_text("from tinygrad import Tensor\n\ndef build():\n    return [Tensor.empty(4) + 1]\n")
    assert export(script, out).returncode == 0
    assert "func.func" in out.read_text()
    assert oct(out.stat().st_mode & 0o777) == oct(0o666 & ~current_umask())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["graph.mlir", "ok.py"]


def export(script, out):
    env = dict(os.environ, CLANG="1")
    return subprocess.run([sys.executable, "-m", "lazy_mlir.tinygrad", "export", str(script), "-o", str(out)],
                          capture_output=True, text=True, env=env, timeout=300)


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("to_stdout", [False, True], ids=["-o", "stdout"])
def test_export_to_a_full_device_is_an_error(tmp_path, to_stdout):
    script = tmp_path / "ok.py"
    script.write_text("from tinygrad import Tensor\n\ndef build():\n    return [Tensor.empty(4) + 1]\n")
    env = dict(os.environ, CLANG="1")
    cmd = [sys.executable, "-m", "lazy_mlir.tinygrad", "export", str(script)]
    with open("/dev/full", "w") as full:
        proc = subprocess.run(cmd if to_stdout else cmd + ["-o", "/dev/full"],
                              stdout=full if to_stdout else subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env, timeout=300)
    assert proc.returncode == 2
    assert "cannot write: No space left on device" in proc.stderr
    assert "Traceback" not in proc.stderr
