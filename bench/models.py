#!/usr/bin/env python3
"""tinygrad's own models on lazy-mlir: plain, LAZY_MLIR=schedule and compile.

    python3 bench/models.py --tinygrad-src /tmp/tg092            # every model, small
    python3 bench/models.py --tinygrad-src /tmp/tg092 --size large --models gpt2_decode

DIR is a checkout of tinygrad v0.9.2 (its examples/ and extra/ are not in
the wheel): `git clone -b v0.9.2 https://github.com/tinygrad/tinygrad DIR`.
Nothing of it is copied here; the models are imported from DIR.

Each model runs in its own process per mode, on CLANG, with random weights
made by tinygrad's own initializers before any mode is switched on (so every
mode starts from the same numbers), and its inputs from numpy:

    plain     tinygrad 0.9.2 as it is
    noopt     tinygrad with NOOPT=1: the yardstick of rounding drift (its
              kernels sum in another order than plain's)
    schedule  lazy-mlir's schedule, tinygrad's kernels
    compile   lazy-mlir's schedule and CPU kernels, from an empty program
              cache (each model its own: compiled cold, then stored)
    cached    compile again in a new process, linking every program from
              the cache the compile run filled (a second process's start)

A step is one decode token (GPT-2, LLaMA), one forward pass (UNet,
EfficientNet, BERT, ViT) or one training step (ResNet-18, hlb-CIFAR10's
SpeedyResNet, beautiful_mnist, BERT with LAMB), under TinyJit as tinygrad's
examples run them. The table gives, per model and mode:

    first    the first step's wall time (its kernels compiled); tinygrad's
             disk cache of compiled kernels is off (CACHELEVEL=0) unless
             --warm-cache, so both sides compile cold
    steady   the median step after the jit captured (steps 3 and later)
    kernels  kernels of the jitted step (inside tinygrad's graph batches too)
    sched    time spent in Tensor.schedule_with_vars per steady step
    outputs  schedule: `exact` when every output of every step is
             bit-identical to plain's; otherwise and for compile/noopt
             the largest normwise drift over steps and outputs,
             max|x - plain| / max|plain|
    ratio    steady and first step against plain

and the verdicts the real-models issue asks for: schedule bit-identical;
compile's steady step <= 1.0x and first step <= 0.5x plain's, its drift
<= 5x noopt's (at least 1e-4); cached's first step <= 0.3x compile's, its
outputs bit-identical to compile's.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
MODES = ("plain", "noopt", "schedule", "compile", "cached")
DRIFT_FLOOR = 1e-4


# -- the models (run in the child process) -------------------------------------------------

def _stub_modules(*names):
    """Imports tinygrad's examples make at the top for what this bench does
    not use (tokenizers, image loading): empty modules when absent."""
    for name in names:
        try:
            __import__(name)
        except ImportError:
            sys.modules[name] = types.ModuleType(name)


def _rng():
    return np.random.default_rng(2002)


def _tensor(array):
    from tinygrad import Tensor
    return Tensor(np.ascontiguousarray(array)).realize()


def _realize_parameters(model):
    from tinygrad import Tensor
    from tinygrad.nn.state import get_parameters
    params = get_parameters(model)
    Tensor.realize(*params)
    return params


def _decode(model, position_of, first_token, prompt_length, cache_tensors):
    """A decode step: one token through the model under its TinyJit at the
    next position (`position_of` makes the model's start_pos of an int);
    outputs: the token and the kv caches."""
    from tinygrad import Tensor
    state = {"pos": prompt_length, "tok": first_token}

    def step():
        out = model(Tensor([[state["tok"]]]), position_of(state["pos"]))
        state["pos"] += 1
        return out

    def outputs(out):
        tok = int(out.numpy().reshape(-1)[0])
        state["tok"] = tok
        return [np.array([tok])] + [c().numpy() for c in cache_tensors]
    return step, outputs


def gpt2_decode(size):
    _stub_modules("tiktoken")
    from tinygrad import Tensor, Variable
    from examples.gpt2 import MAX_CONTEXT, Transformer
    args = dict(dim=128, n_heads=4, n_layers=2, norm_eps=1e-5, vocab_size=1000) if size == "small" \
        else dict(dim=1024, n_heads=8, n_layers=8, norm_eps=1e-5, vocab_size=1000)
    Tensor.manual_seed(0)
    model = Transformer(**args)
    _realize_parameters(model)

    def position(pos):  # as gpt2.py's generate binds it
        return Variable("start_pos", 1 if pos else 0, MAX_CONTEXT).bind(pos)
    model(Tensor([[1, 2, 3]]), position(0)).realize()  # the prompt, not jitted
    blocks = model.h
    return _decode(model, position, 4, 3,
                   [lambda: blocks[0].attn.cache_kv, lambda: blocks[-1].attn.cache_kv]) + \
        (model.forward_jit,)


def llama_decode(size):
    from tinygrad import Tensor
    from extra.models.llama import Transformer
    args = dict(dim=128, hidden_dim=256, n_heads=4, n_layers=2, norm_eps=1e-5, vocab_size=1000) \
        if size == "small" else \
        dict(dim=1024, hidden_dim=2048, n_heads=8, n_layers=8, norm_eps=1e-5, vocab_size=1000)
    Tensor.manual_seed(0)
    model = Transformer(**args, max_context=128)
    _realize_parameters(model)
    model(Tensor([[1, 2, 3]]), 0).realize()  # the prompt, not jitted
    layers = model.layers
    return _decode(model, lambda pos: pos, 4, 3,
                   [lambda: layers[0].attention.cache_kv, lambda: layers[-1].attention.cache_kv]) + \
        (model.forward_jit,)


def _jitted_forward(model_call, inputs):
    from tinygrad import TinyJit

    @TinyJit
    def forward(*xs):
        return model_call(*xs).realize()

    def step():
        return forward(*inputs)

    def outputs(out):
        return [out.numpy()]
    return step, outputs, forward


def unet(size):
    from tinygrad import Tensor
    from extra.models.unet import UNetModel
    params = {"adm_in_ch": None, "in_ch": 4, "out_ch": 4, "model_ch": 16,
              "attention_resolutions": [4, 2, 1], "num_res_blocks": 1, "channel_mult": [1, 2, 4, 4],
              "n_heads": 2, "transformer_depth": [1, 1, 1, 1], "ctx_dim": 16, "use_linear": False}
    side = 16 if size == "small" else 64
    Tensor.manual_seed(0)
    model = UNetModel(**params)
    _realize_parameters(model)
    rng = _rng()
    x = _tensor(rng.standard_normal((1, 4, side, side)).astype(np.float32))
    ctx = _tensor(rng.standard_normal((1, 77, 16)).astype(np.float32))
    t = _tensor(np.array([801], np.float32))
    return _jitted_forward(lambda a, b, c: model(a, b, c), (x, t, ctx))


def efficientnet(size):
    from tinygrad import Tensor
    from extra.models.efficientnet import EfficientNet
    Tensor.manual_seed(0)
    model = EfficientNet(0)
    _realize_parameters(model)
    side = 64 if size == "small" else 224
    x = _tensor(_rng().standard_normal((1, 3, side, side)).astype(np.float32))
    return _jitted_forward(model.forward, (x,))


def _bert_args(size):
    if size == "small":
        return dict(hidden_size=128, intermediate_size=512, max_position_embeddings=128,
                    num_attention_heads=2, num_hidden_layers=2, type_vocab_size=2, vocab_size=1000,
                    attention_probs_dropout_prob=0.0, hidden_dropout_prob=0.0)
    return dict(hidden_size=256, intermediate_size=1024, max_position_embeddings=512,
                num_attention_heads=4, num_hidden_layers=4, type_vocab_size=2, vocab_size=4000,
                attention_probs_dropout_prob=0.0, hidden_dropout_prob=0.0)


def bert(size):
    from tinygrad import Tensor
    from extra.models.bert import BertForQuestionAnswering
    Tensor.manual_seed(0)
    args = _bert_args(size)
    model = BertForQuestionAnswering(**args)
    _realize_parameters(model)
    seq = 32 if size == "small" else 128
    rng = _rng()
    ids = _tensor(rng.integers(0, args["vocab_size"], (1, seq)).astype(np.int32))
    mask = _tensor(np.ones((1, seq), np.int32))
    types_ = _tensor(np.zeros((1, seq), np.int32))
    return _jitted_forward(lambda a, b, c: model(a, b, c), (ids, mask, types_))


def vit(size):
    from tinygrad import Tensor
    from extra.models.vit import ViT
    Tensor.manual_seed(0)
    model = ViT(layers=2, embed_dim=96, num_heads=3) if size == "small" else ViT()
    _realize_parameters(model)
    x = _tensor(_rng().standard_normal((1, 3, 224, 224)).astype(np.float32))
    return _jitted_forward(model.forward, (x,))


def _training(model, optimizer, loss_of, inputs):
    """A jitted training step; outputs: the loss each step, then every
    parameter (compared at the last step)."""
    from tinygrad import Tensor, TinyJit
    from tinygrad.nn.state import get_parameters
    params = get_parameters(model)

    @TinyJit
    def train(*xs):
        with Tensor.train():
            optimizer.zero_grad()
            loss = loss_of(*xs)
            loss.backward()
            optimizer.step()
            return loss.realize()

    def step():
        return train(*inputs)

    def outputs(out):
        return [out.numpy()] + [p.numpy() for p in params]
    return step, outputs, train


def resnet18_train(size):
    from tinygrad import Tensor, nn
    from extra.models.resnet import ResNet18
    Tensor.manual_seed(0)
    model = ResNet18(num_classes=10)
    _realize_parameters(model)
    batch, side = (4, 32) if size == "small" else (16, 64)
    rng = _rng()
    x = _tensor(rng.standard_normal((batch, 3, side, side)).astype(np.float32))
    y = _tensor((np.arange(batch) % 10).astype(np.int32))
    opt = nn.optim.SGD(nn.state.get_parameters(model), lr=0.01, momentum=0.9)
    return _training(model, opt, lambda a, b: model(a).sparse_categorical_crossentropy(b), (x, y))


def hlb_cifar_train(size):
    from tinygrad import Tensor, nn
    from examples.hlb_cifar10 import SpeedyResNet
    Tensor.manual_seed(0)
    model = SpeedyResNet(Tensor.ones((12, 3, 2, 2)))
    _realize_parameters(model)
    batch = 8 if size == "small" else 32
    x = _tensor(_rng().standard_normal((batch, 3, 32, 32)).astype(np.float32))
    opt = nn.optim.SGD(nn.state.get_parameters(model), lr=0.01, momentum=0.8, nesterov=True,
                       weight_decay=0.15)
    return _training(model, opt, lambda a: model(a).mean(), (x,))


def mnist_train(size):
    from tinygrad import Tensor, nn
    from examples.beautiful_mnist import Model
    Tensor.manual_seed(0)
    model = Model()
    _realize_parameters(model)
    batch = 8 if size == "small" else 32
    rng = _rng()
    x = _tensor(rng.standard_normal((batch, 1, 28, 28)).astype(np.float32))
    y = _tensor((np.arange(batch) % 10).astype(np.int32))
    opt = nn.optim.Adam(nn.state.get_parameters(model))
    return _training(model, opt, lambda a, b: model(a).sparse_categorical_crossentropy(b), (x, y))


def bert_train(size):
    from tinygrad import Tensor, nn
    from extra.models.bert import BertForPretraining
    Tensor.manual_seed(0)
    args = _bert_args(size)
    model = BertForPretraining(**args)
    _realize_parameters(model)
    seq, masked = (32, 4) if size == "small" else (128, 20)
    rng = _rng()
    ids = _tensor(rng.integers(0, args["vocab_size"], (2, seq)).astype(np.int32))
    mask = _tensor(np.ones((2, seq), np.int32))
    types_ = _tensor(np.zeros((2, seq), np.int32))
    positions = _tensor(np.sort(rng.choice(seq, (2, masked)), axis=1).astype(np.int32))
    lm_ids = _tensor(rng.integers(0, args["vocab_size"], (2, masked)).astype(np.int32))
    lm_weights = _tensor(np.ones((2, masked), np.float32))
    nsp = _tensor(np.array([0, 1], np.int32))
    opt = nn.optim.LAMB(nn.state.get_parameters(model), lr=1e-3)

    def loss_of(a, b, c, d, e, f, g):
        return model.loss(*model(a, b, c, d), e, f, g)
    return _training(model, opt, loss_of, (ids, mask, positions, types_, lm_ids, lm_weights, nsp))


MODELS = {f.__name__: f for f in (gpt2_decode, llama_decode, unet, efficientnet, bert, vit,
                                  resnet18_train, hlb_cifar_train, mnist_train, bert_train)}


def _jit_kernels(jit):
    """The kernels a TinyJit replays, inside its graph batches too."""
    from tinygrad.engine.realize import CompiledRunner
    count, stack = 0, list(getattr(jit, "jit_cache", []))
    while stack:
        prg = stack.pop().prg
        inner = getattr(prg, "jit_cache", None)
        if inner is not None:
            stack.extend(inner)
        elif isinstance(prg, CompiledRunner) or type(prg).__name__ == "LazyMlirRunner":
            count += 1
    return count


def child(name, mode, steps, size, out_path):
    """Runs one model in one mode in this process; writes its outputs
    (.npz) and figures (.json)."""
    from tinygrad import Device, GlobalCounters, Tensor
    step, outputs, jit = MODELS[name](size)
    if mode in ("schedule", "compile", "cached"):
        import lazy_mlir.tinygrad as lt
        lt.enable("compile" if mode == "cached" else mode)
    schedule_s = [0.0]
    original = Tensor.schedule_with_vars

    def timed(self, *lst, **kwargs):
        start = time.perf_counter()
        try:
            return original(self, *lst, **kwargs)
        finally:
            schedule_s[0] += time.perf_counter() - start
    Tensor.schedule_with_vars = timed
    device = Device[Device.DEFAULT]
    figures = {"step_s": [], "kernels": [], "schedule_s": []}
    arrays = {}
    for i in range(steps):
        schedule_s[0] = 0.0
        kernels = GlobalCounters.kernel_count
        device.synchronize()
        start = time.perf_counter()
        out = step()
        device.synchronize()
        figures["step_s"].append(time.perf_counter() - start)
        figures["kernels"].append(_jit_kernels(jit) or GlobalCounters.kernel_count - kernels)
        figures["schedule_s"].append(schedule_s[0])
        values = outputs(out)
        # the loss (or output) every step; parameters at the last step only
        keep = values if i == steps - 1 else values[:1]
        for k, v in enumerate(keep):
            arrays[f"s{i}_{k}"] = np.asarray(v)
    np.savez(out_path + ".npz", **arrays)
    with open(out_path + ".json", "w") as f:
        json.dump(figures, f)


# -- the driver -----------------------------------------------------------------------------

def run_child(args, name, mode, workdir):
    out = os.path.join(workdir, f"{name}.{mode}")
    env = dict(os.environ, CLANG="1", PYTHONPATH=os.pathsep.join(
        [args.tinygrad_src, os.path.join(REPO, "python"), os.environ.get("PYTHONPATH", "")]))
    env.pop("LAZY_MLIR", None)
    if not args.warm_cache:
        env["CACHELEVEL"] = "0"
    # lazy-mlir's program cache: compile fills an empty one, cached reads it.
    env["LAZY_MLIR_CACHE_DIR"] = os.path.join(workdir, "programs", name)
    env["LAZY_MLIR_CACHE"] = "1" if mode in ("compile", "cached") else "0"
    if mode == "noopt":
        env["NOOPT"] = "1"
    cmd = [sys.executable, os.path.abspath(__file__), "--child", name, "--mode", mode,
           "--steps", str(args.steps), "--size", args.size, "--out", out]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
    if r.returncode != 0:
        return None, (r.stderr.strip().splitlines() or ["(no output)"])[-1]
    with open(out + ".json") as f:
        figures = json.load(f)
    return (figures, dict(np.load(out + ".npz"))), None


def drift(got, want):
    """(bit-identical, largest normwise drift) of two runs' outputs."""
    exact, worst = True, 0.0
    for key, ref in want.items():
        x = got.get(key)
        if x is None or x.shape != ref.shape:
            return False, float("inf")
        if not np.array_equal(x, ref, equal_nan=True):
            exact = False
            a, b = x.astype(np.float64), ref.astype(np.float64)
            scale = np.max(np.abs(b[np.isfinite(b)]), initial=0.0) or 1.0
            both_nan = np.isnan(a) & np.isnan(b)
            diff = np.where(both_nan, 0.0, np.abs(a - b))
            worst = max(worst, float(np.max(diff, initial=0.0)) / scale)
    return exact, worst


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tinygrad-src", help="a checkout of tinygrad v0.9.2")
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated; default: all")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--size", choices=("small", "large"), default="small")
    parser.add_argument("--warm-cache", action="store_true",
                        help="keep tinygrad's disk cache of compiled kernels")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--json", help="also write every figure here")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--mode", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.mode, args.steps, args.size, args.out)
        return 0
    if not args.tinygrad_src or not os.path.isdir(os.path.join(args.tinygrad_src, "examples")):
        parser.error("--tinygrad-src must name a checkout of tinygrad v0.9.2 (with examples/)")
    args.tinygrad_src = os.path.abspath(args.tinygrad_src)
    models = [m for m in args.models.split(",") if m]
    modes = [m for m in args.modes.split(",") if m]
    unknown = [m for m in models if m not in MODELS] + [m for m in modes if m not in MODES]
    if unknown:
        parser.error(f"unknown model or mode: {', '.join(unknown)}")
    if args.steps < 4:
        parser.error("--steps must be at least 4 (two to capture the jit, then replays)")
    if "plain" not in modes:
        modes.insert(0, "plain")
    if "cached" in modes and "compile" not in modes:
        modes.insert(modes.index("cached"), "compile")

    results = {}
    header = (f"{'model':<16} {'mode':<9} {'first ms':>9} {'steady ms':>10} {'kernels':>8} "
              f"{'sched ms':>9} {'outputs':>10} {'steady/plain':>13} {'first/plain':>12}")
    print(f"{args.size} configurations, {args.steps} steps, CLANG, one process per model and mode")
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as workdir:
        for name in models:
            runs = {}
            for mode in modes:
                run, error = run_child(args, name, mode, workdir)
                if run is None:
                    print(f"{name:<16} {mode:<9} FAILED: {error}", flush=True)
                    results.setdefault(name, {})[mode] = {"error": error}
                    continue
                runs[mode] = run
                figures, arrays = run
                steady = statistics.median(figures["step_s"][2:])
                row = {"first_s": figures["step_s"][0], "steady_s": steady,
                       "kernels": figures["kernels"][-1],
                       "schedule_s": statistics.median(figures["schedule_s"][2:])}
                if mode != "plain" and "plain" in runs:
                    exact, worst = drift(arrays, runs["plain"][1])
                    row.update(exact=exact, drift=worst)
                    base = results[name]["plain"]
                    row.update(steady_ratio=steady / base["steady_s"],
                               first_ratio=row["first_s"] / base["first_s"])
                if mode == "cached" and "compile" in runs:
                    row["first_vs_cold"] = row["first_s"] / results[name]["compile"]["first_s"]
                    row["same_as_cold"] = drift(arrays, runs["compile"][1])[0]
                results.setdefault(name, {})[mode] = row
                outputs = "" if mode == "plain" else \
                    ("exact" if row["exact"] else f"{row['drift']:.1e}")
                ratios = "" if mode == "plain" else \
                    f"{row['steady_ratio']:>13.2f} {row['first_ratio']:>12.2f}"
                print(f"{name:<16} {mode:<9} {row['first_s'] * 1e3:>9.1f} {steady * 1e3:>10.2f} "
                      f"{row['kernels']:>8} {row['schedule_s'] * 1e3:>9.3f} {outputs:>10} {ratios}",
                      flush=True)
    print()
    failures = verdicts(results)
    for line in failures:
        print("MISSED:", line)
    print(f"verdicts: {len(failures)} missed")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


