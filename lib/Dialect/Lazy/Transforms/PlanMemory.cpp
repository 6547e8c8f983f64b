//===- PlanMemory.cpp - tinygrad 0.9.2's memory planner -------------------===//
//
// lazy-plan-memory: the interval planner of tinygrad 0.9.2's
// engine/realize.py (scheduler spec §3), on an ordered schedule:
//   - candidates: buffers from lazy.alloc with elements that are neither
//     external (lazy.external, function results) nor touched by an EXT item;
//   - live interval: first to last item using the buffer (through launch
//     results, which are the buffers they write);
//   - largest first (stable in first-use order), each request takes the
//     first free segment of its key (device, dtype, plus byte size where
//     the device has no sub-buffers) that covers its interval, else the
//     buffer itself over the whole timeline; the rest of the segment goes
//     back on the free list (FreeList finds tinygrad's first fit without
//     its linear scan);
//   - a smaller buffer placed in a larger one becomes lazy.suballoc at 0.
// Allocations are then hoisted to the top of the function so that every
// alias dominates its uses.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/IR/LazyDialect.h"
#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/Dialect/Lazy/Transforms/Passes.h"
#include "lazy/Support/PassOptionHints.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Format.h"

#include <array>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

namespace mlir::lazy {
#define GEN_PASS_DEF_LAZYPLANMEMORY
#include "lazy/Dialect/Lazy/Transforms/Passes.h.inc"
} // namespace mlir::lazy

using namespace mlir;
using namespace mlir::lazy;

namespace {

struct Segment {
  int64_t start, end;
  Value buffer;
};

/// tinygrad's free list of one key: segments in insertion order (a taken
/// segment leaves a hole), over binary trees of the positions that hold
/// each subtree's smallest start and largest end. The first segment that
/// covers an interval is found by descending left first into the subtrees
/// that could hold one, instead of scanning every segment: the same answer
/// as tinygrad's linear scan, without its quadratic cost when many buffers
/// stay live together.
///
/// Most free segments are what is left of a buffer before or after the
/// request placed in it, so they start at 0 or end at the last item. Among
/// those, only the other end decides whether a segment covers, and a
/// subtree's bound is then exact: the descent never backtracks. So such
/// segments have trees of their own, and only the others share a tree whose
/// descent may have to backtrack.
class FreeList {
public:
  FreeList(size_t capacity, int64_t last) : last(last) {
    while (leaves < capacity)
      leaves *= 2;
    slots.resize(leaves);
    for (std::vector<Bounds> &tree : trees)
      tree.assign(2 * leaves, Bounds());
  }

  void push(Segment seg) {
    assert(used < leaves && "free list capacity exceeded");
    slots[used] = seg;
    set(treeOf(seg), used++, {int32_t(seg.start), int32_t(seg.end)});
  }

  /// Removes and returns the first segment with start <= `start` and
  /// `end` <= its end.
  std::optional<Segment> takeFirstCovering(int64_t start, int64_t end) {
    size_t best = SIZE_MAX;
    for (const std::vector<Bounds> &tree : trees)
      best = std::min(best, firstCovering(tree, start, end));
    if (best == SIZE_MAX)
      return std::nullopt;
    Segment seg = slots[best];
    set(treeOf(seg), best, Bounds());
    return seg;
  }

private:
  /// Per tree node: the smallest start and largest end below it. Item
  /// positions fit 32 bits, so a node is 8 bytes: the tree for 33 K
  /// requests (2^18 nodes, a 10^5-node reduce chain) is 2 MiB, not 4.
  struct Bounds {
    int32_t minStart = std::numeric_limits<int32_t>::max();
    int32_t maxEnd = std::numeric_limits<int32_t>::min();
  };

  size_t treeOf(const Segment &seg) const {
    return seg.start == 0 ? 0 : seg.end == last ? 1 : 2;
  }

