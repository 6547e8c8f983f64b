// A failed write (a full device here) is an error with the tool's name,
// the path and the reason, and exit code 1; LLVM's streams would otherwise
// end the process with "LLVM ERROR: IO failure on output stream".
// RUN: not lazy-opt %s -o /dev/full 2>&1 | FileCheck %s --check-prefix=OPT-FILE --implicit-check-not="LLVM ERROR"
// RUN: not lazy-opt %s > /dev/full 2> %t.err; FileCheck %s --check-prefix=OPT-STDOUT --implicit-check-not="LLVM ERROR" < %t.err
// RUN: not lazy-interp %s --print > /dev/full 2> %t.err; FileCheck %s --check-prefix=INTERP --implicit-check-not="LLVM ERROR" < %t.err
// RUN: not lazy-run %s --check > /dev/full 2> %t.err; FileCheck %s --check-prefix=EXEC --implicit-check-not="LLVM ERROR" < %t.err
// A path that is not a regular file is written in place: /dev/stdout.
// RUN: lazy-opt %s -o /dev/stdout | FileCheck %s
// OPT-FILE: lazy-opt: error: cannot write '/dev/full': No space left on device
// OPT-STDOUT: lazy-opt: error: cannot write to standard output: No space left on device
// INTERP: lazy-interp: error: cannot write to standard output: No space left on device
// EXEC: lazy-run: error: cannot write to standard output: No space left on device
// CHECK: func.func @sum
func.func @sum() -> tensor<1xf32> {
  %c = lazy.const 2.0 : tensor<f32>
  %v = lazy.view %c as <[(4):(0)]> : tensor<f32> -> tensor<4xf32>
  %s = lazy.reduce_sum %v axes [0] : tensor<4xf32> -> tensor<1xf32>
  return %s : tensor<1xf32>
}
