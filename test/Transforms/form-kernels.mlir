// RUN: lazy-opt %s --lazy-form-kernels --split-input-file --verify-diagnostics | FileCheck %s
// One function per rule of lazy-form-kernels (tinygrad's _lower_lazybuffer).

// A reduce and its elementwise children form one kernel: outputs first,
// inputs numbered by first use, consts as views of a const, every output
// stored in reduce space, the fused ops' names as metadata.
// CHECK-LABEL: lazy.kernel @reduce_kernel_k0
// CHECK-SAME: (%[[OUT:.+]]: !lazy.buffer<4xf32>, %[[A:.+]]: !lazy.buffer<16xf32>, %[[B:.+]]: !lazy.buffer<4xf32>)
// CHECK-SAME: metadata = ["sum", "__mul__", "__add__"], num_outputs = 1
// CHECK-NEXT: %[[X:.+]] = lazy.load %[[A]] as <[(4, 4):(4, 1)]>
// CHECK-NEXT: %[[S:.+]] = lazy.reduce_sum %[[X]] axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %[[C:.+]] = lazy.const 2.000000e+00 : tensor<f32>
// CHECK-NEXT: %[[CV:.+]] = lazy.view %[[C]] as <[(4, 1):(0, 0)]>
// CHECK-NEXT: %[[M:.+]] = lazy.mul %[[S]], %[[CV]]
// CHECK-NEXT: %[[Y:.+]] = lazy.load %[[B]] as <[(4, 1):(1, 0)]>
// CHECK-NEXT: %[[R:.+]] = lazy.add %[[M]], %[[Y]]
// CHECK-NEXT: lazy.store %[[R]], %[[OUT]] as <[(4, 1):(1, 0)]>
// CHECK: func.func @reduce_kernel(%[[FA:.+]]: !lazy.buffer<16xf32>, %[[FB:.+]]: !lazy.buffer<4xf32>) -> !lazy.buffer<4xf32>
// CHECK: %[[ALLOC:.+]] = lazy.alloc : !lazy.buffer<4xf32>
// CHECK: lazy.launch @reduce_kernel_k0 outs(%[[ALLOC]] : !lazy.buffer<4xf32>) ins(%[[FA]], %[[FB]] :
func.func @reduce_kernel(%a: tensor<4x4xf32>, %b: tensor<4x1xf32>) -> tensor<4x1xf32> {
  %0 = lazy.reduce_sum %a axes [1] : tensor<4x4xf32> -> tensor<4x1xf32> loc("sum")
  %c = lazy.const 2.0 : tensor<f32>
  %cv = lazy.view %c as <[(4, 1):(0, 0)]> : tensor<f32> -> tensor<4x1xf32>
  %1 = lazy.mul %0, %cv : tensor<4x1xf32> loc("__mul__")
  %2 = lazy.add %1, %b : tensor<4x1xf32> loc("__add__")
  return %2 : tensor<4x1xf32>
}

// -----

// An output read through a reshape of a reduce is stored in reduce space,
// not in its own shape.
// CHECK-LABEL: lazy.kernel @reduce_space_k0
// CHECK: lazy.exp2 %{{.+}} : tensor<4x1xf32>
// CHECK-NEXT: lazy.store %{{.+}}, %{{.+}} as <[(4, 1):(1, 0)]> : tensor<4x1xf32>, !lazy.buffer<4xf32>
func.func @reduce_space(%a: tensor<4x4xf32>) -> tensor<1x4xf32> {
  %0 = lazy.reduce_sum %a axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  %1 = lazy.view %0 as <[(1, 4):(0, 1)]> : tensor<4x1xf32> -> tensor<1x4xf32>
  %2 = lazy.exp2 %1 : tensor<1x4xf32>
  return %2 : tensor<1x4xf32>
}

// -----

