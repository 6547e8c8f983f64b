//===- LazyOps.td - lazy dialect operations ------------------*- tablegen -*-===//
//
// One operation per tinygrad 0.9.2 LazyOp. Mnemonics are tinygrad's enum
// member names in lower case; MetaOps.VIEW is `lazy.buffer_view` because
// `lazy.view` is the ShapeTracker view of a base.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_IR_LAZYOPS_TD
#define LAZY_DIALECT_LAZY_IR_LAZYOPS_TD

include "lazy/Dialect/Lazy/IR/LazyBase.td"
include "lazy/Dialect/Lazy/IR/LazyAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class Lazy_Op<string mnemonic, list<Trait> traits = []>
    : Op<Lazy_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

class Lazy_UnaryOp<string mnemonic, string tinygradName,
                   Type operandType = Lazy_Tensor, list<Trait> traits = []>
    : Lazy_Op<mnemonic, !listconcat(traits, [Pure, Lazy_SameTypes])> {
  let summary = "UnaryOps." # tinygradName;
  let arguments = (ins operandType:$src);
  let results = (outs operandType:$result);
  let assemblyFormat =
      "$src attr-dict `:` custom<SameTypes>(type($src), type($result))";
}

def Lazy_Exp2Op : Lazy_UnaryOp<"exp2", "EXP2", Lazy_FloatTensor> {
  let description = [{
    `2^x`, elementwise. An unsafe op for padding (f(0) != 0).
    ```mlir
    %y = lazy.exp2 %x : tensor<4xf32>
    ```
  }];
}
def Lazy_Log2Op : Lazy_UnaryOp<"log2", "LOG2", Lazy_FloatTensor> {
  let description = [{
    Base-2 logarithm, elementwise. An unsafe op for padding.
    ```mlir
    %y = lazy.log2 %x : tensor<4xf32>
    ```
  }];
}
def Lazy_SinOp : Lazy_UnaryOp<"sin", "SIN", Lazy_FloatTensor> {
  let description = [{
    Sine, elementwise.
    ```mlir
    %y = lazy.sin %x : tensor<4xf32>
    ```
  }];
}
def Lazy_SqrtOp : Lazy_UnaryOp<"sqrt", "SQRT", Lazy_FloatTensor> {
  let description = [{
    Square root, elementwise.
    ```mlir
    %y = lazy.sqrt %x : tensor<4xf32>
    ```
  }];
}
def Lazy_NegOp : Lazy_UnaryOp<"neg", "NEG", Lazy_NonBoolTensor> {
  let description = [{
    Negation, elementwise; tinygrad rejects bool. `a - b` is `a + neg(b)`.
    ```mlir
    %y = lazy.neg %x : tensor<4xsi32>
    ```
  }];
}
def Lazy_RecipOp : Lazy_UnaryOp<"recip", "RECIP", Lazy_FloatTensor> {
  let description = [{
    Reciprocal `1/x`, elementwise; float division is `a * recip(b)`. An unsafe
    op for padding.
    ```mlir
    %y = lazy.recip %x : tensor<4xf32>
    ```
  }];
}

