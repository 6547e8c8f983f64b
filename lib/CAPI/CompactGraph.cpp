//===- CompactGraph.cpp - a `lazy` module from the compact form -----------===//
//
// The Python bridge hands graphs over as int64 words and a string table
// (include/lazy-c/Lazy.h, "The compact graph"): the generic form of each op
// (name, result type, attributes, operands) without text. Building the
// module from it skips MLIR's lexer and parser, which took half of the
// C API's time on a 5,500-op graph; each distinct string, type and
// ShapeTracker is made once.
//
// Nothing in the input is trusted: every count, index and reference is
// checked before use (an op may only use arguments and earlier ops, so the
// graph is acyclic by construction), only registered `lazy` ops are made,
// and the module is verified before anyone sees it. Malformed input gets
// an error at the word where it was found; an op the verifier rejects is
// reported at its location, `<name>:<op position>:0` inside its metadata's
// NameLoc.
//
//===----------------------------------------------------------------------===//

#include "CompactGraph.h"

#include "lazy/Dialect/Lazy/IR/LazyAttrs.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/bit.h"

#include <limits>

using namespace mlir;
namespace lz = mlir::lazy;

namespace {

constexpr int64_t kMagic = 0x4C5A47; // "LZG"
constexpr int64_t kVersion = 1;

/// How an attribute's payload is spelled (the header's numbering).
enum class AttrKind : int64_t {
  Unit = 0,     // no payload
  Tracker = 1,  // index into the trackers
  I64Array = 2, // count, values: DenseI64ArrayAttr
  String = 3,   // string index: StringAttr
  Scalar = 4,   // one word, read in the op result's element type
  I64 = 5,      // one word: an i64 IntegerAttr
  Bool = 6,     // 0 or 1: BoolAttr
  Dict = 7,     // count, attributes (no Dict among them)
};

class CompactReader {
public:
  CompactReader(MLIRContext *context, ArrayRef<int64_t> words, StringRef blob,
                StringRef name)
      : context(context), words(words), blob(blob),
        name(StringAttr::get(context, name)),
        graphLoc(FileLineColLoc::get(this->name, 0, 0)) {}

  OwningOpRef<ModuleOp> build();

private:
  LogicalResult fail(const Twine &message) {
    emitError(graphLoc) << "malformed compact graph at word " << at << ": "
                        << message;
    return failure();
  }
  LogicalResult next(int64_t &value, const char *what) {
    if (at >= words.size())
      return fail(Twine("the words end before ") + what);
    value = words[at++];
    return success();
  }
  /// A count of items of at least `minWords` words each: a count the
  /// remaining words cannot hold fails before anything is allocated.
  LogicalResult count(int64_t &value, const char *what, int64_t minWords = 1) {
    if (failed(next(value, what)))
      return failure();
    if (value < 0 || (minWords > 0 && uint64_t(value) > (words.size() - at) /
                                                            uint64_t(minWords)))
      return fail(Twine("bad ") + what + " " + Twine(value));
    return success();
  }
  LogicalResult index(int64_t &value, size_t size, const char *what) {
    if (failed(next(value, what)))
      return failure();
    return checkIndex(value, size, what);
  }
  LogicalResult checkIndex(int64_t value, size_t size, const char *what) {
    if (value < 0 || uint64_t(value) >= size)
      return fail(Twine(what) + " " + Twine(value) + " is out of range (" +
                  Twine(size) + ")");
    return success();
  }

  LogicalResult readStrings();
  LogicalResult readTrackers();
  LogicalResult readAttributes(NamedAttrList &attrs, Type scalarType,
                               bool allowDict);
  FailureOr<StringAttr> readString(const char *what, bool optional = false);
  FailureOr<RankedTensorType> readType();
  FailureOr<Attribute> scalar(Type type, int64_t word);
  FailureOr<OperationName> readOpName();
  FailureOr<Value> readValue(ArrayRef<Value> args, ArrayRef<Value> ops);

