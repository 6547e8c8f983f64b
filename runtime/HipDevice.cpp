//===- HipDevice.cpp - GpuDevice over the HIP module API ------------------===//
//
// libamdhip64.so (ROCm HIP, as Debian ships it) is opened at run time; code
// objects (HSACO) go through hipModuleLoadData and kernels through
// hipModuleLaunchKernel with one device pointer per argument. Timed
// launches are bracketed by events on the null stream; without the event
// calls they fall back to the host clock.
//
//===----------------------------------------------------------------------===//

#include "DynamicLibrary.h"
#include "lazy/Runtime/GpuDevice.h"

#include <vector>

namespace lazy::runtime {
namespace {

using hipError_t = int;
using hipModule_t = void *;
using hipFunction_t = void *;
using hipStream_t = void *;
using hipEvent_t = void *;
enum HipMemcpyKind { HostToDevice = 1, DeviceToHost = 2, DeviceToDevice = 3 };

class HipDevice final : public GpuDevice {
public:
  bool init(std::string &error);
  ~HipDevice() override;

  std::string name() override;
  // The HIP API gives the architecture only inside hipDeviceProp_t, whose
  // layout changes between releases: lazy-run takes --chip instead.
  std::string chip() override { return ""; }
  bool alloc(size_t bytes, DevicePtr &ptr) override {
    void *p = nullptr;
    if (!ok(hipMalloc(&p, bytes ? bytes : 1), "hipMalloc"))
      return false;
    ptr = reinterpret_cast<DevicePtr>(p);
    return true;
  }
  bool free(DevicePtr ptr) override {
    return ok(hipFree(reinterpret_cast<void *>(ptr)), "hipFree");
  }
  bool copyToDevice(DevicePtr dst, const void *src, size_t bytes) override {
    return !bytes || ok(hipMemcpy(reinterpret_cast<void *>(dst), src, bytes,
                                  HostToDevice),
                        "hipMemcpy");
  }
  bool copyToHost(void *dst, DevicePtr src, size_t bytes) override {
    return !bytes || ok(hipMemcpy(dst, reinterpret_cast<void *>(src), bytes,
                                  DeviceToHost),
                        "hipMemcpy");
  }
  bool copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes) override {
    return !bytes ||
           ok(hipMemcpy(reinterpret_cast<void *>(dst),
                        reinterpret_cast<void *>(src), bytes, DeviceToDevice),
              "hipMemcpy");
  }
  bool fillZero(DevicePtr dst, size_t bytes) override {
    return !bytes ||
           ok(hipMemset(reinterpret_cast<void *>(dst), 0, bytes), "hipMemset");
  }
  bool loadModule(const void *image, size_t) override {
    if (module)
      modules.push_back(module);
    module = nullptr;
    return ok(hipModuleLoadData(&module, image), "hipModuleLoadData");
  }
  bool launch(const std::string &kernel, const unsigned grid[3],
              const unsigned block[3], const DevicePtr *args,
              size_t numArgs) override;
  bool synchronize() override {
    return ok(hipDeviceSynchronize(), "hipDeviceSynchronize");
  }
  bool timedLaunch(const std::string &kernel, const unsigned grid[3],
                   const unsigned block[3], const DevicePtr *args,
                   size_t numArgs, double &seconds) override;

private:
  bool ok(hipError_t result, const char *call);

  DynamicLibrary library;
  hipModule_t module = nullptr;
  std::vector<hipModule_t> modules;
  hipEvent_t startEvent = nullptr, endEvent = nullptr;

  hipError_t (*hipInit)(unsigned) = nullptr;
  hipError_t (*hipGetDeviceCount)(int *) = nullptr;
  hipError_t (*hipSetDevice)(int) = nullptr;
  hipError_t (*hipDeviceGetName)(char *, int, int) = nullptr;
  hipError_t (*hipMalloc)(void **, size_t) = nullptr;
  hipError_t (*hipFree)(void *) = nullptr;
  hipError_t (*hipMemcpy)(void *, const void *, size_t, int) = nullptr;
  hipError_t (*hipMemset)(void *, int, size_t) = nullptr;
  hipError_t (*hipModuleLoadData)(hipModule_t *, const void *) = nullptr;
  hipError_t (*hipModuleUnload)(hipModule_t) = nullptr;
  hipError_t (*hipModuleGetFunction)(hipFunction_t *, hipModule_t,
                                     const char *) = nullptr;
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, unsigned,
                                      unsigned, hipStream_t, void **,
                                      void **) = nullptr;
  hipError_t (*hipDeviceSynchronize)() = nullptr;
  const char *(*hipGetErrorString)(hipError_t) = nullptr;
  // Optional: timing with events.
  hipError_t (*hipEventCreate)(hipEvent_t *) = nullptr;
  hipError_t (*hipEventDestroy)(hipEvent_t) = nullptr;
  hipError_t (*hipEventRecord)(hipEvent_t, hipStream_t) = nullptr;
  hipError_t (*hipEventSynchronize)(hipEvent_t) = nullptr;
  hipError_t (*hipEventElapsedTime)(float *, hipEvent_t, hipEvent_t) = nullptr;
};

