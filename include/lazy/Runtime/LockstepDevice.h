//===- LockstepDevice.h - a GPU checked kernel by kernel --------*- C++ -*-===//
//
// Finds the kernel whose GPU result is wrong. Every call goes to a device
// under test (a real GPU) and to a reference device (the GPU emulator,
// which runs the same gpu.funcs on the CPU). After each launch the
// allocations the kernel was given are downloaded from both and compared;
// a difference is logged with the kernel's name, and the reference's bytes
// are then written over the device's, so that every kernel is checked on
// the same inputs and one wrong kernel does not make all later ones look
// wrong. Plain C++ (no MLIR).
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_RUNTIME_LOCKSTEPDEVICE_H
#define LAZY_RUNTIME_LOCKSTEPDEVICE_H

#include "lazy/Runtime/GpuDevice.h"

#include <cstdio>
#include <map>

namespace lazy::runtime {

class LockstepDevice final : public GpuDevice {
public:
  LockstepDevice(GpuDevice &device, GpuDevice &reference, FILE *log)
      : device(device), reference(reference), log(log) {}

  std::string name() override { return device.name(); }
  std::string chip() override { return device.chip(); }
  bool alloc(size_t bytes, DevicePtr &ptr) override;
  bool free(DevicePtr ptr) override;
  bool copyToDevice(DevicePtr dst, const void *src, size_t bytes) override;
  bool copyToHost(void *dst, DevicePtr src, size_t bytes) override;
  bool copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes) override;
  bool fillZero(DevicePtr dst, size_t bytes) override;
  /// Code objects are for the device; the reference has its kernels.
  bool loadModule(const void *image, size_t bytes) override;
  bool launch(const std::string &kernel, const unsigned grid[3],
              const unsigned block[3], const DevicePtr *args,
              size_t numArgs) override;
  bool synchronize() override;

  /// Launches compared so far, and those where the results differed.
  unsigned launches() const { return numLaunches; }
  unsigned differing() const { return numDiffering; }

private:
  struct Allocation {
    DevicePtr reference;
    size_t bytes;
  };
  /// The allocation holding `ptr` (views point inside one), or null.
  const std::pair<const DevicePtr, Allocation> *find(DevicePtr ptr) const;
  bool translate(DevicePtr ptr, DevicePtr &out);

  GpuDevice &device, &reference;
  FILE *log;
  std::map<DevicePtr, Allocation> allocations;
  unsigned numLaunches = 0, numDiffering = 0;
};

} // namespace lazy::runtime

#endif // LAZY_RUNTIME_LOCKSTEPDEVICE_H