// copy, empty, custom and buffer_view become EXT items reading their
// sources' bases; a copy's arg is its byte count, a custom item keeps its
// callee and seed.
// CHECK-LABEL: func.func @ext_items
// CHECK: lazy.ext "copy" outs(%{{.+}} : !lazy.buffer<4xf32, #lazy.device<"CUDA">>) ins(%arg0 : !lazy.buffer<4xf32>) {arg = 16 : i64}
// CHECK: lazy.ext "empty" outs(%{{.+}} : !lazy.buffer<4xf32>)
// CHECK: lazy.ext "custom" outs(%{{.+}} : !lazy.buffer<4xf32>) {arg = "custom_random"}
// CHECK: lazy.ext "view" outs(%{{.+}} : !lazy.buffer<4xsi32>) ins(%arg0 : !lazy.buffer<4xf32>)
// CHECK: lazy.ext "custom" outs(%{{.+}} : !lazy.buffer<2xf16>) {arg = "custom_random", seed = 9 : i64}
// CHECK-NOT: lazy.kernel
func.func @ext_items(%a: tensor<4xf32>) -> (tensor<4xf32, #lazy.device<"CUDA">>, tensor<4xf32>, tensor<4xf32>, tensor<4xsi32>, tensor<2xf16>) {
  %0 = lazy.copy %a : tensor<4xf32> -> tensor<4xf32, #lazy.device<"CUDA">>
  %1 = lazy.empty : tensor<4xf32>
  %2 = lazy.custom "custom_random" tensor<4xf32>
  %3 = lazy.buffer_view %a : tensor<4xf32> -> tensor<4xsi32>
  %4 = lazy.custom "custom_random" {seed = 9 : i64} tensor<2xf16>
  return %0, %1, %2, %3, %4 : tensor<4xf32, #lazy.device<"CUDA">>, tensor<4xf32>, tensor<4xf32>, tensor<4xsi32>, tensor<2xf16>
}

// -----

// USE_COPY_KERNEL: a copy between devices of one type (CLANG to CLANG:1)
// is a kernel that moves the bytes as uint8; the launch passes the buffers
// as they are. A copy to another device type stays an EXT item.
// CHECK-LABEL: lazy.kernel @copy_kernel_k0
// CHECK-SAME: (%[[OUT:.+]]: !lazy.buffer<16xui8, #lazy.device<"CLANG:1">>, %[[IN:.+]]: !lazy.buffer<16xui8>)
// CHECK-NEXT: %[[B:.+]] = lazy.load %[[IN]] as <[(16):(1)]> : !lazy.buffer<16xui8> -> tensor<16xui8>
// CHECK-NEXT: lazy.store %[[B]], %[[OUT]] as <[(16):(1)]>
// CHECK: func.func @copy_kernel(%[[A:.+]]: !lazy.buffer<4xf32>)
// CHECK: lazy.launch @copy_kernel_k0 outs(%{{.+}} : !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>) ins(%[[A]] : !lazy.buffer<4xf32>)
// CHECK: lazy.ext "copy" outs(%{{.+}} : !lazy.buffer<4xf32, #lazy.device<"CUDA">>) ins(%[[A]] : !lazy.buffer<4xf32>) {arg = 16 : i64}
module attributes {lazy.default_device = "CLANG", lazy.flags = {use_copy_kernel = true}} {
  func.func @copy_kernel(%a: tensor<4xf32>) -> (tensor<4xf32, #lazy.device<"CLANG:1">>, tensor<4xf32, #lazy.device<"CUDA">>) {
    %0 = lazy.copy %a : tensor<4xf32> -> tensor<4xf32, #lazy.device<"CLANG:1">>
    %1 = lazy.copy %a : tensor<4xf32> -> tensor<4xf32, #lazy.device<"CUDA">>
    return %0, %1 : tensor<4xf32, #lazy.device<"CLANG:1">>, tensor<4xf32, #lazy.device<"CUDA">>
  }
}

// -----

