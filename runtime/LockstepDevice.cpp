//===- LockstepDevice.cpp - a GPU checked kernel by kernel
//-----------------===//

#include "lazy/Runtime/LockstepDevice.h"

#include <cmath>
#include <cstring>
#include <set>
#include <vector>

using namespace lazy::runtime;

const std::pair<const DevicePtr, LockstepDevice::Allocation> *
LockstepDevice::find(DevicePtr ptr) const {
  auto it = allocations.upper_bound(ptr);
  if (it == allocations.begin())
    return nullptr;
  --it;
  return ptr < it->first + std::max<size_t>(it->second.bytes, 1) ? &*it
                                                                 : nullptr;
}

bool LockstepDevice::translate(DevicePtr ptr, DevicePtr &out) {
  const auto *a = find(ptr);
  if (!a)
    return failWith("lockstep: an address outside every allocation");
  out = a->second.reference + (ptr - a->first);
  return true;
}

bool LockstepDevice::alloc(size_t bytes, DevicePtr &ptr) {
  DevicePtr ref;
  if (!device.alloc(bytes, ptr))
    return failWith(device.error());
  if (!reference.alloc(bytes, ref))
    return failWith("reference: " + reference.error());
  allocations[ptr] = {ref, bytes};
  return true;
}

bool LockstepDevice::free(DevicePtr ptr) {
  auto it = allocations.find(ptr);
  if (it != allocations.end()) {
    reference.free(it->second.reference);
    allocations.erase(it);
  }
  return device.free(ptr) || failWith(device.error());
}

bool LockstepDevice::copyToDevice(DevicePtr dst, const void *src,
                                  size_t bytes) {
  DevicePtr ref;
  return translate(dst, ref) &&
         (device.copyToDevice(dst, src, bytes) || failWith(device.error())) &&
         (reference.copyToDevice(ref, src, bytes) ||
          failWith(reference.error()));
}

bool LockstepDevice::copyToHost(void *dst, DevicePtr src, size_t bytes) {
  return device.copyToHost(dst, src, bytes) || failWith(device.error());
}

bool LockstepDevice::copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes) {
  DevicePtr refDst, refSrc;
  return translate(dst, refDst) && translate(src, refSrc) &&
         (device.copyOnDevice(dst, src, bytes) || failWith(device.error())) &&
         (reference.copyOnDevice(refDst, refSrc, bytes) ||
          failWith(reference.error()));
}

bool LockstepDevice::fillZero(DevicePtr dst, size_t bytes) {
  DevicePtr ref;
  return translate(dst, ref) &&
         (device.fillZero(dst, bytes) || failWith(device.error())) &&
         (reference.fillZero(ref, bytes) || failWith(reference.error()));
}

bool LockstepDevice::loadModule(const void *image, size_t bytes) {
  return device.loadModule(image, bytes) || failWith(device.error());
}

bool LockstepDevice::synchronize() {
  return device.synchronize() || failWith(device.error());
}

bool LockstepDevice::launch(const std::string &kernel, const unsigned grid[3],
                            const unsigned block[3], const DevicePtr *args,
                            size_t numArgs) {
  std::vector<DevicePtr> refArgs(numArgs);
  for (size_t i = 0; i < numArgs; ++i)
    if (!translate(args[i], refArgs[i]))
      return false;
  if (!device.launch(kernel, grid, block, args, numArgs) ||
      !device.synchronize())
    return failWith(device.error());
  if (!reference.launch(kernel, grid, block, refArgs.data(), numArgs))
    return failWith("reference: " + reference.error());
  ++numLaunches;
  // Each allocation once, even when several arguments view it.
  std::set<DevicePtr> seen;
  bool differs = false;
  for (size_t i = 0; i < numArgs; ++i) {
    const auto *a = find(args[i]);
    if (!a || !seen.insert(a->first).second)
      continue;
    size_t bytes = a->second.bytes;
    std::vector<uint8_t> got(bytes), want(bytes);
    if (!device.copyToHost(got.data(), a->first, bytes))
      return failWith(device.error());
    if (!reference.copyToHost(want.data(), a->second.reference, bytes))
      return failWith("reference: " + reference.error());
    if (got == want)
      continue;
    // The dtype is not known here: words are shown as float32 and as bits
    // (an integer word that reads as a NaN on both sides counts as equal
    // in value, a blind spot of the diagnostic).
    size_t words = bytes / 4, differ = 0, worstAt = 0;
    double worst = -1;
    for (size_t w = 0; w < words; ++w) {
      float g, e;
      std::memcpy(&g, &got[4 * w], 4);
      std::memcpy(&e, &want[4 * w], 4);
      if (std::memcmp(&g, &e, 4) == 0)
        continue;
      ++differ;
      // Two NaNs differ only in sign or payload (the GPU's canonical NaN
      // is 0x7fffffff): no difference in value.
      double d =
          std::isnan(g) && std::isnan(e) ? 0
          : std::isfinite(g) && std::isfinite(e)
              ? std::fabs(double(g) - e) / std::max(1.0, std::fabs(double(e)))
              : INFINITY;
      if (d > worst)
        worst = d, worstAt = w;
    }
    float g = 0, e = 0;
    uint32_t gb = 0, eb = 0;
    if (words) {
      std::memcpy(&g, &got[4 * worstAt], 4);
      std::memcpy(&e, &want[4 * worstAt], 4);
      std::memcpy(&gb, &got[4 * worstAt], 4);
      std::memcpy(&eb, &want[4 * worstAt], 4);
    }
    std::fprintf(log,
                 "lockstep: kernel %s, argument %zu (%zu bytes): %zu of %zu "
                 "words differ; largest relative difference %.3g at word %zu "
                 "(device %.9g = 0x%08x, emulator %.9g = 0x%08x)\n",
                 kernel.c_str(), i, bytes, differ, words, worst, worstAt,
                 double(g), gb, double(e), eb);
    differs = true;
    // The next kernels start from the reference's contents.
    if (!device.copyToDevice(a->first, want.data(), bytes))
      return failWith(device.error());
  }
  numDiffering += differs;
  return true;
}
