//===- PrintSchedule.cpp - canonical text of a schedule -------------------===//
//
// lazy-print-schedule: prints each scheduled function's items in the
// canonical text form shared with the differential harness (which prints
// tinygrad's ScheduleItems the same way), so two schedules are identical
// exactly when their texts are. Rules:
//   - one `item <i> KERNEL outs=<n> ins=<m>` or `item <i> EXT <KIND> <arg>
//     outs=1 ins=<m>` line per item, in order;
//   - kernel nodes numbered in depth-first post-order from the stores,
//     operands in order; structurally equal nodes are printed once;
//   - dtypes by tinygrad's names, views as `#lazy.st` bodies, consts as
//     Python prints the value rounded to its dtype.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/LaunchTraffic.h"
#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/IR/SymbolicSyntax.h"
#include "lazy/Dialect/Lazy/Transforms/Passes.h"
#include "lazy/Dialect/Lazy/Transforms/ScheduleText.h"
#include "lazy/Support/PassOptionHints.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <charconv>
#include <cmath>
#include <map>

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYPRINTSCHEDULE
#include "lazy/Dialect/Lazy/Transforms/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::lazy;

namespace {

std::string dtypeName(Type t) {
  if (t.isInteger(1))
    return "bool";
  if (auto i = dyn_cast<IntegerType>(t)) {
    static const char *names[] = {"char", "short", "int", "long"};
    unsigned k = i.getWidth() == 8    ? 0
                 : i.getWidth() == 16 ? 1
                 : i.getWidth() == 32 ? 2
                                      : 3;
    return (i.isUnsigned() ? "unsigned " : "") + std::string(names[k]);
  }
  if (t.isF16())
    return "half";
  if (t.isBF16())
    return "__bf16";
  if (t.isF32())
    return "float";
  return "double";
}

/// Python's repr of a float: shortest round-trip digits, fixed notation
/// for exponents in [-4, 16), scientific otherwise.
std::string pythonFloat(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto res =
      std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  size_t e = sci.find('e');
  std::string mantissa = sci.substr(0, e);
  int exponent = std::stoi(sci.substr(e + 1));
  bool negative = mantissa[0] == '-';
  if (negative)
    mantissa = mantissa.substr(1);
  std::string digits;
  for (char c : mantissa)
    if (c != '.')
      digits.push_back(c);
  std::string out;
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) {
      out = "0." + std::string(size_t(-exponent - 1), '0') + digits;
    } else if (size_t(exponent + 1) >= digits.size()) {
      out = digits + std::string(size_t(exponent + 1) - digits.size(), '0') +
            ".0";
    } else {
      out = digits.substr(0, size_t(exponent + 1)) + "." +
            digits.substr(size_t(exponent + 1));
    }
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1)
      out += "." + digits.substr(1);
    char exp[16];
    std::snprintf(exp, sizeof(exp), "e%c%02d", exponent < 0 ? '-' : '+',
                  std::abs(exponent));
    out += exp;
  }
  return negative ? "-" + out : out;
}

std::string constText(Attribute value) {
  if (auto sym = dyn_cast<SymIntAttr>(value))
    return sintText(sym.getValue());
  if (auto b = dyn_cast<BoolAttr>(value))
    return b.getValue() ? "True" : "False";
  if (auto i = dyn_cast<IntegerAttr>(value)) {
    llvm::SmallString<24> s;
    i.getValue().toString(s, 10, !i.getType().isUnsignedInteger());
    return std::string(s);
  }
  return pythonFloat(cast<FloatAttr>(value).getValueAsDouble());
}

std::string viewText(ShapeTrackerAttr view) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (view.isSymbolic())
    printTrackerBody(os, view.getSymTracker());
  else
    printTrackerBody(os, view.getTracker());
  return s;
}

std::string axesText(ArrayRef<int64_t> axes) {
  std::string s = "(";
  for (int64_t a : axes)
    s += std::to_string(a) + (axes.size() == 1 ? "," : ", ");
  if (axes.size() > 1)
    s.resize(s.size() - 2);
  return s + ")";
}

