// RUN: lazy-opt %s "--lazy-form-kernels=report=true" -split-input-file -verify-diagnostics -o /dev/null
// lazy-form-kernels' report (the figures of its pass statistics): how many
// groups were lowered and how many launched an earlier group's kernel
// without being lowered, because they were described alike (same ops,
// views and pattern of buffers); the ops the launches fuse, the bytes they
// move; the realizes by reason.

// x*x and y*y are described alike, as are y+x and x+y, and the two sums
// through a transposed view; x*y reads two buffers, so it is its own.
// expected-remark @+1 {{7 items, 4 distinct kernels: 4 groups lowered, 3 launched an earlier group's kernel unlowered; 7 launches fuse 7 ops and move 304 bytes; realized: 7 outputs, 0 meta or forced, 0 copy sources, 0 expanded, 0 by later rules}}
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
// expected-remark @+1 {{2 items, 1 distinct kernels: 2 groups lowered, 0 launched an earlier group's kernel unlowered; 2 launches fuse 0 ops and move 64 bytes; realized: 2 outputs, 0 meta or forced, 0 copy sources, 0 expanded, 0 by later rules}}
func.func @planned(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = lazy.contiguous %x : tensor<4xf32> loc("a")
  %1 = lazy.contiguous %y : tensor<4xf32> loc("b")
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Realizes by reason: the outputs (one a copy, a meta op), a contiguous
// (meta), the copy's source, a base a view expands. Five items: four
// kernels and the copy. The launches fuse the exp2, the add and the neg (3
// ops; the contiguous's kernel only copies) and move 32 + 32 + 144 + 32
// bytes.
// expected-remark @+1 {{5 items, 4 distinct kernels: 4 groups lowered, 0 launched an earlier group's kernel unlowered; 4 launches fuse 3 ops and move 240 bytes; realized: 2 outputs, 1 meta or forced, 1 copy sources, 1 expanded, 0 by later rules}}
func.func @reasons(%x: tensor<4x4xf32>, %y: tensor<4xf32>) -> (tensor<4x4xf32>, tensor<4xf32, #lazy.device<"CUDA">>) {
  %k = lazy.contiguous %y : tensor<4xf32>
  %e = lazy.exp2 %k : tensor<4xf32>
  %ev = lazy.view %e as <[(4, 4):(1, 0)]> : tensor<4xf32> -> tensor<4x4xf32>
  %a = lazy.add %x, %ev : tensor<4x4xf32>
  %n = lazy.neg %y : tensor<4xf32>
  %c = lazy.copy %n : tensor<4xf32> -> tensor<4xf32, #lazy.device<"CUDA">>
  return %a, %c : tensor<4x4xf32>, tensor<4xf32, #lazy.device<"CUDA">>
}
