//===- LazyAttrs.cpp - lazy dialect attributes ----------------------------===//
//
// #lazy.device and #lazy.st. The ShapeTracker attribute stores its views as
// one flat int64 array so that attribute storage stays trivially
// destructible:
//
//   [numViews, { rank, shape[rank], strides[rank], offset, hasMask,
//                (begin, end)[rank] if hasMask } per view]
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/IR/LazyAttrs.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/IR/SymbolicSyntax.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <limits>

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

#include "lazy/Dialect/Lazy/IR/LazyEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "lazy/Dialect/Lazy/IR/LazyAttrs.cpp.inc"

void LazyDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "lazy/Dialect/Lazy/IR/LazyAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// DeviceAttr
//===----------------------------------------------------------------------===//

LogicalResult DeviceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef name) {
  StringRef kind = name.split(':').first;
  if (kind.empty())
    return emitError() << "device name must not be empty";
  for (char c : kind)
    if (!(llvm::isUpper(c) || llvm::isDigit(c) || c == '_'))
      return emitError() << "device '" << name
                         << "' must start with an upper-case device kind "
                            "such as CLANG, CUDA or AMD";
  return success();
}

//===----------------------------------------------------------------------===//
// ShapeTrackerAttr: encoding
//===----------------------------------------------------------------------===//

static SmallVector<int64_t> encodeTracker(const st::ShapeTracker &tracker) {
  SmallVector<int64_t> out;
  out.push_back(static_cast<int64_t>(tracker.views.size()));
  for (const st::View &v : tracker.views) {
    out.push_back(static_cast<int64_t>(v.shape.size()));
    out.append(v.shape.begin(), v.shape.end());
    out.append(v.strides.begin(), v.strides.end());
    out.push_back(v.offset);
    out.push_back(v.mask ? 1 : 0);
    if (v.mask)
      for (auto [b, e] : *v.mask) {
        out.push_back(b);
        out.push_back(e);
      }
  }
  return out;
}

/// Decodes without canonicalizing, so the verifier can compare a parsed view
/// with its canonical form. Returns nullopt on a malformed encoding.
static std::optional<st::ShapeTracker> decodeTracker(ArrayRef<int64_t> enc) {
  size_t pos = 0;
  auto next = [&](int64_t &out) {
    if (pos >= enc.size())
      return false;
    out = enc[pos++];
    return true;
  };
  int64_t numViews;
  if (!next(numViews) || numViews < 0)
    return std::nullopt;
  st::ShapeTracker tracker;
  for (int64_t i = 0; i < numViews; ++i) {
    int64_t rank = 0, hasMask = 0;
    if (!next(rank) || rank < 0 || enc.size() - pos < size_t(2 * rank + 2))
      return std::nullopt;
    st::View v;
    v.shape.assign(enc.begin() + pos, enc.begin() + pos + rank);
    pos += rank;
    v.strides.assign(enc.begin() + pos, enc.begin() + pos + rank);
    pos += rank;
    next(v.offset);
    next(hasMask);
    if (hasMask) {
      if (enc.size() - pos < size_t(2 * rank))
        return std::nullopt;
      st::Mask mask;
      for (int64_t d = 0; d < rank; ++d, pos += 2)
        mask.emplace_back(enc[pos], enc[pos + 1]);
      v.mask = std::move(mask);
    }
    // tinygrad's rule, including that any view with a zero-sized dimension
    // is contiguous.
    v.contiguous =
        llvm::is_contained(v.shape, 0) ||
        (v.offset == 0 && !v.mask && v.strides == st::stridesForShape(v.shape));
    tracker.views.push_back(std::move(v));
  }
  if (pos != enc.size())
    return std::nullopt;
  return tracker;
}

/// The stand-in encoding of a symbolic tracker: a marker, then the
/// outermost shape at the Variables' largest values (what getShape reads).
static constexpr int64_t kSymbolicMarker = -1;

static SmallVector<int64_t> encodeSymbolic(const st::SymShapeTracker &tracker) {
  SmallVector<int64_t> out{kSymbolicMarker,
                           static_cast<int64_t>(tracker.shape().size())};
  for (const st::SInt &dim : tracker.shape()) {
    st::SInt hi = dim.max();
    out.push_back(hi.isInt() ? hi.getInt() : -1);
  }
  return out;
}

