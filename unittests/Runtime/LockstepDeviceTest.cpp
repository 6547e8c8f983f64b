//===- LockstepDeviceTest.cpp - kernels compared with a reference ---------===//
//
// Two host-memory devices whose one kernel writes its own number into the
// first word of its first argument: the lockstep device reports a launch
// whose results differ, names the kernel, and leaves the device holding
// the reference's bytes; equal results are not reported.

#include "lazy/Runtime/LockstepDevice.h"
#include "lazy/Runtime/HostMemoryDevice.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using namespace lazy::runtime;

namespace {

/// A device whose every kernel stores `value` at its first argument.
class WritingDevice : public HostMemoryDevice {
public:
  explicit WritingDevice(float value) : value(value) {}
  bool launch(const std::string &, const unsigned[3], const unsigned[3],
              const DevicePtr *args, size_t numArgs) override {
    if (numArgs)
      std::memcpy(at(args[0]), &value, sizeof(value));
    return true;
  }
  float value;
};

std::string readAll(FILE *f) {
  std::rewind(f);
  std::string text;
  char buffer[512];
  while (size_t n = std::fread(buffer, 1, sizeof(buffer), f))
    text.append(buffer, n);
  return text;
}

TEST(LockstepDevice, ReportsAndResyncsADifferingKernel) {
  WritingDevice gpu(1.0f), emulator(2.0f);
  FILE *log = std::tmpfile();
  ASSERT_NE(log, nullptr);
  LockstepDevice device(gpu, emulator, log);
  DevicePtr buffer;
  ASSERT_TRUE(device.alloc(16, buffer));
  float zeros[4] = {0, 0, 0, 0};
  ASSERT_TRUE(device.copyToDevice(buffer, zeros, sizeof(zeros)));
  unsigned dims[3] = {1, 1, 1};
  // A view 4 bytes into the buffer: the whole allocation is compared.
  DevicePtr view = buffer + 4;
  ASSERT_TRUE(device.launch("step_k3", dims, dims, &view, 1));
  EXPECT_EQ(device.launches(), 1u);
  EXPECT_EQ(device.differing(), 1u);
  std::string text = readAll(log);
  EXPECT_NE(text.find("kernel step_k3, argument 0 (16 bytes): 1 of 4 words "
                      "differ"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("device 1 = 0x3f800000, emulator 2 = 0x40000000"),
            std::string::npos)
      << text;
  float got[4];
  ASSERT_TRUE(device.copyToHost(got, buffer, sizeof(got)));
  EXPECT_EQ(got[1], 2.0f); // the reference's value, written back
  std::fclose(log);
}

TEST(LockstepDevice, NaNsOfAnotherPayloadDifferOnlyInBits) {
  uint32_t canonical = 0x7fffffff, negative = 0xffc00000;
  float gpuNaN, emulatorNaN;
  std::memcpy(&gpuNaN, &canonical, 4);
  std::memcpy(&emulatorNaN, &negative, 4);
  WritingDevice gpu(gpuNaN), emulator(emulatorNaN);
  FILE *log = std::tmpfile();
  ASSERT_NE(log, nullptr);
  LockstepDevice device(gpu, emulator, log);
  DevicePtr buffer;
  ASSERT_TRUE(device.alloc(4, buffer));
  unsigned dims[3] = {1, 1, 1};
  ASSERT_TRUE(device.launch("nan", dims, dims, &buffer, 1));
  std::string text = readAll(log);
  EXPECT_NE(text.find("1 of 1 words differ; largest relative difference 0 "),
            std::string::npos)
      << text;
  std::fclose(log);
}

TEST(LockstepDevice, EqualResultsAreNotReported) {
  WritingDevice gpu(3.0f), emulator(3.0f);
  FILE *log = std::tmpfile();
  ASSERT_NE(log, nullptr);
  LockstepDevice device(gpu, emulator, log);
  DevicePtr buffer;
  ASSERT_TRUE(device.alloc(8, buffer));
  ASSERT_TRUE(device.fillZero(buffer, 8));
  unsigned dims[3] = {1, 1, 1};
  ASSERT_TRUE(device.launch("same", dims, dims, &buffer, 1));
  EXPECT_EQ(device.launches(), 1u);
  EXPECT_EQ(device.differing(), 0u);
  EXPECT_EQ(readAll(log), "");
  std::fclose(log);
}

TEST(LockstepDevice, RejectsAnAddressOutsideEveryAllocation) {
  WritingDevice gpu(1.0f), emulator(1.0f);
  LockstepDevice device(gpu, emulator, stderr);
  DevicePtr buffer;
  ASSERT_TRUE(device.alloc(8, buffer));
  DevicePtr outside = buffer + 64;
  unsigned dims[3] = {1, 1, 1};
  EXPECT_FALSE(device.launch("k", dims, dims, &outside, 1));
  EXPECT_NE(device.error().find("outside every allocation"), std::string::npos);
}

} // namespace
