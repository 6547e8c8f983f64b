//===- LazyScheduleOps.td - schedule-level lazy ops ----------*- tablegen -*-===//
//
// The schedule level: self-contained kernels (`lazy.kernel`, whose bodies
// load and store buffers through ShapeTrackers) and the straight-line
// scheduled program that allocates buffers and runs kernels and EXT items
// (`lazy.alloc`, `lazy.launch`, `lazy.ext`).
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_IR_LAZYSCHEDULEOPS_TD
#define LAZY_DIALECT_LAZY_IR_LAZYSCHEDULEOPS_TD

include "lazy/Dialect/Lazy/IR/LazyTypes.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Lazy_KernelOp : Op<Lazy_Dialect, "kernel", [
    FunctionOpInterface, IsolatedFromAbove, SingleBlock, NoTerminator,
    DeclareOpInterfaceMethods<OpAsmOpInterface,
                              ["getAsmBlockArgumentNames"]>]> {
  let summary = "one fused kernel: a self-contained AST over buffers";
  let description = [{
    tinygrad's `KERNEL` LazyOp. The arguments are buffers, outputs first
    (`num_outputs` of them), then inputs, in tinygrad's MemBuffer numbering.
    The body loads buffers and consts through ShapeTrackers, computes with
    the graph's elementwise and reduce ops on tensors, and stores each output
    once (`lazy.store`, in output order). `metadata` names what was fused
    (tinygrad's Metadata). `opts`, when present, is the kernel's plan:
    `#lazy.opt` transformations of its iteration space, which
    `lazy-optimize-kernels` chooses and the lowerings follow; the verifier
    checks it against the body.

    ```mlir
    lazy.kernel @k0(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<16xf32>)
        attributes {num_outputs = 1 : i64, metadata = ["sum"]} {
      %0 = lazy.load %in0 as <[(4, 4):(4, 1)]> : !lazy.buffer<16xf32> -> tensor<4x4xf32>
      %1 = lazy.reduce_sum %0 axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
      lazy.store %1, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       I64Attr:$num_outputs,
                       OptionalAttr<StrArrayAttr>:$metadata,
                       OptionalAttr<TypedArrayAttrBase<Lazy_OptAttr,
                           "a kernel plan">>:$opts);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
  }];
}

def Lazy_LoadOp : Lazy_Op<"load", [Pure]> {
  let summary = "BufferOps.LOAD: read a kernel buffer through a ShapeTracker";
  let description = [{
    Reads the buffer (a kernel argument) through `view`, whose first view
    indexes the buffer; masked elements read 0. The result has the view's
    shape.
    ```mlir
    %0 = lazy.load %in0 as <[(4, 4):(1, 4)]> : !lazy.buffer<16xf32> -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Lazy_BufferType:$buffer, Lazy_ShapeTrackerAttr:$view);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat =
      "$buffer `as` $view attr-dict `:` qualified(type($buffer)) `->` "
      "type($result)";
  let hasVerifier = 1;
}

def Lazy_StoreOp : Lazy_Op<"store", [MemoryEffects<[MemWrite]>]> {
  let summary = "BufferOps.STORE: write a kernel output through a ShapeTracker";
  let description = [{
    Writes `value` (shaped like `view`) into the output buffer through
    `view`.
    ```mlir
    lazy.store %1, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$value, Lazy_BufferType:$buffer,
                       Lazy_ShapeTrackerAttr:$view);
  let assemblyFormat = [{
    $value `,` $buffer `as` $view attr-dict `:` type($value) `,`
    qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def Lazy_AllocOp : Lazy_Op<"alloc", [MemoryEffects<[MemAlloc]>]> {
  let summary = "a new buffer of the scheduled program";
  let description = [{
    ```mlir
    %b = lazy.alloc : !lazy.buffer<16xf32>
    ```
  }];
  let results = (outs Lazy_BufferType:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
}

def Lazy_SubAllocOp : Lazy_Op<"suballoc", [Pure]> {
  let summary = "a buffer carved out of a larger one (memory planning)";
  let description = [{
    The result aliases `base` from byte `offset` on: tinygrad's
    `Buffer(..., base=...)`, made by the memory planner (a smaller buffer
    inside a larger free one) and by MetaOps.VIEW (a buffer_view, possibly
    of another dtype). Same device; it must fit.
    ```mlir
    %s = lazy.suballoc %b offset 0 : !lazy.buffer<64xf32> -> !lazy.buffer<16xf32>
    ```
  }];
  let arguments = (ins Lazy_BufferType:$base, I64Attr:$offset);
  let results = (outs Lazy_BufferType:$result);
  let assemblyFormat = [{
    $base `offset` $offset attr-dict `:` qualified(type($base)) `->`
    qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Lazy_LaunchOp : Lazy_Op<"launch", [
    MemoryEffects<[MemRead, MemWrite]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "run a kernel: one tinygrad ScheduleItem with a KERNEL ast";
  let description = [{
    Runs `kernel` with `outs` as its output buffers and `ins` as its inputs.
    The results are the output buffers after the kernel ran: later readers
    use them, while readers of an operand see its contents before (an
    assign writes into its target's buffer, so readers of the old contents
    must run first).
    ```mlir
    %r = lazy.launch @k0 outs(%b : !lazy.buffer<4xf32>) ins(%a : !lazy.buffer<16xf32>)
    ```
    The operands are the outputs then the inputs, `num_outs` of them
    outputs (one count, not AttrSizedOperandSegments: a schedule holds
    thousands of launches, each verified after every pass).
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel,
                       Variadic<Lazy_BufferType>:$buffers,
                       I64Prop:$num_outs);
  let results = (outs Variadic<Lazy_BufferType>:$results);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "FlatSymbolRefAttr":$kernel, "ValueRange":$outs,
                   "ValueRange":$ins), [{
      $_state.addOperands(outs);
      $_state.addOperands(ins);
      $_state.addTypes(outs.getTypes());
      Properties &props = $_state.getOrAddProperties<Properties>();
      props.kernel = kernel;
      props.num_outs = int64_t(outs.size());
    }]>
  ];
  let extraClassDeclaration = [{
    /// The output buffers: the first `num_outs` operands (clamped to the
    /// operands, so that an op the verifier rejects still prints).
    ::mlir::OperandRange getOuts() {
      return getBuffers().take_front(numOutsInRange());
    }
    /// The input buffers: the operands after the outputs.
    ::mlir::OperandRange getIns() {
      return getBuffers().drop_front(numOutsInRange());
    }
    size_t numOutsInRange() {
      int64_t n = getNumOuts();
      return n < 0 ? 0 : std::min<size_t>(size_t(n), getBuffers().size());
    }
  }];
}

def Lazy_ExtOp : Lazy_Op<"ext", [
    AttrSizedOperandSegments, MemoryEffects<[MemRead, MemWrite]>,
    RangedTypesMatchWith<"the results are the output buffers", "outs",
                         "results", "$_self">]> {
  let summary = "a non-kernel ScheduleItem (tinygrad's EXT): copy, custom, "
                "empty or view";
  let description = [{
    tinygrad's `EXT` items: `copy` (the output buffer receives the input
    buffer's bytes, on another device), `custom` (a host function fills the
    output; `arg` is its name, `seed` the lazy.custom's seed if it has one),
    `empty` (allocate only) and `view` (the output is a sub-buffer of the
    input).
    ```mlir
    %d = lazy.ext "copy" outs(%b : !lazy.buffer<4xf32, #lazy.device<"CUDA">>) ins(%a : !lazy.buffer<4xf32>)
    ```
  }];
  let arguments = (ins StrAttr:$kind, Variadic<Lazy_BufferType>:$outs,
                       Variadic<Lazy_BufferType>:$ins,
                       OptionalAttr<AnyAttr>:$arg,
                       OptionalAttr<I64Attr>:$seed);
  let results = (outs Variadic<Lazy_BufferType>:$results);
  let assemblyFormat = [{
    $kind `outs` `(` $outs `:` type($outs) `)`
    (`ins` `(` $ins^ `:` type($ins) `)`)? attr-dict
  }];
  let builders = [
    OpBuilder<(ins "StringAttr":$kind, "ValueRange":$outs, "ValueRange":$ins,
                   "Attribute":$arg, "IntegerAttr":$seed), [{
      build($_builder, $_state, outs.getTypes(), kind, outs, ins, arg, seed);
    }]>
  ];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Distributed items: one rank's side of a copy between devices, and an
// all-reduce (lazy-distribute makes them; lowered to the upstream mpi
// dialect)
//===----------------------------------------------------------------------===//

def Lazy_SendOp : Lazy_Op<"send", [MemoryEffects<[MemRead]>]> {
  let summary = "the source rank's side of a copy to another device";
  let description = [{
    Sends the buffer's bytes to rank `rank`, where a `lazy.recv` with the
    same tag receives them (`mpi.send` once lowered). `lazy-distribute`
    makes one for each copy between two devices of a multi-device schedule;
    the tag is the copy's position among them, so that every send meets
    its receive.
    ```mlir
    lazy.send %b to rank 1 tag 0 : !lazy.buffer<4xf32>
    ```
  }];
  let arguments = (ins Lazy_BufferType:$buffer, I64Attr:$rank, I64Attr:$tag);
  let assemblyFormat = [{
    $buffer `to` `rank` $rank `tag` $tag attr-dict `:` qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def Lazy_RecvOp : Lazy_Op<"recv", [MemoryEffects<[MemWrite]>,
                                   AllTypesMatch<["buffer", "result"]>]> {
  let summary = "the destination rank's side of a copy from another device";
  let description = [{
    Receives into the buffer the bytes rank `rank` sends with the same tag
    (`mpi.recv` once lowered). The result is the buffer after receiving,
    as a `lazy.ext "copy"`'s is.
    ```mlir
    %r = lazy.recv %b from rank 0 tag 0 : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>
    ```
  }];
  let arguments = (ins Lazy_BufferType:$buffer, I64Attr:$rank, I64Attr:$tag);
  let results = (outs Lazy_BufferType:$result);
  let assemblyFormat = [{
    $buffer `from` `rank` $rank `tag` $tag attr-dict `:` qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def Lazy_AllReduceOp : Lazy_Op<"all_reduce", [
    MemoryEffects<[MemRead, MemWrite]>, AllTypesMatch<["out", "result"]>]> {
  let summary = "every rank's buffer combined element by element, on every "
                "rank";
  let description = [{
    `out` receives the `sum` or `max` over all ranks of their `in` buffers
    (`mpi.allreduce` once lowered). `lazy-distribute` makes one per rank in
    place of tinygrad's hand-built all-reduce (each device adding up copies
    of every device's buffer). The element type must be one MPI reduces:
    f32, f64 or an integer of 8 to 64 bits (`max` on signed ones only).
    ```mlir
    %r = lazy.all_reduce sum %g into %o : !lazy.buffer<16xf32> -> !lazy.buffer<16xf32>
    ```
  }];
  let arguments = (ins Lazy_BufferType:$in, Lazy_BufferType:$out,
                       StrAttr:$kind);
  let results = (outs Lazy_BufferType:$result);
  let assemblyFormat = [{
    $kind $in `into` $out attr-dict `:` qualified(type($in)) `->`
    qualified(type($out))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether MPI reduces elements of `type` with `kind` ("sum", "max").
    static bool reducible(::mlir::Type type, ::llvm::StringRef kind);
  }];
}

def Lazy_ScheduleOp : Lazy_Op<"schedule", [
    SingleBlock,
    DeclareOpInterfaceMethods<RegionKindInterface>]> {
  let summary = "an unordered schedule: items and their buffers";
  let description = [{
    The schedule before ordering: a graph region holding the allocations,
    launches and EXT items in tinygrad's prescheduled order, where an item
    may use a buffer that a later item produces. `lazy-toposort` orders it
    (tinygrad's BFS, with assign ordering and cycle detection) and inlines
    it into the enclosing function. The yielded buffers are the results.
    ```mlir
    %r = lazy.schedule -> !lazy.buffer<4xf32> {
      %b = lazy.alloc : !lazy.buffer<4xf32>
      %o = lazy.launch @k0 outs(%b : !lazy.buffer<4xf32>) ins(%a : !lazy.buffer<16xf32>)
      lazy.yield %o : !lazy.buffer<4xf32>
    }
    ```
  }];
  let results = (outs Variadic<Lazy_BufferType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`->` type($results)^)? attr-dict-with-keyword $body
  }];
}

def Lazy_YieldOp : Lazy_Op<"yield", [Pure, Terminator, ReturnLike,
                                     HasParent<"ScheduleOp">]> {
  let summary = "the buffers a lazy.schedule produces";
  let arguments = (ins Variadic<Lazy_BufferType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // LAZY_DIALECT_LAZY_IR_LAZYSCHEDULEOPS_TD
