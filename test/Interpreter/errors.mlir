// RUN: not lazy-interp %s --entry=f 2>&1 | FileCheck %s
// RUN: not lazy-interp %s --entry=unseeded 2>&1 | FileCheck %s --check-prefix=SEED
// RUN: not lazy-interp %s --entry=bf16 2>&1 | FileCheck %s --check-prefix=BF16
// RUN: not lazy-interp %s --entry=huge 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not lazy-interp %s --entry=huge_operand 2>&1 | FileCheck %s --check-prefix=HUGE_OPERAND
// RUN: not lazy-interp %s --entry=overflow 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: not lazy-interp %s --entry=assign_cycle 2>&1 | FileCheck %s --check-prefix=CYCLE
// RUN: lazy-interp %s --entry=assign_cycle --schedule-check=false --seed=1 --print | FileCheck %s --check-prefix=CYCLE-ANYWAY
// RUN: not lazy-interp %s --entry=huge_argument 2>&1 | FileCheck %s --check-prefix=HUGE-ARG
// A CUSTOM op other than custom_random calls host code that has no MLIR
// form: a located error.
func.func @f() -> tensor<4xf32> {
  // CHECK: errors.mlir:[[@LINE+1]]:8: error: 'lazy.custom' op calls host function 'fill', which the reference interpreter cannot run
  %0 = lazy.custom "fill" tensor<4xf32>
  return %0 : tensor<4xf32>
}

// custom_random draws from its seed; the interpreter does not know the
// schedule order tinygrad's counter follows, so it needs the seed written.
func.func @unseeded() -> tensor<4xf32> {
  // SEED: errors.mlir:[[@LINE+1]]:8: error: 'lazy.custom' op custom_random needs a 'seed' to be evaluated here (lazy-run gives each one its seed from the module's lazy.rng_seed)
  %0 = lazy.custom "custom_random" tensor<4xf32>
  return %0 : tensor<4xf32>
}

// numpy has no bfloat16: tinygrad's custom_random fails there too.
func.func @bf16() -> tensor<4xbf16> {
  // BF16: errors.mlir:[[@LINE+1]]:8: error: 'lazy.custom' op custom_random cannot fill bfloat16 (numpy has no such dtype; tinygrad fails too)
  %0 = lazy.custom "custom_random" {seed = 1 : i64} tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// Memory the interpreter would take past half the host's memory is refused
// where it would be allocated, not left to the system (2^62 bytes here,
// more than any host has). A view costs nothing; the op reading it, or the
// return, allocates.
func.func @huge() -> tensor<1099511627776x1048576xf32> {
  %c = lazy.const 1.0 : tensor<f32>
  %v = lazy.view %c as <[(1099511627776, 1048576):(0, 0)]> : tensor<f32> -> tensor<1099511627776x1048576xf32>
  // HUGE: errors.mlir:[[@LINE+1]]:3: error: 'func.return' op returns 4611686018427387904 bytes of results from the reference interpreter: with the 4 bytes it holds already, that is over its budget of {{[0-9]+}} bytes (half the host's memory)
  return %v : tensor<1099511627776x1048576xf32>
}

func.func @huge_operand() -> tensor<1xf32> {
  %c = lazy.const 1.0 : tensor<f32>
  %v = lazy.view %c as <[(1099511627776, 1048576):(0, 0)]> : tensor<f32> -> tensor<1099511627776x1048576xf32>
  // HUGE_OPERAND: errors.mlir:[[@LINE+1]]:8: error: 'lazy.reduce_sum' op needs 4611686018427387908 bytes for its result and the views it reads in the reference interpreter: with the 4 bytes it holds already, that is over its budget of {{[0-9]+}} bytes (half the host's memory)
  %s = lazy.reduce_sum %v axes [0, 1] : tensor<1099511627776x1048576xf32> -> tensor<1x1xf32>
  %r = lazy.reshape %s : tensor<1x1xf32> -> tensor<1xf32>
  return %r : tensor<1xf32>
}

// An argument past 2^64 bytes says so rather than wrapping around.
// OVERFLOW: lazy-interp: error: the arguments need more than {{[0-9]+}} bytes (half the host's memory)
func.func @overflow(%a: tensor<1099511627776x1099511627776xf32>) -> tensor<1099511627776x1099511627776xf32> {
  return %a : tensor<1099511627776x1099511627776xf32>
}

// Arguments are generated in memory too.
// HUGE-ARG: lazy-interp: error: the arguments need more than {{[0-9]+}} bytes (half the host's memory)
func.func @huge_argument(%a: tensor<1099511627776x1048576xf32>) -> tensor<1099511627776x1048576xf32> {
  return %a : tensor<1099511627776x1048576xf32>
}

// A kernel reading both the old and the new contents of an assigned
// buffer waits on itself: every scheduling tool refuses the graph, and
// tinygrad too ("cycle detected in graph"). So does the interpreter,
// unless told otherwise.
func.func @assign_cycle(%a: tensor<4xf32> {lazy.buffer = 0 : i64}) -> (tensor<4xf32>, tensor<4xf32>) {
  // CYCLE: errors.mlir:[[@LINE-1]]:1: error: cycle detected in graph, prescheduled 2 but only scheduled 0
  // CYCLE-NOT: lazy.schedule
  // CYCLE: errors.mlir:[[@LINE+3]]:8: note: @assign_cycle_k0 is on the cycle
  // CYCLE: lazy-interp: error: the graph cannot be scheduled, so tinygrad 0.9.2 cannot run it either (--schedule-check=false evaluates it anyway)
  %0 = lazy.exp2 %a : tensor<4xf32>
  %1 = lazy.assign %0 to %a : tensor<4xf32>, tensor<4xf32>
  %2 = lazy.add %1, %a : tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}
// CYCLE-ANYWAY: out0: float (4)
// CYCLE-ANYWAY: out1: float (4)
