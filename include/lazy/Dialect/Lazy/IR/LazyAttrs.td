//===- LazyAttrs.td - lazy dialect attributes ---------------*- tablegen -*-===//

#ifndef LAZY_DIALECT_LAZY_IR_LAZYATTRS_TD
#define LAZY_DIALECT_LAZY_IR_LAZYATTRS_TD

include "lazy/Dialect/Lazy/IR/LazyBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/TensorEncoding.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class Lazy_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Lazy_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Lazy_DeviceAttr : Lazy_Attr<"Device", "device"> {
  let summary = "the device a tensor lives on";
  let description = [{
    A tinygrad device string: a name in capitals, optionally followed by `:`
    and a device number or a path (`CLANG`, `CUDA:1`, `DISK:/tmp/x`). Used as
    the encoding of a tensor type: `tensor<4xf32, #lazy.device<"CUDA:1">>`.
  }];
  let parameters = (ins StringRefParameter<"tinygrad device string">:$name);
  let assemblyFormat = "`<` $name `>`";
  let genVerifyDecl = 1;
}

def Lazy_SymShapeAttr : Lazy_Attr<"SymShape", "sym_shape",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "the symbolic shape of a tensor (a tensor type encoding)";
  let description = [{
    A tensor whose shape holds tinygrad Variables (`sint` dims) has the
    static shape of the dims' largest values, as tinygrad sizes its buffers,
    and this encoding with the dims themselves, and the device when it is
    not the module's default:

    ```mlir
    tensor<2x9xf32, #lazy.sym_shape<[2, (start_pos[1:8=4] + 1)]>>
    tensor<2x9xf32, #lazy.sym_shape<[2, (start_pos[1:8=4] + 1)], device = "CUDA:1">>
    ```

    Integer dims equal the static ones; at least one dim is symbolic, as a
    tensor of integer dims is written without this encoding.
  }];
  let parameters = (ins "::lazy::st::SymShape":$dims,
                        OptionalParameter<"::mlir::lazy::DeviceAttr">:$device);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The Variables of the dims, by key.
    std::map<std::string, ::lazy::st::sym::NodeP> getVariables() const;
  }];
}

