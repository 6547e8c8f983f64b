"""Movement ops and their compositions, on realized inputs and on computed
bases: every ShapeTracker shape the exporter has to print (offsets, masks,
negative strides, several views, rank 0, size 0)."""

from tinygrad import Tensor, dtypes

from .registry import graph, realized

# name -> function of a (4, 6) tensor; each one is exported both on a
# realized input and on a computed base (x * 2 + 1)
CHAINS = {
    "reshape": lambda x: x.reshape(2, 12),
    "reshape_split": lambda x: x.reshape(2, 2, 3, 2),
    "reshape_rank0": lambda x: x[1, 2].reshape(()),
    "reshape_ones": lambda x: x.reshape(1, 4, 1, 6, 1),
    "permute": lambda x: x.permute(1, 0),
    "permute_3d": lambda x: x.reshape(2, 2, 6).permute(2, 0, 1),
    "expand": lambda x: x.reshape(4, 1, 6).expand(4, 3, 6),
    "expand_rank0": lambda x: x[0, 0].expand(2, 3),
    "pad": lambda x: x.pad(((1, 2), (0, 3))),
    "pad_value": lambda x: x.pad(((1, 1), (2, 0)), value=5.0),
    "slice_out_of_bounds": lambda x: x._slice(((1, 5), (-1, 4))),
    "shrink": lambda x: x.shrink(((1, 3), (2, 5))),
    "shrink_row": lambda x: x[2],
    "shrink_element": lambda x: x[3, 5],
    "stride": lambda x: x[::2, ::3],
    "flip": lambda x: x.flip(0),
    "flip_both": lambda x: x.flip((0, 1)),
    "stride_negative": lambda x: x[::-2, 1::2],
    "size0_shrink": lambda x: x[2:2],
    "size0_reshape": lambda x: x[:, 3:3].reshape(0, 4),
    "pad_then_shrink": lambda x: x.pad(((2, 2), (2, 2))).shrink(((1, 7), (3, 9))),
    "pad_flip": lambda x: x.pad(((1, 0), (0, 2))).flip(1),
    "pad_expand": lambda x: x.pad(((0, 1), (1, 0))).reshape(1, 5, 7).expand(3, 5, 7),
    "pad_reshape_multiview": lambda x: x.pad(((1, 1), (1, 1))).reshape(6, 2, 4),
    "permute_reshape_multiview": lambda x: x.permute(1, 0).reshape(3, 8),
    "stride_reshape_multiview": lambda x: x[:, ::2].reshape(12),
    "flip_reshape": lambda x: x.flip(1).reshape(24),
    "expand_reshape": lambda x: x.reshape(4, 1, 6).expand(4, 2, 6).reshape(8, 6),
    "shrink_pad_shrink": lambda x: x[1:, 1:].pad(((0, 1), (1, 0)))[1:, :-1],
    "repeat": lambda x: x.repeat((2, 1)),
    "transpose_pad_stride": lambda x: x.T.pad(((1, 1), (0, 0)))[::3],
    "many_views": lambda x: x.pad(((1, 0), (0, 0))).reshape(5, 3, 2).permute(2, 0, 1).reshape(10, 3)[::-1],
    "pool_windows": lambda x: x.reshape(1, 1, 4, 6)._pool((2, 3), 1, 1),
    "slice_negative_start": lambda x: x[-3:, -2:],
    "unsqueeze_squeeze": lambda x: x.unsqueeze(1).unsqueeze(0).squeeze(0),
}


def _chain_graph(fn, computed):
    def build():
        x = realized(4, 6)
        base = x * 2 + 1 if computed else x
        out = fn(base)
        # the view feeds an op (so it is read through its st) and is an output
        return [out, out + 1]
    return build


# tinygrad 0.9.2 itself computes this one wrongly on CLANG: rows 5-8 of
# many_views read x[i][j+1] (its index simplification mishandles the merged
# views' negative stride); numpy and the ShapeTracker agree with lazy-interp.
WRONG_IN_TINYGRAD = {"many_views": "tinygrad 0.9.2 (CLANG) miscomputes this view; numpy and the "
                                   "ShapeTracker agree with lazy-interp"}

for _name, _fn in CHAINS.items():
    _numerics = WRONG_IN_TINYGRAD.get(_name, True)
    graph(f"movement/{_name}", numerics=_numerics)(_chain_graph(_fn, False))
    graph(f"movement/{_name}/computed", numerics=_numerics)(_chain_graph(_fn, True))


@graph("movement/empty_input_size0")
def _():
    return [Tensor.empty(0, 3) + 1, Tensor.empty(2, 0).sum(1)]


@graph("movement/views_of_const")
def _():
    c = Tensor.full((3, 4), 7.0)
    return [c.pad(((1, 0), (0, 1))), c.T.flip(0) * realized(4, 3), Tensor.ones(2, 2).pad(((1, 1), (1, 1)))]


@graph("movement/int_and_bool_views")
def _():
    ints = realized(4, 4, dtype=dtypes.int32)
    flags = realized(4, 4, dtype=dtypes.bool)
    return [ints.T[1:].pad(((0, 1), (0, 0))), flags.flip(1).where(ints, ints.T)]


@graph("movement/same_base_two_views")
def _():
    x = realized(6, 6) + 1
    return [x[:3] * x[3:], x.T + x]


@graph("movement/cumsum_windows")
def _():
    return [realized(8).cumsum(0), realized(3, 5).cumsum(1)]


@graph("movement/conv2d_windows")
def _():
    return [realized(1, 2, 6, 6).conv2d(realized(3, 2, 3, 3), padding=1, stride=2, dilation=1)]


@graph("movement/avg_max_pool")
def _():
    img = realized(1, 2, 6, 6)
    return [img.avg_pool2d((2, 2)), img.max_pool2d((3, 3), stride=2)]


@graph("movement/gather_onehot", fill={"int": (0, 5)})
def _():
    table = realized(6, 4)
    idx = realized(3, dtype=dtypes.int32)
    return [table[idx], table.gather(0, realized(2, 4, dtype=dtypes.int32))]
