// RUN: lazy-opt %s -split-input-file -verify-diagnostics
// One failing input per verifier rule of the lazy dialect.

//===----------------------------------------------------------------------===//
// Tensor types: dtype, static shape, device encoding
//===----------------------------------------------------------------------===//

func.func @signless_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{must be statically shaped tensor of a tinygrad dtype}}
  %0 = lazy.contiguous %x : tensor<4xi32>
  return
}

// -----

// Element counts and byte sizes never wrap: 2^62 floats are 2^64 bytes.
func.func @bytes_wrap(%c: tensor<f32>) {
  // expected-error @+1 {{(at most 2^63 - 1 bytes)}}
  %0 = lazy.view %c as <[(4611686018427387904):(0)]> : tensor<f32> -> tensor<4611686018427387904xf32>
  return
}

// -----

// 2^68 elements: the product of the dims overflows.
func.func @elements_wrap(%x: tensor<4294967296x4294967296x16xf32>) {
  // expected-error @+1 {{(at most 2^63 - 1 bytes)}}
  %0 = lazy.exp2 %x : tensor<4294967296x4294967296x16xf32>
  return
}

// -----

// expected-error @+1 {{buffer of 4611686018427387904 elements of 'f32' needs more than 2^63 - 1 bytes}}
func.func @buffer_bytes_wrap(%b: !lazy.buffer<4611686018427387904xf32>) {
  return
}

// -----

func.func @dynamic_shape(%x: tensor<?xf32>) {
  // expected-error @+1 {{must be statically shaped tensor of a tinygrad dtype}}
  %0 = lazy.contiguous %x : tensor<?xf32>
  return
}

// -----

func.func @foreign_encoding(%x: tensor<4xf32, "gpu">) {
  // expected-error @+1 {{with an optional #lazy.device encoding}}
  %0 = lazy.contiguous %x : tensor<4xf32, "gpu">
  return
}

// -----

// expected-error @+1 {{device name must not be empty}}
func.func @empty_device(%x: tensor<4xf32, #lazy.device<"">>)

// -----

// expected-error @+1 {{device 'cuda:0' must start with an upper-case device kind}}
func.func @lowercase_device(%x: tensor<4xf32, #lazy.device<"cuda:0">>)

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

// -----

func.func @exp2_int(%x: tensor<4xsi32>) {
  // expected-error @+1 {{must be statically shaped tensor of floats}}
  %0 = lazy.exp2 %x : tensor<4xsi32>
  return
}

// -----

func.func @neg_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{must be statically shaped tensor of integers or floats}}
  %0 = lazy.neg %x : tensor<4xi1>
  return
}

// -----

func.func @unary_type_mismatch(%x: tensor<4xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "lazy.sqrt"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @cast_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape and base type}}
  %0 = lazy.cast %x : tensor<4xf32> -> tensor<2x2xsi32>
  return
}

// -----

func.func @cast_device(%x: tensor<4xf32>) {
  // expected-error @+1 {{source and result must be on the same device}}
  %0 = lazy.cast %x : tensor<4xf32> -> tensor<4xsi32, #lazy.device<"CUDA">>
  return
}

// -----

func.func @bitcast_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{source and result must have the same shape}}
  %0 = lazy.bitcast %x : tensor<4xf32> -> tensor<2xsi32>
  return
}

// -----

func.func @bitcast_bytes(%x: tensor<3xf16>) {
  // expected-error @+1 {{last dimension 3 of 2-byte elements is not a whole number of 4-byte elements}}
  %0 = lazy.bitcast %x : tensor<3xf16> -> tensor<1xf32>
  return
}

// -----

func.func @bitcast_rank0(%x: tensor<f16>) {
  // expected-error @+1 {{a bitcast that changes the itemsize needs rank >= 1}}
  %0 = lazy.bitcast %x : tensor<f16> -> tensor<f32>
  return
}

// -----

func.func @bitcast_resize_shape(%x: tensor<2x4xf16>) {
  // expected-error @+1 {{result shape must be (2, 2), got (4, 2)}}
  %0 = lazy.bitcast %x : tensor<2x4xf16> -> tensor<4x2xf32>
  return
}

