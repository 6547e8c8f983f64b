// RUN: lazy-opt %s -split-input-file -verify-diagnostics
// One failing input per verifier rule of the schedule-level ops.

// expected-error @+1 {{buffer element type 'i32' is not a tinygrad dtype}}
func.func @signless_buffer(%a: !lazy.buffer<4xi32>)

// -----

// expected-error @+1 {{a buffer has exactly one dimension (its size)}}
func.func @buffer_rank(%a: !lazy.buffer<2x2xf32>)

// -----

// expected-error @+1 {{'lazy.kernel' op a kernel returns nothing: it stores into its output buffers}}
lazy.kernel @returns(%out0: !lazy.buffer<4xf32>) -> f32 attributes {num_outputs = 1 : i64} {
}

// -----

// expected-error @+1 {{'lazy.kernel' op argument #1 must be a !lazy.buffer}}
lazy.kernel @tensor_arg(%out0: !lazy.buffer<4xf32>, %x: tensor<4xf32>) attributes {num_outputs = 1 : i64} {
}

// -----

// expected-error @+1 {{'lazy.kernel' op num_outputs must be between 1 and the number of arguments (1), got 2}}
lazy.kernel @outputs(%out0: !lazy.buffer<4xf32>) attributes {num_outputs = 2 : i64} {
}

// -----

// expected-error @+1 {{'lazy.kernel' op stores 0 of its 1 outputs}}
lazy.kernel @no_store(%out0: !lazy.buffer<4xf32>) attributes {num_outputs = 1 : i64} {
}

// -----

lazy.kernel @store_order(%out0: !lazy.buffer<4xf32>, %out1: !lazy.buffer<4xf32>) attributes {num_outputs = 2 : i64} {
  %c = lazy.const 1.0 : tensor<f32>
  %v = lazy.view %c as <[(4):(0)]> : tensor<f32> -> tensor<4xf32>
  // expected-error @+1 {{'lazy.store' op must store output #0 (stores follow output order)}}
  lazy.store %v, %out1 as <[(4):(1)]> : tensor<4xf32>, !lazy.buffer<4xf32>
  lazy.store %v, %out0 as <[(4):(1)]> : tensor<4xf32>, !lazy.buffer<4xf32>
}

// -----

lazy.kernel @graph_op(%out0: !lazy.buffer<4xf32>) attributes {num_outputs = 1 : i64} {
  // expected-error @+1 {{'lazy.empty' op is a graph or schedule op; a kernel body only loads, computes and stores}}
  %e = lazy.empty : tensor<4xf32>
  lazy.store %e, %out0 as <[(4):(1)]> : tensor<4xf32>, !lazy.buffer<4xf32>
}

// -----

lazy.kernel @foreign_op(%out0: !lazy.buffer<4xf32>) attributes {num_outputs = 1 : i64} {
  // expected-error @+1 {{'arith.constant' op is not allowed in a lazy.kernel}}
  %x = arith.constant 1.0 : f32
  %c = lazy.const 1.0 : tensor<f32>
  %v = lazy.view %c as <[(4):(0)]> : tensor<f32> -> tensor<4xf32>
  lazy.store %v, %out0 as <[(4):(1)]> : tensor<4xf32>, !lazy.buffer<4xf32>
}

// -----

func.func @load_dtype(%b: !lazy.buffer<4xf32>) {
  // expected-error @+1 {{'lazy.load' op tensor dtype 'f16' must equal the buffer dtype 'f32'}}
  %0 = lazy.load %b as <[(4):(1)]> : !lazy.buffer<4xf32> -> tensor<4xf16>
  return
}

// -----

func.func @load_shape(%b: !lazy.buffer<4xf32>) {
  // expected-error @+1 {{'lazy.load' op the view's shape must equal the tensor's shape}}
  %0 = lazy.load %b as <[(4):(1)]> : !lazy.buffer<4xf32> -> tensor<2xf32>
  return
}

// -----

func.func @store_bounds(%b: !lazy.buffer<4xf32>, %v: tensor<4xf32>) {
  // expected-error @+1 {{'lazy.store' op view reaches indices [2, 5] outside the 4 elements of the buffer}}
  lazy.store %v, %b as <[(4):(1) offset 2]> : tensor<4xf32>, !lazy.buffer<4xf32>
  return
}

// -----

func.func @launch_unknown(%b: !lazy.buffer<4xf32>) {
  // expected-error @+1 {{'lazy.launch' op 'nope' does not name a lazy.kernel}}
  %0 = lazy.launch @nope outs(%b : !lazy.buffer<4xf32>)
  return
}

// -----

