// RUN: lazy-opt %s --lazy-expand-exp2 | FileCheck %s
// RUN: lazy-opt %s --lazy-expand-exp2=fast=true | FileCheck %s --check-prefix=FAST
// RUN: lazy-opt %s --lazy-expand-exp2=vector-ldexp=true | FileCheck %s --check-prefix=LDEXP
// RUN: lazy-opt %s --lazy-expand-exp2="fast=true vector-ldexp=true" | FileCheck %s --check-prefix=FASTLDEXP
// RUN: lazy-opt %s --lazy-expand-exp2="fast=true vector-ldexp=true x86-scalef=true" | FileCheck %s --check-prefix=SCALEF
// lazy-expand-exp2 rewrites f32 exp2 (scalar or vector) and leaves other
// widths alone.

// By default: clamp, split into n + f (exact in f32), a degree-12
// polynomial in double whose multiply-adds may fuse, 2^n from exponent
// bits, one rounding to f32; a NaN gives itself.
// CHECK-LABEL: func.func @f32(
// CHECK-SAME: %[[X:.+]]: f32
// CHECK-NOT: math.exp2
// CHECK: %[[LO:.+]] = arith.maxnumf %[[X]], %{{.+}} : f32
// CHECK: %[[C:.+]] = arith.minnumf %[[LO]], %{{.+}} : f32
// CHECK: %[[N:.+]] = math.roundeven %[[C]] : f32
// CHECK: %[[F:.+]] = arith.subf %[[C]], %[[N]] : f32
// CHECK: %[[FD:.+]] = arith.extf %[[F]] : f32 to f64
// CHECK: arith.mulf %[[FD]], %{{.+}} fastmath<contract> : f64
// CHECK-COUNT-11: arith.mulf %{{.+}}, %[[FD]] fastmath<contract> : f64
// CHECK: %[[P:.+]] = arith.addf %{{.+}} fastmath<contract> : f64
// CHECK: %[[NI:.+]] = arith.fptosi %[[N]] : f32 to i64
// CHECK: %[[B:.+]] = arith.shli %{{.+}}, %{{.+}} : i64
// CHECK: %[[P2:.+]] = arith.bitcast %[[B]] : i64 to f64
// CHECK: %[[Y:.+]] = arith.mulf %[[P]], %[[P2]] : f64
// CHECK: %[[R32:.+]] = arith.truncf %[[Y]] : f64 to f32
// CHECK: %[[NAN:.+]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK: %[[R:.+]] = arith.select %[[NAN]], %[[X]], %[[R32]] : f32
// CHECK: return %[[R]]

// fast: in f32, a degree-6 polynomial, 2^n as two multiplications by
// powers of two built from exponent bits (n>>1 and n - (n>>1)).
// FAST-LABEL: func.func @f32(
// FAST-SAME: %[[X:.+]]: f32
// FAST-NOT: math.exp2
// FAST-NOT: f64
// FAST: %[[LO:.+]] = arith.maxnumf %[[X]], %{{.+}} : f32
// FAST: %[[C:.+]] = arith.minnumf %[[LO]], %{{.+}} : f32
// FAST: %[[N:.+]] = math.roundeven %[[C]] : f32
// FAST: %[[F:.+]] = arith.subf %[[C]], %[[N]] : f32
// FAST: arith.mulf %[[F]], %{{.+}} fastmath<contract> : f32
// FAST-COUNT-5: arith.mulf %{{.+}}, %[[F]] fastmath<contract> : f32
// FAST: %[[P:.+]] = arith.addf %{{.+}} fastmath<contract> : f32
// FAST: %[[NI:.+]] = arith.fptosi %[[N]] : f32 to i32
// FAST: %[[HALF:.+]] = arith.shrsi %[[NI]], %{{.+}} : i32
// FAST: %[[REST:.+]] = arith.subi %[[NI]], %[[HALF]] : i32
// FAST: %[[B1:.+]] = arith.addi %[[HALF]], %{{.+}} : i32
// FAST: %[[S1:.+]] = arith.shli %[[B1]], %{{.+}} : i32
// FAST: %[[P1:.+]] = arith.bitcast %[[S1]] : i32 to f32
// FAST: %[[Y1:.+]] = arith.mulf %[[P]], %[[P1]] : f32
// FAST: %[[B2:.+]] = arith.addi %[[REST]], %{{.+}} : i32
// FAST: %[[S2:.+]] = arith.shli %[[B2]], %{{.+}} : i32
// FAST: %[[P2:.+]] = arith.bitcast %[[S2]] : i32 to f32
// FAST: %[[Y:.+]] = arith.mulf %[[Y1]], %[[P2]] : f32
// FAST: %[[NAN:.+]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// FAST: %[[R:.+]] = arith.select %[[NAN]], %[[X]], %[[Y]] : f32
// FAST: return %[[R]]

