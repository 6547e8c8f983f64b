// out = (a.T)[:, 1:3].sum(1, keepdim=True) + b, as tinygrad 0.9.2 builds it
// before scheduling: `a` (4x4) and `b` (4x1) are realized buffers, `a.T` and
// the slice are movement ops that lazy-fold-views turns into one view of `a`.
module attributes {lazy.default_device = "CLANG",
                   lazy.flags = {multi_output = true, fuse_conv_bw = false,
                                 fuse_arange = false, use_copy_kernel = false}} {
  func.func @step(%a: tensor<4x4xf32> {lazy.buffer = 0 : i64},
                  %b: tensor<4x1xf32> {lazy.buffer = 1 : i64}) -> tensor<4x1xf32> {
    %t = lazy.permute %a [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32> loc("T")
    %s = lazy.shrink %t [(0, 4), (1, 3)] : tensor<4x4xf32> -> tensor<4x2xf32> loc("__getitem__")
    %r = lazy.reduce_sum %s axes [1] : tensor<4x2xf32> -> tensor<4x1xf32> loc("sum")
    %o = lazy.add %r, %b : tensor<4x1xf32> loc("__add__")
    return %o : tensor<4x1xf32>
  }
}
