//===- Passes.td - lazy conversion passes ----------------------*- tablegen -*-===//

#ifndef LAZY_CONVERSION_PASSES_TD
#define LAZY_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertLazyToLoops : Pass<"convert-lazy-to-loops", "::mlir::ModuleOp"> {
  let summary = "Lower lazy.kernel ASTs to scf loops over memrefs";
  let description = [{
    Every `lazy.kernel` becomes a `func.func` of the same name whose
    arguments are `memref<N x T>` (signless element types; tinygrad's
    signedness chooses the arith ops). Rules:

    1. each store becomes an `scf.parallel` over its view's shape (a nest
       of `scf.for` when the kernel's work, its largest store or reduce
       input in elements, is below `parallel-min-work`); the value is
       computed per element and stored at the index the store's
       ShapeTracker gives (a masked store is guarded). A kernel with a
       plan (`opts`) runs its tile blocks (or point loops) in the
       `scf.parallel`, the point loops stepping by their upcast, and
       computes one register tile of elements per trip, its reduces in
       one shared loop nest that steps by the plan's unrolls; along the
       axis of the plan's `lanes` step (which lazy-optimize-kernels chose:
       the lowering decides nothing) each tile element is a `vector` of
       that many lanes: contiguous loads and stores become
       `vector.load`/`vector.store`, or `vector.maskedload`/`maskedstore`
       where the view's mask cuts the lanes (a padded convolution input),
       values that do not vary along the axis stay scalars and are
       broadcast, and what has no vector form (other strides, division,
       bool memory) is computed lane by lane. A tile whose reduces read
       masked loads of affine form is emitted twice, under an `scf.if`
       on whether every element and reduce position of the tile lies
       inside every such mask (its largest corner per condition): the
       copy inside reads them unmasked, the other as above; a tile that
       can never be inside (as wide as the padded axis) is emitted once;
    2. a load reads the index its ShapeTracker gives, views composed from
       the outermost inwards; outside the mask it reads 0, from a clamped
       index, so memory is never accessed out of bounds;
    3. a const is an `arith.constant` (0 outside its view's mask);
    4. a reduce is an `scf.for` nest over its axes with an accumulator
       starting at 0 (sum) or the dtype's lowest value (max); a long float
       sum adds in any order, and a float max takes IEEE maximum in any
       order and runs again in order where that gives a NaN or a zero. The
       loops carry `loop_annotation`s for LLVM: the in-order rerun
       `disableNonforced` (it seldom runs: no vector code to compile for
       it); an innermost reduce loop of at least 1024 iterations
       interleaved 8 times and not unrolled, nor the loops around it (its
       unrolled vector loop cost tens of milliseconds of compile time and
       ran no faster);
    5. elementwise ops map to `arith`/`math` by dtype and signedness, with
       tinygrad's semantics (C division and remainder, MAX as `a > b ? a :
       b`, bool ADD/MUL as or/and);
    6. a kernel over Variables (symbolic shapes) takes each as an `index`
       argument after its buffers, in key order, named by the function's
       `lazy.variables`; symbolic dims bound its loops (a plan takes no
       step on a symbolic axis), symbolic strides,
       offsets and masks are index arithmetic over those arguments, a
       float sum over a symbolic axis reorders only where it is long at
       every value, and a call passes its launch's `lazy.var_vals`: one
       kernel serves every value;
    7. a store group of a row kernel (stores reading computed values
       through views that vary only along the row axes) that its plan's
       `row` step names (lazy-optimize-kernels' rule R) runs its rows in
       the `scf.parallel`, each computing its row values, then its
       elements; a group without one computes its row values at every
       element. Where the row has one inner axis that the step's vector
       bytes of lanes divide, its elements are lane vectors along it, and so are its row values' reduces along
       that axis (float sums long enough to reorder and maxes; four
       partial vectors, then across lanes; a max keeps the in-order rerun
       where it gives a NaN or a zero), unless they read a computed view
       that is not constant along the axis; the row's second pass
       prefetches the next row's elements of the loads that move with
       the innermost row axis; a dear value (exp2, log2, sin, sqrt,
       recip) that such a reduce and the stores both compute is kept in a
       scratch row on the stack (at most 16 KiB); outputs of at least
       `nontemporal-min-bytes` are stored nontemporal where they are
       aligned (the kernel versioned on it).

    THREEFRY is expanded into tinygrad's 32-bit add/rotate/xor rounds. The
    scheduled function keeps every buffer as bytes (`memref<B x i8>`
    arguments and allocations) seen through `memref.view`, so buffer views
    at any offset and of any dtype are views of the same memory; a launch
    calls the lowered kernel with each buffer viewed as the kernel's
    argument type; copies become memref.copy and EMPTY items a zero fill;
    CUSTOM items are reported as errors.
  }];
  let options = [
    Option<"parallelMinWork", "parallel-min-work", "int64_t", "0",
           "kernels with less work (elements of the largest store or reduce "
           "input) get sequential loops: a parallel region costs a fork and "
           "a join (lazy-to-cpu: 65536)">,
    Option<"staticBuffers", "static-buffers", "bool", "false",
           "allocations become private uninitialized memref.globals: "
           "allocated once per loaded program and reused by every run, so "
           "a second call overwrites the first call's results "
           "(lazy-to-cpu: true)">,
    Option<"nontemporalMinBytes", "nontemporal-min-bytes", "int64_t", "0",
           "a plan's unmasked vector stores into buffers of at least this "
           "many bytes are nontemporal, skipping the cache (0: none; "
           "lazy-to-cpu: 32 MiB, a last-level cache)">,
    Option<"poisonBuffers", "poison-buffers", "bool", "false",
           "fill every allocation with 0xFF bytes (a NaN in every float "
           "dtype, -1 in every integer one) when the program reaches it, so that an output no kernel "
           "writes cannot pass for a result (lazy-run --check)">,
    Option<"profileCalls", "profile-calls", "bool", "false",
           "bracket each kernel call with calls of "
           "lazy_rt_kernel_begin(i64 n) and lazy_rt_kernel_end(i64 n), n "
           "the call's position in its host function (lazy-run --profile "
           "provides them)">,
    Option<"checkCalls", "check-calls", "bool", "false",
           "before each kernel call, call lazy_rt_check_arg(i64 n, i64 i, "
           "i64 address, i64 offset, i64 elements) for each buffer "
           "argument i (the aligned address, the offset and the size in "
           "elements), then lazy_rt_check_begin(i64 n); after it, "
           "lazy_rt_check_end(i64 n), n the call's position in its host "
           "function (lazy-run --check-kernels provides them)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect", "::mlir::mpi::MPIDialect",
    "::mlir::DLTIDialect"
  ];
}

def LazyMpiToLLVM : Pass<"lazy-mpi-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower a rank's mpi ops to MPI calls, if it has any";
  let description = [{
    lazy-to-cpu's step for lazy-distribute's items: on a module whose host
    code holds `mpi` ops (convert-lazy-to-loops then names the MPI ABI in
    the module's `dlti.map`), upstream MPIToLLVM through
    `convert-to-llvm{filter-dialects=mpi}`, the ops' memref operands cast
    until finalize-memref-to-llvm. Other modules are left alone without a
    walk, all analyses preserved so that the module is not verified again:
    a conversion over every op of a program with no MPI in it cost 3% of
    lowering, a verification 1.5%.
  }];
}

def LazyExpandExp2 : Pass<"lazy-expand-exp2", "::mlir::ModuleOp"> {
  let summary = "Expand f32 math.exp2 into arith ops that vectorize";
  let description = [{
    LLVM lowers `math.exp2` to a call of libm's `exp2f`, one element at a
    time, and its vector-library mappings have no exp2; a softmax spends
    most of its time there. This pass rewrites every f32 `math.exp2` as
    2^x = 2^n * 2^f with n = roundeven(x), f = x - n in [-1/2, 1/2] (both
    exact in f32):

    1. x is clamped to [-151, 129] (beyond, the result is 0 or +inf
       either way);
    2. 2^f is a polynomial in Horner form whose multiply-adds may fuse
       (`contract`);
    3. 2^n is applied exactly, from exponent bits, or with
       `llvm.intr.ldexp` on vectors where `vector-ldexp` is set (one
       `vscalefps`/`vscalefpd` on AVX-512: lazy-to-cpu sets it there;
       LLVM's loop vectorizer leaves a scalar ldexp scalar, so scalars
       keep the exponent bits);
    4. a NaN gives the NaN itself.

    By default 2^f is computed in double, a degree-12 Taylor polynomial
    (truncation below 1e-15 relative), scaled by 2^n (a normal double) and
    rounded to f32 once: the correctly rounded result but for ties closer
    than the polynomial's error. Every one of 2^21 values over [-160, 130]
    and [-30, 30] equalled numpy's rounded exp2 of the double, and the
    reference interpreter's libm exp2f differs from that in 0.06% of
    values: the corpus graphs whose outputs amplify rounding (a training
    step's Adam update of a gradient that is zero up to rounding) match.

    With `fast`, everything is in f32: a degree-6 polynomial (relative
    error 1.9e-9, coefficients fitted to 2^f and rounded to f32), 2^n as
    two multiplications by normal powers of two, 2^(n>>1) then
    2^(n - (n>>1)), so that only the last one rounds (subnormal results
    included), or one ldexp. The result is within 1 ulp of the exact 2^x
    (0.95 ulp at most on 2^24 random f in [-1/2, 1/2]; 6.5% of results are
    not the correctly rounded one), at about half the vector ops; within
    the f32 tolerance of every comparison, but a training step's Adam
    update of a gradient that is zero up to rounding follows it (the
    reference check's rounding noise moves exp2 as a 1-ulp function).

    With `fast` and `x86-scalef`, a vector of 16 f32 is clamped with
    compares and selects that keep a NaN (one `vmaxps`/`vminps` each), and
    `llvm.x86.avx512.mask.scalef.ps.512` applies 2^n with n as a float: a NaN
    flows through the polynomial and the scaling, so no integer
    conversion and no select remain (11 vector ops).

    lazy-to-cpu runs it after the bfloat16 passes (which compute bf16 in
    f32), with `fast` unless its `fast-exp2=false`: tinygrad's own CLANG
    exp2 is an f32 polynomial of about 1 ulp too.
  }];
  let options = [
    Option<"fast", "fast", "bool", "false",
           "compute in f32: within 1 ulp, not correctly rounded, at about "
           "half the cost">,
    Option<"vectorLdexp", "vector-ldexp", "bool", "false",
           "vectors apply 2^n with llvm.intr.ldexp: one vscalef on AVX-512 "
           "(lazy-to-cpu sets it there), a libm call per lane elsewhere; "
           "scalars keep the exponent bits, which LLVM's loop vectorizer "
           "vectorizes">,
    Option<"x86Scalef", "x86-scalef", "bool", "false",
           "with fast: vectors of 16 f32 apply 2^n with LLVM's "
           "llvm.x86.avx512.mask.scalef.ps.512, n a float, and clamp "
           "keeping NaN (no integer conversion, no NaN select; needs "
           "AVX-512: lazy-to-cpu sets it on AVX-512 hosts)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::LLVM::LLVMDialect"
  ];
}

def ConvertLazyToGpu : Pass<"convert-lazy-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower lazy.kernel ASTs to gpu.func kernels and the schedule "
                "to gpu launches";
  let description = [{
    Every `lazy.kernel` becomes a `gpu.func` of the same name in
    `gpu.module @lazy_kernels`, taking one `memref<N x T>` per buffer (the
    identity layout, for the bare-pointer calling convention); the scheduled
    function becomes host code: `gpu.alloc` of bytes, `memref.view` per
    buffer (so buffer views at any offset or of another dtype are views of
    the same memory), `gpu.launch_func` with the kernel's geometry,
    `gpu.memcpy` for copies and `gpu.memset` for EMPTY. Rules:

    1. each element is computed by the same per-element code as the CPU
       lowering (loads through ShapeTrackers, masks, dtype semantics);
    2. consecutive stores of one shape share one loop;
    3. thread mode: a grid-stride loop over the output elements, `unroll`
       elements per thread and trip (all values, then the stores; one per
       trip where the elements hold sequential reduces, and for the
       leftovers), reduces inside it sequential;
    4. block mode, for a store group with a `block` step in the plan (or
       every group, with a `group` step; lazy-optimize-kernels target=gpu
       decides them, rule B): a grid-stride loop over output elements, one
       per block at a time; the threads of the block split the reduced
       elements, loading `reduce-unroll` per trip and adding them in index
       order, and combine their partial results with `gpu.all_reduce`
       (narrow types in 32 bits); thread 0 stores. This pass decides no
       mapping: a group without such a step runs in thread mode;
    5. the launch uses blocks of `block-size` threads (block mode: the
       step's threads) and at most
       `max-grid` blocks; the kernel records its block size in
       `known_block_size`. Every loop is grid-stride, so the result does not
       depend on the grid size. A kernel with a block-mode loop has a
       power-of-two block (the all_reduce lowering's cross-warp shuffle
       needs one on ROCDL);
    6. tile mode, for a kernel with a plan (`opts`, lazy-optimize-kernels
       target=gpu): thread i takes register tiles i, i + gridDim*blockDim,
       ... (the upcast output axes' tiles in row-major order, so that
       neighbouring threads take neighbouring tiles of the innermost axis)
       and computes each as the CPU computes one: the tile's reduces in one
       loop nest in index order, one accumulator per element (a vector per
       row of lanes, along the plan's `lanes` step: lazy-optimize-kernels
       target=gpu gives at most 128 bits of the kernel's widest element);
       blocks of up to `block-size` threads. A plan's cache tiles are the
       CPU's and are ignored;
    7. a vector load or store states the alignment of its 128 bits (or
       fewer) only where it holds at every launch: the buffer's base is
       aligned (an allocation or a function argument: 16 bytes, which
       cudaMalloc, hipMalloc and the emulator exceed; a sub-buffer what its
       byte offset keeps) and the view's offset and its strides along every
       axis but the lanes' are multiples of the lanes. Else the vendor
       backend splits the access (ld.global.v4 needs the alignment stated);
    8. tensor-core mode, for a `tc` plan (with `tensor-cores`): a block of
       one warp or wave per instruction tile at a time, one instruction
       per 16 elements of K (`nvgpu.mma.sync` m16n8k16, `amdgpu.mfma` or
       `amdgpu.wmma` 16x16x16), fragments built from the operands at the
       elements the instruction's layout gives each lane
       (TensorCores.cpp). With block-tile steps (`local` warps,
       `upcast` instruction tiles per warp, `unroll` of K) a block of
       warps shares each block tile's operands, staged in workgroup memory
       a chunk of K at a time between two `gpu.barrier`s, and each warp
       reads its fragments from there;
    9. shared-memory mode, for a plan with `local` steps (a float product
       reduce): a block of local(M) x local(N) threads per block tile, the
       operands staged in two workgroup buffers per chunk of K between two
       barriers, each thread's register tile read from them with vector
       loads (SharedTiles.cpp); a `group` plan is block mode with
       the plan's threads per block;
    10. a kernel over Variables (symbolic shapes) takes each as an `index`
       argument after its buffers, in key order, named by the function's
       `lazy.variables`, and `gpu.launch_func` passes its launch's
       `lazy.var_vals`; it runs in thread mode over the element count at
       those values, delinearized by its symbolic dims (block and row
       modes are sized when the kernel is lowered), every symbolic dim at
       its largest value counting toward `index-bits=0`'s 2^30.

    CUSTOM items and copies between buffers of different types are errors.
    With `index-bits=0` the kernels' index arithmetic is 32 bits wide (a
    `dlti.dl_spec` on the `gpu.module`) where every tensor, buffer and view
    has fewer than 2^30 elements and the grid-stride loops cannot reach
    2^30; else 64.
    A float32 or float64 SQRT calls the `llvm.sqrt` intrinsic, correctly
    rounded on both vendors as in tinygrad's CUDA and HIP code: `math.sqrt`
    would become libdevice's `__nv_sqrtf`, which NVVMReflect turns into
    `sqrt.approx.f32`. With `fma` (the default, as nvrtc's `--fmad=true`
    contracts tinygrad's CUDA kernels and their MULACC), a float sum's
    accumulation of a product (`acc + a*b`, a matmul's or a convolution's
    step) is marked `contract` and becomes one fused multiply-add
    (`fma.rn.f32`, `v_fmac_f32`): half the instructions of a multiply and
    an add, each rounded. Every other float op rounds on its own, as in the
    reference interpreter; `fma=false` makes the sums round so too. The
    interpreter's checks judge a fused sum as one computed in another
    order: within the tolerance, else within the rounding noise of the
    reference (interpretWithRoundingNoise, whose one-ulp moves cover the
    product's skipped rounding).
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256",
           "threads per block of a store group without a `block` step (a "
           "power of two from 32 to 1024)">,
    Option<"maxGrid", "max-grid", "int64_t", "65535",
           "most blocks in one launch">,
    Option<"unroll", "unroll", "int64_t", "4",
           "thread mode: elements a thread loads per loop trip (1 to 16)">,
    Option<"reduceUnroll", "reduce-unroll", "int64_t", "8",
           "block mode: reduced elements a thread loads per loop trip (1 "
           "to 16)">,
    Option<"fma", "fma", "bool", "true",
           "fuse a float sum's acc + a*b into a multiply-add (false: "
           "every product and sum rounds, as the interpreter's do)">,
    Option<"doubleBuffer", "double-buffer", "bool", "false",
           "shared-memory plans: two halves per staging buffer, the next "
           "chunk's loads in flight during this chunk's multiply-adds (off "
           "until a GPU shows where it pays)">,
    Option<"tensorCores", "tensor-cores", "std::string", "\"none\"",
           "the instruction tensor-core plans (tc) run with: mma-sync "
           "(NVIDIA sm_80 and later), mfma (AMD CDNA), wmma (AMD RDNA3), or "
           "none (a tc plan is then an error)">,
    Option<"indexBits", "index-bits", "int64_t", "64",
           "width of the kernels' index arithmetic: 32, 64, or 0 for 32 "
           "where every index stays below 2^30 (lazy-to-nvvm's default; "
           "ROCDL's lowering does not narrow every index)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::DLTIDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect",
    "::mlir::nvgpu::NVGPUDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::amdgpu::AMDGPUDialect"
  ];
}

def CheckGpuToolchain : Pass<"lazy-check-gpu-toolchain", "::mlir::ModuleOp"> {
  let summary = "Report a missing GPU tool or device library before "
                "serialization";
  let description = [{
    Run by `lazy-to-nvvm` and `lazy-to-rocdl` before
    `gpu-module-to-binary`, so that a missing tool is one clear error:

    1. the chip is a processor LLVM's NVPTX or AMDGPU backend knows (LLVM
       itself only warns and compiles for a default one);
    2. nvvm, format=bin: ptxas in `toolkit`/bin or on PATH;
    3. nvvm: a kernel using a `math` op needs
       `toolkit`/nvvm/libdevice/libdevice.10.bc (the error names the
       kernel) — without it the calls would stay unresolved;
    4. rocdl: `toolkit`/amdgcn/bitcode holds ocml, ockl, hip, opencl and
       oclc_isa_version_<chip>.bc;
    5. rocdl, format=bin: `toolkit`/llvm/bin/ld.lld.
  }];
  let options = [
    Option<"target", "target", "std::string", "\"nvvm\"", "nvvm or rocdl">,
    Option<"chip", "chip", "std::string", "\"\"",
           "GPU chip (nvvm: sm_N, rocdl: gfxN)">,
    Option<"format", "format", "std::string", "\"bin\"",
           "the serialization format (isa, bin, ...)">,
    Option<"toolkit", "toolkit", "std::string", "\"\"",
           "the toolkit folder the pipeline passes gpu-module-to-binary">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // LAZY_CONVERSION_PASSES_TD
