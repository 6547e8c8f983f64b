// lazy-run schedules, compiles for the CPU and runs a graph; --check
// compares with the reference interpreter on the same inputs.
// RUN: lazy-run %s --entry=graph --seed=4 --check | FileCheck %s
// RUN: rm -rf %t && lazy-run %s --entry=graph --seed=4 --output-dir=%t
// RUN: lazy-interp %s --entry=graph --seed=4 --output-dir=%t/ref
// The integer output bit for bit (out0's exp2 is within 2 ulp, which
// --check's tolerance covers: lazy-expand-exp2):
// RUN: cmp %t/out1.npy %t/ref/out1.npy
// RUN: lazy-run %s --entry=graph --seed=4 --check --repeat=3 | FileCheck %s --check-prefix=REPEAT
// RUN: lazy-run %s --entry=graph --seed=4 --check --repeat=2 --warmup=2 | FileCheck %s --check-prefix=WARMUP
// RUN: rm -rf %t.obj && lazy-run %s --entry=graph --seed=4 --check --compile-threads=1 --dump-objects=%t.obj | FileCheck %s
// RUN: lazy-run %s --entry=graph --seed=4 --check --warm-compile --timing 2>&1 | FileCheck %s --check-prefix=WARMCOMPILE
// RUN: llvm-nm %t.obj/whole.o | FileCheck %s --check-prefix=OBJ
// RUN: not lazy-run %s --entry=graph --warmup=2 2>&1 | FileCheck %s --check-prefix=WARMUPALONE
// RUN: not lazy-run %s --entry=graph --device=tpu 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not lazy-run %s --entry=graph --input=x 2>&1 | FileCheck %s --check-prefix=SPEC
// RUN: not lazy-run %s --entry=custom 2>&1 | FileCheck %s --check-prefix=CUSTOM
// RUN: lazy-run %s --entry=random --check | FileCheck %s --check-prefix=RANDOM
// RUN: rm -rf %t.c && lazy-run %s --entry=consts --check --output-dir=%t.c | FileCheck %s --check-prefix=CONSTS
// RUN: lazy-opt %s --lazy-schedule | FileCheck %s --check-prefix=CONSTSCHED
// RUN: lazy-run %s --entry=shared --seed=2 --check | FileCheck %s --check-prefix=SHARED
// RUN: lazy-run %s --entry=shared --seed=2 --device=emulate --check | FileCheck %s --check-prefix=SHARED
// RUN: lazy-opt %s --lazy-schedule | FileCheck %s --check-prefix=SHAREDSCHED
// RUN: lazy-run --help | FileCheck %s --check-prefix=HELP --implicit-check-not=--amdgpu --implicit-check-not=--nvptx
// RUN: lazy-run %s --entry=seen --seed=1 --check 2>&1 | FileCheck %s --check-prefix=SEEN
// RUN: lazy-run %s --entry=assign_two --seed=5 --check | FileCheck %s --check-prefix=ASSIGNTWO
// RUN: lazy-run %s --entry=assign_two --seed=5 --device=emulate --check | FileCheck %s --check-prefix=ASSIGNTWO
// RUN: lazy-run %s --entry=_mlir_g --seed=6 --check --compile-threads=2 | FileCheck %s --check-prefix=MLIRNAMED

// --help lists lazy-run's own options, not the LLVM backends' linked in.
// HELP: lazy-run options:
// HELP: --check
// HELP: --device=

// CHECK: out0: match, max abs error {{.*}} (float)
// CHECK: out1: match, max abs error 0{{.*}} (int)
// CHECK: all outputs match
// --repeat times re-runs and still reports the first run's results.
// REPEAT: time: median {{[0-9.]+}} ms, min {{[0-9.]+}} ms over 3 runs
// REPEAT: out0: match
// REPEAT: out1: match
// REPEAT: all outputs match
// --dump-objects writes the compiled code (one engine: whole.o). Of the
// packed wrappers ExecutionEngine makes (_mlir_NAME) only the one lazy-run
// calls is compiled; the kernels and the entry stay (lazyCpuProgramLookup).
// OBJ: T _mlir__mlir_ciface_graph
// OBJ-NEXT: T _mlir_ciface_graph
// OBJ-NEXT: T graph
// OBJ-NEXT: T graph_k0
// OBJ-NEXT: T graph_k1
// --warmup runs untimed first: only --repeat's runs are counted.
// WARMUP: time: median {{[0-9.]+}} ms, min {{[0-9.]+}} ms over 2 runs
// WARMUP: all outputs match
// WARMUPALONE: lazy-run: error: --warmup needs --repeat
func.func @graph(%a: tensor<4x8xf32>, %b: tensor<8xsi32>) -> (tensor<4x1xf32>, tensor<8xsi32>) {
  %e = lazy.exp2 %a : tensor<4x8xf32>
  %s = lazy.reduce_sum %e axes [1] : tensor<4x8xf32> -> tensor<4x1xf32>
  %c = lazy.const 3 : tensor<si32>
  %cv = lazy.view %c as <[(8):(0)]> : tensor<si32> -> tensor<8xsi32>
  %d = lazy.idiv %b, %cv : tensor<8xsi32>
  return %s, %d : tensor<4x1xf32>, tensor<8xsi32>
}
// --warm-compile: a copy is lowered and compiled first, untimed; the
// phases printed are the second compile's, once each.
// WARMCOMPILE: lazy-run: time lower
// WARMCOMPILE-NEXT: lazy-run: time compile
// WARMCOMPILE-NOT: time lower
// WARMCOMPILE-NOT: time compile
// WARMCOMPILE: all outputs match
// DEVICE: lazy-run: error: --device must be cpu, cuda, hip or emulate, not 'tpu'
// SPEC: lazy-run: error: --input expects I=PATH.npy, got 'x'

