//===- TensorCoreKernel.cpp - a tc plan's kernel body on NVIDIA -----------===//
//
// convert-lazy-to-gpu's tensor-core mode, for a kernel whose plan is `tc`
// (TensorCores.h). Rules:
//   1. a warp computes a 16x8 tile of (M, N) outputs at a time (one
//      element of every other output axis), warp tiles in row-major order
//      of the output axes, grid-stride;
//   2. per 16 elements of K one nvgpu.mma.sync m16n8k16 (f16 operands,
//      f32 accumulators), the accumulators carried through the K loop from
//      zero: the products exact, summed in K order;
//   3. each lane builds its fragments from the operand expressions
//      evaluated at the elements PTX's fragment layout gives it (groupID =
//      lane / 4, threadID_in_group = lane % 4): A's a0..a7 at rows g, g+8
//      and columns 2t, 2t+1, 2t+8, 2t+9; B's b0..b3 at rows 2t, 2t+1,
//      2t+8, 2t+9 and column g;
//   4. the lane's four results (rows g, g+8; columns 2t, 2t+1) go through
//      the rest of the kernel (what the stores compute from the reduce) and
//      are stored one by one.
//
//===----------------------------------------------------------------------===//

#include "TensorCoreKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::lazy;

int64_t mlir::lazy::tensorCoreTileCount(const KernelSpace &space,
                                        const TensorCoreShape &shape) {
  int64_t tiles = 1;
  for (size_t d = 0; d < space.shape.size(); ++d) {
    if (space.reduced[d])
      continue;
    int64_t step = d == shape.m   ? kTensorCoreM
                   : d == shape.n ? kTensorCoreN
                                  : 1;
    tiles *= space.shape[d] / step;
  }
  return tiles;
}

