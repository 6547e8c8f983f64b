"""Graphs with symbolic shapes: tinygrad Variables bound to a value.

Re-expressed from tinygrad 0.9.2's test_assign.py (test_assign_kv_cache,
with its bound `start_pos`), test_symbolic_ops.py, test_symbolic_jit.py
(TinyJit realizes its arguments: the inputs here are realized buffers
reshaped to Variables), test_tensor_variable.py and
test_symbolic_shapetracker.py, and a LLaMA-style decode step (its cache
update through a shrunk view, then the attention of one query over the
first start_pos + 1 keys and values) for several values of start_pos.
Each is scheduled once for the bound value, as create_schedule_with_vars
does; `kernels` are what tinygrad 0.9.2 schedules, measured.

Their numerics are checked with lazy-interp at the bound values (it
evaluates the graph lazy-bind-variables makes) against tinygrad's. Their
kernels read through unbound Variables, which the lowerings do not take
yet: the corpus tests that compile or run kernels skip them (`symbolic`).
"""

from tinygrad import Tensor
from tinygrad.shape.symbolic import Variable

from .registry import graph, realized

R = realized


def preschedule(*tensors):
    """Schedule without running, with Variables (Tensor.schedule asserts
    there are none): the scheduled buffers then look realized."""
    for t in tensors:
        t.schedule_with_vars()


def V(name="i", lo=1, hi=10, value=3):
    return Variable(name, lo, hi).bind(value)


def _symbolic(name, kernels, **kwargs):
    return graph("symbolic/" + name, kernels=kernels, symbolic=True, **kwargs)


# -- test_assign.py: test_assign_kv_cache --------------------------------------

KV_BSZ, KV_CONTEXT = 2, 8


def _kv_step(pos):
    cache = R(KV_BSZ, KV_CONTEXT, 1, 1)
    xk = R(KV_BSZ, 1, 1, 1)
    start_pos = Variable("start_pos", 1, KV_CONTEXT).bind(pos)
    keys = cache.shrink((None, (0, start_pos), None, None)).cat(xk, dim=1).contiguous()
    cache.assign(keys.pad((None, (0, KV_CONTEXT - start_pos - 1), None, None)).contiguous())
    return [cache]


for _pos in (3, 4, 5):
    _symbolic(f"assign_kv_cache/start_pos_{_pos}", 3)(lambda pos=_pos: _kv_step(pos))


# -- test_symbolic_ops.py / test_symbolic_jit.py ---------------------------------

@_symbolic("ops/plus1", 1)
def _():
    return [R(3, 3).reshape(3, V()) + 1]


@_symbolic("ops/add", 1)
def _():
    vi = V()
    return [R(3, 3).reshape(3, vi) + R(3, 3).reshape(3, vi)]


@_symbolic("ops/matmul", 1)
def _():
    vi = V()
    return [R(3, 3).reshape(3, vi) @ R(3, 5).reshape(vi, 5)]


@_symbolic("ops/attention", 5)
def _():
    vi = V()
    q, k, v = R(2, 1, 4, 8), R(2, 3, 4, 8), R(2, 3, 4, 8)
    return [Tensor.scaled_dot_product_attention(q.transpose(1, 2), k.reshape(2, vi, 4, 8).transpose(1, 2),
                                                v.reshape(2, vi, 4, 8).transpose(1, 2))]


@_symbolic("ops/cat_dim0", 1)
def _():
    return [R(3, 3).reshape(V(), 3).cat(R(2, 3), dim=0)]


@_symbolic("ops/cat_dim1", 1)
def _():
    return [R(3, 3).reshape(3, V()).cat(R(3, 2), dim=1)]


@_symbolic("ops/cat_dim0_two_vars", 1)
def _():
    return [R(3, 3).reshape(V(), 3).cat(R(4, 3).reshape(V("j", 1, 10, 4), 3), dim=0)]


@_symbolic("ops/cat_dim1_two_vars", 1)
def _():
    return [R(3, 3).reshape(3, V()).cat(R(3, 4).reshape(3, V("j", 1, 10, 4)), dim=1)]


@_symbolic("ops/two_vars_plus1_ij", 1)
def _():
    return [R(3, 3).reshape(V(), 3) @ R(3, 4).reshape(3, V("j", 1, 10, 4)) + 1]


@_symbolic("ops/two_vars_plus1_ji", 1)
def _():
    return [R(4, 3).reshape(V("j", 1, 10, 4), 3) @ R(3, 3).reshape(3, V()) + 1]


