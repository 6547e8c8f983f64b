//===- ScheduleFlags.cpp - tinygrad's scheduler flags ---------------------===//

#include "lazy/Dialect/Lazy/IR/ScheduleFlags.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::lazy;

StringRef mlir::lazy::stringifyFusionPolicy(FusionPolicy policy) {
  return policy == FusionPolicy::Aggressive ? "aggressive" : "tinygrad";
}

std::optional<FusionPolicy> mlir::lazy::parseFusionPolicy(StringRef text) {
  if (text == "tinygrad")
    return FusionPolicy::Tinygrad;
  if (text == "aggressive")
    return FusionPolicy::Aggressive;
  return std::nullopt;
}

StringRef mlir::lazy::scheduleFlagKeys() {
  static const std::string keys = [] {
    std::string joined;
#define LAZY_BOOL_FLAG(field, key, option, def, tinygrad, desc)                \
  joined += (joined.empty() ? "" : ", ") + std::string(key);
#define LAZY_POLICY_FLAG(field, key, option, desc)                             \
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
    bool isBool = false, isPolicy = false;
#define LAZY_BOOL_FLAG(field, key, option, def, tinygrad, desc)                \
  isBool = isBool || name == key;
#define LAZY_POLICY_FLAG(field, key, option, desc)                             \
  isPolicy = isPolicy || name == key;
#include "lazy/Dialect/Lazy/IR/ScheduleFlags.def"
    if (!isBool && !isPolicy)
      return emitError() << "unknown scheduler flag '" << name
                         << "'; expected one of " << scheduleFlagKeys();
    if (isBool && !isa<BoolAttr>(flag.getValue()))
      return emitError() << "scheduler flag '" << name
                         << "' must be true or false";
    if (isPolicy) {
      auto text = dyn_cast<StringAttr>(flag.getValue());
      if (!text || !parseFusionPolicy(text.getValue()))
        return emitError() << "scheduler flag '" << name
                           << "' must be \"tinygrad\" or \"aggressive\"";
    }
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
  // The dialect verified the dictionary: every value is of its flag's kind.
#define LAZY_BOOL_FLAG(field, key, option, def, tinygrad, desc)                \
  if (overrides.field)                                                         \
    flags.field = *overrides.field;                                            \
  else if (auto value = dict ? dict.getAs<BoolAttr>(key) : BoolAttr())         \
    flags.field = value.getValue();
#define LAZY_POLICY_FLAG(field, key, option, desc)                             \
  if (overrides.field)                                                         \
    flags.field = *overrides.field;                                            \
  else if (auto value = dict ? dict.getAs<StringAttr>(key) : StringAttr())     \
    flags.field = parseFusionPolicy(value.getValue()).value_or(flags.field);
#include "lazy/Dialect/Lazy/IR/ScheduleFlags.def"
  return flags;
}
