// Driver for sum_add.mlir: a[i] = i, b[i] = 100 * i, prints step(a, b).
// The scheduled function takes its buffers as bytes.
func.func private @printMemrefF32(memref<*xf32>)
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %hundred = arith.constant 100.0 : f32
  %a_bytes = memref.alloc() : memref<64xi8>
  %a = memref.view %a_bytes[%c0][] : memref<64xi8> to memref<16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    %n = arith.index_cast %i : index to i32
    %x = arith.sitofp %n : i32 to f32
    memref.store %x, %a[%i] : memref<16xf32>
  }
  %b_bytes = memref.alloc() : memref<16xi8>
  %b = memref.view %b_bytes[%c0][] : memref<16xi8> to memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %n = arith.index_cast %i : index to i32
    %x = arith.sitofp %n : i32 to f32
    %y = arith.mulf %x, %hundred : f32
    memref.store %y, %b[%i] : memref<4xf32>
  }
  %r = call @step(%a_bytes, %b_bytes) : (memref<64xi8>, memref<16xi8>) -> memref<4xf32>
  %u = memref.cast %r : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
