"""The corpus: named tinygrad graphs, each a build() function.

A corpus entry is a function returning what a build() script returns (a
list of Tensors, or a dict with "outputs" and optionally "seen"), registered
with `@graph(name, ...)`:

* `flags`: the scheduler flags the graph is meant for (tinygrad names,
  e.g. `{"FUSE_ARANGE": 1}`). They are active while the graph is built
  (some builds schedule earlier outputs first) and exported with it.
* `context`: other tinygrad ContextVars to set while building
  (e.g. `{"SPLIT_REDUCEOP": 0}`).
* `half`: build with `dtypes.default_float = float16`.
* `kernels` / `items`: how many kernels (items, when EXT items count too)
  tinygrad 0.9.2 schedules for the outputs; the tests check it, so the
  re-expressed graph is known to be the one the original test scheduled.
* `fill`: how `check` fills the realized inputs (see lazy_mlir.tinygrad._check).
* `numerics`: True, or a string saying why the numbers are not compared.
* `symbolic`: the graph holds tinygrad Variables (symbolic shapes); tests
  that compile its kernels, export it in the compact form or run it
  through the in-process bridge skip it until those take Variables.

`generate.py` writes each entry out as a stand-alone build() script for
`python3 -m lazy_mlir.tinygrad export|check`.
"""

import contextlib

GRAPHS = {}


class Entry:
    def __init__(self, name, fn, flags, context, half, kernels, items, fill, numerics, symbolic=False):
        self.name = name
        self.category = name.split("/", 1)[0]
        self.fn = fn
        self.flags = dict(flags or {})
        self.context = dict(context or {})
        self.half = half
        self.kernels = kernels
        self.items = items
        self.fill = dict(fill or {})
        self.numerics = numerics
        self.symbolic = symbolic

    def __repr__(self):
        return f"<corpus {self.name}>"


def graph(name, *, flags=None, context=None, half=False, kernels=None, items=None, fill=None, numerics=True,
          symbolic=False):
    def register(fn):
        if name in GRAPHS:
            raise ValueError(f"duplicate corpus graph {name}")
        GRAPHS[name] = Entry(name, fn, flags, context, half, kernels, items, fill, numerics, symbolic)
        return fn
    return register


def add(name, fn, **kwargs):
    """Register a function built elsewhere (for generated families)."""
    graph(name, **kwargs)(fn)


@contextlib.contextmanager
def building(entry):
    """The tinygrad state an entry is built in."""
    from tinygrad import Tensor, dtypes
    from tinygrad.helpers import Context
    variables = {k: v for k, v in entry.flags.items() if k != "USE_COPY_KERNEL"}
    variables.update(entry.context)
    old_float, old_training = dtypes.default_float, Tensor.training
    Tensor.manual_seed(0)
    if entry.half:
        dtypes.default_float = dtypes.float16
    try:
        with Context(**variables):
            yield
    finally:
        dtypes.default_float, Tensor.training = old_float, old_training


def build(name):
    """Build the graph of `name`; returns the dict a build() script may return."""
    entry = load()[name]
    with building(entry):
        result = entry.fn()
    if not isinstance(result, dict):
        result = {"outputs": list(result) if isinstance(result, (list, tuple)) else [result]}
    result = dict(result)
    from lazy_mlir import _capi
    tinygrad_names = {tinygrad for _, tinygrad, _ in _capi.schedule_flags()}
    flags = {k: v for k, v in entry.flags.items() if k in tinygrad_names}
    result["flags"] = {**flags, **(result.get("flags") or {})}
    result["fill"] = {**entry.fill, **(result.get("fill") or {})}
    return result


def load():
    """Import every corpus module (registering its graphs) and return GRAPHS."""
    from . import ops, movement, schedule, training, assign, arange, symbolic  # noqa: F401
    return GRAPHS


# -- helpers shared by corpus modules -------------------------------------------

def realized(*shape, dtype=None):
    """A realized input buffer (its contents are filled by `check`)."""
    from tinygrad import Tensor
    return Tensor.empty(*shape, dtype=dtype).realize()


def preschedule(*tensors):
    """Schedule without running: the scheduled buffers then look realized."""
    for t in tensors:
        t.schedule()
