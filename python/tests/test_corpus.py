"""Every corpus graph: export -> lazy-opt parses and verifies it; tinygrad
schedules the recorded number of kernels for it; and lazy-interp computes
tinygrad's numbers for it (when lazy-interp is built)."""

import subprocess

import pytest

from conftest import fresh
from corpus import registry
from lazy_mlir.tinygrad import export
from lazy_mlir.tinygrad._check import check_outputs
from lazy_mlir.tinygrad._export import collect_outputs

GRAPHS = registry.load()
NAMES = sorted(GRAPHS)
COUNTED = [n for n in NAMES if GRAPHS[n].kernels is not None or GRAPHS[n].items is not None]


def _export(name):
    built = registry.build(name)
    return export(built["outputs"], flags=built["flags"], seen=built.get("seen"))


@pytest.mark.parametrize("name", NAMES)
def test_export_verifies(name, lazy_opt):
    fresh()
    text = _export(name)
    proc = subprocess.run([lazy_opt, "-o", "/dev/null"], input=text, capture_output=True, text=True)
    assert proc.returncode == 0, f"lazy-opt rejected {name}:\n{proc.stderr}\n{text}"


@pytest.mark.parametrize("name", COUNTED)
def test_kernel_count(name):
    """The re-expressed graph schedules as the original test's did."""
    from tinygrad.engine.schedule import create_schedule
    from tinygrad.helpers import Context
    from tinygrad.ops import MetaOps
    fresh()
    entry = GRAPHS[name]
    built = registry.build(name)
    flags = {k: v for k, v in entry.flags.items() if k != "USE_COPY_KERNEL"}
    with Context(**flags):
        schedule = create_schedule(collect_outputs(built["outputs"]))
    if entry.items is not None:
        assert len(schedule) == entry.items
    else:
        assert len([si for si in schedule if si.ast.op is MetaOps.KERNEL]) == entry.kernels


@pytest.mark.parametrize("name", NAMES)
def test_numerics(name, lazy_interp):
    entry = GRAPHS[name]
    if entry.numerics is not True:
        pytest.skip(entry.numerics)
    fresh()
    built = registry.build(name)
    results = check_outputs(built["outputs"], built["flags"], built.get("seen"), built["fill"],
                            seed=0, interp=lazy_interp)
    bad = [f"{label}: {detail}" for label, ok, detail in results if not ok]
    assert not bad, f"{name}: lazy-interp differs from tinygrad:\n" + "\n".join(bad)
