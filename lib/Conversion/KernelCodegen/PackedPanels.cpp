//===- PackedPanels.cpp - a pack step's panels, copied per block ----------===//
//
// Rules (the analysis, Dialect/Lazy/Analysis/PackedPanels.h, says which
// loads a `pack` step copies and the panel's layout):
//   - a panel is a 1-d scratch memref of its elements, cache-line aligned,
//     on the stack of the thread that runs the block (the CPU lowering
//     allocates it per block in an alloca scope where blocks run in
//     parallel, else once before the block loop);
//   - the block's copy runs the reduce axes the load varies along outside,
//     the block's lane axis inside in vectors of the plan's lanes, each
//     vector the load's value there (masks included, as lane mode reads
//     it) stored at the panel's index;
//   - while the panels are set, lane mode and scalar code read those loads
//     from the panels (laneLeaf, leaf), at the sum over the axes of
//     (index - block origin) times the panel's stride.
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/KernelCodegen/KernelEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::lazy;

SmallVector<Value> KernelEmitter::allocatePanels(OpBuilder &b, Location loc,
                                                 ArrayRef<PanelLoad> panels) {
  SmallVector<Value> scratches;
  for (const PanelLoad &panel : panels) {
    Type element =
        signless(cast<RankedTensorType>(panel.load->getResult(0).getType())
                     .getElementType());
    scratches.push_back(memref::AllocaOp::create(
        b, loc, MemRefType::get({panel.elements}, element), ValueRange{},
        b.getI64IntegerAttr(kCacheLineBytes)));
  }
  return scratches;
}

LogicalResult KernelEmitter::packPanels(OpBuilder &b, Location loc,
                                        ArrayRef<PanelLoad> panels,
                                        ArrayRef<Value> scratches,
                                        ArrayRef<Value> origin,
                                        const KernelSpace &space, int64_t block,
                                        LaneAxis laneAxis) {
  auto index = [&](OpBuilder &ib, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ib, loc, v);
  };
  size_t rank = space.shape.size(), axis = laneAxis.axis;
  LogicalResult status = success();
  DenseMap<Operation *, PackedPanel> filled;
  for (auto [panel, scratch] : llvm::zip(panels, scratches)) {
    PackedPanel at{scratch, panel.strides, SmallVector<Value>(origin)};
    SmallVector<size_t> axes;
    SmallVector<Value> lbs, ubs, steps;
    for (size_t d = 0; d < rank; ++d)
      if (panel.strides[d] && d != axis) {
        axes.push_back(d);
        lbs.push_back(index(b, 0));
        ubs.push_back(index(b, space.shape[d]));
        steps.push_back(index(b, 1));
      }
    axes.push_back(axis);
    lbs.push_back(index(b, 0));
    ubs.push_back(index(b, block));
    steps.push_back(index(b, laneAxis.width));
    Value loaded = panel.load->getResult(0);
    scf::buildLoopNest(
        b, loc, lbs, ubs, steps, [&](OpBuilder &fb, Location, ValueRange ivs) {
          SmallVector<Value> idx(origin);
          for (auto [d, iv] : llvm::zip(axes, ivs))
            idx[d] =
                d == axis
                    ? arith::AddIOp::create(fb, loc, origin[d], iv).getResult()
                    : iv;
          FailureOr<Value> v = evaluateLanesAt(fb, loaded, idx, laneAxis);
          if (failed(v)) {
            status = failure();
            return;
          }
          vector::StoreOp::create(fb, loc, *v, scratch,
                                  ValueRange{panelIndex(fb, loc, at, idx)});
        });
    filled[panel.load] = std::move(at);
  }
  packedPanels = std::move(filled);
  return status;
}

Value KernelEmitter::panelIndex(OpBuilder &b, Location loc,
                                const PackedPanel &panel, ValueRange idx) {
  Value index = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [d, stride] : llvm::enumerate(panel.strides)) {
    if (!stride)
      continue;
    Value offset = arith::SubIOp::create(b, loc, idx[d], panel.starts[d]);
    index = arith::AddIOp::create(
        b, loc, index,
        arith::MulIOp::create(b, loc, offset,
                              arith::ConstantIndexOp::create(b, loc, stride)));
  }
  return index;
}
