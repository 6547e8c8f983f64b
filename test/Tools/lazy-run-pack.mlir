// Register tiles that read packed panels (a plan's `pack` step,
// PackedPanels.h) compute what the interpreter does: a matmul, and one
// whose B is padded along K (the panel holds the mask's zeros). Two blocks
// of 32 columns, each packed on its own thread's stack; and an f16 matmul
// (16-bit floats are computed in software, their panels hold f16).
// RUN: lazy-run %s --entry=matmul --seed=3 --check --plan=matmul_k0:upcast:1:16,matmul_k0:upcast:0:4,matmul_k0:tile:1:32,matmul_k0:pack:1:32 | FileCheck %s
// RUN: lazy-run %s --entry=padded --seed=4 --check --plan=padded_k0:upcast:1:16,padded_k0:upcast:0:4,padded_k0:tile:1:32,padded_k0:pack:1:32 | FileCheck %s
// RUN: lazy-run %s --entry=half --seed=5 --check --plan=half_k0:upcast:1:16,half_k0:upcast:0:4,half_k0:tile:1:32,half_k0:pack:1:32 | FileCheck %s
// RUN: lazy-opt %s --lazy-schedule --lazy-optimize-kernels="target=generic force=padded_k1:upcast:1:16,padded_k1:upcast:0:4,padded_k1:tile:1:32,padded_k1:pack:1:32" | FileCheck %s --check-prefix=PLAN
// The heuristic packs a large matmul on 256-bit vectors (rule 3b):
// RUN: lazy-opt %s --lazy-schedule --lazy-optimize-kernels=target=generic | FileCheck %s --check-prefix=RULE
// CHECK: all outputs match
// PLAN-LABEL: lazy.kernel @padded_k1
// PLAN-SAME: #lazy.opt<pack, 1, 32>, #lazy.opt<lanes, 1, 8>
// RULE-LABEL: lazy.kernel @large_k3
// RULE-SAME: #lazy.opt<upcast, 0, 4>, #lazy.opt<tile, 1, 128>, #lazy.opt<pack, 1, 128>

module {
  func.func @matmul(%a: tensor<16x48xf32> {lazy.buffer = 0 : i64}, %b: tensor<48x64xf32> {lazy.buffer = 1 : i64}) -> tensor<16x64xf32> {
    %av = lazy.view %a as <[(16, 64, 48):(48, 0, 1)]> : tensor<16x48xf32> -> tensor<16x64x48xf32>
    %bv = lazy.view %b as <[(16, 64, 48):(0, 1, 64)]> : tensor<48x64xf32> -> tensor<16x64x48xf32>
    %p = lazy.mul %av, %bv : tensor<16x64x48xf32>
    %s = lazy.reduce_sum %p axes [2] : tensor<16x64x48xf32> -> tensor<16x64x1xf32>
    %o = lazy.reshape %s : tensor<16x64x1xf32> -> tensor<16x64xf32>
    return %o : tensor<16x64xf32>
  }
  func.func @padded(%a: tensor<16x48xf32> {lazy.buffer = 0 : i64}, %b: tensor<40x64xf32> {lazy.buffer = 1 : i64}) -> tensor<16x64xf32> {
    %bp = lazy.pad %b [(0, 8), (0, 0)] : tensor<40x64xf32> -> tensor<48x64xf32>
    %bt = lazy.permute %bp [1, 0] : tensor<48x64xf32> -> tensor<64x48xf32>
    %br = lazy.reshape %bt : tensor<64x48xf32> -> tensor<1x64x48xf32>
    %bv = lazy.expand %br : tensor<1x64x48xf32> -> tensor<16x64x48xf32>
    %ar = lazy.reshape %a : tensor<16x48xf32> -> tensor<16x1x48xf32>
    %av = lazy.expand %ar : tensor<16x1x48xf32> -> tensor<16x64x48xf32>
    %p = lazy.mul %av, %bv : tensor<16x64x48xf32>
    %s = lazy.reduce_sum %p axes [2] : tensor<16x64x48xf32> -> tensor<16x64x1xf32>
    %o = lazy.reshape %s : tensor<16x64x1xf32> -> tensor<16x64xf32>
    return %o : tensor<16x64xf32>
  }
  func.func @half(%a: tensor<16x48xf16> {lazy.buffer = 0 : i64}, %b: tensor<48x64xf16> {lazy.buffer = 1 : i64}) -> tensor<16x64xf16> {
    %av = lazy.view %a as <[(16, 64, 48):(48, 0, 1)]> : tensor<16x48xf16> -> tensor<16x64x48xf16>
    %bv = lazy.view %b as <[(16, 64, 48):(0, 1, 64)]> : tensor<48x64xf16> -> tensor<16x64x48xf16>
    %p = lazy.mul %av, %bv : tensor<16x64x48xf16>
    %s = lazy.reduce_sum %p axes [2] : tensor<16x64x48xf16> -> tensor<16x64x1xf16>
    %o = lazy.reshape %s : tensor<16x64x1xf16> -> tensor<16x64xf16>
    return %o : tensor<16x64xf16>
  }
  func.func @large(%a: tensor<256x1024xf32> {lazy.buffer = 0 : i64}, %b: tensor<1024x1024xf32> {lazy.buffer = 1 : i64}) -> tensor<256x1024xf32> {
    %av = lazy.view %a as <[(256, 1024, 1024):(1024, 0, 1)]> : tensor<256x1024xf32> -> tensor<256x1024x1024xf32>
    %bv = lazy.view %b as <[(256, 1024, 1024):(0, 1, 1024)]> : tensor<1024x1024xf32> -> tensor<256x1024x1024xf32>
    %p = lazy.mul %av, %bv : tensor<256x1024x1024xf32>
    %s = lazy.reduce_sum %p axes [2] : tensor<256x1024x1024xf32> -> tensor<256x1024x1xf32>
    %o = lazy.reshape %s : tensor<256x1024x1xf32> -> tensor<256x1024xf32>
    return %o : tensor<256x1024xf32>
  }
}