// -----

func.func @bitcast_device(%x: tensor<4xf32>) {
  // expected-error @+1 {{source and result must be on the same device}}
  %0 = lazy.bitcast %x : tensor<4xf32> -> tensor<4xsi32, #lazy.device<"CUDA">>
  return
}

//===----------------------------------------------------------------------===//
// Binary and ternary ops
//===----------------------------------------------------------------------===//

// -----

func.func @binary_dtype_mismatch(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "lazy.add"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @binary_device_mismatch(%a: tensor<4xf32>, %b: tensor<4xf32, #lazy.device<"CUDA">>) {
  // expected-error @+1 {{all operands and results must be on the same device}}
  %0 = "lazy.mul"(%a, %b) : (tensor<4xf32>, tensor<4xf32, #lazy.device<"CUDA">>) -> tensor<4xf32>
  return
}

// -----

func.func @idiv_float(%a: tensor<4xf32>) {
  // expected-error @+1 {{must be statically shaped tensor of integers}}
  %0 = lazy.idiv %a, %a : tensor<4xf32>
  return
}

// -----

func.func @mod_bool(%a: tensor<4xi1>) {
  // expected-error @+1 {{must be statically shaped tensor of integers}}
  %0 = lazy.mod %a, %a : tensor<4xi1>
  return
}

// -----

func.func @xor_float(%a: tensor<4xf32>) {
  // expected-error @+1 {{must be statically shaped tensor of integers or bools}}
  %0 = lazy.xor %a, %a : tensor<4xf32>
  return
}

// -----

func.func @shl_bool(%a: tensor<4xi1>) {
  // expected-error @+1 {{must be statically shaped tensor of integers}}
  %0 = lazy.shl %a, %a : tensor<4xi1>
  return
}

// -----

func.func @threefry_dtype(%a: tensor<4xui32>) {
  // expected-error @+1 {{must be statically shaped tensor of ui64}}
  %0 = lazy.threefry %a, %a : tensor<4xui32>
  return
}

// -----

func.func @cmplt_not_bool(%a: tensor<4xf32>) {
  // expected-error @+1 {{must be statically shaped tensor of bools}}
  %0 = lazy.cmplt %a, %a : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @cmpne_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape and base type}}
  %0 = lazy.cmpne %a, %a : tensor<4xf32> -> tensor<2x2xi1>
  return
}

// -----

func.func @cmplt_device(%a: tensor<4xf32>) {
  // expected-error @+1 {{all operands and results must be on the same device}}
  %0 = lazy.cmplt %a, %a : tensor<4xf32> -> tensor<4xi1, #lazy.device<"CUDA">>
  return
}

// -----

func.func @cmplt_operands(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{requires all operands to have the same type}}
  %0 = "lazy.cmplt"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xi1>
  return
}

// -----

func.func @where_condition_dtype(%c: tensor<4xf32>, %a: tensor<4xf32>) {
  // expected-error @+1 {{must be statically shaped tensor of bools}}
  %0 = lazy.where %c, %a, %a : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @where_condition_shape(%c: tensor<2xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape and base type}}
  %0 = lazy.where %c, %a, %a : tensor<2xi1>, tensor<4xf32>
  return
}

// -----

func.func @where_condition_device(%c: tensor<4xi1, #lazy.device<"CUDA">>, %a: tensor<4xf32>) {
  // expected-error @+1 {{all operands and results must be on the same device}}
  %0 = lazy.where %c, %a, %a : tensor<4xi1, #lazy.device<"CUDA">>, tensor<4xf32>
  return
}

// -----

func.func @where_values(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{all of {true_value, false_value, result} have same type}}
  %0 = "lazy.where"(%c, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Reduce ops
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_axis_range(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = lazy.reduce_sum %a axes [2] : tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @reduce_axis_negative(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{axis -1 is out of range for rank 2}}
  %0 = lazy.reduce_max %a axes [-1] : tensor<4x4xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @reduce_axes_duplicate(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{axes must be distinct}}
  %0 = lazy.reduce_sum %a axes [1, 1] : tensor<4x4xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @reduce_result_shape(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{result shape must be (4, 1), got (4)}}
  %0 = lazy.reduce_sum %a axes [1] : tensor<4x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_dtype(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{result dtype must equal the source dtype}}
  %0 = lazy.reduce_sum %a axes [1] : tensor<4x4xf32> -> tensor<4x1xf64>
  return
}

// -----

func.func @reduce_device(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{source and result must be on the same device}}
  %0 = lazy.reduce_sum %a axes [1] : tensor<4x4xf32> -> tensor<4x1xf32, #lazy.device<"CUDA">>
  return
}