class KernelPrinter {
public:
  explicit KernelPrinter(llvm::raw_ostream &os) : os(os) {}

  void print(KernelOp kernel) {
    Block &body = kernel.getBody().front();
    for (Operation &op : body)
      if (auto store = dyn_cast<StoreOp>(op)) {
        std::string value = node(store.getValue());
        auto arg = cast<BlockArgument>(store.getBuffer());
        os << "  STORE " << arg.getArgNumber() << " "
           << dtypeName(store.getValue().getType().getElementType()) << " "
           << viewText(store.getView()) << " " << value << "\n";
      }
  }

private:
  /// Prints the nodes `v` depends on, then `v`; returns its name.
  std::string node(Value root) {
    struct Frame {
      Value v;
      unsigned next = 0;
      SmallVector<std::string> srcs;
    };
    SmallVector<Frame> stack = {{root}};
    std::string last;
    while (!stack.empty()) {
      Frame &f = stack.back();
      Operation *op = f.v.getDefiningOp();
      // A const leaf is a lazy.view of a lazy.const: one node. A view of a
      // computed value (a row kernel's) is a node reading it.
      bool leaf = isa<LoadOp>(op) || (isa<ViewOp>(op) && !isComputedView(op));
      if (auto it = names.find(f.v); it != names.end()) {
        last = it->second;
        stack.pop_back();
        if (!stack.empty())
          stack.back().srcs.push_back(last);
        continue;
      }
      if (!leaf && f.next < op->getNumOperands()) {
        stack.push_back({op->getOperand(f.next++)});
        continue;
      }
      std::string text = describe(op, f.srcs);
      auto [it, inserted] = byText.insert({text, ""});
      if (inserted) {
        it->second = "n" + std::to_string(counter++);
        os << "  " << it->second << " = " << text << "\n";
      }
      names[f.v] = it->second;
      last = it->second;
      stack.pop_back();
      if (!stack.empty())
        stack.back().srcs.push_back(last);
    }
    return last;
  }

  std::string describe(Operation *op, ArrayRef<std::string> srcs) {
    std::string s;
    llvm::raw_string_ostream os(s);
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if (auto load = dyn_cast<LoadOp>(op)) {
      os << "LOAD " << cast<BlockArgument>(load.getBuffer()).getArgNumber()
         << " " << dtypeName(type.getElementType()) << " "
         << viewText(load.getView());
      return s;
    }
    if (auto view = dyn_cast<ViewOp>(op)) {
      auto c = view.getSrc().getDefiningOp<ConstOp>();
      if (!c) {
        os << "VIEW " << viewText(view.getTracker());
        for (const std::string &src : srcs)
          os << " " << src;
        return s;
      }
      os << "CONST " << constText(c.getValue()) << " "
         << dtypeName(type.getElementType()) << " "
         << viewText(view.getTracker());
      return s;
    }
    StringRef name = op->getName().stripDialect();
    if (auto r = dyn_cast<ReduceSumOp>(op))
      os << "SUM " << axesText(r.getAxes());
    else if (auto r = dyn_cast<ReduceMaxOp>(op))
      os << "MAX " << axesText(r.getAxes());
    else if (isa<CastOp, BitcastOp>(op))
      os << name.upper() << " " << dtypeName(type.getElementType());
    else
      os << name.upper();
    for (const std::string &src : srcs)
      os << " " << src;
    return s;
  }

  llvm::raw_ostream &os;
  llvm::DenseMap<Value, std::string> names;
  llvm::StringMap<std::string> byText;
  unsigned counter = 0;
};