// `lazy.external` marks a node Python still holds. It keeps alive what it
// reads unless the schedule realizes it: the held exp2 is fused (not
// realized), so the reduce it reads stays referenced and its buffer is
// external; the final reduce's buffer is not.
// CHECK-LABEL: func.func @held(
// CHECK-DAG: lazy.alloc : !lazy.buffer<1xf32>
// CHECK-DAG: lazy.alloc {lazy.external} : !lazy.buffer<4xf32>
func.func @held(%x: tensor<4x4xf32>) -> tensor<1x1xf32> {
  %r = lazy.reduce_sum %x axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  %e = lazy.exp2 %r {lazy.external} : tensor<4x1xf32>
  %s = lazy.reduce_sum %e axes [0] : tensor<4x1xf32> -> tensor<1x1xf32>
  return %s : tensor<1x1xf32>
}

// -----

// Without the mark nothing is external.
// CHECK-LABEL: func.func @not_held(
// CHECK-NOT: lazy.external
// CHECK: return
func.func @not_held(%x: tensor<4x4xf32>) -> tensor<1x1xf32> {
  %r = lazy.reduce_sum %x axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
  %e = lazy.exp2 %r : tensor<4x1xf32>
  %s = lazy.reduce_sum %e axes [0] : tensor<4x1xf32> -> tensor<1x1xf32>
  return %s : tensor<1x1xf32>
}

// -----

