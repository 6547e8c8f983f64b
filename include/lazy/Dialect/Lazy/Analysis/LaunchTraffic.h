//===- LaunchTraffic.h - the bytes a schedule moves -------------*- C++ -*-===//
//
// fusion=aggressive's cost measure and lazy-print-schedule's summary: the
// memory traffic of a schedule's items, each distinct buffer an item
// writes or reads counted once at its full size.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_ANALYSIS_LAUNCHTRAFFIC_H
#define LAZY_DIALECT_LAZY_ANALYSIS_LAUNCHTRAFFIC_H

#include "lazy/Dialect/Lazy/IR/LazyOps.h"

namespace mlir::lazy {

/// The bytes a schedule item moves: each distinct buffer it writes or
/// reads, once, at its full size (fusion=aggressive's cost measure).
int64_t itemBytesMoved(Operation *item);
/// The kernels launched in `block` and the bytes they move, summed.
struct LaunchTraffic {
  int64_t launches = 0;
  int64_t bytes = 0;
};
LaunchTraffic launchTraffic(Block &block);

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_ANALYSIS_LAUNCHTRAFFIC_H
