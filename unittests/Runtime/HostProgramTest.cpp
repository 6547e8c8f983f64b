//===- HostProgramTest.cpp - the host executor on a recording device ------===//
//
// convert-lazy-to-gpu's host code for a small schedule is run against a
// device that keeps every buffer in host memory and records launches, so
// allocation sizes, view offsets, launch geometry and arguments, copies,
// fills and results are checked without a GPU.
//
//===----------------------------------------------------------------------===//

#include "lazy/Runtime/HostProgram.h"
#include "lazy/InitAll.h"
#include "lazy/Runtime/HostMemoryDevice.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <vector>

using namespace mlir;
using ::lazy::runtime::DevicePtr;

namespace {

/// Buffers live in host memory (filled with 0xAB: fills must be
/// explicit); launches are recorded, not run.
class RecordingDevice final : public ::lazy::runtime::HostMemoryDevice {
public:
  struct Launch {
    std::string kernel;
    unsigned grid[3], block[3];
    std::vector<DevicePtr> args;
  };
  std::vector<Launch> launches;
  std::vector<size_t> allocSizes;
  bool loaded = false, synchronized = false;
  std::string lastImage;

  std::string name() override { return "recording"; }
  bool alloc(size_t bytes, DevicePtr &ptr) override {
    if (!HostMemoryDevice::alloc(bytes, ptr))
      return false;
    std::memset(at(ptr), 0xAB, bytes);
    allocSizes.push_back(bytes);
    return true;
  }
  bool loadModule(const void *image, size_t bytes) override {
    lastImage.assign(static_cast<const char *>(image), bytes);
    return loaded = true;
  }
  bool launch(const std::string &kernel, const unsigned grid[3],
              const unsigned block[3], const DevicePtr *args,
              size_t numArgs) override {
    Launch l{kernel,
             {grid[0], grid[1], grid[2]},
             {block[0], block[1], block[2]},
             {args, args + numArgs}};
    launches.push_back(l);
    return true;
  }
  bool synchronize() override { return synchronized = true; }

  using HostMemoryDevice::at;
};

constexpr const char *kSchedule = R"mlir(
lazy.kernel @scale(%out0: !lazy.buffer<100xf32>, %in0: !lazy.buffer<100xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(100):(1)]> : !lazy.buffer<100xf32> -> tensor<100xf32>
  %1 = lazy.add %0, %0 : tensor<100xf32>
  lazy.store %1, %out0 as <[(100):(1)]> : tensor<100xf32>, !lazy.buffer<100xf32>
}
lazy.kernel @rowsum(%out0: !lazy.buffer<4xf32>, %in0: !lazy.buffer<100xf32>) attributes {num_outputs = 1 : i64} {
  %0 = lazy.load %in0 as <[(4, 25):(25, 1)]> : !lazy.buffer<100xf32> -> tensor<4x25xf32>
  %1 = lazy.reduce_sum %0 axes [1] : tensor<4x25xf32> -> tensor<4x1xf32>
  lazy.store %1, %out0 as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
}
func.func @program(%a: !lazy.buffer<100xf32>) -> (!lazy.buffer<100xf32>, !lazy.buffer<4xf32>, !lazy.buffer<25xsi32>, !lazy.buffer<100xf32>, !lazy.buffer<100xf32>) {
  %b = lazy.alloc : !lazy.buffer<100xf32>
  %r = lazy.launch @scale outs(%b : !lazy.buffer<100xf32>) ins(%a : !lazy.buffer<100xf32>)
  %s = lazy.suballoc %b offset 16 : !lazy.buffer<100xf32> -> !lazy.buffer<4xf32>
  %t = lazy.launch @rowsum outs(%s : !lazy.buffer<4xf32>) ins(%r : !lazy.buffer<100xf32>)
  %v = lazy.suballoc %r offset 300 : !lazy.buffer<100xf32> -> !lazy.buffer<25xsi32>
  %w = lazy.ext "view" outs(%v : !lazy.buffer<25xsi32>) ins(%r : !lazy.buffer<100xf32>)
  %c = lazy.alloc : !lazy.buffer<100xf32>
  %d = lazy.ext "copy" outs(%c : !lazy.buffer<100xf32>) ins(%a : !lazy.buffer<100xf32>)
  %e = lazy.alloc : !lazy.buffer<100xf32>
  %f = lazy.ext "empty" outs(%e : !lazy.buffer<100xf32>)
  return %r, %t, %w, %d, %f : !lazy.buffer<100xf32>, !lazy.buffer<4xf32>, !lazy.buffer<25xsi32>, !lazy.buffer<100xf32>, !lazy.buffer<100xf32>
}
)mlir";

