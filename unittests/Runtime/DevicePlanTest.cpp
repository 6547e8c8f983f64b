//===- DevicePlanTest.cpp - record a device plan, replay it ---------------===//
//
// A plan recorded through PlanRecorder is replayed on a device that keeps
// buffers in host memory and runs one fake kernel ("twice": out = 2 * in,
// on floats), so that uploads, launches with offsets, copies, fills,
// downloads and the comparison with the expected results are all checked
// without a GPU; malformed plans fail with the line that is wrong.
//
//===----------------------------------------------------------------------===//

#include "lazy/Runtime/DevicePlan.h"
#include "lazy/Runtime/HostMemoryDevice.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

using namespace lazy::runtime;

namespace {

/// Host memory with one kernel.
class HostDevice final : public HostMemoryDevice {
public:
  std::string chip() override { return "sm_90"; }
  bool loadModule(const void *image, size_t bytes) override {
    loaded.assign(static_cast<const char *>(image), bytes);
    return true;
  }
  /// "twice" doubles grid[0] floats: args[0] = 2 * args[1]; "times"
  /// multiplies them by a value (a Variable's, args[2]).
  bool launch(const std::string &kernel, const unsigned grid[3],
              const unsigned[3], const DevicePtr *args, size_t n) override {
    if (kernel == "times" && n == 3) {
      auto *out = reinterpret_cast<float *>(at(args[0]));
      auto *in = reinterpret_cast<const float *>(at(args[1]));
      for (unsigned i = 0; i < grid[0]; ++i)
        out[i] = float(args[2]) * in[i];
      ++launches;
      return true;
    }
    if (kernel != "twice" || n != 2)
      return failWith("unknown kernel " + kernel);
    auto *out = reinterpret_cast<float *>(at(args[0]));
    auto *in = reinterpret_cast<const float *>(at(args[1]));
    for (unsigned i = 0; i < grid[0]; ++i)
      out[i] = 2 * in[i];
    ++launches;
    return true;
  }

