//===- KernelEmitter.h - the code of a kernel's elements --------*- C++ -*-===//
//
// The part of kernel lowering that every target shares: given the index of
// one output element, emit the arith/math/memref ops that compute the value
// a lazy.kernel stores there, and the guarded store itself. The CPU lowering
// wraps it in scf.parallel, the GPU lowering in a grid-stride loop, and a
// target may override how a reduce is computed (the GPU lowering reduces
// long axes cooperatively across a thread block).
//
// One class, implemented by concern in lib/Conversion/KernelCodegen:
//   ElementEvaluation.cpp  the walk over an element's values, memo scopes
//   LoadsAndStores.cpp     masked loads, const views and guarded stores
//   ScalarOps.cpp          elementwise ops by dtype
//   Reductions.cpp         reduce loops and register tiles
//   SoftmaxSums.cpp        lazy.softmax_sum's one-pass loop
//   RowKernels.cpp         per-row values computed once
//   VectorLanes.cpp        a register tile's elements as vectors
//   PackedPanels.cpp       a pack step's panels, copied per block
//   InteriorTiles.cpp      tiles inside every mask, read unmasked
//   KernelVariables.cpp    Variables bound at a launch
//   IndexExpr.cpp, BoundedIndex.cpp  view index arithmetic
// The GPU-only block modes build on it: GPU/SharedTiles.cpp (shared-memory
// tiles), GPU/TensorCores.cpp (mma.sync, MFMA, WMMA).
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_CONVERSION_KERNELCODEGEN_KERNELEMITTER_H
#define LAZY_CONVERSION_KERNELCODEGEN_KERNELEMITTER_H

#include "lazy/Conversion/KernelCodegen/IndexExpr.h"
#include "lazy/Conversion/KernelCodegen/KernelVariables.h"
#include "lazy/Conversion/KernelCodegen/Reductions.h"
#include "lazy/Conversion/KernelCodegen/RowKernels.h"
#include "lazy/Conversion/KernelCodegen/ScalarOps.h"
#include "lazy/Conversion/KernelCodegen/VectorLanes.h"
#include "lazy/Dialect/Lazy/Analysis/PackedPanels.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

namespace mlir::lazy {

/// Loads, const views and reduces: the values not computed from operands
/// at the same index.
bool isEvaluationLeaf(Operation *op);

/// The row-major index vector of `flat`, an index below the number of
/// elements of `shape`; axes of one element get `zero` (a new 0 if null).
SmallVector<Value> delinearizeIndex(OpBuilder &b, Location loc, Value flat,
                                    ArrayRef<int64_t> shape, Value zero = {});

/// The axes along which a softmax_sum's scores are constant (read through
/// a view of stride 0 there): its elements along them share the scores.
SmallVector<bool> scoresConstantAxes(SoftmaxSumOp op);
/// The axes along which a softmax_sum's weights are constant (a load or
/// view of stride 0 there): attention's queries, whose rows share them.
SmallVector<bool> weightsConstantAxes(SoftmaxSumOp op);
/// x > y ? x : y, the running maximum of a softmax_sum (a NaN operand may
/// or may not win: a NaN score reaches the result through its own exp2).
Value greaterOf(OpBuilder &b, Location loc, Value x, Value y);
struct ScoreMask;
/// Whether `mask` (scoreMasksOf), whose value at some index is `x`, masks
/// the score there: x is -inf, or the where's condition says so.
Value scoreMaskHolds(OpBuilder &b, Location loc, const ScoreMask &mask,
                     Value x);

class KernelEmitter {
public:
  /// `buffers` maps the kernel's buffer arguments to memrefs of one
  /// dimension with the element type `signless(buffer element type)`.
  /// `reassociateSums`: long float sums (kReorderMinElements) may be added
  /// in any order and maxes vectorize (the CPU; results stay those of
  /// index order but for the long sums' rounding); else every reduce runs
  /// in index order.
  explicit KernelEmitter(IRMapping buffers, bool reassociateSums = false)
      : buffers(std::move(buffers)), reassociateSums(reassociateSums) {}
  virtual ~KernelEmitter() = default;

