//===- PackedPanels.cpp - the loads a plan's pack step copies -------------===//
//
// PackedPanels.h states the rule.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/PackedPanels.h"

using namespace mlir;
using namespace mlir::lazy;

SmallVector<PanelLoad> mlir::lazy::packedLoads(KernelOp kernel,
                                               const KernelSpace &space,
                                               size_t axis, int64_t block) {
  SmallVector<PanelLoad> panels;
  size_t rank = space.shape.size();
  for (auto load : kernel.getBody().front().getOps<LoadOp>()) {
    ShapeTrackerAttr view = load.getView();
    if (view.isSymbolic())
      continue;
    // Strides of the index where the mask does not depend on the axis
    // either (realStrides without ignoring validity).
    std::vector<std::optional<int64_t>> strides =
        view.getTracker().realStrides(/*ignoreValid=*/false);
    if (strides.size() != rank || strides[axis] != 1)
      continue;
    bool packable = true;
    for (size_t d = 0; d < rank; ++d)
      if (d != axis && !space.reduced[d] && strides[d] != 0)
        packable = false;
    if (!packable)
      continue;
    PanelLoad panel;
    panel.load = load;
    panel.strides.assign(rank, 0);
    panel.strides[axis] = 1;
    panel.elements = block;
    // A reduce axis the view does not move along (a stride of 0) takes no
    // room; any other one does, even where its stride is not affine.
    for (size_t d = rank; d-- > 0;)
      if (space.reduced[d] && strides[d] != 0) {
        panel.strides[d] = panel.elements;
        panel.elements *= space.shape[d];
      }
    panel.bytes =
        panel.elements * itemSize(load.getBuffer().getType().getElementType());
    panels.push_back(std::move(panel));
  }
  return panels;
}

int64_t mlir::lazy::panelBytes(ArrayRef<PanelLoad> panels) {
  int64_t bytes = 0;
  for (const PanelLoad &panel : panels)
    bytes += panel.bytes;
  return bytes;
}
