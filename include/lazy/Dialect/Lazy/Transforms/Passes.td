//===- Passes.td - lazy dialect transformation passes --------*- tablegen -*-===//

#ifndef LAZY_DIALECT_LAZY_TRANSFORMS_PASSES_TD
#define LAZY_DIALECT_LAZY_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"
include "lazy/Dialect/Lazy/IR/ScheduleFlags.td"

def LazyFoldViews : Pass<"lazy-fold-views", "::mlir::func::FuncOp"> {
  let summary = "Turn movement ops into views of their base and fold views";
  let description = [{
    Rewrites the graph into tinygrad's LazyBuffer form, where every value is
    either a base (a computation or a realized buffer) or a view of a base:

    1. A movement op (`reshape`, `permute`, `expand`, `pad`, `shrink`,
       `stride`) on a base becomes `lazy.view` of that base with the
       ShapeTracker `from_shape(base shape)` moved by the op.
    2. A movement op or a `lazy.view` on a view composes with it: the result
       is one `lazy.view` of the same base (views never chain). A
       `lazy.view` of a base keeps its tracker exactly as written.
    3. A view whose tracker is contiguous and has the base's shape is the
       base itself and disappears.
    4. A view with a zero-sized dimension, or whose outermost mask is empty,
       reads nothing: it becomes tinygrad's `const(0, shape)`, a rank-0
       `lazy.const 0` viewed (reshaped to ones, expanded) as its type. This
       rule is checked before rule 3, as in tinygrad.

    Ops are visited in program order, so each operand is already folded;
    nothing recurses on graph depth. Views left without users are erased.

    Example:
    ```mlir
    %r = lazy.reshape %a : tensor<4x4xf32> -> tensor<16xf32>
    %s = lazy.shrink %r [(2, 6)] : tensor<16xf32> -> tensor<4xf32>
    // becomes
    %s = lazy.view %a as <[(4):(1) offset 2]>
        : tensor<4x4xf32> -> tensor<4xf32>
    ```
  }];
  let dependentDialects = ["::mlir::lazy::LazyDialect"];
}

def LazyBindVariables : Pass<"lazy-bind-variables", "::mlir::ModuleOp"> {
  let summary = "Give every tinygrad Variable of a graph a value";
  let description = [{
    Rewrites graph functions with symbolic shapes (tinygrad Variables) into
    the integer graph at one value of each Variable: the value given in
    `values` (`start_pos=7`), else the value the Variable is bound to.

    1. Every `#lazy.st` is re-created with the values substituted (tinygrad's
       `View.create`, so the views are canonical integer views).
    2. Every tensor of a `#lazy.sym_shape` gets the integer shape at the
       values (the device stays its encoding).
    3. A `lazy.const` of a Variable becomes an integer const of its value.

    A value outside the Variable's range, a name no Variable has, or a
    Variable with no value and no binding is an error. The result is what
    tinygrad computes for those values; the interpreter evaluates graphs
    with Variables through it (`lazy-interp --var`). Kernels keep their
    Variables (their launches carry the values).

    ```mlir
    %v = lazy.view %a as <[(3, i[1:4=2]):(4, 1)]>
        : tensor<3x4xf32> -> tensor<3x4xf32, #lazy.sym_shape<[3, i[1:4=2]]>>
    // becomes
    %v = lazy.view %a as <[(3, 2):(4, 1)]> : tensor<3x4xf32> -> tensor<3x2xf32>
    ```
  }];
  let options = [
    ListOption<"values", "values", "std::string",
               "NAME=VALUE for a Variable (default: its bound value)">,
  ];
  let dependentDialects = ["::mlir::lazy::LazyDialect"];
}

