// RUN: lazy-opt %s --split-input-file --lazy-schedule --lazy-print-schedule -o /dev/null | FileCheck %s --check-prefix=TINYGRAD
// RUN: lazy-opt %s --split-input-file "--lazy-schedule=fusion=aggressive" --lazy-print-schedule -o /dev/null | FileCheck %s --check-prefix=AGGRESSIVE
// RUN: sed 's/use_copy_kernel = false}/use_copy_kernel = false, fusion = "aggressive"}/' %s | lazy-opt --split-input-file --lazy-schedule --lazy-print-schedule -o /dev/null | FileCheck %s --check-prefix=AGGRESSIVE
// RUN: sed 's/use_copy_kernel = false}/use_copy_kernel = false, fusion = "aggressive"}/' %s | lazy-opt --split-input-file "--lazy-schedule=fusion=tinygrad" --lazy-print-schedule -o /dev/null | FileCheck %s --check-prefix=TINYGRAD
// lazy-group prints the plan's row values as lazy.row_value marks:
// RUN: lazy-opt %s --split-input-file "--lazy-group=fusion=aggressive" | FileCheck %s --check-prefix=MARKS
// fusion=aggressive (AggressiveFusion.cpp), given as the pipeline's option
// or in the module's lazy.flags (the option wins), against tinygrad's
// schedule of the same graphs.

// Rule 1: an elementwise base that tinygrad realizes only because a view
// expands it (y * 2 + 1, broadcast along the rows) is recomputed inside
// the two kernels that read it: one kernel fewer, fewer bytes. Read
// through views of twice its elements, its two ops run twice per element
// (rule 1 prices each extra run at kOpBytes; broadcast along 16 columns
// they would cost more than storing it).
// TINYGRAD-LABEL: schedule @recompute_expanded
// TINYGRAD: item 0 KERNEL outs=1 ins=1
// TINYGRAD: STORE 0 float [(8, 1):(1, 0)]
// TINYGRAD: item 2 KERNEL
// TINYGRAD: moved: 3 kernels, 352 bytes
// AGGRESSIVE-LABEL: schedule @recompute_expanded
// AGGRESSIVE: item 0 KERNEL outs=1 ins=2
// AGGRESSIVE-NEXT: n0 = LOAD 1 float [(8, 2):(2, 1)]
// AGGRESSIVE-NEXT: n1 = LOAD 2 float [(8, 2):(1, 0)]
// AGGRESSIVE-NEXT: n2 = CONST 2.0 float [(8, 2):(0, 0)]
// AGGRESSIVE-NEXT: n3 = MUL n1 n2
// AGGRESSIVE: n7 = SUM (1,) n6
// AGGRESSIVE: item 1 KERNEL outs=1 ins=2
// AGGRESSIVE: n3 = MUL n1 n2
// AGGRESSIVE: n6 = ADD n0 n5
// AGGRESSIVE-NEXT: STORE 0 float [(8, 2):(2, 1)] n6
// AGGRESSIVE-NEXT: moved: 2 kernels, 288 bytes
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @recompute_expanded(%x: tensor<8x2xf32>, %y: tensor<8x1xf32>) -> (tensor<8xf32>, tensor<8x2xf32>) {
    %0 = lazy.const 2.0 : tensor<f32>
    %1 = lazy.view %0 as <[(8, 1):(0, 0)]> : tensor<f32> -> tensor<8x1xf32>
    %2 = lazy.mul %y, %1 : tensor<8x1xf32>
    %3 = lazy.const 1.0 : tensor<f32>
    %4 = lazy.view %3 as <[(8, 1):(0, 0)]> : tensor<f32> -> tensor<8x1xf32>
    %5 = lazy.add %2, %4 : tensor<8x1xf32>
    %6 = lazy.view %5 as <[(8, 2):(1, 0)]> : tensor<8x1xf32> -> tensor<8x2xf32>
    %7 = lazy.mul %x, %6 : tensor<8x2xf32>
    %8 = lazy.reduce_sum %7 axes [1] : tensor<8x2xf32> -> tensor<8x1xf32>
    %9 = lazy.view %8 as <[(8):(1)]> : tensor<8x1xf32> -> tensor<8xf32>
    %10 = lazy.add %x, %6 : tensor<8x2xf32>
    return %9, %10 : tensor<8xf32>, tensor<8x2xf32>
  }
}

// -----

// Rule 1 keeps a base that is also an output: its buffer is needed anyway.
// TINYGRAD-LABEL: schedule @expanded_output
// TINYGRAD: moved: 2 kernels
// AGGRESSIVE-LABEL: schedule @expanded_output
// AGGRESSIVE: moved: 2 kernels
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @expanded_output(%x: tensor<8x16xf32>, %y: tensor<8x1xf32>) -> (tensor<8x1xf32>, tensor<8xf32>) {
    %0 = lazy.exp2 %y : tensor<8x1xf32>
    %1 = lazy.view %0 as <[(8, 16):(1, 0)]> : tensor<8x1xf32> -> tensor<8x16xf32>
    %2 = lazy.mul %x, %1 : tensor<8x16xf32>
    %3 = lazy.reduce_sum %2 axes [1] : tensor<8x16xf32> -> tensor<8x1xf32>
    %4 = lazy.view %3 as <[(8):(1)]> : tensor<8x1xf32> -> tensor<8xf32>
    return %0, %4 : tensor<8x1xf32>, tensor<8xf32>
  }
}