bool SymTrackerRef::operator==(const SymTrackerRef &other) const {
  if (!tracker || !other.tracker)
    return !tracker && !other.tracker;
  return tracker == other.tracker || *tracker == *other.tracker;
}

llvm::hash_code mlir::lazy::hash_value(const SymTrackerRef &ref) {
  if (!ref.tracker)
    return llvm::hash_value(0);
  llvm::hash_code h = llvm::hash_value(ref.tracker->views.size());
  for (const st::SymView &v : ref.tracker->views) {
    h = llvm::hash_combine(
        h, llvm::hash_combine_range(v.shape.begin(), v.shape.end()));
    h = llvm::hash_combine(
        h, llvm::hash_combine_range(v.strides.begin(), v.strides.end()));
    h = llvm::hash_combine(h, v.offset, bool(v.mask));
    if (v.mask)
      for (auto &[b, e] : *v.mask)
        h = llvm::hash_combine(h, b, e);
  }
  return h;
}

ShapeTrackerAttr ShapeTrackerAttr::get(MLIRContext *context,
                                       const st::ShapeTracker &tracker) {
  return Base::get(context, encodeTracker(tracker), SymTrackerRef{});
}

ShapeTrackerAttr ShapeTrackerAttr::get(MLIRContext *context,
                                       const st::SymShapeTracker &tracker) {
  if (auto ints = tracker.toTracker())
    return get(context, *ints);
  return Base::get(
      context, encodeSymbolic(tracker),
      SymTrackerRef{std::make_shared<const st::SymShapeTracker>(tracker)});
}

st::ShapeTracker ShapeTrackerAttr::getTracker() const {
  if (isSymbolic())
    llvm::report_fatal_error("getTracker() on a symbolic #lazy.st: the "
                             "caller must check isSymbolic() first");
  // The verifier guarantees a well-formed encoding.
  return *decodeTracker(getEncoded());
}

st::SymShapeTracker ShapeTrackerAttr::getSymTracker() const {
  if (isSymbolic())
    return *getSymbolic().tracker;
  return st::SymShapeTracker::fromTracker(getTracker());
}

ShapeTrackerAttr
ShapeTrackerAttr::getFromEncoded(function_ref<InFlightDiagnostic()> emitError,
                                 MLIRContext *context,
                                 ArrayRef<int64_t> encoded) {
  return getChecked(emitError, context, encoded, SymTrackerRef{});
}

//===----------------------------------------------------------------------===//
// ShapeTrackerAttr: validity
//===----------------------------------------------------------------------===//

