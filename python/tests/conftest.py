"""pytest set-up for lazy-mlir's Python tests.

tinygrad runs on its CLANG backend (set before tinygrad is imported), and
the built tools are found in the checkout's build/bin (override with
LAZY_MLIR_BUILD_DIR), and the compiled-program cache is off.
"""

import gc
import os
import sys

os.environ.setdefault("CLANG", "1")
# Tests compile, and nothing they compile goes to the user's cache: a test
# of the program cache names its own directory (LAZY_MLIR_CACHE_DIR).
os.environ["LAZY_MLIR_CACHE"] = "0"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pytest  # noqa: E402

from lazy_mlir import tool_path  # noqa: E402

LAZY_OPT = tool_path("lazy-opt")
LAZY_INTERP = tool_path("lazy-interp")


def fresh():
    """Free the previous test's graph before building the next one.

    tinygrad's graph construction depends on live objects (the lazy cache
    returns an existing node; `contiguous_child` reroutes reads through a
    live CONTIGUOUS), so a graph must not be built while an earlier copy of
    it is alive. gc.freeze() keeps each collection cheap: everything that
    survives is moved out of the collector's sight.
    """
    gc.collect()
    gc.freeze()


@pytest.fixture
def lazy_opt():
    if not os.access(LAZY_OPT, os.X_OK):
        pytest.skip(f"{LAZY_OPT} is not built (ninja -C build lazy-opt)")
    return LAZY_OPT


@pytest.fixture
def lazy_interp():
    if not os.access(LAZY_INTERP, os.X_OK):
        pytest.skip(f"{LAZY_INTERP} is not built (ninja -C build lazy-interp); numerics not checked")
    return LAZY_INTERP