  /// A float sum's accumulation of a product (acc + a*b, a dot product's
  /// step) may contract into a fused multiply-add.
  void setContractSumOfProducts(bool contract) {
    contractSumOfProducts = contract;
  }
  bool contractsSumOfProducts() const { return contractSumOfProducts; }
  /// In a register tile's reduce loop, each unmasked vector load whose
  /// address moves a cache line or more per step of the innermost reduce
  /// axis is prefetched this many steps ahead (0: none). Such a load (a
  /// matmul's B, a row per step) touches a new page every step, which the
  /// hardware prefetchers do not follow.
  void setPrefetchSteps(int64_t steps) { prefetchSteps = steps; }
  /// Lane mode's unmasked vector stores into these buffers are
  /// nontemporal where their alignment is known (setBufferAlignment): x86
  /// splits an unaligned one into 8-byte stores.
  void setNontemporalBuffers(DenseSet<Value> buffers) {
    nontemporalBuffers = std::move(buffers);
  }
  /// Row kernels (lowerRows): a row value's float sum or max over the
  /// row's one inner axis runs in vectors of `laneBytes` bytes along it,
  /// with partial vectors added across lanes at the end (0: a scalar loop,
  /// which LLVM vectorizes). Only sums that may reorder
  /// (kReorderMinElements) and maxes (IEEE maximum, then the in-order
  /// rerun where it gives a NaN or a zero).
  void setRowReduceLanes(int64_t laneBytes) { rowLaneBytes = laneBytes; }
  /// Row kernels: the innermost row axis and its extent, along which the
  /// row's second pass (beginRowPass) prefetches the next row; none: no
  /// prefetch.
  void setRowAxis(std::optional<size_t> axis, int64_t extent = 0) {
    innermostRowAxis = axis;
    rowAxisExtent = extent;
  }
  /// One pass over the current row's elements: a row reduce in lanes, or
  /// the row's element loop. In the row's second pass each contiguous
  /// vector load that moves along the innermost row axis also prefetches
  /// its element in the next row: the row's first pass then reads it from
  /// the cache instead of waiting on memory after the row's compute.
  void beginRowPass() {
    prefetchNextRow = innermostRowAxis.has_value() && rowPasses++ == 1;
  }
  void endRowPass() { prefetchNextRow = false; }
  /// Row kernels in lanes: values of the stores' shape that more than one
  /// pass over the row would compute (a softmax's exponentials: its sum
  /// and its elements), each with a scratch memref of the lane axis's
  /// extent. The first row reduce in lanes that computes one stores it
  /// there, vector by vector, and the later passes of the row load it.
  void setRowCache(DenseMap<Value, Value> scratch) {
    rowCache = std::move(scratch);
  }
  /// A plan's `pack` step (PackedPanels.cpp): one scratch memref per
  /// panel of `panels`, the panel's elements long.
  static SmallVector<Value> allocatePanels(OpBuilder &b, Location loc,
                                           ArrayRef<PanelLoad> panels);
  /// Copies each of `panels`' loads into its scratch (`scratches`), the
  /// block that starts at `origin` (`block` elements of the panels' lane
  /// axis, all of each reduce axis it varies along), in vectors of
  /// `laneAxis`; until clearPackedPanels, lane mode reads those loads from
  /// the scratches.
  LogicalResult packPanels(OpBuilder &b, Location loc,
                           ArrayRef<PanelLoad> panels,
                           ArrayRef<Value> scratches, ArrayRef<Value> origin,
                           const KernelSpace &space, int64_t block,
                           LaneAxis laneAxis);
  void clearPackedPanels() { packedPanels.clear(); }
  /// The known alignment in bytes of each buffer memref's base. Lane
  /// mode's vector loads and stores then state the vector's size as their
  /// alignment where it holds: the base is aligned to it and the first
  /// lane's element index is a multiple of the width (the view's offset and
  /// its strides along every axis but the lane axis are, and lane-axis
  /// indices are by construction). A GPU's 128-bit memory instructions need
  /// it stated; without it they split into scalar ones.
  void setBufferAlignment(DenseMap<Value, int64_t> alignment) {
    bufferAlignment = std::move(alignment);
  }

