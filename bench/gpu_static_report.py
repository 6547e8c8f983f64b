#!/usr/bin/env python3
"""GPU kernels without a GPU: lazy-mlir's sm_90 PTX against tinygrad 0.9.2's
CUDA kernels for the same schedule, side by side, from the assembly alone.

Each program is built in tinygrad and scheduled by both: lazy-opt lowers it
with `--lazy-to-nvvm=format=isa fma=true` (its GPU plans; fma as nvrtc
contracts tinygrad's kernels), and tinygrad 0.9.2 renders each kernel item
with its CUDARenderer (sm_90, hand-coded optimizations or tensor cores, as
its realize does without BEAM) and nvcc compiles that source to PTX (nvcc's
front end and defaults are nvrtc's). In compatibility mode both schedules
have the same kernels in the same order, so kernel i of one is kernel i of
the other. ptxas -v gives each kernel's registers.

Per kernel, static figures (the hot loop: the innermost loop with the most
float arithmetic, or the grid-stride loop of an elementwise kernel):
  insn/step  a reduce loop's instructions per reduce step in it (a float
             fma, add or max; an mma.sync m16n8k16 is 16*8*16/32 = 64 per
             lane): a matmul's cost per multiply-add;
  insn/elem  a loop that stores (or a kernel without loops): its
             instructions per element stored;
  ld.v4      the hot loop's 128-bit global loads over all its global loads;
  regs       registers per thread (ptxas -v);
  occ        occupancy estimate on sm_90 (65536 registers, 2048 threads, 32
             blocks per SM; registers per warp in units of 256);
  B/FLOP     the kernel's ideal global bytes per FLOP (tinygrad's
             mem_estimate over op_estimate; the same AST on both sides).

  python3 bench/gpu_static_report.py [--only NAME,...] [--kernels]

Prints a line per program (sums and medians over its kernels) and, with
--kernels, one per kernel.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

os.environ.setdefault("CLANG", "1")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))

from lazy_mlir import tool_path  # noqa: E402

LAZY_OPT = tool_path("lazy-opt")
CUDA_BIN = "/usr/local/cuda/bin"


def tool(name):
    found = shutil.which(name) or os.path.join(CUDA_BIN, name)
    if not os.access(found, os.X_OK):
        sys.exit(f"{name} not found (the CUDA toolkit)")
    return found


# -- programs -------------------------------------------------------------

def _rand(*shape):
    from tinygrad import Tensor
    return Tensor.rand(*shape).realize()


def matmul():
    return [_rand(4096, 4096) @ _rand(4096, 4096)], None


def matmul_half():
    from tinygrad import dtypes
    a, b = (_rand(4096, 4096).cast(dtypes.float16).realize() for _ in range(2))
    return [a @ b], None


def elementwise():
    n = 1 << 24
    return [_rand(n) * _rand(n) + _rand(n)], None


def row_sum():
    return [_rand(4096, 4096).sum(1)], None


def softmax():
    return [_rand(4096, 4096).softmax(1)], None


def conv():
    return [_rand(32, 64, 56, 56).conv2d(_rand(64, 64, 3, 3), padding=1)], None


def _corpus(name):
    def build():
        from corpus import registry
        built = registry.build(name)
        return built["outputs"], built["flags"]
    return build


PROGRAMS = [
    ("matmul 4096^3", matmul),
    ("matmul f16 4096^3", matmul_half),
    ("a*b+c 2^24", elementwise),
    ("row sum 4096^2", row_sum),
    ("softmax 4096^2", softmax),
    ("conv 32x64x56x56 3x3", conv),
    ("transformer2 step", _corpus("training/transformer2_adamw")),
    ("convnet step", _corpus("training/convnet_sgd")),
]


# -- PTX ------------------------------------------------------------------

FLOAT_OP = re.compile(r"^(mma|fma|mul|add|sub|div|max|min|neg|abs|ex2|lg2|sqrt|rcp|sin|cos)"
                      r"(\.[a-z0-9]+)*\.(f16|f16x2|bf16|bf16x2|f32|f64)\b")


def entries(ptx):
    """{entry name: its instruction lines} of a PTX module."""
    pending_mark = "\0"
    out, name, body, depth = {}, None, [], 0
    for line in ptx.splitlines():
        s = line.strip()
        m = re.match(r"\.(visible|weak)?\s*\.entry\s+(\w+)", s) or re.match(r"\.entry\s+(\w+)", s)
        if m and name is None:
            name, body, depth = m.groups()[-1], [], 0
            continue
        if name is None:
            continue
        depth += s.count("{") - s.count("}")
        if not s or s.startswith("//"):
            continue
        # An instruction continued on the next lines (mma.sync's operand
        # lists) is joined up to its ';'.
        if body and body[-1].startswith(pending_mark):
            body[-1] = body[-1][len(pending_mark):] + " " + s
            if not s.endswith(";"):
                body[-1] = pending_mark + body[-1]
            continue
        if re.match(r"^[a-z@]", s) and not s.endswith(";") and not s.endswith("{"):
            body.append(pending_mark + s)
        else:
            body.append(s)
        if depth <= 0 and "}" in s and any(b.endswith("{") or b == "{" for b in body):
            out[name] = body
            name = None
    return out


def is_instruction(s):
    return s.endswith(";") and not s.startswith(".") and not s.startswith("//")


def hot_loop(body):
    """The innermost loop (label .. backward branch) with the most float
    ops, the tightest of those; None without loops."""
    labels = {}
    loops = []
    for i, s in enumerate(body):
        m = re.match(r"^(\$?[\w$]+):$", s)
        if m:
            labels[m.group(1)] = i
        m = re.search(r"\bbra(\.uni)?\s+(\$?[\w$]+);", s)
        if m and m.group(2) in labels and labels[m.group(2)] < i:
            loops.append((labels[m.group(2)], i))
    inner = [(a, b) for a, b in loops
             if not any(a <= c and d <= b and (c, d) != (a, b) for c, d in loops)]
    if not inner:
        return None

    # Most float ops; of regions with as many, the tightest (a rotated
    # loop's text can span its exit block, which a larger region also
    # covering the loop's body takes in).
    def score(loop):
        lines = body[loop[0]:loop[1] + 1]
        return (sum(bool(FLOAT_OP.match(s)) for s in lines),
                -sum(is_instruction(s) for s in lines))
    a, b = max(inner, key=score)
    return [s for s in body[a:b + 1] if is_instruction(s)]


def loop_figures(loop):
    """insn, reduce steps, elements stored, global loads, 128-bit global
    loads. A reduce step is a float multiply-add, add or max (x2 forms
    count twice)."""
    insn = len(loop)
    steps = 0
    for s in loop:
        m = re.match(r"^(fma\.rn|add(\.rn)?|max(\.NaN)?)\.(f32|f64|f16|bf16|f16x2|bf16x2)\b", s)
        if m:
            steps += 2 if m.group(4).endswith("x2") else 1
        m = re.match(r"^mma\.sync\.aligned\.m(\d+)n(\d+)k(\d+)", s)
        if m:
            # A warp's m*n*k multiply-adds, a 32nd per lane.
            steps += int(m.group(1)) * int(m.group(2)) * int(m.group(3)) // 32
    stored = 0
    for s in loop:
        m = re.match(r"^st\.global(\.[a-z]+)*?(\.v(\d))?\.[a-z0-9]+", s)
        if m:
            stored += int(m.group(3) or 1)
    loads = [s for s in loop if s.startswith("ld.global")]
    wide = sum(".v4." in s or ".v2.b64" in s or ".v2.f64" in s for s in loads)
    return insn, steps, stored, len(loads), wide


def registers(ptx, arch="sm_90"):
    """{entry: registers} from ptxas -v."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "k.ptx")
        with open(path, "w") as f:
            f.write(ptx)
        proc = subprocess.run([tool("ptxas"), "-v", f"-arch={arch}", path, "-o",
                               os.path.join(d, "k.cubin")], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit("ptxas failed:\n" + proc.stderr[-2000:])
    regs, current = {}, None
    for line in proc.stderr.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            current = m.group(1)
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            regs[current] = int(m.group(1))
    return regs


def occupancy(regs, threads):
    """Resident threads over 2048 on an sm_90 SM."""
    if not regs or not threads:
        return float("nan")
    warps = -(-threads // 32)
    per_warp = -(-max(regs, 1) * 32 // 256) * 256
    by_regs = 65536 // (per_warp * warps) if per_warp * warps else 32
    blocks = min(32, by_regs, 2048 // (warps * 32))
    return blocks * warps * 32 / 2048


# -- the two sides --------------------------------------------------------

def mlir_unescape(s):
    return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), s)


def lazy_side(text):
    """[(entry, PTX of the module, threads per block)] in launch order."""
    proc = subprocess.run([LAZY_OPT, "--lazy-to-nvvm=format=isa fma=true", "-"],
                          input=text, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit("lazy-opt failed:\n" + proc.stderr[-2000:])
    m = re.search(r'#gpu\.object<#nvvm\.target<[^>]*>.*?assembly = "(.*?)(?<!\\)"',
                  proc.stdout, re.S)
    if not m:
        sys.exit("no PTX in lazy-opt's output")
    ptx = mlir_unescape(m.group(1))
    launches = re.findall(r"gpu\.launch_func\s+@lazy_kernels::@(\w+) blocks in \(([^)]*)\) "
                          r"threads in \(([^)]*)\)", proc.stdout)
    consts = dict(re.findall(r"(%[\w]+) = arith\.constant (\d+) : index", proc.stdout))
    out = []
    for name, _, threads in launches:
        x = threads.split(",")[0].strip()
        out.append((name, ptx, int(consts.get(x, 0))))
    return out


def tinygrad_side(outputs):
    """[(entry, PTX, threads per block, op_estimate, mem_estimate)] for
    the schedule's kernel items, in order."""
    from tinygrad.engine.realize import get_kernel
    from tinygrad.engine.schedule import create_schedule
    from tinygrad.ops import MetaOps
    from tinygrad.renderer.cstyle import CUDARenderer
    from lazy_mlir.tinygrad._export import collect_outputs
    renderer = CUDARenderer("sm_90")
    out = []
    for si in create_schedule(collect_outputs(outputs)):
        if si.ast.op is not MetaOps.KERNEL:
            continue
        prg = get_kernel(renderer, si.ast).to_program()
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "k.cu")
            with open(src, "w") as f:
                f.write(prg.src)
            proc = subprocess.run([tool("nvcc"), "-ptx", "-arch=sm_90", "-O3", src, "-o",
                                   os.path.join(d, "k.ptx")], capture_output=True, text=True)
            if proc.returncode != 0:
                sys.exit("nvcc failed on tinygrad's kernel:\n" + proc.stderr[-2000:])
            with open(os.path.join(d, "k.ptx")) as f:
                ptx = f.read()
        threads = 1
        for s in prg.local_size or [1]:
            threads *= s
        out.append((prg.function_name, ptx, threads, float(prg.op_estimate), float(prg.mem_estimate)))
    return out


def figures(entry, ptx, threads, regs_of):
    body = entries(ptx).get(entry)
    if body is None:
        sys.exit(f"entry {entry} not in its PTX")
    # A kernel without loops is its own hot loop, run once.
    loop = hot_loop(body) or [s for s in body if is_instruction(s)]
    insn, steps, stored, loads, wide = loop_figures(loop)
    regs = regs_of(ptx).get(entry, 0)
    # A loop that stores computes elements; one that does not is a reduce's.
    return dict(insn_mac=insn / steps if (steps and not stored) else float("nan"),
                insn_elem=insn / stored if stored else float("nan"),
                v4=(wide, loads), regs=regs, occ=occupancy(regs, threads))


def fmt(x, spec=".2f"):
    return "-" if x != x else format(x, spec)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated program names (substrings)")
    ap.add_argument("--kernels", action="store_true", help="a line per kernel")
    args = ap.parse_args()
    from lazy_mlir.tinygrad import export
    cache = {}

    def regs_of(ptx):
        if ptx not in cache:
            cache[ptx] = registers(ptx)
        return cache[ptx]

    head = (f"{'':28s} {'insn/step':>15s} {'insn/elem':>15s} {'ld.v4':>13s} "
            f"{'regs':>9s} {'occ':>11s} {'B/FLOP':>7s}")
    print("lazy-mlir (sm_90 PTX, GPU plans, fma) | tinygrad 0.9.2 CUDA (nvcc -ptx)")
    print(head)
    wanted = [w for w in args.only.split(",") if w]
    for name, build in PROGRAMS:
        if wanted and not any(w in name for w in wanted):
            continue
        outputs, flags = build()
        ours = lazy_side(export(outputs, flags=flags))
        theirs = tinygrad_side(outputs)
        if len(ours) != len(theirs):
            print(f"{name}: {len(ours)} kernels against tinygrad's {len(theirs)}: not paired")
            continue
        rows = []
        for (entry, ptx, threads), (tname, tptx, tthreads, ops, mem) in zip(ours, theirs):
            a = figures(entry, ptx, threads, regs_of)
            b = figures(tname, tptx, tthreads, regs_of)
            rows.append((tname, a, b, mem / ops if ops else float("nan")))
            if args.kernels:
                print(f"  {tname[:26]:26s} {fmt(a['insn_mac']):>7s}|{fmt(b['insn_mac']):<7s} "
                      f"{fmt(a['insn_elem']):>7s}|{fmt(b['insn_elem']):<7s} "
                      f"{a['v4'][0]:>2d}/{a['v4'][1]:<3d}|{b['v4'][0]:>2d}/{b['v4'][1]:<3d} "
                      f"{a['regs']:>4d}|{b['regs']:<4d} {fmt(a['occ']):>5s}|{fmt(b['occ']):<5s} "
                      f"{fmt(rows[-1][3], '.3f'):>7s}")

        def med(side, key):
            vals = [r[side][key] for r in rows if r[side][key] == r[side][key]]
            return statistics.median(vals) if vals else float("nan")

        def share(side):
            wide = sum(r[side]["v4"][0] for r in rows)
            loads = sum(r[side]["v4"][1] for r in rows)
            return f"{wide}/{loads}"
        print(f"{name + f' ({len(rows)} k)':28s} {fmt(med(1, 'insn_mac')):>7s}|{fmt(med(2, 'insn_mac')):<7s} "
              f"{fmt(med(1, 'insn_elem')):>7s}|{fmt(med(2, 'insn_elem')):<7s} "
              f"{share(1):>6s}|{share(2):<6s} {fmt(med(1, 'regs'), '.0f'):>4s}|{fmt(med(2, 'regs'), '.0f'):<4s} "
              f"{fmt(med(1, 'occ')):>5s}|{fmt(med(2, 'occ')):<5s} "
              f"{fmt(statistics.median(r[3] for r in rows), '.3f'):>7s}", flush=True)


if __name__ == "__main__":
    main()
