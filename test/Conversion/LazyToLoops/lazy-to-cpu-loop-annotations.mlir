// The loop annotations convert-lazy-to-loops puts on a reduce's loops
// (keepRolled, and the in-order rerun marked cold) reach the LLVM
// dialect's latch branches through lazy-to-cpu (scf-to-cf carries them to
// cf.br, cf-to-llvm to llvm.br's loop_annotation), which LLVM IR
// translation turns into !llvm.loop metadata.
// RUN: lazy-opt %s --lazy-to-cpu | FileCheck %s
// RUN: lazy-opt %s --lazy-to-cpu | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=IR

// CHECK-DAG: #[[COLD:.+]] = #llvm.loop_annotation<disableNonforced = true>
// CHECK-DAG: #[[ROLLED:.+]] = #llvm.loop_annotation<interleave = #{{.+}}, unroll = #{{.+}}>
// CHECK-LABEL: llvm.func @graph_k0(
// CHECK: llvm.intr.maximum
// CHECK: llvm.br {{.*}} {loop_annotation = #[[ROLLED]]}
// CHECK: llvm.br {{.*}} {loop_annotation = #[[COLD]]}

// IR-DAG: !{!"llvm.loop.interleave.count", i32 8}
// IR-DAG: !{!"llvm.loop.unroll.disable"}
// IR-DAG: !{!"llvm.loop.disable_nonforced"}
module attributes {lazy.default_device = "CLANG"} {
  func.func @graph(%x: tensor<4096xf32>) -> tensor<1xf32> {
    %m = lazy.reduce_max %x axes [0] : tensor<4096xf32> -> tensor<1xf32>
    return %m : tensor<1xf32>
  }
}