// A `lazy.seen` base is an earlier schedule's (tinygrad's `seen` set): no
// item computes it here, and a kernel that reads it takes that buffer as an
// input, marked external (the `seen` set references it).
// CHECK-LABEL: lazy.kernel @seen_read_k0
// CHECK-NOT: lazy.add
// CHECK: lazy.mul
// CHECK-LABEL: func.func @seen_read(
// CHECK: %[[SEEN:.+]] = lazy.alloc {lazy.external} : !lazy.buffer<4xf32>
// CHECK: lazy.launch @seen_read_k0 outs(%{{.+}} : !lazy.buffer<4xf32>) ins(%[[SEEN]] : !lazy.buffer<4xf32>)
// CHECK-NOT: lazy.launch
// CHECK: lazy.yield
func.func @seen_read(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %s = lazy.add %x, %y {lazy.seen, lazy.forced_realize} : tensor<4xf32>
  %m = lazy.mul %s, %s : tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

// An assign writes into its target's buffer and reads the old contents
// through its own output slot; nothing else is an input.
// CHECK-LABEL: lazy.kernel @assign_self_k0
// CHECK-SAME: (%[[OUT:.+]]: !lazy.buffer<16xf32>) attributes {num_outputs = 1 : i64}
// CHECK-NEXT: lazy.load %[[OUT]] as <[(4, 4):(4, 1)]>
// CHECK: func.func @assign_self(%[[T:.+]]: !lazy.buffer<16xf32>)
// CHECK: lazy.launch @assign_self_k0 outs(%[[T]] : !lazy.buffer<16xf32>)
func.func @assign_self(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c = lazy.const 1.0 : tensor<f32>
  %cv = lazy.view %c as <[(4, 4):(0, 0)]> : tensor<f32> -> tensor<4x4xf32>
  %0 = lazy.add %a, %cv : tensor<4x4xf32>
  %1 = lazy.assign %0 to %a : tensor<4x4xf32>, tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}

// -----

// An assign through a view stores through it, into the whole target.
// CHECK-LABEL: lazy.kernel @assign_view_k0
// CHECK-SAME: (%[[OUT:.+]]: !lazy.buffer<24xf32>, %{{.+}}: !lazy.buffer<12xf32>)
// CHECK: lazy.store %{{.+}}, %[[OUT]] as <[(4, 3):(6, 1) offset 1]> : tensor<4x3xf32>, !lazy.buffer<24xf32>
func.func @assign_view(%a: tensor<4x3xf32>, %t: tensor<4x6xf32>) -> tensor<4x3xf32> {
  %0 = lazy.exp2 %a : tensor<4x3xf32>
  %1 = lazy.assign %0 to %t view <[(4, 3):(6, 1) offset 1]> : tensor<4x3xf32>, tensor<4x6xf32>
  return %1 : tensor<4x3xf32>
}

// -----

// A result that is a view of its buffer keeps the view.
// CHECK-LABEL: func.func @result_view
// CHECK-SAME: -> (!lazy.buffer<16xf32> {lazy.result_view = #lazy.st<[(4, 4):(1, 4)]>})
func.func @result_view(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = lazy.exp2 %a : tensor<4x4xf32>
  %1 = lazy.view %0 as <[(4, 4):(1, 4)]> : tensor<4x4xf32> -> tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}

// -----

// A const output is never scheduled (as in tinygrad): its buffer is not
// written by any item.
// CHECK-LABEL: func.func @const_output
// CHECK: lazy.schedule -> !lazy.buffer<1xf32> {
// CHECK-NEXT: %[[B:.+]] = lazy.alloc : !lazy.buffer<1xf32>
// CHECK-NEXT: lazy.yield %[[B]]
func.func @const_output() -> tensor<f32> {
  %0 = lazy.const 1.0 : tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @assign_transposed(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %t = lazy.view %a as <[(4, 4):(1, 4)]> : tensor<4x4xf32> -> tensor<4x4xf32>
  %0 = lazy.add %a, %t : tensor<4x4xf32>
  // expected-error @+1 {{'lazy.assign' op self operand of augmented assign must be contiguous; help: read it through .contiguous() (a += a.T becomes a += a.T.contiguous())}}
  %1 = lazy.assign %0 to %a : tensor<4x4xf32>, tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}

// -----

// Reading the target as it is while writing it through a permuted view is
// scheduled as tinygrad schedules it (tinygrad checks only the read), with
// a warning: the kernel may read an element after overwriting it. The
// second group is launched from the first one's description, unlowered,
// and warns too. (@assign_self, reading and writing the target as it is,
// and @assign_view, writing through a view without reading the target, do
// not warn.)
// CHECK-LABEL: func.func @assign_order_dependent(
// CHECK-COUNT-2: lazy.launch @assign_order_dependent_k0
func.func @assign_order_dependent(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = lazy.add %a, %b : tensor<4x4xf32>
  // expected-warning @+1 {{'lazy.assign' op writes its target through a view other than the one the kernel reads it through: an element can be read after it was overwritten, so the result depends on the order the kernel runs in (tinygrad 0.9.2 schedules this too); read the target through .contiguous() to use its old values}}
  %1 = lazy.assign %0 to %a view <[(4, 4):(1, 4)]> : tensor<4x4xf32>, tensor<4x4xf32>
  %2 = lazy.add %c, %b : tensor<4x4xf32>
  // expected-warning @+1 {{'lazy.assign' op writes its target through a view other than the one the kernel reads it through}}
  %3 = lazy.assign %2 to %c view <[(4, 4):(1, 4)]> : tensor<4x4xf32>, tensor<4x4xf32>
  return %1, %3 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Items whose kernels would be identical launch one shared kernel, named
// after its first use. Metadata, a const's value or a buffer's type each
// make a kernel of its own.
// CHECK-LABEL: lazy.kernel @shared_k0
// CHECK-SAME: metadata = ["exp2"]
// CHECK-NEXT: lazy.load
// CHECK-NEXT: lazy.exp2
// CHECK-NEXT: lazy.store
// CHECK: lazy.kernel @shared_k1
// CHECK-SAME: metadata = ["other"]
// CHECK: lazy.kernel @shared_k2
// CHECK-SAME: %{{.+}}: !lazy.buffer<8xf32>
// CHECK: lazy.kernel @shared_k3
// CHECK: lazy.const 2.0
// CHECK: lazy.kernel @shared_k4
// CHECK: lazy.const 3.0
// CHECK-NOT: lazy.kernel
// CHECK: func.func @shared(%[[A:.+]]: !lazy.buffer<4xf32>, %[[B:.+]]: !lazy.buffer<4xf32>, %[[C:.+]]: !lazy.buffer<8xf32>)
// CHECK: lazy.launch @shared_k0 {{.*}} ins(%[[A]] :
// CHECK: lazy.launch @shared_k0 {{.*}} ins(%[[B]] :
// CHECK: lazy.launch @shared_k1 {{.*}} ins(%[[B]] :
// CHECK: lazy.launch @shared_k2 {{.*}} ins(%[[C]] :
// CHECK: lazy.launch @shared_k3 {{.*}} ins(%[[A]] :
// CHECK: lazy.launch @shared_k4 {{.*}} ins(%[[A]] :
// CHECK: lazy.launch @shared_k3 {{.*}} ins(%[[B]] :
func.func @shared(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<8xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = lazy.exp2 %a : tensor<4xf32> loc("exp2")
  %1 = lazy.exp2 %b : tensor<4xf32> loc("exp2")
  %2 = lazy.exp2 %b : tensor<4xf32> loc("other")
  %3 = lazy.exp2 %c : tensor<8xf32> loc("exp2")
  %c2 = lazy.const 2.0 : tensor<f32>
  %v2 = lazy.view %c2 as <[(4):(0)]> : tensor<f32> -> tensor<4xf32>
  %c3 = lazy.const 3.0 : tensor<f32>
  %v3 = lazy.view %c3 as <[(4):(0)]> : tensor<f32> -> tensor<4xf32>
  %4 = lazy.mul %a, %v2 : tensor<4xf32> loc("mul")
  %5 = lazy.mul %a, %v3 : tensor<4xf32> loc("mul")
  %6 = lazy.mul %b, %v2 : tensor<4xf32> loc("mul")
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Sharing is decided before lowering, from a description of each group
// (the ops, which buffers are the same, the views on the edges): a group
// described like an earlier one launches its kernel on its own buffers, in
// the order lowering would number them. Reading one buffer twice, or
// through another view, is another kernel.
// CHECK-LABEL: lazy.kernel @described_k0(
// CHECK-SAME: %{{.+}}: !lazy.buffer<4xf32>, %{{.+}}: !lazy.buffer<4xf32>)
// CHECK: lazy.kernel @described_k1(
// CHECK-SAME: %{{.+}}: !lazy.buffer<4xf32>, %{{.+}}: !lazy.buffer<4xf32>, %{{.+}}: !lazy.buffer<4xf32>)
// CHECK: lazy.kernel @described_k2(
// CHECK: lazy.kernel @described_k3(
// CHECK: lazy.load %{{.+}} as <[(2, 2):(1, 2)]>
// CHECK-NOT: lazy.kernel
// CHECK: func.func @described(%[[X:.+]]: !lazy.buffer<4xf32>, %[[Y:.+]]: !lazy.buffer<4xf32>)
// CHECK: lazy.launch @described_k0 {{.*}} ins(%[[X]] : !lazy.buffer<4xf32>)
// CHECK: lazy.launch @described_k1 {{.*}} ins(%[[X]], %[[Y]] :
// CHECK: lazy.launch @described_k0 {{.*}} ins(%[[Y]] : !lazy.buffer<4xf32>)
// CHECK: lazy.launch @described_k2 {{.*}} ins(%[[X]], %[[Y]] :
// CHECK: lazy.launch @described_k2 {{.*}} ins(%[[Y]], %[[X]] :
// CHECK: lazy.launch @described_k3 {{.*}} ins(%[[X]], %[[Y]] :
// CHECK: lazy.launch @described_k3 {{.*}} ins(%[[Y]], %[[X]] :
func.func @described(%x: tensor<2x2xf32>, %y: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %0 = lazy.mul %x, %x : tensor<2x2xf32> loc("mul")
  %1 = lazy.mul %x, %y : tensor<2x2xf32> loc("mul")
  %2 = lazy.mul %y, %y : tensor<2x2xf32> loc("mul")
  %3 = lazy.add %x, %y : tensor<2x2xf32> loc("add")
  %4 = lazy.add %y, %x : tensor<2x2xf32> loc("add")
  %yt = lazy.view %y as <[(2, 2):(1, 2)]> : tensor<2x2xf32> -> tensor<2x2xf32>
  %5 = lazy.add %x, %yt : tensor<2x2xf32> loc("add")
  %xt = lazy.view %x as <[(2, 2):(1, 2)]> : tensor<2x2xf32> -> tensor<2x2xf32>
  %6 = lazy.add %y, %xt : tensor<2x2xf32> loc("add")
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// fuse-conv-bw merges a reduce into the reduce it reads, keeping its axis
// numbers, in the inner reduce's input (as tinygrad 0.9.2 does). Through a
// reshape that renumbers them (@renumbered: axis 1 of the 4x4 view is the
// inner input's axis 2) the kernel sums other elements than the graph says:
// the schedule stays tinygrad's, with a warning, also for the second chain,
// launched from the first one's description. @kept reduces the same
// elements either way and does not warn. (Found by scripts/fuzz_compare.py
// --check-run: the reference interpreter disagreed with tinygrad.)
// CHECK-LABEL: lazy.kernel @renumbered_k0(
// CHECK: lazy.reduce_sum %{{.+}} axes [1, 0] : tensor<2x4x4xf32>
// CHECK-LABEL: func.func @renumbered(
// CHECK-COUNT-2: lazy.launch @renumbered_k0
// CHECK-LABEL: lazy.kernel @kept_k1(
// CHECK: lazy.reduce_sum %{{.+}} axes [1, 2] : tensor<4x4x4xf32>
module attributes {lazy.flags = {fuse_conv_bw = true}} {
  func.func @renumbered(%x: tensor<2x4x4xf32>, %y: tensor<2x4x4xf32>) -> (tensor<4x1xf32>, tensor<4x1xf32>) {
    %0 = lazy.reduce_sum %x axes [0] : tensor<2x4x4xf32> -> tensor<1x4x4xf32>
    %1 = lazy.view %0 as <[(4, 4):(4, 1)]> : tensor<1x4x4xf32> -> tensor<4x4xf32>
    // expected-warning @+1 {{'lazy.reduce_sum' op is merged into the reduce it reads (fuse-conv-bw) through a reshape that renumbers the reduced axes, so the kernel sums other elements than the graph says (tinygrad 0.9.2 computes the same); turn fuse-conv-bw off, or keep the inner reduce's dims (keepdim) so that the axes keep their numbers}}
    %2 = lazy.reduce_sum %1 axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
    %3 = lazy.reduce_sum %y axes [0] : tensor<2x4x4xf32> -> tensor<1x4x4xf32>
    %4 = lazy.view %3 as <[(4, 4):(4, 1)]> : tensor<1x4x4xf32> -> tensor<4x4xf32>
    // expected-warning @+1 {{'lazy.reduce_sum' op is computed by a kernel where a reduce is merged into the reduce it reads (fuse-conv-bw) through a reshape that renumbers the reduced axes}}
    %5 = lazy.reduce_sum %4 axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
    return %2, %5 : tensor<4x1xf32>, tensor<4x1xf32>
  }
  func.func @kept(%x: tensor<4x4x4xf32>) -> tensor<4x1xf32> {
    %0 = lazy.reduce_sum %x axes [2] : tensor<4x4x4xf32> -> tensor<4x4x1xf32>
    %1 = lazy.view %0 as <[(4, 4):(4, 1)]> : tensor<4x4x1xf32> -> tensor<4x4xf32>
    %2 = lazy.reduce_sum %1 axes [1] : tensor<4x4xf32> -> tensor<4x1xf32>
    return %2 : tensor<4x1xf32>
  }
}

// -----

// A reduce read through a padded view that is pushed into its input (here
// by fuse-conv-bw's merge): the RECIP in the input then runs on the
// padding's zeros, and the kernel sums inf where the graph has 0 (tinygrad
// 0.9.2: x.reciprocal().sum().reshape(1).pad(((1, 1),)).sum() is inf).
// The schedule stays tinygrad's, with a warning. Found by
// scripts/fuzz_compare.py --check-run, in a gradient.
// CHECK-LABEL: lazy.kernel @padded_unsafe_k0(
// CHECK: lazy.load %{{.+}} as <[(3, 4):(0, 1) mask [(1, 2), (0, 4)]]>
// CHECK-NEXT: lazy.recip
// CHECK-NEXT: lazy.reduce_sum %{{.+}} axes [0, 1]
module attributes {lazy.flags = {fuse_conv_bw = true}} {
  func.func @padded_unsafe(%x: tensor<4xf32>) -> tensor<1xf32> {
    %0 = lazy.recip %x : tensor<4xf32>
    // expected-warning @+1 {{'lazy.reduce_sum' op is read through a padded view that the kernel moves into the reduce's input, where an op that is not zero on zeros (recip, log2, exp2 or idiv) then runs in the padding: the padded elements do not read as 0 (recip(0) is inf, log2(0) -inf, exp2(0) 1, an idiv divides by zero; tinygrad 0.9.2 computes the same); realize the reduce first (.contiguous())}}
    %1 = lazy.reduce_sum %0 axes [0] : tensor<4xf32> -> tensor<1xf32>
    %2 = lazy.view %1 as <[(3):(0) mask [(1, 2)]]> : tensor<1xf32> -> tensor<3xf32>
    %3 = lazy.reduce_sum %2 axes [0] : tensor<3xf32> -> tensor<1xf32>
    return %3 : tensor<1xf32>
  }
  // The same without the RECIP: zeros in the padding sum to 0, no warning.
  func.func @padded_safe(%x: tensor<4xf32>) -> tensor<1xf32> {
    %0 = lazy.neg %x : tensor<4xf32>
    %1 = lazy.reduce_sum %0 axes [0] : tensor<4xf32> -> tensor<1xf32>
    %2 = lazy.view %1 as <[(3):(0) mask [(1, 2)]]> : tensor<1xf32> -> tensor<3xf32>
    %3 = lazy.reduce_sum %2 axes [0] : tensor<3xf32> -> tensor<1xf32>
    return %3 : tensor<1xf32>
  }
}

// -----

// An assign whose kernel reads the target through a buffer_view of it (a
// same-size bitcast of a realized buffer shares its memory), flipped:
// tinygrad's contiguity check sees no read of the target and schedules it,
// and the kernel may read elements it already overwrote. Warned; read in
// the store's own order through an exact alias (%b) it is safe and does
// not warn. (Found by scripts/fuzz_compare.py --check-run.)
// CHECK-LABEL: lazy.kernel @assign_through_alias_k0(
// CHECK: lazy.load %{{.+}} as <[(4):(-1) offset 3]>
// CHECK-LABEL: func.func @assign_through_alias(
// CHECK: lazy.launch @assign_through_alias_k0 outs(%arg0 : !lazy.buffer<4xf32>) ins(%[[ALIAS:.+]] : !lazy.buffer<4xf32>)
// CHECK: %[[ALIAS]] = lazy.ext "view"
func.func @assign_through_alias(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = lazy.buffer_view %a : tensor<4xf32> -> tensor<4xsi32>
  %1 = lazy.buffer_view %0 : tensor<4xsi32> -> tensor<4xf32>
  %2 = lazy.view %1 as <[(4):(-1) offset 3]> : tensor<4xf32> -> tensor<4xf32>
  // expected-warning @+1 {{'lazy.assign' op reads its target through a buffer_view, which shares its memory, in another order than it writes it: an element can be read after it was overwritten, so the result depends on the order the kernel runs in (tinygrad 0.9.2 schedules this too; its contiguity check does not see the alias); read the target through .contiguous() to use its old values}}
  %3 = lazy.assign %2 to %a : tensor<4xf32>, tensor<4xf32>
  %4 = lazy.buffer_view %b : tensor<4xf32> -> tensor<4xsi32>
  %5 = lazy.buffer_view %4 : tensor<4xsi32> -> tensor<4xf32>
  %6 = lazy.add %5, %5 : tensor<4xf32>
  %7 = lazy.assign %6 to %b : tensor<4xf32>, tensor<4xf32>
  return %3, %7 : tensor<4xf32>, tensor<4xf32>
}
