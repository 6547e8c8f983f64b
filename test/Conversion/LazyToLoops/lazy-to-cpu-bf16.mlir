// lazy-to-cpu computes bfloat16 in software: arithmetic and math in f32,
// conversions by integer rounding. LLVM would otherwise round with the
// host's bfloat16 conversion instructions where it has them, which flush
// subnormals to zero: results would depend on the machine and differ from
// the reference interpreter's. (python/tests/test_float_rounding.py runs it.)
// RUN: lazy-opt %s --lazy-to-cpu=fast-exp2=false | FileCheck %s --check-prefixes=CHECK,ROUNDED
// RUN: lazy-opt %s --lazy-to-cpu | FileCheck %s --check-prefixes=CHECK,FAST
// RUN: lazy-opt %s --lazy-to-cpu | FileCheck %s --check-prefix=NO-FP-BF16

// CHECK-LABEL: llvm.func @graph_k0(
// CHECK: llvm.load %{{.+}} : !llvm.ptr -> bf16
// CHECK: llvm.bitcast %{{.+}} : bf16 to i16
// CHECK: llvm.fmul %{{.+}}, %{{.+}} : f32
// CHECK: llvm.bitcast %{{.+}} : i16 to bf16
// CHECK-LABEL: llvm.func @graph_k1(
// exp2 in f32, expanded by lazy-expand-exp2 (a scalar: no ldexp): by
// default (fast-exp2) a polynomial in f32, with fast-exp2=false one in
// double.
// CHECK: llvm.intr.roundeven(%{{.+}}) : (f32) -> f32
// ROUNDED: llvm.fpext %{{.+}} : f32 to f64
// FAST-NOT: llvm.fpext
// FAST: llvm.fmul %{{.+}}, %{{.+}} {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NOT: llvm.ldexp
// CHECK: llvm.bitcast %{{.+}} : i16 to bf16
// CHECK-LABEL: llvm.func @graph(
// NO-FP-BF16-NOT: llvm.fptrunc {{.*}} to bf16
// NO-FP-BF16-NOT: llvm.fpext {{.*}} : bf16 to
// NO-FP-BF16-NOT: (bf16) -> bf16
// NO-FP-BF16-NOT: : bf16{{$}}
func.func @graph(%a: tensor<4xbf16>, %b: tensor<4xbf16>) -> (tensor<4xbf16>, tensor<4xbf16>) {
  %0 = lazy.mul %a, %b : tensor<4xbf16>
  %1 = lazy.exp2 %0 : tensor<4xbf16>
  return %0, %1 : tensor<4xbf16>, tensor<4xbf16>
}