/// Numbers buffers by first appearance for the `bufs:` line of an item:
/// launch and EXT results are the buffers they wrote, a suballoc is its
/// base buffer at a byte offset (`b3@16`), empty buffers are left out as
/// tinygrad leaves them out of ScheduleItem.bufs.
class BufferNamer {
public:
  std::string line(Operation *item) {
    std::string s = "  bufs:";
    for (Value v : item->getOperands()) {
      auto type = cast<BufferType>(v.getType());
      if (type.getSize() == 0)
        continue;
      int64_t offset = 0;
      bool sub = false;
      Value root = v;
      while (true) {
        if (auto result = dyn_cast<OpResult>(root)) {
          Operation *op = result.getOwner();
          if (auto launch = dyn_cast<LaunchOp>(op)) {
            root = launch.getOuts()[result.getResultNumber()];
            continue;
          }
          if (auto ext = dyn_cast<ExtOp>(op)) {
            root = ext.getOuts()[result.getResultNumber()];
            continue;
          }
          if (auto subAlloc = dyn_cast<SubAllocOp>(op)) {
            offset += subAlloc.getOffset();
            root = subAlloc.getBase();
            sub = true;
            continue;
          }
        }
        break;
      }
      // A realized argument is identified by its buffer number, so that a
      // sub-buffer argument shares its base's name.
      std::pair<Value, int64_t> key = {root, -1};
      if (auto arg = dyn_cast<BlockArgument>(root))
        if (auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()))
          if (auto id = func.getArgAttrOfType<IntegerAttr>(
                  arg.getArgNumber(), LazyDialect::kBufferAttrName)) {
            key = {Value(), id.getInt()};
            if (auto off = func.getArgAttrOfType<IntegerAttr>(
                    arg.getArgNumber(), LazyDialect::kBufferOffsetAttrName)) {
              offset += off.getInt();
              sub = true;
            }
          }
      auto [it, inserted] = ids.insert({key, ids.size()});
      s += " b" + std::to_string(it->second);
      if (sub)
        s += "@" + std::to_string(offset);
    }
    return s;
  }

private:
  std::map<std::pair<Value, int64_t>, size_t,
           bool (*)(const std::pair<Value, int64_t> &,
                    const std::pair<Value, int64_t> &)>
      ids{[](const std::pair<Value, int64_t> &a,
             const std::pair<Value, int64_t> &b) {
        return std::make_pair(a.first.getAsOpaquePointer(), a.second) <
               std::make_pair(b.first.getAsOpaquePointer(), b.second);
      }};
};

/// The bridge form's name for the buffer an operand or its root is:
/// `a<N>` for function argument N, `n<P>` for the buffer of the graph op at
/// position P (an allocation's or an item output's `lazy.nodes`), `x<K>`
/// for an allocation no graph op owns, `?` when nothing says.
class BridgeBufferNamer {
public:
  std::string natural(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return "a" + std::to_string(arg.getArgNumber());
    if (auto result = dyn_cast<OpResult>(v))
      if (auto nodes = result.getOwner()->getAttrOfType<DenseI64ArrayAttr>(
              LazyDialect::kNodesAttrName))
        if (result.getResultNumber() < nodes.size())
          return "n" + std::to_string(nodes[result.getResultNumber()]);
    return "?";
  }

  /// `<root>@<byte offset>`: where `v` lives once launches and sub-buffers
  /// are seen through (the memory plan).
  std::string root(Value v) {
    int64_t offset = 0;
    while (auto result = dyn_cast<OpResult>(v)) {
      Operation *op = result.getOwner();
      if (auto launch = dyn_cast<LaunchOp>(op))
        v = launch.getOuts()[result.getResultNumber()];
      else if (auto ext = dyn_cast<ExtOp>(op))
        v = ext.getOuts()[result.getResultNumber()];
      else if (auto sub = dyn_cast<SubAllocOp>(op)) {
        offset += sub.getOffset();
        v = sub.getBase();
      } else
        break;
    }
    std::string name;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      name = "a" + std::to_string(arg.getArgNumber());
      if (auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()))
        if (auto off = func.getArgAttrOfType<IntegerAttr>(
                arg.getArgNumber(), LazyDialect::kBufferOffsetAttrName))
          offset += off.getInt();
    } else if (isa<AllocOp>(v.getDefiningOp())) {
      name = natural(v);
      if (name == "?") {
        auto [it, inserted] = unowned.insert({v, unowned.size()});
        name = "x" + std::to_string(it->second);
      }
    } else {
      name = "?";
    }
    return name + "@" + std::to_string(offset);
  }