  /// The kernel's Variables (symbolic shapes): views, reduce extents and
  /// consts of Variables read their values from these (the kernel's
  /// `index` arguments).
  void setVariables(VariableValues values) { variables = std::move(values); }
  const VariableValues &getVariables() const { return variables; }
  /// A dim of a kernel value's shape (symbolicShapeOf) as an index.
  Value extentOf(OpBuilder &b, Location loc, Value v, size_t dim);

  /// Starts a new output element: nothing computed for an earlier element
  /// is reused, only its row's values (beginRow).
  void beginElement() {
    scopes.resize(rowScopes);
    scopes.emplace_back();
  }
  /// Starts a row of a row kernel at `rowIdx` (the row axes' indices, the
  /// others zeroIndex): computes every view of `split` there, in order, so
  /// that the row's elements (emitStoreGroup until endRow) read them.
  LogicalResult beginRow(OpBuilder &b, const RowSplit &split,
                         ValueRange rowIdx);
  void endRow();
  /// The index 0 every row's and element's index vectors use for axes of
  /// one element: the memo matches index vectors by value, so a row's
  /// (r, 0) and an element's (r, 0) must be the same value. Create it
  /// where it dominates the kernel body; set it exactly for kernels with
  /// computed views (their reduces then hoist those, hoistInvariantViews).
  void setZeroIndex(Value zero) { zeroIdx = zero; }
  Value zeroIndex(OpBuilder &b, Location loc);

  /// The value of `v` at the iteration index `idx` (one index per dimension
  /// of v's shape). Elementwise chains are walked with an explicit stack, so
  /// kernels of any depth lower without recursion; only reduces nest.
  FailureOr<Value> evaluate(OpBuilder &b, Value v, ValueRange idx);

  /// Stores `value` at the element `idx` of `store`'s view, guarded by its
  /// mask and, when given, by `extraGuard`.
  void emitStore(OpBuilder &b, StoreOp store, Value value, ValueRange idx,
                 Value extraGuard = {});

  /// One element of a store group: starts a new element, computes every
  /// store's value at `idx`, then stores each (emitStore). No store comes
  /// before the last value: an output that is an assign target may be read
  /// by the others' values, which must see its old contents.
  LogicalResult emitStoreGroup(OpBuilder &b, ArrayRef<StoreOp> stores,
                               ValueRange idx, Value extraGuard = {});

  /// Several elements of a store group: every value of every element, then
  /// the stores. Elements are distinct output positions, which an
  /// assign target's reads may only meet at their own position.
  LogicalResult emitStoreGroups(OpBuilder &b, ArrayRef<StoreOp> stores,
                                ArrayRef<SmallVector<Value>> elements,
                                Value extraGuard = {});

  /// `v` (a value of the kernel body outside every reduce) at `idx`, in a
  /// scope of its own.
  FailureOr<Value> evaluateAt(OpBuilder &b, Value v, ValueRange idx);

  /// `v` (as evaluateAt) as a vector of `laneAxis.width` lanes from `idx`
  /// on along `laneAxis.axis`; a value the same in every lane is
  /// broadcast. Loads contiguous along the axis are vector loads.
  FailureOr<Value> evaluateLanesAt(OpBuilder &b, Value v, ValueRange idx,
                                   LaneAxis laneAxis);

  /// emitStoreGroups with the kernel's top-level `reduce` computed
  /// already: `values[e]` at `elements[e]` (a tensor-core tile's results),
  /// each store guarded by `extraGuard` too when given.
  LogicalResult emitStoresOfReduce(OpBuilder &b, ArrayRef<StoreOp> stores,
                                   ArrayRef<SmallVector<Value>> elements,
                                   Operation *reduce, ArrayRef<Value> values,
                                   Value extraGuard = {});
  /// Until unpinReduce, every evaluation reads `reduce` (at whatever
  /// index) as `value`: the caller computed it for the one element being
  /// evaluated (a tensor-core fragment's dot product under a score).
  void pinReduce(Operation *reduce, Value value) {
    pinnedReduces[reduce] = value;
  }
  void unpinReduce(Operation *reduce) { pinnedReduces.erase(reduce); }