// -----

// Rule 1 keeps a base whose recomputation would read more bytes than its
// buffer saves: here a (64, 1) base computed from three (64, 1) buffers
// operands is read by three consumers: storing it moves 1792 bytes,
// recomputing 2304. (The three reduces then share a kernel: rule 4.)
// TINYGRAD-LABEL: schedule @costly_recompute
// TINYGRAD: moved: 4 kernels
// AGGRESSIVE-LABEL: schedule @costly_recompute
// AGGRESSIVE: item 0 KERNEL outs=1 ins=3
// AGGRESSIVE: STORE 0 float [(64, 1):(1, 0)]
// AGGRESSIVE-NEXT: item 1 KERNEL outs=3 ins=2
// AGGRESSIVE: moved: 2 kernels
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @costly_recompute(%a: tensor<64x1xf32>, %b: tensor<64x1xf32>, %c: tensor<64x1xf32>, %x: tensor<64x8xf32>) -> (tensor<64x1xf32>, tensor<64x1xf32>, tensor<64x1xf32>) {
    %0 = lazy.add %a, %b : tensor<64x1xf32>
    %1 = lazy.mul %0, %c : tensor<64x1xf32>
    %2 = lazy.view %1 as <[(64, 8):(1, 0)]> : tensor<64x1xf32> -> tensor<64x8xf32>
    %3 = lazy.mul %x, %2 : tensor<64x8xf32>
    %4 = lazy.reduce_sum %3 axes [1] : tensor<64x8xf32> -> tensor<64x1xf32>
    %5 = lazy.add %x, %2 : tensor<64x8xf32>
    %6 = lazy.reduce_max %5 axes [1] : tensor<64x8xf32> -> tensor<64x1xf32>
    %9 = lazy.max %x, %2 : tensor<64x8xf32>
    %10 = lazy.reduce_sum %9 axes [1] : tensor<64x8xf32> -> tensor<64x1xf32>
    return %4, %6, %10 : tensor<64x1xf32>, tensor<64x1xf32>, tensor<64x1xf32>
  }
}

// -----

// Rule 1 keeps a base that an op unsafe to pad computes when a consumer
// reads it through a pad: recomputed there, the padding would read
// recip(0) = inf instead of 0.
// TINYGRAD-LABEL: schedule @unsafe_padded
// TINYGRAD: moved: 2 kernels
// AGGRESSIVE-LABEL: schedule @unsafe_padded
// AGGRESSIVE: item 0 KERNEL outs=1 ins=1
// AGGRESSIVE-NEXT: n0 = LOAD 1 float
// AGGRESSIVE-NEXT: n1 = RECIP n0
// AGGRESSIVE: moved: 2 kernels
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @unsafe_padded(%y: tensor<4x1xf32>) -> tensor<4x1xf32> {
    %0 = lazy.recip %y : tensor<4x1xf32>
    %1 = lazy.view %0 as <[(4, 10):(1, 0) mask [(0, 4), (1, 9)]]> : tensor<4x1xf32> -> tensor<4x10xf32>
    %2 = lazy.reduce_sum %1 axes [1] : tensor<4x10xf32> -> tensor<4x1xf32>
    return %2 : tensor<4x1xf32>
  }
}

// -----

// Rules 1 and 2 together: the product is inlined into the padded sum
// (rule 1), so the pad reaches the contiguous recip through it; that one
// stays realized (recip(0) would read inf in the padding), the contiguous
// rule notwithstanding.
// TINYGRAD-LABEL: schedule @pad_through_inlined
// TINYGRAD: moved: 3 kernels
// AGGRESSIVE-LABEL: schedule @pad_through_inlined
// AGGRESSIVE: item 0 KERNEL outs=1 ins=1
// AGGRESSIVE-NEXT: n0 = LOAD 1 float [(4):(1)]
// AGGRESSIVE-NEXT: n1 = RECIP n0
// AGGRESSIVE: item 1 KERNEL outs=1 ins=2
// AGGRESSIVE: n2 = MUL n0 n1
// AGGRESSIVE: moved: 2 kernels
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @pad_through_inlined(%a: tensor<4xf32>) -> tensor<2x1xf32> {
    %0 = lazy.recip %a : tensor<4xf32>
    %1 = lazy.contiguous %0 : tensor<4xf32>
    %2 = lazy.mul %1, %a : tensor<4xf32>
    %3 = lazy.view %2 as <[(2, 6):(0, 1) offset -1 mask [(0, 2), (1, 5)]]> : tensor<4xf32> -> tensor<2x6xf32>
    %4 = lazy.reduce_sum %3 axes [1] : tensor<2x6xf32> -> tensor<2x1xf32>
    return %4 : tensor<2x1xf32>
  }
}

// -----

