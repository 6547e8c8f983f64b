//===- PackedPanels.h - the loads a plan's pack step copies -----*- C++ -*-===//
//
// A register-tile plan whose vector axis is cut into cache blocks (`tile`)
// may `pack` it: per block, each load that reads the block's elements
// contiguously and varies along no other output axis (a matmul's B: a row
// of the block per step of K, rows 4 KiB apart) is copied once into a
// scratch panel, the block's elements innermost and the reduce axes the
// load varies along outside them. Every register tile of the block then
// reads the panel, one contiguous stream, instead of the buffer, whose
// rows a power-of-two apart fall into the same few first-level cache sets.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_ANALYSIS_PACKEDPANELS_H
#define LAZY_DIALECT_LAZY_ANALYSIS_PACKEDPANELS_H

#include "lazy/Dialect/Lazy/Analysis/KernelSpace.h"

namespace mlir::lazy {

/// The panels of one block take at most this many bytes (stack memory of
/// each thread that runs a block).
constexpr int64_t kMaxPanelBytes = int64_t(1) << 20;

/// One load copied into a panel.
struct PanelLoad {
  LoadOp load;
  /// Per axis of the space: the panel's stride along it; 0 where the load
  /// does not vary (the pack axis 1, the reduce axes it varies along
  /// outside, innermost first).
  SmallVector<int64_t> strides;
  /// Elements of the panel, and its bytes.
  int64_t elements = 0, bytes = 0;
};

/// The loads a pack step on output axis `axis` with blocks of `block`
/// elements copies: every load of `kernel` whose view (its index and its
/// mask) moves by one element along `axis` and not along any other output
/// axis; views over Variables are not packed.
SmallVector<PanelLoad> packedLoads(KernelOp kernel, const KernelSpace &space,
                                   size_t axis, int64_t block);

/// The bytes of `panels` together: what one block's thread holds.
int64_t panelBytes(ArrayRef<PanelLoad> panels);

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_ANALYSIS_PACKEDPANELS_H