  /// A register tile of a store group: the top-level reduces of the
  /// kernel (`reduces`, KernelSpace.h) computed for every element of
  /// `elements` in one shared loop nest, whose axis a steps `unroll[a]`
  /// elements per trip, then emitStoreGroups on the same elements.
  /// With `lanes`, each element is a vector of lanes along that axis.
  LogicalResult emitStoreTile(OpBuilder &b, ArrayRef<StoreOp> stores,
                              ArrayRef<SmallVector<Value>> elements,
                              ArrayRef<Operation *> reduces,
                              ArrayRef<int64_t> unroll,
                              std::optional<LaneAxis> lanes = std::nullopt);
  /// emitStoreTile of a planned tile over `space` (its reduces and the
  /// plan's unrolls), twice where the tile reads masked loads
  /// (InteriorTiles.cpp): under an scf.if that the whole tile stays inside
  /// every mask, a copy that reads them unmasked; else the masked one.
  LogicalResult emitStoreTileSplitAtMasks(OpBuilder &b,
                                          ArrayRef<StoreOp> stores,
                                          ArrayRef<SmallVector<Value>> elements,
                                          const KernelSpace &space,
                                          const OptPlan &plan,
                                          std::optional<LaneAxis> lanes);

  /// A tile of elements of a store group whose top-level value is the
  /// softmax_sum `op` (SoftmaxSums.cpp): one loop over its axes computing
  /// it for every element (those differing only along axes the scores are
  /// constant along share each step's score), then emitStoreGroups on the
  /// same elements. With `lanes` (an axis the scores are constant along),
  /// each element is a vector of lanes.
  LogicalResult emitSoftmaxSumTile(OpBuilder &b, ArrayRef<StoreOp> stores,
                                   ArrayRef<SmallVector<Value>> elements,
                                   SoftmaxSumOp op,
                                   std::optional<LaneAxis> lanes);
  /// A block of `rows` rows along `axis` (an output axis the weights are
  /// constant along: attention's queries), of which the first `count` (an
  /// index value, fewer in the axis's last block) are computed, the rows'
  /// running state in `state`, a 1-d scratch of softmaxRowStateSize
  /// elements.
  struct SoftmaxRowBlock {
    size_t axis;
    int64_t rows;
    Value count;
    Value state;
  };
  /// The elements of a block of `rows` rows' state, for a tile of
  /// `elements` sharing one group (one m and l), each `width` lanes.
  static int64_t softmaxRowStateSize(int64_t rows, int64_t elements,
                                     int64_t width) {
    return rows * (2 + elements) * width;
  }
  /// emitSoftmaxSumTile for a block of rows whose first row's elements are
  /// `elements`: the keys in blocks outside, the rows inside, so that
  /// every row reads a block of keys and values while it is in L1.
  LogicalResult emitSoftmaxSumRows(OpBuilder &b, ArrayRef<StoreOp> stores,
                                   ArrayRef<SmallVector<Value>> elements,
                                   SoftmaxSumOp op,
                                   std::optional<LaneAxis> lanes,
                                   SoftmaxRowBlock rows);

protected:
  /// A reduce at output index `idx`. The default is a sequential scf.for
  /// nest over the reduced axes.
  virtual FailureOr<Value> emitReduce(OpBuilder &b, Operation *reduce,
                                      ValueRange idx);

  /// One accumulation step of a reduce loop: the next accumulator.
  using ReduceStep = function_ref<Value(OpBuilder &, Value acc, Value x)>;
  /// The scf.for nest over a reduce's axes accumulating with `step` from
  /// `init` (default: the reduce's own start, reduceInit).
  FailureOr<Value> emitReduceLoops(OpBuilder &b, Operation *reduce,
                                   ValueRange idx, ReduceStep step,
                                   Value init = {});
  /// An scf.for per axis of `input` among `axes` (outermost first), from 0
  /// to its extent in steps of `steps[i]`, carrying `carried`; after it,
  /// `carried` holds the innermost loop's iteration arguments, `ivs` the
  /// induction variables, and `b` is at the innermost body's start
  /// (closeLoopNest yields them).
  SmallVector<scf::ForOp> openLoopNest(OpBuilder &b, Location loc, Value input,
                                       ArrayRef<int64_t> axes,
                                       ArrayRef<int64_t> steps,
                                       SmallVector<Value> &carried,
                                       SmallVector<Value> &ivs);
  /// A float max `reduce` computed in any order as IEEE maximum (`fast`)
  /// made the in-order one (acc > x ? acc : x): where `fast` is a NaN or a
  /// zero, the only results the order decides, the reduce again in index
  /// order.
  FailureOr<Value> inOrderWhereMaxDiffers(OpBuilder &b, Operation *reduce,
                                          ValueRange idx, Value fast);

