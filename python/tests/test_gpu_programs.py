"""The program objects tinygrad's GPU devices would receive from lazy-mlir
(issue 53, the static half: no GPU here), for a set of kernels on both
vendors: the binary's format, each launch's entry in it, the launch
dimensions the runtime itself would use, and the buffers in the order of
tinygrad's ScheduleItem.bufs."""

import os
import re
import subprocess

import pytest

from lazy_mlir import tool_path
from lazy_mlir.tinygrad._bridge_text import parse_bridge
from lazy_mlir.tinygrad._gpu import (EM_AMDGPU, EM_CUDA, compile_gpu, elf_machine, elf_symbols,
                                     vendor_of)

LAZY_RUN = tool_path("lazy-run")

HEADER = 'module attributes {lazy.default_device = "CLANG"} {\n'

KERNELS = {
    # a*b+c over 4096 floats: one elementwise kernel.
    "fma": """
func.func @fma(%a: tensor<4096xf32> {lazy.buffer = 0 : i64}, %b: tensor<4096xf32> {lazy.buffer = 1 : i64},
               %c: tensor<4096xf32> {lazy.buffer = 2 : i64}) -> tensor<4096xf32> {
  %m = lazy.mul %a, %b : tensor<4096xf32>
  %r = lazy.add %m, %c : tensor<4096xf32>
  return %r : tensor<4096xf32>
}""",
    # Row sums and an elementwise output: two kernels, inputs reused.
    "rows": """
func.func @rows(%a: tensor<64x256xf32> {lazy.buffer = 0 : i64}, %b: tensor<64x256xf32> {lazy.buffer = 1 : i64})
    -> (tensor<64x256xf32>, tensor<64x1xf32>) {
  %m = lazy.mul %a, %b : tensor<64x256xf32>
  %s = lazy.reduce_sum %m axes [1] : tensor<64x256xf32> -> tensor<64x1xf32>
  %e = lazy.exp2 %b : tensor<64x256xf32>
  return %e, %s : tensor<64x256xf32>, tensor<64x1xf32>
}""",
    # An f16 matmul: the tensor-core plans of each vendor.
    "matmul_half": """
func.func @matmul_half(%a: tensor<128x128xf16> {lazy.buffer = 0 : i64}, %b: tensor<128x128xf16> {lazy.buffer = 1 : i64})
    -> tensor<128x128xf16> {
  %e = lazy.view %a as <[(128, 128, 128):(128, 0, 1)]> : tensor<128x128xf16> -> tensor<128x128x128xf16>
  %f = lazy.view %b as <[(128, 128, 128):(0, 1, 128)]> : tensor<128x128xf16> -> tensor<128x128x128xf16>
  %m = lazy.mul %e, %f : tensor<128x128x128xf16>
  %w = lazy.cast %m : tensor<128x128x128xf16> -> tensor<128x128x128xf32>
  %s = lazy.reduce_sum %w axes [2] : tensor<128x128x128xf32> -> tensor<128x128x1xf32>
  %h = lazy.cast %s : tensor<128x128x1xf32> -> tensor<128x128x1xf16>
  %r = lazy.reshape %h : tensor<128x128x1xf16> -> tensor<128x128xf16>
  return %r : tensor<128x128xf16>
}""",
    # A softmax over rows: reduce, elementwise, reduce, elementwise.
    "softmax": """
func.func @softmax(%a: tensor<32x100xf32> {lazy.buffer = 0 : i64}) -> tensor<32x100xf32> {
  %m = lazy.reduce_max %a axes [1] : tensor<32x100xf32> -> tensor<32x1xf32>
  %mb = lazy.expand %m : tensor<32x1xf32> -> tensor<32x100xf32>
  %n = lazy.neg %mb : tensor<32x100xf32>
  %d = lazy.add %a, %n : tensor<32x100xf32>
  %e = lazy.exp2 %d : tensor<32x100xf32>
  %s = lazy.reduce_sum %e axes [1] : tensor<32x100xf32> -> tensor<32x1xf32>
  %sb = lazy.expand %s : tensor<32x1xf32> -> tensor<32x100xf32>
  %i = lazy.recip %sb : tensor<32x100xf32>
  %r = lazy.mul %e, %i : tensor<32x100xf32>
  return %r : tensor<32x100xf32>
}""",
}

