//===- KernelCheckTest.cpp - kernel calls judged against the interpreter --===//
//
// KernelCheck is driven here as lazy-to-cpu{check-calls}'s hooks drive it,
// on buffers this test fills: a kernel's output written right, wrong, not
// at all, or only through its store's view. A check that cannot fail
// checks nothing, so each wrong output must show as a MISMATCH.
//
//===----------------------------------------------------------------------===//

#include "lazy/Runtime/KernelCheck.h"
#include "lazy/InitAll.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using namespace mlir;

namespace {

/// Row sums of a 4x4 input, and the middle of an 8-element target written
/// through a view (offset 2) with the input's first four elements doubled.
constexpr const char *kSchedule = R"mlir(
lazy.kernel @rows(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<16xf32>) attributes {num_outputs = 1 : i64, metadata = ["sum"]} {
  %0 = lazy.load %in0 as <[(4, 4):(4, 1)]> : !lazy.buffer<16xf32> -> tensor<4x4xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  lazy.store %1, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
}
lazy.kernel @middle(%out0: !lazy.buffer<8xf32>, %in0: !lazy.buffer<16xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(4):(1)]> : !lazy.buffer<16xf32> -> tensor<4xf32>
  %1 = lazy.add %0, %0 : tensor<4xf32>
  lazy.store %1, %out0 as <[(4):(1) offset 2]> : tensor<4xf32>, !lazy.buffer<8xf32>
}
func.func @step(%arg0: !lazy.buffer<16xf32> {lazy.buffer = 0 : i64}, %arg1: !lazy.buffer<8xf32> {lazy.buffer = 1 : i64}) -> (!lazy.buffer<4xf32>, !lazy.buffer<8xf32>) {
  %0 = lazy.alloc : !lazy.buffer<4xf32>
  %1 = lazy.launch @rows outs(%0 : !lazy.buffer<4xf32>) ins(%arg0 : !lazy.buffer<16xf32>)
  %2 = lazy.launch @middle outs(%arg1 : !lazy.buffer<8xf32>) ins(%arg0 : !lazy.buffer<16xf32>)
  return %1, %2 : !lazy.buffer<4xf32>, !lazy.buffer<8xf32>
}
)mlir";

class KernelCheckTest : public ::testing::Test {
protected:
  void SetUp() override {
    DialectRegistry registry;
    mlir::lazy::registerAllDialects(registry);
    context = std::make_unique<MLIRContext>(registry);
    module = parseSourceString<ModuleOp>(kSchedule, context.get());
    ASSERT_TRUE(module);
    for (int i = 0; i < 16; ++i)
      input[i] = float(i) * 0.25f;
  }

  /// Runs call `n` of @step with `out` as its output: the hooks before,
  /// `kernel` (what the compiled kernel would do) in between, the hook
  /// after.
  template <typename F>
  void call(mlir::lazy::KernelCheck &check, int64_t n, std::vector<float> &out,
            F &&kernel) {
    check.argument(n, 0, int64_t(reinterpret_cast<uintptr_t>(out.data())), 0,
                   int64_t(out.size()));
    check.argument(n, 1, int64_t(reinterpret_cast<uintptr_t>(input)), 0, 16);
    check.begin(n);
    kernel();
    check.end(n);
  }

  /// What @rows and @middle compute (@middle at `offset` 2).
  void rowSums(std::vector<float> &sums) const {
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c)
        sums[r] += input[4 * r + c];
  }
  void doubled(std::vector<float> &target, int offset) const {
    for (int i = 0; i < 4; ++i)
      target[offset + i] = input[i] + input[i];
  }

  std::string report(mlir::lazy::KernelCheck &check, bool &ok) {
    std::string text;
    llvm::raw_string_ostream os(text);
    ok = check.report(os);
    return text;
  }

  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  float input[16];
};

TEST_F(KernelCheckTest, RightOutputsMatch) {
  mlir::lazy::KernelCheck check(*module, "step");
  std::vector<float> sums(4), target(8, -1.0f);
  call(check, 0, sums, [&] { rowSums(sums); });
  call(check, 1, target, [&] { doubled(target, 2); });
  bool ok = false;
  std::string text = report(check, ok);
  EXPECT_TRUE(ok) << text;
  EXPECT_NE(text.find("kernel call 0 @rows [sum]: out0 match"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("kernel call 1 @middle: out0 match"), std::string::npos)
      << text;
  EXPECT_NE(text.find("kernel calls: 2, checked 2, matching 2"),
            std::string::npos)
      << text;
}

TEST_F(KernelCheckTest, WrongElementIsAMismatch) {
  mlir::lazy::KernelCheck check(*module, "step");
  std::vector<float> sums(4);
  call(check, 0, sums, [&] {
    rowSums(sums);
    sums[2] += 1e-3f * sums[2]; // ten times the f32 tolerance
  });
  bool ok = true;
  std::string text = report(check, ok);
  EXPECT_FALSE(ok) << text;
  EXPECT_NE(text.find("kernel call 0 @rows [sum]: out0 MISMATCH"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("differing 1"), std::string::npos) << text;
}

TEST_F(KernelCheckTest, UnwrittenOutputIsAMismatch) {
  mlir::lazy::KernelCheck check(*module, "step");
  std::vector<float> sums(4, std::numeric_limits<float>::quiet_NaN());
  call(check, 0, sums, [] {});
  bool ok = true;
  std::string text = report(check, ok);
  EXPECT_FALSE(ok) << text;
}

// Only the elements the store's view covers are the kernel's: those
// outside keep what the target held, whatever it was.
TEST_F(KernelCheckTest, OutputIsReadThroughItsStoreView) {
  mlir::lazy::KernelCheck check(*module, "step");
  std::vector<float> sums(4), target(8, 7.0f);
  call(check, 0, sums, [&] { rowSums(sums); });
  call(check, 1, target, [&] { doubled(target, 2); });
  bool ok = false;
  std::string text = report(check, ok);
  EXPECT_TRUE(ok) << text;

  // Written one element off: the view reads the wrong ones.
  mlir::lazy::KernelCheck shifted(*module, "step");
  std::vector<float> other(8, 7.0f);
  call(shifted, 1, other, [&] { doubled(other, 1); });
  text = report(shifted, ok);
  EXPECT_FALSE(ok) << text;
  EXPECT_NE(text.find("@middle: out0 MISMATCH"), std::string::npos) << text;
}

// A call whose buffers were not passed is shown, not judged.
TEST_F(KernelCheckTest, CallWithoutBuffersIsNotChecked) {
  mlir::lazy::KernelCheck check(*module, "step");
  check.begin(0);
  check.end(0);
  bool ok = false;
  std::string text = report(check, ok);
  EXPECT_TRUE(ok) << text;
  EXPECT_NE(text.find("not checked: the call's buffers were not passed"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("checked 0"), std::string::npos) << text;
}

} // namespace