def Lazy_CastOp : Lazy_Op<"cast", [Pure, Lazy_Elementwise]> {
  let summary = "UnaryOps.CAST";
  let description = [{
    Converts each element to the result's dtype (value conversion). The shape
    and device are unchanged.
    ```mlir
    %y = lazy.cast %x : tensor<4xsi32> -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$src);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Lazy_BitcastOp : Lazy_Op<"bitcast", [Pure]> {
  let summary = "UnaryOps.BITCAST";
  let description = [{
    Reinterprets the bits of each element as the result's dtype. With equal
    itemsizes the shape is unchanged; otherwise (tinygrad allows it on DISK
    only) the last dimension scales so that the byte size is unchanged.
    ```mlir
    %y = lazy.bitcast %x : tensor<4xf32> -> tensor<4xsi32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$src);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

class Lazy_BinaryOp<string mnemonic, string tinygradName,
                    Type operandType = Lazy_Tensor, list<Trait> traits = []>
    : Lazy_Op<mnemonic, !listconcat(traits, [Pure, Lazy_SameTypes])> {
  let summary = "BinaryOps." # tinygradName;
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs operandType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` "
                       "custom<SameTypes>(type($lhs), type($rhs), type($result))";
}

def Lazy_AddOp : Lazy_BinaryOp<"add", "ADD", Lazy_Tensor, [Commutative]> {
  let description = [{
    Elementwise sum; `a - b` is `add(a, neg(b))`.
    ```mlir
    %z = lazy.add %x, %y : tensor<4x4xf32>
    ```
  }];
}
def Lazy_MulOp : Lazy_BinaryOp<"mul", "MUL", Lazy_Tensor, [Commutative]> {
  let description = [{
    Elementwise product.
    ```mlir
    %z = lazy.mul %x, %y : tensor<4x4xf32>
    ```
  }];
}
def Lazy_IdivOp : Lazy_BinaryOp<"idiv", "IDIV", Lazy_IntTensor> {
  let description = [{
    Integer division truncating toward zero (C semantics). An unsafe op for
    padding.
    ```mlir
    %z = lazy.idiv %x, %y : tensor<4xsi32>
    ```
  }];
}
def Lazy_MaxOp : Lazy_BinaryOp<"max", "MAX", Lazy_Tensor, [Commutative]> {
  let description = [{
    Elementwise maximum.
    ```mlir
    %z = lazy.max %x, %y : tensor<4xf32>
    ```
  }];
}
def Lazy_ModOp : Lazy_BinaryOp<"mod", "MOD", Lazy_IntTensor> {
  let description = [{
    Integer remainder with the sign of the dividend (C semantics).
    ```mlir
    %z = lazy.mod %x, %y : tensor<4xsi32>
    ```
  }];
}
def Lazy_XorOp : Lazy_BinaryOp<"xor", "XOR", Lazy_IntOrBoolTensor,
                               [Commutative]> {
  let description = [{
    Bitwise exclusive or.
    ```mlir
    %z = lazy.xor %x, %y : tensor<4xi1>
    ```
  }];
}
def Lazy_ShlOp : Lazy_BinaryOp<"shl", "SHL", Lazy_IntTensor> {
  let description = [{
    Shift left.
    ```mlir
    %z = lazy.shl %x, %y : tensor<4xui32>
    ```
  }];
}
def Lazy_ShrOp : Lazy_BinaryOp<"shr", "SHR", Lazy_IntTensor> {
  let description = [{
    Shift right (arithmetic for signed, logical for unsigned dtypes).
    ```mlir
    %z = lazy.shr %x, %y : tensor<4xui32>
    ```
  }];
}
def Lazy_OrOp : Lazy_BinaryOp<"or", "OR", Lazy_IntOrBoolTensor,
                              [Commutative]> {
  let description = [{
    Bitwise or.
    ```mlir
    %z = lazy.or %x, %y : tensor<4xi1>
    ```
  }];
}
def Lazy_AndOp : Lazy_BinaryOp<"and", "AND", Lazy_IntOrBoolTensor,
                               [Commutative]> {
  let description = [{
    Bitwise and.
    ```mlir
    %z = lazy.and %x, %y : tensor<4xi1>
    ```
  }];
}
def Lazy_ThreefryOp : Lazy_BinaryOp<"threefry", "THREEFRY",
                                    Lazy_UInt64Tensor> {
  let description = [{
    The Threefry-2x32 counter-based random function: `lhs` holds the
    counters, `rhs` the key, both as ui64.
    ```mlir
    %z = lazy.threefry %counts, %key : tensor<8xui64>
    ```
  }];
}

class Lazy_CompareOp<string mnemonic, string tinygradName>
    : Lazy_Op<mnemonic, [Pure, Lazy_Elementwise, SameTypeOperands,
                         Lazy_SameDevice]> {
  let summary = "BinaryOps." # tinygradName;
  let arguments = (ins Lazy_Tensor:$lhs, Lazy_Tensor:$rhs);
  let results = (outs Lazy_BoolTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
}

def Lazy_CmpltOp : Lazy_CompareOp<"cmplt", "CMPLT"> {
  let description = [{
    Elementwise `lhs < rhs`; the result is bool (i1).
    ```mlir
    %z = lazy.cmplt %x, %y : tensor<4xf32> -> tensor<4xi1>
    ```
  }];
}
def Lazy_CmpneOp : Lazy_CompareOp<"cmpne", "CMPNE"> {
  let description = [{
    Elementwise `lhs != rhs`; the result is bool (i1). Tensor `==` is
    `cmpne(cmpne(a, b), true)`.
    ```mlir
    %z = lazy.cmpne %x, %y : tensor<4xf32> -> tensor<4xi1>
    ```
  }];
}

def Lazy_WhereOp : Lazy_Op<"where", [Pure, Lazy_Elementwise, Lazy_SameDevice,
    AllTypesMatch<["true_value", "false_value", "result"]>]> {
  let summary = "TernaryOps.WHERE";
  let description = [{
    Selects `true_value` where `condition` is true, `false_value` elsewhere.
    The condition must be bool with the same shape and device.
    ```mlir
    %z = lazy.where %c, %x, %y : tensor<4xi1>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Lazy_BoolTensor:$condition, Lazy_Tensor:$true_value,
                       Lazy_Tensor:$false_value);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    type($condition) `,` type($result)
  }];
}

