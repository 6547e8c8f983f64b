//===- KernelCheck.cpp - each compiled kernel call against the interpreter ===//

#include "lazy/Runtime/KernelCheck.h"

#include "lazy/Dialect/Lazy/IR/LazyAttrs.h"
#include "lazy/Interpreter/Interpreter.h"
#include "lazy/Interpreter/KernelGraph.h"
#include "lazy/Runtime/ReferenceCheck.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::lazy;
namespace interp = ::lazy::interp;

namespace {
/// The checker the hooks report to (one run at a time: lazy-run's).
KernelCheck *activeCheck = nullptr;

/// The diagnostics emitted while it is in scope, kept as one line for a
/// report row instead of printed.
struct CapturedDiagnostics {
  explicit CapturedDiagnostics(MLIRContext *context)
      : handler(context, [this](Diagnostic &diag) {
          text += (text.empty() ? "" : "; ") + diag.str();
          return success();
        }) {}
  std::string text;
  ScopedDiagnosticHandler handler;
};
} // namespace

extern "C" {
static void lazyCheckArg(int64_t call, int64_t index, int64_t address,
                         int64_t offset, int64_t elements) {
  if (activeCheck)
    activeCheck->argument(call, index, address, offset, elements);
}
static void lazyCheckBegin(int64_t call) {
  if (activeCheck)
    activeCheck->begin(call);
}
static void lazyCheckEnd(int64_t call) {
  if (activeCheck)
    activeCheck->end(call);
}
}

std::vector<std::pair<std::string, void *>> KernelCheck::hookSymbols() {
  return {{"lazy_rt_check_arg", reinterpret_cast<void *>(&lazyCheckArg)},
          {"lazy_rt_check_begin", reinterpret_cast<void *>(&lazyCheckBegin)},
          {"lazy_rt_check_end", reinterpret_cast<void *>(&lazyCheckEnd)}};
}

KernelCheck::Active::Active(KernelCheck &check) { activeCheck = &check; }
KernelCheck::Active::~Active() { activeCheck = nullptr; }

KernelCheck::KernelCheck(ModuleOp scheduled, StringRef entry)
    : scheduled(scheduled),
      graphs(ModuleOp::create(UnknownLoc::get(scheduled.getContext()))) {
  if (auto host = scheduled.lookupSymbol<func::FuncOp>(entry))
    host.walk([&](LaunchOp launch) {
      kernelOfCall.push_back(launch.getKernel().str());
    });
}

KernelCheck::~KernelCheck() = default;

KernelCheck::KernelReference &KernelCheck::referenceOf(StringRef name) {
  auto [it, inserted] = references.try_emplace(name);
  KernelReference &ref = it->second;
  if (!inserted)
    return ref;
  auto kernel = scheduled.lookupSymbol<KernelOp>(name);
  if (!kernel) {
    ref.whyNot = "no lazy.kernel of this name";
    return ref;
  }
  for (Type t : kernel.getArgumentTypes()) {
    std::optional<interp::DType> dtype =
        dtypeOf(cast<BufferType>(t).getElementType());
    if (!dtype) {
      ref.whyNot = "a buffer of a dtype the interpreter does not hold";
      return ref;
    }
    ref.argDTypes.push_back(*dtype);
  }
  ref.stores.resize(kernel.getNumOutputs());
  kernel.walk([&](StoreOp store) {
    if (auto target = dyn_cast<BlockArgument>(store.getBuffer());
        target && target.getArgNumber() < ref.stores.size())
      ref.stores[target.getArgNumber()] = store;
  });
  // The reasons it cannot be a graph are kept for the report.
  CapturedDiagnostics messages(kernel.getContext());
  FailureOr<func::FuncOp> graph = kernelAsGraph(kernel, *graphs);
  if (failed(graph))
    ref.whyNot = messages.text;
  else
    ref.graph = *graph;
  return ref;
}