def Lazy_SymIntAttr : Lazy_Attr<"SymInt", "sint", [TypedAttrInterface]> {
  let summary = "a tinygrad Variable as a const's value";
  let description = [{
    The value of a `lazy.const` that is a Variable (tinygrad's
    `Tensor(Variable("n", 1, 8).bind(3))`), of an integer element type:

    ```mlir
    %n = lazy.const n[1:8=3] : tensor<i32>
    ```

    A kernel holds the unbound Variable (`n[1:8]`) and its launch the value.
  }];
  let parameters = (ins "::lazy::st::sym::SInt":$value,
                        AttributeSelfTypeParameter<"">:$type);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Lazy_ShapeTrackerAttr : Lazy_Attr<"ShapeTracker", "st"> {
  let summary = "a tinygrad ShapeTracker: a stack of strided, masked views";
  let description = [{
    The view a value takes of its base buffer: a list of views, the first
    indexing the base buffer and the last being the outermost, user-visible
    shape. Each view is `(shape):(strides)`, followed by `offset N` when the
    offset is non-zero and `mask [(begin, end), ...]` when some elements are
    padding (they read as 0).

    ```mlir
    #lazy.st<[(4, 4):(4, 1)]>
    #lazy.st<[(2, 2):(0, 2) offset 1 mask [(0, 1), (0, 2)], (4):(1)]>
    ```

    Entries may be symbolic (tinygrad's `sint`) over bound or unbound
    Variables, written `name[min:max]` or `name[min:max=value]`:

    ```mlir
    #lazy.st<[(2, (start_pos[1:8=4] + 1)):((start_pos[1:8=4] + 1), 1)]>
    ```

    Views are canonical, as tinygrad's `View.create` makes them: size-1
    dimensions have stride 0, a mask covering the whole shape is absent, and
    a view with a zero-sized dimension has zero strides and offset. The
    parser rejects a non-canonical view and names the canonical one.
  }];
  // Integer views are stored flattened in the context's allocator (see
  // LazyAttrs.cpp for the layout); getTracker() rebuilds the library
  // object. Symbolic views are kept as a SymShapeTracker, with `encoded`
  // holding only the outermost shape at the Variables' largest values.
  let parameters = (ins ArrayRefParameter<"int64_t", "encoded views">:$encoded,
                        "::mlir::lazy::SymTrackerRef":$symbolic);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    AttrBuilder<(ins "const ::lazy::st::ShapeTracker &":$tracker)>,
    AttrBuilder<(ins "const ::lazy::st::SymShapeTracker &":$tracker)>
  ];
  let extraClassDeclaration = [{
    /// The ShapeTracker this attribute holds; only for a tracker of plain
    /// ints (!isSymbolic()): passes that take symbolic graphs check first.
    ::lazy::st::ShapeTracker getTracker() const;
    /// Whether some entry is symbolic (holds a Variable).
    bool isSymbolic() const { return bool(getSymbolic()); }
    /// The tracker as symbolic views (plain ints for an integer tracker).
    ::lazy::st::SymShapeTracker getSymTracker() const;
    /// The user-visible shape (the last view's shape), read off the
    /// storage without rebuilding the tracker; symbolic dims at their
    /// largest values.
    ::llvm::ArrayRef<int64_t> getShape() const;
    /// validIndexRange of the first view (the one indexing the base
    /// buffer), read off the storage; nullopt for a symbolic tracker.
    std::optional<std::pair<int64_t, int64_t>> getBaseIndexRange() const;
    /// The attribute of a tracker already in the stored encoding (as
    /// getEncoded returns it; the C API's compact graph carries trackers so),
    /// or null after `emitError`'s diagnostic when the words are not a
    /// valid, canonical tracker.
    static ShapeTrackerAttr
    getFromEncoded(::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError,
                   ::mlir::MLIRContext *context,
                   ::llvm::ArrayRef<int64_t> encoded);
  }];
}

def Lazy_OptKind : I32EnumAttr<"OptKind", "a kernel transformation", [
    I32EnumAttrCase<"upcast", 0>,
    I32EnumAttrCase<"unroll", 1>,
    I32EnumAttrCase<"tile", 2>,
    I32EnumAttrCase<"tc", 3>,
    I32EnumAttrCase<"local", 4>,
    I32EnumAttrCase<"group", 5>,
    I32EnumAttrCase<"lanes", 6>,
    I32EnumAttrCase<"row", 7>,
    I32EnumAttrCase<"block", 8>,
    I32EnumAttrCase<"pack", 9>]> {
  let cppNamespace = "::mlir::lazy";
  let genSpecializedAttr = 0;
}

def Lazy_OptAttr : Lazy_Attr<"Opt", "opt"> {
  let summary = "one transformation of a kernel's iteration space";
  let description = [{
    One step of a kernel's plan (tinygrad's `Opt`, recorded as its
    `applied_opts` are). Axes number the kernel's iteration space: the
    shape of its stores with each reduced axis at the size its reduce
    reads (`KernelSpace.h`). `amount` divides the axis.

    - `upcast`: an output axis computed `amount` elements per loop trip,
      sharing every reduce loop (a register tile).
    - `lanes`: the register tile's elements are vectors of `amount`
      consecutive positions along this output axis (a power of two from 2
      dividing the axis's upcast; one such step per plan, not beside `tc`,
      `local` or `group`). Without it every element is a scalar.
      lazy-optimize-kernels chooses it (PlanLanes.h); the lowerings read
      it.
    - `unroll`: a reduce axis stepped `amount` elements per trip. On the
      innermost reduce axis of a long sum (or an integer one) the CPU
      keeps one partial sum per unrolled step, added in step order at the
      end: the partials become vector lanes.
    - `tile`: an output axis cut into blocks of `amount` elements whose
      loop runs outside every point loop (a cache block); a multiple of
      the axis's upcast.
    - `pack`: the output axis of a `tile` step, and of the `lanes` step,
      whose blocks copy the loads that read them contiguously into
      scratch panels (PackedPanels.h: each load whose view moves by one
      element along this axis and not along any other output axis); the
      register tiles of the block read the panels. `amount` is the axis's
      tile. At least one load qualifies and the panels of a block take at
      most 1 MiB. Only the CPU lowering runs it.
    - `tc`: the kernel's one reduce, over this axis, on tensor cores
      (TensorCores.h: a sum to f32 of a product of two 16-bit float
      operands); `amount` is the instruction's K (16). Alone, a block of
      one warp computes one instruction tile at a time. Beside it a plan
      takes only block-tile steps: `local` warps and `upcast` instruction
      tiles per warp on the product's M and N, `unroll` on K (a multiple
      of 16, the chunk of K staged in shared memory at a time). Only the
      GPU lowering runs it (NVIDIA sm_80 and later, AMD CDNA and RDNA3).
    - `local`: an output axis whose register tiles spread over `amount`
      threads of one GPU block (tinygrad's LOCAL): a block computes
      `amount` times the axis's upcast elements along it. Locals go on the
      own axes of the operands of a kernel whose one reduce is a float sum
      of a plain product of two operands (ProductReduce.h: a matmul's M
      and N, a convolution's output channels and its rows and columns):
      the block stages both operands' block tiles in shared memory a chunk
      of K at a time (the outermost reduce axis's unroll times the other
      reduce axes' sizes; cooperative loads, barriers), and each thread
      reads its tile's operands from there. At most one own axis of each
      operand is upcast. A block has 32 to 1024 threads; the CPU lowering
      refuses a plan with locals (an error at the kernel). With `tc`,
      locals count warps.
    - `row`: here `axis` numbers a store group (consecutive stores of one
      shape, in body order) of a kernel without an iteration space, one
      that reads computed values through views (RowSplit.h: a softmax's
      max and sum read back through an expand). The group runs row by row:
      each row computes those values once, then its elements. `amount` is
      the bytes of the vectors the row values' reduces and the elements
      take along the row's one inner axis where their type and extent
      allow (RowKernels.cpp), 1 for scalars; the GPU lowering runs a row
      per block and ignores it. A group without a row step computes what
      it reads at every element. A row plan holds only row steps, each
      group at most once, and only groups that split into rows.
    - `block`: here too `axis` numbers a store group (as for `row`), which
      runs on the GPU in blocks of `amount` threads (a power of two from 32
      to 1024): a block per output element, its reduces split across the
      threads and combined by block reductions; with the group's `row` step,
      a block per row, the row values' reduces block reductions. A group
      without a block step runs a thread per element (a row group: a
      block per row whose threads each compute the row values alone).
      lazy-optimize-kernels target=gpu gives a block step to every group
      whose longest reduce reaches `gpu-block-reduce-min` elements; the GPU
      lowering only reads it, and the CPU lowering refuses it. A plan of
      `row` and `block` steps (a group plan) holds each kind at most once
      per group and no other step; a kernel over Variables takes none.
    - `group`: the kernel's reduce split across `amount` threads of one
      GPU block (tinygrad's GROUP): a block computes one output at a time,
      each thread accumulating every amount-th of the reduced elements,
      a block-wide reduction combining the threads' partial results. On
      the innermost reduce axis, a power of two from 32 to 1024 (it need
      not divide the axis), the whole plan. The CPU lowering refuses it.

    ```mlir
    lazy.kernel @mm(...) attributes {num_outputs = 1 : i64,
        opts = [#lazy.opt<upcast, 1, 16>, #lazy.opt<upcast, 0, 4>,
                #lazy.opt<tile, 1, 128>, #lazy.opt<lanes, 1, 16>]} { ... }
    lazy.kernel @softmax(...) attributes {num_outputs = 1 : i64,
        opts = [#lazy.opt<row, 0, 32>]} { ... }
    lazy.kernel @mm_gpu(...) attributes {num_outputs = 1 : i64,
        opts = [#lazy.opt<local, 0, 16>, #lazy.opt<local, 1, 16>,
                #lazy.opt<upcast, 0, 4>, #lazy.opt<upcast, 1, 4>,
                #lazy.opt<unroll, 2, 16>]} { ... }
    ```
  }];
  let parameters = (ins EnumParameter<Lazy_OptKind>:$kind,
                        "int64_t":$axis, "int64_t":$amount);
  let assemblyFormat = "`<` $kind `,` $axis `,` $amount `>`";
}

#endif // LAZY_DIALECT_LAZY_IR_LAZYATTRS_TD