// Rule 2: a contiguous that no output needs (an optimizer's fresh zero
// state) is recomputed where it is read: no kernel fills it.
// TINYGRAD-LABEL: schedule @fresh_state
// TINYGRAD: item 0 KERNEL outs=1 ins=0
// TINYGRAD: moved: 2 kernels
// AGGRESSIVE-LABEL: schedule @fresh_state
// AGGRESSIVE: item 0 KERNEL outs=1 ins=1
// AGGRESSIVE: moved: 1 kernels
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @fresh_state(%g: tensor<16xf32>) -> tensor<16xf32> {
    %0 = lazy.const 0.0 : tensor<f32>
    %1 = lazy.view %0 as <[(16):(0)]> : tensor<f32> -> tensor<16xf32>
    %2 = lazy.contiguous %1 : tensor<16xf32>
    %3 = lazy.const 0.9 : tensor<f32>
    %4 = lazy.view %3 as <[(16):(0)]> : tensor<f32> -> tensor<16xf32>
    %5 = lazy.mul %2, %4 : tensor<16xf32>
    %6 = lazy.add %5, %g : tensor<16xf32>
    return %6 : tensor<16xf32>
  }
}

// -----

// Rule 3: tinygrad stores a matmul by itself when its child reads it
// transposed; aggressive fusion computes it inside the child's kernel
// (the transpose pushed into the reduce's input).
// TINYGRAD-LABEL: schedule @transposed_epilogue
// TINYGRAD: item 0 KERNEL outs=1 ins=2
// TINYGRAD: STORE 0 float [(8, 4, 1):(4, 1, 0)]
// TINYGRAD: moved: 2 kernels, 1280 bytes
// AGGRESSIVE-LABEL: schedule @transposed_epilogue
// AGGRESSIVE: item 0 KERNEL outs=1 ins=3
// AGGRESSIVE: SUM (2,)
// AGGRESSIVE: STORE 0 float [(4, 8, 1):(8, 1, 0)]
// AGGRESSIVE-NEXT: moved: 1 kernels, 1024 bytes
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @transposed_epilogue(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = lazy.view %a as <[(8, 4, 16):(16, 0, 1)]> : tensor<8x16xf32> -> tensor<8x4x16xf32>
    %1 = lazy.view %b as <[(8, 4, 16):(0, 1, 4)]> : tensor<16x4xf32> -> tensor<8x4x16xf32>
    %2 = lazy.mul %0, %1 : tensor<8x4x16xf32>
    %3 = lazy.reduce_sum %2 axes [2] : tensor<8x4x16xf32> -> tensor<8x4x1xf32>
    %4 = lazy.view %3 as <[(4, 8):(1, 4)]> : tensor<8x4x1xf32> -> tensor<4x8xf32>
    %5 = lazy.add %4, %c : tensor<4x8xf32>
    return %5 : tensor<4x8xf32>
  }
}

// -----

// Rule 3 leaves a reduce that is also an output stored: the transposed
// add still reads it back.
// TINYGRAD-LABEL: schedule @transposed_output
// TINYGRAD: moved: 2 kernels, 1280 bytes
// AGGRESSIVE-LABEL: schedule @transposed_output
// AGGRESSIVE: item 1 KERNEL outs=1 ins=2
// AGGRESSIVE-NEXT: n0 = LOAD 1 float [(4, 8):(1, 4)]
// AGGRESSIVE: moved: 2 kernels, 1280 bytes
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @transposed_output(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<4x8xf32>) -> (tensor<8x4x1xf32>, tensor<4x8xf32>) {
    %0 = lazy.view %a as <[(8, 4, 16):(16, 0, 1)]> : tensor<8x16xf32> -> tensor<8x4x16xf32>
    %1 = lazy.view %b as <[(8, 4, 16):(0, 1, 4)]> : tensor<16x4xf32> -> tensor<8x4x16xf32>
    %2 = lazy.mul %0, %1 : tensor<8x4x16xf32>
    %3 = lazy.reduce_sum %2 axes [2] : tensor<8x4x16xf32> -> tensor<8x4x1xf32>
    %4 = lazy.view %3 as <[(4, 8):(1, 4)]> : tensor<8x4x1xf32> -> tensor<4x8xf32>
    %5 = lazy.add %4, %c : tensor<4x8xf32>
    return %3, %5 : tensor<8x4x1xf32>, tensor<4x8xf32>
  }
}

// -----

// Rule 4: two reduces of one reduce space that read the same buffers
// become one kernel with two stores, reading each buffer once.
// TINYGRAD-LABEL: schedule @siblings
// TINYGRAD: moved: 2 kernels, 2112 bytes
// AGGRESSIVE-LABEL: schedule @siblings
// AGGRESSIVE: item 0 KERNEL outs=2 ins=2
// AGGRESSIVE: n3 = SUM (1,) n2
// AGGRESSIVE-NEXT: STORE 0 float [(8, 1):(1, 0)] n3
// AGGRESSIVE: n5 = MAX (1,) n4
// AGGRESSIVE-NEXT: STORE 1 float [(8, 1):(1, 0)] n5
// AGGRESSIVE-NEXT: moved: 1 kernels, 1088 bytes
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @siblings(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>) -> (tensor<8x1xf32>, tensor<8x1xf32>) {
    %0 = lazy.mul %x, %y : tensor<8x16xf32>
    %1 = lazy.reduce_sum %0 axes [1] : tensor<8x16xf32> -> tensor<8x1xf32>
    %2 = lazy.add %x, %y : tensor<8x16xf32>
    %3 = lazy.reduce_max %2 axes [1] : tensor<8x16xf32> -> tensor<8x1xf32>
    return %1, %3 : tensor<8x1xf32>, tensor<8x1xf32>
  }
}