// The scheduler flags, with tinygrad 0.9.2's defaults: one option per
// record of include/lazy/Dialect/Lazy/IR/ScheduleFlags.td, the one list.
defvar Lazy_SchedulerFlagOptions = !listconcat(
    !foreach(flag, Lazy_BoolFlags,
             Option<flag.cppField, flag.option, "bool", flag.defaultValue,
                    flag.tinygrad # ": " # flag.description>),
    !foreach(flag, Lazy_PolicyFlags,
             Option<flag.cppField, flag.option, "::mlir::lazy::FusionPolicy",
                    "::mlir::lazy::FusionPolicy::Tinygrad", flag.description,
                    [{::llvm::cl::values(
                      clEnumValN(::mlir::lazy::FusionPolicy::Tinygrad,
                                 "tinygrad",
                                 "tinygrad 0.9.2's kernels, exactly"),
                      clEnumValN(::mlir::lazy::FusionPolicy::Aggressive,
                                 "aggressive",
                                 "fewer kernels that move fewer bytes"))}]>));

def LazyMarkRealize : Pass<"lazy-mark-realize", "::mlir::ModuleOp"> {
  let summary = "Print which bases must be realized (tinygrad's realizes)";
  let description = [{
    tinygrad 0.9.2's `_recurse_lb` and padding check (scheduler spec
    §2.1-2.2). A depth-first walk from the outputs, in operand order, marks
    for realization:

    1. the base of every output that is not already realized;
    2. every base with `lazy.forced_realize` and every meta op (const,
       empty, copy, contiguous, custom, assign, buffer_view);
    3. the source base of a copy and of a buffer_view;
    4. the base of every view that expands it (more elements than the base),
       unless the view is a single masked view whose valid box is no larger
       than the base (a pad, checked in 5);
    5. the base of a padded view when an op of UNSAFE_PAD_OPS (recip, log2,
       exp2, idiv) lies between it and the nearest realized buffer.

    Each realized base gets `lazy.realize = N`, its position in tinygrad's
    ordered `realizes` set; marks from an earlier run are replaced. The
    marks are a printout of the schedule analysis for tests and inspection:
    no pass reads them (lazy-form-kernels decides the same plan itself).
    Errors: an assign whose target is not a function argument, a copy of a
    non-contiguous or partial view.
  }];
  let dependentDialects = ["::mlir::lazy::LazyDialect"];
}

def LazyGroup : Pass<"lazy-group", "::mlir::ModuleOp"> {
  let summary = "Print the kernel groups (tinygrad's grouping)";
  let description = [{
    tinygrad 0.9.2's reduce grouping (scheduler spec §2.3-2.6), on the
    realizes `lazy-mark-realize` prints (computed again here: no pass reads
    marks). For every unrealized reduce, in walk order:

    1. collect the realized buffers reachable through elementwise children
       along contiguous, same-size paths; the reduce realizes itself when a
       path reads another reduce, reads one base through two views, or
       reaches a buffer through a non-contiguous or resized view;
    2. with several buffers, keep the group only when no member has a reduce
       among its unrealized ancestors, adding the members' own fusable
       descendants (multi-output);
    3. an assign joins the group only if the kernel reads no other assign
       target;
    4. a reduce that must realize itself is chased down a single child chain
       while the view stays contiguous (stopping before a widening cast).

    Then `fuse-conv-bw` un-realizes the inner reduce of a double reduce with
    one child, and `fuse-arange` un-realizes sums over consts that feed
    kernels. Buffers that share a reduce form one group (`multi-output`).

    Each group member gets `lazy.group = G` (groups numbered in tinygrad's
    order), each realized base `lazy.realize = N` (the final realizes set)
    and, under fusion=aggressive, each row value `lazy.row_value`. Like
    lazy-mark-realize's, these marks are a printout of the plan that
    lazy-form-kernels, given the same flags, materializes. Flags not given
    as options come from the module's `lazy.flags`, else tinygrad's
    defaults.
  }];
  let options = Lazy_SchedulerFlagOptions;
  let dependentDialects = ["::mlir::lazy::LazyDialect"];
}

