//===- SchedulerFlagOptions.h - scheduler flags from pass options -*- C++ -*-===//
//
// lazy-group and lazy-form-kernels{decide} both take the scheduler flags as
// options (Lazy_SchedulerFlagOptions in Passes.td): an option given on the
// command line overrides the module's `lazy.flags`, which override
// tinygrad's defaults.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_TRANSFORMS_SCHEDULERFLAGOPTIONS_H
#define LAZY_DIALECT_LAZY_TRANSFORMS_SCHEDULERFLAGOPTIONS_H

#include "lazy/Dialect/Lazy/Analysis/ScheduleAnalysis.h"

namespace mlir::lazy {

/// The flags of `op`'s module, with each option that was given in their
/// place.
template <typename BoolOption>
ScheduleFlags scheduleFlags(Operation *op, const BoolOption &multiOutput,
                            const BoolOption &fuseConvBw,
                            const BoolOption &fuseArange) {
  ScheduleFlags flags = readModuleFlags(op);
  if (multiOutput.hasValue())
    flags.multiOutput = multiOutput;
  if (fuseConvBw.hasValue())
    flags.fuseConvBw = fuseConvBw;
  if (fuseArange.hasValue())
    flags.fuseArange = fuseArange;
  return flags;
}

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_TRANSFORMS_SCHEDULERFLAGOPTIONS_H