  /// The first slot of `tree` covering [start, end], or SIZE_MAX. Depth
  /// first, left first, without a stack: a node that cannot hold a
  /// covering segment passes to its right sibling, or (when it is a right
  /// child) to the right sibling of its nearest ancestor that is a left
  /// child. Node 1 is the root; climbing past it ends the search.
  size_t firstCovering(const std::vector<Bounds> &tree, int64_t start,
                       int64_t end) const {
    size_t node = 1;
    while (node != 0) {
      const Bounds &b = tree[node];
      if (b.minStart <= start && b.maxEnd >= end) {
        if (node >= leaves)
          return node - leaves;
        node = 2 * node;
        continue;
      }
      while (node & 1)
        node >>= 1;
      if (node != 0)
        ++node;
    }
    return SIZE_MAX;
  }

  void set(size_t treeIndex, size_t slot, Bounds leaf) {
    std::vector<Bounds> &tree = trees[treeIndex];
    size_t node = slot + leaves;
    tree[node] = leaf;
    for (node /= 2; node >= 1; node /= 2)
      tree[node] = {
          std::min(tree[2 * node].minStart, tree[2 * node + 1].minStart),
          std::max(tree[2 * node].maxEnd, tree[2 * node + 1].maxEnd)};
  }

  int64_t last;
  size_t leaves = 1, used = 0;
  std::vector<Segment> slots;
  /// Segments from the start, to the last item, and the others.
  std::array<std::vector<Bounds>, 3> trees;
};

struct LazyPlanMemory final
    : mlir::lazy::WithOptionHints<
          mlir::lazy::impl::LazyPlanMemoryBase<LazyPlanMemory>> {
  using WithOptionHints::WithOptionHints;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block &body = func.getBody().front();
    if (llvm::any_of(body, [](Operation &op) { return isa<ScheduleOp>(op); })) {
      func.emitError("plan memory after lazy-toposort has ordered the "
                     "schedule");
      return signalPassFailure();
    }

    std::vector<std::string> offsetKinds(offsetDevices.begin(),
                                         offsetDevices.end());
    if (offsetKinds.empty())
      offsetKinds = {"CLANG", "LLVM", "CUDA", "NV", "AMD", "METAL", "DISK"};
    std::string defaultDevice = "CLANG";
    if (auto module = func->getParentOfType<ModuleOp>())
      if (auto d = module->getAttrOfType<StringAttr>(
              LazyDialect::kDefaultDeviceAttrName))
        defaultDevice = d.getValue().str();

    SmallVector<Operation *> items;
    for (Operation &op : body)
      if (isa<LaunchOp, ExtOp, SendOp, RecvOp, AllReduceOp>(op))
        items.push_back(&op);

    // Buffers that must stay: results and the buffers of EXT items and of
    // lazy-distribute's messages (MPI reads and writes them as it likes).
    llvm::DenseSet<Value> keep;
    for (Value v : body.getTerminator()->getOperands())
      keep.insert(bufferRootOf(v));
    for (Operation *item : items)
      if (!isa<LaunchOp>(item))
        for (Value v : item->getOperands())
          keep.insert(bufferRootOf(v));

    llvm::MapVector<Value, std::pair<int64_t, int64_t>> interval;
    for (auto [i, item] : llvm::enumerate(items))
      for (Value v : item->getOperands()) {
        Value root = bufferRootOf(v);
        auto alloc = root.getDefiningOp<AllocOp>();
        if (!alloc || alloc->hasAttr(LazyDialect::kExternalAttrName) ||
            keep.contains(root) || alloc.getType().getSize() == 0)
          continue;
        auto [it, inserted] = interval.insert({root, {int64_t(i), int64_t(i)}});
        it->second.second = int64_t(i);
      }

    // Requests largest first, stable in first-use order; each with its
    // interval and its key (device and dtype, plus the byte size where the
    // device has no sub-buffers), numbered once per buffer type.
    struct Request {
      Value buffer;
      int64_t bytes, start, end;
      unsigned key;
    };
    std::vector<Request> requests;
    requests.reserve(interval.size());
    // The key compares device names, not device attributes: an unnamed
    // device is the module's default, which may also be named.
    llvm::DenseMap<Type, unsigned> keyOfType;
    std::map<std::tuple<std::string, const void *, int64_t>, unsigned> keyIndex;
    std::vector<size_t> requestsPerKey;
    for (auto &[buf, span] : interval) {
      auto type = cast<BufferType>(buf.getType());
      auto [it, isNew] = keyOfType.try_emplace(type, 0);
      if (isNew) {
        std::string device =
            type.getDevice() ? type.getDevice().getName().str() : defaultDevice;
        std::string kind = StringRef(device).split(':').first.str();
        int64_t bytes =
            llvm::is_contained(offsetKinds, kind) ? -1 : type.getSizeInBytes();
        auto [k, newKey] = keyIndex.try_emplace(
            {std::move(device), type.getElementType().getAsOpaquePointer(),
             bytes},
            unsigned(keyIndex.size()));
        if (newKey)
          requestsPerKey.push_back(0);
        it->second = k->second;
      }
      ++requestsPerKey[it->second];
      requests.push_back(
          {buf, type.getSizeInBytes(), span.first, span.second, it->second});
    }
    llvm::stable_sort(requests, [](const Request &a, const Request &b) {
      return a.bytes > b.bytes;
    });
    int64_t last = int64_t(items.size()) - 1;
    assert(last < std::numeric_limits<int32_t>::max() &&
           "item positions must fit the free list's 32-bit bounds");
    std::vector<FreeList> freeSegments;
    for (size_t count : requestsPerKey)
      freeSegments.emplace_back(2 * count, last); // two pieces a request

    llvm::MapVector<Value, Value> replacement; // buffer -> segment buffer
    for (const Request &request : requests) {
      auto [buf, bytes, start, end, key] = request;
      FreeList &segs = freeSegments[key];
      Segment seg =
          segs.takeFirstCovering(start, end).value_or(Segment{0, last, buf});
      if (start - 1 >= seg.start)
        segs.push({seg.start, start - 1, seg.buffer});
      if (seg.end >= end + 1)
        segs.push({end + 1, seg.end, seg.buffer});
      replacement[buf] = seg.buffer;
    }

    llvm::DenseSet<Value> before, after;
    for (auto &[buf, seg] : replacement) {
      before.insert(buf);
      after.insert(seg);
    }
    int64_t bytesIn = 0, bytesOut = 0;
    for (Value v : before)
      bytesIn += cast<BufferType>(v.getType()).getSizeInBytes();
    for (Value v : after)
      bytesOut += cast<BufferType>(v.getType()).getSizeInBytes();
    numBuffersBefore += before.size();
    numBuffersAfter += after.size();
    bytesBefore += bytesIn;
    bytesAfter += bytesOut;
    if (report && before.size() != after.size()) {
      std::string line;
      llvm::raw_string_ostream os(line);
      os << "memory reduced from "
         << llvm::format("%.2f", double(bytesIn) / 1e6) << " MB -> "
         << llvm::format("%.2f", double(bytesOut) / 1e6) << " MB, "
         << before.size() << " -> " << after.size() << " bufs";
      func.emitRemark(line);
    }

    // Rewrite, then hoist the allocations so every alias dominates its uses.
    OpBuilder builder(func.getContext());
    for (auto &[buf, seg] : replacement) {
      if (buf == seg)
        continue;
      Operation *alloc = buf.getDefiningOp();
      Value with = seg;
      // Inserted at the alloc it replaces (hoisted below): an insertion
      // point kept across the loop could name an alloc erased in it.
      builder.setInsertionPoint(alloc);
      if (cast<BufferType>(seg.getType()).getSizeInBytes() !=
          cast<BufferType>(buf.getType()).getSizeInBytes())
        with = SubAllocOp::create(builder, alloc->getLoc(), buf.getType(), seg,
                                  builder.getI64IntegerAttr(0));
      buf.replaceAllUsesWith(with);
      alloc->erase();
    }
    // Allocations first (in their order), then the carved sub-buffers.
    SmallVector<Operation *> hoisted;
    for (Operation &op : body)
      if (isa<AllocOp>(op))
        hoisted.push_back(&op);
    // (A buffer_view's suballoc of a computed buffer stays where it is.)
    for (Operation &op : body)
      if (auto sub = dyn_cast<SubAllocOp>(op);
          sub && sub.getBase().getDefiningOp<AllocOp>())
        hoisted.push_back(&op);
    for (Operation *op : llvm::reverse(hoisted))
      op->moveBefore(&body.front());
  }
};

} // namespace