/// Smallest and largest index of a view given as its parts; `maskAt(d)` is
/// dimension d's valid range (the whole dimension without a mask).
template <typename MaskAt>
static std::optional<std::pair<int64_t, int64_t>>
indexRange(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides, int64_t offset,
           MaskAt maskAt) {
  // Hand-written IR can hold any int64: on overflow report the widest range,
  // which every bounds check rejects.
  const std::pair<int64_t, int64_t> overflow = {
      std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  int64_t lo = offset, hi = offset;
  for (size_t d = 0; d < shape.size(); ++d) {
    auto [begin, end] = maskAt(d);
    if (begin >= end)
      return std::nullopt;
    int64_t a, b;
    if (llvm::MulOverflow(strides[d], begin, a) ||
        llvm::MulOverflow(strides[d], end - 1, b) ||
        llvm::AddOverflow(lo, std::min(a, b), lo) ||
        llvm::AddOverflow(hi, std::max(a, b), hi))
      return overflow;
  }
  return std::make_pair(lo, hi);
}

std::optional<std::pair<int64_t, int64_t>>
mlir::lazy::validIndexRange(const st::View &view) {
  return indexRange(view.shape, view.strides, view.offset, [&](size_t d) {
    return view.mask ? (*view.mask)[d]
                     : std::pair<int64_t, int64_t>(0, view.shape[d]);
  });
}

/// The position of view `index` in a (verified) encoding.
static size_t viewStart(ArrayRef<int64_t> enc, int64_t index) {
  size_t pos = 1;
  for (int64_t i = 0; i < index; ++i) {
    int64_t rank = enc[pos];
    bool hasMask = enc[pos + 1 + 2 * rank + 1];
    pos += 1 + 2 * rank + 2 + (hasMask ? 2 * rank : 0);
  }
  return pos;
}

ArrayRef<int64_t> ShapeTrackerAttr::getShape() const {
  ArrayRef<int64_t> enc = getEncoded();
  if (isSymbolic())
    return enc.slice(2, enc[1]);
  size_t pos = viewStart(enc, enc[0] - 1);
  return enc.slice(pos + 1, enc[pos]);
}

std::optional<std::pair<int64_t, int64_t>>
ShapeTrackerAttr::getBaseIndexRange() const {
  if (isSymbolic())
    return std::nullopt;
  ArrayRef<int64_t> enc = getEncoded();
  size_t pos = viewStart(enc, 0);
  size_t rank = enc[pos];
  ArrayRef<int64_t> shape = enc.slice(pos + 1, rank);
  ArrayRef<int64_t> strides = enc.slice(pos + 1 + rank, rank);
  int64_t offset = enc[pos + 1 + 2 * rank];
  bool hasMask = enc[pos + 2 + 2 * rank];
  const int64_t *mask = enc.data() + pos + 3 + 2 * rank;
  return indexRange(shape, strides, offset, [&](size_t d) {
    return hasMask ? std::pair<int64_t, int64_t>(mask[2 * d], mask[2 * d + 1])
                   : std::pair<int64_t, int64_t>(0, shape[d]);
  });
}

static std::string viewText(const st::View &view) {
  std::string s;
  llvm::raw_string_ostream os(s);
  printTrackerBody(os, st::ShapeTracker{{view}});
  return s;
}

std::string
mlir::lazy::describeInvalidTracker(const st::ShapeTracker &tracker) {
  if (tracker.views.empty())
    return "a ShapeTracker needs at least one view";
  for (size_t i = 0; i < tracker.views.size(); ++i) {
    const st::View &v = tracker.views[i];
    std::string where = "view #" + std::to_string(i);
    if (v.strides.size() != v.shape.size() ||
        (v.mask && v.mask->size() != v.shape.size()))
      return where + ": shape, strides and mask must have the same rank";
    for (int64_t dim : v.shape)
      if (dim < 0)
        return where + ": dimensions must be non-negative";
    // The ShapeTracker library computes in int64_t: element counts, strides
    // of contiguous shapes and the indices a view reaches must fit.
    if (v.offset == std::numeric_limits<int64_t>::min())
      return where + ": reaches indices past 2^63 - 1";
    int64_t elements = 1, reach = std::abs(v.offset);
    for (size_t d = 0; d < v.shape.size(); ++d) {
      if (v.shape[d] != 0 && llvm::MulOverflow(elements, v.shape[d], elements))
        return where + ": more than 2^63 - 1 elements";
      int64_t extent;
      if (v.strides[d] == std::numeric_limits<int64_t>::min() ||
          (v.shape[d] > 0 &&
           (llvm::MulOverflow(std::abs(v.strides[d]), v.shape[d] - 1, extent) ||
            llvm::AddOverflow(reach, extent, reach))))
        return where + ": reaches indices past 2^63 - 1";
    }
    if (v.mask)
      for (size_t d = 0; d < v.shape.size(); ++d) {
        auto [b, e] = (*v.mask)[d];
        if (b < 0 || b > e || e > v.shape[d])
          return where + ": mask range (" + std::to_string(b) + ", " +
                 std::to_string(e) + ") of dimension " + std::to_string(d) +
                 " must satisfy 0 <= begin <= end <= " +
                 std::to_string(v.shape[d]);
      }
    st::View canonical = st::View::create(v.shape, v.strides, v.offset, v.mask);
    if (canonical != v)
      return where + " is not canonical; tinygrad's View.create gives " +
             viewText(canonical);
    // Later views index into the flattened shape of the view before them.
    if (i > 0) {
      int64_t below = tracker.views[i - 1].size();
      if (auto range = validIndexRange(v))
        if (range->first < 0 || range->second >= below)
          return where + " reaches indices [" + std::to_string(range->first) +
                 ", " + std::to_string(range->second) + "] outside the " +
                 std::to_string(below) + " elements of the view below it";
    }
  }
  return "";
}

/// Checks that every Variable name in `vars` stands for one Variable (one
/// range, one binding).
static std::string
checkOneVariablePerName(const std::map<std::string, st::sym::NodeP> &vars) {
  std::map<std::string, st::sym::NodeP> seen;
  for (auto &[key, node] : vars) {
    auto [it, inserted] = seen.emplace(node->name, node);
    if (!inserted && it->second->key() != key)
      return "Variable '" + node->name + "' appears as both " +
             sintText(it->second) + " and " + sintText(node);
  }
  return "";
}

std::string
mlir::lazy::describeInvalidTracker(const st::SymShapeTracker &tracker) {
  if (tracker.views.empty())
    return "a ShapeTracker needs at least one view";
  try {
    for (size_t i = 0; i < tracker.views.size(); ++i) {
      const st::SymView &v = tracker.views[i];
      std::string where = "view #" + std::to_string(i);
      if (v.strides.size() != v.shape.size() ||
          (v.mask && v.mask->size() != v.shape.size()))
        return where + ": shape, strides and mask must have the same rank";
      for (const st::SInt &dim : v.shape) {
        if (!st::sym::truthy(st::sym::ge(dim, 0)))
          return where + ": dimensions must be non-negative";
        if (!dim.max().isInt())
          return where + ": dimension " + sintText(dim) +
                 " has no integer largest value";
      }
      if (v.mask)
        for (size_t d = 0; d < v.shape.size(); ++d) {
          auto [b, e] = (*v.mask)[d];
          using namespace st::sym;
          // tinygrad's pads and shrinks make ranges like (m + 1, m) that are
          // empty for some values: begin <= end is asked of ints only.
          bool ordered = !(b.isInt() && e.isInt()) || truthy(le(b, e));
          if (!(truthy(le(0, b)) && ordered && truthy(le(e, v.shape[d]))))
            return where + ": mask range (" + sintText(b) + ", " + sintText(e) +
                   ") of dimension " + std::to_string(d) +
                   " must satisfy 0 <= begin <= end <= " + sintText(v.shape[d]);
        }
      st::SymView canonical =
          st::SymView::create(v.shape, v.strides, v.offset, v.mask);
      if (canonical != v) {
        std::string text;
        llvm::raw_string_ostream os(text);
        printTrackerBody(os, st::SymShapeTracker{{canonical}});
        return where + " is not canonical; tinygrad's View.create gives " +
               text;
      }
    }
    if (std::string problem = checkOneVariablePerName(tracker.vars());
        !problem.empty())
      return problem;
  } catch (const st::sym::Error &e) {
    return std::string("invalid symbolic view: ") + e.what;
  }
  return "";
}

LogicalResult
ShapeTrackerAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<int64_t> encoded, SymTrackerRef symbolic) {
  if (symbolic) {
    std::string problem = describeInvalidTracker(*symbolic.tracker);
    if (!problem.empty())
      return emitError() << problem;
    if (encoded != ArrayRef<int64_t>(encodeSymbolic(*symbolic.tracker)))
      return emitError() << "malformed ShapeTracker encoding";
    return success();
  }
  std::optional<st::ShapeTracker> tracker = decodeTracker(encoded);
  if (!tracker)
    return emitError() << "malformed ShapeTracker encoding";
  std::string problem = describeInvalidTracker(*tracker);
  if (!problem.empty())
    return emitError() << problem;
  return success();
}

