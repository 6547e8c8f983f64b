//===- Passes.td - lazy dialect transformation passes --------*- tablegen -*-===//

#ifndef LAZY_DIALECT_LAZY_TRANSFORMS_PASSES_TD
#define LAZY_DIALECT_LAZY_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

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

#endif // LAZY_DIALECT_LAZY_TRANSFORMS_PASSES_TD
