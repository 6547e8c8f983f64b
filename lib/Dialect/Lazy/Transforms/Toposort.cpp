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
//   - anything left unvisited is a cycle: an error naming the kernels on
//     it, and counting the items that only wait on it;
//   - an item ordered after an assign whose target it reads through a
//     buffer_view (ext "view", which shares the target's memory) sees the
//     new contents where the graph viewed the old ones: tinygrad's assign
//     edges do not see the alias. The order stays tinygrad's, with a
//     warning.
// The ordered items then replace the lazy.schedule in the function, each
// allocation just before its first user.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/Transforms/Passes.h"
#include "lazy/Support/PassOptionHints.h"

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

/// Warns at each item that reads, through a buffer_view, a function
/// argument that an item ordered before it assigns to (see the header).
void warnAliasedReadsAfterAssign(
    ArrayRef<Operation *> items, ArrayRef<unsigned> order,
    const llvm::DenseMap<Value, unsigned> &writerOf) {
  // Most schedules have no assign or no buffer_view: nothing to look at.
  if (writerOf.empty() || llvm::none_of(items, [](Operation *item) {
        auto ext = dyn_cast<ExtOp>(item);
        return ext && ext.getKind() == "view";
      }))
    return;
  std::vector<unsigned> position(items.size());
  for (auto [pos, i] : llvm::enumerate(order))
    position[i] = unsigned(pos);
  // The argument a buffer_view's result shares memory with, if any.
  auto viewedArgument = [](Value v) -> Value {
    while (auto result = dyn_cast<OpResult>(v)) {
      auto ext = dyn_cast<ExtOp>(result.getOwner());
      if (!ext || ext.getKind() != "view" || ext.getIns().empty())
        return {};
      v = ext.getIns().front();
    }
    return v;
  };
  for (auto [i, item] : llvm::enumerate(items)) {
    if (auto ext = dyn_cast<ExtOp>(item); ext && ext.getKind() == "view")
      continue; // making the view is ordered before the assign
    for (Value in : itemIns(item)) {
      if (!isa<OpResult>(in))
        continue;
      Value target = viewedArgument(in);
      auto writer = target ? writerOf.find(target) : writerOf.end();
      if (writer == writerOf.end() || writer->second == i ||
          position[writer->second] > position[i])
        continue;
      item->emitWarning()
          << "'" << item->getName()
          << "' op reads a buffer_view of a buffer that "
          << describe(items[writer->second])
          << " assigns to earlier in the schedule: it sees the new contents, "
             "not the ones the graph viewed (tinygrad 0.9.2 orders the "
             "readers of an assign target before the assign but does not "
             "see the alias); read the target through .contiguous() to use "
             "its old values";
      break;
    }
  }
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
    // The unscheduled items are those on a cycle and those after one.
    // Peeling, among them, the items no other unscheduled item waits for
    // leaves the cycles (and what lies between two).
    std::vector<char> left(items.size(), 0);
    for (auto [i, degree] : inDegree)
      left[i] = degree != 0;
    std::vector<unsigned> waiting(items.size(), 0); // unscheduled successors
    for (unsigned i = 0; i < items.size(); ++i)
      if (left[i])
        for (unsigned next : successors[i])
          waiting[i] += left[next];
    SmallVector<unsigned> peel;
    for (unsigned i = 0; i < items.size(); ++i)
      if (left[i] && waiting[i] == 0)
        peel.push_back(i);
    std::vector<SmallVector<unsigned>> predecessors(items.size());
    for (unsigned i = 0; i < items.size(); ++i)
      if (left[i])
        for (unsigned next : successors[i])
          if (left[next])
            predecessors[next].push_back(i);
    unsigned after = 0;
    while (!peel.empty()) {
      unsigned i = peel.pop_back_val();
      left[i] = 0;
      ++after;
      for (unsigned p : predecessors[i])
        if (left[p] && --waiting[p] == 0)
          peel.push_back(p);
    }
    for (unsigned i = 0; i < items.size(); ++i)
      if (left[i])
        diag.attachNote(items[i]->getLoc())
            << describe(items[i]) << " is on the cycle";
    if (after)
      diag.attachNote(schedule.getLoc())
          << after << " other item" << (after == 1 ? "" : "s") << " wait"
          << (after == 1 ? "s" : "") << " on the cycle";
    return failure();
  }

  warnAliasedReadsAfterAssign(items, order, writerOf);

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

struct LazyToposort final
    : mlir::lazy::WithOptionHints<
          mlir::lazy::impl::LazyToposortBase<LazyToposort>> {
  void runOnOperation() override {
    SmallVector<ScheduleOp> schedules;
    getOperation().walk([&](ScheduleOp s) { schedules.push_back(s); });
    for (ScheduleOp s : schedules)
      if (failed(orderSchedule(s)))
        return signalPassFailure();
  }
};

} // namespace