lazy.kernel @k1(%out0: !lazy.buffer<4xf32>) attributes {num_outputs = 1 : i64} {
  %c = lazy.const 1.0 : tensor<f32>
  %v = lazy.view %c as <[(4):(0)]> : tensor<f32> -> tensor<4xf32>
  lazy.store %v, %out0 as <[(4):(1)]> : tensor<4xf32>, !lazy.buffer<4xf32>
}
func.func @launch_arity(%b: !lazy.buffer<4xf32>) {
  // expected-error @+1 {{'lazy.launch' op passes 1 outputs and 1 inputs to a kernel with 1 outputs and 1 arguments}}
  %0 = lazy.launch @k1 outs(%b : !lazy.buffer<4xf32>) ins(%b : !lazy.buffer<4xf32>)
  return
}

// -----

lazy.kernel @k1(%out0: !lazy.buffer<4xf32>) attributes {num_outputs = 1 : i64} {
  %c = lazy.const 1.0 : tensor<f32>
  %v = lazy.view %c as <[(4):(0)]> : tensor<f32> -> tensor<4xf32>
  lazy.store %v, %out0 as <[(4):(1)]> : tensor<4xf32>, !lazy.buffer<4xf32>
}
func.func @launch_types(%b: !lazy.buffer<8xf32>) {
  // expected-error @+1 {{'lazy.launch' op operand #0 has type '!lazy.buffer<8xf32>' but the kernel expects '!lazy.buffer<4xf32>'}}
  %0 = lazy.launch @k1 outs(%b : !lazy.buffer<8xf32>)
  return
}

// -----

// A list whose buffers and types differ in number is reported where the
// list starts (here the ins list, on its own line), not after the op.
func.func @launch_ins_count(%b: !lazy.buffer<4xf32>) {
  %0 = lazy.launch @k1 outs(%b : !lazy.buffer<4xf32>)
    // expected-error @+1 {{number of operands and types do not match: got 2 operands and 1 types}}
    ins(%b, %b : !lazy.buffer<4xf32>) {note = "trailing attributes"}
  return
}

// -----

func.func @launch_outs_count(%b: !lazy.buffer<4xf32>) {
  // expected-error @+1 {{number of operands and types do not match: got 1 operands and 2 types}}
  %0:2 = lazy.launch @k1 outs(%b : !lazy.buffer<4xf32>, !lazy.buffer<4xf32>)
  return
}

// -----

// The results of a launch are its output buffers (the generic form can
// state others).
lazy.kernel @k1(%out0: !lazy.buffer<4xf32>) attributes {num_outputs = 1 : i64} {
  %c = lazy.const 1.0 : tensor<f32>
  %v = lazy.view %c as <[(4):(0)]> : tensor<f32> -> tensor<4xf32>
  lazy.store %v, %out0 as <[(4):(1)]> : tensor<4xf32>, !lazy.buffer<4xf32>
}
func.func @launch_results(%b: !lazy.buffer<4xf32>) {
  // expected-error @+1 {{'lazy.launch' op failed to verify that the results are the output buffers}}
  %0 = "lazy.launch"(%b) <{kernel = @k1, num_outs = 1}> : (!lazy.buffer<4xf32>) -> !lazy.buffer<8xf32>
  return
}

// -----

// The outputs are the first num_outs operands: no more than there are.
func.func @launch_num_outs(%b: !lazy.buffer<4xf32>) {
  // expected-error @+1 {{'lazy.launch' op has num_outs = 2 but 1 buffers}}
  %0 = "lazy.launch"(%b) <{kernel = @k1, num_outs = 2}> : (!lazy.buffer<4xf32>) -> !lazy.buffer<4xf32>
  return
}

// -----

func.func @launch_negative_outs(%b: !lazy.buffer<4xf32>) {
  // expected-error @+1 {{'lazy.launch' op has num_outs = -1 but 1 buffers}}
  "lazy.launch"(%b) <{kernel = @k1, num_outs = -1}> : (!lazy.buffer<4xf32>) -> ()
  return
}

// -----

func.func @ext_results(%b: !lazy.buffer<4xf32>) {
  // expected-error @+1 {{'lazy.ext' op failed to verify that the results are the output buffers}}
  %0:2 = "lazy.ext"(%b) <{kind = "empty", operandSegmentSizes = array<i32: 1, 0>}> : (!lazy.buffer<4xf32>) -> (!lazy.buffer<4xf32>, !lazy.buffer<4xf32>)
  return
}

// -----

