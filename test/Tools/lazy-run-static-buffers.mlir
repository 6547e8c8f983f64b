// RUN: lazy-run %s --seed=3 --check --repeat=2 | FileCheck %s
// RUN: rm -rf %t.obj && lazy-run %s --seed=3 --compile-threads=1 --dump-objects=%t.obj
// RUN: llvm-nm %t.obj/whole.o | FileCheck %s --check-prefix=OBJ
// RUN: llvm-size -A %t.obj/whole.o | FileCheck %s --check-prefix=SIZE
// lazy-to-cpu's static buffers of at least 1 MiB (here the 4 MiB
// intermediate and output) are mapped by the compiled program, not linked
// into its object, whose .bss the JIT would zero-fill page by page: the
// object only refers to them. The buffers keep their contents' meaning
// across runs (each run rewrites them) and match the interpreter.
// CHECK: time: median
// CHECK: out0: match
// CHECK: all outputs match
// OBJ-DAG: U __lazy_buffer{{$}}
// OBJ-DAG: U __lazy_buffer_1{{$}}
// SIZE-NOT: bss {{ *[0-9][0-9][0-9][0-9][0-9][0-9][0-9]}}
// SIZE: Total
func.func @graph(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %s = lazy.reduce_sum %a axes [1] : tensor<1024x1024xf32> -> tensor<1024x1xf32>
  %sv = lazy.view %s as <[(1024, 1024):(1, 0)]> : tensor<1024x1xf32> -> tensor<1024x1024xf32>
  %t = lazy.mul %b, %b : tensor<1024x1024xf32>
  %c = lazy.contiguous %t : tensor<1024x1024xf32>
  %d = lazy.add %c, %sv : tensor<1024x1024xf32>
  return %d : tensor<1024x1024xf32>
}