  MLIRContext *context;
  ArrayRef<int64_t> words;
  StringRef blob;
  StringAttr name;
  Location graphLoc;
  size_t at = 0;

  SmallVector<StringRef> strings;
  SmallVector<StringAttr> stringAttrs; // made on first use
  SmallVector<Attribute> trackers;
  llvm::DenseMap<int64_t, RankedTensorType> types;
  llvm::DenseMap<int64_t, OperationName> opNames;
};

LogicalResult CompactReader::readStrings() {
  int64_t n;
  if (failed(count(n, "string count")))
    return failure();
  strings.reserve(n);
  size_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t length;
    if (failed(next(length, "a string length")))
      return failure();
    if (length < 0 || uint64_t(length) > blob.size() - offset)
      return fail("string " + Twine(i) + " runs past the string table");
    strings.push_back(blob.substr(offset, length));
    offset += length;
  }
  if (offset != blob.size())
    return fail("the string table holds " + Twine(blob.size() - offset) +
                " bytes no string uses");
  stringAttrs.resize(n);
  return success();
}

/// A string by index; with `optional`, -1 stands for none (a null
/// StringAttr).
FailureOr<StringAttr> CompactReader::readString(const char *what,
                                                bool optional) {
  int64_t i;
  if (failed(next(i, what)))
    return failure();
  if (optional && i == -1)
    return StringAttr();
  if (failed(checkIndex(i, strings.size(), what)))
    return failure();
  if (!stringAttrs[i])
    stringAttrs[i] = StringAttr::get(context, strings[i]);
  return stringAttrs[i];
}

LogicalResult CompactReader::readTrackers() {
  int64_t n;
  if (failed(count(n, "tracker count")))
    return failure();
  trackers.reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t length;
    if (failed(count(length, "tracker length", 1)))
      return failure();
    size_t start = at;
    auto tracker = lz::ShapeTrackerAttr::getFromEncoded(
        [&] {
          return emitError(graphLoc) << "malformed compact graph at word "
                                     << start << ": tracker " << i << ": ";
        },
        context, words.slice(at, length));
    if (!tracker)
      return failure();
    trackers.push_back(tracker);
    at += length;
  }
  return success();
}

FailureOr<RankedTensorType> CompactReader::readType() {
  int64_t i;
  if (failed(index(i, strings.size(), "type string")))
    return failure();
  auto it = types.find(i);
  if (it != types.end())
    return it->second;
  size_t read = 0;
  Type type = parseType(strings[i], context, &read);
  auto tensor = dyn_cast_or_null<RankedTensorType>(type);
  if (!tensor || read != strings[i].size()) {
    (void)fail("string " + Twine(i) + " ('" + strings[i] +
               "') is not a ranked tensor type");
    return failure();
  }
  types.try_emplace(i, tensor);
  return tensor;
}

/// A CONST's value word in `type`: an integer in two's complement, or the
/// bits of an IEEE double, kept as the double (a float const's value is
/// tinygrad's Python float; a NaN of any sign or payload becomes the quiet
/// NaN, as the text spells it).
FailureOr<Attribute> CompactReader::scalar(Type type, int64_t word) {
  if (type.isInteger(1)) {
    if (word != 0 && word != 1) {
      (void)fail("a bool scalar is " + Twine(word));
      return failure();
    }
    return Attribute(BoolAttr::get(context, word != 0));
  }
  if (isa<FloatType>(type)) {
    double d = llvm::bit_cast<double>(word);
    if (d != d)
      d = std::numeric_limits<double>::quiet_NaN();
    return Attribute(FloatAttr::get(Float64Type::get(context), d));
  }
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType) {
    (void)fail("a scalar of an element type other than bool, integer or "
               "float");
    return failure();
  }
  unsigned width = intType.getWidth();
  bool fits = width >= 64 ||
              (intType.isUnsigned() ? uint64_t(word) >> width == 0
                                    : word >= -(int64_t(1) << (width - 1)) &&
                                          word < (int64_t(1) << (width - 1)));
  if (!fits || width > 64) {
    (void)fail("the integer " + Twine(word) + " does not fit its type");
    return failure();
  }
  return Attribute(
      IntegerAttr::get(intType, APInt(width, uint64_t(word), /*isSigned=*/false,
                                      /*implicitTrunc=*/true)));
}

