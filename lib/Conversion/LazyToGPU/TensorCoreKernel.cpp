//===- TensorCoreKernel.cpp - a tc plan's kernel body ---------------------===//
//
// convert-lazy-to-gpu's tensor-core mode, for a kernel whose plan is `tc`
// (TensorCores.h). Rules:
//   1. a block of one warp (NVIDIA, AMD RDNA3: 32 lanes) or wave (AMD
//      CDNA: 64) computes one instruction tile at a time, 16 rows of M by
//      8 (mma.sync) or 16 (mfma, wmma) columns of N, one element of every
//      other output axis; tiles in row-major order of the output axes,
//      grid-stride;
//   2. per 16 elements of K one instruction (nvgpu.mma.sync m16n8k16,
//      amdgpu.mfma 16x16x16, amdgpu.wmma 16x16x16; f16 operands, f32
//      accumulators carried through the K loop from zero);
//   3. each lane builds its fragments from the operand expressions
//      evaluated at the elements its instruction's layout gives it
//      (fragmentsOf: PTX's, AMD's matrix instruction layouts);
//   4. the lane's results go through the rest of the kernel (what the
//      stores compute from the reduce) and are stored one by one.
//
//===----------------------------------------------------------------------===//

#include "TensorCoreKernel.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::lazy;

namespace {

/// Per output axis of the space, the instruction tile's extent along it.
SmallVector<int64_t> tileSteps(const KernelSpace &space,
                               const TensorCoreShape &shape,
                               TensorCoreKind kind) {
  SmallVector<int64_t> steps;
  for (size_t d = 0; d < space.shape.size(); ++d)
    if (!space.reduced[d])
      steps.push_back(d == shape.m   ? kTensorCoreM
                      : d == shape.n ? tensorCoreTileColumns(kind)
                                     : 1);
  return steps;
}

/// One fragment element's place in its matrix: row and column, each a
/// lane-derived value (null: 0) plus a constant.
struct Coord {
  Value rowLane;
  int64_t row;
  Value colLane;
  int64_t col;
};

/// A lane's fragments: A's elements as (m, k), B's as (k, n), C's and D's
/// as (m, n), in the order of the flattened vectors.
struct Fragments {
  SmallVector<Coord> a, b, c;
  VectorType aType, bType, cType;
};

Fragments fragmentsOf(OpBuilder &b, Location loc, TensorCoreKind kind,
                      Value lane) {
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto div = [&](int64_t v) -> Value {
    return arith::DivUIOp::create(b, loc, lane, cst(v));
  };
  auto rem = [&](int64_t v) -> Value {
    return arith::RemUIOp::create(b, loc, lane, cst(v));
  };
  auto times = [&](Value x, int64_t v) -> Value {
    return arith::MulIOp::create(b, loc, x, cst(v));
  };
  Type f16 = b.getF16Type(), f32 = b.getF32Type();
  Fragments f;
  switch (kind) {
  case TensorCoreKind::MmaSync: {
    // PTX: groupID g = lane / 4, threadID_in_group t = lane % 4. A's
    // register r holds row g + 8 (r & 1), columns 2t + j + 8 (r >> 1); B's
    // rows 2t + j + 8r, column g; C's rows g + 8r, columns 2t + j.
    Value g = div(4), t2 = times(rem(4), 2);
    for (int64_t r = 0; r < 4; ++r)
      for (int64_t j = 0; j < 2; ++j)
        f.a.push_back({g, 8 * (r & 1), t2, j + 8 * (r >> 1)});
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t j = 0; j < 2; ++j) {
        f.b.push_back({t2, j + 8 * r, g, 0});
        f.c.push_back({g, 8 * r, t2, j});
      }
    f.aType = VectorType::get({4, 2}, f16);
    f.bType = VectorType::get({2, 2}, f16);
    f.cType = VectorType::get({2, 2}, f32);
    break;
  }
  case TensorCoreKind::Mfma: {
    // v_mfma_f32_16x16x16f16: lane l's A elements are row l % 16, columns
    // 4 (l / 16) + i; B's rows 4 (l / 16) + i, column l % 16; C's rows
    // 4 (l / 16) + i, column l % 16.
    Value r16 = rem(16), q4 = times(div(16), 4);
    for (int64_t i = 0; i < 4; ++i) {
      f.a.push_back({r16, 0, q4, i});
      f.b.push_back({q4, i, r16, 0});
      f.c.push_back({q4, i, r16, 0});
    }
    f.aType = f.bType = VectorType::get({4}, f16);
    f.cType = VectorType::get({4}, f32);
    break;
  }
  case TensorCoreKind::Wmma: {
    // v_wmma_f32_16x16x16_f16 (wave32): lane l's A elements are row l % 16,
    // every column (lanes 16-31 repeat lanes 0-15); B's every row, column
    // l % 16; C's rows 2i + l / 16, column l % 16.
    Value r16 = rem(16), h = div(16);
    for (int64_t i = 0; i < 16; ++i) {
      f.a.push_back({r16, 0, Value(), i});
      f.b.push_back({Value(), i, r16, 0});
    }
    for (int64_t i = 0; i < 8; ++i)
      f.c.push_back({h, 2 * i, r16, 0});
    f.aType = f.bType = VectorType::get({16}, f16);
    f.cType = VectorType::get({8}, f32);
    break;
  }
  }
  return f;
}

} // namespace