func.func @custom() -> tensor<4xf32> {
  // CUSTOM: error: 'lazy.ext' op calls a host function, which has no CPU lowering
  %0 = lazy.custom "fill" tensor<4xf32>
  return %0 : tensor<4xf32>
}

// custom_random draws get seeds (lazy.rng_seed + k, default 0) in schedule
// order, written on the graph too: the interpreter draws the same numbers
// (the kernel on them is exact: a doubling).
// RANDOM: out0: match, max abs error 0.000000e+00 (float)
// RANDOM: out1: match, max abs error 0.000000e+00 (half)
// RANDOM: all outputs match
func.func @random() -> (tensor<4xf32>, tensor<3xf16>) {
  %0 = lazy.custom "custom_random" tensor<4xf32>
  %1 = lazy.custom "custom_random" tensor<3xf16>
  %2 = lazy.add %0, %0 : tensor<4xf32>
  return %2, %1 : tensor<4xf32>, tensor<3xf16>
}

// A const output has no buffer (no schedule item computes it, as in
// tinygrad); lazy-run reads it through lazy.contiguous, as .numpy() does,
// so it becomes a kernel.
// CONSTSCHED-LABEL: func.func @consts(
// CONSTSCHED-NOT: lazy.launch
// CONSTSCHED: return
// CONSTS: out0: match, max abs error 0.000000e+00 (float)
// CONSTS: out1: match, max abs error 0{{.*}} (int)
// CONSTS: all outputs match
func.func @consts() -> (tensor<4xf32>, tensor<2x3xsi32>) {
  %c = lazy.const 2.5 : tensor<f32>
  %v = lazy.view %c as <[(4):(0)]> : tensor<f32> -> tensor<4xf32>
  %i = lazy.const 7 : tensor<2x3xsi32>
  return %v, %i : tensor<4xf32>, tensor<2x3xsi32>
}

// Two launches of one shared kernel, on different buffers: each computes
// its own output on the CPU and through the GPU lowering.
// SHAREDSCHED: lazy.kernel @[[K:shared_k[0-9]+]](
// SHAREDSCHED-NOT: lazy.kernel @shared_k
// SHAREDSCHED: func.func @shared
// SHAREDSCHED-COUNT-2: lazy.launch @[[K]] outs
// SHARED: out0: match
// SHARED: out1: match
// SHARED: all outputs match
func.func @shared(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = lazy.exp2 %a : tensor<8xf32>
  %1 = lazy.exp2 %b : tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

// A value an earlier schedule produced (lazy.seen) is scheduled here too,
// with a note: lazy-run runs the whole graph, as the interpreter does.
// SEEN: lazy-run: note: 1 value(s) marked lazy.seen (produced by an earlier schedule) are scheduled here too
// SEEN: out0: match
// SEEN: all outputs match
func.func @seen(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %s = lazy.add %x, %y {lazy.seen, lazy.forced_realize} : tensor<4xf32>
  %m = lazy.mul %s, %s : tensor<4xf32>
  return %m : tensor<4xf32>
}

// One multi-output kernel assigns b and writes c from the same value, which
// reads b: c gets b's old contents on every device.
// ASSIGNTWO: out0: match
// ASSIGNTWO: out1: match
// ASSIGNTWO: all outputs match
func.func @assign_two(%a: tensor<4x4xf32>, %b: tensor<4x1xf32>, %c: tensor<4x1xf32>) -> (tensor<4x1xf32>, tensor<4x1xf32>) {
  %r = lazy.reduce_sum %a axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  %s = lazy.add %r, %b : tensor<4x1xf32>
  %x = lazy.assign %s to %b : tensor<4x1xf32>, tensor<4x1xf32>
  %y = lazy.assign %s to %c : tensor<4x1xf32>, tensor<4x1xf32>
  return %x, %y : tensor<4x1xf32>, tensor<4x1xf32>
}

// A graph whose name starts as ExecutionEngine's packed wrappers do: its
// kernels (_mlir_g_k0, _mlir_g_k1, compiled in two engines) are not
// wrappers to drop.
// MLIRNAMED: out0: match
// MLIRNAMED: out1: match
// MLIRNAMED: all outputs match
func.func @_mlir_g(%x: tensor<64xf32>) -> (tensor<1xf32>, tensor<1xf32>) {
  %s = lazy.reduce_sum %x axes [0] : tensor<64xf32> -> tensor<1xf32>
  %c = lazy.contiguous %s : tensor<1xf32>
  %e = lazy.exp2 %x : tensor<64xf32>
  %m = lazy.reduce_max %e axes [0] : tensor<64xf32> -> tensor<1xf32>
  return %c, %m : tensor<1xf32>, tensor<1xf32>
}
