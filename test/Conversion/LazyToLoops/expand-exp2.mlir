// RUN: lazy-opt %s --lazy-expand-exp2 | FileCheck %s
// lazy-expand-exp2 rewrites f32 exp2 (scalar or vector) and leaves other
// widths alone.

// In double: clamp, split into n + f, a degree-12 polynomial, 2^n from
// exponent bits, one rounding to f32; a NaN gives itself.
// CHECK-LABEL: func.func @f32(
// CHECK-SAME: %[[X:.+]]: f32
// CHECK-NOT: math.exp2
// CHECK: %[[XD:.+]] = arith.extf %[[X]] : f32 to f64
// CHECK: %[[LO:.+]] = arith.maxnumf %[[XD]], %{{.+}} : f64
// CHECK: %[[C:.+]] = arith.minnumf %[[LO]], %{{.+}} : f64
// CHECK: %[[N:.+]] = math.roundeven %[[C]] : f64
// CHECK: %[[F:.+]] = arith.subf %[[C]], %[[N]] : f64
// CHECK: arith.mulf %[[F]], %{{.+}} : f64
// CHECK-COUNT-11: arith.mulf %{{.+}}, %[[F]] : f64
// CHECK: %[[NI:.+]] = arith.fptosi %[[N]] : f64 to i64
// CHECK: %[[B:.+]] = arith.shli %{{.+}}, %{{.+}} : i64
// CHECK: %[[P2:.+]] = arith.bitcast %[[B]] : i64 to f64
// CHECK: %[[Y:.+]] = arith.mulf %{{.+}}, %[[P2]] : f64
// CHECK: %[[R32:.+]] = arith.truncf %[[Y]] : f64 to f32
// CHECK: %[[NAN:.+]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK: %[[R:.+]] = arith.select %[[NAN]], %[[X]], %[[R32]] : f32
// CHECK: return %[[R]]
func.func @f32(%x: f32) -> f32 {
  %y = math.exp2 %x : f32
  return %y : f32
}

// CHECK-LABEL: func.func @vector(
// CHECK-NOT: math.exp2
// CHECK: math.roundeven %{{.+}} : vector<8xf64>
// CHECK: arith.truncf %{{.+}} : vector<8xf64> to vector<8xf32>
// CHECK: arith.select %{{.+}} : vector<8xi1>, vector<8xf32>
func.func @vector(%x: vector<8xf32>) -> vector<8xf32> {
  %y = math.exp2 %x : vector<8xf32>
  return %y : vector<8xf32>
}

// CHECK-LABEL: func.func @f64(
// CHECK: math.exp2 %{{.+}} : f64
func.func @f64(%x: f64) -> f64 {
  %y = math.exp2 %x : f64
  return %y : f64
}