def LazyFormKernels : Pass<"lazy-form-kernels", "::mlir::ModuleOp"> {
  let summary = "Decide the groups and outline each into a lazy.kernel";
  let description = [{
    tinygrad 0.9.2's realize and group decisions (those `lazy-mark-realize`
    and `lazy-group` print), then its `_lower_lazybuffer` (scheduler spec
    §2.7), for every graph function. Each group becomes one item of an
    unordered `lazy.schedule` (in group order), and each kernel item a
    `lazy.kernel` symbol:

    1. copy, custom, empty and buffer_view groups become `lazy.ext` items
       reading their sources' bases, except, with `use-copy-kernel`
       (USE_COPY_KERNEL), a copy between devices of
       one type (`CUDA:0` to `CUDA:1`): a kernel that loads and stores the
       bytes as uint8 (its arguments are byte buffers; the launch passes
       the buffers as they are);
    2. movement ops on a reduce's output are pushed into its input (the
       reduced axes move last), and a reduce reading a view of the same kind
       of reduce merges with it into one reduce (its axes first);
    3. reduce inputs are padded (masked) to a common size per dimension;
    4. every output is stored in the reduce space of the last reduce (or in
       its own shape), through an assign's view when it has one;
    5. buffers are numbered outputs first, then inputs in first-use order;
       an assign target is read through its output slot, which requires an
       identity-like view ("self operand of augmented assign must be
       contiguous" otherwise);
    6. realized buffers of other items become loads, consts become views
       of a const.

    The function's arguments and results become `!lazy.buffer`s; a result
    that is a view of its buffer keeps the view as `lazy.result_view`.

    With the context's threads enabled, kernels are built on all cores and
    then inserted in item order: the output does not depend on threading.

    The realize and group decisions are the schedule analysis's
    (`planSchedule`, ScheduleAnalysis.h), made here under the flag options
    below over the module's `lazy.flags`: the scheduler's one decider.
    Every function is walked before any is lowered, so a walk error comes
    first. Marks in the input (what lazy-mark-realize and lazy-group print)
    are not read; the ops that carry them are replaced. With `fold-views`,
    a function not in LazyBuffer form is first folded by `lazy-fold-views`'
    rules, as if that pass ran first (a function already folded is only
    checked, while its graph is built); `lazy-schedule` runs it so, which
    spares an exported graph, already folded, a second walk and
    verification.

    An output that belongs to no group (fuse-conv-bw merged it into the
    reduce that reads it) is an error: a schedule
    never returns a buffer that nothing writes.
  }];
  let options = !listconcat([
    Option<"foldViewsFirst", "fold-views", "bool", /*default=*/"false",
           "fold views first, as lazy-fold-views would, where a function "
           "is not in LazyBuffer form">,
    Option<"report", "report", "bool", /*default=*/"false",
           "emit a remark per function: its items, its distinct kernels, "
           "how many groups were lowered or launched an earlier group's "
           "kernel without lowering, the launches, the graph ops they fuse "
           "and the bytes they move, and the realizes by reason: the pass "
           "statistics' figures (which MLIR compiles out of release builds "
           "of LLVM, Debian's among them)">,
    Option<"recordNodes", "record-nodes", "bool", /*default=*/"false",
           "mark each launch and ext with `lazy.nodes`: for each output, "
           "the position of the graph op it realizes among the function's "
           "ops as they were before folding (for the tinygrad bridge)">,
  ], Lazy_SchedulerFlagOptions);
  let statistics = [
    Statistic<"numItems", "items", "schedule items (kernels and EXT items)">,
    Statistic<"numKernels", "kernels", "distinct kernels formed">,
    Statistic<"numLaunches", "launches", "kernel launches">,
    Statistic<"numOpsFused", "ops-fused",
              "graph ops the launched kernels compute">,
    Statistic<"numBytesMoved", "bytes-moved",
              "bytes the launches move (each one's distinct buffers)">,
    Statistic<"numRealizeOutputs", "realizes-outputs",
              "buffers realized: outputs">,
    Statistic<"numRealizeMeta", "realizes-meta-or-forced",
              "buffers realized: meta ops and forced realizes">,
    Statistic<"numRealizeCopies", "realizes-copy-sources",
              "buffers realized: sources of copies and buffer_views">,
    Statistic<"numRealizeExpanded", "realizes-expanded",
              "buffers realized: bases a view expands">,
    Statistic<"numRealizeOther", "realizes-other-rules",
              "buffers realized: unsafe pads, reduce grouping, stored row "
              "values">,
  ];
  let dependentDialects = ["::mlir::lazy::LazyDialect"];
}

