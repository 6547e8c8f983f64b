"""lazy-run --distributed under `mpirun -n N` (OpenMPI): tinygrad's own
multi-device programs, written with Tensor.shard, run as one rank per
device and match the single-process interpreter on every rank; gradients
are all-reduced through mpi.allreduce; failures are errors on every rank,
never a hang. Skipped, with the reason, only where MPI is absent."""

import ctypes
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from conftest import fresh
from lazy_mlir import tool_path
from lazy_mlir.tinygrad import export

LAZY_RUN = tool_path("lazy-run")
LAZY_OPT = tool_path("lazy-opt")
MPIRUN = shutil.which("mpirun")


def _openmpi_loads():
    try:
        ctypes.CDLL("libmpi.so.40", mode=ctypes.RTLD_GLOBAL)
        return True
    except OSError:
        return False


pytestmark = pytest.mark.skipif(
    not MPIRUN or not _openmpi_loads(),
    reason="MPI is absent (no mpirun or no libmpi.so.40): install openmpi-bin and "
           "libopenmpi-dev (scripts/setup.sh does)")

# mpirun refuses root without these (CI runs as root) and more ranks than
# cores without --oversubscribe (CI has 2 cores).
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def mpirun(n, *args, env=None, timeout=240):
    full_env = dict(os.environ, **MPI_ENV, **(env or {}))
    return subprocess.run([MPIRUN, "--oversubscribe", "-n", str(n), LAZY_RUN, "--distributed",
                           "--no-cache", *args],
                          capture_output=True, text=True, env=full_env, timeout=timeout)


def devices(n):
    return tuple("CLANG" if i == 0 else f"CLANG:{i}" for i in range(n))


def sgd_step(n, batch=6):
    """The second step of a data-parallel SGD with momentum: an MLP whose
    parameters are replicated on `n` devices and whose batch is sharded over
    them; the first step ran in tinygrad (so the momentum buffers hold
    values)."""
    from tinygrad import Tensor, nn
    from tinygrad.nn.optim import SGD
    Tensor.manual_seed(0)
    devs = devices(n)
    l1, l2 = nn.Linear(8, 16), nn.Linear(16, 4)
    params = [l1.weight, l1.bias, l2.weight, l2.bias]
    for p in params:
        p.shard_(devs).realize()
    opt = SGD(params, lr=0.01, momentum=0.9)
    x = Tensor.randn(batch, 8).shard(devs, axis=0).realize()
    y = Tensor.randn(batch, 4).shard(devs, axis=0).realize()

    def loss():
        return ((l2(l1(x).relu()) - y) ** 2).mean()

    with Tensor.train():
        opt.zero_grad()
        loss().backward()
        opt.step()
        opt.zero_grad()
        step_loss = loss()
        step_loss.backward()
        return [step_loss] + opt.schedule_step()


def matmul_chain(n):
    """Tensor parallel: x replicated, W1 sharded by columns, W2 by rows;
    the second matmul's partial sums are all-reduced."""
    from tinygrad import Tensor
    Tensor.manual_seed(1)
    devs = devices(n)
    x = Tensor.randn(4, 8).shard(devs).realize()
    w1 = Tensor.randn(8, 16).shard(devs, axis=1).realize()
    w2 = Tensor.randn(16, 6).shard(devs, axis=0).realize()
    return [(x @ w1).relu() @ w2]


def graph_file(tmp_path, build, *args):
    fresh()
    path = tmp_path / "graph.mlir"
    path.write_text(export(build(*args)))
    return str(path)


