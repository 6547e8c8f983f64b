//===- HostCpu.h - what the lowerings read of this host's CPU -----*- C++
//-*-===//
//
// The one place that reads this host's CPU features for the CPU lowering:
// the plans' vector width (lazy-optimize-kernels), the row kernels' lanes
// and exp2's AVX-512 forms (lazy-to-cpu), LLVM's vector-width preference
// (CpuProgram). The features are read once per process (cpuid does not
// change), not per pipeline or per compiled engine.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_SUPPORT_HOSTCPU_H
#define LAZY_SUPPORT_HOSTCPU_H

#include "llvm/TargetParser/Host.h"

namespace lazy {

/// The width of this host's vector registers in bits: 512 with AVX-512,
/// 256 with AVX, else 128.
inline unsigned hostVectorBits() {
  static const unsigned bits = [] {
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    return features.lookup("avx512f") ? 512u
           : features.lookup("avx")   ? 256u
                                      : 128u;
  }();
  return bits;
}

/// Whether this host has AVX-512 (vscalef, 512-bit vectors).
inline bool hostHasAvx512() { return hostVectorBits() == 512; }

} // namespace lazy

#endif // LAZY_SUPPORT_HOSTCPU_H
