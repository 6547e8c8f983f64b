"""The graphs scheduled by tinygrad 0.9.2's test/test_arange.py.

TestArange schedules `Tensor.arange(N)` for N = 256 and 2560 (every
complexity and kernel-option test reuses these two graphs; the options only
change code generation). TestIndexing gathers rows with arange masks, under
FUSE_ARANGE=1 where the original sets it (NOOPT=1 there only changes code
generation). Re-expressed: datasets the original fills with `Tensor.rand`
are realized empty buffers; MNIST, which the original downloads, is a
stand-in of the same shapes and dtype built from bytes (as the download
is: PYTHON bytes copied to the device). `kernels` / `items` are what
tinygrad 0.9.2 schedules, measured.
"""

from tinygrad import Tensor, dtypes, nn

from .registry import graph, preschedule, realized

R = realized
ARANGE = {"FUSE_ARANGE": 1}
INDEX_FILL = {"int": (0, 9)}      # index buffers: valid rows, 0 allowed
ARANGE_16K = ("large: lazy-interp evaluates the 16384-long arange as its 16384x16384 pad-and-sum "
              "(about 50 s on 2 cores); `check` runs it (corpus/generate.py writes the script)")
GATHER = ("large: a {0} gather through a one-hot arange mask; exported, counted and compared only "
          "(`check` would evaluate {1} elements)")


@graph("arange/complexity/256", items=1)
def _():
    return [Tensor.arange(256)]


@graph("arange/complexity/2560", items=1)
def _():
    return [Tensor.arange(2560)]


# -- test_arange_2_reduce: a needle set with __setitem__, found by an arange sum -

NEEDLE = 16384


def _needle():
    return Tensor.zeros(NEEDLE, dtype=dtypes.int).contiguous()


def _write_one(target, index, value):
    """`target[index] = value` as 0.9.2 schedules it after realizing the
    target: a contiguous broadcast of the value assigned into the view."""
    view = target[index]
    fill = Tensor(value, device=target.device, dtype=target.dtype)
    return view.assign(fill.cast(view.dtype).expand(view.shape).contiguous())


@graph("arange/arange_2_reduce/1", kernels=1)
def _():
    return [_needle()]


@graph("arange/arange_2_reduce/2", kernels=2)
def _():
    needle = _needle()
    preschedule(needle)
    return [_write_one(needle, 1337, 1)]


@graph("arange/arange_2_reduce/3", flags=ARANGE, kernels=1, numerics=ARANGE_16K)
def _():
    needle = R(NEEDLE, dtype=dtypes.int)
    positions = Tensor.arange(1, NEEDLE + 1).reshape(NEEDLE, 1) - 1
    return [(positions * needle.reshape(NEEDLE, 1)).sum()]


# -- gathering rows of a (16384, 256) dataset ------------------------------------

ROWS, COLS = 16384, 256


def _dataset():
    return R(ROWS, COLS), Tensor([0, 3, 5, 6]).realize()


@graph("arange/manual_index", flags=ARANGE, kernels=1, fill=INDEX_FILL,
       numerics=GATHER.format("manual (cumsum)", "4x256x16384x16384"))
def _():
    dataset, idxs = _dataset()
    positions = Tensor.ones(4, COLS, ROWS, dtype=dtypes.int)._cumsum(axis=-1, _first_zero=True)
    positions = positions.reshape(4, COLS, ROWS, 1)
    wanted = idxs.reshape(4, 1, 1, 1).expand(4, COLS, ROWS, 1)
    rows = dataset.T.reshape(1, COLS, ROWS, 1).expand(4, COLS, ROWS, 1)
    picked = (positions == wanted).where(rows, Tensor.zeros(4, COLS, ROWS, 1))
    return [picked.sum(axis=(2, 3))]


@graph("arange/index", kernels=3, fill=INDEX_FILL, numerics=ARANGE_16K)
def _():
    dataset, idxs = _dataset()
    return [dataset[idxs]]


@graph("arange/index_fused", flags=ARANGE, items=2, fill=INDEX_FILL, numerics=ARANGE_16K)
def _():
    dataset, idxs = _dataset()
    return [dataset[idxs]]


# -- test_index_mnist: 512 random samples of the training set ------------------------

MNIST_TRAIN = 60000


def _mnist_train():
    images = Tensor(bytes(MNIST_TRAIN * 28 * 28), dtype=dtypes.uint8).reshape(-1, 1, 28, 28)
    labels = Tensor(bytes(range(10)) * (MNIST_TRAIN // 10), dtype=dtypes.uint8)
    return images, labels


MNIST = {"flags": ARANGE, "context": {"SPLIT_REDUCEOP": 0}, "fill": INDEX_FILL}


@graph("arange/index_mnist/images", **MNIST, items=4,
       numerics=GATHER.format("512-sample", "512x60000x784"))
def _():
    images, _ = _mnist_train()
    samples = Tensor.randint(512, high=images.shape[0])
    return [images[samples]]


@graph("arange/index_mnist/labels", **MNIST, items=3,
       numerics=GATHER.format("512-sample", "512x60000"))
def _():
    images, labels = _mnist_train()
    samples = Tensor.randint(512, high=images.shape[0])
    preschedule(images[samples])
    return [labels[samples]]


# -- test_llama_embedding: nn.Embedding under FUSE_ARANGE ----------------------------

def _embedding(vocab, dim):
    emb = nn.Embedding(vocab, dim)
    emb.weight = R(vocab, dim)  # the original reads the weight back first
    return [emb(Tensor([1, 2, 3, 4]))]


@graph("arange/llama_embedding/ci", flags=ARANGE, items=2)
def _():
    return _embedding(10, 3)


@graph("arange/llama_embedding/full", flags=ARANGE, items=2,
       numerics=GATHER.format("32000x4096 embedding", "4x32000x4096"))
def _():
    return _embedding(32000, 4096)
