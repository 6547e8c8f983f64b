"""The graphs scheduled by tinygrad 0.9.2's test/test_assign.py.

One entry per test (tests that realize several times give `<test>/<n>`,
earlier realizes scheduled first with `preschedule`), re-expressed here:
the same assigns, views, dtypes and realized/unrealized state of every
operand, without the assertions. Buffers the original fills with
`Tensor.full(...).contiguous().realize()` or `np.arange(...)` are realized
empty buffers here (only the fact that they are realized matters to the
scheduler; `check` fills them). `kernels` / `items` are what tinygrad 0.9.2
schedules, measured.

Where the original expects tinygrad to raise while scheduling (a cycle
through an assign, a non-contiguous self-operand) the graph is registered
without a count: the schedule comparison then requires lazy-opt to reject
it too.

JIT tests: TinyJit realizes its Tensor arguments before each call, and
from the second call on `x` is realized, so the graph registered is that
steady-state call (the first call is `add` below). The KV-cache test binds
a symbolic `start_pos` Variable: corpus/symbolic.py registers its steps
so; here they are registered with the concrete positions too.
"""

from tinygrad import Tensor, dtypes

from .registry import graph, preschedule, realized

R = realized
N = 200  # the original's size ("bigger than the cache")
RAISES = "tinygrad 0.9.2 raises while scheduling it (the original asserts it does)"
CYCLE = "tinygrad 0.9.2 raises 'cycle detected' while scheduling it (the original asserts it does)"
NONCONTIG = ("tinygrad 0.9.2 raises 'self operand of augmented assign must be contiguous' "
             "while scheduling it (the original asserts it does)")


def _assign(name, kernels=None, **kwargs):
    return graph("assign/" + name, kernels=kernels, **kwargs)


@_assign("simple_assignment", 1)
def _():
    a, b = R(N, N), R(N, N)
    a += b
    return [a]


def _zeros_then_ones(make_b_first):
    a = Tensor.zeros(10, 10).contiguous()
    b = Tensor.zeros(10, 10).contiguous() if make_b_first else None
    a.assign(Tensor.ones(10, 10))  # a is unrealized: the assign replaces it
    if b is None:
        b = Tensor.zeros(10, 10).contiguous()
    return a, b


# a is the const ones after the assign: realizing it schedules nothing; b
# must still be zeros (its own kernel).
@_assign("assign_zeros_good/1", items=0)
def _():
    a, b = _zeros_then_ones(False)
    return [a]


@_assign("assign_zeros_good/2", 1)
def _():
    a, b = _zeros_then_ones(False)
    preschedule(a)
    return [b]


@_assign("assign_zeros/1", items=0)
def _():
    a, b = _zeros_then_ones(True)
    return [a]


@_assign("assign_zeros/2", 1)
def _():
    a, b = _zeros_then_ones(True)
    preschedule(a)
    return [b]


@_assign("assign_add", items=2)
def _():
    x = Tensor([0])  # unrealized (a copy of PYTHON bytes): `+=` replaces it
    x += 1
    return [x]


@_assign("assign_add_twice", items=2)
def _():
    x = Tensor([0])
    x += 1
    x += 1
    return [x]


@_assign("assign_add_jit", 1)
def _():
    x = R(1, dtype=dtypes.int32)
    x += 1
    return [x]


@_assign("assign_other_jit", 1)
def _():
    x, a = R(1, dtype=dtypes.int32), R(1, dtype=dtypes.int32)
    x.assign(a)
    return [x]


@_assign("assign_add_other_jit", 1)
def _():
    x, a = R(1, dtype=dtypes.int32), R(1, dtype=dtypes.int32)
    x += a
    return [x]


@_assign("assign_changes", 3)
def _():
    a = R(4)
    old_a = a  # the same Tensor: it sees the assign
    a.assign(Tensor.full((4,), 2.).contiguous())
    return [a + old_a]


@_assign("assign_diamond_cycle", numerics=CYCLE)
def _():
    a = R(4)
    times_a = a * 3
    a.assign(Tensor.full((4,), 2.).contiguous())
    return [a + (times_a - 1)]


@_assign("assign_diamond_contiguous_cycle", numerics=CYCLE)
def _():
    a = R(4)
    times_a = a * 3
    a.assign(Tensor.full((4,), 2.))
    return [a.contiguous() + times_a - 1]


@_assign("assign_diamond_possible", 3)
def _():
    a = R(4)
    times_a = a * 3
    a.assign(Tensor.full((4,), 2.))
    return [a + (times_a - 1).contiguous()]


@_assign("assign_diamond_possible_contiguous", 4)
def _():
    a = R(4)
    times_a = a * 3
    a.assign(Tensor.full((4,), 2.).contiguous())
    return [a + (times_a - 1).contiguous()]


@_assign("assign_diamond_both_contiguous", 3)
def _():
    a = R(4)
    times_a = a * 3
    a.assign(Tensor.full((4,), 2.))
    return [a.contiguous() + (times_a - 1).contiguous()]


@_assign("assign_diamond_alt", 3)
def _():
    a = R(4)
    a.assign(Tensor.full((4,), 2.).contiguous())
    times_a = a * 3
    return [a + times_a]


@_assign("double_assign", 2)
def _():
    a = R(4)
    a += 1
    a += 1
    return [a]


