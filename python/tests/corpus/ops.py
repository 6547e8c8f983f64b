"""Every LazyBuffer op on every dtype it accepts, plus consts and meta ops.

Elementwise and reduce graphs are built at the LazyBuffer level
(`lb.e(op, ...)`, `lb.r(op, axes)`) so that each op appears exactly once,
without the Tensor API's casts and rewrites around it.
"""

import numpy as np

from tinygrad import Tensor, dtypes
from tinygrad.helpers import Context
from tinygrad.ops import BinaryOps, ReduceOps, TernaryOps, UnaryOps

from .registry import graph, preschedule, realized

NO_BF16 = "tinygrad 0.9.2's CLANG backend cannot compile bfloat16"
NO_SHIFT = "tinygrad 0.9.2's CLANG renderer has no SHL/SHR"
NO_MULACC = "tinygrad 0.9.2's CLANG renderer has no MULACC"
NO_INT64_MIN = "tinygrad 0.9.2 renders INT64_MIN as a C literal that clang -Werror rejects"

DTYPES = {
    "bool": dtypes.bool, "int8": dtypes.int8, "uint8": dtypes.uint8, "int16": dtypes.int16,
    "uint16": dtypes.uint16, "int32": dtypes.int32, "uint32": dtypes.uint32, "int64": dtypes.int64,
    "uint64": dtypes.uint64, "half": dtypes.float16, "bfloat16": dtypes.bfloat16,
    "float": dtypes.float32, "double": dtypes.float64,
}
FLOAT_UNARY = (UnaryOps.EXP2, UnaryOps.LOG2, UnaryOps.SIN, UnaryOps.SQRT, UnaryOps.RECIP)
SHARED_BINARY = (BinaryOps.ADD, BinaryOps.MUL, BinaryOps.MAX, BinaryOps.CMPLT, BinaryOps.CMPNE)
INT_BINARY = (BinaryOps.IDIV, BinaryOps.MOD, BinaryOps.XOR, BinaryOps.OR, BinaryOps.AND)
BOOL_BINARY = (BinaryOps.XOR, BinaryOps.OR, BinaryOps.AND)


def _t(lb):
    return Tensor(lb, device=lb.device)


def _numerics(dtype):
    return NO_BF16 if dtype == dtypes.bfloat16 else True


def _elementwise(dtype):
    def build():
        x, y = realized(3, 4, dtype=dtype).lazydata, realized(3, 4, dtype=dtype).lazydata
        cond = realized(3, 4, dtype=dtypes.bool).lazydata
        outs = []
        if dtypes.is_float(dtype):
            outs += [x.e(op) for op in FLOAT_UNARY]
        if dtype != dtypes.bool:
            outs.append(x.e(UnaryOps.NEG))
        outs += [x.e(op, y) for op in SHARED_BINARY]
        if dtypes.is_int(dtype):
            outs += [x.e(op, y) for op in INT_BINARY]
        elif dtype == dtypes.bool:
            outs += [x.e(op, y) for op in BOOL_BINARY]
        outs.append(cond.e(TernaryOps.WHERE, x, y))
        if dtype != dtypes.bool:
            # a reduce of an elementwise op of a view: the common shape
            outs.append(x.r(ReduceOps.SUM, (1,)))
            if dtype != dtypes.int64:  # MAX starts from INT64_MIN: see NO_INT64_MIN
                outs.append(x.e(BinaryOps.MUL, y).r(ReduceOps.MAX, (0,)))
            outs.append(x.permute((1, 0)).r(ReduceOps.SUM, (0, 1)))
        return [_t(o) for o in outs]
    return build


def _shifts(dtype):
    def build():
        x, y = realized(3, 4, dtype=dtype).lazydata, realized(3, 4, dtype=dtype).lazydata
        return [_t(x.e(BinaryOps.SHL, y)), _t(x.e(BinaryOps.SHR, y))]
    return build


def _casts(dtype, targets):
    def build():
        x = realized(2, 5, dtype=dtype).lazydata
        return [_t(x.cast(target)) for target in targets]
    return build


