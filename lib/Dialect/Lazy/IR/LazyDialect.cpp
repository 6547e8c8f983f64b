//===- LazyDialect.cpp - lazy dialect registration and attributes ---------===//
//
// Registers the dialect and verifies its discardable attributes:
//   - `lazy.buffer` (function argument): non-negative i64 buffer identity;
//     arguments sharing one are on one device, whole-buffer ones agree on
//     dtype and byte size, and sub-buffers end within them;
//   - `lazy.buffer_offset` (function argument): non-negative i64 byte offset
//     of a sub-buffer, next to `lazy.buffer`;
//   - `lazy.forced_realize`, `lazy.seen`, `lazy.external` (op): unit
//     attributes on a lazy op with one result;
//   - `lazy.realize`, `lazy.group` (op): non-negative i64 positions written
//     by the scheduling passes;
//   - `lazy.default_device` (module): a valid device string;
//   - `lazy.flags` (module): a dictionary of tinygrad scheduler flags, each a
//     bool (ScheduleFlags.def lists them).
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/IR/LazyAttrs.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/IR/ScheduleFlags.h"

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
                    isa<DeviceAttr, SymShapeAttr>(tensor.getEncoding()));
}

Attribute mlir::lazy::deviceOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return {};
  if (auto sym = dyn_cast_or_null<SymShapeAttr>(tensor.getEncoding()))
    return sym.getDevice();
  return tensor.getEncoding();
}

bool mlir::lazy::hasSymbolicShape(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa_and_nonnull<SymShapeAttr>(tensor.getEncoding());
}

/// Whether `op` holds a Variable: in a result, operand or block argument
/// type, or in an attribute (a #lazy.st, or a type or encoding nested in
/// one, such as a function signature).
static bool holdsVariable(Operation *op) {
  auto symbolicAttr = [](Attribute attr) {
    bool found = false;
    attr.walk([&](Attribute a) {
      if (auto st = dyn_cast<ShapeTrackerAttr>(a))
        found |= st.isSymbolic();
      found |= isa<SymShapeAttr, SymIntAttr>(a);
    });
    return found;
  };
  auto symbolicType = [&](Type type) {
    bool found = false;
    type.walk([&](Attribute a) { found |= isa<SymShapeAttr>(a); });
    return found;
  };
  if (llvm::any_of(op->getResultTypes(), symbolicType) ||
      llvm::any_of(op->getOperandTypes(), symbolicType))
    return true;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments())
        if (symbolicType(arg.getType()))
          return true;
  return symbolicAttr(op->getAttrDictionary());
}

bool mlir::lazy::holdsVariables(Operation *root) {
  return root
      ->walk([](Operation *op) {
        return holdsVariable(op) ? WalkResult::interrupt()
                                 : WalkResult::advance();
      })
      .wasInterrupted();
}

LogicalResult mlir::lazy::rejectSymbolicShapes(Operation *root,
                                               StringRef what) {
  Operation *found = nullptr;
  root->walk([&](Operation *op) {
    if (!holdsVariable(op))
      return WalkResult::advance();
    found = op;
    return WalkResult::interrupt();
  });
  if (!found)
    return success();
  return found->emitError()
         << what << " does not take symbolic shapes (tinygrad Variables) yet";
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
    return (classes & kUnsignedDType) ||
           ((classes & kUI64DType) && width == 64);
  }
  return (classes & kFloatDType) &&
         isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(element);
}