class HostProgramTest : public ::testing::Test {
protected:
  void SetUp() override {
    DialectRegistry registry;
    mlir::lazy::registerAllDialects(registry);
    mlir::lazy::registerAllPasses();
    context = std::make_unique<MLIRContext>(registry);
    module = parseSourceString<ModuleOp>(kSchedule, context.get());
    ASSERT_TRUE(module);
    PassManager pm(context.get());
    ASSERT_TRUE(succeeded(parsePassPipeline("convert-lazy-to-gpu", pm)));
    ASSERT_TRUE(succeeded(pm.run(*module)));
    host = module->lookupSymbol<func::FuncOp>("program");
    ASSERT_TRUE(host);
  }

  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  func::FuncOp host;
};

TEST_F(HostProgramTest, IssuesEachOpInOrder) {
  RecordingDevice device;
  DevicePtr input = 0;
  ASSERT_TRUE(device.alloc(400, input));
  std::vector<float> values(100);
  for (int i = 0; i < 100; ++i)
    values[i] = float(i);
  device.copyToDevice(input, values.data(), 400);

  std::vector<DevicePtr> allocations;
  FailureOr<std::vector<mlir::lazy::DeviceBuffer>> results =
      mlir::lazy::runHostProgram(host, device, {{input, 400}}, allocations);
  ASSERT_TRUE(succeeded(results));
  EXPECT_TRUE(device.synchronized);

  // Three allocations of 400 bytes (the input was the first).
  ASSERT_EQ(allocations.size(), 3u);
  EXPECT_EQ(device.allocSizes, (std::vector<size_t>{400, 400, 400, 400}));
  DevicePtr b = allocations[0], c = allocations[1], e = allocations[2];

  // @scale writes b from the input: one block of 128 threads.
  ASSERT_EQ(device.launches.size(), 2u);
  const RecordingDevice::Launch &scale = device.launches[0];
  EXPECT_EQ(scale.kernel, "scale");
  EXPECT_EQ(scale.grid[0], 1u);
  EXPECT_EQ(scale.block[0], 128u);
  EXPECT_EQ(scale.args, (std::vector<DevicePtr>{b, input}));
  // @rowsum writes 16 bytes into b and reads b: 25 elements per row stay
  // below block-reduce-min, so thread mode with blocks of 32.
  const RecordingDevice::Launch &rowsum = device.launches[1];
  EXPECT_EQ(rowsum.kernel, "rowsum");
  EXPECT_EQ(rowsum.block[0], 32u);
  EXPECT_EQ(rowsum.args, (std::vector<DevicePtr>{b + 16, b}));

  // Results: b, the sub-buffer, the int view 300 bytes in, the copy of the
  // input, the zero-filled EMPTY buffer.
  ASSERT_EQ(results->size(), 5u);
  EXPECT_EQ((*results)[0].ptr, b);
  EXPECT_EQ((*results)[0].bytes, 400u);
  EXPECT_EQ((*results)[1].ptr, b + 16);
  EXPECT_EQ((*results)[1].bytes, 16u);
  EXPECT_EQ((*results)[2].ptr, b + 300);
  EXPECT_EQ((*results)[2].bytes, 100u);
  EXPECT_EQ((*results)[3].ptr, c);
  EXPECT_EQ(std::memcmp(device.at(c), values.data(), 400), 0);
  EXPECT_EQ((*results)[4].ptr, e);
  EXPECT_EQ(std::vector<uint8_t>(device.at(e), device.at(e) + 400),
            std::vector<uint8_t>(400, 0));
}

TEST_F(HostProgramTest, ProfilesEachLaunch) {
  RecordingDevice device;
  DevicePtr input = 0;
  device.alloc(400, input);
  std::vector<DevicePtr> allocations;
  std::vector<std::pair<std::string, size_t>> seen;
  auto results = mlir::lazy::runHostProgram(
      host, device, {{input, 400}}, allocations,
      [&](StringRef kernel, double seconds, size_t bytes) {
        EXPECT_GE(seconds, 0.0);
        seen.push_back({kernel.str(), bytes});
      });
  ASSERT_TRUE(succeeded(results));
  // The bytes of the buffers each kernel is given: out and in.
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, size_t>>{
                      {"scale", 800}, {"rowsum", 416}}));
}

TEST_F(HostProgramTest, RejectsTooSmallArguments) {
  RecordingDevice device;
  DevicePtr input = 0;
  device.alloc(100, input);
  std::vector<DevicePtr> allocations;
  ScopedDiagnosticHandler quiet(context.get(),
                                [](Diagnostic &) { return success(); });
  EXPECT_TRUE(failed(
      mlir::lazy::runHostProgram(host, device, {{input, 100}}, allocations)));
  EXPECT_TRUE(device.launches.empty());
}