def LazyOnlineSoftmax : Pass<"lazy-online-softmax", "::mlir::ModuleOp"> {
  let summary = "Rewrite a kernel's softmax-weighted sum into one pass";
  let description = [{
    In every `lazy.kernel`, a sum of softmax probabilities times weights
    along the sum's own axes (Analysis/OnlineSoftmax.h: a max-reduce of the
    scores x, exp2 of the scaled difference, its sum-reduce, and the
    weighted sum of the normalized exponentials) becomes one
    `lazy.softmax_sum` of x and the weights:

    1. x is read at the sum's input shape through the view the sum reads
       the probabilities through;
    2. the weights are the product of the sum's other factors and, read
       through that view, the probabilities' factors other than the
       exponential and the normalization (a mask applied after the
       softmax), cast to the sum's element type; 1 where there are none;
    3. the ops nothing reads any longer are erased.

    Attention's softmax(QK^T)V so computes each score once: one pass over
    the keys carries the running max, sum and weighted accumulator, and no
    S x S value exists. lazy-form-kernels runs it on the kernels it forms
    under fusion=aggressive (rule 6 forms them); the pass is the same
    rewrite on its own, for tests.
  }];
  let statistics = [
    Statistic<"numRewritten", "rewritten",
              "softmax-weighted sums rewritten into lazy.softmax_sum">,
  ];
  let dependentDialects = ["::mlir::lazy::LazyDialect"];
}

def LazyToposort : Pass<"lazy-toposort", "::mlir::func::FuncOp"> {
  let summary = "Order a lazy.schedule (tinygrad's BFS) and inline it";
  let description = [{
    tinygrad 0.9.2's ordering (scheduler spec §2.8). Items are visited in
    their prescheduled order:

    1. data edges: an item runs after each distinct item producing one of
       its inputs;
    2. assign edges: an item reading a buffer that another item assigns
       runs before that assign (the assign is entered into the order when
       first named by such an edge);
    3. a breadth-first traversal from the items with no incoming edge emits
       the order; items left over mean a cycle, reported with the kernels
       on it (the items that only wait on it are counted, not listed).

    The ordered items replace the `lazy.schedule` op in the function, each
    allocation placed just before its first user.
  }];
  let dependentDialects = ["::mlir::lazy::LazyDialect"];
}

def LazyPlanMemory : Pass<"lazy-plan-memory", "::mlir::func::FuncOp"> {
  let summary = "Reuse buffers whose last use has passed (tinygrad 0.9.2)";
  let description = [{
    tinygrad 0.9.2's `memory_planner` (scheduler spec §3) on an ordered
    schedule. A buffer takes part when it is allocated by the schedule
    (`lazy.alloc`), is not externally referenced (`lazy.external`, or a
    result of the function: tinygrad's lb_refcount > 0), has elements, and
    is not touched by an EXT item (copies, custom, empty, views keep their
    buffers to preserve parallelism). Then:

    1. each buffer's live interval runs from its first to its last item;
    2. buffers are placed largest first (ties in first-use order), each in
       the first free segment of a buffer with the same device and dtype
       (and byte size, on devices without sub-buffer support) whose interval
       covers it, or else in itself over the whole timeline;
    3. the unused parts of the segment before and after the interval become
       free segments again;
    4. a buffer placed in a larger one becomes a `lazy.suballoc` at offset 0.

    Allocations end up at the top of the function. With `report`, a remark
    on the function gives tinygrad's "memory reduced from X MB -> Y MB,
    a -> b bufs" line.
  }];
  let options = [
    ListOption<"offsetDevices", "offset-devices", "std::string",
               "device kinds whose allocator supports sub-buffers "
               "(default: tinygrad 0.9.2's CLANG LLVM CUDA NV AMD METAL DISK)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "emit a remark 'memory reduced from X MB -> Y MB, a -> b bufs' "
           "(tinygrad's DEBUG>=1 line)">
  ];
  let statistics = [
    Statistic<"numBuffersBefore", "buffers-before", "planned buffers before">,
    Statistic<"numBuffersAfter", "buffers-after", "planned buffers after">,
    Statistic<"bytesBefore", "bytes-before", "planned bytes before">,
    Statistic<"bytesAfter", "bytes-after", "planned bytes after">,
  ];
  let dependentDialects = ["::mlir::lazy::LazyDialect"];
}

def LazyDistribute : Pass<"lazy-distribute", "::mlir::ModuleOp"> {
  let summary = "Split a multi-device schedule into one program per MPI rank";
  let description = [{
    Each device of an ordered schedule becomes a rank (devices sorted by
    name, then number; `CLANG` is `CLANG:0`; `NPY` buffers are host arrays
    every rank holds). Each scheduled function `@F` becomes `@F_rank<r>`
    per rank `r`, holding, in the schedule's order:

    1. the allocations, launches and EXT items of rank `r`'s device, and
       the function arguments and results on it (`lazy.argument` and
       `lazy.output` give their positions in `@F`);
    2. for a copy from device `e` to device `d`: a `lazy.send` on `e`'s rank
       and a `lazy.recv` on `d`'s, with the copy's position among them as
       the tag (copies from `NPY` or within a device stay copies);
    3. for tinygrad's hand-built all-reduce (one launch per device whose
       kernel is a left fold of `add`s, or of `max`es, over N whole,
       contiguous buffers: device d's own `x_d` and copies of every other
       device's `x_e`, the copies read by that launch alone, of an element
       type MPI reduces, its output a buffer of its own): one
       `lazy.all_reduce` per rank in place of the launch and its copies,
       on every rank where the group's first launch is. Anything else that
       looks like one, a fold in another order, of different buffers or
       with other ops fused in, stays sends and receives.

    Every rank runs the schedule's order, and each message and each
    all-reduce has one place in it, so a blocking send always meets its
    receive and every rank calls the collectives in the same order: no
    rank waits on one that waits on it. Run it before lazy-plan-memory
    (`lazy-schedule{plan-memory=false}`), then plan each rank's memory:
    on a planned schedule an all-reduce whose output shares memory stays
    sends and receives. The module gets
    `lazy.rank_devices`, each rank's device. Kernels no rank launches any
    more are dropped; with `rank`, only that rank's function is made, and
    only its kernels kept.
  }];
  let options = [
    Option<"rank", "rank", "int64_t", /*default=*/"-1",
           "make only this rank's function and keep only its kernels "
           "(-1: every rank's)">
  ];
  let statistics = [
    Statistic<"numSends", "sends", "copies between ranks made sends and "
              "receives">,
    Statistic<"numAllReduces", "all-reduces", "all-reduces recognized">,
  ];
  let dependentDialects = ["::mlir::lazy::LazyDialect"];
}

