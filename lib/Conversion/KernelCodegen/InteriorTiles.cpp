//===- InteriorTiles.cpp - register tiles read without their masks --------===//
//
// KernelEmitter::emitStoreTileSplitAtMasks: a padded convolution's input is
// masked at the image's border only, yet every load of every tile paid for
// its mask (vector.maskedload and the mask's arithmetic in the innermost
// loop). Rules:
//   - a load qualifies when its view has the kernel space's shape (it is
//     read at the tile's elements and reduce positions only), and its
//     affine form (laneFormOf) has validity conditions;
//   - a tile is interior when every condition of every qualifying load
//     holds at each of its elements and reduce positions. A condition
//     `sum c[d] * idx[d] + k < 0` is largest at one corner: per axis, where
//     c[d] > 0, the tile's last element (on the lane axis plus the width
//     less one) or the reduce axis's last position, else the first;
//   - with a qualifying load, the tile is emitted twice under an scf.if on
//     that test, once per tile outside its reduce loops: the interior copy
//     reads those loads as if unmasked, the other copy as before;
//   - in a symbolic space, without a qualifying load, without reduces, or
//     where no tile can be interior (a condition's least value over the
//     tiles' positions, bases at multiples of the upcast, is not below 0:
//     a tile as wide as the padded axis), the tile is emitted once
//     (emitStoreTile).
// A padded 3x3 conv's interior tiles then run as its unpadded form does.
//
//===----------------------------------------------------------------------===//

#include "lazy/Conversion/KernelCodegen/KernelEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <set>

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

LogicalResult KernelEmitter::emitStoreTileSplitAtMasks(
    OpBuilder &b, ArrayRef<StoreOp> stores,
    ArrayRef<SmallVector<Value>> elements, const KernelSpace &space,
    const OptPlan &plan, std::optional<LaneAxis> laneAxis) {
  auto once = [&] {
    return emitStoreTile(b, stores, elements, space.reduces, plan.unroll,
                         laneAxis);
  };
  if (space.reduces.empty() || elements.empty() || space.isSymbolic())
    return once();
  ArrayRef<int64_t> shape = space.shape, upcast = plan.upcast;
  ArrayRef<bool> reduced = space.reduced;

  // Loads of the space's shape are read at the tile's elements and reduce
  // positions only: inside the reduces, or (reduce axes of one element)
  // right after them.
  DenseMap<Attribute, AffineIndex> unmasked;
  std::set<std::pair<std::vector<int64_t>, int64_t>> conditions;
  auto kernel = space.reduces.front()->getParentOfType<KernelOp>();
  for (LoadOp load : kernel.getBody().front().getOps<LoadOp>()) {
    if (load.getView().isSymbolic() || load.getView().getShape() != shape)
      continue;
    const AffineIndex *form = laneFormOf(load.getView());
    if (!form || form->valid.empty())
      continue;
    AffineIndex plain = *form;
    plain.valid.clear();
    unmasked.try_emplace(load.getView(), std::move(plain));
    for (const st::AffineCondition &c : form->valid)
      conditions.insert({c.coeffs, c.constant});
  }
  // Some tile can be interior only where each condition's least value
  // over the tiles is negative.
  for (const auto &[coeffs, constant] : conditions) {
    int64_t least = constant;
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t c = coeffs[d];
      if (reduced[d])
        least += std::max<int64_t>(0, c * (shape[d] - 1));
      else
        least += c > 0 ? c * (upcast[d] - 1) : c * (shape[d] - upcast[d]);
    }
    if (least >= 0)
      return once();
  }
  if (unmasked.empty())
    return once();

  // The test, at each condition's largest corner of the tile.
  Location loc = space.reduces.front()->getLoc();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  const SmallVector<Value> &first = elements.front();
  SmallVector<Value> last(elements.back().begin(), elements.back().end());
  if (laneAxis)
    last[laneAxis->axis] = arith::AddIOp::create(b, loc, last[laneAxis->axis],
                                                 index(laneAxis->width - 1));
  Value interior;
  for (const auto &[coeffs, constant] : conditions) {
    SmallVector<Value> corner(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) {
      bool grows = coeffs[d] > 0;
      if (reduced[d])
        corner[d] = index(grows ? shape[d] - 1 : 0);
      else
        corner[d] = grows ? last[d] : first[d];
    }
    Value holds = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::slt,
        emitAffine(b, loc, coeffs, constant, corner), index(0));
    interior = interior
                   ? arith::AndIOp::create(b, loc, interior, holds).getResult()
                   : holds;
  }

  auto ifOp = scf::IfOp::create(b, loc, interior, /*withElseRegion=*/true);
  OpBuilder thenBuilder = ifOp.getThenBodyBuilder();
  inBoundsForms = std::move(unmasked);
  LogicalResult inside = emitStoreTile(thenBuilder, stores, elements,
                                       space.reduces, plan.unroll, laneAxis);
  inBoundsForms.clear();
  if (failed(inside))
    return failure();
  OpBuilder elseBuilder = ifOp.getElseBodyBuilder();
  return emitStoreTile(elseBuilder, stores, elements, space.reduces,
                       plan.unroll, laneAxis);
}
