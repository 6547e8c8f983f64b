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

    1. each store becomes an `scf.parallel` over its view's shape; the value
       is computed per element and stored at the index the store's
       ShapeTracker gives (a masked store is guarded);
    2. a load reads the index its ShapeTracker gives, views composed from
       the outermost inwards; outside the mask it reads 0, from a clamped
       index, so memory is never accessed out of bounds;
    3. a const is an `arith.constant` (0 outside its view's mask);
    4. a reduce is an `scf.for` nest over its axes with an accumulator
       starting at 0 (sum) or the dtype's lowest value (max);
    5. elementwise ops map to `arith`/`math` by dtype and signedness, with
       tinygrad's semantics (C division and remainder, MAX as `a > b ? a :
       b`, bool ADD/MUL as or/and).

    THREEFRY is expanded into tinygrad's 32-bit add/rotate/xor rounds. The
    scheduled function becomes memref allocations and calls of the lowered
    kernels (which take unit-stride memrefs at any offset); copies become
    memref.copy, EMPTY items a zero fill, buffer views at an offset a
    strided view of the same memory; CUSTOM items and buffer views of
    another dtype are reported as errors.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

#endif // LAZY_CONVERSION_PASSES_TD
