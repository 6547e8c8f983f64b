"""Whole training steps: forward, backward and the optimizer update, as
one graph (what `Tensor.realize(*opt.schedule_step())` schedules).

Parameters are realized buffers (as after initialisation), the optimizer
state is what a first step sees (lazy zeros, realized step counters).
Shapes are small so the numerics stay cheap.
"""

from tinygrad import Tensor, dtypes, nn

from .registry import graph, realized

# Adam's bias corrections divide by (1 - b^t): keep the realized counters
# (and everything else) in a tame range.
TRAIN_FILL = {"float": (0.1, 0.9), "int": (0, 9)}


def _realize_params(params):
    for p in params:
        p.replace(realized(*p.shape, dtype=p.dtype))
        p.requires_grad = True


class MLP:
    def __init__(self, sizes):
        self.layers = [nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])]

    def __call__(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers):
                x = x.relu()
        return x


class SmallConvNet:
    def __init__(self):
        self.c1 = nn.Conv2d(3, 4, 3, padding=1)
        self.c2 = nn.Conv2d(4, 8, 3)
        self.head = nn.Linear(8 * 2 * 2, 10)

    def __call__(self, x):
        x = self.c1(x).relu().max_pool2d((2, 2))
        x = self.c2(x).relu()
        return self.head(x.flatten(1))


class Block:
    """Pre-norm transformer block: causal self-attention and a GELU MLP."""

    def __init__(self, dim, heads, hidden):
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.up, self.down = nn.Linear(dim, hidden), nn.Linear(hidden, dim)

    def __call__(self, x):
        batch, seq, dim = x.shape
        q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=2)
        split = lambda t: t.reshape(batch, seq, self.heads, dim // self.heads).transpose(1, 2)  # noqa: E731
        attn = Tensor.scaled_dot_product_attention(split(q), split(k), split(v), is_causal=True)
        x = x + self.proj(attn.transpose(1, 2).reshape(batch, seq, dim))
        return x + self.down(self.up(self.ln2(x)).gelu())


class Transformer:
    def __init__(self, layers, dim=16, heads=2, hidden=32, vocab=11):
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = [Block(dim, heads, hidden) for _ in range(layers)]
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def __call__(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


def train_step(model, make_opt, inputs, labels):
    """The tensors that one optimizer step realizes."""
    with Tensor.train():
        params = nn.state.get_parameters(model)
        _realize_params(params)
        opt = make_opt(params)
        opt.zero_grad()
        loss = model(inputs).sparse_categorical_crossentropy(labels)
        loss.backward()
        return [loss] + opt.schedule_step()


def transformer_step(layers, batch=2, seq=8):
    model = Transformer(layers)
    tokens = realized(batch, seq, dtype=dtypes.int32)
    targets = realized(batch, seq, dtype=dtypes.int32)
    return train_step(model, lambda p: nn.optim.AdamW(p, lr=1e-3, weight_decay=0.1), tokens, targets)


@graph("training/mlp_adam", fill=TRAIN_FILL)
def _():
    return train_step(MLP([16, 32, 10]), lambda p: nn.optim.Adam(p, lr=1e-3),
                      realized(8, 16), realized(8, dtype=dtypes.int32))


@graph("training/mlp_sgd_nesterov", fill=TRAIN_FILL)
def _():
    return train_step(MLP([12, 24, 24, 10]),
                      lambda p: nn.optim.SGD(p, lr=0.01, momentum=0.9, nesterov=True, weight_decay=1e-4),
                      realized(4, 12), realized(4, dtype=dtypes.int32))


def convnet_step():
    return train_step(SmallConvNet(), lambda p: nn.optim.SGD(p, lr=0.01, momentum=0.9),
                      realized(2, 3, 8, 8), realized(2, dtype=dtypes.int32))


@graph("training/convnet_sgd", kernels=33, fill=TRAIN_FILL)
def _():
    return convnet_step()


# the same step with the conv backward folded into its producers (FUSE_CONV_BW=1)
@graph("training/convnet_sgd_fuse_conv_bw", flags={"FUSE_CONV_BW": 1}, kernels=32, fill=TRAIN_FILL)
def _():
    return convnet_step()


@graph("training/transformer_adamw", fill=TRAIN_FILL)
def _():
    return transformer_step(1)


@graph("training/transformer2_adamw", fill=TRAIN_FILL)
def _():
    return transformer_step(2)


@graph("training/transformer_adamw_fuse_flags", flags={"FUSE_ARANGE": 1, "FUSE_CONV_BW": 1}, fill=TRAIN_FILL)
def _():
    return transformer_step(1)