def Lazy_MulaccOp : Lazy_Op<"mulacc", [Pure, Lazy_SameTypes]> {
  let summary = "TernaryOps.MULACC";
  let description = [{
    `a * b + c`, elementwise. tinygrad creates it only in codegen.
    ```mlir
    %z = lazy.mulacc %a, %b, %c : tensor<4xf32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$a, Lazy_Tensor:$b, Lazy_Tensor:$c);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = "$a `,` $b `,` $c attr-dict `:` "
      "custom<SameTypes>(type($a), type($b), type($c), type($result))";
}

//===----------------------------------------------------------------------===//
// Reduce ops
//===----------------------------------------------------------------------===//

class Lazy_ReduceOp<string mnemonic, string tinygradName>
    : Lazy_Op<mnemonic, [Pure]> {
  let summary = "ReduceOps." # tinygradName;
  let arguments = (ins Lazy_Tensor:$src, DenseI64ArrayAttr:$axes);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat =
      "$src `axes` $axes attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Lazy_ReduceSumOp : Lazy_ReduceOp<"reduce_sum", "SUM"> {
  let description = [{
    Sums over `axes` (distinct, in range; sorted in graphs, while a kernel's
    merged double reduce lists the outer reduce's axes first); reduced
    dimensions are kept with size 1.
    ```mlir
    %s = lazy.reduce_sum %x axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
    ```
  }];
}
def Lazy_ReduceMaxOp : Lazy_ReduceOp<"reduce_max", "MAX"> {
  let description = [{
    Maximum over `axes` (distinct, in range); reduced dimensions are kept
    with size 1.
    ```mlir
    %m = lazy.reduce_max %x axes [0, 1] : tensor<4x4xf32> -> tensor<1x1xf32>
    ```
  }];
}

def Lazy_SoftmaxSumOp : Lazy_Op<"softmax_sum", [Pure]> {
  let summary = "a softmax-weighted sum in one pass (fusion=aggressive)";
  let description = [{
    The sum over `axes` of the softmax of `scale * scores` times `weights`:

      result = sum_j exp2(scale * (x_j - M)) * w_j / sum_j exp2(scale * (x_j - M))

    with `M` the maximum of the scores over `axes` (j runs over them, the
    other dims are kept, the reduced ones with size 1). No tinygrad LazyOp
    computes it: `lazy-online-softmax` rewrites a kernel's max-reduce, the
    exponentials of the differences, their sum-reduce and the weighted sum
    of the normalized probabilities into it (attention's softmax(QK^T)V),
    so that one pass over the axes carries the running maximum, the running
    sum and the weighted accumulator, rescaling both as the maximum grows
    (the "online softmax"). The probabilities are never stored. Results
    equal the four-op form's up to rounding: the accumulators are rescaled
    instead of summed at the final maximum.

    A row whose scores are all `-inf` (every key masked) gives NaN, as the
    four-op form does.
    ```mlir
    %o = lazy.softmax_sum %x, %v axes [2] scale 1.4426950408889634
        : tensor<4x8x16xf32>, tensor<4x8x16xf32> -> tensor<4x8x1xf32>
    ```
  }];
  let arguments = (ins Lazy_FloatTensor:$scores, Lazy_FloatTensor:$weights,
                       DenseI64ArrayAttr:$axes, F64Attr:$scale);
  let results = (outs Lazy_FloatTensor:$result);
  let assemblyFormat = [{
    $scores `,` $weights `axes` $axes `scale` $scale attr-dict `:`
    type($scores) `,` type($weights) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Meta ops
//===----------------------------------------------------------------------===//

def Lazy_ConstOp : Lazy_Op<"const", [Pure]> {
  let summary = "MetaOps.CONST";
  let description = [{
    A tensor filled with one value of its dtype (tinygrad's `dtypes.as_const`
    normalisation: `true`/`false` for bool, an integer for integer dtypes, a
    float for float dtypes). tinygrad's consts are usually rank 0 and reach
    their consumers through a reshape and an expand.

    A float const holds its value as an `f64` attribute whatever its dtype:
    tinygrad keeps the Python float (`0.8`, not float32's
    `0.800000011920929`), and its code generators fold and render constants
    from that double. The value is rounded to the dtype only where a kernel
    or the interpreter uses it (`getElementValue`).
    ```mlir
    %c = lazy.const 2.0 : tensor<f32>
    %p = lazy.const 0.8 : tensor<f32>    // holds the double 0.8
    %t = lazy.const true : tensor<i1>
    ```
  }];
  let arguments = (ins TypedAttrInterface:$value);
  let results = (outs Lazy_Tensor:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The value as the element type holds it: a float const's double
    /// rounded to nearest, ties to even, into the element type; a bool,
    /// integer or Variable value as it is.
    ::mlir::TypedAttr getElementValue();
  }];
}

def Lazy_EmptyOp : Lazy_Op<"empty", [MemoryEffects<[MemAlloc]>]> {
  let summary = "MetaOps.EMPTY";
  let description = [{
    An uninitialised buffer (or one the runtime fills). It allocates, so two
    empties are never merged.
    ```mlir
    %e = lazy.empty : tensor<4x4xf32>
    ```
  }];
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Lazy_CopyOp : Lazy_Op<"copy", [MemoryEffects<[MemAlloc, MemRead]>]> {
  let summary = "MetaOps.COPY";
  let description = [{
    Copies a tensor to the device of the result type. Shape and dtype are
    unchanged; tinygrad's arg, the byte count, is the source's size times its
    itemsize.
    ```mlir
    %d = lazy.copy %x : tensor<4xf32> -> tensor<4xf32, #lazy.device<"CUDA:1">>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$src);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Lazy_ContiguousOp : Lazy_Op<"contiguous", [SameOperandsAndResultType,
                                               Lazy_SameDevice]> {
  let summary = "MetaOps.CONTIGUOUS";
  let description = [{
    Materialises its operand into a new contiguous buffer.
    ```mlir
    %c = lazy.contiguous %x : tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$src);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($result)";
}

def Lazy_CustomOp : Lazy_Op<"custom", [MemoryEffects<[MemAlloc, MemWrite]>]> {
  let summary = "MetaOps.CUSTOM";
  let description = [{
    A buffer filled by a named host function (tinygrad's callable arg, for
    example `custom_random` for `Tensor.rand` with THREEFRY=0).
    ```mlir
    %r = lazy.custom "custom_random" : tensor<4xf32>
    %t = lazy.custom "custom_random" {seed = 7 : i64} : tensor<4xf32>
    %s = lazy.custom "fill" (%x) : (tensor<4xf32>) -> tensor<4xf32>
    ```
    `custom_random` is numpy's `default_rng(seed)` as tinygrad 0.9.2 uses
    it. Its `seed` is explicit here or, as in tinygrad, taken from the
    module's `lazy.rng_seed` counter in the order the items run.
  }];
  let arguments = (ins StrAttr:$callee, Variadic<Lazy_Tensor>:$srcs,
                       OptionalAttr<I64Attr>:$seed);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = [{
    $callee (`(` $srcs^ `)` `:` `(` type($srcs) `)` `->`)? attr-dict
    type($result)
  }];
  let hasVerifier = 1;
}

def Lazy_AssignOp : Lazy_Op<"assign", [MemoryEffects<[MemWrite]>,
                                      AllTypesMatch<["value", "result"]>]> {
  let summary = "MetaOps.ASSIGN";
  let description = [{
    Writes `value` into the realized buffer `target` (a base) and yields the
    new contents. When the assignee was a non-contiguous view of the target
    (for example a shrink), `view` is that view's ShapeTracker and the result
    has its shape; otherwise the result has the value's shape and the
    target's size.
    ```mlir
    %n = lazy.assign %v to %t : tensor<4xf32>, tensor<4xf32>
    %m = lazy.assign %w to %t view <[(2):(1) offset 2]>
        : tensor<2xf32>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$value, Lazy_Tensor:$target,
                       OptionalAttr<Lazy_ShapeTrackerAttr>:$view);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = [{
    $value `to` $target (`view` $view^)? attr-dict `:` type($value) `,`
    type($target)
  }];
  let hasVerifier = 1;
}

def Lazy_BufferViewOp : Lazy_Op<"buffer_view", [Pure]> {
  let summary = "MetaOps.VIEW (a zero-copy sub-buffer)";
  let description = [{
    tinygrad's MetaOps.VIEW: the result aliases the source's buffer at the
    source view's offset, used instead of CONTIGUOUS for a consecutive view
    on a device that supports sub-buffers. A different result dtype is a
    bitcast done as a buffer view; the byte size must be unchanged.
    ```mlir
    %v = lazy.buffer_view %x : tensor<4xf32> -> tensor<4xf32>
    %b = lazy.buffer_view %x : tensor<4xf32> -> tensor<4xsi32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$src);
  let results = (outs Lazy_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Movement ops and views
//===----------------------------------------------------------------------===//

class Lazy_MovementOp<string mnemonic, string tinygradName,
                      list<Trait> traits = []>
    : Lazy_Op<mnemonic, !listconcat(traits, [Pure])> {
  let summary = tinygradName # " (a movement op)";
  let results = (outs Lazy_Tensor:$result);
  let hasVerifier = 1;
}

def Lazy_ReshapeOp : Lazy_MovementOp<"reshape", "reshape"> {
  let description = [{
    Same elements, new shape of equal size.
    ```mlir
    %y = lazy.reshape %x : tensor<4x4xf32> -> tensor<16xf32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$src);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def Lazy_PermuteOp : Lazy_MovementOp<"permute", "permute"> {
  let description = [{
    Reorders dimensions: result dimension `i` is source dimension `order[i]`.
    ```mlir
    %y = lazy.permute %x [1, 0] : tensor<4x2xf32> -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$src, DenseI64ArrayAttr:$order);
  let assemblyFormat =
      "$src $order attr-dict `:` type($src) `->` type($result)";
}

def Lazy_ExpandOp : Lazy_MovementOp<"expand", "expand"> {
  let description = [{
    Broadcasts size-1 dimensions to the result's sizes; other dimensions keep
    their size.
    ```mlir
    %y = lazy.expand %x : tensor<4x1xf32> -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$src);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def Lazy_PadOp : Lazy_MovementOp<"pad", "pad"> {
  let description = [{
    Adds `(before, after)` padding elements per dimension; padding reads as 0.
    ```mlir
    %y = lazy.pad %x [(1, 2), (0, 0)] : tensor<4x4xf32> -> tensor<7x4xf32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$src, DenseI64ArrayAttr:$padding);
  let assemblyFormat = [{
    $src custom<RangePairs>($padding) attr-dict `:` type($src) `->`
    type($result)
  }];
}

def Lazy_ShrinkOp : Lazy_MovementOp<"shrink", "shrink"> {
  let description = [{
    Keeps the elements in `[begin, end)` per dimension.
    ```mlir
    %y = lazy.shrink %x [(1, 3), (0, 4)] : tensor<4x4xf32> -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$src, DenseI64ArrayAttr:$bounds);
  let assemblyFormat = [{
    $src custom<RangePairs>($bounds) attr-dict `:` type($src) `->`
    type($result)
  }];
}

def Lazy_StrideOp : Lazy_MovementOp<"stride", "stride"> {
  let description = [{
    Takes every `|k|`-th element per dimension; a negative `k` flips that
    dimension first. No factor may be 0.
    ```mlir
    %y = lazy.stride %x [2, -1] : tensor<4x4xf32> -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$src, DenseI64ArrayAttr:$factors);
  let assemblyFormat =
      "$src $factors attr-dict `:` type($src) `->` type($result)";
}

def Lazy_ViewOp : Lazy_MovementOp<"view", "a LazyBuffer view"> {
  let summary = "a view of a base through a ShapeTracker";
  let description = [{
    A tinygrad view LazyBuffer: the base `src` seen through `tracker`, whose
    first view indexes the base's buffer (row-major over the base's shape)
    and whose last view's shape is the result's shape. Every reachable index
    must lie inside the base. `lazy-fold-views` rewrites movement ops into
    views and composes a view of a view.
    ```mlir
    %y = lazy.view %x as <[(4, 4):(1, 4)]> : tensor<4x4xf32> -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Lazy_Tensor:$src, Lazy_ShapeTrackerAttr:$tracker);
  let assemblyFormat =
      "$src `as` $tracker attr-dict `:` type($src) `->` type($result)";
}

include "lazy/Dialect/Lazy/IR/LazyScheduleOps.td"

#endif // LAZY_DIALECT_LAZY_IR_LAZYOPS_TD