def distributed_ir(path, rank=None):
    option = "" if rank is None else f"=rank={rank}"
    proc = subprocess.run([LAZY_OPT, "--lazy-schedule=plan-memory=false", f"--lazy-distribute{option}",
                           path], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_data_parallel_sgd_step_matches_on_every_rank(tmp_path):
    path = graph_file(tmp_path, sgd_step, 2)
    proc = mpirun(2, "--check", path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    # Rank 0 prints every rank's lines (two per output: one per device).
    assert [line.split(":")[0] for line in lines[:-1]] == [f"out{i}" for i in range(18)]
    assert all(": match" in line for line in lines[:-1]), proc.stdout
    assert lines[-1] == "all outputs match"
    # The four gradients are all-reduced, once per rank, with mpi.allreduce.
    ir = distributed_ir(path)
    assert ir.count("lazy.all_reduce \"sum\"") == 8
    lowered = subprocess.run([LAZY_OPT, "--lazy-to-cpu"], input=distributed_ir(path, rank=1),
                             capture_output=True, text=True, timeout=120)
    assert lowered.returncode == 0, lowered.stderr
    assert lowered.stdout.count("llvm.call @MPI_Allreduce") == 4


def test_tensor_parallel_matmul_chain_matches(tmp_path):
    path = graph_file(tmp_path, matmul_chain, 2)
    assert distributed_ir(path).count("lazy.all_reduce \"sum\"") == 2
    proc = mpirun(2, "--check", path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "all outputs match"


def test_four_ranks(tmp_path):
    path = graph_file(tmp_path, matmul_chain, 4)
    proc = mpirun(4, "--check", path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # MPI may add four partial sums in another order than tinygrad's left
    # fold: within rounding, not always bit for bit.
    assert [line.split(",")[0] for line in proc.stdout.splitlines()] == \
        [f"out{i}: match" for i in range(4)] + ["all outputs match"]
    assert distributed_ir(path).count("lazy.all_reduce \"sum\"") == 4


def test_outputs_equal_the_single_process_run(tmp_path):
    """Every rank writes its own outputs; together they are the outputs of
    the same graph run in one process, bit for bit (a sum of two is the same
    whichever rank adds it)."""
    path = graph_file(tmp_path, sgd_step, 2)
    alone, ranks = tmp_path / "alone", tmp_path / "ranks"
    single = subprocess.run([LAZY_RUN, "--no-cache", path, "--output-dir", str(alone)],
                            capture_output=True, text=True, timeout=240)
    assert single.returncode == 0, single.stderr
    proc = mpirun(2, path, "--output-dir", str(ranks))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    names = sorted(os.listdir(alone))
    assert sorted(os.listdir(ranks)) == names and len(names) == 18
    for name in names:
        np.testing.assert_array_equal(np.load(ranks / name), np.load(alone / name), err_msg=name)


def test_too_few_or_too_many_ranks_is_an_error_on_every_rank(tmp_path):
    path = graph_file(tmp_path, matmul_chain, 2)
    for n in (1, 3):
        proc = mpirun(n, path, "--output-dir", str(tmp_path / "out"))
        assert proc.returncode != 0
        message = ("error: the schedule has 2 device(s) (CLANG, CLANG:1), one rank each: "
                   f"run it with mpirun -n 2, not {n}")
        assert sorted(re.findall(r"rank (\d+): " + re.escape(message), proc.stderr)) == \
            [str(r) for r in range(n)], proc.stderr
        assert not (tmp_path / "out").exists()


def test_a_failing_rank_stops_every_rank_before_the_run(tmp_path):
    path = graph_file(tmp_path, matmul_chain, 2)
    out = tmp_path / "out"
    proc = mpirun(2, path, "--output-dir", str(out), env={"LAZY_MPI_TEST_FAULT": "1:fail"})
    assert proc.returncode != 0
    assert "rank 1: error: failing before the run (LAZY_MPI_TEST_FAULT)" in proc.stderr
    assert ("rank 0: error: rank(s) 1 failed before the run (see their errors); nothing ran"
            in proc.stderr), proc.stderr
    assert not out.exists() or not os.listdir(out)


def test_a_stalled_rank_times_out_instead_of_hanging(tmp_path):
    path = graph_file(tmp_path, matmul_chain, 2)
    proc = mpirun(2, path, "--mpi-timeout=3", env={"LAZY_MPI_TEST_FAULT": "1:stall"}, timeout=120)
    assert proc.returncode != 0
    assert ("rank 0: error: no progress in 3 s (--mpi-timeout): another rank failed or hangs; "
            "ending the job") in proc.stderr, proc.stderr


def test_missing_mpi_library_is_a_clear_error(tmp_path):
    path = graph_file(tmp_path, matmul_chain, 2)
    proc = subprocess.run([LAZY_RUN, "--distributed", path], capture_output=True, text=True,
                          env=dict(os.environ, LAZY_MPI_LIBRARY=str(tmp_path / "libmpi-missing.so")),
                          timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.startswith("lazy-run: error: --distributed: cannot load OpenMPI (")
    assert "install openmpi-bin and libopenmpi-dev" in proc.stderr


def test_distributed_runs_on_the_cpu_only(tmp_path):
    path = graph_file(tmp_path, matmul_chain, 2)
    proc = subprocess.run([LAZY_RUN, "--distributed", "--device=emulate", path],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "--distributed runs each rank's program on the CPU" in proc.stderr


TP_SCRIPT = '''
from tinygrad import Tensor

def build():
    Tensor.manual_seed(1)
    devs = ("CLANG", "CLANG:1")
    x = Tensor.randn(4, 8).shard(devs).realize()
    w1 = Tensor.randn(8, 16).shard(devs, axis=1).realize()
    w2 = Tensor.randn(16, 6).shard(devs, axis=0).realize()
    return [(x @ w1).relu() @ w2]
'''


def test_a_tinygrad_script_runs_distributed_through_the_c_api(tmp_path):
    """Every rank runs the script, exports its graph and calls lazyRunGraph
    (python3 -m lazy_mlir.tinygrad run --distributed)."""
    script = tmp_path / "tp.py"
    script.write_text(TP_SCRIPT)
    env = dict(os.environ, **MPI_ENV)
    proc = subprocess.run([MPIRUN, "--oversubscribe", "-n", "2", sys.executable, "-m",
                           "lazy_mlir.tinygrad", "run", "--distributed", "--check", str(script),
                           "--output-dir", str(tmp_path / "out")],
                          capture_output=True, text=True, env=env, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-3:] == [
        "out0: match, max abs error 0.000000e+00 (float)",
        "out1: match, max abs error 0.000000e+00 (float)", "all outputs match"]
    assert sorted(os.listdir(tmp_path / "out")) == ["out0.npy", "out1.npy"]


def test_profile_counts_the_time_in_mpi(tmp_path):
    """--profile on a rank: each kernel's time, and the time its program
    waited in MPI calls, one per send, receive and all-reduce of rank 0's
    function in the profiled run."""
    path = graph_file(tmp_path, sgd_step, 2)
    rank0 = distributed_ir(path, rank=0)
    messages = sum(rank0.count(op) for op in ("lazy.send ", "lazy.recv ", "lazy.all_reduce "))
    proc = mpirun(2, path, "--profile", "--repeat", "2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    line = [x for x in proc.stdout.splitlines() if "MPI calls" in x]
    assert len(line) == 1, proc.stdout
    match = re.match(r"profile: (\d+) MPI calls, ([0-9.]+) ms in MPI \(all-reduce ([0-9.]+), "
                     r"send ([0-9.]+), receive ([0-9.]+)\)$", line[0])
    assert match and int(match.group(1)) == messages == 6, line
    total, parts = float(match.group(2)), [float(match.group(i)) for i in (3, 4, 5)]
    assert abs(total - sum(parts)) < 2e-3