// -----

// Rule 4 leaves a reduce that reads its sibling (through the expand) in
// its own kernel: merged, the kernel would read what it writes.
// TINYGRAD-LABEL: schedule @dependent_siblings
// TINYGRAD: moved: 2 kernels
// AGGRESSIVE-LABEL: schedule @dependent_siblings
// AGGRESSIVE: moved: 2 kernels
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @dependent_siblings(%x: tensor<8x16xf32>) -> (tensor<8x1xf32>, tensor<8x1xf32>) {
    %0 = lazy.reduce_max %x axes [1] : tensor<8x16xf32> -> tensor<8x1xf32>
    %1 = lazy.view %0 as <[(8, 16):(1, 0)]> : tensor<8x1xf32> -> tensor<8x16xf32>
    %2 = lazy.add %x, %1 : tensor<8x16xf32>
    %3 = lazy.reduce_sum %2 axes [1] : tensor<8x16xf32> -> tensor<8x1xf32>
    return %0, %3 : tensor<8x1xf32>, tensor<8x1xf32>
  }
}

// -----

// Rule 5a: a softmax's max and sum, which tinygrad stores in kernels of
// their own, are row values of the output kernel: computed once per row
// (max, then the sum that reads it) and read through their expands.
// TINYGRAD-LABEL: schedule @softmax
// TINYGRAD: moved: 3 kernels, 2208 bytes
// AGGRESSIVE-LABEL: schedule @softmax
// AGGRESSIVE: item 0 KERNEL outs=1 ins=1
// AGGRESSIVE-NEXT: n0 = LOAD 1 float [(8, 16):(16, 1)]
// AGGRESSIVE-NEXT: n1 = MAX (1,) n0
// AGGRESSIVE-NEXT: n2 = VIEW [(8, 16):(1, 0)] n1
// AGGRESSIVE-NEXT: n3 = NEG n2
// AGGRESSIVE-NEXT: n4 = ADD n0 n3
// AGGRESSIVE-NEXT: n5 = EXP2 n4
// AGGRESSIVE-NEXT: n6 = SUM (1,) n5
// AGGRESSIVE-NEXT: n7 = VIEW [(8, 16):(1, 0)] n6
// AGGRESSIVE-NEXT: n8 = RECIP n7
// AGGRESSIVE-NEXT: n9 = MUL n5 n8
// AGGRESSIVE-NEXT: STORE 0 float [(8, 16):(16, 1)] n9
// AGGRESSIVE-NEXT: moved: 1 kernels, 1024 bytes
// MARKS-LABEL: func.func @softmax
// MARKS: lazy.reduce_max {{.*}} {lazy.row_value}
// MARKS: lazy.reduce_sum {{.*}} {lazy.row_value}
// MARKS: lazy.mul {{.*}} {lazy.group = 0 : i64, lazy.realize = 0 : i64}
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @softmax(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %m = lazy.reduce_max %x axes [1] : tensor<8x16xf32> -> tensor<8x1xf32>
    %mv = lazy.view %m as <[(8, 16):(1, 0)]> : tensor<8x1xf32> -> tensor<8x16xf32>
    %n = lazy.neg %mv : tensor<8x16xf32>
    %d = lazy.add %x, %n : tensor<8x16xf32>
    %e = lazy.exp2 %d : tensor<8x16xf32>
    %s = lazy.reduce_sum %e axes [1] : tensor<8x16xf32> -> tensor<8x1xf32>
    %sv = lazy.view %s as <[(8, 16):(1, 0)]> : tensor<8x1xf32> -> tensor<8x16xf32>
    %r = lazy.recip %sv : tensor<8x16xf32>
    %o = lazy.mul %e, %r : tensor<8x16xf32>
    return %o : tensor<8x16xf32>
  }
}

// -----

// Rule 5a on a layernorm: the mean (a sum times 1/16) and 1/std (which
// reads the mean) are row values; a value computed from a reduce by
// elementwise ops is one too.
// TINYGRAD-LABEL: schedule @layernorm
// TINYGRAD: moved: 3 kernels
// AGGRESSIVE-LABEL: schedule @layernorm
// AGGRESSIVE: item 0 KERNEL outs=1 ins=1
// AGGRESSIVE: n3 = MUL n1 n2
// AGGRESSIVE-NEXT: n4 = VIEW [(8, 16):(1, 0)] n3
// AGGRESSIVE: n8 = SUM (1,) n7
// AGGRESSIVE: n11 = RECIP n10
// AGGRESSIVE-NEXT: n12 = VIEW [(8, 16):(1, 0)] n11
// AGGRESSIVE-NEXT: n13 = MUL n6 n12
// AGGRESSIVE-NEXT: STORE 0 float [(8, 16):(16, 1)] n13
// AGGRESSIVE-NEXT: moved: 1 kernels, 1024 bytes
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @layernorm(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %c = lazy.const 0.0625 : tensor<f32>
    %cv = lazy.view %c as <[(8, 1):(0, 0)]> : tensor<f32> -> tensor<8x1xf32>
    %s = lazy.reduce_sum %x axes [1] : tensor<8x16xf32> -> tensor<8x1xf32>
    %mean = lazy.mul %s, %cv : tensor<8x1xf32>
    %mv = lazy.view %mean as <[(8, 16):(1, 0)]> : tensor<8x1xf32> -> tensor<8x16xf32>
    %n = lazy.neg %mv : tensor<8x16xf32>
    %y = lazy.add %x, %n : tensor<8x16xf32>
    %yy = lazy.mul %y, %y : tensor<8x16xf32>
    %s2 = lazy.reduce_sum %yy axes [1] : tensor<8x16xf32> -> tensor<8x1xf32>
    %var = lazy.mul %s2, %cv : tensor<8x1xf32>
    %rs = lazy.sqrt %var : tensor<8x1xf32>
    %rr = lazy.recip %rs : tensor<8x1xf32>
    %rv = lazy.view %rr as <[(8, 16):(1, 0)]> : tensor<8x1xf32> -> tensor<8x16xf32>
    %o = lazy.mul %y, %rv : tensor<8x16xf32>
    return %o : tensor<8x16xf32>
  }
}

