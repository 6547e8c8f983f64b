//===- LazyOps.cpp - lazy dialect operations ------------------------------===//
//
// Verifiers and custom syntax of the lazy ops. Each verifier enforces what
// tinygrad 0.9.2 asserts when it builds the LazyBuffer, and the movement op
// verifiers reuse the ShapeTracker library's argument checks so that every
// op that verifies can be folded into a view without further checks.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/IR/SymbolicSyntax.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static std::vector<int64_t> shapeOf(Value v) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(v.getType()).getShape();
  return std::vector<int64_t>(shape.begin(), shape.end());
}

static std::vector<int64_t> shapeOf(Type t) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(t).getShape();
  return std::vector<int64_t>(shape.begin(), shape.end());
}

static std::string shapeText(ArrayRef<int64_t> shape) {
  std::string s = "(";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os);
  os << ")";
  return s;
}

/// Both tensors live on the same device (have the same encoding).
static LogicalResult verifyDevicesMatch(Operation *op, Type a, Type b,
                                        StringRef what) {
  if (deviceOf(a) != deviceOf(b))
    return op->emitOpError() << what << " must be on the same device";
  return success();
}

static LogicalResult verifySameShape(Operation *op, Type a, Type b,
                                     StringRef what) {
  if (cast<RankedTensorType>(a).getShape() !=
      cast<RankedTensorType>(b).getShape())
    return op->emitOpError()
           << what << " must have the same shape, got "
           << shapeText(cast<RankedTensorType>(a).getShape()) << " and "
           << shapeText(cast<RankedTensorType>(b).getShape());
  return success();
}

/// Movement ops keep dtype and device; only the shape changes.
static LogicalResult verifyMovement(Operation *op) {
  Type src = op->getOperand(0).getType(), res = op->getResult(0).getType();
  if (getElementTypeOrSelf(src) != getElementTypeOrSelf(res))
    return op->emitOpError("result dtype must equal the source dtype");
  return verifyDevicesMatch(op, src, res, "source and result");
}

static std::string symbolicShapeText(const st::SymShape &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + sintText(shape[i]);
  return s + ")";
}

/// The result's symbolic dims equal `expected` (tinygrad's `==`).
static LogicalResult verifySymbolicResultShape(Operation *op,
                                               const st::SymShape &expected) {
  st::SymShape actual = symbolicShapeOf(op->getResult(0).getType());
  if (!st::symEqual(actual, expected))
    return op->emitOpError()
           << "result shape must be " << symbolicShapeText(expected) << ", got "
           << symbolicShapeText(actual);
  return success();
}

/// Movement ops other than lazy.view take integer shapes only: a
/// symbolic view is written (and exported) as one lazy.view.
static LogicalResult verifyIntegerMovement(Operation *op) {
  if (failed(verifyMovement(op)))
    return failure();
  if (hasSymbolicShape(op->getOperand(0).getType()) ||
      hasSymbolicShape(op->getResult(0).getType()))
    return op->emitOpError("takes integer shapes only; a view of a symbolic "
                           "shape is a lazy.view with a symbolic #lazy.st");
  return success();
}

static LogicalResult verifyResultShape(Operation *op,
                                       ArrayRef<int64_t> expected) {
  ArrayRef<int64_t> actual =
      cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  if (actual != expected)
    return op->emitOpError() << "result shape must be " << shapeText(expected)
                             << ", got " << shapeText(actual);
  return success();
}

/// Splits a flat [b0, e0, b1, e1, ...] array into pairs.
static FailureOr<st::Mask> toPairs(Operation *op, ArrayRef<int64_t> flat,
                                   size_t rank, StringRef what) {
  if (flat.size() != 2 * rank)
    return op->emitOpError()
           << "expected one (" << what << ") pair per dimension (" << rank
           << "), got " << flat.size() / 2 + flat.size() % 2;
  st::Mask pairs;
  for (size_t i = 0; i < rank; ++i)
    pairs.emplace_back(flat[2 * i], flat[2 * i + 1]);
  return pairs;
}

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// `[(a, b), (c, d)]` stored as a flat DenseI64ArrayAttr.
static ParseResult parseRangePairs(OpAsmParser &parser,
                                   DenseI64ArrayAttr &pairs) {
  SmallVector<int64_t> flat;
  if (parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
            int64_t a, b;
            if (parser.parseLParen() || parser.parseInteger(a) ||
                parser.parseComma() || parser.parseInteger(b) ||
                parser.parseRParen())
              return failure();
            flat.push_back(a);
            flat.push_back(b);
            return success();
          }))
    return failure();
  pairs = parser.getBuilder().getDenseI64ArrayAttr(flat);
  return success();
}