private:
  llvm::DenseMap<Value, size_t> unowned;
};

/// tinygrad's var_vals: every launch's Variable values, merged, after
/// `head`, as one line; nothing without Variables.
void printVarValues(func::FuncOp func, llvm::raw_ostream &os, StringRef head) {
  std::map<std::string, int64_t> values;
  func.walk([&](LaunchOp launch) {
    if (auto dict = launch->getAttrOfType<DictionaryAttr>(
            LazyDialect::kVarValuesAttrName))
      for (NamedAttribute entry : dict)
        if (auto v = dyn_cast<IntegerAttr>(entry.getValue()))
          values.emplace(entry.getName().str(), v.getInt());
  });
  if (values.empty())
    return;
  os << head;
  for (auto &[name, value] : values)
    os << " " << name << "=" << value;
  os << "\n";
}

LogicalResult printBridgeFunction(ModuleOp module, SymbolTable &symbols,
                                  func::FuncOp func, llvm::raw_ostream &os,
                                  llvm::DenseSet<Operation *> &printed) {
  BridgeBufferNamer namer;
  auto printItem = [&](Operation *op, ValueRange outs) -> LogicalResult {
    auto nodes =
        op->getAttrOfType<DenseI64ArrayAttr>(LazyDialect::kNodesAttrName);
    if (!nodes)
      return op->emitOpError("has no 'lazy.nodes'; schedule with "
                             "lazy-schedule{record-nodes} for the bridge "
                             "form");
    os << "  out";
    for (int64_t position : nodes.asArrayRef())
      os << " " << position;
    os << "\n  buf";
    for (auto [i, v] : llvm::enumerate(op->getOperands())) {
      if (cast<BufferType>(v.getType()).getSize() == 0)
        continue;
      std::string natural =
          i < outs.size() ? "n" + std::to_string(nodes[i]) : namer.natural(v);
      os << " " << natural << ":" << namer.root(v);
    }
    os << "\n";
    return success();
  };
  os << "schedule @" << func.getSymName() << "\n";
  for (Operation &op : func.getBody().front()) {
    if (auto launch = dyn_cast<LaunchOp>(op)) {
      auto kernel = symbols.lookup<KernelOp>(launch.getKernel());
      if (!kernel)
        return launch.emitOpError("launches an unknown kernel");
      if (printed.insert(kernel).second) {
        os << "kernel @" << kernel.getSymName() << " args "
           << kernel.getBody().front().getNumArguments() << "\n";
        if (auto names = kernel->getAttrOfType<ArrayAttr>("metadata"))
          for (Attribute name : names)
            if (auto str = dyn_cast<StringAttr>(name))
              os << "  meta " << str.getValue() << "\n";
        KernelPrinter(os).print(kernel);
      }
      os << "item KERNEL @" << kernel.getSymName() << "\n";
      if (failed(printItem(launch, launch.getOuts())))
        return failure();
    } else if (auto ext = dyn_cast<ExtOp>(op)) {
      os << "item EXT " << ext.getKind().upper() << "\n";
      if (failed(printItem(ext, ext.getOuts())))
        return failure();
    }
  }
  printVarValues(func, os, "var_vals");
  return success();
}

void printCanonicalFunction(ModuleOp module, SymbolTable &symbols,
                            func::FuncOp func, llvm::raw_ostream &os,
                            bool buffers) {
  os << "schedule @" << func.getSymName() << "\n";
  unsigned index = 0;
  BufferNamer namer;
  for (Operation &op : func.getBody().front()) {
    if (auto launch = dyn_cast<LaunchOp>(op)) {
      auto kernel = symbols.lookup<KernelOp>(launch.getKernel());
      os << "item " << index++ << " KERNEL outs=" << launch.getOuts().size()
         << " ins=" << launch.getIns().size() << "\n";
      if (kernel)
        KernelPrinter(os).print(kernel);
      if (buffers)
        os << namer.line(launch) << "\n";
    } else if (auto ext = dyn_cast<ExtOp>(op)) {
      os << "item " << index++ << " EXT " << ext.getKind().upper();
      if (auto arg = ext.getArgAttr()) {
        if (auto i = dyn_cast<IntegerAttr>(arg))
          os << " " << i.getInt();
        else if (auto str = dyn_cast<StringAttr>(arg))
          os << " " << str.getValue();
      }
      os << " outs=" << ext.getOuts().size() << " ins=" << ext.getIns().size()
         << "\n";
      if (buffers)
        os << namer.line(ext) << "\n";
    }
  }
  // What the kernels move: each launch's distinct buffers.
  LaunchTraffic traffic = launchTraffic(func.getBody().front());
  os << "moved: " << traffic.launches << " kernels, " << traffic.bytes
     << " bytes\n";
  printVarValues(func, os, "var_vals:");
}

