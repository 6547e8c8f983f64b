//===- ScheduleFlags.cpp - tinygrad's scheduler flags ---------------------===//

#include "lazy/Dialect/Lazy/IR/ScheduleFlags.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::lazy;

StringRef mlir::lazy::scheduleFlagKeys() {
  static const std::string keys = [] {
    std::string joined;
#define LAZY_BOOL_FLAG(field, key, option, def, tinygrad, desc)                \
  joined += (joined.empty() ? "" : ", ") + std::string(key);
#include "lazy/Dialect/Lazy/IR/ScheduleFlags.def"
    return joined;
  }();
  return keys;
}

LogicalResult
mlir::lazy::verifyScheduleFlags(DictionaryAttr flags,
                                function_ref<InFlightDiagnostic()> emitError) {
  for (NamedAttribute flag : flags) {
    StringRef name = flag.getName().getValue();
    bool known = false;
#define LAZY_BOOL_FLAG(field, key, option, def, tinygrad, desc)                \
  known = known || name == key;
#include "lazy/Dialect/Lazy/IR/ScheduleFlags.def"
    if (!known)
      return emitError() << "unknown scheduler flag '" << name
                         << "'; expected one of " << scheduleFlagKeys();
    if (!isa<BoolAttr>(flag.getValue()))
      return emitError() << "scheduler flag '" << name
                         << "' must be true or false";
  }
  return success();
}

ScheduleFlags
mlir::lazy::readScheduleFlags(Operation *op,
                              const ScheduleFlagOverrides &overrides) {
  ScheduleFlags flags;
  auto module =
      isa<ModuleOp>(op) ? cast<ModuleOp>(op) : op->getParentOfType<ModuleOp>();
  DictionaryAttr dict =
      module
          ? module->getAttrOfType<DictionaryAttr>(LazyDialect::kFlagsAttrName)
          : DictionaryAttr();
  // The dialect verified the dictionary: every value is a bool.
#define LAZY_BOOL_FLAG(field, key, option, def, tinygrad, desc)                \
  if (overrides.field)                                                         \
    flags.field = *overrides.field;                                            \
  else if (auto value = dict ? dict.getAs<BoolAttr>(key) : BoolAttr())         \
    flags.field = value.getValue();
#include "lazy/Dialect/Lazy/IR/ScheduleFlags.def"
  return flags;
}