static void printRangePairs(OpAsmPrinter &printer, Operation *,
                            DenseI64ArrayAttr pairs) {
  ArrayRef<int64_t> flat = pairs.asArrayRef();
  printer << '[';
  for (size_t i = 0; i + 1 < flat.size(); i += 2) {
    if (i)
      printer << ", ";
    printer << '(' << flat[i] << ", " << flat[i + 1] << ')';
  }
  printer << ']';
}

/// `custom<SameTypes>(type($a), ..., type($result))`: the one type of ops
/// with the Lazy_SameTypes trait, written once.
template <typename... Rest>
static ParseResult parseSameTypes(OpAsmParser &parser, Type &first,
                                  Rest &...rest) {
  if (parser.parseType(first))
    return failure();
  ((rest = first), ...);
  return success();
}

template <typename... Rest>
static void printSameTypes(OpAsmPrinter &printer, Operation *, Type first,
                           Rest...) {
  printer << first;
}

#define GET_OP_CLASSES
#include "lazy/Dialect/Lazy/IR/LazyOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

// Equal shapes of elementwise ops are checked by the Elementwise trait, equal
// devices by the SameDevice trait.

LogicalResult mlir::lazy::verifySameDevice(Operation *op) {
  std::optional<Attribute> device;
  for (Type type :
       llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      continue;
    if (!device)
      device = deviceOf(tensor);
    else if (*device != deviceOf(tensor))
      return op->emitOpError(
          "all operands and results must be on the same device");
  }
  return success();
}

LogicalResult mlir::lazy::verifySameTypes(Operation *op) {
  Type type = op->getResult(0).getType();
  if (llvm::all_of(op->getOperandTypes(), [&](Type t) { return t == type; }))
    return success();
  // Different types: report what differs, as MLIR's traits and SameDevice
  // would.
  if (failed(OpTrait::impl::verifyElementwise(op)) ||
      failed(OpTrait::impl::verifySameOperandsAndResultType(op)) ||
      failed(verifySameDevice(op)))
    return failure();
  return op->emitOpError("requires the same type for all operands and results");
}

LogicalResult mlir::lazy::verifyElementwiseShapes(Operation *op) {
  std::optional<ArrayRef<int64_t>> shape;
  for (Type type :
       llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return OpTrait::impl::verifyElementwise(op);
    if (!shape)
      shape = tensor.getShape();
    else if (*shape != tensor.getShape())
      return OpTrait::impl::verifyElementwise(op);
  }
  return success();
}

LogicalResult CastOp::verify() {
  return verifyDevicesMatch(*this, getSrc().getType(), getType(),
                            "source and result");
}

LogicalResult BitcastOp::verify() {
  Type srcType = getSrc().getType(), resType = getType();
  if (failed(verifyDevicesMatch(*this, srcType, resType, "source and result")))
    return failure();
  int64_t inSize = itemSize(getElementTypeOrSelf(srcType));
  int64_t outSize = itemSize(getElementTypeOrSelf(resType));
  if (inSize == outSize)
    return verifySameShape(*this, srcType, resType, "source and result");
  // A size-changing bitcast rescales the last dimension (tinygrad: DISK).
  std::vector<int64_t> shape = shapeOf(srcType);
  if (shape.empty())
    return emitOpError("a bitcast that changes the itemsize needs rank >= 1");
  if ((shape.back() * inSize) % outSize != 0)
    return emitOpError() << "last dimension " << shape.back() << " of "
                         << inSize << "-byte elements is not a whole number "
                         << "of " << outSize << "-byte elements";
  shape.back() = shape.back() * inSize / outSize;
  return verifyResultShape(*this, shape);
}