def verdicts(results):
    """The issue's goals, one line per goal a model misses."""
    missed = []
    for name, rows in results.items():
        for mode, row in rows.items():
            if "error" in row:
                missed.append(f"{name} {mode}: failed ({row['error']})")
        sched, comp, noopt = rows.get("schedule"), rows.get("compile"), rows.get("noopt")
        if sched and "error" not in sched and not sched["exact"]:
            missed.append(f"{name} schedule: not bit-identical (drift {sched['drift']:.1e})")
        if comp and "error" not in comp:
            if comp["steady_ratio"] > 1.0:
                missed.append(f"{name} compile: steady step {comp['steady_ratio']:.2f}x plain")
            if comp["first_ratio"] > 0.5:
                missed.append(f"{name} compile: first step {comp['first_ratio']:.2f}x plain")
            cached = rows.get("cached")
            if cached and "error" not in cached:
                if cached["first_vs_cold"] > 0.3:
                    missed.append(f"{name} cached: first step {cached['first_vs_cold']:.2f}x "
                                  "a cold process's")
                if not cached["same_as_cold"]:
                    missed.append(f"{name} cached: outputs differ from compile's")
            if noopt and "error" not in noopt:
                allowed = max(5 * noopt["drift"], DRIFT_FLOOR)
                if comp["drift"] > allowed:
                    missed.append(f"{name} compile: drift {comp['drift']:.1e} > {allowed:.1e} "
                                  f"(5x noopt's {noopt['drift']:.1e})")
    return missed


if __name__ == "__main__":
    sys.exit(main())
