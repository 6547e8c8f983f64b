//===- LazyTypes.cpp - lazy dialect types ---------------------------------===//

#include "lazy/Dialect/Lazy/IR/LazyTypes.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::lazy;

#define GET_TYPEDEF_CLASSES
#include "lazy/Dialect/Lazy/IR/LazyTypes.cpp.inc"

void LazyDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "lazy/Dialect/Lazy/IR/LazyTypes.cpp.inc"
      >();
}

/// The element types of tinygrad's dtypes.
static bool isTinygradDType(Type t) {
  if (t.isInteger(1))
    return true;
  if (auto i = dyn_cast<IntegerType>(t))
    return !i.isSignless() &&
           llvm::is_contained({8u, 16u, 32u, 64u}, i.getWidth());
  return t.isF16() || t.isBF16() || t.isF32() || t.isF64();
}

int64_t mlir::lazy::itemSize(Type elementType) {
  return std::max<int64_t>(1, elementType.getIntOrFloatBitWidth() / 8);
}

int64_t BufferType::getSizeInBytes() const {
  return getSize() * itemSize(getElementType());
}

LogicalResult BufferType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t size, Type elementType,
                                 DeviceAttr device) {
  if (size < 0)
    return emitError() << "buffer size must be non-negative, got " << size;
  if (!isTinygradDType(elementType))
    return emitError() << "buffer element type " << elementType
                       << " is not a tinygrad dtype";
  if (!fitsInBytes({size}, elementType))
    return emitError() << "buffer of " << size << " elements of " << elementType
                       << " needs more than 2^63 - 1 bytes";
  return success();
}

/// `!lazy.buffer<16xf32>` or `!lazy.buffer<16xf32, #lazy.device<"CUDA">>`.
Type BufferType::parse(AsmParser &parser) {
  SmallVector<int64_t> dims;
  Type elementType;
  DeviceAttr device;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() ||
      parser.parseDimensionList(dims, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return {};
  if (succeeded(parser.parseOptionalComma()) &&
      parser.parseCustomAttributeWithFallback(device))
    return {};
  if (parser.parseGreater())
    return {};
  if (dims.size() != 1) {
    parser.emitError(loc, "a buffer has exactly one dimension (its size)");
    return {};
  }
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    dims[0], elementType, device);
}

void BufferType::print(AsmPrinter &printer) const {
  printer << '<' << getSize() << 'x' << getElementType();
  if (getDevice()) {
    printer << ", ";
    printer.printAttribute(getDevice());
  }
  printer << '>';
}