//===----------------------------------------------------------------------===//
// Reduce ops
//===----------------------------------------------------------------------===//

/// The result's shape is the source's with `axes` (distinct, in range) of
/// size 1.
static LogicalResult verifyReducedShape(Operation *op, Type src,
                                        ArrayRef<int64_t> axes) {
  std::vector<int64_t> shape = shapeOf(src);
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] < 0 || axes[i] >= static_cast<int64_t>(shape.size()))
      return op->emitOpError() << "axis " << axes[i]
                               << " is out of range for rank " << shape.size();
    // Graph reduces have sorted axes; a kernel's merged double reduce
    // lists the outer reduce's axes first, so only distinctness is required.
    if (shape[axes[i]] == 1 && llvm::is_contained(axes.take_front(i), axes[i]))
      return op->emitOpError("axes must be distinct");
    shape[axes[i]] = 1;
  }
  if (failed(verifyResultShape(op, shape)))
    return failure();
  st::SymShape dims = symbolicShapeOf(src);
  for (int64_t axis : axes)
    dims[axis] = 1;
  return verifySymbolicResultShape(op, dims);
}
static LogicalResult verifyReduce(Operation *op, ArrayRef<int64_t> axes) {
  if (failed(verifyMovement(op)))
    return failure();
  return verifyReducedShape(op, op->getOperand(0).getType(), axes);
}
LogicalResult ReduceSumOp::verify() { return verifyReduce(*this, getAxes()); }
LogicalResult ReduceMaxOp::verify() { return verifyReduce(*this, getAxes()); }
LogicalResult SoftmaxSumOp::verify() {
  auto scores = cast<RankedTensorType>(getScores().getType());
  auto weights = cast<RankedTensorType>(getWeights().getType());
  if (scores.getShape() != weights.getShape())
    return emitOpError("scores and weights must have one shape, not ")
           << scores << " and " << weights;
  if (weights.getElementType() != getResult().getType().getElementType())
    return emitOpError("result must have the weights' element type ")
           << weights.getElementType();
  if (!std::isfinite(getScale().convertToDouble()) ||
      getScale().convertToDouble() <= 0)
    return emitOpError("scale must be positive and finite, not ")
           << getScale().convertToDouble();
  if (failed(verifyDevicesMatch(*this, scores, getResult().getType(),
                                "scores and result")))
    return failure();
  return verifyReducedShape(*this, scores, getAxes());
}

//===----------------------------------------------------------------------===//
// ConstOp
//===----------------------------------------------------------------------===//

LogicalResult ConstOp::verify() {
  // The printer relies on the value being a bool, integer or float literal
  // of exactly the element type, or a Variable of an integer type.
  Type elementType = getType().getElementType();
  if (auto sym = dyn_cast<SymIntAttr>(getValue())) {
    if (sym.getType() != elementType)
      return emitOpError() << "Variable value of type " << sym.getType()
                           << " must have the element type " << elementType;
    return success();
  }
  if (isa<FloatType>(elementType)) {
    // tinygrad's Python float, exact: rounded to the dtype only where used.
    auto value = dyn_cast<FloatAttr>(getValue());
    if (!value || !value.getType().isF64())
      return emitOpError() << "value " << getValue()
                           << " of a float const must be an f64 literal";
    return success();
  }
  if (getValue().getType() != elementType || !isa<IntegerAttr>(getValue()))
    return emitOpError() << "value " << getValue()
                         << " must be a literal of the element type "
                         << elementType;
  return success();
}

TypedAttr ConstOp::getElementValue() {
  auto value = dyn_cast<FloatAttr>(getValue());
  if (!value)
    return getValue();
  auto floatType = cast<FloatType>(getType().getElementType());
  APFloat rounded = value.getValue();
  bool losesInfo;
  rounded.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
  return FloatAttr::get(floatType, rounded);
}