def LazyOptimizeKernels : Pass<"lazy-optimize-kernels", "::mlir::ModuleOp"> {
  let summary = "Choose each kernel's plan of loop transformations";
  let description = [{
    Writes `opts` (a list of `#lazy.opt`, tinygrad's applied_opts) on every
    `lazy.kernel` that has an iteration space (KernelSpace.h) and no plan
    yet; the lowerings follow it. The heuristic reads a target description
    (vector width, cores, cache sizes): `target=host` measures this machine,
    `target=generic` is a fixed 256-bit, 32 KiB L1, 1 MiB L2 machine (for
    tests); the other options override single figures. Rules, for a kernel
    with a reduce:

    1. The vector axis is the innermost output axis of more than one
       element along which the output is contiguous and every load's
       address is contiguous (stride 1, or in aligned runs of a vector
       through every view, as a reshaped transpose reads its merged axis:
       ShapeTracker::contiguousRuns) or constant (stride 0; a mask only
       selects), with at least one constant load (a value reused across the
       lanes). It is upcast to two vectors of the reduce's element type
       where that divides it, else one, else the largest power of two from
       4 that divides it; without such an axis the kernel keeps its plain
       loops.
    2. The row axis is the innermost other output axis along which some
       load that varies along the vector axis is constant (reused across
       rows): upcast by 8, 4 or 2, the most that divides it and keeps the
       tile within 16 vectors (a register tile of rows times vectors, one
       accumulator per AVX2 register) and its loads (elements times the
       kernel's loads) within 256 a trip, past which LLVM's code generation
       takes seconds (2 and 4 times those with 512-bit vectors, 16 rows
       only for rows two vectors wide), and, with rule 4's window unrolled,
       the trip within 512 elements, which a plan may not exceed.
    3. When the loads constant along the row axis (the panel every row
       tile sweeps) hold more than half the L2 cache, the vector axis is
       tiled: blocks of the widest multiple of its upcast that divide it and
       fit, so the panel stays in L2 while the rows stream past it.
       3b. With 256-bit vectors, a tiled vector axis is also packed
       (`pack`, PackedPanels.h) where some load reads it contiguously and
       no other output axis, within 1 MiB of panels a block: each block
       copies those loads once into panels on its thread's stack, and the
       rows are then upcast within 8 vectors instead of 16. An AVX2
       1024^3 matmul went from 50-56 ms to 25-26 ms on one core
       (OpenBLAS: 24-28), 25-27 to 13 ms on two; its B rows, 4 KiB apart,
       fell into the same few L1 sets. 512-bit targets are not packed
       (not measured there).
    4. The innermost reduce axis, when it has at most 4 elements (a
       convolution's window), is unrolled whole. Without lanes (no vector
       axis, or one too short or odd for them, and no register tile from
       5), up to 8 elements: a col2im's window positions then become
       constants, and the divisions of its views fold.
    5. A kernel without a vector axis (or one that no lane count
       divides, a 5x5 window's), whose loads all read the innermost
       reduce axis contiguously (as in 1) or not at all (a dot-product form, as
       A @ B.T in a backward pass) gets its lanes on that axis: it is
       unrolled by a vector (the lowering splits a long sum's accumulator
       per unrolled step), and two output axes along which a load read
       along the reduce axis is constant are upcast by 4 and by 4 (512-bit
       vectors) or 2, a register tile of one vector accumulator per
       element: the innermost such axis that 4 divides, then the innermost
       other one that the rows divide, one along which another load is
       constant where there is one (an outer product: a weight gradient's
       output and input channels).
       5b. Where some load reads that axis with a stride (a convolution's
       input gradient, a sum over output channels), the same register tile
       of the axes along which a load varying along the reduce axis is
       constant, without the unroll.
    6. A kernel without a reduce (nor 16-bit floats, which are computed
       in software) gets its vector axis (as in 1, with some
       load contiguous along it instead of some load constant) upcast
       alone: its loads and stores become explicit vectors, which LLVM's
       loop vectorizer leaves scalar in OpenMP's outlined loops, where it
       cannot prove the buffers distinct.

    `target=gpu` plans for convert-lazy-to-gpu's tile mode (a thread per
    register tile; 128-bit vectors):

    G0. With `tensor-cores`, a kernel that is a sum to f32 of a product of
        two f16 operands over its innermost reduce axis, with an output
        axis each operand alone varies along (TensorCores.h: M a multiple
        of 16, N of the instruction's 8 or 16, K of 16), gets `tc` on that
        axis; where M and N are multiples of 64, block tiles of 64x64 too:
        `local` 2 warps on M and N, `upcast` 2 instruction tiles on M and
        32 columns' worth on N (4 of mma.sync's 8, 2 of AMD's 16), K
        unrolled by 32 (or 16): the block stages both operands in shared
        memory and each warp issues 8 (or 4) instructions per 16 of K.
        Tensor cores multiply exactly: where the graph rounds each product
        to 16 bits first (tinygrad's half matmul, cast(mul)), the sums
        differ from the graph's by that rounding, as tinygrad 0.9.2's own
        TC kernels differ from its other backends (TensorCores.h).
    G1. A kernel without a reduce (nor 16-bit floats) gets its vector axis
        (as in 6) upcast by one vector (4 lanes of a 32-bit type): 128-bit
        loads and stores.
    G2. A kernel with a reduce gets a register tile of 4 rows (the row axis
        of 2, upcast by 4) by one vector along the vector axis (1); without
        a vector axis, 4 by 4 elements of the two innermost output axes
        along which some load is constant. No reduce axis is unrolled but a
        short window (4): the reduce stays in index order, as the
        interpreter adds. No cache tile.
    G3. A reduce kernel is planned only when it has at least
        `gpu-min-tiles` tiles (16384, 64 blocks of 256 threads): fewer
        outputs keep the unplanned lowering, whose block reductions spread
        each reduce over a block.
    G4. Before G2: a kernel that is a float sum of a plain product of two
        operands (ProductReduce.h: a matmul, a convolution, a weight
        gradient summed over batch and sequence) gets a shared-memory
        plan: each operand's innermost own axis `upcast` 4, its own axes
        `local` the most of 16, 8, 4, 2 threads that divide them
        (innermost first, at most 16 threads per operand, at least 32 in
        all), the outermost reduce axis unrolled by the most of 16, 8, 4,
        2 that keeps the chunk of K (that unroll times the other reduce
        axes' sizes) within 16 or one window, the chunk at least 4: a
        block of up to 256 threads stages each operand's block tile (a
        matmul's 64x16) in shared memory and each thread computes a 4x4
        register tile from them (convert-lazy-to-gpu's shared-memory
        mode). Its threads count towards G3 as tiles.
        `shared-memory=false` turns G4 off.
    A reduce kernel the rules leave without a register tile gets rule B's
    `block` steps (below: tinygrad's GROUP, a block per output splitting
    its reduce), sized by the gpu-block-* options, which the GPU pipelines
    set per vendor; a forced `group` step sets a kernel's block size
    instead.

    Kernels without a reduce keep their plain loops: LLVM vectorizes their
    innermost contiguous loop. `force` sets named kernels' plans instead,
    one step per item in order (`force=k0:upcast:1:16,k0:tile:1:128`;
    `k0:none` for no plan, which on the GPU is a thread per element; tc,
    local, group and block steps only with `target=gpu`); a plan already
    on a kernel is kept.

    The plan is the whole decision: every register-tile plan, chosen or
    forced, gets the `lanes` step its target's lowering runs
    (PlanLanes.h: the innermost upcast output axis every store writes and
    every load reads contiguously, else none for the dot-product form,
    else the innermost one every store writes contiguously; at most one
    register of f32 on the CPU, `vector-bits` / 32 lanes, 128 bits of the
    widest element on a GPU). The
    lowerings read it and decide nothing; a plan written by hand without
    one computes scalar elements.

    Rule R: a kernel without an iteration space that reads computed values
    through views (a row kernel, RowSplit.h: a softmax fused whole) gets a
    `row` step for each store group that splits into rows, with vectors
    of the target's width (`vector-bits`; 1 byte, scalar, with
    `target=gpu`) where the group's rows have one inner axis. Each row
    then computes its row values once; a group without a row step (or a
    kernel lowered without this pass) computes them at every element.
    `force=k0:row:0:32` forces one; `k0:none` keeps a row kernel
    unplanned.

    Rule B (target=gpu, the GPU mapping): a kernel left without a
    register-tile plan (its plan empty, or a row plan) gets a `block` step
    for every store group whose longest reduce has at least
    `gpu-block-reduce-min` elements (GpuBlocks.h): the group runs a block
    of threads per output element, its reduces split across them, or with
    its `row` step a block per row whose reduces are block reductions. The
    block has the reduce's elements (a row's: its longest reduce or its
    elements, whichever is more) over `gpu-reduce-per-thread` threads,
    rounded up to a power of two, from 32 to `gpu-block-size`. Other groups
    run a thread per element. convert-lazy-to-gpu only reads the steps.
    `force=k0:block:0:128` forces one.

    A kernel over tinygrad Variables (symbolic shapes) is planned on its
    integer axes only: no rule and no forced step takes a symbolic axis
    (plans divide integer extents), rule 5 none at all, and its views'
    strides are read at the Variables' largest values. With `target=gpu`
    it gets no plan (a thread per element).
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "host (this machine), generic (fixed figures, for tests) or gpu "
           "(convert-lazy-to-gpu's tile mode)">,
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"0",
           "vector register width in bits (0: the target's)">,
    Option<"l2Bytes", "l2-bytes", "uint64_t", /*default=*/"0",
           "L2 cache size per core in bytes (0: the target's)">,
    Option<"tensorCores", "tensor-cores", "std::string",
           /*default=*/"\"none\"",
           "target=gpu: the GPU's tensor-core instruction (rule G0): none, "
           "mma-sync (NVIDIA sm_80+), mfma (AMD CDNA), wmma (AMD RDNA3)">,
    Option<"gpuMinTiles", "gpu-min-tiles", "int64_t", /*default=*/"16384",
           "target=gpu: a reduce kernel is planned only when it has at "
           "least this many register tiles (threads)">,
    Option<"sharedMemory", "shared-memory", "bool", /*default=*/"true",
           "target=gpu: matrix products stage their operands in shared "
           "memory (rule G4)">,
    Option<"gpuBlockReduceMin", "gpu-block-reduce-min", "int64_t",
           /*default=*/"64",
           "target=gpu, rule B: store groups whose longest reduce has at "
           "least this many elements run in blocks (a `block` step)">,
    Option<"gpuReducePerThread", "gpu-reduce-per-thread", "int64_t",
           /*default=*/"16",
           "target=gpu, rule B: reduced elements per thread of a block (the "
           "block is the reduce's size over this, a power of two)">,
    Option<"gpuBlockSize", "gpu-block-size", "int64_t", /*default=*/"256",
           "target=gpu, rule B: the most threads of a block (a power of two "
           "from 32 to 1024)">,
    ListOption<"force", "force", "std::string",
               "plans for named kernels, one step per item: "
               "KERNEL:KIND:AXIS:AMOUNT, or KERNEL:none for no plan">
  ];
  let statistics = [
    Statistic<"numPlanned", "planned", "kernels given a plan">,
  ];
  let dependentDialects = ["::mlir::lazy::LazyDialect"];
}

def LazyPrintSchedule : Pass<"lazy-print-schedule", "::mlir::ModuleOp"> {
  let summary = "Print scheduled functions in the canonical schedule text";
  let description = [{
    Writes every scheduled function to stdout in the canonical text form
    that the differential harness also produces from tinygrad's own
    schedule, one item per block:

    ```
    item 0 KERNEL outs=1 ins=2
      n0 = LOAD 1 float [(4, 2):(1, 4) offset 4]
      n1 = SUM (1,) n0
      n2 = LOAD 2 float [(4, 1):(1, 0)]
      n3 = ADD n1 n2
      STORE 0 float [(4, 1):(1, 0)] n3
    item 1 EXT COPY 64 outs=1 ins=1
    moved: 1 kernels, 112 bytes
    ```

    The last line of each function counts its kernels and the bytes they
    move (each launch's distinct buffers at their full size; the measure
    `fusion=aggressive` lowers). Nodes are numbered in depth-first post-order from the stores, operands
    in order, structurally equal nodes once. Const values are printed as
    Python prints them after rounding to their dtype. With `buffers`, each
    item also lists its buffers (`bufs: b0 b1 b2@16`), numbered by first
    appearance, sub-buffers with their byte offset: the memory plan. The
    IR is unchanged.

    With `format=bridge` (what the tinygrad bridge reads; the module must
    come from `lazy-schedule{record-nodes}`), each distinct kernel is
    printed once, before its first launch, with its argument count and
    metadata names, and
    each item lists the graph positions of its outputs and, for each
    non-empty buffer, `<what>:<where>@<byte offset>`: `what` is the buffer
    the graph gives the operand (`aN`, argument N; `nP`, the graph op at
    position P), `where` the buffer it lives in after memory planning
    (`xK` for an allocation no graph op owns):

    ```
    schedule @graph
    kernel @graph_k0 args 3
      meta sum
      n0 = LOAD 1 float [(4, 2):(1, 4) offset 4]
      ...
      STORE 0 float [(4, 1):(1, 0)] n3
    item KERNEL @graph_k0
      out 3
      buf n3:n3@0 a0:a0@0 a1:a1@0
    item EXT COPY
      out 5
      buf n5:n5@0 n3:n3@0
    ```

    With `format=dot`, each scheduled function is a Graphviz digraph (pipe
    it to `dot -Tsvg`): kernels are boxes named by their kernel symbol and
    labelled with the item number, metadata and fused ops; EXT items are
    folders (copies, blue) or notes; arguments and results are houses;
    each buffer an item reads is an edge from the item (or argument) that
    wrote it, labelled with its elements, dtype and bytes; an item that
    writes over a buffer holding data (an assign) is yellow, with a dashed
    red `assign` edge from that data's writer.
  }];
  let options = [
    Option<"printBuffers", "buffers", "bool", /*default=*/"false",
           "also print each item's buffers (the memory plan)">,
    Option<"format", "format", "std::string", /*default=*/"\"canonical\"",
           "`canonical` (the differential harness's text), `bridge` (each "
           "distinct kernel once, then each item's output graph positions "
           "and buffers: needs lazy-schedule{record-nodes}) or `dot` "
           "(Graphviz)">
  ];
}

#endif // LAZY_DIALECT_LAZY_TRANSFORMS_PASSES_TD