  /// Computes, before a reduce's loops at output index `idx`, the computed
  /// views its input reads that do not vary along its axes (a row value a
  /// row value reads: a softmax sum's max), so that the loops read them.
  LogicalResult hoistInvariantViews(OpBuilder &b, Operation *reduce,
                                    ValueRange idx);
  /// The reduce's input at the full index `inner`, in a scope of its own.
  FailureOr<Value> evaluateReduceInput(OpBuilder &b, Operation *reduce,
                                       ValueRange inner);
  /// The same as a vector of `laneAxis.width` lanes from `inner` on along
  /// `laneAxis.axis` (lane mode; a value the same in every lane is
  /// broadcast).
  FailureOr<Value> evaluateReduceInputLanes(OpBuilder &b, Operation *reduce,
                                            ValueRange inner,
                                            LaneAxis laneAxis);

  /// One accumulation step: acc + x (sum) or max(acc, x); with `contract`
  /// a float acc + a*b may fuse into a multiply-add.
  Value combine(OpBuilder &b, Location loc, Value acc, Value x, Type t,
                bool isSum, bool contract);

  /// How many reduces enclose the value being evaluated.
  unsigned reduceDepth() const { return scopes.size() - rowScopes - 1; }

private:
  /// A softmax_sum at output index `idx`, alone.
  FailureOr<Value> emitSoftmaxSum(OpBuilder &b, SoftmaxSumOp op,
                                  ValueRange idx);
  /// Inside a softmax_sum's block of keys (softmaxKeys): a float sum
  /// `reduce` at `idx`, whose index holds the block's first key, computed
  /// for every key of the block in vector lanes along its one axis, the
  /// other keys' values memoized for their evaluation; null where that
  /// does not apply.
  FailureOr<Value> keyBlockReduce(OpBuilder &b, Operation *reduce,
                                  ValueRange idx);
  /// Called with a row's elements and their values (SoftmaxSums.cpp).
  using SoftmaxSumFinish = function_ref<LogicalResult(
      OpBuilder &, ArrayRef<SmallVector<Value>>, ArrayRef<Value>)>;
  /// The softmax_sum's loop for `elements` (in the current lanes): its
  /// value at each. With `rows`, a block of rows instead (elements are the
  /// first row's): `finish` gets each row's values, and none are returned.
  FailureOr<SmallVector<Value>> emitSoftmaxSumLoop(
      OpBuilder &b, SoftmaxSumOp op, ArrayRef<SmallVector<Value>> elements,
      const SoftmaxRowBlock *rows = nullptr, SoftmaxSumFinish finish = nullptr);
  /// One reduce for every element of a tile (emitStoreTile); its results
  /// go to tileReduces.
  LogicalResult emitReduceTile(OpBuilder &b, Operation *reduce,
                               ArrayRef<SmallVector<Value>> elements,
                               ArrayRef<int64_t> unroll);
  FailureOr<Value> leaf(OpBuilder &b, Operation *op, ValueRange idx);
  /// A computed value read through a view: the source at the index the
  /// view maps `idx` to, 0 outside the view's mask.
  FailureOr<Value> computedView(OpBuilder &b, ViewOp view, ValueRange idx);
  /// The buffer index and validity of `view` at `idx`: through its affine
  /// form where it has one (IndexExpr.h), looked up once per view.
  IndexAndValid indexOf(OpBuilder &b, Location loc, ShapeTrackerAttr view,
                        ValueRange idx);
  /// The op on `x`: scalars, or vectors of one width (lane mode) for the
  /// ops vectorizableOp accepts.
  FailureOr<Value> scalarOp(OpBuilder &b, Operation *op, ArrayRef<Value> x);
  Value lookup(Value v, ValueRange idx) const;

