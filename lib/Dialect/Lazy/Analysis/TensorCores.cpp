//===- TensorCores.cpp - which kernels a tensor-core plan fits ------------===//
//
// TensorCores.h states the shape a `tc` plan step needs.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/TensorCores.h"

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

int64_t mlir::lazy::tensorCoreChunk(const OptPlan &plan, size_t k) {
  return plan.unroll[k] > 1 ? plan.unroll[k] : kTensorCoreK;
}

bool mlir::lazy::hasTensorCoreBlocks(const OptPlan &plan) {
  auto beyondOne = [](ArrayRef<int64_t> v) {
    return llvm::any_of(v, [](int64_t x) { return x > 1; });
  };
  return plan.tensorCores && (beyondOne(plan.local) || beyondOne(plan.upcast) ||
                              beyondOne(plan.unroll));
}

int64_t mlir::lazy::tensorCoreLanes(TensorCoreKind kind) {
  return kind == TensorCoreKind::Mfma ? 64 : 32;
}

int64_t mlir::lazy::tensorCoreTileColumns(TensorCoreKind kind) {
  return kind == TensorCoreKind::MmaSync ? 8 : 16;
}

FailureOr<TensorCoreShape>
mlir::lazy::matchTensorCores(const KernelSpace &space, size_t k,
                             std::string &why) {
  FailureOr<ProductReduce> shape =
      matchProductReduce(space, k, "tensor-core", why);
  if (failed(shape))
    return failure();
  llvm::raw_string_ostream os(why);
  auto isSixteenBitFloat = [](Value v) {
    Type t = cast<RankedTensorType>(v.getType()).getElementType();
    return t.isF16() || t.isBF16();
  };
  Type result = cast<RankedTensorType>(shape->reduce->getResult(0).getType())
                    .getElementType();
  if (!result.isF32() || shape->casts == ProductCasts::None ||
      !isSixteenBitFloat(shape->a)) {
    os << "a tensor-core plan needs the sum of a product of two f16 or two "
          "bf16 operands, cast to f32";
    return failure();
  }
  if (space.shape[shape->m] % kTensorCoreM != 0 ||
      space.shape[shape->n] % kTensorCoreN != 0 ||
      space.shape[k] % kTensorCoreK != 0) {
    os << "a tensor-core plan needs M a multiple of " << kTensorCoreM
       << ", N of " << kTensorCoreN << " and K of " << kTensorCoreK
       << "; they are " << space.shape[shape->m] << ", "
       << space.shape[shape->n] << " and " << space.shape[k];
    return failure();
  }
  return shape;
}