LogicalResult LazyDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kForcedRealizeAttrName || name == kSeenAttrName ||
      name == kExternalAttrName || name == kRowValueAttrName) {
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
      return op->emitOpError()
             << "'" << name << "' must be a non-negative i64 position";
    if (op->getDialect() != this || op->getNumResults() != 1)
      return op->emitOpError()
             << "'" << name << "' only applies to lazy ops with one result";
    return success();
  }
  if (name == kVarValuesAttrName) {
    auto values = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!isa<LaunchOp>(op))
      return op->emitOpError()
             << "'" << name << "' only applies to lazy.launch";
    if (!values || values.empty())
      return op->emitOpError()
             << "'" << name << "' must be a non-empty dictionary of i64 values";
    for (NamedAttribute entry : values) {
      auto value = dyn_cast<IntegerAttr>(entry.getValue());
      if (!value || !value.getType().isSignlessInteger(64))
        return op->emitOpError()
               << "'" << name << "': the value of '"
               << entry.getName().getValue() << "' must be an i64";
    }
    return success();
  }
  if (name == kNodesAttrName) {
    auto positions = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!positions ||
        llvm::any_of(positions.asArrayRef(), [](int64_t p) { return p < 0; }))
      return op->emitOpError()
             << "'" << name << "' must be an array<i64> of positions";
    if (op->getDialect() != this ||
        int64_t(positions.size()) != int64_t(op->getNumResults()))
      return op->emitOpError() << "'" << name
                               << "' needs one position per result of a "
                                  "lazy op";
    return success();
  }
  if (name == kKernelVariablesAttrName) {
    auto names = dyn_cast<ArrayAttr>(attr.getValue());
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!func || !names ||
        !llvm::all_of(names, [](Attribute a) { return isa<StringAttr>(a); }))
      return op->emitOpError()
             << "'" << name << "' must be an array of strings on a function";
    // The names' `index` arguments (integers once lowered to LLVM) end
    // the argument list.
    ArrayRef<Type> args = func.getArgumentTypes();
    if (names.size() > args.size() ||
        !llvm::all_of(args.take_back(names.size()),
                      [](Type t) { return t.isIntOrIndex(); }))
      return op->emitOpError()
             << "'" << name << "' names " << names.size()
             << " Variables, which need as many trailing index arguments";
    return success();
  }
  if (name == kMetadataAttrName) {
    auto names = dyn_cast<ArrayAttr>(attr.getValue());
    if (!names ||
        !llvm::all_of(names, [](Attribute a) { return isa<StringAttr>(a); }))
      return op->emitOpError()
             << "'" << name << "' must be an array of strings";
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
    return verifyScheduleFlags(flags, [&] { return op->emitOpError(); });
  }
  if (name == kRngSeedAttrName) {
    auto seed = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !seed || !seed.getType().isSignlessInteger(64) ||
        seed.getInt() < 0)
      return op->emitOpError()
             << "'" << name << "' must be a non-negative i64 on a module";
    return success();
  }
  if (name == kRankDevicesAttrName) {
    auto devices = dyn_cast<ArrayAttr>(attr.getValue());
    if (!isa<ModuleOp>(op) || !devices || devices.empty() ||
        !llvm::all_of(devices, [](Attribute a) { return isa<StringAttr>(a); }))
      return op->emitOpError() << "'" << name
                               << "' must be a non-empty array of device "
                                  "strings on a module";
    return success();
  }
  if (name == kRankAttrName) {
    auto rank = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<FunctionOpInterface>(op) || !rank ||
        !rank.getType().isSignlessInteger(64) || rank.getInt() < 0)
      return op->emitOpError()
             << "'" << name << "' must be a non-negative i64 on a function";
    return success();
  }
  if (name == kBufferAttrName)
    return op->emitOpError()
           << "'" << name << "' belongs on function arguments, not on ops";
  return op->emitOpError() << "unknown lazy dialect attribute '" << name << "'";
}

namespace {
/// What an argument says of the device Buffer its `lazy.buffer` names.
struct BufferClaim {
  Type element;
  int64_t bytes;
  Attribute device; // null: the module's default device
  bool isSubBuffer; // has a lazy.buffer_offset
};
} // namespace

static std::optional<BufferClaim> claimOf(Type type, bool isSubBuffer) {
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    Type element = tensor.getElementType();
    if (!tensor.hasStaticShape() || !element.isIntOrFloat() ||
        !fitsInBytes(tensor.getShape(), element))
      return std::nullopt;
    return BufferClaim{element, tensor.getNumElements() * itemSize(element),
                       deviceOf(tensor), isSubBuffer};
  }
  if (auto buffer = dyn_cast<BufferType>(type))
    return BufferClaim{buffer.getElementType(), buffer.getSizeInBytes(),
                       buffer.getDevice(), isSubBuffer};
  return std::nullopt;
}