//===----------------------------------------------------------------------===//
// ShapeTrackerAttr: syntax
//===----------------------------------------------------------------------===//

static void printInts(llvm::raw_ostream &os, ArrayRef<int64_t> values) {
  os << '(';
  llvm::interleaveComma(values, os);
  os << ')';
}

void mlir::lazy::printTrackerBody(llvm::raw_ostream &os,
                                  const st::ShapeTracker &tracker) {
  os << '[';
  llvm::interleaveComma(tracker.views, os, [&](const st::View &v) {
    printInts(os, v.shape);
    os << ':';
    printInts(os, v.strides);
    if (v.offset != 0)
      os << " offset " << v.offset;
    if (v.mask) {
      os << " mask [";
      llvm::interleaveComma(*v.mask, os, [&](const auto &range) {
        os << '(' << range.first << ", " << range.second << ')';
      });
      os << ']';
    }
  });
  os << ']';
}

static void printSInts(llvm::raw_ostream &os, ArrayRef<st::SInt> values) {
  os << '(';
  llvm::interleaveComma(values, os,
                        [&](const st::SInt &x) { printSInt(os, x); });
  os << ')';
}

void mlir::lazy::printTrackerBody(llvm::raw_ostream &os,
                                  const st::SymShapeTracker &tracker) {
  os << '[';
  llvm::interleaveComma(tracker.views, os, [&](const st::SymView &v) {
    printSInts(os, v.shape);
    os << ':';
    printSInts(os, v.strides);
    if (!st::sym::eq(v.offset, 0)) {
      os << " offset ";
      printSInt(os, v.offset);
    }
    if (v.mask) {
      os << " mask [";
      llvm::interleaveComma(*v.mask, os, [&](const auto &range) {
        os << '(';
        printSInt(os, range.first);
        os << ", ";
        printSInt(os, range.second);
        os << ')';
      });
      os << ']';
    }
  });
  os << ']';
}