//===----------------------------------------------------------------------===//
// Const
//===----------------------------------------------------------------------===//

// -----

func.func @const_bool_number() {
  // expected-error @+1 {{expected true or false for a bool const}}
  %0 = lazy.const 1 : tensor<i1>
  return
}

// -----

func.func @const_float_bool() {
  // expected-error @+1 {{expected a number for a float const}}
  %0 = lazy.const true : tensor<f32>
  return
}

// -----

func.func @const_int_float() {
  // expected-error @+1 {{expected an integer for an integer const}}
  %0 = lazy.const 1.5 : tensor<si32>
  return
}

// -----

func.func @const_int_range() {
  // expected-error @+1 {{integer const out of range for 'si8'}}
  %0 = lazy.const 128 : tensor<si8>
  return
}

// -----

func.func @const_unsigned_negative() {
  // expected-error @+1 {{integer const out of range for 'ui32'}}
  %0 = lazy.const -1 : tensor<ui32>
  return
}

// -----

func.func @const_value_type() {
  // expected-error @+1 {{value 1.000000e+00 : f64 must be a literal of the element type 'si32'}}
  %0 = "lazy.const"() <{value = 1.0 : f64}> : () -> tensor<si32>
  return
}

// -----

// A float const holds tinygrad's Python float: an f64, whatever its dtype.
func.func @const_float_not_f64() {
  // expected-error @+1 {{value 1.000000e+00 : f32 of a float const must be an f64 literal}}
  %0 = "lazy.const"() <{value = 1.0 : f32}> : () -> tensor<f32>
  return
}

// -----

func.func @const_value_kind() {
  %0 = "lazy.const"() <{value = 1 : si32}> : () -> tensor<si32, #lazy.device<"CLANG">>
  // expected-error @+1 {{must be a literal of the element type 'si32'}}
  %1 = "lazy.const"() <{value = dense<1> : tensor<si32>}> : () -> tensor<si32>
  return
}

//===----------------------------------------------------------------------===//
// Meta ops
//===----------------------------------------------------------------------===//

// -----

func.func @copy_dtype(%x: tensor<4xf32>) {
  // expected-error @+1 {{a copy keeps the dtype}}
  %0 = lazy.copy %x : tensor<4xf32> -> tensor<4xf16, #lazy.device<"CUDA">>
  return
}

// -----

func.func @copy_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{source and result must have the same shape, got (4) and (2)}}
  %0 = lazy.copy %x : tensor<4xf32> -> tensor<2xf32, #lazy.device<"CUDA">>
  return
}

// -----

func.func @custom_name() {
  // expected-error @+1 {{needs the name of the function that fills the buffer}}
  %0 = lazy.custom "" tensor<4xf32>
  return
}

// -----

func.func @assign_dtype(%v: tensor<4xf16>, %t: tensor<4xf32>) {
  // expected-error @+1 {{value dtype 'f16' must equal the target dtype 'f32'}}
  %0 = lazy.assign %v to %t : tensor<4xf16>, tensor<4xf32>
  return
}

// -----

func.func @assign_device(%v: tensor<4xf32>, %t: tensor<4xf32, #lazy.device<"CUDA">>) {
  // expected-error @+1 {{value and target must be on the same device}}
  %0 = lazy.assign %v to %t : tensor<4xf32>, tensor<4xf32, #lazy.device<"CUDA">>
  return
}

// -----

func.func @assign_size(%v: tensor<4xf32>, %t: tensor<8xf32>) {
  // expected-error @+1 {{value size 4 must equal the target size 8}}
  %0 = lazy.assign %v to %t : tensor<4xf32>, tensor<8xf32>
  return
}

