// RUN: lazy-opt %s -split-input-file -verify-diagnostics
// One failing input per rule of symbolic shapes (tinygrad Variables) in
// #lazy.st, #lazy.sym_shape and the ops that check them.

// expected-error @+1 {{Variable 'x' needs 0 <= 2 <= 1}}
func.func private @bad_range() attributes {st = #lazy.st<[(x[2:1]):(1)]>}

// -----

// expected-error @+1 {{Variable 'x' is bound to 9, outside its range [0, 5]}}
func.func private @bound_outside() attributes {st = #lazy.st<[(x[0:5=9]):(1)]>}

// -----

// expected-error @+1 {{Variable 'x' appears as both x[0:5] and x[0:6]}}
func.func private @two_ranges() attributes {st = #lazy.st<[(x[0:5]):(1), (x[0:6]):(1)]>}

// -----

// expected-error @+1 {{Variable 'n' appears as both n[1:4=2] and n[1:4=3]}}
func.func private @two_bindings() attributes {st = #lazy.st<[(n[1:4=2], n[1:4=3]):(n[1:4=3], 1)]>}

// -----

// A size-1 dim has stride 0 (tinygrad's View.create), symbolic or not.
// expected-error @+1 {{view #0 is not canonical; tinygrad's View.create gives [(x[1:4], 1):(1, 0)]}}
func.func private @not_canonical() attributes {st = #lazy.st<[(x[1:4], 1):(1, 1)]>}

// -----

// expected-error @+1 {{mask range (0, (1 + x[0:4])) of dimension 0 must satisfy 0 <= begin <= end <= x[0:4]}}
func.func private @mask_past_dim() attributes {st = #lazy.st<[(x[0:4]):(1) mask [(0, (x[0:4] + 1))]]>}

// -----

// expected-error @+1 {{division by zero}}
func.func private @div_zero() attributes {st = #lazy.st<[((x[0:4] floordiv 0)):(1)]>}

// -----

// expected-error @+1 {{modulo by a non-positive number}}
func.func private @mod_negative() attributes {st = #lazy.st<[((x[0:4] mod -2)):(1)]>}

// -----

// expected-error @+1 {{expected '+', '*', 'floordiv' or 'mod'}}
func.func private @no_operator() attributes {st = #lazy.st<[((x[0:4] - 1)):(1)]>}

// -----

// expected-error @+1 {{symbolic expression nested too deeply}}
func.func private @too_deep() attributes {st = #lazy.st<[(((((((((((((((((((((((((((((((((((((((((x[0:1] + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1) + 1)):(1)]>}

// -----

// expected-error @+1 {{#lazy.sym_shape needs a symbolic dim; a tensor of integer dims has no such encoding}}
func.func private @no_symbolic_dim(tensor<2x3xf32, #lazy.sym_shape<[2, 3]>>)

// -----

// expected-error @+1 {{dim 0 of the tensor must be 8, the largest value of x[1:8], got 4}}
func.func private @static_not_max(tensor<4xf32, #lazy.sym_shape<[x[1:8]]>>)

// -----

// expected-error @+1 {{#lazy.sym_shape of rank 1 on a tensor of rank 2}}
func.func private @rank_mismatch(tensor<8x2xf32, #lazy.sym_shape<[x[1:8]]>>)

// -----

func.func @view_shape(%x: tensor<8xf32>) {
  // expected-error @+1 {{result shape must be (x[1:8=3]), got (y[1:8=3])}}
  %0 = lazy.view %x as <[(x[1:8=3]):(1)]> : tensor<8xf32> -> tensor<8xf32, #lazy.sym_shape<[y[1:8=3]]>>
  return
}

// -----

func.func @view_integer_result(%x: tensor<8xf32>) {
  // expected-error @+1 {{result shape must be (x[1:8=3]), got (8)}}
  %0 = lazy.view %x as <[(x[1:8=3]):(1)]> : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @reduce_symbolic(%x: tensor<8x4xf32, #lazy.sym_shape<[x[1:8], 4]>>) {
  // expected-error @+1 {{result shape must be (x[1:8], 1), got (8, 1)}}
  %0 = lazy.reduce_sum %x axes [1] : tensor<8x4xf32, #lazy.sym_shape<[x[1:8], 4]>> -> tensor<8x1xf32>
  return
}

// -----

func.func @elementwise_mismatch(%x: tensor<8xf32, #lazy.sym_shape<[x[1:8]]>>, %y: tensor<8xf32>) {
  // expected-error @+1 {{requires the same encoding for all operands and results}}
  %0 = "lazy.add"(%x, %y) : (tensor<8xf32, #lazy.sym_shape<[x[1:8]]>>, tensor<8xf32>) -> tensor<8xf32, #lazy.sym_shape<[x[1:8]]>>
  return
}

// -----

func.func @movement_symbolic(%x: tensor<8x4xf32, #lazy.sym_shape<[x[1:8], 4]>>) {
  // expected-error @+1 {{takes integer shapes only; a view of a symbolic shape is a lazy.view with a symbolic #lazy.st}}
  %0 = lazy.permute %x [1, 0] : tensor<8x4xf32, #lazy.sym_shape<[x[1:8], 4]>> -> tensor<4x8xf32, #lazy.sym_shape<[4, x[1:8]]>>
  return
}

// -----

func.func @device_mismatch(%x: tensor<8xf32, #lazy.sym_shape<[x[1:8]], device = "CUDA">>) {
  // expected-error @+1 {{source and result must be on the same device}}
  %0 = lazy.view %x as <[(x[1:8]):(1)]> : tensor<8xf32, #lazy.sym_shape<[x[1:8]], device = "CUDA">> -> tensor<8xf32, #lazy.sym_shape<[x[1:8]]>>
  return
}

// -----

func.func @variable_const_float() {
  // expected-error @+1 {{a Variable's const has an integer dtype, got 'f32'}}
  %0 = lazy.const n[1:8=3] : tensor<f32>
  return
}

// -----

func.func @variable_const_bound() {
  // expected-error @+1 {{Variable 'n' is bound to 9, outside its range [1, 8]}}
  %0 = lazy.const n[1:8=9] : tensor<si32>
  return
}

// -----

// Inside an expression, integers leave the algebra headroom in int64_t.
// expected-error @+1 {{integer -9223372036854775807 is too large for a symbolic expression (at most 2^62 in magnitude)}}
func.func private @too_large() attributes {st = #lazy.st<[(4):(1) offset (-9223372036854775807 floordiv -1)]>}

// -----

// So do the integers of a view with a Variable.
// expected-error @+1 {{a view with a Variable takes integers of at most 2^62 in magnitude}}
func.func private @too_large_beside() attributes {st = #lazy.st<[(n[1:4], 2):(9223372036854775807, 1)]>}

// -----

// A plan takes no step on a symbolic axis (the kernel verifier): its
// steps divide integer extents.
// expected-error @+1 {{'lazy.kernel' op has an invalid plan: step 0 (upcast) names axis 0, whose extent is symbolic (tinygrad Variables): plans divide integer extents only}}
lazy.kernel @planned(%out0: !lazy.buffer<8xf32>, %in0: !lazy.buffer<8xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 0, 2>]} {
  %0 = lazy.load %in0 as <[(n[1:8]):(1)]> : !lazy.buffer<8xf32> -> tensor<8xf32, #lazy.sym_shape<[n[1:8]]>>
  lazy.store %0, %out0 as <[(n[1:8]):(1)]> : tensor<8xf32, #lazy.sym_shape<[n[1:8]]>>, !lazy.buffer<8xf32>
}
lazy.kernel @planned(%out0: !lazy.buffer<8xf32>, %in0: !lazy.buffer<8xf32>) attributes {num_outputs = 1 : i64, opts = [#lazy.opt<upcast, 0, 2>]} {
  %0 = lazy.load %in0 as <[(8):(1) mask [(0, n[1:8])]]> : !lazy.buffer<8xf32> -> tensor<8xf32>
  lazy.store %0, %out0 as <[(8):(1)]> : tensor<8xf32>, !lazy.buffer<8xf32>
}