/// `s` as the inside of a DOT string (quotes and backslashes escaped).
std::string dotEscaped(StringRef s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

/// A buffer type as an edge label: `1024xf32, 4096 B`.
std::string bufferLabel(BufferType type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type.getSize() << "x" << type.getElementType() << ", "
     << type.getSizeInBytes() << " B";
  return s;
}

/// The graph ops a kernel fused, in body order, each once (loads, stores
/// and const views left out), at most `limit` then a count.
std::string fusedOps(KernelOp kernel, size_t limit = 12) {
  SmallVector<std::string> names;
  for (Operation &op : kernel.getBody().front()) {
    if (!isFusedOp(op))
      continue;
    // The canonical text's names: SUM and MAX for the reduces.
    std::string name = isa<ReduceSumOp>(op) ? "SUM"
                       : isa<ReduceMaxOp>(op)
                           ? "MAX"
                           : op.getName().stripDialect().upper();
    if (!llvm::is_contained(names, name))
      names.push_back(name);
  }
  std::string s;
  for (auto [i, name] : llvm::enumerate(names)) {
    if (i == limit) {
      s += " +" + std::to_string(names.size() - limit);
      break;
    }
    s += (i ? " " : "") + name;
  }
  return s;
}

/// A scheduled function as a Graphviz digraph: kernels (boxes named by
/// their kernel symbol, labelled with the item number, metadata and fused
/// ops), EXT items (copies as blue folders, the others grey notes), the
/// function's arguments and results; an edge for each buffer an item reads
/// from the item that wrote it (or the argument), labelled with its size,
/// and a dashed red `assign` edge where an item writes over a buffer that
/// already holds data (its old contents' producer to it).
void printDotFunction(SymbolTable &symbols, func::FuncOp func,
                      llvm::raw_ostream &os) {
  os << "digraph \"schedule @" << dotEscaped(func.getSymName()) << "\" {\n"
     << "  node [fontname=\"monospace\", fontsize=10];\n"
     << "  edge [fontname=\"monospace\", fontsize=9];\n";
  llvm::DenseMap<Operation *, std::string> itemNode;
  llvm::DenseSet<unsigned> argNodes;
  // The node that wrote `v`, declaring an argument's node on first use;
  // empty for fresh memory.
  auto producer = [&](Value v) -> std::string {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      unsigned n = arg.getArgNumber();
      if (argNodes.insert(n).second)
        os << "  a" << n << " [shape=invhouse, label=\"argument " << n
           << "\"];\n";
      return "a" + std::to_string(n);
    }
    if (Operation *def = v.getDefiningOp())
      if (isa<LaunchOp, ExtOp>(def))
        return itemNode.lookup(def);
    return "";
  };
  unsigned index = 0;
  for (Operation &op : func.getBody().front()) {
    if (!isa<LaunchOp, ExtOp>(op))
      continue;
    std::string id = "i" + std::to_string(index);
    std::string label, attrs;
    if (auto launch = dyn_cast<LaunchOp>(op)) {
      label =
          "@" + launch.getKernel().str() + "\\nitem " + std::to_string(index);
      if (auto kernel = symbols.lookup<KernelOp>(launch.getKernel())) {
        if (ArrayAttr metadata = kernel.getMetadataAttr()) {
          std::string names;
          for (Attribute name : metadata)
            if (auto str = dyn_cast<StringAttr>(name))
              names += (names.empty() ? "" : ", ") + str.getValue().str();
          if (!names.empty())
            label += "\\n" + dotEscaped(names);
        }
        label += "\\n" + fusedOps(kernel);
      }
      attrs = "shape=box";
    } else {
      auto ext = cast<ExtOp>(op);
      label = ext.getKind().upper() + "\\nitem " + std::to_string(index);
      attrs = ext.getKind() == "copy"
                  ? "shape=folder, style=filled, fillcolor=lightblue"
                  : "shape=note, style=filled, fillcolor=lightgrey";
    }
    // Declare the sources first (argument nodes) so that every edge's ends
    // exist where it is written.
    SmallVector<std::pair<std::string, std::string>> reads, assigns;
    for (Value in : itemIns(&op))
      if (std::string from = producer(in); !from.empty())
        reads.push_back({from, bufferLabel(cast<BufferType>(in.getType()))});
    for (Value out : itemOuts(&op))
      if (std::string from = producer(out); !from.empty())
        assigns.push_back({from, bufferLabel(cast<BufferType>(out.getType()))});
    if (!assigns.empty())
      attrs += ", style=filled, fillcolor=lightyellow";
    os << "  " << id << " [" << attrs << ", label=\"" << label << "\"];\n";
    for (auto &[from, size] : reads)
      os << "  " << from << " -> " << id << " [label=\"" << size << "\"];\n";
    for (auto &[from, size] : assigns)
      os << "  " << from << " -> " << id
         << " [style=dashed, color=red, label=\"assign " << size << "\"];\n";
    itemNode[&op] = id;
    ++index;
  }
  if (auto ret = dyn_cast<func::ReturnOp>(func.getBody().front().back()))
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      std::string from = producer(v);
      if (from.empty())
        continue;
      os << "  r" << i << " [shape=house, label=\"result " << i << "\"];\n"
         << "  " << from << " -> r" << i << ";\n";
    }
  os << "}\n";
}

