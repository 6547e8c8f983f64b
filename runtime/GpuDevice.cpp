//===- GpuDevice.cpp - choose a GPU driver --------------------------------===//

#include "lazy/Runtime/GpuDevice.h"

namespace lazy::runtime {

std::unique_ptr<GpuDevice> openCudaDevice(std::string &error);
std::unique_ptr<GpuDevice> openHipDevice(std::string &error);

std::unique_ptr<GpuDevice> GpuDevice::open(Vendor vendor, std::string &error) {
  return vendor == Vendor::Cuda ? openCudaDevice(error) : openHipDevice(error);
}

} // namespace lazy::runtime