LogicalResult mlir::lazy::emitTensorCoreTiles(
    OpBuilder &b, Location loc, KernelEmitter &emitter,
    ArrayRef<StoreOp> stores, const KernelSpace &space,
    const TensorCoreShape &shape, Value warp, Value warps, Value lane) {
  auto cst = [&](OpBuilder &ib, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ib, loc, v);
  };
  size_t rank = space.shape.size();
  SmallVector<size_t> outputAxes;
  SmallVector<int64_t> tiles, steps;
  for (size_t d = 0; d < rank; ++d) {
    if (space.reduced[d])
      continue;
    int64_t step = d == shape.m   ? kTensorCoreM
                   : d == shape.n ? kTensorCoreN
                                  : 1;
    outputAxes.push_back(d);
    tiles.push_back(space.shape[d] / step);
    steps.push_back(step);
  }
  Value zero = cst(b, 0);
  Value group = arith::DivUIOp::create(b, loc, lane, cst(b, 4));
  Value inGroup = arith::RemUIOp::create(b, loc, lane, cst(b, 4));
  Value pair = arith::MulIOp::create(b, loc, inGroup, cst(b, 2));
  Type f16 = b.getF16Type(), f32 = b.getF32Type();
  auto aType = VectorType::get({4, 2}, f16);
  auto bType = VectorType::get({2, 2}, f16);
  auto cType = VectorType::get({2, 2}, f32);
  auto add = [&](OpBuilder &ib, Value x, int64_t c) -> Value {
    return c ? arith::AddIOp::create(ib, loc, x, cst(ib, c)).getResult() : x;
  };
  auto add2 = [&](OpBuilder &ib, Value x, Value y) -> Value {
    return arith::AddIOp::create(ib, loc, x, y);
  };

  LogicalResult status = success();
  auto tileLoop = scf::ForOp::create(
      b, loc, warp, cst(b, ShapedType::getNumElements(tiles)), warps);
  {
    OpBuilder tb = OpBuilder::atBlockBegin(tileLoop.getBody());
    SmallVector<Value> coords =
        delinearizeIndex(tb, loc, tileLoop.getInductionVar(), tiles, zero);
    // The tile's first output element; reduce axes 0 for now.
    SmallVector<Value> base(rank, zero);
    for (auto [i, d] : llvm::enumerate(outputAxes))
      base[d] = steps[i] > 1 ? arith::MulIOp::create(tb, loc, coords[i],
                                                     cst(tb, steps[i]))
                                   .getResult()
                             : coords[i];
    Value rowG = add2(tb, base[shape.m], group);
    Value colA = pair; // A's column (K) within the 16, B's row
    Value init = arith::ConstantOp::create(
        tb, loc, DenseElementsAttr::get(cType, tb.getF32FloatAttr(0)));
    auto kLoop =
        scf::ForOp::create(tb, loc, cst(tb, 0), cst(tb, space.shape[shape.k]),
                           cst(tb, kTensorCoreK), ValueRange{init});
    {
      OpBuilder kb = OpBuilder::atBlockBegin(kLoop.getBody());
      Value k0 = kLoop.getInductionVar();
      Value kLane = add2(kb, k0, colA);
      auto at = [&](Value row, Value col, Value kk) {
        SmallVector<Value> idx = base;
        idx[shape.m] = row;
        idx[shape.n] = col;
        idx[shape.k] = kk;
        return idx;
      };
      SmallVector<Value> aParts, bParts;
      // a0..a7: register r holds rows g + 8 (r & 1), columns 2t + j +
      // 8 (r >> 1).
      for (int64_t r = 0; r < 4 && succeeded(status); ++r)
        for (int64_t j = 0; j < 2; ++j) {
          FailureOr<Value> v =
              emitter.evaluateAt(kb, shape.a,
                                 at(add(kb, rowG, 8 * (r & 1)), base[shape.n],
                                    add(kb, kLane, j + 8 * (r >> 1))));
          if (failed(v)) {
            status = failure();
            break;
          }
          aParts.push_back(*v);
        }
      // b0..b3: register r holds rows 2t + j + 8r, column g.
      Value colB = add2(kb, base[shape.n], group);
      for (int64_t r = 0; r < 2 && succeeded(status); ++r)
        for (int64_t j = 0; j < 2; ++j) {
          FailureOr<Value> v = emitter.evaluateAt(
              kb, shape.b, at(base[shape.m], colB, add(kb, kLane, j + 8 * r)));
          if (failed(v)) {
            status = failure();
            break;
          }
          bParts.push_back(*v);
        }
      Value acc = kLoop.getRegionIterArgs()[0];
      if (succeeded(status)) {
        Value aFrag = vector::FromElementsOp::create(kb, loc, aType, aParts);
        Value bFrag = vector::FromElementsOp::create(kb, loc, bType, bParts);
        acc = nvgpu::MmaSyncOp::create(
            kb, loc, aFrag, bFrag, acc,
            ArrayRef<int64_t>{kTensorCoreM, kTensorCoreN, kTensorCoreK});
      }
      scf::YieldOp::create(kb, loc, acc);
    }
    if (succeeded(status)) {
      // The lane's results: rows g and g + 8, columns 2t and 2t + 1.
      Value colC = add2(tb, base[shape.n], pair);
      SmallVector<SmallVector<Value>> elements;
      SmallVector<Value> values;
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t j = 0; j < 2; ++j) {
          SmallVector<Value> idx = base;
          idx[shape.k] = zero;
          idx[shape.m] = add(tb, rowG, 8 * r);
          idx[shape.n] = add(tb, colC, j);
          elements.push_back(std::move(idx));
          values.push_back(vector::ExtractOp::create(
              tb, loc, kLoop.getResult(0), ArrayRef<int64_t>{r, j}));
        }
      if (failed(emitter.emitStoresOfReduce(tb, stores, elements, shape.reduce,
                                            values)))
        status = failure();
    }
  }
  if (failed(status))
    tileLoop.erase();
  return status;
}