// -----

// Rule 5b: the row max is read by a row sum (per row) and by a column sum
// (along the rows it varies over: not per row), so it stays stored, by
// the row sum's kernel, whose output has its shape: two kernels, not
// three.
// TINYGRAD-LABEL: schedule @stored_row_value
// TINYGRAD: moved: 3 kernels
// AGGRESSIVE-LABEL: schedule @stored_row_value
// AGGRESSIVE: item 0 KERNEL outs=2 ins=1
// AGGRESSIVE-NEXT: n0 = LOAD 2 float [(8, 16):(16, 1)]
// AGGRESSIVE-NEXT: n1 = MAX (1,) n0
// AGGRESSIVE-NEXT: n2 = VIEW [(8, 16):(1, 0)] n1
// AGGRESSIVE: n5 = SUM (1,) n4
// AGGRESSIVE-NEXT: STORE 0 float [(8, 1):(1, 0)] n5
// AGGRESSIVE-NEXT: STORE 1 float [(8, 1):(1, 0)] n1
// AGGRESSIVE-NEXT: item 1 KERNEL outs=1 ins=2
// AGGRESSIVE: n1 = LOAD 2 float [(8, 16):(1, 0)]
// AGGRESSIVE: n4 = SUM (0,) n3
// AGGRESSIVE: moved: 2 kernels
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @stored_row_value(%x: tensor<8x16xf32>) -> (tensor<8x1xf32>, tensor<1x16xf32>) {
    %m = lazy.reduce_max %x axes [1] : tensor<8x16xf32> -> tensor<8x1xf32>
    %mv = lazy.view %m as <[(8, 16):(1, 0)]> : tensor<8x1xf32> -> tensor<8x16xf32>
    %n = lazy.neg %mv : tensor<8x16xf32>
    %d = lazy.add %x, %n : tensor<8x16xf32>
    %rows = lazy.reduce_sum %d axes [1] : tensor<8x16xf32> -> tensor<8x1xf32>
    %cols = lazy.reduce_sum %d axes [0] : tensor<8x16xf32> -> tensor<1x16xf32>
    return %rows, %cols : tensor<8x1xf32>, tensor<1x16xf32>
  }
}

// -----

// Rule 5 leaves a value its only reader reads along its own reduce axis:
// computed there, it would be computed again for every output.
// TINYGRAD-LABEL: schedule @read_along_reduce
// TINYGRAD: moved: 2 kernels
// AGGRESSIVE-LABEL: schedule @read_along_reduce
// AGGRESSIVE-NOT: VIEW
// AGGRESSIVE: moved: 2 kernels
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @read_along_reduce(%x: tensor<8x16xf32>) -> tensor<1x16xf32> {
    %m = lazy.reduce_max %x axes [1] : tensor<8x16xf32> -> tensor<8x1xf32>
    %mv = lazy.view %m as <[(8, 16):(1, 0)]> : tensor<8x1xf32> -> tensor<8x16xf32>
    %n = lazy.neg %mv : tensor<8x16xf32>
    %d = lazy.add %x, %n : tensor<8x16xf32>
    %cols = lazy.reduce_sum %d axes [0] : tensor<8x16xf32> -> tensor<1x16xf32>
    return %cols : tensor<1x16xf32>
  }
}

// -----

// Rule 4 leaves a row kernel alone: y's kernel computes the row max as a
// row value, which is no reduce space the row sum's kernel could share
// (merged, y would be stored through the sum's (8, 1) view).
// TINYGRAD-LABEL: schedule @row_kernel_no_sibling
// TINYGRAD: moved: 3 kernels
// AGGRESSIVE-LABEL: schedule @row_kernel_no_sibling
// AGGRESSIVE: item 0 KERNEL outs=1 ins=1
// AGGRESSIVE: STORE 0 float [(8, 16):(16, 1)]
// AGGRESSIVE: item 1 KERNEL outs=1 ins=1
// AGGRESSIVE: STORE 0 float [(8, 1):(1, 0)]
// AGGRESSIVE-NEXT: moved: 2 kernels
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @row_kernel_no_sibling(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x1xf32>) {
    %m = lazy.reduce_max %x axes [1] : tensor<8x16xf32> -> tensor<8x1xf32>
    %mv = lazy.view %m as <[(8, 16):(1, 0)]> : tensor<8x1xf32> -> tensor<8x16xf32>
    %n = lazy.neg %mv : tensor<8x16xf32>
    %y = lazy.add %x, %n : tensor<8x16xf32>
    %s = lazy.reduce_sum %x axes [1] : tensor<8x16xf32> -> tensor<8x1xf32>
    return %y, %s : tensor<8x16xf32>, tensor<8x1xf32>
  }
}