void ShapeTrackerAttr::print(AsmPrinter &printer) const {
  printer << '<';
  if (isSymbolic())
    printTrackerBody(printer.getStream(), *getSymbolic().tracker);
  else
    printTrackerBody(printer.getStream(), getTracker());
  printer << '>';
}

static ParseResult parseSIntTuple(AsmParser &parser, st::SymShape &values) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Paren,
                                        [&]() -> ParseResult {
                                          st::SInt v;
                                          if (parseSInt(parser, v))
                                            return failure();
                                          values.push_back(v);
                                          return success();
                                        });
}

Attribute ShapeTrackerAttr::parse(AsmParser &parser, Type) {
  st::SymShapeTracker tracker;
  auto parseView = [&]() -> ParseResult {
    st::SymView v;
    if (parseSIntTuple(parser, v.shape) || parser.parseColon() ||
        parseSIntTuple(parser, v.strides))
      return failure();
    if (succeeded(parser.parseOptionalKeyword("offset")) &&
        parseSInt(parser, v.offset))
      return failure();
    if (succeeded(parser.parseOptionalKeyword("mask"))) {
      st::SymMask mask;
      if (parser.parseCommaSeparatedList(
              AsmParser::Delimiter::Square, [&]() -> ParseResult {
                st::SInt b, e;
                if (parser.parseLParen() || parseSInt(parser, b) ||
                    parser.parseComma() || parseSInt(parser, e) ||
                    parser.parseRParen())
                  return failure();
                mask.emplace_back(b, e);
                return success();
              }))
        return failure();
      v.mask = std::move(mask);
    }
    // The storage encoding assumes one rank per view: reject mismatches here.
    if (v.strides.size() != v.shape.size() ||
        (v.mask && v.mask->size() != v.shape.size()))
      return parser.emitError(parser.getCurrentLocation(),
                              "view #" + std::to_string(tracker.views.size()) +
                                  ": shape, strides and mask must have the "
                                  "same rank");
    tracker.views.push_back(std::move(v));
    return success();
  };
  if (parser.parseLess() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseView) ||
      parser.parseGreater())
    return {};
  auto emitError = [&] { return parser.emitError(parser.getNameLoc()); };
  // The contiguous flag is derived, as in the integer decoding.
  for (st::SymView &v : tracker.views) {
    try {
      v.contiguous =
          st::SymView::create(v.shape, v.strides, v.offset, v.mask).contiguous;
    } catch (const st::sym::Error &) {
      v.contiguous = false; // the verifier reports the view
    }
  }
  if (auto ints = tracker.toTracker())
    return getChecked(emitError, parser.getContext(), encodeTracker(*ints),
                      SymTrackerRef{});
  // Beside a Variable, the symbolic algebra needs headroom in int64_t.
  const int64_t limit = int64_t(1) << 62;
  auto tooLarge = [&](const st::SInt &x) {
    return x.isInt() && (x.getInt() > limit || x.getInt() < -limit);
  };
  for (const st::SymView &v : tracker.views) {
    bool large = llvm::any_of(v.shape, tooLarge) ||
                 llvm::any_of(v.strides, tooLarge) || tooLarge(v.offset);
    if (v.mask)
      for (auto &[b, e] : *v.mask)
        large |= tooLarge(b) || tooLarge(e);
    if (large)
      return emitError() << "a view with a Variable takes integers of at "
                            "most 2^62 in magnitude",
             Attribute();
  }
  SymTrackerRef ref{std::make_shared<const st::SymShapeTracker>(tracker)};
  if (std::string problem = describeInvalidTracker(tracker); !problem.empty())
    return emitError() << problem, Attribute();
  return getChecked(emitError, parser.getContext(), encodeSymbolic(tracker),
                    ref);
}

