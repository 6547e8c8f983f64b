//===- HostMemoryDevice.h - device memory in host memory --------*- C++ -*-===//
//
// A GpuDevice whose buffers are host allocations and whose launches do
// nothing: lazy-replay --dry-run checks a plan's steps and bounds on it,
// and tests give it kernels by overriding launch(). Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_RUNTIME_HOSTMEMORYDEVICE_H
#define LAZY_RUNTIME_HOSTMEMORYDEVICE_H

#include "lazy/Runtime/GpuDevice.h"

#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <string>

namespace lazy::runtime {

class HostMemoryDevice : public GpuDevice {
public:
  std::string name() override { return "host memory"; }
  std::string chip() override { return ""; }
  bool alloc(size_t bytes, DevicePtr &ptr) override {
    std::unique_ptr<uint8_t[]> block(new (std::nothrow)
                                         uint8_t[bytes ? bytes : 1]);
    if (!block)
      return failWith("cannot allocate " + std::to_string(bytes) + " bytes");
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

protected:
  static uint8_t *at(DevicePtr p) {
    return reinterpret_cast<uint8_t *>(uintptr_t(p));
  }

private:
  std::map<DevicePtr, std::unique_ptr<uint8_t[]>> blocks;
};

} // namespace lazy::runtime

#endif // LAZY_RUNTIME_HOSTMEMORYDEVICE_H