// vector-ldexp leaves scalars as they are.
// LDEXP-LABEL: func.func @f32(
// LDEXP-NOT: llvm.call_intrinsic
// LDEXP: arith.shli
// LDEXP: return
// FASTLDEXP-LABEL: func.func @f32(
// FASTLDEXP-NOT: llvm.call_intrinsic
// FASTLDEXP: arith.shrsi
// FASTLDEXP: return
func.func @f32(%x: f32) -> f32 {
  %y = math.exp2 %x : f32
  return %y : f32
}

// CHECK-LABEL: func.func @vector(
// CHECK-NOT: math.exp2
// CHECK: math.roundeven %{{.+}} : vector<8xf32>
// CHECK: arith.extf %{{.+}} : vector<8xf32> to vector<8xf64>
// CHECK: arith.truncf %{{.+}} : vector<8xf64> to vector<8xf32>
// CHECK: arith.select %{{.+}} : vector<8xi1>, vector<8xf32>
// FAST-LABEL: func.func @vector(
// FAST: math.roundeven %{{.+}} : vector<8xf32>
// FAST: arith.shrsi %{{.+}} : vector<8xi32>
// FAST: arith.select %{{.+}} : vector<8xi1>, vector<8xf32>

// vector-ldexp: 2^n applied by one llvm.ldexp of the integer n, in double
// before the rounding to f32 (so that subnormal results round once), or
// in f32 with fast.
// LDEXP-LABEL: func.func @vector(
// LDEXP: %[[N:.+]] = math.roundeven %{{.+}} : vector<8xf32>
// LDEXP: %[[NI:.+]] = arith.fptosi %[[N]] : vector<8xf32> to vector<8xi32>
// LDEXP-NOT: arith.shli
// LDEXP: %[[Y:.+]] = llvm.call_intrinsic "llvm.ldexp"(%{{.+}}, %[[NI]]) : (vector<8xf64>, vector<8xi32>) -> vector<8xf64>
// LDEXP: %[[R:.+]] = arith.truncf %[[Y]] : vector<8xf64> to vector<8xf32>
// LDEXP: arith.select %{{.+}}, %{{.+}}, %[[R]] : vector<8xi1>, vector<8xf32>
// FASTLDEXP-LABEL: func.func @vector(
// FASTLDEXP: %[[N:.+]] = math.roundeven %{{.+}} : vector<8xf32>
// FASTLDEXP: %[[NI:.+]] = arith.fptosi %[[N]] : vector<8xf32> to vector<8xi32>
// FASTLDEXP-NOT: arith.shrsi
// FASTLDEXP: %[[Y:.+]] = llvm.call_intrinsic "llvm.ldexp"(%{{.+}}, %[[NI]]) : (vector<8xf32>, vector<8xi32>) -> vector<8xf32>
// FASTLDEXP: arith.select %{{.+}}, %{{.+}}, %[[Y]] : vector<8xi1>, vector<8xf32>
// SCALEF-LABEL: func.func @vector(
// SCALEF-NOT: scalef
// SCALEF: llvm.ldexp
func.func @vector(%x: vector<8xf32>) -> vector<8xf32> {
  %y = math.exp2 %x : vector<8xf32>
  return %y : vector<8xf32>
}

// x86-scalef (with fast): a vector of 16 f32 is clamped by compares and
// selects that keep a NaN, and AVX-512's scalef applies 2^n with n a
// float: no integer conversion, no NaN select. Other widths as before.
// SCALEF-LABEL: func.func @vector16(
// SCALEF-SAME: %[[X:.+]]: vector<16xf32>
// SCALEF: %[[BELOW:.+]] = arith.cmpf olt, %[[X]], %[[LO:.+]] : vector<16xf32>
// SCALEF: %[[L:.+]] = arith.select %[[BELOW]], %[[LO]], %[[X]]
// SCALEF: %[[ABOVE:.+]] = arith.cmpf ogt, %[[L]], %[[HI:.+]] : vector<16xf32>
// SCALEF: %[[C:.+]] = arith.select %[[ABOVE]], %[[HI]], %[[L]]
// SCALEF: %[[N:.+]] = math.roundeven %[[C]] : vector<16xf32>
// SCALEF-NOT: arith.fptosi
// SCALEF-COUNT-6: arith.addf %{{.+}} fastmath<contract> : vector<16xf32>
// SCALEF: %[[Y:.+]] = llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.512"(%[[P:[0-9a-z_]+]], %[[N]], %[[P]], %{{.+}}, %{{.+}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>, i16, i32) -> vector<16xf32>
// SCALEF-NOT: arith.select
// SCALEF: return %[[Y]]
// CHECK-LABEL: func.func @vector16(
// CHECK-NOT: scalef
// CHECK: arith.truncf %{{.+}} : vector<16xf64> to vector<16xf32>
func.func @vector16(%x: vector<16xf32>) -> vector<16xf32> {
  %y = math.exp2 %x : vector<16xf32>
  return %y : vector<16xf32>
}

// CHECK-LABEL: func.func @f64(
// CHECK: math.exp2 %{{.+}} : f64
// FAST-LABEL: func.func @f64(
// FAST: math.exp2 %{{.+}} : f64
func.func @f64(%x: f64) -> f64 {
  %y = math.exp2 %x : f64
  return %y : f64
}
