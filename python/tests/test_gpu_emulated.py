"""Every corpus graph with checked numerics, through the GPU lowering on
the GPU emulator (`lazy-run --device=emulate --check`): the
convert-lazy-to-gpu kernels run as CPU functions, one fiber per GPU thread,
meeting at every gpu.all_reduce, over fewer blocks than launched. Their
outputs equal the reference interpreter's on the same seeded inputs.

This checks the GPU lowering's decisions (grid-stride loops, block-wide
reductions and their widening, host views and launch arguments) on
machines without a GPU; vendor code generation is checked by
test_gpu_compile.py and, on a GPU, by lazy-run --device=cuda|hip."""

import pytest

from corpus import registry
from lazy_mlir import LAZY_RUN_REFUSALS
from test_cpu_run import check_against_interpreter

GRAPHS = registry.load()
NAMES = sorted(n for n in GRAPHS if GRAPHS[n].numerics is True)
# fusion=aggressive does not take Variables yet (a located refusal).
AGGRESSIVE_NAMES = [n for n in NAMES if not GRAPHS[n].symbolic]
UNSUPPORTED = (LAZY_RUN_REFUSALS["gpu"], LAZY_RUN_REFUSALS["interpreter"])


@pytest.mark.parametrize("name", NAMES)
def test_emulated_gpu_matches_interpreter(name):
    check_against_interpreter(name, "emulate", UNSUPPORTED)


@pytest.mark.parametrize("name", AGGRESSIVE_NAMES)
def test_emulated_gpu_matches_interpreter_aggressive(name):
    check_against_interpreter(name, "emulate", UNSUPPORTED, fusion="aggressive")