DEVICES = [("CUDA", "sm_90"), ("NV", "sm_80"), ("AMD", "gfx942"), ("HIP", "gfx1100")]


def module(name):
    return HEADER + KERNELS[name] + "\n}\n"


@pytest.fixture(scope="module")
def compiled():
    cache = {}

    def get(name, device, chip):
        if (name, device, chip) not in cache:
            cache[(name, device, chip)] = compile_gpu(module(name), device, chip)
        return cache[(name, device, chip)]
    return get


def test_every_kernel_text_parses():
    for name in KERNELS:
        proc = subprocess.run([tool_path("lazy-opt"), "-"], input=module(name), capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 0, (name, proc.stderr)


@pytest.mark.parametrize("device,chip", DEVICES)
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_binary_holds_every_entry(name, device, chip, compiled):
    programs = compiled(name, device, chip)
    assert programs.launches, name
    entries = {launch.entry for launch in programs.launches}
    if programs.format == "ptx":
        text = programs.binary.decode()
        assert ".version" in text and f".target {chip}" in text
        for entry in entries:
            assert re.search(r"\.entry\s+" + re.escape(entry) + r"\(", text), entry
        return
    assert programs.format == ("cubin" if vendor_of(device) == "nvidia" else "hsaco")
    assert elf_machine(programs.binary) == (EM_CUDA if programs.format == "cubin" else EM_AMDGPU)
    assert entries <= elf_symbols(programs.binary), entries - elf_symbols(programs.binary)


@pytest.mark.parametrize("device,chip", DEVICES)
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_buffers_in_schedule_item_order(name, device, chip, compiled):
    """Launch i runs schedule item i's kernel on its buffers in
    ScheduleItem.bufs order: the graph's arguments where the item reads
    one, the host program's own allocations for the buffers it makes."""
    programs = compiled(name, device, chip)
    kernels, items = parse_bridge(programs.schedule)
    items = [item for item in items if item[0] == "KERNEL"]
    assert [launch.entry for launch in programs.launches] == [item[1][1:] for item in items]
    allocation_of = {}
    for launch, (_, symbol, _, bufs) in zip(programs.launches, items):
        assert len(launch.operands) == kernels[symbol][2] == len(bufs)
        for operand, token in zip(launch.operands, bufs):
            node = token.split(":")[0]
            if node.startswith("a"):
                assert (operand.kind, operand.index) == ("argument", int(node[1:])), (token, operand)
            else:
                assert operand.kind == "allocation", (token, operand)
                # One node, one buffer, wherever it is used.
                assert allocation_of.setdefault(node, operand.index) == operand.index
    assert len(set(allocation_of.values())) == len(allocation_of)


def _recorded_launches(name, device, chip, tmp_path):
    """What lazy-run --record writes for the same graph: the geometry the
    runtime launches with (HostProgram's own walk)."""
    path = tmp_path / f"{name}.mlir"
    path.write_text(module(name))
    plan = tmp_path / f"plan-{name}-{chip}"
    proc = subprocess.run([LAZY_RUN, str(path), "--device=" + ("cuda" if vendor_of(device) == "nvidia" else "hip"),
                           "--chip=" + chip, "--record=" + str(plan), "--record-inputs=false"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    launches = []
    for line in (plan / "plan.txt").read_text().splitlines():
        words = line.split()
        if words[0] == "launch":
            launches.append((words[1], tuple(int(w) for w in words[2:5]),
                             tuple(int(w) for w in words[5:8]), int(words[9])))
    return launches


@pytest.mark.parametrize("device,chip", [("CUDA", "sm_90"), ("AMD", "gfx942")])
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_launch_dims_are_the_runtimes(name, device, chip, compiled, tmp_path):
    programs = compiled(name, device, chip)
    ours = [(launch.entry, launch.global_size, launch.local_size, len(launch.operands))
            for launch in programs.launches]
    assert ours == _recorded_launches(name, device, chip, tmp_path)


def test_tensor_cores_reach_the_program(compiled):
    """The f16 matmul's program is the tensor-core kernel on each vendor:
    a block of warps (wavefronts), not a thread per output."""
    for device, chip in DEVICES:
        launch, = compiled("matmul_half", device, chip).launches
        threads = launch.local_size[0] * launch.local_size[1] * launch.local_size[2]
        blocks = launch.global_size[0] * launch.global_size[1] * launch.global_size[2]
        assert blocks * threads < 128 * 128, (device, chip, launch)


@pytest.mark.parametrize("device,chip", DEVICES)
def test_tinygrad_program_objects(device, chip, compiled):
    """The Program each launch becomes for tinygrad's CompiledRunner: the
    entry its function name, the launch dims tinygrad passes to its
    runtime as they are, one global per buffer, the outputs first."""
    from lazy_mlir.tinygrad._gpu import tinygrad_program
    programs = compiled("rows", device, chip)
    kernels, items = parse_bridge(programs.schedule)
    for launch, (_, symbol, outs, bufs) in zip(programs.launches,
                                                [i for i in items if i[0] == "KERNEL"]):
        program, binary = tinygrad_program(programs, launch, device, len(outs))
        assert program.function_name == launch.entry and program.dname == device
        assert program.launch_dims({}) == (list(launch.global_size), list(launch.local_size))
        assert program.globals == list(range(len(bufs))) and program.outs == list(range(len(outs)))
        assert binary is programs.binary


def test_not_a_gpu_device():
    with pytest.raises(ValueError, match="CLANG is not a tinygrad GPU device"):
        compile_gpu(module("fma"), "CLANG")
    assert os.path.exists(LAZY_RUN)


def test_compile_mode_gives_tinygrad_runners_for_gpu_kernels(monkeypatch, capfd):
    """LAZY_MLIR=compile on a GPU device: each kernel of a schedule gets a
    GpuKernel (tinygrad's Program and lazy-mlir's binary), attached to its
    ScheduleItem when its buffers are on the device; when the device
    refuses it (here: there is no CUDA device) tinygrad's own lowering
    takes the item, with a debug line."""
    from tinygrad.device import Buffer
    from tinygrad.dtype import dtypes
    from tinygrad.engine.schedule import ScheduleItem
    from lazy_mlir.tinygrad import _bridge, _compile, _gpu
    monkeypatch.setenv("LAZY_MLIR_DEBUG", "1")
    text = module("rows")
    kernels, _ = parse_bridge(_bridge.run_lazy_schedule(text, plan_memory=True))
    got = _gpu.compile_missing(text, kernels, "CUDA", _bridge.pipeline(True))
    assert sorted(got) == sorted(kernels)
    for sym, kernel in got.items():
        program, binary = kernel.made
        assert program.function_name == sym[1:] and program.dname == "CUDA"
        assert elf_machine(binary) == EM_CUDA or binary.startswith(b"//")
    # Compiled once per chip and kernel: a second schedule reuses them.
    assert _gpu.compile_missing(text, kernels, "CUDA", _bridge.pipeline(True)) == got
    sym = sorted(kernels)[0]
    arity = kernels[sym][2]
    bufs = tuple(Buffer("CUDA", 16, dtypes.float32) for _ in range(arity))
    si = _compile.attach(ScheduleItem(None, bufs, []), arity, got[sym])
    assert si.lazy_kernel is got[sym]
    on_host = tuple(Buffer("CLANG", 16, dtypes.float32) for _ in range(arity))
    mixed = _compile.attach(ScheduleItem(None, (bufs[0],) + on_host[1:], []), arity, got[sym])
    assert getattr(mixed, "lazy_kernel", None) is None
    monkeypatch.setattr(_compile, "_original_lower", lambda item: ("tinygrad's own", item))
    assert _compile._lower_schedule_item(si) == ("tinygrad's own", si)
    assert f"tinygrad's kernel for {sym[1:]}: the device refused lazy-mlir's" in capfd.readouterr().err
    assert got[sym].made is None  # not tried again


def test_a_graph_lazy_mlir_cannot_compile_falls_back(monkeypatch, capfd):
    from lazy_mlir.tinygrad import _bridge, _gpu
    monkeypatch.setenv("LAZY_MLIR_DEBUG", "1")
    monkeypatch.setattr(_gpu, "lower_pipeline", lambda vendor, chip: "no-such-pass")
    text = module("fma").replace("4096", "4095")
    kernels, _ = parse_bridge(_bridge.run_lazy_schedule(text, plan_memory=True))
    assert _gpu.compile_missing(text, kernels, "AMD", _bridge.pipeline(True)) == {}
    assert "lazy-mlir: tinygrad's kernels for this graph on AMD:" in capfd.readouterr().err
