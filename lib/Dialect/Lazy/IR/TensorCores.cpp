//===- TensorCores.cpp - which kernels a tensor-core plan fits ------------===//
//
// TensorCores.h states the shape a `tc` plan step needs.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/IR/TensorCores.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::lazy;

namespace {
/// Every kind with its option spelling.
constexpr std::pair<TensorCoreKind, StringLiteral> kKindNames[] = {
    {TensorCoreKind::MmaSync, "mma-sync"},
    {TensorCoreKind::Mfma, "mfma"},
    {TensorCoreKind::Wmma, "wmma"}};
} // namespace

FailureOr<std::optional<TensorCoreKind>>
mlir::lazy::parseTensorCoreKind(StringRef name) {
  if (name == "none")
    return std::optional<TensorCoreKind>();
  for (auto [kind, spelling] : kKindNames)
    if (name == spelling)
      return std::optional(kind);
  return failure();
}

StringRef mlir::lazy::tensorCoreKindName(std::optional<TensorCoreKind> kind) {
  for (auto [k, spelling] : kKindNames)
    if (kind == k)
      return spelling;
  return "none";
}

std::optional<TensorCoreKind> mlir::lazy::tensorCoreKindOfChip(StringRef chip) {
  unsigned cc = 0;
  if (chip.consume_front("sm_"))
    return !chip.take_while(llvm::isDigit).getAsInteger(10, cc) && cc >= 80
               ? std::optional(TensorCoreKind::MmaSync)
               : std::nullopt;
  if (chip == "gfx908" || chip == "gfx90a" || chip.starts_with("gfx94"))
    return TensorCoreKind::Mfma;
  if (chip.starts_with("gfx11"))
    return TensorCoreKind::Wmma;
  return std::nullopt;
}

int64_t mlir::lazy::tensorCoreLanes(TensorCoreKind kind) {
  return kind == TensorCoreKind::Mfma ? 64 : 32;
}

int64_t mlir::lazy::tensorCoreTileColumns(TensorCoreKind kind) {
  return kind == TensorCoreKind::MmaSync ? 8 : 16;
}

namespace {

Type elementOfValue(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

bool isSixteenBitFloat(Value v) {
  Type t = elementOfValue(v);
  return t.isF16() || t.isBF16();
}

/// Per axis of `rank`, whether `operand` varies along it (an axis a leaf's
/// view reads or masks); a failure where the operand holds a reduce or a
/// computed view. An explicit walk: expressions may be deep.
FailureOr<SmallVector<bool>> axesOf(Value operand, size_t rank) {
  SmallVector<bool> varies(rank, false);
  llvm::DenseSet<Operation *> seen;
  SmallVector<Value> stack{operand};
  auto read = [&](ShapeTrackerAttr view) {
    std::vector<std::optional<int64_t>> strides =
        view.getTracker().realStrides(/*ignoreValid=*/false);
    for (size_t d = 0; d < rank && d < strides.size(); ++d)
      if (!strides[d] || *strides[d] != 0)
        varies[d] = true;
  };
  while (!stack.empty()) {
    Operation *op = stack.pop_back_val().getDefiningOp();
    if (!op || !seen.insert(op).second)
      continue;
    if (isa<ReduceSumOp, ReduceMaxOp>(op) || isComputedView(op))
      return failure();
    if (auto load = dyn_cast<LoadOp>(op)) {
      read(load.getView());
      continue;
    }
    if (auto view = dyn_cast<ViewOp>(op)) {
      read(view.getTracker());
      continue;
    }
    for (Value v : op->getOperands())
      stack.push_back(v);
  }
  return varies;
}

} // namespace

FailureOr<TensorCoreShape>
mlir::lazy::matchTensorCores(const KernelSpace &space, size_t k,
                             std::string &why) {
  llvm::raw_string_ostream os(why);
  size_t rank = space.shape.size();
  if (space.reduces.size() != 1) {
    os << "a tensor-core plan needs one reduce; the kernel has "
       << space.reduces.size();
    return failure();
  }
  Operation *reduce = space.reduces.front();
  auto sum = dyn_cast<ReduceSumOp>(reduce);
  if (!sum || !elementOfValue(sum.getResult()).isF32()) {
    os << "a tensor-core plan needs a reduce_sum to f32";
    return failure();
  }
  if (sum.getAxes().size() != 1 || size_t(sum.getAxes().front()) != k) {
    os << "a tensor-core plan needs the reduce over axis " << k << " alone";
    return failure();
  }
  // The product's operands: cast(mul(x, y)) or mul(cast(x), cast(y)).
  Value x, y;
  Value input = sum.getSrc();
  if (auto cast = input.getDefiningOp<CastOp>()) {
    if (auto mul = cast.getSrc().getDefiningOp<MulOp>()) {
      x = mul.getLhs();
      y = mul.getRhs();
    }
  } else if (auto mul = input.getDefiningOp<MulOp>()) {
    auto cx = mul.getLhs().getDefiningOp<CastOp>();
    auto cy = mul.getRhs().getDefiningOp<CastOp>();
    if (cx && cy) {
      x = cx.getSrc();
      y = cy.getSrc();
    }
  }
  if (!x || !isSixteenBitFloat(x) || elementOfValue(x) != elementOfValue(y)) {
    os << "a tensor-core plan needs the sum of a product of two f16 or two "
          "bf16 operands, cast to f32";
    return failure();
  }
  FailureOr<SmallVector<bool>> xAxes = axesOf(x, rank);
  FailureOr<SmallVector<bool>> yAxes = axesOf(y, rank);
  if (failed(xAxes) || failed(yAxes)) {
    os << "a tensor-core operand holds a reduce or a computed view";
    return failure();
  }
  // Each operand's own output axes: it varies along them, the other not.
  SmallVector<size_t> xOwn, yOwn;
  for (size_t d = 0; d < rank; ++d) {
    if (space.reduced[d] || space.shape[d] == 1)
      continue;
    if ((*xAxes)[d] && !(*yAxes)[d])
      xOwn.push_back(d);
    if ((*yAxes)[d] && !(*xAxes)[d])
      yOwn.push_back(d);
  }
  if (xOwn.size() != 1 || yOwn.size() != 1) {
    os << "a tensor-core plan needs one output axis of each operand's own";
    return failure();
  }
  // N (the columns, two neighbours per thread) where the output is
  // contiguous along it.
  bool xContiguous = false;
  for (auto store : reduce->getBlock()->getOps<StoreOp>()) {
    std::vector<std::optional<int64_t>> strides =
        store.getView().getTracker().realStrides(/*ignoreValid=*/false);
    xContiguous |= strides[xOwn[0]] == 1;
  }
  TensorCoreShape shape;
  shape.reduce = reduce;
  shape.k = k;
  if (xContiguous) {
    shape.m = yOwn[0];
    shape.n = xOwn[0];
    shape.a = y;
    shape.b = x;
  } else {
    shape.m = xOwn[0];
    shape.n = yOwn[0];
    shape.a = x;
    shape.b = y;
  }
  if (space.shape[shape.m] % kTensorCoreM != 0 ||
      space.shape[shape.n] % kTensorCoreN != 0 ||
      space.shape[k] % kTensorCoreK != 0) {
    os << "a tensor-core plan needs M a multiple of " << kTensorCoreM
       << ", N of " << kTensorCoreN << " and K of " << kTensorCoreK
       << "; they are " << space.shape[shape.m] << ", " << space.shape[shape.n]
       << " and " << space.shape[k];
    return failure();
  }
  return shape;
}