// -----

// Rule 5b stores no row value in a reader when a reader of it holds an
// assign or reads an assign's target: the column sum reads t's old
// contents (so runs before the assign) and the row sum reads the assign's
// result, so storing the max in the row sum's kernel would close a cycle
// through the assign's ordering edge. The max keeps its own kernel.
// TINYGRAD-LABEL: schedule @stored_row_value_and_assign
// TINYGRAD: moved: 4 kernels
// AGGRESSIVE-LABEL: schedule @stored_row_value_and_assign
// AGGRESSIVE: item 0 KERNEL outs=1 ins=1
// AGGRESSIVE-NEXT: n0 = LOAD 1 float [(8, 16):(16, 1)]
// AGGRESSIVE-NEXT: n1 = MAX (1,) n0
// AGGRESSIVE-NEXT: STORE 0 float [(8, 1):(1, 0)] n1
// AGGRESSIVE: moved: 4 kernels
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @stored_row_value_and_assign(%x: tensor<8x16xf32>, %t: tensor<8x1xf32>, %y: tensor<8x1xf32>) -> (tensor<8x1xf32>, tensor<1x16xf32>, tensor<8x1xf32>) {
    %b = lazy.reduce_max %x axes [1] : tensor<8x16xf32> -> tensor<8x1xf32>
    %bv = lazy.view %b as <[(8, 16):(1, 0)]> : tensor<8x1xf32> -> tensor<8x16xf32>
    %nb = lazy.neg %bv : tensor<8x16xf32>
    %d = lazy.add %x, %nb : tensor<8x16xf32>
    %c1 = lazy.const 1.0 : tensor<f32>
    %c1v = lazy.view %c1 as <[(8, 1):(0, 0)]> : tensor<f32> -> tensor<8x1xf32>
    %y1 = lazy.add %y, %c1v : tensor<8x1xf32>
    %a = lazy.assign %y1 to %t : tensor<8x1xf32>, tensor<8x1xf32>
    %rs = lazy.reduce_sum %d axes [1] : tensor<8x16xf32> -> tensor<8x1xf32>
    %r = lazy.add %rs, %a : tensor<8x1xf32>
    %tv = lazy.view %t as <[(8, 16):(1, 0)]> : tensor<8x1xf32> -> tensor<8x16xf32>
    %dt = lazy.mul %d, %tv : tensor<8x16xf32>
    %r2 = lazy.reduce_sum %dt axes [0] : tensor<8x16xf32> -> tensor<1x16xf32>
    return %r, %r2, %a : tensor<8x1xf32>, tensor<1x16xf32>, tensor<8x1xf32>
  }
}

// -----

// Rule 5 never puts values that vary along different axes in one kernel:
// the row max (along i) and the column max (along j) would each be
// computed again for every element. The column max (decided first)
// becomes a row value; the row max keeps its kernel.
// TINYGRAD-LABEL: schedule @crossed_row_values
// TINYGRAD: moved: 3 kernels
// AGGRESSIVE-LABEL: schedule @crossed_row_values
// AGGRESSIVE: item 0 KERNEL outs=1 ins=1
// AGGRESSIVE-NEXT: n0 = LOAD 1 float [(8, 16):(16, 1)]
// AGGRESSIVE-NEXT: n1 = MAX (1,) n0
// AGGRESSIVE: item 1 KERNEL outs=1 ins=2
// AGGRESSIVE-NOT: VIEW [(8, 16):(1, 0)]
// AGGRESSIVE: VIEW [(8, 16):(0, 1)]
// AGGRESSIVE-NOT: VIEW
// AGGRESSIVE: moved: 2 kernels
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @crossed_row_values(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %mi = lazy.reduce_max %x axes [1] : tensor<8x16xf32> -> tensor<8x1xf32>
    %mj = lazy.reduce_max %x axes [0] : tensor<8x16xf32> -> tensor<1x16xf32>
    %vi = lazy.view %mi as <[(8, 16):(1, 0)]> : tensor<8x1xf32> -> tensor<8x16xf32>
    %vj = lazy.view %mj as <[(8, 16):(0, 1)]> : tensor<1x16xf32> -> tensor<8x16xf32>
    %s = lazy.add %vi, %vj : tensor<8x16xf32>
    %o = lazy.add %x, %s : tensor<8x16xf32>
    return %o : tensor<8x16xf32>
  }
}

// -----

