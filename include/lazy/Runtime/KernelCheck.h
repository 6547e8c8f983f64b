//===- KernelCheck.h - kernel calls against the interpreter -----*- C++ -*-===//
//
// lazy-run --check judges a whole graph's outputs, where rounding
// differences of many kernels add up (a training step's Adam update can
// turn a 1e-7 gradient difference into a whole step). KernelCheck judges
// each kernel call on its own: the program is lowered with
// lazy-to-cpu{check-calls}, whose hooks give, before each call, the
// addresses of the buffers the kernel is passed. The checker copies the
// inputs then; after the call, it evaluates the kernel as a graph
// (kernelAsGraph) on those copies with the reference interpreter and
// judges each stored output, read through its store's view, as --check
// judges a result (ReferenceCheck.h: the tolerance of the dtype it was
// computed in, then the f64 evaluation and the rounding noise). Every call
// is checked on the inputs the compiled program really gave it, so one
// wrong kernel shows as one row, not as every kernel after it.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_RUNTIME_KERNELCHECK_H
#define LAZY_RUNTIME_KERNELCHECK_H

#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Interpreter/HostTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <utility>
#include <vector>

namespace mlir::lazy {

class KernelCheck {
public:
  /// `scheduled` is the module as scheduled (before lowering), `entry` its
  /// host function: the n-th launch in it is call n of the hooks.
  KernelCheck(ModuleOp scheduled, StringRef entry);
  ~KernelCheck();

  /// The host functions lazy-to-cpu{check-calls} calls, by name, for
  /// CpuProgramOptions::symbols. They report to the KernelCheck made
  /// active by an Active in scope.
  static std::vector<std::pair<std::string, void *>> hookSymbols();
  /// Makes `check` the one the hooks report to while in scope.
  class Active {
  public:
    explicit Active(KernelCheck &check);
    ~Active();
  };

  /// The hooks: buffer argument `index` of call `call` is `elements`
  /// elements at element `offset` from `address`; the call starts; it
  /// ended.
  void argument(int64_t call, int64_t index, int64_t address, int64_t offset,
                int64_t elements);
  void begin(int64_t call);
  void end(int64_t call);

  /// Prints one line per call and a summary line; whether every call
  /// checked matched (a call the interpreter cannot evaluate is counted
  /// and shown, not a failure).
  bool report(llvm::raw_ostream &os) const;

private:
  /// The reference of one kernel, made on its first call.
  struct KernelReference {
    func::FuncOp graph; // null when it cannot be evaluated
    std::string whyNot;
    /// The element type of each buffer argument, and each output's store
    /// view.
    std::vector<::lazy::interp::DType> argDTypes;
    std::vector<StoreOp> stores;
  };
  KernelReference &referenceOf(StringRef kernel);

  struct Row {
    int64_t call = 0;
    std::string kernel, metadata;
    /// Per output, the verdict's line; empty when not checked.
    std::vector<std::string> outputs;
    bool checked = false, ok = true;
    /// Some output matched only by a second opinion (f64 or noise).
    bool rescued = false;
    std::string note;
  };

  ModuleOp scheduled;
  std::vector<std::string> kernelOfCall;
  /// The reference functions (kernelAsGraph's), in a module of their own.
  OwningOpRef<ModuleOp> graphs;
  llvm::StringMap<KernelReference> references;
  /// The current call's buffers as the hooks passed them (aligned
  /// address, offset and size in elements), then as (first element,
  /// elements), and the copies of their contents before it.
  struct Passed {
    uint8_t *address = nullptr;
    int64_t offset = 0, elements = 0;
  };
  std::vector<Passed> passed;
  std::vector<std::pair<uint8_t *, int64_t>> buffers;
  std::vector<::lazy::interp::HostTensor> before;
  int64_t current = -1;
  std::vector<Row> rows;
};

} // namespace mlir::lazy

#endif // LAZY_RUNTIME_KERNELCHECK_H
