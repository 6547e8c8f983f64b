//===- GpuDevice.h - a GPU driver opened at run time ------------*- C++ -*-===//
//
// The few driver calls lazy-run needs to execute a scheduled program on a
// GPU: memory, copies, loading a code object, launching a kernel by name.
// Two implementations: the CUDA driver API (libcuda.so.1, loads cubin or
// PTX) and the HIP module API (libamdhip64.so, loads HSACO). Both are
// opened with dlopen, so nothing here needs a GPU or a vendor SDK to build,
// and a machine without one gets a message instead of a link error. Every
// failure is reported as text naming the driver call; nothing throws.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_RUNTIME_GPUDEVICE_H
#define LAZY_RUNTIME_GPUDEVICE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace lazy::runtime {

/// A device address.
using DevicePtr = uint64_t;

class GpuDevice {
public:
  enum class Vendor { Cuda, Hip };

  /// Opens the first device of `vendor`; null with `error` set when the
  /// driver library, its initialization or a device is missing.
  static std::unique_ptr<GpuDevice> open(Vendor vendor, std::string &error);

  virtual ~GpuDevice() = default;

  /// The device's name and, where the driver tells it, the chip to compile
  /// for (`sm_90`, `gfx942`); empty when unknown.
  virtual std::string name() = 0;
  virtual std::string chip() = 0;

  virtual bool alloc(size_t bytes, DevicePtr &ptr) = 0;
  virtual bool free(DevicePtr ptr) = 0;
  virtual bool copyToDevice(DevicePtr dst, const void *src, size_t bytes) = 0;
  virtual bool copyToHost(void *dst, DevicePtr src, size_t bytes) = 0;
  virtual bool copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes) = 0;
  virtual bool fillZero(DevicePtr dst, size_t bytes) = 0;

  /// Loads a code object (cubin, PTX text with a trailing NUL, HSACO) and
  /// looks up kernels in the last one loaded.
  virtual bool loadModule(const void *image, size_t bytes) = 0;
  /// Launches `kernel` with one argument per entry of `args`: a device
  /// pointer, or a Variable's value for an `index` parameter. Each entry
  /// is passed through its own kernelParams slot, from which the driver
  /// reads the parameter's size (8 bytes, or 4 for 32-bit indices: the
  /// low bytes on these little-endian hosts).
  virtual bool launch(const std::string &kernel, const unsigned grid[3],
                      const unsigned block[3], const DevicePtr *args,
                      size_t numArgs) = 0;
  virtual bool synchronize() = 0;
  /// Launches `kernel` alone on an idle device and sets `seconds` to how
  /// long it ran. Drivers override this with events recorded around the
  /// launch, which leave out the host's launch and synchronization latency
  /// (several microseconds, a tenth of a bandwidth-bound kernel of 200 MB);
  /// the default times launch and synchronization on the host clock.
  virtual bool timedLaunch(const std::string &kernel, const unsigned grid[3],
                           const unsigned block[3], const DevicePtr *args,
                           size_t numArgs, double &seconds);

  /// The message of the last failed call.
  const std::string &error() const { return lastError; }

protected:
  bool failWith(std::string message) {
    lastError = std::move(message);
    return false;
  }
  std::string lastError;
};

} // namespace lazy::runtime

#endif // LAZY_RUNTIME_GPUDEVICE_H