TEST_F(HostProgramTest, LoadsTheKernelsObject) {
  // No gpu.binary before serialization: nothing to load, no error.
  RecordingDevice device;
  EXPECT_TRUE(succeeded(mlir::lazy::loadKernels(*module, device)));
  EXPECT_FALSE(device.loaded);
  PassManager pm(context.get());
  ASSERT_TRUE(succeeded(parsePassPipeline(
      "nvvm-attach-target{chip=sm_90 features=+ptx80},"
      "gpu.module(convert-scf-to-cf,"
      "convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1}),"
      "reconcile-unrealized-casts,gpu-module-to-binary{format=isa}",
      pm)));
  ASSERT_TRUE(succeeded(pm.run(*module)));
  EXPECT_TRUE(succeeded(mlir::lazy::loadKernels(*module, device)));
  EXPECT_TRUE(device.loaded);
  // PTX is handed to the driver as a C string.
  EXPECT_EQ(device.lastImage.back(), '\0');
  EXPECT_NE(device.lastImage.find(".visible .entry rowsum("),
            std::string::npos);
}

} // namespace

// custom_random is host code: a host buffer filled by the runtime, copied
// to the device. Seed 3 draws numpy's default_rng(3).random(dtype=f32).
TEST(HostProgramCustomRandom, FillsAHostBufferAndCopiesItIn) {
  DialectRegistry registry;
  mlir::lazy::registerAllDialects(registry);
  mlir::lazy::registerAllPasses();
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
func.func @program() -> !lazy.buffer<4xf32> {
  %b = lazy.alloc : !lazy.buffer<4xf32>
  %r = lazy.ext "custom" outs(%b : !lazy.buffer<4xf32>) {arg = "custom_random", seed = 3 : i64}
  return %r : !lazy.buffer<4xf32>
}
)mlir",
                                                             &context);
  ASSERT_TRUE(module);
  PassManager pm(&context);
  ASSERT_TRUE(succeeded(parsePassPipeline("convert-lazy-to-gpu", pm)));
  ASSERT_TRUE(succeeded(pm.run(*module)));
  RecordingDevice device;
  std::vector<DevicePtr> allocations;
  auto results = mlir::lazy::runHostProgram(
      module->lookupSymbol<func::FuncOp>("program"), device, {}, allocations);
  ASSERT_TRUE(succeeded(results));
  ASSERT_EQ(results->size(), 1u);
  std::vector<float> got(4);
  std::memcpy(got.data(), device.at((*results)[0].ptr), 16);
  EXPECT_EQ(got, (std::vector<float>{0.811504483f, 0.0856491327f, 0.179440677f,
                                     0.236810505f}));
}

/// Runs the host function @program of `text`, which the executor must
/// refuse; returns its diagnostic, or a note of what went wrong instead.
static std::string refusal(const std::string &text) {
  DialectRegistry registry;
  mlir::lazy::registerAllDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  if (!module)
    return "<does not parse>";
  std::string message;
  ScopedDiagnosticHandler capture(&context, [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  RecordingDevice device;
  std::vector<DevicePtr> allocations;
  if (succeeded(mlir::lazy::runHostProgram(
          module->lookupSymbol<func::FuncOp>("program"), device, {},
          allocations)))
    return "<ran>";
  return message;
}

// A host call whose output does not fit its host buffer is refused before
// anything is written: too many elements, or so many that their byte count
// wraps around (2^61 doubles).
TEST(HostProgramCustomRandom, RefusesToWriteOutsideHostMemory) {
  for (const char *call : {"%count = arith.constant 100 : i64\n"
                           "  %dtype = arith.constant 11 : i32",
                           "%count = arith.constant 2305843009213693952 : i64\n"
                           "  %dtype = arith.constant 12 : i32"}) {
    std::string text = std::string(R"mlir(
func.func private @lazy_rt_custom_random(i64, i32, i64, i64) -> i32
func.func @program() {
  %host = memref.alloc() : memref<2xf32>
  %p = memref.extract_aligned_pointer_as_index %host : memref<2xf32> -> index
  %seed = arith.constant 1 : i64
  %addr = arith.index_cast %p : index to i64
  )mlir") + call + R"mlir(
  %0 = func.call @lazy_rt_custom_random(%seed, %dtype, %addr, %count) : (i64, i32, i64, i64) -> i32
  return
}
)mlir";
    EXPECT_EQ(refusal(text), "custom_random would write outside host memory")
        << text;
  }
}

// Host code the executor cannot size or does not provide is refused with
// the op's error, not run: a dynamic memref, a call of another function.
TEST(HostProgramCustomRandom, RefusesUnknownHostCode) {
  const std::pair<const char *, const char *> cases[] = {
      {R"mlir(
func.func @program() {
  %n = arith.constant 4 : index
  %host = memref.alloc(%n) : memref<?xf32>
  return
})mlir",
       "host code needs memrefs of static shape with integer or float "
       "elements"},
      {R"mlir(
func.func private @fill(i64)
func.func @program() {
  %c = arith.constant 1 : i64
  func.call @fill(%c) : (i64) -> ()
  return
})mlir",
       "calls a function lazy-run does not provide"},
  };
  for (auto [text, expected] : cases)
    EXPECT_EQ(refusal(text), expected) << text;
}