/// Syntax: `lazy.const <literal> attr-dict : tensor-type`, where the literal
/// is `true`/`false`, an integer, a float, `inf`, `-inf` or `nan`, read as a
/// value of the tensor's element type (tinygrad's dtypes.as_const); a float
/// dtype's value is kept as the double the literal spells.
ParseResult ConstOp::parse(OpAsmParser &parser, OperationState &result) {
  SMLoc loc = parser.getCurrentLocation();
  std::optional<bool> boolValue;
  std::optional<APInt> intValue;
  std::optional<double> floatValue;
  std::optional<st::SInt> variable;
  StringRef word;
  if (succeeded(parser.parseOptionalKeyword(&word))) {
    if (word == "true" || word == "false") {
      boolValue = word == "true";
    } else if (word == "nan" || word == "inf") {
      floatValue = word == "nan" ? std::numeric_limits<double>::quiet_NaN()
                                 : std::numeric_limits<double>::infinity();
    } else {
      // A Variable: `name[lo:hi]` or `name[lo:hi=value]`.
      st::SInt v;
      if (parseVariableAfterName(parser, word, v))
        return failure();
      variable = v;
    }
  } else {
    bool negative = succeeded(parser.parseOptionalMinus());
    APInt integer;
    OptionalParseResult parsedInt = parser.parseOptionalDecimalInteger(integer);
    if (parsedInt.has_value()) {
      if (failed(*parsedInt))
        return failure();
      // Keep one spare bit so that negation and range checks are exact.
      integer = integer.zext(integer.getBitWidth() + 1);
      intValue = negative ? -integer : integer;
    } else if (succeeded(parser.parseOptionalKeyword("inf"))) {
      floatValue = negative ? -std::numeric_limits<double>::infinity()
                            : std::numeric_limits<double>::infinity();
    } else {
      double d;
      if (parser.parseFloat(d))
        return failure();
      floatValue = negative ? -d : d;
    }
  }

  RankedTensorType type;
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.parseType(type))
    return failure();
  result.addTypes(type);
  Type elementType = type.getElementType();
  Builder &b = parser.getBuilder();

  if (variable) {
    auto value =
        SymIntAttr::getChecked([&] { return parser.emitError(loc); },
                               parser.getContext(), *variable, elementType);
    if (!value)
      return failure();
    result.addAttribute("value", value);
    return success();
  }

  if (elementType.isInteger(1)) {
    if (!boolValue)
      return parser.emitError(loc, "expected true or false for a bool const");
    result.addAttribute("value", b.getBoolAttr(*boolValue));
    return success();
  }
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    if (boolValue)
      return parser.emitError(loc, "expected a number for a float const");
    double value = intValue ? intValue->signedRoundToDouble() : *floatValue;
    result.addAttribute("value", b.getF64FloatAttr(value));
    return success();
  }
  auto intType = dyn_cast<IntegerType>(elementType);
  if (!intType)
    return parser.emitError(loc, "unsupported const element type ")
           << elementType;
  if (!intValue)
    return parser.emitError(loc, "expected an integer for an integer const");
  unsigned width = intType.getWidth();
  bool fits = intType.isUnsigned() ? !intValue->isNegative() &&
                                         intValue->getActiveBits() <= width
                                   : intValue->getSignificantBits() <= width;
  if (!fits)
    return parser.emitError(loc, "integer const out of range for ")
           << elementType;
  result.addAttribute("value",
                      b.getIntegerAttr(intType, intValue->sextOrTrunc(width)));
  return success();
}

void ConstOp::print(OpAsmPrinter &printer) {
  Attribute value = getValue();
  printer << ' ';
  if (auto sym = dyn_cast<SymIntAttr>(value)) {
    printSInt(printer.getStream(), sym.getValue());
  } else if (auto boolAttr = dyn_cast<BoolAttr>(value)) {
    printer << (boolAttr.getValue() ? "true" : "false");
  } else if (auto intAttr = dyn_cast<IntegerAttr>(value)) {
    intAttr.getValue().print(printer.getStream(),
                             !intAttr.getType().isUnsignedInteger());
  } else {
    // The double, which the parser reads back exactly.
    APFloat f = cast<FloatAttr>(value).getValue();
    if (f.isNaN())
      printer << "nan";
    else if (f.isInfinity())
      printer << (f.isNegative() ? "-inf" : "inf");
    else
      printer.printFloat(f);
  }
  printer.printOptionalAttrDict((*this)->getAttrs(), {"value"});
  printer << " : " << getType();
}

