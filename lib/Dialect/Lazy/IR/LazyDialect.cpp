//===- LazyDialect.cpp - lazy dialect registration and attributes ---------===//
//
// Registers the dialect and verifies its discardable attributes:
//   - `lazy.buffer` (function argument): non-negative i64 buffer identity;
//   - `lazy.buffer_offset` (function argument): non-negative i64 byte offset
//     of a sub-buffer, next to `lazy.buffer`;
//   - `lazy.forced_realize`, `lazy.seen`, `lazy.external` (op): unit
//     attributes on a lazy op with one result;
//   - `lazy.realize`, `lazy.group` (op): non-negative i64 positions written
//     by the scheduling passes;
//   - `lazy.default_device` (module): a valid device string;
//   - `lazy.flags` (module): a dictionary of tinygrad scheduler flags, each a
//     bool (MULTIOUTPUT, FUSE_CONV_BW, FUSE_ARANGE, USE_COPY_KERNEL).
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/IR/LazyAttrs.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::lazy;

#include "lazy/Dialect/Lazy/IR/LazyDialect.cpp.inc"

void LazyDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "lazy/Dialect/Lazy/IR/LazyOps.cpp.inc"
      >();
  registerAttributes();
  registerTypes();
}

bool mlir::lazy::hasValidEncoding(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && (!tensor.getEncoding() ||
                    isa<DeviceAttr>(tensor.getEncoding()));
}

bool mlir::lazy::fitsInBytes(ArrayRef<int64_t> shape, Type element) {
  int64_t bytes = std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8);
  for (int64_t dim : shape)
    if (dim < 0 || llvm::MulOverflow(bytes, dim, bytes))
      return false;
  return true;
}

bool mlir::lazy::isLazyTensor(Type type, unsigned classes) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() || !hasValidEncoding(tensor))
    return false;
  Type elementType = tensor.getElementType();
  if (!elementType.isIntOrFloat() ||
      !fitsInBytes(tensor.getShape(), elementType))
    return false;
  Type element = tensor.getElementType();
  if (auto integer = dyn_cast<IntegerType>(element)) {
    unsigned width = integer.getWidth();
    if (integer.isSignless())
      return width == 1 && (classes & kBoolDType);
    if (width != 8 && width != 16 && width != 32 && width != 64)
      return false;
    if (integer.isSigned())
      return classes & kSignedDType;
    return (classes & kUnsignedDType) || ((classes & kUI64DType) && width == 64);
  }
  return (classes & kFloatDType) &&
         isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(element);
}

/// The scheduler flags a module may carry, with tinygrad 0.9.2's defaults
/// documented in docs/.
static constexpr llvm::StringLiteral kKnownFlags[] = {
    "multi_output", "fuse_conv_bw", "fuse_arange", "use_copy_kernel"};

LogicalResult LazyDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kForcedRealizeAttrName || name == kSeenAttrName ||
      name == kExternalAttrName) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitOpError() << "'" << name << "' must be a unit attribute";
    if (op->getDialect() != this || op->getNumResults() != 1)
      return op->emitOpError()
             << "'" << name << "' only applies to lazy ops with one result";
    return success();
  }
  if (name == kRealizeAttrName || name == kGroupAttrName) {
    auto index = dyn_cast<IntegerAttr>(attr.getValue());
    if (!index || !index.getType().isSignlessInteger(64) || index.getInt() < 0)
      return op->emitOpError() << "'" << name
                               << "' must be a non-negative i64 position";
    if (op->getDialect() != this || op->getNumResults() != 1)
      return op->emitOpError()
             << "'" << name << "' only applies to lazy ops with one result";
    return success();
  }
  if (name == kMetadataAttrName) {
    auto names = dyn_cast<ArrayAttr>(attr.getValue());
    if (!names || !llvm::all_of(names, [](Attribute a) {
          return isa<StringAttr>(a);
        }))
      return op->emitOpError() << "'" << name
                               << "' must be an array of strings";
    return success();
  }
  if (name == kDefaultDeviceAttrName) {
    auto device = dyn_cast<StringAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !device)
      return op->emitOpError()
             << "'" << name << "' must be a string attribute on a module";
    return DeviceAttr::verify([&] { return op->emitOpError(); },
                              device.getValue());
  }
  if (name == kFlagsAttrName) {
    auto flags = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !flags)
      return op->emitOpError()
             << "'" << name << "' must be a dictionary attribute on a module";
    for (NamedAttribute flag : flags) {
      if (!llvm::is_contained(kKnownFlags, flag.getName().getValue()))
        return op->emitOpError()
               << "unknown scheduler flag '" << flag.getName().getValue()
               << "'; expected one of multi_output, fuse_conv_bw, "
                  "fuse_arange, use_copy_kernel";
      if (!isa<BoolAttr>(flag.getValue()))
        return op->emitOpError() << "scheduler flag '"
                                 << flag.getName().getValue()
                                 << "' must be true or false";
    }
    return success();
  }
  if (name == kRngSeedAttrName) {
    auto seed = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !seed || !seed.getType().isSignlessInteger(64) ||
        seed.getInt() < 0)
      return op->emitOpError()
             << "'" << name << "' must be a non-negative i64 on a module";
    return success();
  }
  if (name == kBufferAttrName)
    return op->emitOpError()
           << "'" << name << "' belongs on function arguments, not on ops";
  return op->emitOpError() << "unknown lazy dialect attribute '" << name
                           << "'";
}

LogicalResult LazyDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name != kBufferAttrName && name != kBufferOffsetAttrName)
    return op->emitOpError() << "unknown lazy argument attribute '" << name
                             << "'";
  if (name == kBufferOffsetAttrName) {
    auto offset = dyn_cast<IntegerAttr>(attr.getValue());
    if (!offset || !offset.getType().isSignlessInteger(64) ||
        offset.getInt() < 0)
      return op->emitOpError() << "argument #" << argIndex << ": '" << name
                               << "' must be a non-negative i64 byte offset";
    auto function = dyn_cast<FunctionOpInterface>(op);
    if (!function || !function.getArgAttr(argIndex, kBufferAttrName))
      return op->emitOpError() << "argument #" << argIndex << ": '" << name
                               << "' needs a 'lazy.buffer' to offset into";
    return success();
  }
  auto id = dyn_cast<IntegerAttr>(attr.getValue());
  if (!id || !id.getType().isSignlessInteger(64) || id.getInt() < 0)
    return op->emitOpError() << "argument #" << argIndex << ": '" << name
                             << "' must be a non-negative i64 buffer number";
  // External functions have no body: there is no argument to look at.
  Region &region = op->getRegion(regionIndex);
  if (!region.empty() &&
      !isa<RankedTensorType, BufferType, MemRefType>(
          region.front().getArgument(argIndex).getType()))
    return op->emitOpError() << "argument #" << argIndex << ": '" << name
                             << "' needs a tensor, buffer or memref argument";
  return success();
}

LogicalResult LazyDialect::verifyRegionResultAttribute(Operation *op,
                                                       unsigned regionIndex,
                                                       unsigned resultIndex,
                                                       NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name != kResultViewAttrName)
    return op->emitOpError() << "unknown lazy result attribute '" << name
                             << "'";
  if (!isa<ShapeTrackerAttr>(attr.getValue()))
    return op->emitOpError() << "result #" << resultIndex << ": '" << name
                             << "' must be a #lazy.st";
  return success();
}
