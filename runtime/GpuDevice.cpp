//===- GpuDevice.cpp - choose a GPU driver --------------------------------===//

#include "lazy/Runtime/GpuDevice.h"

#include <chrono>

namespace lazy::runtime {

std::unique_ptr<GpuDevice> openCudaDevice(std::string &error);
std::unique_ptr<GpuDevice> openHipDevice(std::string &error);

std::unique_ptr<GpuDevice> GpuDevice::open(Vendor vendor, std::string &error) {
  return vendor == Vendor::Cuda ? openCudaDevice(error) : openHipDevice(error);
}

bool GpuDevice::timedLaunch(const std::string &kernel, const unsigned grid[3],
                            const unsigned block[3], const DevicePtr *args,
                            size_t numArgs, double &seconds) {
  if (!synchronize())
    return false;
  auto start = std::chrono::steady_clock::now();
  if (!launch(kernel, grid, block, args, numArgs) || !synchronize())
    return false;
  seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return true;
}

} // namespace lazy::runtime