  std::string loaded;
  int launches = 0;
};

std::string freshDir(const char *name) {
  auto dir = std::filesystem::temp_directory_path() /
             (std::string("lazy-plan-test-") + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

/// Records: in = [1, 2, 3, 4] at offset 0 of a 32-byte buffer, out =
/// twice(in) written 16 bytes in, a copy of out, a zero-filled buffer.
void recordExample(const std::string &dir, float firstExpected) {
  PlanRecorder rec(dir, "cuda", "sm_90", /*withData=*/true);
  ASSERT_TRUE(rec.ok());
  ASSERT_TRUE(rec.loadModule("IMAGE", 5));
  DevicePtr in, out, copy, zero;
  float values[4] = {1, 2, 3, 4};
  ASSERT_TRUE(rec.alloc(16, in));
  ASSERT_TRUE(rec.copyToDevice(in, values, 16));
  ASSERT_TRUE(rec.alloc(32, out));
  unsigned grid[3] = {4, 1, 1}, block[3] = {32, 1, 1};
  DevicePtr args[2] = {out + 16, in};
  ASSERT_TRUE(rec.launch("twice", grid, block, args, 2));
  ASSERT_TRUE(rec.synchronize());
  rec.setLastLaunchBytes(32);
  ASSERT_TRUE(rec.alloc(16, copy));
  ASSERT_TRUE(rec.copyOnDevice(copy, out + 16, 16));
  ASSERT_TRUE(rec.alloc(8, zero));
  ASSERT_TRUE(rec.fillZero(zero, 8));
  float got[4];
  ASSERT_TRUE(rec.copyToHost(got, copy, 16));
  uint8_t zeros[8];
  ASSERT_TRUE(rec.copyToHost(zeros, zero, 8));
  float want[4] = {firstExpected, 4, 6, 8};
  ASSERT_TRUE(rec.expect(0, "float", want, 16));
  uint64_t zeroWant = 0;
  ASSERT_TRUE(rec.expect(1, "unsigned long", &zeroWant, 8));
}

std::string replay(const std::string &dir, HostDevice &device, bool &ok,
                   unsigned repeat = 0) {
  FILE *log = std::tmpfile();
  ReplayOptions options;
  options.repeat = repeat;
  options.peakGBs = 1000;
  ok = replayPlan(dir, device, options, log);
  std::rewind(log);
  std::string text;
  for (int c; (c = std::fgetc(log)) != EOF;)
    text.push_back(char(c));
  std::fclose(log);
  return text;
}

TEST(DevicePlan, RecordsAndReplays) {
  std::string dir = freshDir("replay");
  recordExample(dir, 2);
  EXPECT_EQ(planVendor(dir), "cuda");
  std::ifstream plan(dir + "/plan.txt");
  std::string text((std::istreambuf_iterator<char>(plan)),
                   std::istreambuf_iterator<char>());
  // The launch carries its byte count and its arguments as buffer offset.
  EXPECT_NE(text.find("launch twice 4 1 1 32 1 1 32 2 1 16 0 0\nsync\n"),
            std::string::npos)
      << text;
  // A dtype name is one word in the plan.
  EXPECT_NE(text.find("expect 1 unsigned_long expect1.bin"), std::string::npos)
      << text;
  HostDevice device;
  bool ok = false;
  std::string log = replay(dir, device, ok, /*repeat=*/2);
  EXPECT_TRUE(ok) << log;
  EXPECT_EQ(device.loaded, "IMAGE");
  EXPECT_EQ(device.launches, 3); // the checked run and two timed ones
  EXPECT_NE(log.find("out0: match"), std::string::npos) << log;
  EXPECT_NE(log.find("out1: match"), std::string::npos) << log;
  EXPECT_NE(log.find("kernel twice: "), std::string::npos) << log;
  EXPECT_NE(log.find("% of peak)"), std::string::npos) << log;
}

TEST(DevicePlan, RecordsVariableValues) {
  // A kernel over a Variable gets its value by value, in the argument
  // slot of a pointer: recorded as `v <n>`, replayed as the same value.
  std::string dir = freshDir("values");
  {
    PlanRecorder rec(dir, "cuda", "sm_90", /*withData=*/true);
    ASSERT_TRUE(rec.ok());
    ASSERT_TRUE(rec.loadModule("IMAGE", 5));
    DevicePtr in, out;
    float values[2] = {1, 2};
    ASSERT_TRUE(rec.alloc(8, in));
    ASSERT_TRUE(rec.copyToDevice(in, values, 8));
    ASSERT_TRUE(rec.alloc(8, out));
    unsigned grid[3] = {2, 1, 1}, block[3] = {32, 1, 1};
    DevicePtr args[3] = {out, in, DevicePtr(3)};
    ASSERT_TRUE(rec.launch("times", grid, block, args, 3));
    ASSERT_TRUE(rec.synchronize());
    float got[2];
    ASSERT_TRUE(rec.copyToHost(got, out, 8));
    float want[2] = {3, 6};
    ASSERT_TRUE(rec.expect(0, "float", want, 8));
  }
  std::ifstream plan(dir + "/plan.txt");
  std::string text((std::istreambuf_iterator<char>(plan)),
                   std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("launch times 2 1 1 32 1 1 0 3 1 0 0 0 v 3\n"),
            std::string::npos)
      << text;
  HostDevice device;
  bool ok = false;
  std::string log = replay(dir, device, ok);
  EXPECT_TRUE(ok) << log;
  EXPECT_NE(log.find("out0: match"), std::string::npos) << log;
}

TEST(DevicePlan, ReportsAMismatch) {
  std::string dir = freshDir("mismatch");
  recordExample(dir, 2.5f); // twice(1) is 2, not 2.5
  HostDevice device;
  bool ok = true;
  std::string log = replay(dir, device, ok);
  EXPECT_FALSE(ok);
  EXPECT_NE(log.find("out0: MISMATCH, max abs error 5.000000e-01 (float)"),
            std::string::npos)
      << log;
}

// Malformed plans fail at their line, never crash: steps out of bounds or
// unknown, offsets that would wrap, argument counts that do not fit the
// line, files outside the plan.
TEST(DevicePlan, RefusesMalformedPlans) {
  const std::pair<const char *, const char *> cases[] = {
      {"alloc 0 16\nzero 0 8 16\n", "plan.txt:3: fills outside its buffer"},
      {"alloc 0 16\nexplode 0\n",
       "plan.txt:3: unknown or malformed step 'explode'"},
      {"alloc 0 16\nzero 0 18446744073709551615 1\n",
       "plan.txt:3: fills outside its buffer"},
      {"alloc 0 16\nlaunch k 1 1 1 1 1 1 0 9223372036854775808\n",
       "plan.txt:3: malformed launch"},
      {"alloc 0 16\ndownload 0 0 0 18446744073709551615\n",
       "plan.txt:3: downloads outside its buffer"},
      {"alloc 0 16\nalloc 0 8\n", "plan.txt:3: allocates buffer 0 twice"},
      {"alloc 0 4\nupload 0 0 4 ../plan.txt\n", "plan.txt:3: cannot read"},
      {"module /etc/passwd\n", "plan.txt:2: cannot read"},
  };
  for (auto [body, message] : cases) {
    std::string dir = freshDir("malformed");
    {
      std::ofstream plan(dir + "/plan.txt");
      plan << "lazy-plan 1 cuda sm_90\n" << body;
    }
    HostDevice device;
    bool ok = true;
    std::string log = replay(dir, device, ok);
    EXPECT_FALSE(ok) << body;
    EXPECT_NE(log.find(message), std::string::npos) << body << log;
  }
}

TEST(DevicePlan, ComparesByDtype) {
  auto bytes = [](auto... values) {
    std::vector<uint8_t> out;
    for (auto v : {values...}) {
      uint8_t b[sizeof(v)];
      std::memcpy(b, &v, sizeof(v));
      out.insert(out.end(), b, b + sizeof(v));
    }
    return out;
  };
  double worst;
  // Floats within 1e-4 relative match; integers must be equal.
  EXPECT_TRUE(compareBuffers("float", bytes(1.0f, 100.0f),
                             bytes(1.0f, 100.005f), worst));
  EXPECT_FALSE(
      compareBuffers("float", bytes(1.0f, 100.0f), bytes(1.0f, 101.0f), worst));
  EXPECT_FALSE(
      compareBuffers("int", bytes(int32_t(3)), bytes(int32_t(4)), worst));
  // NaN meets NaN only; sizes must agree.
  EXPECT_TRUE(compareBuffers("float", bytes(NAN), bytes(NAN), worst));
  EXPECT_FALSE(compareBuffers("float", bytes(1.0f), bytes(NAN), worst));
  // An infinity against a number is an infinite difference, not none.
  EXPECT_FALSE(compareBuffers("float", bytes(INFINITY), bytes(1.0f), worst));
  EXPECT_EQ(worst, INFINITY);
  EXPECT_TRUE(compareBuffers("float", bytes(INFINITY), bytes(INFINITY), worst));
  EXPECT_FALSE(compareBuffers("float", bytes(1.0f), bytes(1.0f, 2.0f), worst));
  // Half: 0x3c00 is 1.0, 0x3c01 is 1.0009765625 (within 1e-2).
  EXPECT_TRUE(compareBuffers("half", bytes(uint16_t(0x3c00)),
                             bytes(uint16_t(0x3c01)), worst));
  // A double result computed in float is judged at float's tolerance: a
  // 1e-8 relative difference fails as double, passes as float; integers
  // stay exact whatever they were computed in.
  EXPECT_FALSE(
      compareBuffers("double", bytes(100.0), bytes(100.000001), worst));
  EXPECT_TRUE(compareBuffers("double", bytes(100.0), bytes(100.000001), worst,
                             "float"));
  EXPECT_FALSE(
      compareBuffers("double", bytes(100.0), bytes(100.1), worst, "float"));
  EXPECT_FALSE(compareBuffers("int", bytes(int32_t(3)), bytes(int32_t(4)),
                              worst, "float"));
}

/// compareWithEvidence with the f64 evaluation only; `rescued` counts the
/// elements it rescues.
bool compareWithExact(const std::string &dtype, const std::vector<uint8_t> &got,
                      const std::vector<uint8_t> &want,
                      std::vector<double> exact, double &worst,
                      const std::string &roundedAs, size_t &rescued) {
  FloatEvidence evidence;
  evidence.exact = std::move(exact);
  Rescued counts;
  bool ok =
      compareWithEvidence(dtype, got, want, evidence, worst, roundedAs, counts);
  rescued = counts.betweenExact;
  return ok;
}

/// The bytes of f32 values.
std::vector<uint8_t> floats(std::initializer_list<float> values) {
  std::vector<uint8_t> out(values.size() * 4);
  std::memcpy(out.data(), values.begin(), out.size());
  return out;
}

TEST(DevicePlan, CompareWithExactAcceptsWhatIsNoFartherFromIt) {
  double worst;
  size_t rescued;
  // 101 is off the reference's 100 (1%), but nearer the exact 101.5.
  EXPECT_TRUE(compareWithExact("float", floats({101.0f, 1.0f}),
                               floats({100.0f, 1.0f}), {101.5, 1.0}, worst, "",
                               rescued));
  EXPECT_EQ(rescued, 1u);
  EXPECT_DOUBLE_EQ(worst, 1.0);
  // 103 is as far from it as the reference, but past it: a mismatch.
  EXPECT_FALSE(compareWithExact("float", floats({103.0f}), floats({100.0f}),
                                {101.5}, worst, "", rescued));
  // 98 is farther from it than the reference: a mismatch.
  EXPECT_FALSE(compareWithExact("float", floats({98.0f}), floats({100.0f}),
                                {101.5}, worst, "", rescued));
  EXPECT_EQ(rescued, 0u);
  // An exact value that is not finite, or of another size, is no help.
  EXPECT_FALSE(compareWithExact("float", floats({101.0f}), floats({100.0f}),
                                {NAN}, worst, "", rescued));
  EXPECT_FALSE(compareWithExact("float", floats({101.0f}), floats({100.0f}),
                                {101.5, 1.0}, worst, "", rescued));
  // Integers stay exact.
  EXPECT_FALSE(compareWithExact("int", floats({101.0f}), floats({100.0f}),
                                {101.0}, worst, "", rescued));
}

TEST(DevicePlan, CompareWithEvidenceTakesTheRoundingNoise) {
  double worst;
  Rescued rescued;
  // The reference 0.003 of a sum whose exact value is 0; the result
  // -0.004 is not between them. Tolerance here: atol 1e-5 (|want| < 1)
  // plus 1e-4 relative.
  FloatEvidence evidence;
  evidence.exact = {0.0};
  evidence.noise = {0.004};
  // Within 2 spreads of the reference: a match, counted as noise.
  EXPECT_TRUE(compareWithEvidence("float", floats({-0.004f}), floats({0.003f}),
                                  evidence, worst, "", rescued));
  EXPECT_EQ(rescued.withinNoise, 1u);
  EXPECT_EQ(rescued.betweenExact, 0u);
  // Past 2 spreads: a mismatch.
  EXPECT_FALSE(compareWithEvidence("float", floats({-0.006f}), floats({0.003f}),
                                   evidence, worst, "", rescued));
  EXPECT_EQ(rescued.withinNoise, 0u);
  // Without noise, or with a spread that is not a number, no rescue.
  FloatEvidence exactOnly;
  exactOnly.exact = {0.0};
  EXPECT_FALSE(compareWithEvidence("float", floats({-0.004f}), floats({0.003f}),
                                   exactOnly, worst, "", rescued));
  evidence.noise = {NAN};
  EXPECT_FALSE(compareWithEvidence("float", floats({-0.004f}), floats({0.003f}),
                                   evidence, worst, "", rescued));
  // Noise of another length is no help; between the reference and the
  // exact value still counts as that.
  evidence.noise = {0.004, 0.004};
  EXPECT_FALSE(compareWithEvidence("float", floats({-0.004f}), floats({0.003f}),
                                   evidence, worst, "", rescued));
  EXPECT_TRUE(compareWithEvidence("float", floats({0.001f}), floats({0.003f}),
                                  evidence, worst, "", rescued));
  EXPECT_EQ(rescued.betweenExact, 1u);
  // Integers stay exact.
  evidence.noise = {10.0};
  EXPECT_FALSE(compareWithEvidence("int", floats({101.0f}), floats({100.0f}),
                                   evidence, worst, "", rescued));
}

TEST(DevicePlan, CompareWithExactKnowsOverflow) {
  auto halves = [](std::initializer_list<uint16_t> bits) {
    std::vector<uint8_t> out(bits.size() * 2);
    std::memcpy(out.data(), bits.begin(), out.size());
    return out;
  };
  const uint16_t inf = 0x7c00, negInf = 0xfc00, h2048 = 0x6800;
  double worst;
  size_t rescued;
  // The interpreter's in-order f16 sum of 2^17 ones stalls at 2048; the
  // exact 131072 overflows half (from 65520 on) to the +inf computed.
  EXPECT_TRUE(compareWithExact("half", halves({inf}), halves({h2048}),
                               {131072.0}, worst, "", rescued));
  EXPECT_EQ(rescued, 1u);
  EXPECT_EQ(worst, INFINITY);
  // Not when the exact value fits half, or overflows to the other sign.
  EXPECT_FALSE(compareWithExact("half", halves({inf}), halves({h2048}),
                                {65519.0}, worst, "", rescued));
  EXPECT_FALSE(compareWithExact("half", halves({negInf}), halves({h2048}),
                                {131072.0}, worst, "", rescued));
  // Judged by the result's own type: 1e6 fits a float result, even one
  // computed in half (whether a half in its cone overflowed is not known
  // from the exact value).
  EXPECT_FALSE(compareWithExact("float", floats({INFINITY}), floats({2048.0f}),
                                {1e6}, worst, "", rescued));
  EXPECT_FALSE(compareWithExact("float", floats({INFINITY}), floats({2048.0f}),
                                {1e6}, worst, "half", rescued));
  // The interpreter overflowed where the exact value did not: a finite
  // result within the tolerance of the exact value matches, another not.
  EXPECT_TRUE(compareWithExact("float", floats({10.0f}), floats({INFINITY}),
                               {10.0005}, worst, "", rescued));
  EXPECT_EQ(rescued, 1u);
  EXPECT_FALSE(compareWithExact("float", floats({20.0f}), floats({INFINITY}),
                                {10.0005}, worst, "", rescued));
  // float's threshold: the largest float plus half an ulp.
  EXPECT_FALSE(compareWithExact("float", floats({INFINITY}), floats({1.0f}),
                                {0x1.fffffep+127}, worst, "", rescued));
  EXPECT_TRUE(compareWithExact("float", floats({INFINITY}), floats({1.0f}),
                               {0x1.ffffffp+127}, worst, "", rescued));
}

} // namespace
