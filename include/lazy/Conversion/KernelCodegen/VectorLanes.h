//===- VectorLanes.h - a register tile's vector lanes -----------*- C++ -*-===//
//
// Lane mode (VectorLanes.cpp): the elements of a register tile computed as
// vectors along one output axis.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_CONVERSION_KERNELCODEGEN_VECTORLANES_H
#define LAZY_CONVERSION_KERNELCODEGEN_VECTORLANES_H

#include <cstddef>
#include <cstdint>

namespace mlir::lazy {

/// The vector lanes of a register tile (the CPU's plans): every tile
/// element stands for `width` consecutive positions along output axis
/// `axis`, from the element's index there. Values that vary along the axis
/// are `vector<width x T>`, the others stay scalars.
struct LaneAxis {
  size_t axis;
  int64_t width;
};

/// x86's widest vector and a cache line: the CPU's buffer alignment, and
/// what a load must move per step to be worth a prefetch.
constexpr int64_t kCacheLineBytes = 64;

} // namespace mlir::lazy

#endif // LAZY_CONVERSION_KERNELCODEGEN_VECTORLANES_H