@_assign("crossover_assign", 2)
def _():
    a, b = R(4, dtype=dtypes.int32), R(4, dtype=dtypes.int32)
    a += b
    b += a
    return [a, b]


@_assign("assign_double_diamond", 4)
def _():
    a, b = R(4, dtype=dtypes.int32), R(4, dtype=dtypes.int32)
    a_prev, b_prev = a * 4, b + 3
    b += a_prev.contiguous()
    a += b_prev.contiguous()
    return [a, b]


@_assign("assign_double_diamond_reduce", 4)
def _():
    a0, a1 = R(16, 16, dtype=dtypes.int32), R(16, 16, dtype=dtypes.int32)
    b0, b1 = R(16, dtype=dtypes.int32), R(16, dtype=dtypes.int32)
    r0 = (a0 - b1.contiguous()).sum(1)
    r1 = (a1 - b0.contiguous()).sum(1)
    b0.assign(r0 * b0)
    b1.assign(r1 * b1)
    return [b0, b1]


@_assign("crossunder_assign", numerics=CYCLE)
def _():
    a, b = R(4, dtype=dtypes.int32), R(4, dtype=dtypes.int32)
    c = a + 9
    a += b
    b += c
    return [a, b]


# test_assign_kv_cache: bsz 2, max_context 8; the first call writes a
# 3-token prompt into the unrealized cache (the assign replaces it), later
# calls append one token at start_pos = 3, 4, 5 to the realized cache.
KV_BSZ, KV_CONTEXT = 2, 8


@_assign("assign_kv_cache/prompt", 1)
def _():
    cache = Tensor.zeros(KV_BSZ, KV_CONTEXT, 1, 1).contiguous()
    xk = R(KV_BSZ, 3, 1, 1)
    cache.assign(xk.pad((None, (0, KV_CONTEXT - 3), None, None)).contiguous())
    return [cache]


def _kv_step(start_pos):
    cache = R(KV_BSZ, KV_CONTEXT, 1, 1)
    xk = R(KV_BSZ, 1, 1, 1)
    keys = cache.shrink((None, (0, start_pos), None, None)).cat(xk, dim=1).contiguous()
    cache.assign(keys.pad((None, (0, KV_CONTEXT - start_pos - 1), None, None)).contiguous())
    return [cache]


for _pos in (3, 4, 5):
    _assign(f"assign_kv_cache/start_pos_{_pos}", 3)(lambda pos=_pos: _kv_step(pos))


@_assign("assign_contiguous", 2)
def _():
    b = R(4, 4)
    a = R(4, 4) + 1
    b.assign(a.contiguous())
    return [b]


@_assign("assign_contiguous_permute", 2)
def _():
    b = R(4, 4)
    a = (R(4, 4) + 1).permute((1, 0))
    b.assign(a.contiguous())
    return [b]


@_assign("permuted_assignment", numerics=NONCONTIG)
def _():
    a, b = R(N, N), R(N, N)
    a = a.permute(1, 0)
    a += b
    return [a]


@_assign("post_permuted_assignment", numerics=NONCONTIG)
def _():
    a, b = R(N, N), R(N, N)
    a.assign(a.permute(1, 0) + b)
    return [a]


@_assign("simple_assignment_multioutput", 1)
def _():
    a = R(32, 32)
    b, c, d = R(32), R(32), R(32)
    r = a.sum(axis=1)
    b.assign(r + b)
    c.assign(r + c)
    d.assign(r + d)
    return [b, c, d]


@_assign("permuted_assignment_correct", numerics=NONCONTIG)
def _():
    a, b = R(4, 4, dtype=dtypes.int32), R(4, 4, dtype=dtypes.int32)
    a = a.permute(1, 0)
    a.assign(a + b)
    return [a]


@_assign("permuted_reduceop_child_dual_use", numerics=NONCONTIG)
def _():
    a, b = R(32, 32, 32), R(32, 32)
    r = a.sum(axis=1)
    b.assign(r + b.permute(1, 0))
    return [b]


@_assign("permuted_reduceop_multioutput_dual_use", numerics=NONCONTIG)
def _():
    a, b, c = R(32, 32, 32), R(32, 32), R(32, 32)
    r = a.sum(axis=1)
    b_perm = b.permute(1, 0)
    b.assign(r + b)
    c.assign(r + b_perm)
    return [b, c]


@_assign("permuted_reduceop_multioutput_dual_use_possible", 2)
def _():
    a = R(32, 32, 32, dtype=dtypes.int32)
    b, c = R(32, 32, dtype=dtypes.int32), R(32, 32, dtype=dtypes.int32)
    r = a.sum(axis=1)
    b_perm = b.permute(1, 0)
    b.assign(r + b)
    c.assign(r + b_perm.contiguous())
    return [b, c]


@_assign("permuted_assignment_masked_view_possible", 1)
def _():
    a = R(4, 4)
    b = a.shrink((None, (0, 2))).pad((None, (0, 2)), 2)
    a.assign(a + b)
    return [a]


@_assign("permuted_assignment_masked_view_not_contiguous", numerics=NONCONTIG)
def _():
    a = R(4, 4)
    b = a.shrink((None, (0, 2))).pad((None, (0, 2)), 2).permute(1, 0)
    a.assign(a + b)
    return [a]
