//===- Toposort.cpp - order a schedule the way tinygrad does --------------===//
//
// lazy-toposort: tinygrad 0.9.2's ordering (scheduler spec §2.8) of the
// items of a lazy.schedule, visited in their prescheduled (block) order:
//   - data edges: an item runs after each distinct item that produces one
//     of its inputs (in input order);
//   - assign edges: an item reading a function-argument buffer that another
//     item writes (an assign target) runs before that writer; the writer is
//     entered into the order when such an edge first names it, as tinygrad's
//     defaultdict does;
//   - breadth-first from the items with no incoming edge, in that order;
//   - anything left unvisited is a cycle: an error naming its kernels.
// The ordered items then replace the lazy.schedule in the function, each
// allocation just before its first user.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

#include <deque>

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYTOPOSORT
#include "lazy/Dialect/Lazy/Transforms/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::lazy;

namespace {

std::string describe(Operation *item) {
  if (auto launch = dyn_cast<LaunchOp>(item))
    return ("@" + launch.getKernel()).str();
  return ("ext \"" + cast<ExtOp>(item).getKind() + "\"").str();
}

LogicalResult orderSchedule(ScheduleOp schedule) {
  Block &body = schedule.getBody().front();
  SmallVector<Operation *> items;
  llvm::DenseMap<Operation *, unsigned> indexOf;
  for (Operation &op : body)
    if (isa<LaunchOp, ExtOp>(op)) {
      indexOf[&op] = items.size();
      items.push_back(&op);
    } else if (!isa<AllocOp, SubAllocOp, YieldOp>(op)) {
      return op.emitOpError("cannot be part of a lazy.schedule");
    }

  // Function-argument buffers written by an item: assign targets.
  llvm::DenseMap<Value, unsigned> writerOf;
  for (auto [i, item] : llvm::enumerate(items))
    for (Value out : itemOuts(item))
      if (isa<BlockArgument>(out))
        writerOf[out] = unsigned(i);

  llvm::MapVector<unsigned, unsigned> inDegree;
  std::vector<SmallVector<unsigned>> successors(items.size());
  // Per-item "already an edge" stamps keep each item linear in its inputs
  // (a kernel may read tens of thousands of buffers).
  constexpr unsigned kNone = ~0u;
  std::vector<unsigned> producerStamp(items.size(), kNone);
  std::vector<unsigned> assignStamp(items.size(), kNone);
  for (auto [i, item] : llvm::enumerate(items)) {
    inDegree.insert({unsigned(i), 0});
    SmallVector<unsigned> producers, assigns;
    for (Value in : itemIns(item)) {
      if (Operation *def = in.getDefiningOp())
        if (auto it = indexOf.find(def);
            it != indexOf.end() && producerStamp[it->second] != i) {
          producerStamp[it->second] = unsigned(i);
          producers.push_back(it->second);
        }
      if (auto it = writerOf.find(in); it != writerOf.end() &&
                                       it->second != i &&
                                       assignStamp[it->second] != i) {
        assignStamp[it->second] = unsigned(i);
        assigns.push_back(it->second);
      }
    }
    for (unsigned p : producers) {
      successors[p].push_back(unsigned(i));
      ++inDegree[unsigned(i)];
    }
    for (unsigned a : assigns) {
      successors[i].push_back(a);
      ++inDegree[a];
    }
  }

  std::deque<unsigned> queue;
  for (auto [i, degree] : inDegree)
    if (degree == 0)
      queue.push_back(i);
  SmallVector<unsigned> order;
  while (!queue.empty()) {
    unsigned i = queue.front();
    queue.pop_front();
    order.push_back(i);
    for (unsigned next : successors[i])
      if (--inDegree[next] == 0)
        queue.push_back(next);
  }
  if (order.size() != items.size()) {
    InFlightDiagnostic diag = schedule.emitError()
                              << "cycle detected in graph, prescheduled "
                              << items.size() << " but only scheduled "
                              << order.size();
    for (auto [i, degree] : inDegree)
      if (degree != 0)
        diag.attachNote(items[i]->getLoc())
            << describe(items[i]) << " waits on the cycle";
    return failure();
  }

  // Inline in order: allocations just before their first user.
  Operation *anchor = schedule;
  // A suballoc (a buffer_view's output) goes just before its user, after
  // its base (an allocation here, or an earlier item's result).
  auto place = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != &body)
      return;
    if (auto sub = dyn_cast<SubAllocOp>(def)) {
      if (auto baseAlloc = sub.getBase().getDefiningOp<AllocOp>();
          baseAlloc && baseAlloc->getBlock() == &body)
        baseAlloc->moveBefore(anchor);
      sub->moveBefore(anchor);
    } else if (isa<AllocOp>(def)) {
      def->moveBefore(anchor);
    }
  };
  for (unsigned i : order) {
    Operation *item = items[i];
    for (Value v : item->getOperands())
      place(v);
    item->moveBefore(anchor);
  }
  auto yield = cast<YieldOp>(body.getTerminator());
  for (Value v : yield.getValues())
    place(v); // an output no item writes stays allocated
  schedule.replaceAllUsesWith(yield.getValues());
  schedule.erase();
  return success();
}

struct LazyToposort final : mlir::lazy::impl::LazyToposortBase<LazyToposort> {
  void runOnOperation() override {
    SmallVector<ScheduleOp> schedules;
    getOperation().walk([&](ScheduleOp s) { schedules.push_back(s); });
    for (ScheduleOp s : schedules)
      if (failed(orderSchedule(s)))
        return signalPassFailure();
  }
};

} // namespace