struct LazyPrintSchedule final
    : mlir::lazy::WithOptionHints<
          mlir::lazy::impl::LazyPrintScheduleBase<LazyPrintSchedule>> {
  using WithOptionHints::WithOptionHints;
  void runOnOperation() override {
    ScheduleTextFormat kind;
    if (format == "canonical")
      kind = ScheduleTextFormat::Canonical;
    else if (format == "bridge")
      kind = ScheduleTextFormat::Bridge;
    else if (format == "dot")
      kind = ScheduleTextFormat::Dot;
    else {
      InFlightDiagnostic diag =
          emitError(getOperation().getLoc())
          << "lazy-print-schedule: unknown format '" << format
          << "' (expected 'canonical', 'bridge' or 'dot')";
      StringRef closest;
      unsigned best = 3; // suggest within two edits
      for (StringRef known : {"canonical", "bridge", "dot"})
        if (unsigned d = StringRef(format).edit_distance(known); d < best) {
          best = d;
          closest = known;
        }
      if (!closest.empty())
        diag << "; did you mean '" << closest << "'?";
      return signalPassFailure();
    }
    if (failed(printSchedule(getOperation(), llvm::outs(), kind, printBuffers)))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace

LogicalResult mlir::lazy::printSchedule(ModuleOp module, llvm::raw_ostream &os,
                                        ScheduleTextFormat format,
                                        bool buffers) {
  // Written whole or not at all: a schedule the bridge form cannot express
  // leaves nothing half-printed.
  std::string text;
  llvm::raw_string_ostream textOS(text);
  SymbolTable symbols(module);
  llvm::DenseSet<Operation *> printed;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    if (format == ScheduleTextFormat::Canonical)
      printCanonicalFunction(module, symbols, func, textOS, buffers);
    else if (format == ScheduleTextFormat::Dot)
      printDotFunction(symbols, func, textOS);
    else if (failed(
                 printBridgeFunction(module, symbols, func, textOS, printed)))
      return failure();
  }
  os << text;
  return success();
}
