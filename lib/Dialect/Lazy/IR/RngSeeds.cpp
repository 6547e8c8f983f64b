//===- RngSeeds.cpp - tinygrad's custom_random seed counter ---------------===//

#include "lazy/Dialect/Lazy/IR/RngSeeds.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"

#include "mlir/IR/BuiltinOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::lazy;

RngSeedCounter::RngSeedCounter(Operation *op) {
  auto module =
      isa<ModuleOp>(op) ? cast<ModuleOp>(op) : op->getParentOfType<ModuleOp>();
  if (module)
    if (auto base =
            module->getAttrOfType<IntegerAttr>(LazyDialect::kRngSeedAttrName))
      last = base.getInt();
}

FailureOr<int64_t> RngSeedCounter::next(Operation *at) {
  if (last == std::numeric_limits<int64_t>::max())
    return at->emitOpError("numbers its custom_random seed past the largest "
                           "i64 (the module's lazy.rng_seed is too large)");
  return ++last;
}
