"""The disk cache of compiled programs, through the C API and tinygrad.

A tinygrad training step (a small conv net with batch-norm and Adam) runs
under LAZY_MLIR=compile in three fresh processes sharing one cache
directory: the first compiles every program and stores it, the second links
every program from the cache and computes bit-identical values, and after
every entry is damaged the third rejects them all, compiles again and still
computes the same values. The C API's own compile is checked in process.
"""

import glob
import json
import os
import subprocess
import sys

import pytest

from lazy_mlir import _capi

STEP = r"""
import json
import numpy as np
from tinygrad import Tensor, nn
from tinygrad.nn.optim import Adam
from lazy_mlir.tinygrad import _compile

class Net:
    def __init__(self):
        self.conv = nn.Conv2d(1, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 6 * 6, 5)
    def __call__(self, x):
        return self.fc(self.bn(self.conv(x)).relu().max_pool2d().flatten(1))

Tensor.manual_seed(0)
net = Net()
opt = Adam(nn.state.get_parameters(net))
x = Tensor(np.random.default_rng(0).random((2, 1, 14, 14), dtype=np.float32))
y = Tensor([1, 3])
with Tensor.train():
    opt.zero_grad()
    loss = net(x).sparse_categorical_crossentropy(y)
    loss.backward()
    opt.step()
values = [loss.numpy().tobytes().hex(), net.conv.weight.numpy().tobytes().hex()]
print(json.dumps({"values": values, "counts": _compile.program_counts}))
"""


def run_step(cache_dir):
    env = dict(os.environ, LAZY_MLIR="compile", LAZY_MLIR_CACHE="1",
               LAZY_MLIR_CACHE_DIR=str(cache_dir), CLANG="1")
    proc = subprocess.run([sys.executable, "-c", STEP], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_second_process_links_every_program_from_the_cache(tmp_path):
    cold = run_step(tmp_path)
    assert cold["counts"]["compiled"] > 0 and cold["counts"]["from_cache"] == 0
    entries = glob.glob(str(tmp_path / "cpu" / "*.lzo"))
    assert len(entries) == cold["counts"]["compiled"]

    warm = run_step(tmp_path)
    assert warm["counts"] == {"compiled": 0, "from_cache": cold["counts"]["compiled"]}
    assert warm["values"] == cold["values"]

    # Every entry damaged: each is rejected, compiled again and replaced.
    for entry in entries:
        with open(entry, "r+b") as f:
            f.seek(os.path.getsize(entry) // 2)
            byte = f.read(1)
            f.seek(-1, os.SEEK_CUR)
            f.write(bytes([byte[0] ^ 0xFF]))
    damaged = run_step(tmp_path)
    assert damaged["counts"] == cold["counts"]
    assert damaged["values"] == cold["values"]
    assert run_step(tmp_path)["counts"]["from_cache"] == cold["counts"]["compiled"]


GRAPH = """
func.func @graph(%a: tensor<64x64xf32> {lazy.buffer = 0 : i64}) -> tensor<64x1xf32> {
  %e = lazy.exp2 %a : tensor<64x64xf32>
  %r = lazy.reduce_sum %e axes [1] : tensor<64x64xf32> -> tensor<64x1xf32>
  return %r : tensor<64x1xf32>
}
"""


def test_c_api_compile_goes_through_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LAZY_MLIR_CACHE", "1")
    monkeypatch.setenv("LAZY_MLIR_CACHE_DIR", str(tmp_path))
    session = _capi.session()
    first, _, diagnostics = session.compile_cpu(GRAPH, "lazy-schedule{record-nodes=true}")
    assert first is not None, diagnostics
    assert not first.from_cache
    second, _, diagnostics = session.compile_cpu(GRAPH, "lazy-schedule{record-nodes=true}")
    assert second is not None, diagnostics
    assert second.from_cache
    assert second.address("graph_k0") and second.packed_address("graph_k0")
    assert second.address("no_such_kernel") is None
    monkeypatch.setenv("LAZY_MLIR_CACHE", "0")
    third, _, _ = session.compile_cpu(GRAPH, "lazy-schedule{record-nodes=true}")
    assert not third.from_cache