//===----------------------------------------------------------------------===//
// Meta ops
//===----------------------------------------------------------------------===//

LogicalResult CopyOp::verify() {
  if (getElementTypeOrSelf(getSrc().getType()) !=
      getElementTypeOrSelf(getType()))
    return emitOpError("a copy keeps the dtype");
  return verifySameShape(*this, getSrc().getType(), getType(),
                         "source and result");
}

LogicalResult CustomOp::verify() {
  if (getCallee().empty())
    return emitOpError("needs the name of the function that fills the buffer");
  if (std::optional<int64_t> seed = getSeed(); seed && *seed < 0)
    return emitOpError("seed must be non-negative");
  return success();
}

LogicalResult AssignOp::verify() {
  Type value = getValue().getType(), target = getTarget().getType();
  if (getElementTypeOrSelf(value) != getElementTypeOrSelf(target))
    return emitOpError() << "value dtype " << getElementTypeOrSelf(value)
                         << " must equal the target dtype "
                         << getElementTypeOrSelf(target);
  if (failed(verifyDevicesMatch(*this, value, target, "value and target")))
    return failure();
  int64_t targetSize = cast<RankedTensorType>(target).getNumElements();
  if (ShapeTrackerAttr view = getViewAttr()) {
    if (view.getShape() != cast<RankedTensorType>(value).getShape())
      return emitOpError() << "view shape " << shapeText(view.getShape())
                           << " must equal the value shape "
                           << shapeText(shapeOf(value));
    if ((view.isSymbolic() || hasSymbolicShape(value)) &&
        !st::symEqual(view.getSymTracker().shape(), symbolicShapeOf(value)))
      return emitOpError() << "view shape "
                           << symbolicShapeText(view.getSymTracker().shape())
                           << " must equal the value shape "
                           << symbolicShapeText(symbolicShapeOf(value));
    if (auto range = view.getBaseIndexRange())
      if (range->first < 0 || range->second >= targetSize)
        return emitOpError() << "view reaches indices outside the target's "
                             << targetSize << " elements";
    return success();
  }
  if (cast<RankedTensorType>(value).getNumElements() != targetSize)
    return emitOpError() << "value size "
                         << cast<RankedTensorType>(value).getNumElements()
                         << " must equal the target size " << targetSize;
  return success();
}

LogicalResult BufferViewOp::verify() {
  Type src = getSrc().getType(), res = getType();
  if (failed(verifyDevicesMatch(*this, src, res, "source and result")))
    return failure();
  auto srcTensor = cast<RankedTensorType>(src);
  auto resTensor = cast<RankedTensorType>(res);
  if (srcTensor.getElementType() == resTensor.getElementType())
    return verifySameShape(*this, src, res, "source and result");
  if (srcTensor.getNumElements() * itemSize(srcTensor.getElementType()) !=
      resTensor.getNumElements() * itemSize(resTensor.getElementType()))
    return emitOpError("a bitcasting buffer view must keep the byte size");
  return success();
}

//===----------------------------------------------------------------------===//
// Movement ops
//===----------------------------------------------------------------------===//

static LogicalResult checked(Operation *op, const std::string &problem) {
  if (!problem.empty())
    return op->emitOpError() << problem;
  return success();
}

LogicalResult ReshapeOp::verify() {
  if (failed(verifyIntegerMovement(*this)))
    return failure();
  return checked(*this,
                 st::checkReshape(shapeOf(getSrc()), shapeOf(getType())));
}

LogicalResult PermuteOp::verify() {
  if (failed(verifyIntegerMovement(*this)))
    return failure();
  std::vector<int64_t> shape = shapeOf(getSrc());
  std::vector<int64_t> order(getOrder().begin(), getOrder().end());
  if (failed(checked(*this, st::checkPermute(shape, order))))
    return failure();
  std::vector<int64_t> expected;
  for (int64_t axis : order)
    expected.push_back(shape[axis]);
  return verifyResultShape(*this, expected);
}

LogicalResult ExpandOp::verify() {
  if (failed(verifyIntegerMovement(*this)))
    return failure();
  return checked(*this, st::checkExpand(shapeOf(getSrc()), shapeOf(getType())));
}

