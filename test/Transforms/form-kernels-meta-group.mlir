// RUN: lazy-opt %s --lazy-schedule --split-input-file --verify-diagnostics
// A reduce's multi-output group can take in a meta op: here the buffer_view
// of one output of the sum, a kernel realized beside another output (found
// by scripts/fuzz_compare.py, seed 702936). No kernel computes a
// buffer_view; tinygrad 0.9.2 schedules the same group and then fails to
// run it ("can't copyout unallocated buffer"). lazy-form-kernels refuses
// it at the op, where it used to emit a kernel that failed verification.
func.func @buffer_view_in_reduce_group(%a: tensor<4xf32> {lazy.buffer = 0 : i64}) -> (tensor<1xf32>, tensor<1xf32>) {
  %s = lazy.reduce_sum %a axes [0] : tensor<4xf32> -> tensor<1xf32>
  %m = lazy.mul %s, %s : tensor<1xf32>
  // expected-error @+1 {{'lazy.buffer_view' op is grouped into one kernel with 2 other output(s), but no kernel computes it: tinygrad 0.9.2 schedules this too and then cannot run it (the op's buffer is never allocated); realize its source first, or schedule without multi-output}}
  %bv = lazy.buffer_view %m : tensor<1xf32> -> tensor<1xsi32>
  %back = lazy.buffer_view %bv : tensor<1xsi32> -> tensor<1xf32>
  %h = lazy.cast %s : tensor<1xf32> -> tensor<1xf16>
  %c = lazy.cast %h : tensor<1xf16> -> tensor<1xf32>
  return %back, %c : tensor<1xf32>, tensor<1xf32>
}

// -----

// A copy in a reduce's group (scripts/fuzz_compare.py, seed 913248: an
// elementwise function of a double sum sent to another device and back,
// then multiplied by another function of the sum). tinygrad 0.9.2 puts the COPY inside the kernel's AST and reports
// a cycle; lazy-form-kernels used to emit a kernel that failed
// verification ("a kernel body only loads, computes and stores").
func.func @copy_in_reduce_group(%a: tensor<4x4xf32> {lazy.buffer = 0 : i64}) -> tensor<1xf32> {
  %r0 = lazy.reduce_sum %a axes [0] : tensor<4x4xf32> -> tensor<1x4xf32>
  %r1 = lazy.reduce_sum %r0 axes [1] : tensor<1x4xf32> -> tensor<1x1xf32>
  %v = lazy.view %r1 as <[(1):(0)]> : tensor<1x1xf32> -> tensor<1xf32>
  %e = lazy.sqrt %v : tensor<1xf32>
  %n = lazy.neg %e : tensor<1xf32>
  %s = lazy.add %e, %n : tensor<1xf32>
  // expected-error @+1 {{'lazy.copy' op is grouped into one kernel with 2 other output(s), but no kernel computes it: tinygrad 0.9.2 schedules this too, as a copy inside the kernel that no device runs; realize its source first, or schedule without multi-output}}
  %c = lazy.copy %s : tensor<1xf32> -> tensor<1xf32, #lazy.device<"CLANG:1">>
  %m = lazy.mul %c, %c : tensor<1xf32, #lazy.device<"CLANG:1">>
  %b = lazy.copy %m : tensor<1xf32, #lazy.device<"CLANG:1">> -> tensor<1xf32>
  %l = lazy.log2 %e : tensor<1xf32>
  %o = lazy.mul %b, %l : tensor<1xf32>
  return %o : tensor<1xf32>
}