int64_t mlir::lazy::tensorCoreTileCount(const KernelSpace &space,
                                        const TensorCoreShape &shape,
                                        TensorCoreKind kind) {
  SmallVector<int64_t> steps = tileSteps(space, shape, kind);
  int64_t tiles = 1, i = 0;
  for (size_t d = 0; d < space.shape.size(); ++d)
    if (!space.reduced[d])
      tiles *= space.shape[d] / steps[size_t(i++)];
  return tiles;
}

LogicalResult mlir::lazy::emitTensorCoreTiles(OpBuilder &b, Location loc,
                                              KernelEmitter &emitter,
                                              ArrayRef<StoreOp> stores,
                                              const KernelSpace &space,
                                              const TensorCoreShape &shape,
                                              TensorCoreKind kind, Value group,
                                              Value groups, Value lane) {
  auto cst = [&](OpBuilder &ib, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ib, loc, v);
  };
  // base + laneTerm + c, skipping the terms that are absent or 0.
  auto at = [&](OpBuilder &ib, Value base, Value laneTerm, int64_t c) {
    Value v = base;
    if (laneTerm)
      v = arith::AddIOp::create(ib, loc, v, laneTerm);
    if (c)
      v = arith::AddIOp::create(ib, loc, v, cst(ib, c));
    return v;
  };
  size_t rank = space.shape.size();
  SmallVector<size_t> outputAxes;
  SmallVector<int64_t> tiles, steps = tileSteps(space, shape, kind);
  for (size_t d = 0; d < rank; ++d)
    if (!space.reduced[d]) {
      outputAxes.push_back(d);
      tiles.push_back(space.shape[d] / steps[outputAxes.size() - 1]);
    }
  if (space.shape[shape.n] % tensorCoreTileColumns(kind) != 0)
    return emitError(loc, "a tensor-core plan on this target needs N a "
                          "multiple of ")
           << tensorCoreTileColumns(kind) << "; it is " << space.shape[shape.n];
  Value zero = cst(b, 0);
  Fragments frag = fragmentsOf(b, loc, kind, lane);

  LogicalResult status = success();
  auto tileLoop = scf::ForOp::create(
      b, loc, group, cst(b, ShapedType::getNumElements(tiles)), groups);
  OpBuilder tb = OpBuilder::atBlockBegin(tileLoop.getBody());
  SmallVector<Value> coords =
      delinearizeIndex(tb, loc, tileLoop.getInductionVar(), tiles, zero);
  // The tile's first output element; reduce axes 0 for now.
  SmallVector<Value> base(rank, zero);
  for (auto [i, d] : llvm::enumerate(outputAxes))
    base[d] = steps[i] > 1
                  ? arith::MulIOp::create(tb, loc, coords[i], cst(tb, steps[i]))
                        .getResult()
                  : coords[i];
  Value init = arith::ConstantOp::create(
      tb, loc, DenseElementsAttr::get(frag.cType, tb.getF32FloatAttr(0)));
  auto kLoop =
      scf::ForOp::create(tb, loc, cst(tb, 0), cst(tb, space.shape[shape.k]),
                         cst(tb, kTensorCoreK), ValueRange{init});
  {
    OpBuilder kb = OpBuilder::atBlockBegin(kLoop.getBody());
    Value k0 = kLoop.getInductionVar();
    // The operand at (m, n, k) = (base's, or the coordinate given).
    auto gather = [&](Value operand, ArrayRef<Coord> coords, bool isA,
                      SmallVector<Value> &parts) {
      for (const Coord &c : coords) {
        SmallVector<Value> idx = base;
        if (isA) {
          idx[shape.m] = at(kb, base[shape.m], c.rowLane, c.row);
          idx[shape.k] = at(kb, k0, c.colLane, c.col);
        } else {
          idx[shape.k] = at(kb, k0, c.rowLane, c.row);
          idx[shape.n] = at(kb, base[shape.n], c.colLane, c.col);
        }
        FailureOr<Value> v = emitter.evaluateAt(kb, operand, idx);
        if (failed(v))
          return failure();
        parts.push_back(*v);
      }
      return success();
    };
    SmallVector<Value> aParts, bParts;
    Value acc = kLoop.getRegionIterArgs()[0];
    if (failed(gather(shape.a, frag.a, true, aParts)) ||
        failed(gather(shape.b, frag.b, false, bParts))) {
      status = failure();
    } else {
      Value aFrag = vector::FromElementsOp::create(kb, loc, frag.aType, aParts);
      Value bFrag = vector::FromElementsOp::create(kb, loc, frag.bType, bParts);
      auto i32 = [&](int64_t v) { return kb.getI32IntegerAttr(int32_t(v)); };
      switch (kind) {
      case TensorCoreKind::MmaSync:
        acc = nvgpu::MmaSyncOp::create(
            kb, loc, aFrag, bFrag, acc,
            ArrayRef<int64_t>{kTensorCoreM, kTensorCoreN, kTensorCoreK});
        break;
      case TensorCoreKind::Mfma:
        acc = amdgpu::MFMAOp::create(kb, loc, frag.cType, i32(16), i32(16),
                                     i32(16), i32(1), aFrag, bFrag, acc);
        break;
      case TensorCoreKind::Wmma:
        acc = amdgpu::WMMAOp::create(kb, loc, frag.cType, i32(16), i32(16),
                                     i32(16), aFrag, bFrag, acc);
        break;
      }
    }
    scf::YieldOp::create(kb, loc, acc);
  }
  if (succeeded(status)) {
    // The lane's results, in the flattened accumulator's order.
    Value flat = vector::ShapeCastOp::create(
        tb, loc,
        VectorType::get({frag.cType.getNumElements()}, tb.getF32Type()),
        kLoop.getResult(0));
    SmallVector<SmallVector<Value>> elements;
    SmallVector<Value> values;
    for (auto [i, c] : llvm::enumerate(frag.c)) {
      SmallVector<Value> idx = base;
      idx[shape.m] = at(tb, base[shape.m], c.rowLane, c.row);
      idx[shape.n] = at(tb, base[shape.n], c.colLane, c.col);
      elements.push_back(std::move(idx));
      values.push_back(
          vector::ExtractOp::create(tb, loc, flat, int64_t(i)).getResult());
    }
    if (failed(emitter.emitStoresOfReduce(tb, stores, elements, shape.reduce,
                                          values)))
      status = failure();
  }
  if (failed(status))
    tileLoop.erase();
  return status;
}