def _bitcasts(dtype, targets):
    def build():
        x = realized(2, 4, dtype=dtype).lazydata
        outs = [x.cast(t, bitcast=True, allow_buffer_view=False) for t in targets]
        return [_t(o) for o in outs]
    return build


def _bitcast_targets(dtype, bf16):
    return [t for t in DTYPES.values() if t.itemsize == dtype.itemsize and t not in (dtype, dtypes.bool)
            and (t == dtypes.bfloat16) == bf16]


def _consts(dtype, with_int64_min=False):
    def build():
        if dtype == dtypes.bool:
            values = [True, False]
        elif dtypes.is_int(dtype):
            values = [0, 1, dtypes.min(dtype), dtypes.max(dtype)]
            if dtype == dtypes.int64 and not with_int64_min:
                values.remove(dtypes.min(dtype))
        else:
            values = [0.0, -0.0, 1.5, 0.1, 1e-5, float("inf"), float("-inf"), float("nan"), 65504.0]
        outs = [Tensor(v, dtype=dtype) for v in values]          # rank-0 CONST bases
        outs += [Tensor.full((2, 3), values[-1], dtype=dtype)]   # a const seen through a view
        return outs
    return build


for _name, _dtype in DTYPES.items():
    graph(f"dtype/{_name}/elementwise", numerics=_numerics(_dtype))(_elementwise(_dtype))
    graph(f"dtype/{_name}/const", numerics=_numerics(_dtype))(_consts(_dtype))
    if _dtype == dtypes.int64:
        graph(f"dtype/{_name}/const_min", numerics=NO_INT64_MIN)(_consts(_dtype, with_int64_min=True))
        graph(f"dtype/{_name}/reduce_max", numerics=NO_INT64_MIN)(
            lambda: [_t(realized(3, 4, dtype=dtypes.int64).lazydata.r(ReduceOps.MAX, (1,)))])
    _plain = [t for t in DTYPES.values() if t != dtypes.bfloat16]
    graph(f"dtype/{_name}/cast", numerics=_numerics(_dtype))(_casts(_dtype, _plain))
    if _dtype != dtypes.bfloat16:
        graph(f"dtype/{_name}/cast_to_bfloat16", numerics=NO_BF16)(_casts(_dtype, [dtypes.bfloat16]))
    if dtypes.is_int(_dtype):
        graph(f"dtype/{_name}/shift", fill={"int": (0, 7)}, numerics=NO_SHIFT)(_shifts(_dtype))
    if _dtype != dtypes.bool:
        graph(f"dtype/{_name}/bitcast", numerics=_numerics(_dtype))(
            _bitcasts(_dtype, _bitcast_targets(_dtype, False)))
        if _dtype.itemsize == 2 and _dtype != dtypes.bfloat16:
            graph(f"dtype/{_name}/bitcast_to_bfloat16", numerics=NO_BF16)(
                _bitcasts(_dtype, _bitcast_targets(_dtype, True)))


@graph("ops/threefry")
def _():
    with Context(THREEFRY=1):
        return [Tensor.rand(4, 4), Tensor.randint(3, low=0, high=10)]


@graph("ops/threefry_direct")
def _():
    x, key = realized(8, dtype=dtypes.uint64).lazydata, realized(8, dtype=dtypes.uint64).lazydata
    return [_t(x.e(BinaryOps.THREEFRY, key))]


@graph("ops/mulacc", numerics=NO_MULACC)
def _():
    a, b, c = (realized(4, 4).lazydata for _ in range(3))
    return [_t(a.e(TernaryOps.MULACC, b, c))]


@graph("ops/reduce_axes")
def _():
    x = realized(2, 3, 4, 5)
    return [x.sum(axis=(0, 2), keepdim=True), x.max(axis=3), x.sum(), x.max(), x.sum(axis=1).max(axis=0),
            realized(6, dtype=dtypes.int8).sum(), realized(6, dtype=dtypes.bool).any()]