// A kernel may see a buffer's bytes as another dtype, not another device.
lazy.kernel @bytes(%out0: !lazy.buffer<16xui8>) attributes {num_outputs = 1 : i64} {
  %c = lazy.const 1 : tensor<ui8>
  %v = lazy.view %c as <[(16):(0)]> : tensor<ui8> -> tensor<16xui8>
  lazy.store %v, %out0 as <[(16):(1)]> : tensor<16xui8>, !lazy.buffer<16xui8>
}
func.func @launch_device(%b: !lazy.buffer<4xf32>, %c: !lazy.buffer<4xf32, #lazy.device<"CUDA">>) {
  %0 = lazy.launch @bytes outs(%b : !lazy.buffer<4xf32>)
  // expected-error @+1 {{'lazy.launch' op operand #0 has type '!lazy.buffer<4xf32, #lazy.device<"CUDA">>' but the kernel expects '!lazy.buffer<16xui8>' (a different size in bytes or device)}}
  %1 = lazy.launch @bytes outs(%c : !lazy.buffer<4xf32, #lazy.device<"CUDA">>)
  return
}

// -----

func.func @ext_kind(%b: !lazy.buffer<4xf32>) {
  // expected-error @+1 {{'lazy.ext' op unknown EXT kind 'move'; expected copy, custom, empty or view}}
  %0 = lazy.ext "move" outs(%b : !lazy.buffer<4xf32>)
  return
}

// -----

func.func @ext_outs(%b: !lazy.buffer<4xf32>) {
  // expected-error @+1 {{'lazy.ext' op an EXT item writes exactly one buffer}}
  %0:2 = lazy.ext "empty" outs(%b, %b : !lazy.buffer<4xf32>, !lazy.buffer<4xf32>)
  return
}

// -----

func.func @ext_ins(%b: !lazy.buffer<4xf32>) {
  // expected-error @+1 {{'lazy.ext' op a 'copy' item reads 1 buffer(s), got 0}}
  %0 = lazy.ext "copy" outs(%b : !lazy.buffer<4xf32>)
  return
}

// -----

func.func @ext_seed_on_empty(%b: !lazy.buffer<4xf32>) {
  // expected-error @+1 {{'lazy.ext' op only a 'custom' item has a seed}}
  %0 = lazy.ext "empty" outs(%b : !lazy.buffer<4xf32>) {seed = 1 : i64}
  return
}

// -----

func.func @ext_negative_seed(%b: !lazy.buffer<4xf32>) {
  // expected-error @+1 {{'lazy.ext' op seed must be non-negative}}
  %0 = lazy.ext "custom" outs(%b : !lazy.buffer<4xf32>) {arg = "custom_random", seed = -2 : i64}
  return
}

// -----

func.func @suballoc_fit(%b: !lazy.buffer<4xf32>) {
  // expected-error @+1 {{'lazy.suballoc' op a 4-element buffer at byte offset 4 does not fit in 4 elements}}
  %0 = lazy.suballoc %b offset 4 : !lazy.buffer<4xf32> -> !lazy.buffer<4xf32>
  return
}

// -----

func.func @suballoc_device(%b: !lazy.buffer<4xf32>) {
  // expected-error @+1 {{'lazy.suballoc' op must keep the base buffer's device}}
  %0 = lazy.suballoc %b offset 0 : !lazy.buffer<4xf32> -> !lazy.buffer<4xf32, #lazy.device<"CUDA">>
  return
}

// -----

// expected-error @+1 {{'func.func' op result #0: 'lazy.result_view' must be a #lazy.st}}
func.func @result_view_kind(%b: !lazy.buffer<4xf32>) -> (!lazy.buffer<4xf32> {lazy.result_view = 3 : i64}) {
  return %b : !lazy.buffer<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op unknown lazy result attribute 'lazy.view'}}
func.func @result_attr(%b: !lazy.buffer<4xf32>) -> (!lazy.buffer<4xf32> {lazy.view = 3 : i64}) {
  return %b : !lazy.buffer<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op 'lazy.metadata' must be an array of strings}}
func.func @metadata_kind() attributes {lazy.metadata = [1]} {
  return
}

// -----

// lazy.nodes (lazy-schedule{record-nodes}) holds one position per result.
func.func @nodes_count(%b: !lazy.buffer<4xf32>) -> !lazy.buffer<4xf32> {
  // expected-error @+1 {{'lazy.alloc' op 'lazy.nodes' needs one position per result of a lazy op}}
  %a = lazy.alloc {lazy.nodes = array<i64: 1, 2>} : !lazy.buffer<4xf32>
  return %a : !lazy.buffer<4xf32>
}

// -----

func.func @nodes_negative(%b: !lazy.buffer<4xf32>) -> !lazy.buffer<4xf32> {
  // expected-error @+1 {{'lazy.alloc' op 'lazy.nodes' must be an array<i64> of positions}}
  %a = lazy.alloc {lazy.nodes = array<i64: -1>} : !lazy.buffer<4xf32>
  return %a : !lazy.buffer<4xf32>
}

