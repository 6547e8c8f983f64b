"""Every corpus graph, scheduled, compiles for NVIDIA sm_90 (cubin through
ptxas where it exists, PTX otherwise) and AMD gfx942 (HSACO through
ld.lld), and each binary holds every kernel the host code launches.

Graphs the scheduler rejects (as tinygrad does) have nothing to compile.
custom_random items (Tensor.rand) stay host code: a call of the runtime's
lazy_rt_custom_random into a host buffer that is copied to the device."""

import os
import re
import shutil
import subprocess

import pytest

from conftest import LAZY_OPT
from corpus import registry
from test_cpu_run import exported

GRAPHS = registry.load()
NAMES = sorted(GRAPHS)
HAVE_PTXAS = bool(shutil.which("ptxas")) or os.path.exists("/usr/local/cuda/bin/ptxas")
TARGETS = {
    "sm_90": "--lazy-to-nvvm=chip=sm_90 format=" + ("bin" if HAVE_PTXAS else "isa"),
    "gfx942": "--lazy-to-rocdl=chip=gfx942 format=bin",
}


def _run(args, text):
    return subprocess.run([LAZY_OPT, *args, "-"], input=text, capture_output=True,
                          text=True, timeout=300)


def _binary_holds(binary_line, kernel):
    """Whether the serialized object names `kernel` (an ELF symbol or a PTX
    entry; MLIR escapes non-printable bytes, not letters)."""
    return re.search(re.escape(kernel) + r"(?![A-Za-z0-9_])", binary_line) is not None


@pytest.fixture(scope="module")
def scheduled_cache():
    return {}


# The lowerings' error for a buffer the schedule reads and never writes.
SEEN_READ = "is read by the schedule but no item of it writes it"


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("name", NAMES)
def test_kernels_compile_for_gpu(name, target, lazy_opt, scheduled_cache):
    if name not in scheduled_cache:
        scheduled_cache.clear()
        scheduled_cache[name] = _run(["--lazy-schedule"], exported(name))
    sched = scheduled_cache[name]
    if sched.returncode != 0:
        assert "PLEASE submit a bug report" not in sched.stderr
        pytest.skip("the scheduler rejects this graph: " + sched.stderr.strip().splitlines()[0])
    proc = _run([TARGETS[target]], sched.stdout)
    out = proc.stdout + proc.stderr
    assert "PLEASE submit a bug report" not in out, f"lazy-opt crashed on {name}:\n{out}"
    if proc.returncode != 0 and SEEN_READ in proc.stderr:
        pytest.skip("the schedule reads a buffer an earlier schedule writes (lazy.seen), "
                    "which a compiled program cannot be given")
    assert proc.returncode == 0, f"{name} does not compile for {target}:\n{proc.stderr}"
    customs = len(re.findall(r'lazy\.ext "custom"', sched.stdout))
    assert len(re.findall(r"call @lazy_rt_custom_random\(", proc.stdout)) == customs
    assert len(re.findall(r"gpu\.memcpy", proc.stdout)) >= customs
    kernels = re.findall(r"lazy\.kernel @(\w+)", sched.stdout)
    launched = re.findall(r"gpu\.launch_func\s+@lazy_kernels::@(\w+)", proc.stdout)
    assert sorted(set(launched)) == sorted(set(kernels))
    assert len(launched) == len(re.findall(r"lazy\.launch @", sched.stdout))
    binaries = [l for l in proc.stdout.splitlines() if "gpu.binary @lazy_kernels" in l]
    if not kernels:
        return
    assert len(binaries) == 1
    missing = [k for k in kernels if not _binary_holds(binaries[0], k)]
    assert not missing, f"kernels missing from the {target} binary: {missing}"
