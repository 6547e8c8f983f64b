//===- lazy-replay.cpp - run recorded device plans on a GPU ---------------===//
//
// lazy-replay PLAN_DIR... [--repeat=N] [--peak-gbs=G] [--dry-run]
//
// Runs device plans that `lazy-run --device=cuda|hip --record=DIR` wrote
// (DevicePlan.h) on the machine's GPU, through the vendor driver opened
// with dlopen: nothing of LLVM or MLIR is needed, so the plans can be made
// on a build machine and run on a GPU machine that has only a driver. Each
// result is compared with what the GPU emulator gave; with --repeat the
// plan is run N more times and the last run's kernels are timed (GB/s,
// and the share of --peak-gbs). --dry-run replays on host memory without
// running kernels: it checks that the plan is well formed and in bounds.
// Exits 1 when a plan fails or a result differs; prints why.
//
//===----------------------------------------------------------------------===//

#include "lazy/Runtime/DevicePlan.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace lazy::runtime;

namespace {

/// Device memory in host memory; launches do nothing (--dry-run).
class HostMemoryDevice final : public GpuDevice {
public:
  std::string name() override { return "host memory (dry run)"; }
  std::string chip() override { return ""; }
  bool alloc(size_t bytes, DevicePtr &ptr) override {
    auto block = std::make_unique<uint8_t[]>(bytes ? bytes : 1);
    ptr = DevicePtr(reinterpret_cast<uintptr_t>(block.get()));
    blocks[ptr] = std::move(block);
    return true;
  }
  bool free(DevicePtr ptr) override { return blocks.erase(ptr) == 1; }
  bool copyToDevice(DevicePtr dst, const void *src, size_t n) override {
    std::memcpy(at(dst), src, n);
    return true;
  }
  bool copyToHost(void *dst, DevicePtr src, size_t n) override {
    std::memcpy(dst, at(src), n);
    return true;
  }
  bool copyOnDevice(DevicePtr dst, DevicePtr src, size_t n) override {
    std::memmove(at(dst), at(src), n);
    return true;
  }
  bool fillZero(DevicePtr dst, size_t n) override {
    std::memset(at(dst), 0, n);
    return true;
  }
  bool loadModule(const void *, size_t bytes) override {
    return bytes > 0 ? true : failWith("empty code object");
  }
  bool launch(const std::string &, const unsigned[3], const unsigned[3],
              const DevicePtr *, size_t) override {
    return true;
  }
  bool synchronize() override { return true; }

private:
  static uint8_t *at(DevicePtr p) {
    return reinterpret_cast<uint8_t *>(uintptr_t(p));
  }
  std::map<DevicePtr, std::unique_ptr<uint8_t[]>> blocks;
};

int usage() {
  std::fprintf(stderr, "usage: lazy-replay PLAN_DIR... [--repeat=N] "
                       "[--peak-gbs=G] [--dry-run]\n");
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  ReplayOptions options;
  bool dryRun = false;
  std::vector<std::string> plans;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--repeat=", 0) == 0)
      options.repeat = unsigned(std::strtoul(arg.c_str() + 9, nullptr, 10));
    else if (arg.rfind("--peak-gbs=", 0) == 0)
      options.peakGBs = std::strtod(arg.c_str() + 11, nullptr);
    else if (arg == "--dry-run")
      dryRun = true;
    else if (arg.rfind("--", 0) == 0)
      return usage();
    else
      plans.push_back(arg);
  }
  if (plans.empty())
    return usage();

  std::unique_ptr<GpuDevice> device;
  std::string vendor = planVendor(plans.front());
  if (dryRun) {
    device = std::make_unique<HostMemoryDevice>();
    options.check = false;
  } else if (vendor == "cuda" || vendor == "hip") {
    std::string why;
    device = GpuDevice::open(
        vendor == "cuda" ? GpuDevice::Vendor::Cuda : GpuDevice::Vendor::Hip,
        why);
    if (!device) {
      std::fprintf(stderr, "lazy-replay: error: no GPU available (%s)\n",
                   why.c_str());
      return 1;
    }
    std::printf("device: %s\n", device->name().c_str());
  } else {
    std::fprintf(stderr, "lazy-replay: error: %s is not a device plan\n",
                 plans.front().c_str());
    return 1;
  }
  int failures = 0;
  for (const std::string &plan : plans) {
    if (planVendor(plan) != vendor) {
      std::printf("%s: FAILED (not a %s plan)\n", plan.c_str(),
                  vendor.c_str());
      ++failures;
      continue;
    }
    failures += !replayPlan(plan, *device, options, stdout);
  }
  std::printf("%zu plans, %d failed\n", plans.size(), failures);
  return failures ? 1 : 0;
}
