// lazy-run refuses work the host cannot hold with an error, instead of
// being killed by the system: generated arguments, the compiled program's
// buffers (allocated where no failure can be reported), and the reference
// interpreter's results (--check; it materializes every op).
// RUN: not lazy-run %s --entry=argument 2>&1 | FileCheck %s --check-prefix=ARG
// RUN: not lazy-run %s --entry=buffers 2>&1 | FileCheck %s --check-prefix=BUFFERS
// RUN: not lazy-run %s --entry=buffers --device=emulate 2>&1 | FileCheck %s --check-prefix=BUFFERS
// RUN: not lazy-run %s --entry=reference --check 2>&1 | FileCheck %s --check-prefix=REFERENCE

// ARG: lazy-run: error: the arguments need more than {{[0-9]+}} bytes (half the host's memory)
func.func @argument(%a: tensor<1099511627776x1048576xf32>) -> tensor<1099511627776x1048576xf32> {
  %e = lazy.exp2 %a : tensor<1099511627776x1048576xf32>
  return %e : tensor<1099511627776x1048576xf32>
}

// 2^62 bytes of output.
// BUFFERS: lazy-run: error: the schedule's buffers need more than {{[0-9]+}} bytes (half the host's memory)
func.func @buffers() -> tensor<1099511627776x1048576xf32> {
  %c = lazy.const 1.0 : tensor<f32>
  %v = lazy.view %c as <[(1099511627776, 1048576):(0, 0)]> : tensor<f32> -> tensor<1099511627776x1048576xf32>
  %e = lazy.exp2 %v : tensor<1099511627776x1048576xf32>
  return %e : tensor<1099511627776x1048576xf32>
}

// The fused kernel only writes 4 floats, but unfused the expand is 2^62
// bytes.
func.func @reference() -> tensor<4x1xf32> {
  %c = lazy.const 1.0 : tensor<f32>
  %v = lazy.view %c as <[(4, 288230376151711744):(0, 0)]> : tensor<f32> -> tensor<4x288230376151711744xf32>
  // The view costs nothing; the sum reads it whole.
  // REFERENCE: lazy-run-memory.mlir:[[@LINE+1]]:8: error: 'lazy.reduce_sum' op needs 4611686018427387920 bytes for its result and the views it reads in the reference interpreter
  %s = lazy.reduce_sum %v axes [1] : tensor<4x288230376151711744xf32> -> tensor<4x1xf32>
  return %s : tensor<4x1xf32>
}