LogicalResult CompactReader::readAttributes(NamedAttrList &attrs,
                                            Type scalarType, bool allowDict) {
  int64_t n;
  if (failed(count(n, "attribute count", 2)))
    return failure();
  for (int64_t i = 0; i < n; ++i) {
    FailureOr<StringAttr> attrName = readString("attribute name");
    int64_t kind;
    if (failed(attrName) || failed(next(kind, "an attribute kind")))
      return failure();
    Attribute value;
    int64_t word = 0;
    switch (AttrKind(kind)) {
    case AttrKind::Unit:
      value = UnitAttr::get(context);
      break;
    case AttrKind::Tracker:
      if (failed(index(word, trackers.size(), "tracker")))
        return failure();
      value = trackers[word];
      break;
    case AttrKind::I64Array: {
      if (failed(count(word, "array length", 1)))
        return failure();
      value = DenseI64ArrayAttr::get(context, words.slice(at, word));
      at += word;
      break;
    }
    case AttrKind::String: {
      FailureOr<StringAttr> text = readString("string");
      if (failed(text))
        return failure();
      value = *text;
      break;
    }
    case AttrKind::Scalar: {
      if (!scalarType)
        return fail("a scalar attribute outside an op");
      if (failed(next(word, "a scalar")))
        return failure();
      FailureOr<Attribute> made = scalar(scalarType, word);
      if (failed(made))
        return failure();
      value = *made;
      break;
    }
    case AttrKind::I64:
      if (failed(next(word, "an integer")))
        return failure();
      value = IntegerAttr::get(IntegerType::get(context, 64), word);
      break;
    case AttrKind::Bool:
      if (failed(next(word, "a bool")))
        return failure();
      if (word != 0 && word != 1)
        return fail("a bool is " + Twine(word));
      value = BoolAttr::get(context, word != 0);
      break;
    case AttrKind::Dict: {
      if (!allowDict)
        return fail("a dictionary inside a dictionary");
      NamedAttrList entries;
      if (failed(readAttributes(entries, Type(), /*allowDict=*/false)))
        return failure();
      value = entries.getDictionary(context);
      break;
    }
    default:
      return fail("unknown attribute kind " + Twine(kind));
    }
    attrs.append(*attrName, value);
  }
  if (std::optional<NamedAttribute> twice = attrs.findDuplicate())
    return fail("attribute '" + twice->getName().getValue() + "' given twice");
  return success();
}

FailureOr<OperationName> CompactReader::readOpName() {
  int64_t i;
  if (failed(index(i, strings.size(), "op name")))
    return failure();
  auto it = opNames.find(i);
  if (it != opNames.end())
    return it->second;
  OperationName opName(strings[i], context);
  if (!opName.isRegistered() ||
      opName.getDialectNamespace() != lz::LazyDialect::getDialectNamespace()) {
    (void)fail("'" + strings[i] + "' is not an op of the lazy dialect");
    return failure();
  }
  opNames.try_emplace(i, opName);
  return opName;
}

/// A value reference: argument k is -(k + 1), op k is k (an earlier op).
FailureOr<Value> CompactReader::readValue(ArrayRef<Value> args,
                                          ArrayRef<Value> ops) {
  int64_t ref;
  if (failed(next(ref, "a value")))
    return failure();
  if (ref < 0 && uint64_t(-(ref + 1)) < args.size())
    return args[-(ref + 1)];
  if (ref >= 0 && uint64_t(ref) < ops.size())
    return ops[ref];
  (void)fail("value " + Twine(ref) +
             " is neither an argument nor an earlier op");
  return failure();
}

