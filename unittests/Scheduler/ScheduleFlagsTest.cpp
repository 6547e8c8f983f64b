//===- ScheduleFlagsTest.cpp - one list of scheduler flags ----------------===//
//
// ScheduleFlags.td is the list: the build writes it out as
// ScheduleFlags.def, and Passes.td builds the pass options from the same
// records. These tests check that both views agree (a generator bug would
// show here) and the precedence: a given option, then the module's
// `lazy.flags`, then tinygrad 0.9.2's default.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/IR/ScheduleFlags.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/StringExtras.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir;
using namespace mlir::lazy;

namespace {

struct FlagInfo {
  const char *key, *option, *tinygrad;
  bool def;
};
const FlagInfo kFlags[] = {
#define LAZY_BOOL_FLAG(field, key, option, def, tinygrad, description)         \
  {key, option, tinygrad, def},
#define LAZY_POLICY_FLAG(field, key, option, description)
#include "lazy/Dialect/Lazy/IR/ScheduleFlags.def"
};

/// The `name=value` options a pass prints in its textual pipeline.
std::set<std::string> printedOptions(Pass &pass) {
  std::string text;
  llvm::raw_string_ostream os(text);
  pass.printAsTextualPipeline(os);
  std::set<std::string> options;
  size_t open = text.find('{'), close = text.rfind('}');
  if (open == std::string::npos)
    return options;
  std::string inside = text.substr(open + 1, close - open - 1);
  for (StringRef item : llvm::split(StringRef(inside), ' '))
    if (!item.empty())
      options.insert(item.str());
  return options;
}

std::string withDefault(const FlagInfo &flag) {
  return std::string(flag.option) + "=" + (flag.def ? "true" : "false");
}

TEST(ScheduleFlags, GroupOptionsAreExactlyTheFlags) {
  std::set<std::string> expected;
  for (const FlagInfo &flag : kFlags)
    expected.insert(withDefault(flag));
#define LAZY_BOOL_FLAG(field, key, option, def, tinygrad, description)
#define LAZY_POLICY_FLAG(field, key, option, description)                      \
  expected.insert(std::string(option) + "=tinygrad");
#include "lazy/Dialect/Lazy/IR/ScheduleFlags.def"
  EXPECT_EQ(printedOptions(*createLazyGroup()), expected);
}

TEST(ScheduleFlags, FormKernelsTakesEveryFlag) {
  std::set<std::string> printed = printedOptions(*createLazyFormKernels());
  for (const FlagInfo &flag : kFlags)
    EXPECT_TRUE(printed.count(withDefault(flag))) << flag.option;
}

TEST(ScheduleFlags, DefaultsAreTinygrads) {
  ScheduleFlags flags;
  EXPECT_TRUE(flags.multiOutput);
  EXPECT_FALSE(flags.fuseConvBw);
  EXPECT_FALSE(flags.fuseArange);
  EXPECT_FALSE(flags.useCopyKernel);
  EXPECT_TRUE(flags.onlineSoftmax);
  EXPECT_EQ(flags.fusion, FusionPolicy::Tinygrad);
  EXPECT_EQ(scheduleFlagKeys(), "multi_output, fuse_conv_bw, fuse_arange, "
                                "use_copy_kernel, online_softmax, fusion");
}

class ModuleFlags : public ::testing::Test {
protected:
  ModuleFlags() {
    DialectRegistry registry;
    registry.insert<LazyDialect, func::FuncDialect>();
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }
  OwningOpRef<ModuleOp> parse(StringRef text) {
    return parseSourceString<ModuleOp>(text, &ctx);
  }
  MLIRContext ctx;
};

TEST_F(ModuleFlags, OptionOverModuleOverDefault) {
  OwningOpRef<ModuleOp> module = parse(
      R"(module attributes {lazy.flags = {multi_output = false, fuse_arange = true}} {})");
  OwningOpRef<ModuleOp> aggressive =
      parse(R"(module attributes {lazy.flags = {fusion = "aggressive"}} {})");
  ASSERT_TRUE(aggressive);
  EXPECT_EQ(readScheduleFlags(*aggressive).fusion, FusionPolicy::Aggressive);
  ScheduleFlagOverrides tinygrad;
  tinygrad.fusion = FusionPolicy::Tinygrad;
  EXPECT_EQ(readScheduleFlags(*aggressive, tinygrad).fusion,
            FusionPolicy::Tinygrad);
  ASSERT_TRUE(module);
  ScheduleFlags read = readScheduleFlags(*module);
  EXPECT_EQ(read.fusion, FusionPolicy::Tinygrad);
  EXPECT_FALSE(read.multiOutput); // the module's
  EXPECT_TRUE(read.fuseArange);   // the module's
  EXPECT_FALSE(read.fuseConvBw);  // the default

  ScheduleFlagOverrides given;
  given.multiOutput = true;
  given.fuseConvBw = true;
  ScheduleFlags overridden = readScheduleFlags(*module, given);
  EXPECT_TRUE(overridden.multiOutput);
  EXPECT_TRUE(overridden.fuseConvBw);
  EXPECT_TRUE(overridden.fuseArange);

  ScheduleFlagOverrides later;
  later.multiOutput = false;
  ScheduleFlagOverrides merged = given.overriddenBy(later);
  EXPECT_EQ(merged.multiOutput, std::optional<bool>(false));
  EXPECT_EQ(merged.fuseConvBw, std::optional<bool>(true));
  EXPECT_FALSE(merged.fuseArange.has_value());
}

TEST_F(ModuleFlags, UnknownAndNonBoolFlagsAreRejected) {
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_FALSE(
      parse(R"(module attributes {lazy.flags = {fuse_conv = true}} {})"));
  EXPECT_NE(message.find("unknown scheduler flag 'fuse_conv'; expected one of "
                         "multi_output, fuse_conv_bw, fuse_arange, "
                         "use_copy_kernel, online_softmax, fusion"),
            std::string::npos)
      << message;
  EXPECT_FALSE(
      parse(R"(module attributes {lazy.flags = {fuse_arange = 1}} {})"));
  EXPECT_NE(message.find("scheduler flag 'fuse_arange' must be true or false"),
            std::string::npos)
      << message;
  EXPECT_FALSE(
      parse(R"(module attributes {lazy.flags = {fusion = "greedy"}} {})"));
  EXPECT_NE(message.find("scheduler flag 'fusion' must be \"tinygrad\" or "
                         "\"aggressive\""),
            std::string::npos)
      << message;
}

} // namespace
