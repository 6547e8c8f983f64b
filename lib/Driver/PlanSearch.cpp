//===- PlanSearch.cpp - --search-plans: the fastest plan per kernel -------===//
//
// --search-plans: gives each kernel of the scheduled `module` the fastest
// of its candidate plans (PlanCandidates.h), timed on the CPU. Round i
// compiles the program with every kernel's i-th candidate (the kernels'
// times are independent enough that one program times them all), so N
// candidates cost N compiles whatever the number of kernels.
//
//===----------------------------------------------------------------------===//

#include "GraphRun.h"

#include "lazy/Dialect/Lazy/Analysis/KernelSpace.h"
#include "lazy/Dialect/Lazy/Analysis/PlanCandidates.h"
#include "lazy/Dialect/Lazy/Analysis/PlanLanes.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Support/HostCpu.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::lazy;
using namespace mlir::lazy::driver;
namespace interp = ::lazy::interp;

LogicalResult
GraphRun::searchKernelPlans(ModuleOp module, const std::string &name,
                            const std::vector<interp::HostTensor> &args,
                            size_t numResults) {
  MLIRContext *ctx = module.getContext();
  // The heuristic's plans, from a copy (forced ones are set already).
  OwningOpRef<ModuleOp> planned = module.clone();
  PassManager pm(ctx);
  if (failed(parsePassPipeline("lazy-optimize-kernels", pm)) ||
      failed(pm.run(*planned)))
    return failure();
  struct Searched {
    mlir::lazy::KernelOp kernel;
    SmallVector<ArrayAttr> candidates;
    std::vector<double> seconds;
  };
  std::vector<Searched> kernels;
  size_t rounds = 0;
  // Kernels whose plan --plan forces are not searched.
  llvm::StringSet<> forced;
  for (const std::string &step : options.plans)
    forced.insert(StringRef(step).split(':').first);
  for (auto kernel : module.getOps<mlir::lazy::KernelOp>()) {
    auto heuristic =
        planned->lookupSymbol<mlir::lazy::KernelOp>(kernel.getSymName());
    std::string why;
    FailureOr<mlir::lazy::KernelSpace> space =
        mlir::lazy::kernelSpace(kernel, why);
    if (failed(space) || forced.contains(kernel.getSymName()))
      continue;
    SmallVector<Attribute> plan;
    if (ArrayAttr opts = heuristic.getOptsAttr())
      plan.assign(opts.begin(), opts.end());
    // Candidates vary the heuristic's loop steps; each gets the lanes its
    // own upcasts give (PlanLanes.h), as the planner gives a plan.
    llvm::erase_if(plan, [](Attribute step) {
      return cast<mlir::lazy::OptAttr>(step).getKind() ==
             mlir::lazy::OptKind::lanes;
    });
    SmallVector<ArrayAttr> candidates =
        mlir::lazy::planCandidates(ctx, plan, *space, options.searchPlans);
    for (ArrayAttr &candidate : candidates)
      candidate = ArrayAttr::get(
          ctx, mlir::lazy::withLaneStep(
                   kernel, *space, candidate.getValue(),
                   mlir::lazy::cpuLaneTarget(::lazy::hostVectorBits())));
    if (candidates.size() < 2)
      continue;
    rounds = std::max(rounds, candidates.size());
    kernels.push_back({kernel, std::move(candidates), {}});
  }
  if (kernels.empty()) {
    llvm::errs() << "lazy-run: search: no kernel has plans to compare\n";
    return success();
  }
  for (size_t round = 0; round < rounds; ++round) {
    // Kernels with fewer candidates repeat their heuristic plan.
    for (Searched &k : kernels)
      k.kernel.setOptsAttr(
          k.candidates[round < k.candidates.size() ? round : 0]);
    FailureOr<llvm::StringMap<double>> times =
        timeKernelsOnCpu(module, name, args, numResults, /*runs=*/3);
    // The heuristic's round must run; a later round that does not (a
    // candidate the lowering refuses) only loses its candidates.
    if (failed(times) && round == 0)
      return failure();
    if (failed(times))
      llvm::errs() << "lazy-run: search: round " << round
                   << " did not compile and run; its candidates are "
                      "skipped\n";
    for (Searched &k : kernels)
      if (round < k.candidates.size())
        k.seconds.push_back(succeeded(times)
                                ? times->lookup(k.kernel.getSymName())
                                : std::numeric_limits<double>::infinity());
  }
  std::vector<std::string> found;
  for (Searched &k : kernels) {
    size_t best = size_t(std::min_element(k.seconds.begin(), k.seconds.end()) -
                         k.seconds.begin());
    ArrayAttr plan = k.candidates[best];
    k.kernel.setOptsAttr(plan);
    if (plan.empty())
      found.push_back(k.kernel.getSymName().str() + ":none");
    for (Attribute a : plan) {
      auto opt = cast<mlir::lazy::OptAttr>(a);
      found.push_back(llvm::formatv("{0}:{1}:{2}:{3}", k.kernel.getSymName(),
                                    mlir::lazy::stringifyOptKind(opt.getKind()),
                                    opt.getAxis(), opt.getAmount())
                          .str());
    }
    llvm::errs() << llvm::formatv(
        "lazy-run: search {0}: {1} candidates, heuristic {2:f2} us, best "
        "{3:f2} us ({4})\n",
        k.kernel.getSymName(), k.candidates.size(), k.seconds[0] * 1e6,
        k.seconds[best] * 1e6, plan);
  }
  llvm::errs() << "lazy-run: search found --plan=" << llvm::join(found, ",")
               << "\n";
  return success();
}