@graph("ops/matmul_half")
def _():
    # Half matmuls in a shape tinygrad's tensor cores take (its
    # test_linearizer's), a batch of two: a @ b on halves (products rounded
    # to half, summed in f32, cast back to half) gets the GPU's
    # tensor-core plan; the halves cast to f32 first are realized, so that
    # matmul is f32's. Not here: a.matmul(b, acc_dtype=float) returned as
    # f32, whose sums of half-rounded products tensor cores (exact
    # products) leave f32's tolerance (TensorCores.h).
    a = realized(2, 32, 64, dtype=dtypes.float16)
    b = realized(2, 64, 16, dtype=dtypes.float16)
    return [a @ b, a.float() @ b.float()]


@graph("ops/reduce_size1_axes")
def _():
    x = realized(1, 4, 1)
    return [x.sum(axis=(0, 2)), x.sum(axis=0), x.max()]


@graph("ops/empty_output")
def _():
    return [Tensor.empty(3, 4), Tensor.empty(2, dtype=dtypes.int32)]


@graph("ops/copy_devices")
def _():
    x = realized(3, 4)
    there = (x + 1).to("CLANG:1")
    back = (there * 2).to(x.device)
    return [there, back, x.to("CLANG:1")[1:]]


@graph("ops/copy_kernel", flags={"USE_COPY_KERNEL": 1}, kernels=5)
def _():
    """USE_COPY_KERNEL: copies between devices of one type are byte-copy
    kernels (not EXT items)."""
    x = realized(3, 4)
    there = (x + 1).to("CLANG:1")
    back = (there * 2).to(x.device)
    ints = realized(5, dtype=dtypes.int32).to("CLANG:1")
    return [there, back, ints]


@graph("ops/copy_from_numpy", fill={"keep": True})
def _():
    host = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    return [host * 2, Tensor([1, 2, 3]) + 1]


@graph("ops/contiguous")
def _():
    x = realized(4, 6)
    return [x.T.contiguous(), x.contiguous(), (x + 1).contiguous(), x[1:3].contiguous(),
            Tensor.full((2, 2), 3.0).contiguous()]


@graph("ops/contiguous_no_buffer_view")
def _():
    x = realized(4, 6).lazydata
    return [_t(x.shrink(((1, 3), (0, 6))).contiguous(allow_buffer_view=False))]


@graph("ops/forced_realize")
def _():
    x = realized(4, 4)
    chain = (x * 2).contiguous()
    return [chain + 1, chain.sum()]


@graph("ops/custom_rand")
def _():
    return [Tensor.rand(3, 4) * 2, Tensor.randn(5)]


@graph("ops/assign_full")
def _():
    x, y = realized(4, 4), realized(4, 4)
    return [x.assign(x * 2 + y)]


@graph("ops/assign_shrink")
def _():
    x = realized(4, 6)
    return [x[:, 1:4].assign(realized(4, 3) + 1)]


@graph("ops/assign_reshaped_value")
def _():
    x = realized(16)
    return [x.assign(realized(4, 4).reshape(16) * 3)]


@graph("ops/assign_shared_buffer")
def _():
    x = realized(8)
    updated = x.assign(x + 1)
    preschedule(updated)  # now realized, sharing x's Buffer
    return [updated * 2 + x]


@graph("ops/buffer_view")
def _():
    x = realized(4, 6)
    return [x[1:3].contiguous() * 2, x.bitcast(dtypes.int32) + 1, x.reshape(24)[5:17].contiguous()]


@graph("ops/sub_buffer_argument")
def _():
    x = realized(10)
    part = x[2:6].contiguous().realize()  # a realized MetaOps.VIEW: a sub-buffer at 8 bytes
    return [part * 2, x + 1]


@graph("ops/seen")
def _():
    x, y = realized(4), realized(4)
    first = (x + y).contiguous()
    out = first * 2
    return {"outputs": [out], "seen": [first]}


@graph("ops/multi_output_shared")
def _():
    x = realized(4, 4)
    s = x.sum(1)
    return [s, s + 1, x, x.T]


@graph("ops/const_base_with_view_st", numerics=True)
def _():
    # cast() of an unrealized unmasked const: a CONST base whose own st is
    # the expanded view (see the report: not expressible exactly)
    return [Tensor.full((4, 4), 2).cast(dtypes.float32) + realized(4, 4)]