// -----

func.func @assign_view_shape(%v: tensor<4xf32>, %t: tensor<8xf32>) {
  // expected-error @+1 {{view shape (2) must equal the value shape (4)}}
  %0 = lazy.assign %v to %t view <[(2):(1) offset 2]> : tensor<4xf32>, tensor<8xf32>
  return
}

// -----

func.func @assign_view_range(%v: tensor<4xf32>, %t: tensor<8xf32>) {
  // expected-error @+1 {{view reaches indices outside the target's 8 elements}}
  %0 = lazy.assign %v to %t view <[(4):(1) offset 6]> : tensor<4xf32>, tensor<8xf32>
  return
}

// -----

func.func @assign_result_type(%v: tensor<4xf32>, %t: tensor<4xf32>) {
  // expected-error @+1 {{all of {value, result} have same type}}
  %0 = "lazy.assign"(%v, %t) : (tensor<4xf32>, tensor<4xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @buffer_view_bytes(%x: tensor<4xf32>) {
  // expected-error @+1 {{a bitcasting buffer view must keep the byte size}}
  %0 = lazy.buffer_view %x : tensor<4xf32> -> tensor<4xf16>
  return
}

// -----

func.func @buffer_view_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{source and result must have the same shape, got (4) and (2, 2)}}
  %0 = lazy.buffer_view %x : tensor<4xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @buffer_view_device(%x: tensor<4xf32>) {
  // expected-error @+1 {{source and result must be on the same device}}
  %0 = lazy.buffer_view %x : tensor<4xf32> -> tensor<4xf32, #lazy.device<"DISK:/tmp/x">>
  return
}

//===----------------------------------------------------------------------===//
// Movement ops and views
//===----------------------------------------------------------------------===//

// -----

func.func @reshape_size(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{reshape must preserve the number of elements}}
  %0 = lazy.reshape %x : tensor<4x4xf32> -> tensor<15xf32>
  return
}

// -----

func.func @movement_dtype(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{result dtype must equal the source dtype}}
  %0 = lazy.reshape %x : tensor<4x4xf32> -> tensor<16xf16>
  return
}

// -----

func.func @movement_device(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{source and result must be on the same device}}
  %0 = lazy.reshape %x : tensor<4x4xf32> -> tensor<16xf32, #lazy.device<"CUDA">>
  return
}

// -----

func.func @permute_not_permutation(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{permute axes must be a permutation of 0..1}}
  %0 = lazy.permute %x [0, 0] : tensor<4x2xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @permute_result(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{result shape must be (2, 4), got (4, 2)}}
  %0 = lazy.permute %x [1, 0] : tensor<4x2xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @expand_non_one(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{cannot expand (4,2) to (4,4): dim 1 must be 1 or unchanged}}
  %0 = lazy.expand %x : tensor<4x2xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @expand_rank(%x: tensor<4x1xf32>) {
  // expected-error @+1 {{expand}}
  %0 = lazy.expand %x : tensor<4x1xf32> -> tensor<2x4x4xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<4xf32>) {
  // expected-error @+1 {{pad must be non-negative}}
  %0 = lazy.pad %x [(-1, 0)] : tensor<4xf32> -> tensor<3xf32>
  return
}

// -----

func.func @pad_count(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{expected one (before, after) pair per dimension (2), got 1}}
  %0 = lazy.pad %x [(1, 1)] : tensor<4x4xf32> -> tensor<6x4xf32>
  return
}

// -----

func.func @pad_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{result shape must be (7), got (6)}}
  %0 = lazy.pad %x [(1, 2)] : tensor<4xf32> -> tensor<6xf32>
  return
}

// -----

func.func @shrink_bounds(%x: tensor<4xf32>) {
  // expected-error @+1 {{shrink range (1,5) must satisfy 0 <= begin <= end <= 4}}
  %0 = lazy.shrink %x [(1, 5)] : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @shrink_reversed(%x: tensor<4xf32>) {
  // expected-error @+1 {{shrink range (3,1) must satisfy 0 <= begin <= end <= 4}}
  %0 = lazy.shrink %x [(3, 1)] : tensor<4xf32> -> tensor<0xf32>
  return
}

// -----

func.func @shrink_count(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{expected one (begin, end) pair per dimension (2), got 1}}
  %0 = lazy.shrink %x [(0, 2)] : tensor<4x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @shrink_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{result shape must be (2), got (3)}}
  %0 = lazy.shrink %x [(1, 3)] : tensor<4xf32> -> tensor<3xf32>
  return
}

