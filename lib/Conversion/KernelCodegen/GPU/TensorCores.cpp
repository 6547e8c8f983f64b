//===- TensorCores.cpp - a tc plan's kernel body --------------------------===//
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
// With block tiles (steps beside `tc`: local warps and upcast instruction
// tiles per warp on M and N, K's unroll a chunk), instead:
//   5. a block of local(M) x local(N) warps takes a block tile at a time,
//      each warp upcast(M) x upcast(N) instruction tiles of it, warp w at
//      row w / local(N), column w % local(N) of the block's warp tiles;
//   6. per chunk of K: a barrier, the block stages both operands
//      (SharedTiles.h) as rows of K, [m][k] and [n][k], each row
//      padded by kTensorCoreRowPad, a barrier; then per 16 of K each warp
//      reads its tiles' fragments from shared memory, one vector load per
//      run of a lane's consecutive K elements (2 on mma.sync, 4 on MFMA,
//      8 on WMMA), and issues one instruction per tile, each A fragment
//      serving upcast(N) of them and each B fragment upcast(M).
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/KernelCodegen/GPU/TensorCores.h"
#include "lazy/Conversion/KernelCodegen/GPU/SharedTiles.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::lazy;

namespace {

/// Per axis of the space, the instruction tile's extent along it (1 on
/// reduce axes).
SmallVector<int64_t> tileSteps(const KernelSpace &space,
                               const TensorCoreShape &shape,
                               TensorCoreKind kind) {
  SmallVector<int64_t> steps;
  for (size_t d = 0; d < space.shape.size(); ++d)
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
                      Value lane, Type element) {
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
  // The operands' 16-bit float type (f16 or bf16).
  Type f16 = element, f32 = b.getF32Type();
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

/// base + laneTerm + c, skipping the terms that are absent or 0.
Value offsetBy(OpBuilder &b, Location loc, Value base, Value laneTerm,
               int64_t c) {
  Value v = base;
  if (laneTerm)
    v = arith::AddIOp::create(b, loc, v, laneTerm);
  if (c)
    v = arith::AddIOp::create(b, loc, v,
                              arith::ConstantIndexOp::create(b, loc, c));
  return v;
}

/// Appends a lane's results of one instruction tile whose first element
/// is `rowFirst` on M and `colFirst` on N: each result's index (`base`
/// elsewhere) and its value in the accumulator `acc`, in the flattened
/// accumulator's order.
void appendTileResults(OpBuilder &b, Location loc, const Fragments &frag,
                       const TensorCoreShape &shape, ArrayRef<Value> base,
                       Value rowFirst, Value colFirst, Value acc,
                       SmallVectorImpl<SmallVector<Value>> &elements,
                       SmallVectorImpl<Value> &values) {
  Value flat = vector::ShapeCastOp::create(
      b, loc, VectorType::get({frag.cType.getNumElements()}, b.getF32Type()),
      acc);
  for (auto [i, c] : llvm::enumerate(frag.c)) {
    SmallVector<Value> idx(base);
    idx[shape.m] = offsetBy(b, loc, rowFirst, c.rowLane, c.row);
    idx[shape.n] = offsetBy(b, loc, colFirst, c.colLane, c.col);
    elements.push_back(std::move(idx));
    values.push_back(
        vector::ExtractOp::create(b, loc, flat, int64_t(i)).getResult());
  }
}

} // namespace

/// nvgpu.mma.sync for f16 operands; for bf16, whose fragments MLIR 22's
/// nvgpu lowering cannot type, nvvm.mma.sync on the fragments' registers
/// (pairs of bf16 packed in i32, PTX's .bf16 form; the same fragment
/// layout as f16).
Value mlir::lazy::emitMmaSync(OpBuilder &b, Location loc, Value aFrag,
                              Value bFrag, Value acc) {
  Type element = cast<VectorType>(aFrag.getType()).getElementType();
  if (!element.isBF16())
    return nvgpu::MmaSyncOp::create(
        b, loc, aFrag, bFrag, acc,
        ArrayRef<int64_t>{kTensorCoreM, kTensorCoreN, kTensorCoreK});
  auto registers = [&](Value frag) {
    SmallVector<Value> regs;
    auto shape = cast<VectorType>(frag.getType()).getShape();
    auto i32x1 = VectorType::get({1}, b.getI32Type());
    for (int64_t r = 0; r < shape[0]; ++r) {
      Value pair = vector::ExtractOp::create(b, loc, frag, r);
      Value packed = vector::BitCastOp::create(b, loc, i32x1, pair);
      regs.push_back(vector::ExtractOp::create(b, loc, packed, 0));
    }
    return regs;
  };
  // The accumulators element by element (no shape_cast: the NVVM pipeline
  // lowers no n-D one).
  Type f32 = b.getF32Type();
  SmallVector<Value> c;
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t j = 0; j < 2; ++j)
      c.push_back(
          vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{r, j}));
  auto resultType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  Value d = NVVM::MmaOp::create(
      b, loc, resultType, registers(aFrag), registers(bFrag), c,
      ArrayRef<int64_t>{kTensorCoreM, kTensorCoreN, kTensorCoreK}, std::nullopt,
      std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  Value out = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(cast<VectorType>(acc.getType()),
                             b.getF32FloatAttr(0)));
  for (int64_t i = 0; i < 4; ++i)
    out = vector::InsertOp::create(b, loc,
                                   LLVM::ExtractValueOp::create(b, loc, d, i),
                                   out, ArrayRef<int64_t>{i / 2, i % 2});
  return out;
}