@_symbolic("jit/mixed_with_no_symbol_kernel", 1)
def _():
    vi = V()
    s = R(3, 3).reshape(3, vi) @ R(3, 5).reshape(vi, 5)
    preschedule(s)
    return [s + s]


@_symbolic("jit/shrink", 1)
def _():
    vi = V("i", 1, 10, 2)
    return [R(7, 11).shrink(((3, 5), (vi, vi + 2))) + 1]


@_symbolic("jit/ones_sum", 1)
def _():
    return [R(3).reshape(V()).sum()]


@_symbolic("jit/mean_axis0", 2)
def _():
    return [R(3, 3).reshape(V(), 3).mean(0)]


@_symbolic("jit/mean_axis1", 1)
def _():
    return [R(3, 3).reshape(V(), 3).mean(1)]


@_symbolic("jit/var_2d", 2)
def _():
    return [R(3, 4).reshape(V(), V("j", 1, 10, 4)).var()]


# -- test_tensor_variable.py ------------------------------------------------------

@_symbolic("tensor_variable/add_tvar", 1)
def _():
    return [Tensor(V("a", 0, 10, 1)) + 3]


@_symbolic("tensor_variable/inner_tvar_node", 1)
def _():
    return [Tensor.from_node(V("w", 0, 10, 2) * 4)]


@_symbolic("tensor_variable/inner_tvar_mul_node", 1)
def _():
    return [Tensor(3) * (V("w", 0, 10, 2) * 4)]


@_symbolic("tensor_variable/symbolic_mean", 1)
def _():
    return [R(2, 2).reshape(2, V("a", 1, 10, 2)).mean()]


@_symbolic("tensor_variable/symbolic_mean_2d_axis_1", 2)
def _():
    return [R(2, 2).reshape(V("b", 1, 10, 2), V("a", 1, 10, 2)).mean(axis=1)]


@_symbolic("tensor_variable/symbolic_var", 2)
def _():
    return [R(2, 2).reshape(2, V("a", 1, 10, 2)).var()]


# -- test_symbolic_shapetracker.py --------------------------------------------------

@_symbolic("shapetracker/cat_dim0_three_vars", 2)
def _():
    i, j, k = V("i", 1, 5, 3), V("j", 1, 5, 3), V("k", 1, 5, 3)
    return [R(3, 4).reshape(i, 4).cat(R(3, 4).reshape(j, 4), dim=0).cat(R(3, 4).reshape(k, 4), dim=0)]


@_symbolic("shapetracker/pad", 1)
def _():
    v = V("v", 1, 100, 5)
    return [R(5).reshape(v).pad(((4, 0),)).contiguous()]


# -- a LLaMA-style decode step -------------------------------------------------------

D_HEADS, D_HEAD_DIM, D_CONTEXT = 2, 4, 8
D_DIM = D_HEADS * D_HEAD_DIM


def _decode(pos, part):
    """One token at start_pos = pos: the cache update (`update`), or, the
    update scheduled before, the attention of the query over the first
    pos + 1 cached keys and values (`attention`), as tinygrad 0.9.2's LLaMA
    Attention does with a bound start_pos."""
    start_pos = Variable("start_pos", 1, D_CONTEXT - 1).bind(pos)
    x = R(1, 1, D_DIM)
    wq, wk, wv, wo = (R(D_DIM, D_DIM) for _ in range(4))
    cache_kv = R(2, 1, D_CONTEXT, D_HEADS, D_HEAD_DIM)
    xq = x.linear(wq).reshape(1, 1, D_HEADS, D_HEAD_DIM)
    xk = x.linear(wk).reshape(1, 1, D_HEADS, D_HEAD_DIM)
    xv = x.linear(wv).reshape(1, 1, D_HEADS, D_HEAD_DIM)
    update = cache_kv.shrink((None, None, (start_pos, start_pos + 1), None, None)).assign(Tensor.stack(xk, xv))
    if part == "update":
        return [update]
    preschedule(update)
    keys = cache_kv[0].shrink((None, (0, start_pos + 1), None, None))
    values = cache_kv[1].shrink((None, (0, start_pos + 1), None, None))
    attn = xq.transpose(1, 2).scaled_dot_product_attention(keys.transpose(1, 2), values.transpose(1, 2))
    return [attn.transpose(1, 2).reshape(1, 1, D_DIM).linear(wo)]


for _pos in (1, 4, 7):
    _symbolic(f"llama_decode/update_start_pos_{_pos}", 3)(lambda pos=_pos: _decode(pos, "update"))
    _symbolic(f"llama_decode/attention_start_pos_{_pos}", 7)(lambda pos=_pos: _decode(pos, "attention"))