@graph("ops/float_constants_exact", numerics=True)
def _():
    # tinygrad keeps each const's Python float (0.8, not float32's
    # 0.800000011920929) and folds 1.0 + 0.8 from it: the schedule must carry
    # the double for the kernel to compute the same number.
    x = realized(4)
    h = realized(4, dtype=dtypes.float16)
    return [x + x * 0.8, h * 0.1 + 1e-5, x.exp2() * (1 / 3)]


@graph("ops/metadata_backward")
def _():
    w = realized(3, 3)
    w.requires_grad = True
    x = realized(2, 3)
    (x @ w).relu().sum().backward()
    return [w.grad]


@graph("ops/sharded_multi_device")
def _():
    # a MultiLazyBuffer: one LazyBuffer per device; the outputs are all shards
    x = realized(4, 6).shard(("CLANG", "CLANG:1"), axis=0)
    y = (x * 2 + 1).sum(axis=1)
    return [y, y + 1]


@graph("ops/seen_read_by_reduce", kernels=2)
def _():
    # a seen base (scheduled by an earlier call) read by a reduce and an
    # elementwise kernel: both take its buffer as an input
    x, y = realized(4, 4), realized(4, 4)
    first = (x * y).contiguous()
    return {"outputs": [first.sum(1), first + 1], "seen": [first]}


@graph("ops/assign_two_targets_one_value", kernels=1)
def _():
    # one reduce's value assigned to b (which it reads) and to c: a
    # multi-output kernel whose second output needs b's old contents
    a, b, c = realized(4, 4), realized(4), realized(4)
    s = a.sum(1) + b
    return [b.assign(s), c.assign(s)]


@graph("ops/fused_arange_into_wider_reduce", flags={"FUSE_ARANGE": 1},
       numerics="tinygrad 0.9.2 raises 'size mismatched' while scheduling it")
def _():
    # a fused arange reshaped into a reduce over more dims: the outer reduce
    # is reshaped to the arange's (rank-2) input shape, where its axes
    # (1, 2) name a dim past the rank; tinygrad then fails to reshape
    a = realized(1, 3, 2, dtype=dtypes.int32)
    return [(Tensor.arange(6).reshape(1, 3, 2) * a).sum((1, 2))]


@graph("ops/memory_plan_two_carved", kernels=6)
def _():
    # the memory planner carves the first and the last temporaries (8
    # floats each) out of the middle one (16), which is free before and
    # after its use; the first is the schedule's first buffer (lazy-opt
    # crashed rewriting it, found by scripts/fuzz_compare.py)
    x = realized(8)
    a = (x + 1).contiguous()
    p = (a * 2).contiguous()
    b = (p.pad(((0, 8),)) + 1).contiguous()
    q = (b.shrink(((0, 8),)) * 3).contiguous()
    c = (q + 4).contiguous()
    return [p, q, c * 5]


@graph("ops/fused_reduce_view_below_its_rank", flags={"FUSE_CONV_BW": 1},
       numerics="tinygrad 0.9.2 raises 'invalid permutation' while scheduling it")
def _():
    # the gradient of a cumsum over an expanded axis: the cumsum's window
    # sum (rank 6) is read as rank 3 by the expand's sum, which FUSE_CONV_BW
    # keeps in one kernel; pushing that view into the window sum's input
    # permutes by an axis past the new rank, and tinygrad fails
    x = realized(2, 3)
    x.requires_grad = True
    x.reshape(1, 2, 3).expand(3, 2, 3).cumsum(0).sum().backward()
    return [x.grad]


@graph("ops/fused_reduce_padded_unsafe_input", flags={"FUSE_CONV_BW": 1}, kernels=1,
       numerics="tinygrad 0.9.2 computes inf here (the reciprocal runs in the padding)")
def _():
    # fuse-conv-bw merges the outer sum into the inner one through the pad,
    # which moves the padding into the inner sum's input: the reciprocal then
    # runs on zeros there (lazy-opt warns; the schedule is tinygrad's)
    x = realized(4)
    return [x.reciprocal().sum().reshape(1).pad(((1, 1),)).sum()]
