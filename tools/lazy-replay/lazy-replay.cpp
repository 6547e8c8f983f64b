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
#include "lazy/Runtime/HostMemoryDevice.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace lazy::runtime;

namespace {

int usage() {
  std::fprintf(stderr, "usage: lazy-replay PLAN_DIR... [--repeat=N] "
                       "[--peak-gbs=G] [--dry-run]\n");
  return 2;
}

int badArgument(const std::string &what) {
  std::fprintf(stderr, "lazy-replay: error: %s\n", what.c_str());
  return usage();
}

/// Why `dir` is not a plan lazy-replay can read, or "" when it is one.
std::string whyNotAPlan(const std::string &dir) {
  struct stat info;
  if (::stat(dir.c_str(), &info) != 0)
    return dir + ": " + std::strerror(errno);
  if (!S_ISDIR(info.st_mode))
    return dir + " is not a directory (a device plan is a folder that "
                 "lazy-run --record=DIR writes)";
  std::string vendor = planVendor(dir);
  if (vendor.empty())
    return dir + " is not a device plan (no 'lazy-plan 1' header in " + dir +
           "/plan.txt; lazy-run --record=DIR writes one)";
  if (vendor != "cuda" && vendor != "hip")
    return dir + " is a plan for an unknown vendor '" + vendor + "'";
  return "";
}

} // namespace

int main(int argc, char **argv) {
  ReplayOptions options;
  bool dryRun = false;
  std::vector<std::string> plans;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    char *end = nullptr;
    if (arg.rfind("--repeat=", 0) == 0) {
      unsigned long repeat = std::strtoul(arg.c_str() + 9, &end, 10);
      if (end == arg.c_str() + 9 || *end || arg[9] == '-' || repeat > 1000000)
        return badArgument("--repeat takes a count up to 1000000, not '" +
                           arg.substr(9) + "'");
      options.repeat = unsigned(repeat);
    } else if (arg.rfind("--peak-gbs=", 0) == 0) {
      options.peakGBs = std::strtod(arg.c_str() + 11, &end);
      if (end == arg.c_str() + 11 || *end || !(options.peakGBs > 0))
        return badArgument("--peak-gbs takes a positive number, not '" +
                           arg.substr(11) + "'");
    } else if (arg == "--dry-run") {
      dryRun = true;
    } else if (arg.rfind("-", 0) == 0) {
      return badArgument("unknown option '" + arg + "'");
    } else {
      plans.push_back(arg);
    }
  }
  if (plans.empty())
    return badArgument("no plan folder given");
  for (const std::string &plan : plans)
    if (std::string why = whyNotAPlan(plan); !why.empty()) {
      std::fprintf(stderr, "lazy-replay: error: %s\n", why.c_str());
      return 1;
    }

  std::unique_ptr<GpuDevice> device;
  std::string vendor = planVendor(plans.front());
  if (dryRun) {
    device = std::make_unique<HostMemoryDevice>();
    options.check = false;
  } else {
    std::string why;
    device = GpuDevice::open(vendor == "cuda" ? GpuDevice::Vendor::Cuda
                                              : GpuDevice::Vendor::Hip,
                             why);
    if (!device) {
      std::fprintf(stderr, "lazy-replay: error: no GPU available (%s)\n",
                   why.c_str());
      return 1;
    }
    std::printf("device: %s\n", device->name().c_str());
  }
  int failures = 0;
  for (const std::string &plan : plans) {
    if (planVendor(plan) != vendor) {
      std::printf("%s: FAILED (not a %s plan)\n", plan.c_str(), vendor.c_str());
      ++failures;
      continue;
    }
    failures += !replayPlan(plan, *device, options, stdout);
  }
  std::printf("%zu plans, %d failed\n", plans.size(), failures);
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr,
                 "lazy-replay: error: cannot write to standard output: %s\n",
                 std::strerror(errno));
    return 1;
  }
  return failures ? 1 : 0;
}
