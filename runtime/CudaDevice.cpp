//===- CudaDevice.cpp - GpuDevice over the CUDA driver API ----------------===//
//
// libcuda.so.1 is opened at run time. The first device's primary context is
// made current; code objects go through cuModuleLoadData, which takes cubin
// and (JIT-compiled) PTX alike; kernels take one device pointer per
// argument (MLIR's bare-pointer calling convention). Timed launches are
// bracketed by events on the default stream; a driver without the event
// calls falls back to the host clock.
//
//===----------------------------------------------------------------------===//

#include "DynamicLibrary.h"
#include "lazy/Runtime/GpuDevice.h"

#include <vector>

namespace lazy::runtime {
namespace {

using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
using CUevent = void *;
using CUdeviceptr = unsigned long long;
constexpr int kComputeCapabilityMajor = 75; // CU_DEVICE_ATTRIBUTE_...
constexpr int kComputeCapabilityMinor = 76;

class CudaDevice final : public GpuDevice {
public:
  bool init(std::string &error);
  ~CudaDevice() override;

  std::string name() override;
  std::string chip() override;
  bool alloc(size_t bytes, DevicePtr &ptr) override {
    CUdeviceptr p = 0;
    if (!ok(cuMemAlloc(&p, bytes ? bytes : 1), "cuMemAlloc"))
      return false;
    ptr = p;
    return true;
  }
  bool free(DevicePtr ptr) override { return ok(cuMemFree(ptr), "cuMemFree"); }
  bool copyToDevice(DevicePtr dst, const void *src, size_t bytes) override {
    return !bytes || ok(cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
  }
  bool copyToHost(void *dst, DevicePtr src, size_t bytes) override {
    return !bytes || ok(cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
  }
  bool copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes) override {
    return !bytes || ok(cuMemcpyDtoD(dst, src, bytes), "cuMemcpyDtoD");
  }
  bool fillZero(DevicePtr dst, size_t bytes) override {
    return !bytes || ok(cuMemsetD8(dst, 0, bytes), "cuMemsetD8");
  }
  bool loadModule(const void *image, size_t) override {
    if (module)
      modules.push_back(module);
    module = nullptr;
    return ok(cuModuleLoadData(&module, image), "cuModuleLoadData");
  }
  bool launch(const std::string &kernel, const unsigned grid[3],
              const unsigned block[3], const DevicePtr *args,
              size_t numArgs) override;
  bool synchronize() override {
    return ok(cuCtxSynchronize(), "cuCtxSynchronize");
  }
  bool timedLaunch(const std::string &kernel, const unsigned grid[3],
                   const unsigned block[3], const DevicePtr *args,
                   size_t numArgs, double &seconds) override;

private:
  bool ok(CUresult result, const char *call);

  DynamicLibrary library;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUmodule module = nullptr;
  std::vector<CUmodule> modules;
  CUevent startEvent = nullptr, endEvent = nullptr;

  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDeviceGetCount)(int *) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *, int) = nullptr;
  CUresult (*cuDeviceGetName)(char *, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t) = nullptr;
  CUresult (*cuModuleLoadData)(CUmodule *, const void *) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule,
                                  const char *) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char **) = nullptr;
  // Optional: timing with events.
  CUresult (*cuEventCreate)(CUevent *, unsigned) = nullptr;
  CUresult (*cuEventDestroy)(CUevent) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent) = nullptr;
};

bool CudaDevice::ok(CUresult result, const char *call) {
  if (result == 0)
    return true;
  const char *text = nullptr;
  if (cuGetErrorString)
    cuGetErrorString(result, &text);
  return failWith(std::string(call) + " failed: " +
                  (text ? text : "error " + std::to_string(result)));
}

