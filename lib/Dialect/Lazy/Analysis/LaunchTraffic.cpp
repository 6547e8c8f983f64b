//===- LaunchTraffic.cpp - the bytes a schedule moves ---------------------===//
//
// LaunchTraffic.h states the measure.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/LaunchTraffic.h"

using namespace mlir;
using namespace mlir::lazy;

int64_t mlir::lazy::itemBytesMoved(Operation *item) {
  SmallVector<Value, 8> seen;
  int64_t bytes = 0;
  for (Value buffer : llvm::concat<Value>(itemOuts(item), itemIns(item))) {
    if (llvm::is_contained(seen, buffer))
      continue;
    seen.push_back(buffer);
    if (auto type = dyn_cast<BufferType>(buffer.getType()))
      bytes += type.getSizeInBytes();
  }
  return bytes;
}

LaunchTraffic mlir::lazy::launchTraffic(Block &block) {
  LaunchTraffic traffic;
  for (auto launch : block.getOps<LaunchOp>()) {
    ++traffic.launches;
    traffic.bytes += itemBytesMoved(launch);
  }
  return traffic;
}