// A row value read through a view that is the first tracker the graph
// interned (x's identity, (1, 8)) is still read through a View node: the
// row sum reads the inner sum through a rank-dropping reshape. Before the
// fix the kernel read the inner (1, 8, 1) sum directly and failed to
// verify. Built as a row value the inner sum varies along the outer sum's
// axis, so it keeps its kernel; the outer sum is computed in its reader.
// TINYGRAD-LABEL: schedule @sum_of_reshaped_sum
// TINYGRAD: moved: 3 kernels
// AGGRESSIVE-LABEL: schedule @sum_of_reshaped_sum
// AGGRESSIVE: item 0 KERNEL outs=1 ins=1
// AGGRESSIVE-NEXT: n0 = LOAD 1 float [(1, 8, 8):(0, 0, 1)]
// AGGRESSIVE-NEXT: n1 = SUM (2,) n0
// AGGRESSIVE: item 1 KERNEL outs=1 ins=2
// AGGRESSIVE-NEXT: n0 = LOAD 1 float [(1, 8):(0, 1)]
// AGGRESSIVE-NEXT: n1 = SUM (1,) n0
// AGGRESSIVE-NEXT: n2 = VIEW [(1, 8):(0, 0)] n1
// AGGRESSIVE: moved: 2 kernels
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @sum_of_reshaped_sum(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
    %e = lazy.view %x as <[(1, 8, 8):(0, 0, 1)]> : tensor<1x8xf32> -> tensor<1x8x8xf32>
    %r = lazy.reduce_sum %e axes [2] : tensor<1x8x8xf32> -> tensor<1x8x1xf32>
    %v = lazy.view %r as <[(1, 8):(0, 1)]> : tensor<1x8x1xf32> -> tensor<1x8xf32>
    %s = lazy.reduce_sum %v axes [1] : tensor<1x8xf32> -> tensor<1x1xf32>
    %b = lazy.view %s as <[(1, 8):(0, 0)]> : tensor<1x1xf32> -> tensor<1x8xf32>
    %m = lazy.add %b, %x : tensor<1x8xf32>
    return %m : tensor<1x8xf32>
  }
}

// -----

// Rule 5 takes no row value that reads an assign target's memory, here
// through a buffer_view round trip (a bitcast to int and back): a GPU
// thread computing the column max would read elements other threads have
// already overwritten. The max keeps its kernel, as in tinygrad's
// schedule.
// TINYGRAD-LABEL: schedule @row_value_of_aliased_target
// TINYGRAD: moved: 2 kernels
// AGGRESSIVE-LABEL: schedule @row_value_of_aliased_target
// AGGRESSIVE: item 2 KERNEL outs=1 ins=1
// AGGRESSIVE-NEXT: n0 = LOAD 1 float [(8, 16):(16, 1)]
// AGGRESSIVE-NEXT: n1 = MAX (0,) n0
// AGGRESSIVE: item 3 KERNEL outs=1 ins=2
// AGGRESSIVE-NOT: VIEW
// AGGRESSIVE: moved: 2 kernels
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @row_value_of_aliased_target(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %i = lazy.buffer_view %x : tensor<8x16xf32> -> tensor<8x16xsi32>
    %f = lazy.buffer_view %i : tensor<8x16xsi32> -> tensor<8x16xf32>
    %m = lazy.reduce_max %f axes [0] : tensor<8x16xf32> -> tensor<1x16xf32>
    %mv = lazy.view %m as <[(8, 16):(0, 1)]> : tensor<1x16xf32> -> tensor<8x16xf32>
    %n = lazy.neg %mv : tensor<8x16xf32>
    %d = lazy.add %f, %n : tensor<8x16xf32>
    %a = lazy.assign %d to %x : tensor<8x16xf32>, tensor<8x16xf32>
    return %a : tensor<8x16xf32>
  }
}

// -----

// Rule 3 does not compute a reduce inside its child's kernel when the
// reduce's own input reaches another reduce: the view pushed through would
// meet that reduce as a double reduce (with fuse_conv_bw) that tinygrad's
// merge does not take. Here the cumsum-like sum over a padded view of a
// double sum keeps its kernel, as in tinygrad's schedule (fuzz seed
// 100673: lazy-form-kernels failed with 'cannot merge this reduce').
// TINYGRAD-LABEL: schedule @reduce_under_fused_epilogue
// TINYGRAD: moved: 3 kernels
// AGGRESSIVE-LABEL: schedule @reduce_under_fused_epilogue
// AGGRESSIVE: item 2 KERNEL outs=1 ins=1
// AGGRESSIVE-NEXT: n0 = LOAD 1 float [(3, 3):(1, 3)]
// AGGRESSIVE-NEXT: n1 = EXP2 n0
// AGGRESSIVE: moved: 3 kernels
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = true, fuse_arange = false, use_copy_kernel = false}} {
  func.func @reduce_under_fused_epilogue(%x: tensor<8x16xf32>) -> tensor<3x3xf32> {
    %s0 = lazy.reduce_sum %x axes [0] : tensor<8x16xf32> -> tensor<1x16xf32>
    %s1 = lazy.reduce_sum %s0 axes [1] : tensor<1x16xf32> -> tensor<1x1xf32>
    %p = lazy.view %s1 as <[(1, 3, 4, 5):(0, 0, 0, 0) mask [(0, 1), (0, 3), (0, 4), (2, 5)], (3, 3, 3):(20, 1, 6)]> : tensor<1x1xf32> -> tensor<3x3x3xf32>
    %c = lazy.reduce_sum %p axes [2] : tensor<3x3x3xf32> -> tensor<3x3x1xf32>
    %t = lazy.view %c as <[(3, 3):(1, 3)]> : tensor<3x3x1xf32> -> tensor<3x3xf32>
    %e = lazy.exp2 %t : tensor<3x3xf32>
    return %e : tensor<3x3xf32>
  }
}

// -----