//===----------------------------------------------------------------------===//
// SymShapeAttr
//===----------------------------------------------------------------------===//

namespace lazy::st::sym {
llvm::hash_code hash_value(const std::vector<SInt> &dims) {
  return llvm::hash_combine_range(dims.begin(), dims.end());
}
} // namespace lazy::st::sym

std::map<std::string, st::sym::NodeP> SymShapeAttr::getVariables() const {
  std::map<std::string, st::sym::NodeP> vars;
  for (const st::SInt &dim : getDims())
    if (dim.isNode())
      st::sym::collectVars(dim.getNode(), vars);
  return vars;
}

LogicalResult SymShapeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   st::SymShape dims, DeviceAttr device) {
  bool symbolic = false;
  for (const st::SInt &dim : dims) {
    if (dim.isInt())
      continue;
    symbolic = true;
    if (dim.getNode()->kind == st::sym::Kind::Num)
      return emitError() << "a constant dim is written as an integer, got "
                         << sintText(dim);
    if (!dim.max().isInt() || !dim.min().isInt() || dim.min().getInt() < 0)
      return emitError() << "dim " << sintText(dim)
                         << " must range over non-negative integers";
  }
  if (!symbolic)
    return emitError() << "#lazy.sym_shape needs a symbolic dim; a tensor "
                          "of integer dims has no such encoding";
  std::map<std::string, st::sym::NodeP> vars;
  for (const st::SInt &dim : dims)
    if (dim.isNode())
      st::sym::collectVars(dim.getNode(), vars);
  if (std::string problem = checkOneVariablePerName(vars); !problem.empty())
    return emitError() << problem;
  return success();
}

LogicalResult SymShapeAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  const st::SymShape &dims = getDims();
  if (dims.size() != shape.size())
    return emitError() << "#lazy.sym_shape of rank " << dims.size()
                       << " on a tensor of rank " << shape.size();
  for (size_t d = 0; d < dims.size(); ++d) {
    int64_t expected = dims[d].max().getInt();
    if (shape[d] != expected)
      return emitError() << "dim " << d << " of the tensor must be " << expected
                         << ", the largest value of " << sintText(dims[d])
                         << ", got " << shape[d];
  }
  return success();
}

Attribute SymShapeAttr::parse(AsmParser &parser, Type) {
  st::SymShape dims;
  if (parser.parseLess() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                     [&]() -> ParseResult {
                                       st::SInt dim;
                                       if (parseSInt(parser, dim))
                                         return failure();
                                       dims.push_back(dim);
                                       return success();
                                     }))
    return {};
  DeviceAttr device;
  if (succeeded(parser.parseOptionalComma())) {
    std::string name;
    if (parser.parseKeyword("device") || parser.parseEqual() ||
        parser.parseString(&name))
      return {};
    device = DeviceAttr::getChecked(
        [&] { return parser.emitError(parser.getNameLoc()); },
        parser.getContext(), name);
    if (!device)
      return {};
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), dims, device);
}

void SymShapeAttr::print(AsmPrinter &printer) const {
  printer << "<[";
  llvm::interleaveComma(getDims(), printer.getStream(), [&](const st::SInt &d) {
    printSInt(printer.getStream(), d);
  });
  printer << ']';
  if (getDevice())
    printer << ", device = \"" << getDevice().getName() << '"';
  printer << '>';
}

st::SymShape mlir::lazy::symbolicShapeOf(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  if (auto sym = dyn_cast_or_null<SymShapeAttr>(tensor.getEncoding()))
    return sym.getDims();
  return st::SymShape(tensor.getShape().begin(), tensor.getShape().end());
}