  /// evaluate (scalar code) or, in lane mode (emitStoreTile with lanes),
  /// the value at `idx` as a vector over the lanes, or a scalar where it
  /// is the same in every lane: one walk, two memos.
  FailureOr<Value> evaluateIn(OpBuilder &b, Value root, ValueRange idx,
                              bool laneMode);
  /// An elementwise op in lane mode: scalar where every operand is, a
  /// vector op where scalarOp has one, else lane by lane.
  FailureOr<Value> laneOp(OpBuilder &b, Operation *op, SmallVector<Value> args);
  FailureOr<Value> laneLeaf(OpBuilder &b, Operation *op, ValueRange idx);
  /// The lanes a row value's reduce runs in (setRowReduceLanes), or none
  /// where it keeps emitReduce's loops.
  std::optional<LaneAxis> rowReduceLanesOf(Operation *reduce);
  /// The row reduce in vectors of `axis.width` lanes (rowReduceLanesOf).
  FailureOr<Value> emitRowReduceLanes(OpBuilder &b, Operation *reduce,
                                      ValueRange idx, LaneAxis axis);
  /// memref.prefetch of `memref` at `index` + `offset` elements, clamped
  /// into the buffer (one of static shape; else nothing).
  void prefetchAt(OpBuilder &b, Location loc, Value memref, Value index,
                  int64_t offset);
  /// memref.prefetch of `memref` at `index` plus prefetchSteps steps of
  /// `stepElements`, clamped into the buffer, where a step moves at least
  /// a cache line (`stepBytes`).
  void prefetchAhead(OpBuilder &b, Location loc, Value memref, Value index,
                     int64_t stepBytes, int64_t stepElements);
  /// One scalar per lane as a vector.
  Value gatherLanes(OpBuilder &b, Location loc, ArrayRef<Value> parts);
  /// `v` evaluated lane by lane (scalar code), gathered into a vector.
  FailureOr<Value> perLane(OpBuilder &b, Value v, ValueRange idx);
  /// The vector store of `value` (a scalar is broadcast), or one store per
  /// lane where the view is not contiguous along the lane axis.
  void emitLaneStore(OpBuilder &b, StoreOp store, Value value, ValueRange idx,
                     Value extraGuard);
  /// The buffer index of lane 0 and the lanes' validity (null: all valid)
  /// of a view with an affine form (laneFormOf).
  std::pair<Value, Value> laneAccess(OpBuilder &b, Location loc,
                                     const AffineIndex &form, ValueRange idx);
  /// The view's affine form (one view's own, or affineIndexOf's), looked
  /// up once per view.
  const AffineIndex *laneFormOf(ShapeTrackerAttr view);
  /// The alignment a lane vector access of `memref` at `form` may state
  /// (setBufferAlignment), or none.
  llvm::MaybeAlign laneAlignment(Value memref, const AffineIndex &form) const;
  /// idx[lane axis] + lane, created once per scope.
  Value laneIndex(OpBuilder &b, Location loc, Value base, int64_t lane);
  Value lookupLanes(Value v, ValueRange idx) const;
  /// `x` as a vector of the lanes (a scalar is broadcast).
  Value broadcastLanes(OpBuilder &b, Location loc, Value x);