OwningOpRef<ModuleOp> CompactReader::build() {
  // The text parser loads a dialect when it meets its first op; the
  // trackers and op names below need theirs loaded up front.
  context->getOrLoadDialect<lz::LazyDialect>();
  context->getOrLoadDialect<func::FuncDialect>();
  int64_t magic, version;
  if (failed(next(magic, "the magic number")) ||
      failed(next(version, "the version")))
    return nullptr;
  if (magic != kMagic || version != kVersion) {
    (void)fail("not a compact graph of version " + Twine(kVersion));
    return nullptr;
  }
  if (failed(readStrings()) || failed(readTrackers()))
    return nullptr;

  OwningOpRef<ModuleOp> module = ModuleOp::create(graphLoc);
  NamedAttrList moduleAttrs;
  if (failed(readAttributes(moduleAttrs, Type(), /*allowDict=*/true)))
    return nullptr;
  (*module)->setAttrs(moduleAttrs.getDictionary(context));

  int64_t numArgs;
  if (failed(count(numArgs, "argument count", 2)))
    return nullptr;
  SmallVector<Type> argTypes;
  SmallVector<DictionaryAttr> argAttrs;
  for (int64_t i = 0; i < numArgs; ++i) {
    FailureOr<RankedTensorType> type = readType();
    NamedAttrList attrs;
    if (failed(type) || failed(readAttributes(attrs, Type(), false)))
      return nullptr;
    argTypes.push_back(*type);
    argAttrs.push_back(attrs.getDictionary(context));
  }

  OpBuilder builder(context);
  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(builder, graphLoc, "graph",
                                   builder.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  for (auto [i, attrs] : llvm::enumerate(argAttrs))
    func.setArgAttrs(i, attrs);
  builder.setInsertionPointToEnd(body);
  SmallVector<Value> args(body->getArguments());

  int64_t numOps;
  if (failed(count(numOps, "op count", 5)))
    return nullptr;
  SmallVector<Value> ops;
  ops.reserve(numOps);
  for (int64_t position = 0; position < numOps; ++position) {
    FailureOr<OperationName> opName = readOpName();
    if (failed(opName))
      return nullptr;
    FailureOr<RankedTensorType> type = readType();
    if (failed(type))
      return nullptr;
    FailureOr<StringAttr> metadata = readString("location", /*optional=*/true);
    if (failed(metadata))
      return nullptr;
    Location loc = FileLineColLoc::get(name, unsigned(position), 0);
    if (*metadata)
      loc = NameLoc::get(*metadata, loc);
    OperationState state(loc, *opName);
    state.addTypes(*type);
    if (failed(readAttributes(state.attributes, type->getElementType(), false)))
      return nullptr;
    int64_t numOperands;
    if (failed(count(numOperands, "operand count", 1)))
      return nullptr;
    for (int64_t i = 0; i < numOperands; ++i) {
      FailureOr<Value> operand = readValue(args, ops);
      if (failed(operand))
        return nullptr;
      state.operands.push_back(*operand);
    }
    ops.push_back(builder.create(state)->getResult(0));
  }

  int64_t numResults;
  if (failed(count(numResults, "result count", 1)))
    return nullptr;
  SmallVector<Value> results;
  for (int64_t i = 0; i < numResults; ++i) {
    FailureOr<Value> result = readValue(args, ops);
    if (failed(result))
      return nullptr;
    results.push_back(*result);
  }
  if (at != words.size()) {
    (void)fail(Twine(words.size() - at) + " words after the results");
    return nullptr;
  }
  func::ReturnOp::create(builder, graphLoc, results);
  func.setFunctionType(
      builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

} // namespace

OwningOpRef<ModuleOp> lz::buildCompactGraph(MLIRContext *context,
                                            ArrayRef<int64_t> words,
                                            StringRef strings, StringRef name) {
  return CompactReader(context, words, strings, name).build();
}
