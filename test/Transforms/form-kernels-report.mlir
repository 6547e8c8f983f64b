// RUN: lazy-opt %s --lazy-mark-realize --lazy-group "--lazy-form-kernels=report=true" -split-input-file -verify-diagnostics -o /dev/null
// RUN: lazy-opt %s "--lazy-form-kernels=decide=true report=true" -split-input-file -verify-diagnostics -o /dev/null
// lazy-form-kernels' report: how many groups were lowered and how many
// launched an earlier group's kernel without being lowered, because they
// were described alike (same ops, views and pattern of buffers).

// x*x and y*y are described alike, as are y+x and x+y, and the two sums
// through a transposed view; x*y reads two buffers, so it is its own.
// expected-remark @+1 {{7 items, 4 distinct kernels: 4 groups lowered, 3 launched an earlier group's kernel unlowered; 7 launches move 304 bytes}}
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

// A description is stricter than a kernel: these copies differ in the
// metadata of their contiguous ops, which a kernel does not carry (only
// computed ops name it), so both are lowered and then share one kernel.
// expected-remark @+1 {{2 items, 1 distinct kernels: 2 groups lowered, 0 launched an earlier group's kernel unlowered; 2 launches move 64 bytes}}
func.func @planned(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = lazy.contiguous %x : tensor<4xf32> loc("a")
  %1 = lazy.contiguous %y : tensor<4xf32> loc("b")
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
