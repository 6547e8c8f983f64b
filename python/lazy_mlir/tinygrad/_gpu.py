"""What tinygrad's GPU devices would receive from lazy-mlir (issue 53).

A tinygrad GPU runtime (CUDA and NV for NVIDIA, AMD and HIP for AMD) runs
a program object made of a binary (loaded as a module), an entry name, a
global size (the grid, in blocks: tinygrad's CUDA and HIP runtimes launch
`global_size` blocks of `local_size` threads) and the buffers in the
kernel's argument order. `compile_gpu` compiles a graph's schedule with
lazy-mlir's GPU pipelines through the C API (lazyCompileGpu) and returns
those parts for every kernel launch, in schedule order:

  - `binary`: the code object holding every kernel: a cubin (ELF,
    EM_CUDA) when ptxas is found, else PTX text for the driver to compile;
    for AMD a HSACO (ELF, EM_AMDGPU);
  - per launch, `entry`, `global_size`, `local_size` and `operands`: each
    a buffer of the schedule's host function (its argument number: the
    schedule's buffers, outputs first for each item, as tinygrad's
    ScheduleItem.bufs), one of the host program's own allocations, or a
    Variable's value.

Without a GPU this is what the static tests check (python/tests/
test_gpu_programs.py). In LAZY_MLIR=compile on a GPU device, each kernel
item's launch becomes tinygrad's own CompiledRunner over these parts
(`compile_missing`, `GpuKernel`), so tinygrad's allocator, its
synchronization, TinyJit's graph runners (CUDA and HIP graphs batch
CompiledRunners) and its profiling keep working; a kernel lazy-mlir cannot
give tinygrad runs tinygrad's own, with a LAZY_MLIR_DEBUG line.
"""

import os
import shutil
from dataclasses import dataclass
from typing import List, Tuple

from .. import _capi
from ._bridge_text import parse_bridge

#: tinygrad device names by vendor, and each vendor's default chip.
NVIDIA_DEVICES, AMD_DEVICES = ("CUDA", "NV"), ("AMD", "HIP")
DEFAULT_CHIP = {"nvidia": "sm_90", "amd": "gfx942"}
#: ELF machine numbers of the code objects.
EM_CUDA, EM_AMDGPU = 190, 224


@dataclass(frozen=True)
class Operand:
    kind: str  # "argument", "allocation" or "value"
    index: int  # argument or allocation number, or the value
    offset: int = 0  # bytes into the buffer


@dataclass(frozen=True)
class GpuLaunch:
    entry: str
    global_size: Tuple[int, int, int]
    local_size: Tuple[int, int, int]
    operands: Tuple[Operand, ...]


@dataclass(frozen=True)
class GpuPrograms:
    vendor: str
    chip: str
    binary: bytes
    format: str  # "cubin", "ptx" or "hsaco"
    launches: List[GpuLaunch]
    schedule: str


def vendor_of(device):
    name = device.split(":")[0].upper()
    if name in NVIDIA_DEVICES:
        return "nvidia"
    if name in AMD_DEVICES:
        return "amd"
    raise ValueError(f"{device} is not a tinygrad GPU device ({', '.join(NVIDIA_DEVICES + AMD_DEVICES)})")


