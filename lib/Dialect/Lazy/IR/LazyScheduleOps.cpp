//===- LazyScheduleOps.cpp - schedule-level lazy ops ----------------------===//
//
// Verifiers and syntax of lazy.kernel, lazy.load, lazy.store, lazy.launch
// and lazy.ext.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/IR/KernelPlanVerifier.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionImplementation.h"

#include <limits>

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildType = [](Builder &builder, ArrayRef<Type> argTypes,
                      ArrayRef<Type> results,
                      function_interface_impl::VariadicFlag, std::string &) {
    return builder.getFunctionType(argTypes, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void KernelOp::print(OpAsmPrinter &printer) {
  function_interface_impl::printFunctionOp(
      printer, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

/// Names the buffers as tinygrad numbers MemBuffers: %out0.., %in0...
void KernelOp::getAsmBlockArgumentNames(Region &region,
                                        OpAsmSetValueNameFn setNameFn) {
  if (region.empty())
    return;
  int64_t numOutputs = getNumOutputs();
  for (BlockArgument arg : region.front().getArguments()) {
    int64_t i = arg.getArgNumber();
    setNameFn(arg, i < numOutputs ? "out" + std::to_string(i)
                                  : "in" + std::to_string(i - numOutputs));
  }
}

LogicalResult KernelOp::verify() {
  if (!getFunctionType().getResults().empty())
    return emitOpError("a kernel returns nothing: it stores into its "
                       "output buffers");
  for (auto [i, type] : llvm::enumerate(getFunctionType().getInputs()))
    if (!isa<BufferType>(type))
      return emitOpError() << "argument #" << i << " must be a !lazy.buffer";
  int64_t numOutputs = getNumOutputs();
  if (numOutputs < 1 || numOutputs > int64_t(getNumArguments()))
    return emitOpError() << "num_outputs must be between 1 and the number "
                            "of arguments ("
                         << getNumArguments() << "), got " << numOutputs;
  if (getBody().empty())
    return emitOpError("a kernel needs a body");
  // Each output is stored exactly once, in output order.
  int64_t next = 0;
  for (Operation &op : getBody().front()) {
    if (!isa<LazyDialect>(op.getDialect()))
      return op.emitOpError("is not allowed in a lazy.kernel");
    if (isa<KernelOp, AllocOp, LaunchOp, ExtOp, EmptyOp, CopyOp, CustomOp,
            AssignOp, ContiguousOp, BufferViewOp>(op))
      return op.emitOpError("is a graph or schedule op; a kernel body only "
                            "loads, computes and stores");
    auto store = dyn_cast<StoreOp>(op);
    if (!store)
      continue;
    auto arg = dyn_cast<BlockArgument>(store.getBuffer());
    if (!arg || arg.getOwner() != &getBody().front() ||
        int64_t(arg.getArgNumber()) != next)
      return store.emitOpError() << "must store output #" << next
                                 << " (stores follow output order)";
    ++next;
  }
  if (next != numOutputs)
    return emitOpError() << "stores " << next << " of its " << numOutputs
                         << " outputs";
  if (ArrayAttr opts = getOptsAttr()) {
    const auto *planVerifier =
        getOperation()
            ->getDialect()
            ->getRegisteredInterface<KernelPlanVerifierInterface>();
    if (!planVerifier)
      return emitOpError() << "has a plan, but no plan verifier is "
                              "registered (mlir::lazy::"
                              "registerKernelPlanVerifier)";
    std::string message;
    if (failed(planVerifier->verifyPlan(*this, opts, message)))
      return emitOpError() << message;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// LoadOp / StoreOp
//===----------------------------------------------------------------------===//

/// The view's shape matches the tensor, its dtype the buffer's, and every
/// valid element lies inside the buffer.
static LogicalResult verifyBufferAccess(Operation *op, BufferType buffer,
                                        RankedTensorType tensor,
                                        ShapeTrackerAttr view) {
  if (buffer.getElementType() != tensor.getElementType())
    return op->emitOpError()
           << "tensor dtype " << tensor.getElementType()
           << " must equal the buffer dtype " << buffer.getElementType();
  if (view.getShape() != tensor.getShape())
    return op->emitOpError("the view's shape must equal the tensor's shape");
  if (auto range = view.getBaseIndexRange())
    if (range->first < 0 || range->second >= buffer.getSize())
      return op->emitOpError() << "view reaches indices [" << range->first
                               << ", " << range->second << "] outside the "
                               << buffer.getSize() << " elements of the buffer";
  return success();
}

LogicalResult LoadOp::verify() {
  return verifyBufferAccess(*this, getBuffer().getType(), getType(), getView());
}

LogicalResult StoreOp::verify() {
  return verifyBufferAccess(*this, getBuffer().getType(),
                            cast<RankedTensorType>(getValue().getType()),
                            getView());
}

//===----------------------------------------------------------------------===//
// LaunchOp / ExtOp
//===----------------------------------------------------------------------===//

LogicalResult LaunchOp::verify() {
  int64_t numOuts = getNumOuts();
  if (numOuts < 0 || numOuts > int64_t(getBuffers().size()))
    return emitOpError() << "has num_outs = " << numOuts << " but "
                         << getBuffers().size() << " buffers";
  if (getResultTypes() != TypeRange(getOuts().getTypes()))
    return emitOpError("failed to verify that the results are the output "
                       "buffers");
  return success();
}

/// `@kernel outs(%o : type, ...) [ins(%i : type, ...)] attr-dict`: the
/// result types are the output buffers' types.
ParseResult LaunchOp::parse(OpAsmParser &parser, OperationState &result) {
  FlatSymbolRefAttr kernel;
  SmallVector<OpAsmParser::UnresolvedOperand> outs, ins;
  SmallVector<Type> outTypes, inTypes;
  // Where each list starts: a count mismatch between a list's buffers and
  // its types is reported there, not after the op.
  llvm::SMLoc outsLoc, insLoc;
  auto parseBuffers =
      [&](SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands,
          SmallVectorImpl<Type> &types, llvm::SMLoc &loc) -> ParseResult {
    loc = parser.getCurrentLocation();
    if (parser.parseLParen() || parser.parseOperandList(operands) ||
        parser.parseColon())
      return failure();
    if (failed(parser.parseOptionalRParen()))
      if (parser.parseTypeList(types) || parser.parseRParen())
        return failure();
    return success();
  };
  if (parser.parseAttribute(kernel) || parser.parseKeyword("outs") ||
      parseBuffers(outs, outTypes, outsLoc))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("ins")) &&
      parseBuffers(ins, inTypes, insLoc))
    return failure();
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  if (parser.resolveOperands(outs, outTypes, outsLoc, result.operands) ||
      parser.resolveOperands(ins, inTypes, insLoc, result.operands))
    return failure();
  result.addTypes(outTypes);
  Properties &props = result.getOrAddProperties<Properties>();
  props.kernel = kernel;
  props.num_outs = int64_t(outs.size());
  return success();
}

void LaunchOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printAttributeWithoutType(getKernelAttr());
  auto printBuffers = [&](StringRef keyword, OperandRange buffers) {
    p << ' ' << keyword << '(' << buffers << " : " << buffers.getTypes() << ')';
  };
  printBuffers("outs", getOuts());
  if (!getIns().empty())
    printBuffers("ins", getIns());
  p.printOptionalAttrDict((*this)->getAttrs(), {getKernelAttrName()});
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  // Kernels are symbols of the module whose function holds the launch: it
  // is looked up there, not by asking every launch's parents which one is
  // the nearest symbol table (a fifth of verifying a scheduled module).
  auto module = (*this)->getParentOfType<ModuleOp>();
  auto kernel = module ? symbolTable.lookupSymbolIn<KernelOp>(
                             module, getKernelAttr().getAttr())
                       : KernelOp();
  if (!kernel)
    return emitOpError() << "'" << getKernel()
                         << "' does not name a lazy.kernel";
  if (int64_t(getOuts().size()) != int64_t(kernel.getNumOutputs()) ||
      getOuts().size() + getIns().size() != kernel.getNumArguments())
    return emitOpError() << "passes " << getOuts().size() << " outputs and "
                         << getIns().size() << " inputs to a kernel with "
                         << kernel.getNumOutputs() << " outputs and "
                         << kernel.getNumArguments() << " arguments";
  // A kernel sees a buffer's bytes through its own argument type (a
  // byte-copy kernel reads any buffer as uint8): the bytes and the device
  // must agree.
  for (auto [i, pair] : llvm::enumerate(
           llvm::zip(getOperandTypes(), kernel.getArgumentTypes()))) {
    auto given = cast<BufferType>(std::get<0>(pair));
    auto expected = cast<BufferType>(std::get<1>(pair));
    if (given != expected &&
        (given.getSizeInBytes() != expected.getSizeInBytes() ||
         given.getDevice() != expected.getDevice()))
      return emitOpError() << "operand #" << i << " has type " << given
                           << " but the kernel expects " << expected
                           << " (a different size in bytes or device)";
  }
  return success();
}

OperandRange mlir::lazy::itemOuts(Operation *item) {
  if (auto launch = dyn_cast<LaunchOp>(item))
    return launch.getOuts();
  if (isa<SendOp>(item))
    return item->getOperands().take_front(0);
  if (isa<RecvOp>(item))
    return item->getOperands();
  if (auto reduce = dyn_cast<AllReduceOp>(item))
    return reduce->getOperands().slice(1, 1);
  return cast<ExtOp>(item).getOuts();
}

OperandRange mlir::lazy::itemIns(Operation *item) {
  if (auto launch = dyn_cast<LaunchOp>(item))
    return launch.getIns();
  if (isa<SendOp>(item))
    return item->getOperands();
  if (isa<RecvOp>(item))
    return item->getOperands().take_front(0);
  if (auto reduce = dyn_cast<AllReduceOp>(item))
    return reduce->getOperands().slice(0, 1);
  return cast<ExtOp>(item).getIns();
}

Value mlir::lazy::bufferRootOf(Value v) {
  while (auto result = dyn_cast<OpResult>(v)) {
    Operation *op = result.getOwner();
    if (isa<LaunchOp, ExtOp, RecvOp, AllReduceOp>(op))
      v = itemOuts(op)[result.getResultNumber()];
    else if (auto sub = dyn_cast<SubAllocOp>(op))
      v = sub.getBase();
    else
      break;
  }
  return v;
}

//===----------------------------------------------------------------------===//
// SendOp, RecvOp, AllReduceOp
//===----------------------------------------------------------------------===//

/// MPI tags are only guaranteed up to 32767 (MPI_TAG_UB's least value).
static constexpr int64_t kMaxMpiTag = 32767;

/// The rank and tag of a send or a receive, and the buffer's size: MPI
/// counts bytes in an int.
static LogicalResult verifyMessage(Operation *op, BufferType buffer,
                                   int64_t rank, int64_t tag) {
  if (rank < 0)
    return op->emitOpError() << "rank must be non-negative, got " << rank;
  if (tag < 0 || tag > kMaxMpiTag)
    return op->emitOpError() << "tag must be in [0, " << kMaxMpiTag
                             << "] (MPI_TAG_UB's least value), got " << tag;
  if (buffer.getSizeInBytes() > std::numeric_limits<int32_t>::max())
    return op->emitOpError()
           << "moves " << buffer.getSizeInBytes()
           << " bytes, more than one MPI message holds (2^31 - 1)";
  return success();
}

LogicalResult SendOp::verify() {
  return verifyMessage(*this, getBuffer().getType(), getRank(), getTag());
}

LogicalResult RecvOp::verify() {
  return verifyMessage(*this, getBuffer().getType(), getRank(), getTag());
}

bool AllReduceOp::reducible(Type type, StringRef kind) {
  if (kind != "sum" && kind != "max")
    return false;
  if (type.isF32() || type.isF64())
    return true;
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer || !llvm::is_contained({8u, 16u, 32u, 64u}, integer.getWidth()))
    return false;
  // Buffers are seen as signless memrefs once lowered: a max over unsigned
  // elements would compare them as signed.
  return kind == "sum" || !integer.isUnsigned();
}

LogicalResult AllReduceOp::verify() {
  BufferType in = getIn().getType(), out = getOut().getType();
  if (in.getSize() != out.getSize() ||
      in.getElementType() != out.getElementType())
    return emitOpError() << "reduces " << in << " into " << out
                         << ": the element type and size must agree";
  if (in.getDevice() != out.getDevice())
    return emitOpError("must keep the input buffer's device");
  if (!reducible(in.getElementType(), getKind()))
    return emitOpError() << "cannot '" << getKind() << "' "
                         << in.getElementType()
                         << " elements over MPI (sum or max of f32, f64 or "
                            "8- to 64-bit integers; max of signed ones only)";
  if (in.getSizeInBytes() > std::numeric_limits<int32_t>::max())
    return emitOpError() << "reduces " << in.getSizeInBytes()
                         << " bytes, more than one MPI call counts (2^31 - 1)";
  return success();
}

LogicalResult ExtOp::verify() {
  StringRef kind = getKind();
  if (!llvm::is_contained({"copy", "custom", "empty", "view"}, kind))
    return emitOpError() << "unknown EXT kind '" << kind
                         << "'; expected copy, custom, empty or view";
  if (getOuts().size() != 1)
    return emitOpError("an EXT item writes exactly one buffer");
  size_t expectedIns = kind == "copy" || kind == "view" ? 1 : 0;
  if (kind != "custom" && getIns().size() != expectedIns)
    return emitOpError() << "a '" << kind << "' item reads " << expectedIns
                         << " buffer(s), got " << getIns().size();
  if (std::optional<int64_t> seed = getSeed()) {
    if (kind != "custom")
      return emitOpError("only a 'custom' item has a seed");
    if (*seed < 0)
      return emitOpError("seed must be non-negative");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ScheduleOp
//===----------------------------------------------------------------------===//

RegionKind ScheduleOp::getRegionKind(unsigned) { return RegionKind::Graph; }

//===----------------------------------------------------------------------===//
// SubAllocOp
//===----------------------------------------------------------------------===//

LogicalResult SubAllocOp::verify() {
  BufferType base = getBase().getType(), result = getType();
  if (base.getDevice() != result.getDevice())
    return emitOpError("must keep the base buffer's device");
  int64_t offset = getOffset();
  if (offset < 0 || offset + result.getSizeInBytes() > base.getSizeInBytes())
    return emitOpError() << "a " << result.getSize() << "-element buffer at "
                         << "byte offset " << offset << " does not fit in "
                         << base.getSize() << " elements";
  return success();
}
