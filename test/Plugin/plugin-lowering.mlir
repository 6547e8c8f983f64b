// The plugin also carries the lowerings: Debian's stock mlir-opt-22 runs
// lazy-to-cpu, lazy-to-nvvm and lazy-to-rocdl (as --pass-pipeline strings:
// a plugin's passes are not command-line flags of the host tool).
// RUN: %mlir_opt %s --load-dialect-plugin=%lazy_libs/LazyPlugin%shlibext --load-pass-plugin=%lazy_libs/LazyPlugin%shlibext --pass-pipeline="builtin.module(lazy-to-cpu)" | FileCheck %s --check-prefix=CPU
// RUN: %mlir_opt %s --load-dialect-plugin=%lazy_libs/LazyPlugin%shlibext --load-pass-plugin=%lazy_libs/LazyPlugin%shlibext --pass-pipeline="builtin.module(lazy-to-nvvm{format=isa})" | FileCheck %s --check-prefix=PTX
// RUN: %mlir_opt %s --load-dialect-plugin=%lazy_libs/LazyPlugin%shlibext --load-pass-plugin=%lazy_libs/LazyPlugin%shlibext --pass-pipeline="builtin.module(lazy-to-rocdl{format=isa})" | FileCheck %s --check-prefix=AMD

// CPU: llvm.func @plugin_k0(
// CPU: llvm.func @plugin(
// PTX: gpu.binary @lazy_kernels
// PTX-SAME: .visible .entry plugin_k0(
// AMD: gpu.binary @lazy_kernels
// AMD-SAME: .amdhsa_kernel plugin_k0
func.func @plugin(%a: tensor<64xf32> {lazy.buffer = 0 : i64}) -> tensor<64xf32> {
  %e = lazy.exp2 %a : tensor<64xf32>
  return %e : tensor<64xf32>
}