/// Arguments that share a `lazy.buffer` number are LazyBuffers of one
/// device Buffer: one device, and whole-buffer arguments (no offset) of
/// one dtype and size, which holds every sub-buffer (offset plus bytes).
/// Each argument is checked against the earlier ones with its number, in
/// one walk over the function's arguments: the verifier asks for each
/// argument's attributes, and a step's function has hundreds (a scan of
/// the earlier arguments for each made verification quadratic).
static LogicalResult verifySharedBuffers(FunctionOpInterface function) {
  ArrayAttr argAttrs = function.getArgAttrsAttr();
  if (!argAttrs)
    return success();
  auto offsetAt = [&](unsigned i) -> int64_t {
    auto offset = dyn_cast_or_null<IntegerAttr>(
        function.getArgAttr(i, LazyDialect::kBufferOffsetAttrName));
    return offset ? offset.getInt() : 0;
  };
  ArrayRef<Type> types = function.getArgumentTypes();
  // The claims made so far, by buffer number.
  llvm::DenseMap<int64_t, SmallVector<std::pair<unsigned, BufferClaim>, 1>>
      claims;
  for (auto [index, dict] :
       llvm::enumerate(argAttrs.getAsRange<DictionaryAttr>())) {
    unsigned i = unsigned(index);
    auto id = dict ? dyn_cast_or_null<IntegerAttr>(
                         dict.get(LazyDialect::kBufferAttrName))
                   : IntegerAttr();
    // (A malformed number is reported with its own argument.)
    if (!id || !id.getType().isSignlessInteger(64) || id.getInt() < 0 ||
        i >= types.size())
      continue;
    std::optional<BufferClaim> mine =
        claimOf(types[i], bool(dict.get(LazyDialect::kBufferOffsetAttrName)));
    if (!mine)
      continue;
    auto &earlier = claims[id.getInt()];
    for (auto &[j, theirs] : earlier) {
      auto fail = [&, j = j](StringRef why) {
        return function->emitOpError()
               << "arguments #" << j << " and #" << i << " share 'lazy.buffer' "
               << id.getInt() << " but " << why
               << ": one device Buffer has one device, dtype and size";
      };
      if (mine->device != theirs.device)
        return fail("are on different devices");
      if (mine->isSubBuffer == theirs.isSubBuffer) {
        if (mine->isSubBuffer)
          continue; // two sub-buffers: nothing to compare them with
        if (mine->element != theirs.element || mine->bytes != theirs.bytes)
          return fail("have different dtypes or sizes");
        continue;
      }
      const BufferClaim &whole = mine->isSubBuffer ? theirs : *mine;
      const BufferClaim &sub = mine->isSubBuffer ? *mine : theirs;
      int64_t offset = offsetAt(mine->isSubBuffer ? i : j), end;
      if (llvm::AddOverflow(offset, sub.bytes, end) || end > whole.bytes)
        return fail("the sub-buffer reaches past the whole buffer's end");
    }
    earlier.push_back({i, *mine});
  }
  return success();
}

/// Whether `argIndex` is the function's first argument with a
/// `lazy.buffer`: the one whose verification checks them all together.
static bool isFirstBufferArgument(FunctionOpInterface function,
                                  unsigned argIndex) {
  for (unsigned j = 0; j < argIndex; ++j)
    if (function.getArgAttr(j, LazyDialect::kBufferAttrName))
      return false;
  return true;
}

/// lazy.argument and lazy.output: a position in the function a rank's
/// function was split from.
static LogicalResult verifyPosition(Operation *op, StringRef what,
                                    unsigned index, NamedAttribute attr) {
  auto position = dyn_cast<IntegerAttr>(attr.getValue());
  if (!position || !position.getType().isSignlessInteger(64) ||
      position.getInt() < 0)
    return op->emitOpError()
           << what << " #" << index << ": '" << attr.getName().getValue()
           << "' must be a non-negative i64 position";
  return success();
}

LogicalResult LazyDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kArgumentAttrName)
    return verifyPosition(op, "argument", argIndex, attr);
  if (name != kBufferAttrName && name != kBufferOffsetAttrName)
    return op->emitOpError()
           << "unknown lazy argument attribute '" << name << "'";
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
  if (!region.empty() && !isa<RankedTensorType, BufferType, MemRefType>(
                             region.front().getArgument(argIndex).getType()))
    return op->emitOpError() << "argument #" << argIndex << ": '" << name
                             << "' needs a tensor, buffer or memref argument";
  if (auto function = dyn_cast<FunctionOpInterface>(op);
      function && isFirstBufferArgument(function, argIndex))
    return verifySharedBuffers(function);
  return success();
}

LogicalResult LazyDialect::verifyRegionResultAttribute(Operation *op,
                                                       unsigned regionIndex,
                                                       unsigned resultIndex,
                                                       NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kOutputAttrName)
    return verifyPosition(op, "result", resultIndex, attr);
  if (name != kResultViewAttrName)
    return op->emitOpError()
           << "unknown lazy result attribute '" << name << "'";
  if (!isa<ShapeTrackerAttr>(attr.getValue()))
    return op->emitOpError() << "result #" << resultIndex << ": '" << name
                             << "' must be a #lazy.st";
  return success();
}