bool HipDevice::ok(hipError_t result, const char *call) {
  if (result == 0)
    return true;
  const char *text = hipGetErrorString ? hipGetErrorString(result) : nullptr;
  return failWith(std::string(call) + " failed: " +
                  (text ? text : "error " + std::to_string(result)));
}

bool HipDevice::init(std::string &error) {
  if (!library.open({"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"},
                    error)) {
    error = "cannot load the HIP runtime: " + error;
    return false;
  }
  std::string missing;
  bool bound =
      library.bind(hipInit, "hipInit", missing) &&
      library.bind(hipGetDeviceCount, "hipGetDeviceCount", missing) &&
      library.bind(hipSetDevice, "hipSetDevice", missing) &&
      library.bind(hipDeviceGetName, "hipDeviceGetName", missing) &&
      library.bind(hipMalloc, "hipMalloc", missing) &&
      library.bind(hipFree, "hipFree", missing) &&
      library.bind(hipMemcpy, "hipMemcpy", missing) &&
      library.bind(hipMemset, "hipMemset", missing) &&
      library.bind(hipModuleLoadData, "hipModuleLoadData", missing) &&
      library.bind(hipModuleUnload, "hipModuleUnload", missing) &&
      library.bind(hipModuleGetFunction, "hipModuleGetFunction", missing) &&
      library.bind(hipModuleLaunchKernel, "hipModuleLaunchKernel", missing) &&
      library.bind(hipDeviceSynchronize, "hipDeviceSynchronize", missing) &&
      library.bind(hipGetErrorString, "hipGetErrorString", missing);
  if (!bound) {
    error = "the HIP runtime lacks " + missing;
    return false;
  }
  std::string noEvents;
  library.bind(hipEventCreate, "hipEventCreate", noEvents);
  library.bind(hipEventDestroy, "hipEventDestroy", noEvents);
  library.bind(hipEventRecord, "hipEventRecord", noEvents);
  library.bind(hipEventSynchronize, "hipEventSynchronize", noEvents);
  library.bind(hipEventElapsedTime, "hipEventElapsedTime", noEvents);
  int count = 0;
  if (!ok(hipInit(0), "hipInit") ||
      !ok(hipGetDeviceCount(&count), "hipGetDeviceCount")) {
    error = lastError;
    return false;
  }
  if (count == 0) {
    error = "the HIP runtime sees no GPU";
    return false;
  }
  if (!ok(hipSetDevice(0), "hipSetDevice")) {
    error = lastError;
    return false;
  }
  return true;
}

HipDevice::~HipDevice() {
  for (hipEvent_t event : {startEvent, endEvent})
    if (event)
      hipEventDestroy(event);
  if (module)
    modules.push_back(module);
  for (hipModule_t m : modules)
    hipModuleUnload(m);
}

std::string HipDevice::name() {
  char buffer[256] = {0};
  if (hipDeviceGetName(buffer, sizeof(buffer) - 1, 0) != 0)
    return "HIP device 0";
  return buffer;
}

bool HipDevice::launch(const std::string &kernel, const unsigned grid[3],
                       const unsigned block[3], const DevicePtr *args,
                       size_t numArgs) {
  if (!module)
    return failWith("no code object is loaded");
  hipFunction_t function = nullptr;
  if (!ok(hipModuleGetFunction(&function, module, kernel.c_str()),
          "hipModuleGetFunction"))
    return failWith(lastError + " (kernel " + kernel + ")");
  std::vector<void *> values;
  for (size_t i = 0; i < numArgs; ++i)
    values.push_back(reinterpret_cast<void *>(args[i]));
  std::vector<void *> params;
  for (void *&v : values)
    params.push_back(&v);
  if (!ok(hipModuleLaunchKernel(function, grid[0], grid[1], grid[2], block[0],
                                block[1], block[2], 0, nullptr, params.data(),
                                nullptr),
          "hipModuleLaunchKernel"))
    return failWith(lastError + " (kernel " + kernel + ")");
  return true;
}

bool HipDevice::timedLaunch(const std::string &kernel, const unsigned grid[3],
                            const unsigned block[3], const DevicePtr *args,
                            size_t numArgs, double &seconds) {
  if (!hipEventCreate || !hipEventDestroy || !hipEventRecord ||
      !hipEventSynchronize || !hipEventElapsedTime)
    return GpuDevice::timedLaunch(kernel, grid, block, args, numArgs, seconds);
  if ((!startEvent && !ok(hipEventCreate(&startEvent), "hipEventCreate")) ||
      (!endEvent && !ok(hipEventCreate(&endEvent), "hipEventCreate")))
    return false;
  float ms = 0;
  if (!synchronize() ||
      !ok(hipEventRecord(startEvent, nullptr), "hipEventRecord") ||
      !launch(kernel, grid, block, args, numArgs) ||
      !ok(hipEventRecord(endEvent, nullptr), "hipEventRecord") ||
      !ok(hipEventSynchronize(endEvent), "hipEventSynchronize") ||
      !ok(hipEventElapsedTime(&ms, startEvent, endEvent),
          "hipEventElapsedTime"))
    return false;
  seconds = double(ms) / 1e3;
  return true;
}

} // namespace

std::unique_ptr<GpuDevice> openHipDevice(std::string &error) {
  auto device = std::make_unique<HipDevice>();
  if (!device->init(error))
    return nullptr;
  return device;
}

} // namespace lazy::runtime