  /// Computed (value, index vector) pairs.
  using Memo =
      DenseMap<Value, SmallVector<std::pair<SmallVector<Value, 4>, Value>>>;
  struct Scope;
  /// `v` at `key` in the `memo` of the innermost scope that has it.
  Value findIn(Memo Scope::*memo, Value v, ValueRange key) const;
  /// One loop scope's computed values: scalar code's, lane mode's, and the
  /// lane indices.
  struct Scope {
    Memo scalar, lanes;
    DenseMap<std::pair<Value, int64_t>, Value> laneIndices;
    /// Loads and const views by viewKey (scalar code's, lane mode's): a
    /// tile's elements that differ only along axes a view ignores share
    /// one load.
    Memo views, laneViews;
  };
  /// A load's or const view's value at `idx`, computed once per viewKey.
  FailureOr<Value> viewLeaf(OpBuilder &b, Operation *op, ValueRange idx,
                            bool laneMode);
  /// `idx` with the axes the view neither reads nor masks (stride 0) null.
  SmallVector<Value, 4> viewKey(ShapeTrackerAttr view, ValueRange idx);
  DenseMap<Attribute, std::vector<std::optional<int64_t>>> viewStrides;
  SmallVector<Scope> scopes{Scope()};
  /// The scopes of the current row (beginRow), which elements keep.
  size_t rowScopes = 0;
  Value zeroIdx;
  bool contractSumOfProducts = false;
  IRMapping buffers;
  bool reassociateSums;
  /// A tile's top-level reduces by (reduce, element), and the element
  /// emitStoreGroups is computing.
  DenseMap<std::pair<Operation *, unsigned>, Value> tileReduces;
  /// pinReduce's values.
  DenseMap<Operation *, Value> pinnedReduces;
  /// While a softmax_sum's scores are evaluated: the index of each key of
  /// the block (keyBlockReduce).
  SmallVector<Value> softmaxKeys;
  unsigned currentElement = 0;
  DenseMap<Attribute, std::optional<AffineIndex>> affineForms;
  /// Lane mode's axis and width, and the lane scalar code computes in
  /// perLane (-1 outside it).
  std::optional<LaneAxis> lanes;
  int64_t currentLane = -1;
  DenseSet<Value> nontemporalBuffers;
  int64_t prefetchSteps = 0;
  /// While a tile's reduce step is evaluated with prefetchSteps: the
  /// innermost reduce axis, along which loads are prefetched.
  std::optional<size_t> prefetchAxis;
  /// Row kernels: setRowReduceLanes, setRowAxis; whether the row values
  /// are being computed (beginRow), the row's passes so far and whether
  /// the current one prefetches the next row (beginRowPass).
  /// setRowCache; the values of the current row already stored, those
  /// the current pass stores, whether it may (a row reduce in lanes at
  /// the row's level), the row's index and the block its values are
  /// computed in (beginRow).
  DenseMap<Value, Value> rowCache;
  /// A load read from a packed copy instead of its buffer: at `idx` the
  /// scratch element sum over d of (idx[d] - starts[d]) * strides[d].
  struct PackedPanel {
    Value scratch;
    SmallVector<int64_t> strides;
    SmallVector<Value> starts;
  };
  DenseMap<Operation *, PackedPanel> packedPanels;
  /// The scratch index of `panel` at `idx`.
  Value panelIndex(OpBuilder &b, Location loc, const PackedPanel &panel,
                   ValueRange idx);
  DenseSet<Value> rowCacheFilled, rowCacheFilling;
  bool fillRowCache = false;
  SmallVector<Value> currentRowIdx;
  Block *rowBlock = nullptr;
  /// Whether `idx` is in the current row: every axis but the lane axis
  /// holds the row's own index value.
  bool inCurrentRow(ValueRange idx) const;
  /// Whether `idx` indexes the row kernel's stores' space at the current
  /// row along the innermost row axis (a reduce over a tensor of another
  /// shape has other axes).
  bool inRowIndexSpace(ValueRange idx) const;
  int64_t rowLaneBytes = 0;
  std::optional<size_t> innermostRowAxis;
  int64_t rowAxisExtent = 0;
  /// Whether the current row has a next one along innermostRowAxis (an
  /// i1 of the row's scope).
  Value hasNextRow;
  bool inRowValues = false;
  int64_t rowPasses = 0;
  bool prefetchNextRow = false;
  DenseMap<Value, int64_t> bufferAlignment;
  DenseMap<Attribute, std::optional<AffineIndex>> laneForms;
  /// While an interior tile is emitted (emitStoreTileSplitAtMasks): the
  /// affine forms, without their validity, of the loads it reads in bounds.
  DenseMap<Attribute, AffineIndex> inBoundsForms;
  VariableValues variables;
  /// The value of a const op (a Variable's: its argument, converted).
  Value constValue(OpBuilder &b, Location loc, ConstOp c);
};

} // namespace mlir::lazy

#endif // LAZY_CONVERSION_KERNELCODEGEN_KERNELEMITTER_H