LogicalResult PadOp::verify() {
  if (failed(verifyIntegerMovement(*this)))
    return failure();
  std::vector<int64_t> shape = shapeOf(getSrc());
  FailureOr<st::Mask> pads =
      toPairs(*this, getPadding(), shape.size(), "before, after");
  if (failed(pads) || failed(checked(*this, st::checkPad(shape, *pads))))
    return failure();
  for (size_t d = 0; d < shape.size(); ++d)
    shape[d] += (*pads)[d].first + (*pads)[d].second;
  return verifyResultShape(*this, shape);
}

LogicalResult ShrinkOp::verify() {
  if (failed(verifyIntegerMovement(*this)))
    return failure();
  std::vector<int64_t> shape = shapeOf(getSrc());
  FailureOr<st::Mask> bounds =
      toPairs(*this, getBounds(), shape.size(), "begin, end");
  if (failed(bounds) || failed(checked(*this, st::checkShrink(shape, *bounds))))
    return failure();
  for (size_t d = 0; d < shape.size(); ++d)
    shape[d] = (*bounds)[d].second - (*bounds)[d].first;
  return verifyResultShape(*this, shape);
}

LogicalResult StrideOp::verify() {
  if (failed(verifyIntegerMovement(*this)))
    return failure();
  std::vector<int64_t> shape = shapeOf(getSrc());
  std::vector<int64_t> factors(getFactors().begin(), getFactors().end());
  if (failed(checked(*this, st::checkStride(shape, factors))))
    return failure();
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t k = std::abs(factors[d]);
    shape[d] = (shape[d] + k - 1) / k;
  }
  return verifyResultShape(*this, shape);
}

LogicalResult ViewOp::verify() {
  if (failed(verifyMovement(*this)))
    return failure();
  ShapeTrackerAttr tracker = getTracker();
  if (failed(verifyResultShape(*this, tracker.getShape())))
    return failure();
  if (tracker.isSymbolic() || hasSymbolicShape(getType())) {
    // The view indexes its source's (largest) elements; its outermost
    // shape is the result's, Variables and all.
    st::SymShapeTracker sym = tracker.getSymTracker();
    if (failed(verifySymbolicResultShape(*this, sym.shape())))
      return failure();
  }
  int64_t baseSize =
      cast<RankedTensorType>(getSrc().getType()).getNumElements();
  if (auto range = tracker.getBaseIndexRange())
    if (range->first < 0 || range->second >= baseSize)
      return emitOpError() << "view reaches indices [" << range->first << ", "
                           << range->second << "] outside the " << baseSize
                           << " elements of its source";
  return success();
}

//===----------------------------------------------------------------------===//
// Movement as ShapeTracker algebra
//===----------------------------------------------------------------------===//

std::optional<st::ShapeTracker>
mlir::lazy::applyMovement(Operation *op, const st::ShapeTracker &tracker) {
  auto vec = [](ArrayRef<int64_t> a) {
    return std::vector<int64_t>(a.begin(), a.end());
  };
  auto pairs = [](ArrayRef<int64_t> flat) {
    st::Mask out;
    for (size_t i = 0; i + 1 < flat.size(); i += 2)
      out.emplace_back(flat[i], flat[i + 1]);
    return out;
  };
  auto resultShape = [&] { return shapeOf(op->getResult(0).getType()); };
  return llvm::TypeSwitch<Operation *, std::optional<st::ShapeTracker>>(op)
      .Case([&](ReshapeOp) { return tracker.reshape(resultShape()); })
      .Case([&](ExpandOp) { return tracker.expand(resultShape()); })
      .Case([&](PermuteOp p) { return tracker.permute(vec(p.getOrder())); })
      .Case([&](PadOp p) { return tracker.pad(pairs(p.getPadding())); })
      .Case([&](ShrinkOp p) { return tracker.shrink(pairs(p.getBounds())); })
      .Case([&](StrideOp p) { return tracker.stride(vec(p.getFactors())); })
      .Case([&](ViewOp v) { return tracker + v.getTracker().getTracker(); })
      .Default([](Operation *) { return std::nullopt; });
}