//===----------------------------------------------------------------------===//
// SymIntAttr
//===----------------------------------------------------------------------===//

LogicalResult SymIntAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 st::SInt value, Type type) {
  if (!value.isNode() || value.getNode()->kind != st::sym::Kind::Var)
    return emitError() << "a #lazy.sint is a Variable, got " << sintText(value);
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType || intType.getWidth() < 2)
    return emitError() << "a Variable's const has an integer dtype, got "
                       << type;
  return success();
}

Attribute SymIntAttr::parse(AsmParser &parser, Type type) {
  st::SInt value;
  StringRef name;
  if (parser.parseLess() || parser.parseKeyword(&name) ||
      parseVariableAfterName(parser, name, value) || parser.parseGreater())
    return {};
  if (!type)
    type = IntegerType::get(parser.getContext(), 32);
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), value, type);
}

void SymIntAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printSInt(printer.getStream(), getValue());
  printer << '>';
}

void mlir::lazy::collectVariables(Operation *op,
                                  std::map<std::string, st::sym::NodeP> &out) {
  auto fromType = [&](Type type) {
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      if (auto shape = dyn_cast_or_null<SymShapeAttr>(tensor.getEncoding()))
        for (auto &kv : shape.getVariables())
          out.insert(kv);
  };
  for (Type t : op->getResultTypes())
    fromType(t);
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments())
        fromType(arg.getType());
  auto fromAttr = [&](Attribute attr) {
    if (auto tracker = dyn_cast<ShapeTrackerAttr>(attr);
        tracker && tracker.isSymbolic())
      for (auto &kv : tracker.getSymTracker().vars())
        out.insert(kv);
    if (auto value = dyn_cast<SymIntAttr>(attr))
      st::sym::collectVars(value.getValue().getNode(), out);
  };
  // Graph ops hold their trackers and values at the top of their
  // dictionaries, beside scalars that hold nothing: only other attributes
  // (arrays, dictionaries, types) need the generic walk, which costs a
  // quarter of lazy-form-kernels on a graph without Variables when taken
  // for every op's whole dictionary.
  auto visit = [&](Attribute attr) {
    if (!attr || isa<IntegerAttr, FloatAttr, StringAttr, UnitAttr,
                     DenseArrayAttr, FlatSymbolRefAttr>(attr))
      return;
    if (isa<ShapeTrackerAttr, SymIntAttr>(attr))
      fromAttr(attr);
    else
      attr.walk(fromAttr);
  };
  // A lazy op's inherent attributes are read one by one: getAttrs() would
  // build a dictionary of its properties for every op.
  std::optional<RegisteredOperationName> info = op->getRegisteredInfo();
  if (info && isa<LazyDialect>(info->getDialect())) {
    for (StringAttr name : info->getAttributeNames())
      visit(op->getInherentAttr(name).value_or(Attribute()));
    for (NamedAttribute named : op->getDiscardableAttrs())
      visit(named.getValue());
    return;
  }
  for (NamedAttribute named : op->getAttrs())
    visit(named.getValue());
}

LogicalResult mlir::lazy::verifyVariableBindings(Operation *root) {
  // By Variable (name and range): its value and the op that first bound it.
  std::map<std::tuple<std::string, int64_t, std::string>,
           std::pair<int64_t, Operation *>>
      values;
  WalkResult walked = root->walk([&](Operation *op) {
    std::map<std::string, st::sym::NodeP> vars;
    collectVariables(op, vars);
    for (auto &[key, var] : vars) {
      if (!var->bound) {
        op->emitError() << "Variable " << sintText(var)
                        << " is not bound; tinygrad's scheduler takes bound "
                           "Variables only";
        return WalkResult::interrupt();
      }
      auto [it, inserted] = values.try_emplace(
          {var->name, var->min.getInt(), sintText(var->max)}, *var->bound, op);
      if (!inserted && it->second.first != *var->bound) {
        InFlightDiagnostic diag =
            op->emitError()
            << "Variable " << var->name << " is bound to " << *var->bound
            << " here and to " << it->second.first
            << " elsewhere (tinygrad's merge_dicts asserts "
               "one value)";
        diag.attachNote(it->second.second->getLoc()) << "bound here";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(walked.wasInterrupted());
}