int64_t mlir::lazy::tensorCoreTileCount(const KernelSpace &space,
                                        const TensorCoreShape &shape,
                                        TensorCoreKind kind) {
  return blockTileCount(space, tileSteps(space, shape, kind));
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
  auto at = [&](OpBuilder &ib, Value base, Value laneTerm, int64_t c) {
    return offsetBy(ib, loc, base, laneTerm, c);
  };
  if (space.shape[shape.n] % tensorCoreTileColumns(kind) != 0)
    return emitError(loc, "a tensor-core plan on this target needs N a "
                          "multiple of ")
           << tensorCoreTileColumns(kind) << "; it is " << space.shape[shape.n];
  Fragments frag =
      fragmentsOf(b, loc, kind, lane, signless(elementOf(shape.a)));

  LogicalResult status = success();
  BlockTileLoop tiles = emitBlockTileLoop(
      b, loc, space, tileSteps(space, shape, kind), group, groups);
  scf::ForOp tileLoop = tiles.loop;
  SmallVector<Value> base = tiles.base;
  OpBuilder tb(tileLoop.getBody()->getTerminator());
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
        acc = emitMmaSync(kb, loc, aFrag, bFrag, acc);
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
    SmallVector<SmallVector<Value>> elements;
    SmallVector<Value> values;
    appendTileResults(tb, loc, frag, shape, base, base[shape.m], base[shape.n],
                      kLoop.getResult(0), elements, values);
    if (failed(emitter.emitStoresOfReduce(tb, stores, elements, shape.reduce,
                                          values)))
      status = failure();
  }
  if (failed(status))
    tileLoop.erase();
  return status;
}

namespace {

/// The block tile's warps and instruction tiles.
struct BlockTiling {
  int64_t warpsM, warpsN, tilesM, tilesN, columns, chunk;
  int64_t blockM() const { return warpsM * tilesM * kTensorCoreM; }
  int64_t blockN() const { return warpsN * tilesN * columns; }
  /// The block tile per axis of the space (1 off M and N).
  SmallVector<int64_t> steps(const KernelSpace &space,
                             const TensorCoreShape &shape) const {
    SmallVector<int64_t> steps;
    for (size_t d = 0; d < space.shape.size(); ++d)
      steps.push_back(d == shape.m ? blockM() : d == shape.n ? blockN() : 1);
    return steps;
  }
};

BlockTiling blockTilingOf(const OptPlan &plan, const TensorCoreShape &shape,
                          TensorCoreKind kind) {
  return {plan.local[shape.m],         plan.local[shape.n],
          plan.upcast[shape.m],        plan.upcast[shape.n],
          tensorCoreTileColumns(kind), tensorCoreChunk(plan, shape.k)};
}

/// A run of a lane's fragment elements that are consecutive along K in a
/// [free][k] buffer: `length` elements from (free, kk).
struct FragmentRun {
  Value freeLane;
  int64_t free;
  Value kLane;
  int64_t kk;
  int64_t length;
};

/// The fragment's elements (free and K coordinates, in order) as runs of at
/// most `maxRun`.
SmallVector<FragmentRun> runsOf(ArrayRef<Coord> coords, bool kIsColumn,
                                int64_t maxRun) {
  SmallVector<FragmentRun> runs;
  for (const Coord &c : coords) {
    Value freeLane = kIsColumn ? c.rowLane : c.colLane;
    int64_t free = kIsColumn ? c.row : c.col;
    Value kLane = kIsColumn ? c.colLane : c.rowLane;
    int64_t kk = kIsColumn ? c.col : c.row;
    if (!runs.empty()) {
      FragmentRun &last = runs.back();
      if (last.freeLane == freeLane && last.free == free &&
          last.kLane == kLane && last.kk + last.length == kk &&
          last.length < maxRun) {
        ++last.length;
        continue;
      }
    }
    runs.push_back({freeLane, free, kLane, kk, 1});
  }
  return runs;
}

} // namespace

