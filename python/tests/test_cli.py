"""`python3 -m lazy_mlir.tinygrad export|check`: outputs, exit statuses and
one-line errors (never a traceback for a user mistake)."""

import os
import subprocess
import sys
import textwrap

import pytest

from conftest import LAZY_INTERP


def run(*args, cwd=None):
    env = dict(os.environ)
    env.setdefault("CLANG", "1")
    return subprocess.run([sys.executable, "-m", "lazy_mlir.tinygrad", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300)


def script(tmp_path, name, source):
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return str(path)


SIMPLE = """
    import os
    os.environ["FUSE_ARANGE"] = "1"   # set before tinygrad is imported
    from tinygrad import Tensor
    from tinygrad.helpers import MULTIOUTPUT
    MULTIOUTPUT.value = 0             # a ContextVar assigned at module level

    def build():
        x = Tensor.empty(4, 4)
        return [(x.sum(1) * 2).exp2(), x.T + 1]
"""


def test_export_to_file_honours_script_flags(tmp_path, lazy_opt):
    path = script(tmp_path, "simple.py", SIMPLE)
    out = tmp_path / "graph.mlir"
    proc = run("export", path, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "lazy.flags = {multi_output = false, fuse_conv_bw = false, fuse_arange = true" in text
    assert subprocess.run([lazy_opt, str(out), "-o", os.devnull]).returncode == 0


def test_export_to_stdout_with_flags_dict(tmp_path):
    path = script(tmp_path, "flags.py", """
        from tinygrad import Tensor
        FLAGS = {"fuse_conv_bw": True}
        def build():
            return {"outputs": [Tensor.empty(3) + 1], "flags": {"USE_COPY_KERNEL": 1}}
    """)
    proc = run("export", path)
    assert proc.returncode == 0, proc.stderr
    assert "fuse_conv_bw = true, fuse_arange = false, use_copy_kernel = true" in proc.stdout


@pytest.mark.parametrize("source,message", [
    (None, "no such file"),
    ("x = 1\n", "defines no build() function"),
    ("def build(:\n", "syntax error"),
    ("def build():\n    return [1, 2]\n", "build() returned a int at position 0; expected tinygrad Tensors"),
    ("def build():\n    return 'x'\n", "build() returned str; expected a Tensor or a list of Tensors"),
    ("def build():\n    return {'tensors': []}\n", "build() returned a dict; it needs 'outputs'"),
    ("def build():\n    raise ValueError('bad shape')\n", "build() failed: ValueError: bad shape"),
    ("import no_such_module_here\ndef build(): pass\n", "loading the script failed: ModuleNotFoundError"),
    ("from tinygrad import Tensor, dtypes\n"
     "def build():\n    return [Tensor.empty(2, 4, 4).lazydata.cast(dtypes.imagef((2, 4, 4)))]\n",
     "image dtypes cannot be exported: UnaryOps.CAST node of shape (2, 4, 4)"),
    ("from tinygrad import Tensor\nfrom tinygrad.shape.symbolic import Variable\n"
     "def build():\n    return [Tensor.empty(4) * Tensor(Variable('n 1', 1, 9).bind(2))]\n",
     "whose name is not an identifier"),
    ("from tinygrad import Tensor\nFLAGS = {'FUSE_ALL': 1}\ndef build():\n    return [Tensor.empty(2)]\n",
     "unknown scheduler flag 'FUSE_ALL'"),
])
def test_user_mistakes_exit_2(tmp_path, source, message):
    path = str(tmp_path / "missing.py") if source is None else script(tmp_path, "bad.py", source)
    proc = run("export", path)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("command", ["export", "check", "compare"])
def test_unexportable_graph_exits_2_for_every_command(tmp_path, command, lazy_opt):
    """A graph the exporter refuses (here tinygrad's gradient through
    Tensor.to(), an op over two devices) is one `error:` line in each
    command, not a traceback (compare printed one)."""
    path = script(tmp_path, "two_devices.py", (
        "from tinygrad import Tensor\n"
        "def build():\n"
        "    x = Tensor.empty(4, requires_grad=True).realize()\n"
        "    ((x * x).to('CLANG:1') * 2.0).to('CLANG').log().sum().backward()\n"
        "    return [x.grad]\n"))
    proc = run(command, path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.startswith("error: ") and "one op over two devices" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_unwritable_output_exits_2(tmp_path):
    path = script(tmp_path, "simple.py", SIMPLE)
    proc = run("export", path, "-o", str(tmp_path / "no" / "such" / "dir" / "g.mlir"))
    assert proc.returncode == 2 and "cannot write" in proc.stderr and "Traceback" not in proc.stderr


def test_check_without_interp_exits_2(tmp_path):
    path = script(tmp_path, "simple.py", SIMPLE)
    proc = run("check", path, "--interp", str(tmp_path / "lazy-interp"))
    assert proc.returncode == 2
    assert "lazy-interp not found" in proc.stderr and "build it" in proc.stderr


def test_check_matches(tmp_path, lazy_interp):
    path = script(tmp_path, "check.py", """
        from tinygrad import Tensor, dtypes
        FILL = {"int": (1, 5)}
        def build():
            x, i = Tensor.empty(3, 5), Tensor.empty(3, 5, dtype=dtypes.int32)
            return [x.softmax(), i.div(2, upcast=False) * i, x.pad(((1, 1), (0, 0))).flip(1).sum(0) > 0]
    """)
    keep = tmp_path / "keep"
    proc = run("check", path, "--seed", "3", "--keep", str(keep))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "3 outputs match, 0 differ"
    assert "out1 (3, 5) si32: match (exact)" in proc.stdout
    assert sorted(os.listdir(keep)) == ["graph.mlir", "in0.npy", "in1.npy", "out"]


def test_fusion_option_of_export_and_check(tmp_path, lazy_opt):
    """--fusion=aggressive asks for it in the module's lazy.flags (export),
    and makes check run the fused kernels (lazy-run on the CPU) against
    tinygrad instead of the interpreter."""
    path = script(tmp_path, "fuse.py", """
        from tinygrad import Tensor
        def build():
            x, y = Tensor.empty(8, 2), Tensor.empty(8, 1)
            z = (y * 2 + 1).expand(8, 2)
            return [(x * z).sum(axis=1), (x + z).max(axis=1)]
    """)
    proc = run("export", path, "--fusion=aggressive")
    assert proc.returncode == 0, proc.stderr
    assert 'online_softmax = true, fusion = "aggressive"}' in proc.stdout
    printed = subprocess.run([lazy_opt, "--lazy-schedule", "--lazy-print-schedule", "-o", os.devnull, "-"],
                             input=proc.stdout, capture_output=True, text=True)
    assert printed.stdout.splitlines()[-1] == "moved: 1 kernels, 160 bytes", printed.stdout
    keep = tmp_path / "keep"
    proc = run("check", path, "--fusion=aggressive", "--keep", str(keep), "-v")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "lazy-run" in proc.stdout.splitlines()[0]
    assert proc.stdout.splitlines()[-1] == "2 outputs match, 0 differ"
    assert 'fusion = "aggressive"' in (keep / "graph.mlir").read_text()
    proc = run("export", path, "--fusion=greedy")
    assert proc.returncode == 2 and "invalid choice: 'greedy'" in proc.stderr


def test_script_named_like_a_standard_module(tmp_path):
    """A script named copy.py, exported from its own folder: tinygrad
    still gets Python's copy module."""
    path = script(tmp_path, "copy.py", """
        from tinygrad import Tensor
        def build():
            return [Tensor.empty(4) + 1]
    """)
    for command in ("export", "compare"):
        proc = run(command, path, cwd=str(tmp_path))
        assert proc.returncode == 0, command + ": " + proc.stderr


def test_export_warns_when_every_output_is_realized(tmp_path):
    path = script(tmp_path, "realized.py", """
        from tinygrad import Tensor
        def build():
            return [(Tensor.empty(4) + 1).realize()]
    """)
    proc = run("export", path)
    assert proc.returncode == 0, proc.stderr
    assert "every tensor build() returned is already realized" in proc.stderr
    proc = run("export", script(tmp_path, "fine.py", """
        from tinygrad import Tensor
        def build():
            return [Tensor.empty(4) + 1]
    """))
    assert proc.returncode == 0 and "warning" not in proc.stderr


FAKE_INTERP = """#!{python}
import sys, os, numpy as np
out = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--output-dir=")][0]
np.save(os.path.join(out, "out0.npy"), np.zeros((4,), np.float32))
np.save(os.path.join(out, "out1.npy"), np.zeros((2,), np.int64))
"""


def test_check_reports_differences(tmp_path):
    fake = tmp_path / "fake-interp"
    fake.write_text(FAKE_INTERP.format(python=sys.executable))
    fake.chmod(0o755)
    path = script(tmp_path, "diff.py", """
        from tinygrad import Tensor, dtypes
        def build():
            return [Tensor.empty(4) + 1, Tensor.empty(2, dtype=dtypes.int32)]
    """)
    proc = run("check", path, "--interp", str(fake))
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("out0 (4,) f32: DIFFER (4 of 4 elements differ")
    assert lines[1] == "out1 (2,) si32: DIFFER (dtype int64 != int32)"
    assert lines[-1] == "0 outputs match, 2 differ"


def test_check_reports_interp_failure(tmp_path):
    fake = tmp_path / "failing-interp"
    fake.write_text("#!/bin/sh\necho 'error: unsupported op' >&2\nexit 3\n")
    fake.chmod(0o755)
    path = script(tmp_path, "simple.py", SIMPLE)
    proc = run("check", path, "--interp", str(fake))
    assert proc.returncode == 1
    assert "error: lazy-interp failed (exit 3): error: unsupported op" in proc.stderr


def test_check_reports_tinygrad_failure(tmp_path):
    # tinygrad 0.9.2 cannot schedule this graph (test_advanced_indexing's
    # expected failure); check says so in one line
    fake = tmp_path / "fake-interp"
    fake.write_text(FAKE_INTERP.format(python=sys.executable))
    fake.chmod(0o755)
    path = script(tmp_path, "tg.py", """
        from tinygrad import Tensor
        from tinygrad.helpers import FUSE_ARANGE
        FUSE_ARANGE.value = 1
        def build():
            return [(Tensor.arange(10) + 1)[[0]]]
    """)
    proc = run("check", path, "--interp", str(fake))
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: tinygrad failed to realize the outputs: ValueError: size mismatched")
    assert "Traceback" not in proc.stderr


def test_generated_corpus_scripts_run(tmp_path, lazy_interp):
    from corpus.generate import write_scripts
    paths = write_scripts(str(tmp_path), ["schedule/reduce_same_size"])
    assert len(paths) == 1
    proc = run("check", paths[0])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "3 outputs match, 0 differ"


def test_interp_path_is_in_the_checkout():
    assert LAZY_INTERP.endswith(os.path.join("build", "bin", "lazy-interp"))


def test_run_executes_the_graph_in_process(tmp_path):
    """`run`: the script's graph through the C API's lazyRunGraph, with
    lazy-run's lines and exit code."""
    path = script(tmp_path, "run.py", """
        from tinygrad import Tensor
        def build():
            Tensor.manual_seed(2)
            x = Tensor.randn(4, 4).realize()
            return [(x @ x).sum(1), x.relu() + 1]
    """)
    proc = run("run", path, "--check", "--output-dir", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "all outputs match"
    assert sorted(os.listdir(tmp_path / "out")) == ["out0.npy", "out1.npy"]
    # A graph on two devices needs mpirun and --distributed: without them
    # it still runs in one process; with --distributed alone, one rank is
    # one too few.
    two = script(tmp_path, "two.py", """
        from tinygrad import Tensor
        def build():
            x = Tensor.randn(4).realize()
            return [x.to("CLANG:1") + 1]
    """)
    proc = run("run", two, "--distributed")
    assert proc.returncode == 1
    assert ("the schedule has 2 device(s) (CLANG, CLANG:1), one rank each: run it with mpirun -n 2, "
            "not 1") in proc.stderr or "cannot load OpenMPI" in proc.stderr
