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
    (a realized MetaOps.VIEW) into that buffer.
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
    /// On a lowered kernel: the names of what it fused (tinygrad's
    /// Metadata), an array of strings.
    static constexpr ::llvm::StringLiteral kMetadataAttrName = "lazy.metadata";
    /// On a scheduled function's result: the view of its buffer.
    static constexpr ::llvm::StringLiteral kResultViewAttrName =
        "lazy.result_view";
    static constexpr ::llvm::StringLiteral kForcedRealizeAttrName =
        "lazy.forced_realize";
    static constexpr ::llvm::StringLiteral kDefaultDeviceAttrName =
        "lazy.default_device";
    static constexpr ::llvm::StringLiteral kFlagsAttrName = "lazy.flags";
    /// On a module: tinygrad's Tensor._seed when the graph was exported.
    /// The k-th custom_random without a seed of its own that runs gets
    /// this plus k, as tinygrad's counter gives.
    static constexpr ::llvm::StringLiteral kRngSeedAttrName = "lazy.rng_seed";
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

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Lazy_Bool : TypeAlias<I1, "bool (i1)">;
def Lazy_SignedInt : AnyTypeOf<[SI8, SI16, SI32, SI64]>;
def Lazy_UnsignedInt : AnyTypeOf<[UI8, UI16, UI32, UI64]>;
def Lazy_Float : AnyTypeOf<[F16, BF16, F32, F64]>;
def Lazy_Int : AnyTypeOf<[Lazy_SignedInt, Lazy_UnsignedInt]>;
def Lazy_DType : AnyTypeOf<[Lazy_Bool, Lazy_Int, Lazy_Float],
    "tinygrad dtype (i1, si8..si64, ui8..ui64, f16, bf16, f32, f64)">;

// A statically shaped tensor of a tinygrad dtype whose encoding, if any, is a
// #lazy.device attribute.
class Lazy_TensorOf<list<Type> allowed, string what>
    : Type<And<[ShapedContainerType<allowed, IsRankedTensorTypePred,
                                    "tensor">.predicate,
                HasStaticShapePred,
                CPred<"::mlir::lazy::hasValidEncoding($_self)">]>,
           "statically shaped tensor of " # what #
           " with an optional #lazy.device encoding",
           "::mlir::RankedTensorType">;

def Lazy_Tensor : Lazy_TensorOf<[Lazy_DType], "a tinygrad dtype">;
def Lazy_FloatTensor : Lazy_TensorOf<[Lazy_Float], "floats">;
def Lazy_IntTensor : Lazy_TensorOf<[Lazy_Int], "integers">;
def Lazy_IntOrBoolTensor : Lazy_TensorOf<[Lazy_Int, Lazy_Bool],
                                         "integers or bools">;
def Lazy_NonBoolTensor : Lazy_TensorOf<[Lazy_Int, Lazy_Float],
                                       "integers or floats">;
def Lazy_BoolTensor : Lazy_TensorOf<[Lazy_Bool], "bools">;
def Lazy_UInt64Tensor : Lazy_TensorOf<[UI64], "ui64">;

#endif // LAZY_DIALECT_LAZY_IR_LAZYBASE_TD
