//===- ScheduleFlags.h - tinygrad's scheduler flags --------------*- C++
//-*-===//
//
// The scheduler flags (ScheduleFlags.td lists them; the build writes
// them out as ScheduleFlags.def) as one value, read from
// a module's `lazy.flags` once per pass run and then passed to everything
// that needs them. Precedence: a pass option that was given, then the
// module's `lazy.flags`, then tinygrad 0.9.2's default.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_IR_SCHEDULEFLAGS_H
#define LAZY_DIALECT_LAZY_IR_SCHEDULEFLAGS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir::lazy {

/// Which kernels the scheduler forms: tinygrad 0.9.2's exactly, or fewer
/// that move fewer bytes (AggressiveFusion.cpp).
enum class FusionPolicy { Tinygrad, Aggressive };
/// "tinygrad" or "aggressive".
StringRef stringifyFusionPolicy(FusionPolicy policy);
std::optional<FusionPolicy> parseFusionPolicy(StringRef text);

/// The flags, tinygrad 0.9.2's defaults in place.
struct ScheduleFlags {
#define LAZY_BOOL_FLAG(field, key, option, def, tinygrad, desc)                \
  bool field = def;
#define LAZY_POLICY_FLAG(field, key, option, desc)                             \
  FusionPolicy field = FusionPolicy::Tinygrad;
#include "lazy/Dialect/Lazy/IR/ScheduleFlags.def"
};

/// Flags given as pass options; unset ones leave the module's value.
struct ScheduleFlagOverrides {
#define LAZY_BOOL_FLAG(field, key, option, def, tinygrad, desc)                \
  std::optional<bool> field;
#define LAZY_POLICY_FLAG(field, key, option, desc)                             \
  std::optional<FusionPolicy> field;
#include "lazy/Dialect/Lazy/IR/ScheduleFlags.def"

  /// The options of a pass whose ODS options include the scheduler flags
  /// (Lazy_SchedulerFlagOptions in Passes.td) that were given.
  template <typename PassT>
  static ScheduleFlagOverrides givenIn(const PassT &p) {
    ScheduleFlagOverrides given;
#define LAZY_BOOL_FLAG(field, key, option, def, tinygrad, desc)                \
  if (p.field.hasValue())                                                      \
    given.field = bool(p.field);
#define LAZY_POLICY_FLAG(field, key, option, desc)                             \
  if (p.field.hasValue())                                                      \
    given.field = FusionPolicy(p.field);
#include "lazy/Dialect/Lazy/IR/ScheduleFlags.def"
    return given;
  }
  /// `this`, with every flag `later` sets set as `later` has it.
  ScheduleFlagOverrides overriddenBy(const ScheduleFlagOverrides &later) const {
    ScheduleFlagOverrides out = *this;
#define LAZY_BOOL_FLAG(field, key, option, def, tinygrad, desc)                \
  if (later.field)                                                             \
    out.field = later.field;
#define LAZY_POLICY_FLAG(field, key, option, desc)                             \
  if (later.field)                                                             \
    out.field = later.field;
#include "lazy/Dialect/Lazy/IR/ScheduleFlags.def"
    return out;
  }
};

/// Checks a `lazy.flags` dictionary: known keys, each a bool (a policy: a
/// string naming one).
LogicalResult verifyScheduleFlags(DictionaryAttr flags,
                                  function_ref<InFlightDiagnostic()> emitError);

/// The flags of `op`'s module (tinygrad's defaults where it sets none),
/// with `overrides` applied.
ScheduleFlags readScheduleFlags(Operation *op,
                                const ScheduleFlagOverrides &overrides = {});

/// The `lazy.flags` keys, in declaration order ("multi_output, ...").
StringRef scheduleFlagKeys();

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_IR_SCHEDULEFLAGS_H