void KernelCheck::argument(int64_t call, int64_t index, int64_t address,
                           int64_t offset, int64_t elements) {
  if (call != current) {
    current = call;
    passed.clear();
  }
  if (index < 0)
    return;
  if (size_t(index) >= passed.size())
    passed.resize(size_t(index) + 1);
  passed[size_t(index)] = {reinterpret_cast<uint8_t *>(address), offset,
                           elements};
}

void KernelCheck::begin(int64_t call) {
  before.clear();
  buffers.clear();
  if (call != current || size_t(call) >= kernelOfCall.size())
    return;
  KernelReference &ref = referenceOf(kernelOfCall[size_t(call)]);
  if (!ref.graph || passed.size() != ref.argDTypes.size())
    return;
  for (auto [i, arg] : llvm::enumerate(passed)) {
    // The offset is in elements.
    int64_t item = interp::itemSize(ref.argDTypes[i]);
    uint8_t *first = arg.address + arg.offset * item;
    buffers.push_back({first, arg.elements});
    interp::HostTensor copy;
    copy.dtype = ref.argDTypes[i];
    copy.shape = {arg.elements};
    copy.data.assign(first, first + arg.elements * item);
    before.push_back(std::move(copy));
  }
}

void KernelCheck::end(int64_t call) {
  Row row;
  row.call = call;
  if (size_t(call) >= kernelOfCall.size()) {
    row.note = "a call the scheduled function does not launch";
    rows.push_back(std::move(row));
    return;
  }
  row.kernel = kernelOfCall[size_t(call)];
  KernelReference &ref = referenceOf(row.kernel);
  if (auto kernel = scheduled.lookupSymbol<KernelOp>(row.kernel))
    if (ArrayAttr metadata = kernel.getMetadataAttr())
      for (Attribute m : metadata)
        if (auto s = dyn_cast<StringAttr>(m))
          row.metadata += (row.metadata.empty() ? "" : ", ") + s.str();
  if (!ref.graph) {
    row.note = "not checked: " + ref.whyNot;
    rows.push_back(std::move(row));
    return;
  }
  if (call != current || before.size() != ref.argDTypes.size()) {
    row.note = "not checked: the call's buffers were not passed";
    rows.push_back(std::move(row));
    return;
  }
  CapturedDiagnostics messages(ref.graph.getContext());
  FailureOr<ReferenceCheck> reference =
      ReferenceCheck::evaluate(ref.graph, before);
  if (failed(reference)) {
    row.note = "not checked: the interpreter fails: " + messages.text;
    rows.push_back(std::move(row));
    return;
  }
  row.checked = true;
  for (auto [index, store] : llvm::enumerate(ref.stores)) {
    // The compiled output, read through the store's view: the elements
    // the kernel wrote, in the stored value's shape.
    auto [data, size] = buffers[index];
    interp::HostTensor got =
        readThroughView(data, size, reference->reference(unsigned(index)).dtype,
                        store.getView().getTracker());
    Verdict verdict = reference->judge(unsigned(index), got);
    row.outputs.push_back(verdict.describe(size_t(got.numElements())));
    row.ok &= verdict.ok;
    row.rescued |= verdict.rescued.betweenExact || verdict.rescued.withinNoise;
  }
  rows.push_back(std::move(row));
}

bool KernelCheck::report(llvm::raw_ostream &os) const {
  size_t checked = 0, differ = 0, rescued = 0;
  for (const Row &row : rows) {
    os << "kernel call " << row.call << " @" << row.kernel;
    if (!row.metadata.empty())
      os << " [" << row.metadata << "]";
    os << ":";
    if (!row.checked) {
      os << " " << row.note << "\n";
      continue;
    }
    ++checked;
    differ += !row.ok;
    for (auto [i, line] : llvm::enumerate(row.outputs))
      os << (i ? ";" : "") << " out" << i << " " << line;
    rescued += row.rescued && row.ok;
    os << "\n";
  }
  os << "kernel calls: " << rows.size() << ", checked " << checked
     << ", matching " << checked - differ << " (" << rescued
     << " within rounding noise or nearer f64), differing " << differ
     << ", not checked " << rows.size() - checked << "\n";
  return differ == 0;
}