def _have_ptxas():
    return bool(shutil.which("ptxas")) or os.path.exists(
        os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas"))


def lower_pipeline(vendor, chip):
    """lazy-mlir's GPU plans and lowering for `chip`, as lazy-run
    --device=cuda|hip runs them (lib/Driver/RunGraph.cpp, GpuRun.cpp)."""
    if vendor == "nvidia":
        cc = int("".join(c for c in chip[3:] if c.isdigit()) or 0)
        features = "+ptx87" if cc >= 120 else "+ptx86" if cc >= 100 else "+ptx80"
        cores = "mma-sync" if cc >= 80 else "none"
        return (f"lazy-optimize-kernels{{target=gpu tensor-cores={cores}}},"
                f"lazy-to-nvvm{{chip={chip} features={features} "
                f"format={'bin' if _have_ptxas() else 'isa'}}}")
    cores = "mfma" if chip.startswith("gfx9") else "wmma" if chip.startswith("gfx11") else "none"
    return (f"lazy-optimize-kernels{{target=gpu tensor-cores={cores} gpu-reduce-per-thread=1}},"
            f"lazy-to-rocdl{{chip={chip}}}")


def _operand(word):
    if word.startswith("v"):
        return Operand("value", int(word[1:]))
    where, offset = word[1:].split("+")
    return Operand("argument" if word[0] == "a" else "allocation", int(where), int(offset))


def parse_launches(text):
    """(format word, [GpuLaunch]) of lazyCompileGpu's launch text."""
    fmt, launches = None, []
    for line in text.splitlines():
        words = line.split()
        if words[0] == "format":
            fmt = words[1]
        elif words[0] == "launch":
            dims = tuple(int(w) for w in words[2:8])
            count = int(words[8])
            operands = tuple(_operand(w) for w in words[9:9 + count])
            launches.append(GpuLaunch(words[1], dims[:3], dims[3:], operands))
    return fmt, launches


def compile_gpu(graph, device="CUDA", chip=None,
                schedule_pipeline="lazy-schedule{record-nodes=true}"):
    """The program parts tinygrad's `device` receives for `graph` (module
    text, or the compact form; see the module comment); raises
    LazyMlirError on a graph lazy-mlir cannot compile for it."""
    from ._bridge_text import LazyMlirError
    vendor = vendor_of(device)
    chip = chip or DEFAULT_CHIP[vendor]
    ok, binary, launches, schedule, diagnostics = _capi.session().compile_gpu(
        graph, schedule_pipeline, lower_pipeline(vendor, chip), name="<tinygrad graph>")
    if not ok:
        raise LazyMlirError(diagnostics.strip() or "lazyCompileGpu failed")
    fmt, parsed = parse_launches(launches)
    kind = {"nvidia": {"bin": "cubin", "isa": "ptx"}, "amd": {"bin": "hsaco"}}[vendor].get(fmt, fmt)
    return GpuPrograms(vendor, chip, binary, kind, parsed, schedule)


def elf_symbols(image):
    """The names in an ELF64 little-endian image's symbol tables."""
    import struct
    if image[:4] != b"\x7fELF" or image[4] != 2 or image[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", image, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", image, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", image, shoff + i * shentsize) for i in range(shnum)]
    names = set()
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind not in (2, 11) or not entsize:  # SHT_SYMTAB, SHT_DYNSYM
            continue
        strtab = sections[link]
        for at in range(offset, offset + size, entsize):
            name_at, = struct.unpack_from("<I", image, at)
            start = strtab[4] + name_at
            names.add(image[start:image.index(b"\0", start)].decode())
    return names


def elf_machine(image):
    import struct
    return struct.unpack_from("<H", image, 0x12)[0]


def tinygrad_program(programs, launch, device, outputs):
    """(tinygrad Program, precompiled binary) for one launch, as
    tinygrad's CompiledRunner(program, precompiled=binary) takes them on
    `device`: the entry as the program's name, the grid as global_size
    and the block as local_size (launched as they are: no local size is
    searched), the kernel's buffers as its globals, the first `outputs` of
    them written. A launch that takes Variables or a buffer at an offset
    into another has no such program: tinygrad passes one whole buffer per
    argument and Variables as 32-bit values, so None."""
    from tinygrad.renderer import Program
    if any(op.kind == "value" or op.offset for op in launch.operands):
        return None
    count = len(launch.operands)
    program = Program(name=launch.entry, src=f"; lazy-mlir {programs.format} for {programs.chip}",
                      dname=device, global_size=list(launch.global_size),
                      local_size=list(launch.local_size), globals=list(range(count)),
                      outs=list(range(outputs)))
    return program, programs.binary


def device_chip(device):
    """The chip of tinygrad's `device` (its runtime's `arch`), else
    $LAZY_MLIR_GPU_CHIP, else the vendor's default."""
    try:
        from tinygrad.device import Device
        arch = getattr(Device[device], "arch", None)
        if isinstance(arch, str) and arch.startswith(("sm_", "gfx")):
            return arch
    except Exception:  # no such device here: the static path
        pass
    return os.environ.get("LAZY_MLIR_GPU_CHIP") or DEFAULT_CHIP[vendor_of(device)]


class GpuKernel:
    """One kernel compiled for a GPU: the Program and binary tinygrad's
    CompiledRunner takes (None: tinygrad runs its own kernel), made into
    a runner on first use."""

    def __init__(self, name, made):
        self.name, self.made, self._runner = name, made, None

    def runner(self):
        if self._runner is None:
            from tinygrad.engine.realize import CompiledRunner
            program, binary = self.made
            self._runner = CompiledRunner(program, precompiled=binary)
        return self._runner


_kernels = {}  # (chip, kernel AST text) -> GpuKernel


def _debug(message):
    if os.environ.get("LAZY_MLIR_DEBUG", "") not in ("", "0"):
        import sys
        print(f"lazy-mlir: {message}", file=sys.stderr)


def compile_missing(graph, kernels, device, schedule_pipeline):
    """{symbol: GpuKernel} for the `kernels` of a bridge text (symbol ->
    (metadata, AST lines, argument count)) on tinygrad's GPU `device`,
    compiling `graph`'s schedule when one is new; {} (tinygrad's own
    kernels, with a debug line) when lazy-mlir cannot compile it."""
    from ._bridge_text import LazyMlirError
    from ._compile import kernel_key
    chip = device_chip(device)
    keys = {sym: (chip, kernel_key(k[1])) for sym, k in kernels.items()}
    if any(key not in _kernels for key in keys.values()):
        try:
            programs = compile_gpu(graph, device, chip, schedule_pipeline)
        except LazyMlirError as error:
            _debug(f"tinygrad's kernels for this graph on {device}: {error}")
            return {}
        compiled_kernels, items = parse_bridge(programs.schedule)
        items = [item for item in items if item[0] == "KERNEL"]
        if len(items) != len(programs.launches):
            _debug(f"tinygrad's kernels on {device}: {len(programs.launches)} launches for "
                   f"{len(items)} kernels")
            return {}
        for (_, sym, outs, _), launch in zip(items, programs.launches):
            key = (chip, kernel_key(compiled_kernels[sym][1]))
            if key not in _kernels:
                made = tinygrad_program(programs, launch, device, len(outs))
                if made is None:
                    _debug(f"tinygrad's kernel for {sym} on {device}: it takes Variables or a "
                           "buffer at an offset")
                _kernels[key] = GpuKernel(sym[1:], made)
    return {sym: _kernels[key] for sym, key in keys.items() if _kernels[key].made is not None}