// -----

func.func @stride_zero(%x: tensor<4xf32>) {
  // expected-error @+1 {{stride must be non-zero}}
  %0 = lazy.stride %x [0] : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @stride_result(%x: tensor<5xf32>) {
  // expected-error @+1 {{result shape must be (3), got (2)}}
  %0 = lazy.stride %x [-2] : tensor<5xf32> -> tensor<2xf32>
  return
}

// -----

func.func @view_shape(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{result shape must be (4, 4), got (16)}}
  %0 = lazy.view %x as <[(4, 4):(4, 1)]> : tensor<4x4xf32> -> tensor<16xf32>
  return
}

// -----

func.func @view_out_of_base(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{view reaches indices [1, 16] outside the 16 elements of its source}}
  %0 = lazy.view %x as <[(4, 4):(4, 1) offset 1]> : tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

// The bounds come from the first (masked) view; the result shape from the
// last.
func.func @view_masked_out_of_base(%x: tensor<4xf32>) {
  // expected-error @+1 {{view reaches indices [1, 4] outside the 4 elements of its source}}
  %0 = lazy.view %x as <[(2, 4):(0, 1) offset 1 mask [(0, 1), (0, 4)], (8):(1)]> : tensor<4xf32> -> tensor<8xf32>
  return
}

// -----