// Rule 1 prices the ops a consumer would rerun: exp2(x), read by a
// product with %v through a view of twice its elements, would run twice
// per element; 128 extra exp2 at kDearOpBytes (8) each plus its 512-byte
// leaf match the 1536 bytes of storing it and reading it back, so it
// stays stored as in tinygrad's schedule (as attention's probabilities
// are, read by the product with V). The same graph with x * 2 in place of
// exp2(x) prices its extra multiplies at kOpBytes (1) and is recomputed
// (@recompute_cheap).
// TINYGRAD-LABEL: schedule @keep_dear
// TINYGRAD: moved: 2 kernels
// AGGRESSIVE-LABEL: schedule @keep_dear
// AGGRESSIVE: item 0 KERNEL outs=1 ins=1
// AGGRESSIVE-NEXT: n0 = LOAD 1 float [(8, 16):(16, 1)]
// AGGRESSIVE-NEXT: n1 = EXP2 n0
// AGGRESSIVE: moved: 2 kernels
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @keep_dear(%x: tensor<8x16xf32>, %v: tensor<16x2xf32>) -> tensor<8x2xf32> {
    %0 = lazy.exp2 %x : tensor<8x16xf32>
    %1 = lazy.view %0 as <[(8, 2, 16):(16, 0, 1)]> : tensor<8x16xf32> -> tensor<8x2x16xf32>
    %2 = lazy.view %v as <[(8, 2, 16):(0, 1, 2)]> : tensor<16x2xf32> -> tensor<8x2x16xf32>
    %3 = lazy.mul %1, %2 : tensor<8x2x16xf32>
    %4 = lazy.reduce_sum %3 axes [2] : tensor<8x2x16xf32> -> tensor<8x2x1xf32>
    %5 = lazy.view %4 as <[(8, 2):(2, 1)]> : tensor<8x2x1xf32> -> tensor<8x2xf32>
    return %5 : tensor<8x2xf32>
  }
}

// -----

// TINYGRAD-LABEL: schedule @recompute_cheap
// TINYGRAD: moved: 2 kernels
// AGGRESSIVE-LABEL: schedule @recompute_cheap
// AGGRESSIVE: moved: 1 kernels
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @recompute_cheap(%x: tensor<8x16xf32>, %v: tensor<16x2xf32>) -> tensor<8x2xf32> {
    %c = lazy.const 2.0 : tensor<f32>
    %cv = lazy.view %c as <[(8, 16):(0, 0)]> : tensor<f32> -> tensor<8x16xf32>
    %0 = lazy.mul %x, %cv : tensor<8x16xf32>
    %1 = lazy.view %0 as <[(8, 2, 16):(16, 0, 1)]> : tensor<8x16xf32> -> tensor<8x2x16xf32>
    %2 = lazy.view %v as <[(8, 2, 16):(0, 1, 2)]> : tensor<16x2xf32> -> tensor<8x2x16xf32>
    %3 = lazy.mul %1, %2 : tensor<8x2x16xf32>
    %4 = lazy.reduce_sum %3 axes [2] : tensor<8x2x16xf32> -> tensor<8x2x1xf32>
    %5 = lazy.view %4 as <[(8, 2):(2, 1)]> : tensor<8x2x1xf32> -> tensor<8x2xf32>
    return %5 : tensor<8x2xf32>
  }
}

// -----

// The same graph with y * 2 + 1 broadcast along 16 columns: its two ops
// would run 16 times per element, 240 extra runs at kOpBytes against the
// 128 bytes storing saves, so it stays stored (tinygrad's three kernels).
// TINYGRAD-LABEL: schedule @keep_broadcast_16
// TINYGRAD: moved: 3 kernels
// AGGRESSIVE-LABEL: schedule @keep_broadcast_16
// AGGRESSIVE: moved: 3 kernels
module attributes {lazy.default_device = "CLANG", lazy.flags = {multi_output = true, fuse_conv_bw = false, fuse_arange = false, use_copy_kernel = false}} {
  func.func @keep_broadcast_16(%x: tensor<8x16xf32>, %y: tensor<8x1xf32>) -> (tensor<8xf32>, tensor<8x16xf32>) {
    %0 = lazy.const 2.0 : tensor<f32>
    %1 = lazy.view %0 as <[(8, 1):(0, 0)]> : tensor<f32> -> tensor<8x1xf32>
    %2 = lazy.mul %y, %1 : tensor<8x1xf32>
    %3 = lazy.const 1.0 : tensor<f32>
    %4 = lazy.view %3 as <[(8, 1):(0, 0)]> : tensor<f32> -> tensor<8x1xf32>
    %5 = lazy.add %2, %4 : tensor<8x1xf32>
    %6 = lazy.view %5 as <[(8, 16):(1, 0)]> : tensor<8x1xf32> -> tensor<8x16xf32>
    %7 = lazy.mul %x, %6 : tensor<8x16xf32>
    %8 = lazy.reduce_sum %7 axes [1] : tensor<8x16xf32> -> tensor<8x1xf32>
    %9 = lazy.view %8 as <[(8):(1)]> : tensor<8x1xf32> -> tensor<8xf32>
    %10 = lazy.add %x, %6 : tensor<8x16xf32>
    return %9, %10 : tensor<8xf32>, tensor<8x16xf32>
  }
}