// -----

func.func @nodes_not_lazy() {
  // expected-error @+1 {{'func.return' op 'lazy.nodes' needs one position per result of a lazy op}}
  func.return {lazy.nodes = array<i64>}
}

// -----

// A lowered kernel names its Variables; their `index` arguments end its
// argument list.
// expected-error @+1 {{'func.func' op 'lazy.variables' names 2 Variables, which need as many trailing index arguments}}
func.func @too_few_variables(%b: memref<4xf32>, %i: index) attributes {lazy.variables = ["i[1:4]", "j[1:4]"]} {
  return
}

// -----

// expected-error @+1 {{'func.func' op 'lazy.variables' must be an array of strings on a function}}
func.func @variables_not_strings(%i: index) attributes {lazy.variables = [3]} {
  return
}

// -----

func.func @variables_on_an_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'lazy.add' op 'lazy.variables' must be an array of strings on a function}}
  %x = lazy.add %a, %a {lazy.variables = ["i[1:4]"]} : tensor<4xf32>
  return %x : tensor<4xf32>
}

// -----

func.func @send_tag(%a: !lazy.buffer<4xf32>) {
  // expected-error @+1 {{'lazy.send' op tag must be in [0, 32767] (MPI_TAG_UB's least value), got 40000}}
  lazy.send %a to rank 1 tag 40000 : !lazy.buffer<4xf32>
  return
}

// -----

func.func @recv_rank(%a: !lazy.buffer<4xf32>) {
  // expected-error @+1 {{'lazy.recv' op rank must be non-negative, got -1}}
  %r = lazy.recv %a from rank -1 tag 0 : !lazy.buffer<4xf32>
  return
}

// -----

func.func @all_reduce_size(%a: !lazy.buffer<4xf32>, %b: !lazy.buffer<8xf32>) {
  // expected-error @+1 {{'lazy.all_reduce' op reduces '!lazy.buffer<4xf32>' into '!lazy.buffer<8xf32>': the element type and size must agree}}
  %r = lazy.all_reduce "sum" %a into %b : !lazy.buffer<4xf32> -> !lazy.buffer<8xf32>
  return
}

// -----

func.func @all_reduce_half(%a: !lazy.buffer<4xf16>, %b: !lazy.buffer<4xf16>) {
  // expected-error @+1 {{'lazy.all_reduce' op cannot 'sum' 'f16' elements over MPI (sum or max of f32, f64 or 8- to 64-bit integers; max of signed ones only)}}
  %r = lazy.all_reduce "sum" %a into %b : !lazy.buffer<4xf16> -> !lazy.buffer<4xf16>
  return
}

// -----

func.func @all_reduce_unsigned_max(%a: !lazy.buffer<4xui32>, %b: !lazy.buffer<4xui32>) {
  // expected-error @+1 {{'lazy.all_reduce' op cannot 'max' 'ui32' elements over MPI}}
  %r = lazy.all_reduce "max" %a into %b : !lazy.buffer<4xui32> -> !lazy.buffer<4xui32>
  return
}

// -----

func.func @all_reduce_kind(%a: !lazy.buffer<4xf32>, %b: !lazy.buffer<4xf32>) {
  // expected-error @+1 {{'lazy.all_reduce' op cannot 'prod' 'f32' elements over MPI}}
  %r = lazy.all_reduce "prod" %a into %b : !lazy.buffer<4xf32> -> !lazy.buffer<4xf32>
  return
}

// -----

func.func @all_reduce_device(%a: !lazy.buffer<4xf32>, %b: !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>) {
  // expected-error @+1 {{'lazy.all_reduce' op must keep the input buffer's device}}
  %r = lazy.all_reduce "sum" %a into %b : !lazy.buffer<4xf32> -> !lazy.buffer<4xf32, #lazy.device<"CLANG:1">>
  return
}

// -----

// expected-error @+1 {{'func.func' op argument #0: 'lazy.argument' must be a non-negative i64 position}}
func.func private @argument_position(%a: !lazy.buffer<4xf32> {lazy.argument = -1 : i64})

// -----

// expected-error @+1 {{'func.func' op 'lazy.rank' must be a non-negative i64 on a function}}
func.func private @rank_attr(%a: !lazy.buffer<4xf32>) attributes {lazy.rank = "one"}

// -----

// expected-error @+1 {{'builtin.module' op 'lazy.rank_devices' must be a non-empty array of device strings on a module}}
module attributes {lazy.rank_devices = []} {}