bool CudaDevice::init(std::string &error) {
  if (!library.open({"libcuda.so.1", "libcuda.so"}, error)) {
    error = "cannot load the CUDA driver: " + error;
    return false;
  }
  std::string missing;
  bool bound =
      library.bind(cuInit, "cuInit", missing) &&
      library.bind(cuDeviceGetCount, "cuDeviceGetCount", missing) &&
      library.bind(cuDeviceGet, "cuDeviceGet", missing) &&
      library.bind(cuDeviceGetName, "cuDeviceGetName", missing) &&
      library.bind(cuDeviceGetAttribute, "cuDeviceGetAttribute", missing) &&
      library.bind(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain",
                   missing) &&
      library.bind(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2",
                   missing) &&
      library.bind(cuCtxSetCurrent, "cuCtxSetCurrent", missing) &&
      library.bind(cuCtxSynchronize, "cuCtxSynchronize", missing) &&
      library.bind(cuMemAlloc, "cuMemAlloc_v2", missing) &&
      library.bind(cuMemFree, "cuMemFree_v2", missing) &&
      library.bind(cuMemcpyHtoD, "cuMemcpyHtoD_v2", missing) &&
      library.bind(cuMemcpyDtoH, "cuMemcpyDtoH_v2", missing) &&
      library.bind(cuMemcpyDtoD, "cuMemcpyDtoD_v2", missing) &&
      library.bind(cuMemsetD8, "cuMemsetD8_v2", missing) &&
      library.bind(cuModuleLoadData, "cuModuleLoadData", missing) &&
      library.bind(cuModuleUnload, "cuModuleUnload", missing) &&
      library.bind(cuModuleGetFunction, "cuModuleGetFunction", missing) &&
      library.bind(cuLaunchKernel, "cuLaunchKernel", missing) &&
      library.bind(cuGetErrorString, "cuGetErrorString", missing);
  if (!bound) {
    error = "the CUDA driver lacks " + missing;
    return false;
  }
  // CUDA 12.8 renamed the elapsed-time call; older drivers have only the
  // first name. Without any of the event calls launches are timed on the
  // host.
  std::string noEvents;
  if (!library.bind(cuEventElapsedTime, "cuEventElapsedTime_v2", noEvents))
    library.bind(cuEventElapsedTime, "cuEventElapsedTime", noEvents);
  library.bind(cuEventCreate, "cuEventCreate", noEvents);
  library.bind(cuEventDestroy, "cuEventDestroy_v2", noEvents);
  library.bind(cuEventRecord, "cuEventRecord", noEvents);
  library.bind(cuEventSynchronize, "cuEventSynchronize", noEvents);
  int count = 0;
  if (!ok(cuInit(0), "cuInit") ||
      !ok(cuDeviceGetCount(&count), "cuDeviceGetCount")) {
    error = lastError;
    return false;
  }
  if (count == 0) {
    error = "the CUDA driver sees no GPU";
    return false;
  }
  if (!ok(cuDeviceGet(&device, 0), "cuDeviceGet") ||
      !ok(cuDevicePrimaryCtxRetain(&context, device),
          "cuDevicePrimaryCtxRetain") ||
      !ok(cuCtxSetCurrent(context), "cuCtxSetCurrent")) {
    error = lastError;
    return false;
  }
  return true;
}

CudaDevice::~CudaDevice() {
  for (CUevent event : {startEvent, endEvent})
    if (event)
      cuEventDestroy(event);
  if (module)
    modules.push_back(module);
  for (CUmodule m : modules)
    cuModuleUnload(m);
  if (context)
    cuDevicePrimaryCtxRelease(device);
}

std::string CudaDevice::name() {
  char buffer[256] = {0};
  if (cuDeviceGetName(buffer, sizeof(buffer) - 1, device) != 0)
    return "CUDA device 0";
  return buffer;
}

std::string CudaDevice::chip() {
  int major = 0, minor = 0;
  if (cuDeviceGetAttribute(&major, kComputeCapabilityMajor, device) != 0 ||
      cuDeviceGetAttribute(&minor, kComputeCapabilityMinor, device) != 0)
    return "";
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

bool CudaDevice::launch(const std::string &kernel, const unsigned grid[3],
                        const unsigned block[3], const DevicePtr *args,
                        size_t numArgs) {
  if (!module)
    return failWith("no code object is loaded");
  CUfunction function = nullptr;
  if (!ok(cuModuleGetFunction(&function, module, kernel.c_str()),
          "cuModuleGetFunction"))
    return failWith(lastError + " (kernel " + kernel + ")");
  std::vector<CUdeviceptr> values(args, args + numArgs);
  std::vector<void *> params;
  for (CUdeviceptr &v : values)
    params.push_back(&v);
  if (!ok(cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0],
                         block[1], block[2], 0, nullptr, params.data(),
                         nullptr),
          "cuLaunchKernel"))
    return failWith(lastError + " (kernel " + kernel + ")");
  return true;
}

bool CudaDevice::timedLaunch(const std::string &kernel, const unsigned grid[3],
                             const unsigned block[3], const DevicePtr *args,
                             size_t numArgs, double &seconds) {
  if (!cuEventCreate || !cuEventDestroy || !cuEventRecord ||
      !cuEventSynchronize || !cuEventElapsedTime)
    return GpuDevice::timedLaunch(kernel, grid, block, args, numArgs, seconds);
  if ((!startEvent && !ok(cuEventCreate(&startEvent, 0), "cuEventCreate")) ||
      (!endEvent && !ok(cuEventCreate(&endEvent, 0), "cuEventCreate")))
    return false;
  float ms = 0;
  if (!synchronize() ||
      !ok(cuEventRecord(startEvent, nullptr), "cuEventRecord") ||
      !launch(kernel, grid, block, args, numArgs) ||
      !ok(cuEventRecord(endEvent, nullptr), "cuEventRecord") ||
      !ok(cuEventSynchronize(endEvent), "cuEventSynchronize") ||
      !ok(cuEventElapsedTime(&ms, startEvent, endEvent), "cuEventElapsedTime"))
    return false;
  seconds = double(ms) / 1e3;
  return true;
}

} // namespace

std::unique_ptr<GpuDevice> openCudaDevice(std::string &error) {
  auto device = std::make_unique<CudaDevice>();
  if (!device->init(error))
    return nullptr;
  return device;
}

} // namespace lazy::runtime