func.func @view_masked_wrong_shape(%x: tensor<5xf32>) {
  // expected-error @+1 {{result shape must be (8), got (2, 4)}}
  %0 = lazy.view %x as <[(2, 4):(0, 1) offset 1 mask [(0, 1), (0, 4)], (8):(1)]> : tensor<5xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @view_negative_index(%x: tensor<4xf32>) {
  // expected-error @+1 {{view reaches indices [-3, 0] outside the 4 elements of its source}}
  %0 = lazy.view %x as <[(4):(-1)]> : tensor<4xf32> -> tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// #lazy.st
//===----------------------------------------------------------------------===//

// -----

func.func @st_not_canonical(%x: tensor<4xf32>) {
  // expected-error @+1 {{view #0 is not canonical; tinygrad's View.create gives [(1, 4):(0, 1)]}}
  %0 = lazy.view %x as <[(1, 4):(4, 1)]> : tensor<4xf32> -> tensor<1x4xf32>
  return
}

// -----

func.func @st_full_mask(%x: tensor<4xf32>) {
  // expected-error @+1 {{view #0 is not canonical; tinygrad's View.create gives [(4):(1)]}}
  %0 = lazy.view %x as <[(4):(1) mask [(0, 4)]]> : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @st_mask_range(%x: tensor<4xf32>) {
  // expected-error @+1 {{view #0: mask range (0, 5) of dimension 0 must satisfy 0 <= begin <= end <= 4}}
  %0 = lazy.view %x as <[(4):(1) mask [(0, 5)]]> : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @st_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{view #0: shape, strides and mask must have the same rank}}
  %0 = lazy.view %x as <[(4):(1, 1)]> : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @st_negative_dim(%x: tensor<4xf32>) {
  // expected-error @+1 {{view #0: dimensions must be non-negative}}
  %0 = lazy.view %x as <[(-4):(1)]> : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

// The ShapeTracker library computes in int64_t (tinygrad in Python's
// unbounded ints): element counts and reached indices must fit.
func.func @st_too_many_elements(%x: tensor<f32>) {
  // expected-error @+1 {{view #0: more than 2^63 - 1 elements}}
  %0 = lazy.view %x as <[(1099511627776, 1099511627776):(0, 0)]> : tensor<f32> -> tensor<1099511627776x1099511627776xf32>
  return
}

// -----

func.func @st_index_overflow(%x: tensor<4xf32>) {
  // expected-error @+1 {{view #0: reaches indices past 2^63 - 1}}
  %0 = lazy.view %x as <[(4, 4):(4611686018427387904, 1)]> : tensor<4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @st_later_view_range(%x: tensor<4xf32>) {
  // expected-error @+1 {{view #1 reaches indices [0, 4] outside the 4 elements of the view below it}}
  %0 = lazy.view %x as <[(4):(1), (5):(1)]> : tensor<4xf32> -> tensor<5xf32>
  return
}

// -----

func.func @st_empty(%x: tensor<4xf32>) {
  // expected-error @+1 {{a ShapeTracker needs at least one view}}
  %0 = lazy.view %x as <[]> : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @st_syntax(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected ':'}}
  %0 = lazy.view %x as <[(4)(1)]> : tensor<4xf32> -> tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Dialect attributes
//===----------------------------------------------------------------------===//

// -----

func.func @row_value_not_unit(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'lazy.row_value' must be a unit attribute}}
  %0 = lazy.reduce_sum %x axes [1] {lazy.row_value = 1 : i64} : tensor<4x8xf32> -> tensor<4x1xf32>
  return
}

// -----

// expected-error @+1 {{'lazy.row_value' only applies to lazy ops with one result}}
func.func @row_value_on_func() attributes {lazy.row_value} {
  return
}

// -----

func.func @forced_realize_not_unit(%x: tensor<4xf32>) {
  // expected-error @+1 {{'lazy.forced_realize' must be a unit attribute}}
  %0 = lazy.contiguous %x {lazy.forced_realize = 1 : i64} : tensor<4xf32>
  return
}

// -----

// expected-error @+1 {{'lazy.forced_realize' only applies to lazy ops with one result}}
func.func @forced_realize_on_func() attributes {lazy.forced_realize} {
  return
}

// -----

// expected-error @+1 {{'lazy.default_device' must be a string attribute on a module}}
module attributes {lazy.default_device = 3 : i64} {
}

// -----

// expected-error @+1 {{device 'gpu' must start with an upper-case device kind}}
module attributes {lazy.default_device = "gpu"} {
}

// -----

// expected-error @+1 {{unknown scheduler flag 'multioutput'}}
module attributes {lazy.flags = {multioutput = true}} {
}

// -----

// expected-error @+1 {{scheduler flag 'fuse_arange' must be true or false}}
module attributes {lazy.flags = {fuse_arange = 1 : i64}} {
}

// -----

// expected-error @+1 {{'lazy.flags' must be a dictionary attribute on a module}}
module attributes {lazy.flags = true} {
}

// -----

// expected-error @+1 {{'lazy.rng_seed' must be a non-negative i64 on a module}}
module attributes {lazy.rng_seed = -3 : i64} {
}

// -----

// expected-error @+1 {{'lazy.rng_seed' must be a non-negative i64 on a module}}
func.func @rng_seed_on_func() attributes {lazy.rng_seed = 3 : i64} {
  return
}

// -----

func.func @custom_negative_seed() -> tensor<4xf32> {
  // expected-error @+1 {{'lazy.custom' op seed must be non-negative}}
  %0 = lazy.custom "custom_random" {seed = -1 : i64} tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @buffer_on_op(%x: tensor<4xf32>) {
  // expected-error @+1 {{'lazy.buffer' belongs on function arguments, not on ops}}
  %0 = lazy.contiguous %x {lazy.buffer = 0 : i64} : tensor<4xf32>
  return
}

// -----

func.func @unknown_op_attr(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown lazy dialect attribute 'lazy.colour'}}
  %0 = lazy.contiguous %x {lazy.colour} : tensor<4xf32>
  return
}

// -----

// expected-error @+1 {{argument #0: 'lazy.buffer' must be a non-negative i64 buffer number}}
func.func @buffer_negative(%x: tensor<4xf32> {lazy.buffer = -1 : i64}) {
  return
}

// -----

// expected-error @+1 {{argument #0: 'lazy.buffer' needs a tensor, buffer or memref argument}}
func.func @buffer_not_tensor(%x: i64 {lazy.buffer = 0 : i64}) {
  return
}

// -----

// expected-error @+1 {{unknown lazy argument attribute 'lazy.buf'}}
func.func @unknown_arg_attr(%x: tensor<4xf32> {lazy.buf = 0 : i64}) {
  return
}

// -----

// expected-error @+1 {{argument #0: 'lazy.buffer_offset' must be a non-negative i64 byte offset}}
func.func @buffer_offset_negative(%x: tensor<4xf32> {lazy.buffer = 0 : i64, lazy.buffer_offset = -4 : i64}) {
  return
}

// -----

// expected-error @+1 {{argument #0: 'lazy.buffer_offset' needs a 'lazy.buffer' to offset into}}
func.func @buffer_offset_alone(%x: tensor<4xf32> {lazy.buffer_offset = 4 : i64}) {
  return
}

// -----

// Two arguments sharing a buffer number are one device Buffer.
// expected-error @+1 {{arguments #0 and #1 share 'lazy.buffer' 0 but have different dtypes or sizes: one device Buffer has one device, dtype and size}}
func.func @shared_buffer_sizes(%a: tensor<4xf32> {lazy.buffer = 0 : i64}, %b: tensor<1024xf32> {lazy.buffer = 0 : i64}) {
  return
}

// -----

// expected-error @+1 {{arguments #0 and #1 share 'lazy.buffer' 0 but have different dtypes or sizes}}
func.func @shared_buffer_dtypes(%a: tensor<4xf32> {lazy.buffer = 0 : i64}, %b: tensor<4xsi32> {lazy.buffer = 0 : i64}) {
  return
}

// -----

// expected-error @+1 {{arguments #0 and #2 share 'lazy.buffer' 3 but are on different devices}}
func.func @shared_buffer_devices(%a: !lazy.buffer<4xf32> {lazy.buffer = 3 : i64}, %b: tensor<4xf32> {lazy.buffer = 1 : i64}, %c: !lazy.buffer<4xf32, #lazy.device<"CUDA">> {lazy.buffer = 3 : i64}) {
  return
}

// -----

// expected-error @+1 {{arguments #0 and #1 share 'lazy.buffer' 0 but the sub-buffer reaches past the whole buffer's end}}
func.func @sub_buffer_past_end(%a: tensor<4xf32> {lazy.buffer = 0 : i64}, %b: tensor<2xf32> {lazy.buffer = 0 : i64, lazy.buffer_offset = 12 : i64}) {
  return
}

// -----

func.func @seen_not_unit(%x: tensor<4xf32>) {
  // expected-error @+1 {{'lazy.seen' must be a unit attribute}}
  %0 = lazy.contiguous %x {lazy.seen = true} : tensor<4xf32>
  return
}

// -----

func.func @unknown_op(%x: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'lazy.frobnicate' is unknown}}
  %0 = lazy.frobnicate %x : tensor<4xf32>
  return
}

// -----

func.func @view_index_overflow(%x: tensor<4xf32>) {
  // expected-error @+1 {{view #0: reaches indices past 2^63 - 1}}
  %0 = lazy.view %x as <[(4):(1) offset 9223372036854775807]> : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @softmax_sum_shapes(%x: tensor<4x8xf32>, %w: tensor<4x4xf32>) {
  // expected-error @+1 {{scores and weights must have one shape}}
  %0 = lazy.softmax_sum %x, %w axes [1] scale 1.0 : tensor<4x8xf32>, tensor<4x4xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @softmax_sum_result_dtype(%x: tensor<4x8xf32>, %w: tensor<4x8xf16>) {
  // expected-error @+1 {{result must have the weights' element type 'f16'}}
  %0 = lazy.softmax_sum %x, %w axes [1] scale 1.0 : tensor<4x8xf32>, tensor<4x8xf16> -> tensor<4x1xf32>
  return
}

// -----

func.func @softmax_sum_scale(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{scale must be positive and finite, not -2}}
  %0 = lazy.softmax_sum %x, %x axes [1] scale -2.0 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @softmax_sum_axes(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result shape must be (4, 1)}}
  %0 = lazy.softmax_sum %x, %x axes [1] scale 1.0 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<1x8xf32>
  return
}
