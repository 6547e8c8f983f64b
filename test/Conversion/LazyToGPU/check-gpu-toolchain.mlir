// A missing GPU tool or device library, or a chip LLVM does not know, is
// one clear error before serialization, naming what is missing (and, for
// libdevice, the kernel).
// RUN: mkdir -p %t/empty
// RUN: not lazy-opt %s --lazy-to-rocdl="toolkit=%t/empty" 2>&1 | FileCheck %s --check-prefix=ROCM-LIBS
// RUN: not lazy-opt %s --lazy-to-rocdl="chip=gfx9999" 2>&1 | FileCheck %s --check-prefix=ROCM-CHIP
// RUN: not lazy-opt %s --lazy-to-rocdl="chip=gfx1 format=isa" 2>&1 | FileCheck %s --check-prefix=ROCM-CHIP-LIB
// RUN: not lazy-opt %s --lazy-to-nvvm="chip=sm_999 format=isa" 2>&1 | FileCheck %s --check-prefix=NVVM-CHIP
// RUN: mkdir -p %t/libs-only/amdgcn && ln -sfn %lazy_rocm_toolkit/amdgcn/bitcode %t/libs-only/amdgcn/bitcode
// RUN: not lazy-opt %s --lazy-to-rocdl="toolkit=%t/libs-only" 2>&1 | FileCheck %s --check-prefix=LLD
// RUN: lazy-opt %s --lazy-to-rocdl="toolkit=%t/libs-only format=isa" | FileCheck %s --check-prefix=ISA
// RUN: not lazy-opt %s --lazy-to-nvvm="toolkit=%t/empty format=isa" 2>&1 | FileCheck %s --check-prefix=LIBDEVICE
// RUN: env PATH=%t/empty not lazy-opt %s --lazy-to-nvvm="toolkit=%t/empty" 2>&1 | FileCheck %s --check-prefix=PTXAS

// ROCM-LIBS: error: lazy-to-rocdl: the ROCm device library '{{.*}}empty/amdgcn/bitcode/ocml.bc' is missing
// ROCM-CHIP: error: lazy-to-rocdl: chip 'gfx9999' is not a processor LLVM's AMDGPU backend knows (e.g. gfx90a, gfx942, gfx1100)
// ROCM-CHIP-LIB: error: lazy-to-rocdl: chip 'gfx1' is not a processor LLVM's AMDGPU backend knows
// NVVM-CHIP: error: lazy-to-nvvm: chip 'sm_999' is not a processor LLVM's NVPTX backend knows (e.g. sm_80, sm_90)
// LLD: error: lazy-to-rocdl: format=bin needs '{{.*}}libs-only/llvm/bin/ld.lld' (install lld-22, or use format=isa)
// ISA: gpu.binary @lazy_kernels
// LIBDEVICE: error: kernel @graph_k0 uses math.exp2, which needs CUDA's libdevice; none at '{{.*}}libdevice.10.bc'
// PTXAS: error: lazy-to-nvvm: format=bin needs ptxas, found neither in '{{.*}}empty/bin' nor on PATH
func.func @graph(%a: tensor<4xf32> {lazy.buffer = 0 : i64}) -> tensor<4xf32> {
  %e = lazy.exp2 %a : tensor<4xf32>
  return %e : tensor<4xf32>
}
