//===- LazyBase.td - lazy dialect definition and type constraints -*- tablegen -*-===//
//
// The `lazy` dialect models tinygrad 0.9.2's lazy tensor graph (LazyBuffers)
// and, later, its scheduled kernels.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_IR_LAZYBASE_TD
#define LAZY_DIALECT_LAZY_IR_LAZYBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypes.td"

def Lazy_Dialect : Dialect {
  let name = "lazy";
  let cppNamespace = "::mlir::lazy";
  let summary = "tinygrad 0.9.2's lazy tensor graph and its scheduled kernels";
  let description = [{
    Each operation of the `lazy` dialect is one tinygrad 0.9.2 LazyOp: an
    elementwise op (UnaryOps, BinaryOps, TernaryOps), a reduce (ReduceOps), a
    movement op or a view through a ShapeTracker, or a meta op (MetaOps:
    CONST, EMPTY, COPY, CONTIGUOUS, CUSTOM, ASSIGN, VIEW).

    Values are statically shaped ranked tensors whose element type is one of
    tinygrad's 14 dtypes:

    | tinygrad | MLIR   | tinygrad | MLIR  |
    |----------|--------|----------|-------|
    | bool     | `i1`   | uint32   | `ui32`|
    | int8     | `si8`  | int64    | `si64`|
    | uint8    | `ui8`  | uint64   | `ui64`|
    | int16    | `si16` | float16  | `f16` |
    | uint16   | `ui16` | bfloat16 | `bf16`|
    | int32    | `si32` | float32  | `f32` |
    | float64  | `f64`  |          |       |

    Image dtypes (`imageh`, `imagef`) have no MLIR spelling and are rejected
    by the tinygrad exporter.

    The device of a value is its tensor encoding, `#lazy.device<"CUDA:1">`;
    a tensor without an encoding lives on the module's default device
    (`lazy.default_device`, tinygrad's `Device.DEFAULT`).

    Realized buffers (graph leaves) are function arguments. The argument
    attribute `lazy.buffer = N : i64` gives buffer identity: two arguments
    with the same number are two LazyBuffers that share one device Buffer
    (for example an assign target and the already realized ASSIGN);
    `lazy.buffer_offset = B : i64` is the byte offset of a sub-buffer
    (a realized MetaOps.VIEW) into that buffer. Arguments sharing a number
    are on one device; those without an offset (the whole buffer) have one
    dtype and byte size, and every sub-buffer ends within it.
    The discardable unit attribute `lazy.forced_realize` marks a base that
    `contiguous()` forced to materialize, and `lazy.seen` a base in the
    scheduler's `seen` set (already scheduled by an earlier call). tinygrad's Metadata travels in
    locations: `loc("__add__")`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Registers the attributes (in LazyAttrs.cpp, where their storage is
    /// defined).
    void registerAttributes();
    /// Registers the types (in LazyTypes.cpp).
    void registerTypes();

    /// Discardable attribute names owned by the dialect.
    static constexpr ::llvm::StringLiteral kBufferAttrName = "lazy.buffer";
    static constexpr ::llvm::StringLiteral kBufferOffsetAttrName =
        "lazy.buffer_offset";
    static constexpr ::llvm::StringLiteral kSeenAttrName = "lazy.seen";
    /// On a base or an allocation: a Python reference keeps the buffer
    /// alive after scheduling (tinygrad's lb_refcount > 0), so the memory
    /// planner leaves it alone.
    static constexpr ::llvm::StringLiteral kExternalAttrName = "lazy.external";
    /// Scheduling decisions, written by lazy-mark-realize and lazy-group.
    static constexpr ::llvm::StringLiteral kRealizeAttrName = "lazy.realize";
    static constexpr ::llvm::StringLiteral kGroupAttrName = "lazy.group";
    /// A row value of fusion=aggressive (SchedulePlan::rowValues), written
    /// by lazy-group.
    static constexpr ::llvm::StringLiteral kRowValueAttrName =
        "lazy.row_value";
    /// On a lowered kernel: the names of what it fused (tinygrad's
    /// Metadata), an array of strings.
    static constexpr ::llvm::StringLiteral kMetadataAttrName = "lazy.metadata";
    /// On a scheduled function's result: the view of its buffer.
    static constexpr ::llvm::StringLiteral kResultViewAttrName =
        "lazy.result_view";
    /// On a scheduled item (lazy.launch, lazy.ext), with lazy-schedule's
    /// record-nodes: for each output, the position of the graph op it
    /// realizes among the graph function's ops (arguments not counted), so
    /// that a caller holding the graph (the tinygrad bridge) can tell which
    /// of its nodes each item computes.
    static constexpr ::llvm::StringLiteral kNodesAttrName = "lazy.nodes";
    /// On a lazy.launch of a kernel that reads or writes through
    /// Variables: their values for this launch (tinygrad's var_vals), by
    /// unbound Variable, `{"start_pos[1:8]" = 4 : i64}`.
    static constexpr ::llvm::StringLiteral kVarValuesAttrName =
        "lazy.var_vals";
    /// On a lowered kernel function (func.func, gpu.func) that reads
    /// Variables: their names, in the order of its `index` arguments after
    /// the buffers, `["start_pos[1:8]"]`; its launches pass their values.
    static constexpr ::llvm::StringLiteral kKernelVariablesAttrName =
        "lazy.variables";
    static constexpr ::llvm::StringLiteral kForcedRealizeAttrName =
        "lazy.forced_realize";
    static constexpr ::llvm::StringLiteral kDefaultDeviceAttrName =
        "lazy.default_device";
    static constexpr ::llvm::StringLiteral kFlagsAttrName = "lazy.flags";
    /// On a module: tinygrad's Tensor._seed when the graph was exported.
    /// The k-th custom_random without a seed of its own that runs gets
    /// this plus k, as tinygrad's counter gives.
    static constexpr ::llvm::StringLiteral kRngSeedAttrName = "lazy.rng_seed";
    /// lazy-distribute's: on a module, each rank's device (an array of
    /// strings, by rank); on a rank's function, its rank (i64); on its
    /// arguments and results, their positions in the function it was split
    /// from (i64).
    static constexpr ::llvm::StringLiteral kRankDevicesAttrName =
        "lazy.rank_devices";
    static constexpr ::llvm::StringLiteral kRankAttrName = "lazy.rank";
    static constexpr ::llvm::StringLiteral kArgumentAttrName = "lazy.argument";
    static constexpr ::llvm::StringLiteral kOutputAttrName = "lazy.output";
  }];
}

//===----------------------------------------------------------------------===//
// Traits
//===----------------------------------------------------------------------===//

// All tensor operands and results share one device (tensor encoding).
// SameOperandsAndResultType does not compare encodings, so ops that use it
// also carry this trait.
def Lazy_SameDevice : NativeOpTrait<"SameDevice"> {
  let cppNamespace = "::mlir::OpTrait::lazy";
}

// All operands and results have one type (shape, dtype and device): the
// checks of MLIR's Elementwise and SameOperandsAndResultType traits and of
// Lazy_SameDevice, as one comparison of type pointers per operand; only a
// mismatch runs them, for their diagnostics. The verifier runs on every op
// after every pass, and MLIR's traits (with the result-type inference that
// SameOperandsAndResultType adds) cost several times more. Ops with this
// trait spell their one type with `custom<SameTypes>(type($a), ...)`.
def Lazy_SameTypes : NativeOpTrait<"SameTypes"> {
  let cppNamespace = "::mlir::OpTrait::lazy";
}

// MLIR's Elementwise check (all tensor operands and results have one shape)
// with a fast path that compares shapes directly.
def Lazy_Elementwise : NativeOpTrait<"Elementwise"> {
  let cppNamespace = "::mlir::OpTrait::lazy";
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

// A statically shaped tensor of a tinygrad dtype (i1, si8..si64, ui8..ui64,
// f16, bf16, f32, f64) whose encoding, if any, is a #lazy.device attribute,
// and whose byte size fits in int64 (so no element count or size wraps).
// `classes` is a mask of mlir::lazy::DTypeClass values; isLazyTensor checks
// it in one type switch.
class Lazy_TensorOf<string classes, string what>
    : Type<CPred<"::mlir::lazy::isLazyTensor($_self, " # classes # ")">,
           "statically shaped tensor of " # what #
           " (at most 2^63 - 1 bytes) with an optional #lazy.device "
           "encoding",
           "::mlir::RankedTensorType">;

def Lazy_Tensor : Lazy_TensorOf<"::mlir::lazy::kAnyDType", "a tinygrad dtype">;
def Lazy_FloatTensor : Lazy_TensorOf<"::mlir::lazy::kFloatDType", "floats">;
def Lazy_IntTensor : Lazy_TensorOf<
    "::mlir::lazy::kSignedDType | ::mlir::lazy::kUnsignedDType", "integers">;
def Lazy_IntOrBoolTensor : Lazy_TensorOf<
    "::mlir::lazy::kSignedDType | ::mlir::lazy::kUnsignedDType | " #
    "::mlir::lazy::kBoolDType", "integers or bools">;
def Lazy_NonBoolTensor : Lazy_TensorOf<
    "::mlir::lazy::kSignedDType | ::mlir::lazy::kUnsignedDType | " #
    "::mlir::lazy::kFloatDType", "integers or floats">;
def Lazy_BoolTensor : Lazy_TensorOf<"::mlir::lazy::kBoolDType", "bools">;
def Lazy_UInt64Tensor : Lazy_TensorOf<"::mlir::lazy::kUI64DType", "ui64">;

#endif // LAZY_DIALECT_LAZY_IR_LAZYBASE_TD