int64_t mlir::lazy::tensorCoreBlockCount(const KernelSpace &space,
                                         const OptPlan &plan,
                                         const TensorCoreShape &shape,
                                         TensorCoreKind kind) {
  return blockTileCount(space,
                        blockTilingOf(plan, shape, kind).steps(space, shape));
}

int64_t mlir::lazy::tensorCoreBlockThreads(const OptPlan &plan,
                                           const TensorCoreShape &shape,
                                           TensorCoreKind kind) {
  return plan.local[shape.m] * plan.local[shape.n] * tensorCoreLanes(kind);
}

LogicalResult mlir::lazy::emitTensorCoreBlocks(
    OpBuilder &b, Location loc, gpu::GPUFuncOp func, KernelEmitter &emitter,
    ArrayRef<StoreOp> stores, const KernelSpace &space, const OptPlan &plan,
    const TensorCoreShape &shape, TensorCoreKind kind, Value group,
    Value groups, Value tid) {
  IndexMath im{loc};
  auto cst = [&](OpBuilder &ib, int64_t v) { return im.cst(ib, v); };
  auto add = [&](OpBuilder &ib, Value x, Value y) { return im.add(ib, x, y); };
  auto mul = [&](OpBuilder &ib, Value x, int64_t c) {
    return im.mul(ib, x, c);
  };
  auto at = [&](OpBuilder &ib, Value base, Value laneTerm, int64_t c) {
    return offsetBy(ib, loc, base, laneTerm, c);
  };
  size_t m = shape.m, n = shape.n, k = shape.k;
  BlockTiling tiling = blockTilingOf(plan, shape, kind);
  int64_t blockM = tiling.blockM(), blockN = tiling.blockN();
  if (space.shape[n] % blockN != 0)
    return emitError(loc, "a tensor-core plan's block tile of ")
           << blockN << " columns on this target does not divide N ("
           << space.shape[n] << ")";
  int64_t lanes = tensorCoreLanes(kind);
  int64_t threads = tensorCoreBlockThreads(plan, shape, kind);
  Type t = signless(elementOf(shape.a));
  int64_t stride = tiling.chunk + kTensorCoreRowPad;
  StagedOperand stagedA{
      shape.a,           {m},
      {blockM},          addWorkgroupBuffer(b, loc, func, t, blockM * stride),
      /*kFastest=*/true, stride};
  StagedOperand stagedB{
      shape.b,           {n},
      {blockN},          addWorkgroupBuffer(b, loc, func, t, blockN * stride),
      /*kFastest=*/true, stride};
  SmallVector<size_t> kAxes{k};
  SmallVector<int64_t> kSizes{space.shape[k]};

  Value warp = arith::DivUIOp::create(b, loc, tid, cst(b, lanes));
  Value lane = arith::RemUIOp::create(b, loc, tid, cst(b, lanes));
  Value warpRow =
      mul(b, arith::DivUIOp::create(b, loc, warp, cst(b, tiling.warpsN)),
          tiling.tilesM * kTensorCoreM);
  Value warpCol =
      mul(b, arith::RemUIOp::create(b, loc, warp, cst(b, tiling.warpsN)),
          tiling.tilesN * tiling.columns);
  Fragments frag =
      fragmentsOf(b, loc, kind, lane, signless(elementOf(shape.a)));
  VectorType aType = frag.aType, bType = frag.bType;
  // A lane's runs: at most 16 bytes of consecutive K (their first K is a
  // multiple of the run's length in every layout: the loads are aligned).
  int64_t maxRun = kGpuVectorBytes / 2;
  SmallVector<FragmentRun> aRuns = runsOf(frag.a, /*kIsColumn=*/true, maxRun);
  SmallVector<FragmentRun> bRuns = runsOf(frag.b, /*kIsColumn=*/false, maxRun);

  BlockTileLoop tiles = emitBlockTileLoop(
      b, loc, space, tiling.steps(space, shape), group, groups);
  scf::ForOp tileLoop = tiles.loop;
  SmallVector<Value> base = tiles.base;
  OpBuilder tb(tileLoop.getBody()->getTerminator());

  int64_t tileCount = tiling.tilesM * tiling.tilesN;
  Value init = arith::ConstantOp::create(
      tb, loc, DenseElementsAttr::get(frag.cType, tb.getF32FloatAttr(0)));
  auto kLoop = scf::ForOp::create(tb, loc, cst(tb, 0), cst(tb, space.shape[k]),
                                  cst(tb, tiling.chunk),
                                  SmallVector<Value>(size_t(tileCount), init));
  LogicalResult status = success();
  {
    OpBuilder kb = OpBuilder::atBlockBegin(kLoop.getBody());
    Value k0 = kLoop.getInductionVar();
    gpu::BarrierOp::create(kb, loc);
    if (failed(stageOperand(kb, loc, emitter, stagedA, base, kAxes, kSizes, k0,
                            tiling.chunk, tid, threads)) ||
        failed(stageOperand(kb, loc, emitter, stagedB, base, kAxes, kSizes, k0,
                            tiling.chunk, tid, threads))) {
      status = failure();
    } else {
      gpu::BarrierOp::create(kb, loc);
      // A fragment from `buffer`: its runs from the tile's first row (or
      // column) `first` and K `ks`.
      auto fragment = [&](Value buffer, ArrayRef<FragmentRun> runs, Value first,
                          int64_t ks, VectorType type) {
        SmallVector<Value> parts;
        for (const FragmentRun &r : runs) {
          Value row = at(kb, first, r.freeLane, r.free);
          Value col = at(kb, cst(kb, ks), r.kLane, r.kk);
          Value index = add(kb, mul(kb, row, stride), col);
          auto runType = VectorType::get({r.length}, t);
          Value v = vector::LoadOp::create(
              kb, loc, runType, buffer, ValueRange{index},
              /*nontemporal=*/false, llvm::Align(uint64_t(2 * r.length)));
          for (int64_t e = 0; e < r.length; ++e)
            parts.push_back(vector::ExtractOp::create(kb, loc, v, e));
        }
        return vector::FromElementsOp::create(kb, loc, type, parts).getResult();
      };
      SmallVector<Value> accs(kLoop.getRegionIterArgs());
      auto i32 = [&](int64_t v) { return kb.getI32IntegerAttr(int32_t(v)); };
      for (int64_t ks = 0; ks < tiling.chunk; ks += kTensorCoreK) {
        SmallVector<Value> aFrags, bFrags;
        for (int64_t i = 0; i < tiling.tilesM; ++i)
          aFrags.push_back(fragment(stagedA.buffer, aRuns,
                                    at(kb, warpRow, Value(), i * kTensorCoreM),
                                    ks, aType));
        for (int64_t j = 0; j < tiling.tilesN; ++j)
          bFrags.push_back(fragment(
              stagedB.buffer, bRuns,
              at(kb, warpCol, Value(), j * tiling.columns), ks, bType));
        for (int64_t i = 0; i < tiling.tilesM; ++i)
          for (int64_t j = 0; j < tiling.tilesN; ++j) {
            Value &acc = accs[size_t(i * tiling.tilesN + j)];
            switch (kind) {
            case TensorCoreKind::MmaSync:
              acc = emitMmaSync(kb, loc, aFrags[size_t(i)], bFrags[size_t(j)],
                                acc);
              break;
            case TensorCoreKind::Mfma:
              acc = amdgpu::MFMAOp::create(
                  kb, loc, frag.cType, i32(16), i32(16), i32(16), i32(1),
                  aFrags[size_t(i)], bFrags[size_t(j)], acc);
              break;
            case TensorCoreKind::Wmma:
              acc = amdgpu::WMMAOp::create(kb, loc, frag.cType, i32(16),
                                           i32(16), i32(16), aFrags[size_t(i)],
                                           bFrags[size_t(j)], acc);
              break;
            }
          }
      }
      scf::YieldOp::create(kb, loc, accs);
    }
  }
  if (succeeded(status)) {
    SmallVector<SmallVector<Value>> elements;
    SmallVector<Value> values;
    for (int64_t i = 0; i < tiling.tilesM; ++i)
      for (int64_t j = 0; j < tiling.tilesN; ++j)
        appendTileResults(
            tb, loc, frag, shape, base,
            at(tb, add(tb, base[m], warpRow), Value(), i * kTensorCoreM),
            at(tb, add(tb, base[n], warpCol), Value(), j * tiling.columns),
            kLoop.getResult(unsigned(i * tiling.tilesN + j)), elements, values);
    if (failed(emitter.emitStoresOfReduce(tb, stores, elements, shape.reduce,
                                          values)))
      status = failure();
  }
  if (failed(status))
    tileLoop.erase();
  return status;
}
