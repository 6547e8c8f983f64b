//===- KernelDedup.cpp - which groups share one kernel --------------------===//
//
// Kernel deduplication, as tinygrad's method cache compiles equal ASTs once
// (a training step repeats each layer's kernels):
//   1. items whose kernels would be identical (same argument types,
//      metadata and ops; KernelPlan::key) launch one shared lazy.kernel,
//      named after its first use;
//   2. a group described like an earlier one (the same walked ops, views
//      and pattern of buffers: KernelAstBuilder::describe) is not even
//      built: it launches the earlier group's kernel on its own buffers;
//   3. within a kernel, structurally equal leaves (same buffer or const,
//      same view) are emitted once, as tinygrad's LazyOp equality would
//      merge them; only nodes the stores reach are emitted.
// None of this changes what a schedule computes, only how many kernels
// are built and compiled.
//
//===----------------------------------------------------------------------===//

#include "lazy/Dialect/Lazy/Analysis/KernelDedup.h"
#include "KernelAstBuilderImpl.h"

#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace mlir::lazy;
namespace st = ::lazy::st;

unsigned WordsInfo::getHashValue(ArrayRef<uint64_t> words) {
  return unsigned(llvm::xxh3_64bits(
      ArrayRef(reinterpret_cast<const uint8_t *>(words.data()),
               words.size() * sizeof(uint64_t))));
}

//===----------------------------------------------------------------------===//
// Plans (rules 1 and 3)
//===----------------------------------------------------------------------===//

KernelPlan mlir::lazy::planKernel(const LazyGraph &g, const ScheduleItem &item,
                                  function_ref<BufferType(NodeId)> bufferType) {
  MLIRContext *ctx = g.function().getContext();
  KernelPlan plan;
  // A byte-copy kernel sees its buffers as uint8 (the launch passes them
  // as they are: a kernel argument only has to match a buffer's bytes).
  auto bytesOf = [&](BufferType t) {
    return BufferType::get(ctx, item.copyBytes,
                           IntegerType::get(ctx, 8, IntegerType::Unsigned),
                           t.getDevice());
  };
  for (NodeId id : llvm::concat<const NodeId>(item.outputs, item.inputs))
    plan.argTypes.push_back(item.copyBytes ? bytesOf(bufferType(id))
                                           : bufferType(id));
  // Metadata: the names of the computed ops, first occurrence first.
  for (NodeId id : item.computed)
    if (StringAttr name = g.node(id).metadata)
      if (!llvm::is_contained(plan.metadata, name))
        plan.metadata.push_back(name);

  SmallVector<uint64_t, 0> &key = plan.key;
  key.reserve(8 + plan.argTypes.size() + plan.metadata.size() +
              4 * item.nodes.size() + item.stores.size());
  plan.ops.reserve(item.nodes.size());
  key.push_back(item.outputs.size());
  key.push_back(uint64_t(item.copyBytes));
  key.push_back(plan.argTypes.size());
  for (Type t : plan.argTypes)
    key.push_back(opaqueWord(t.getAsOpaquePointer()));
  key.push_back(plan.metadata.size());
  for (StringAttr name : plan.metadata)
    key.push_back(opaqueWord(name.getAsOpaquePointer()));
  if (item.copyBytes)
    return plan;

  // Only nodes the stores reach are emitted (an assign also lowers its
  // target, whose load nothing uses).
  std::vector<char> live(item.nodes.size(), 0);
  for (auto &store : item.stores)
    live[store.first] = 1;
  for (size_t i = item.nodes.size(); i-- > 0;)
    if (live[i])
      for (int32_t src : item.nodes[i].srcs())
        live[src] = 1;

  // The planned op of each AST node; structurally equal loads and consts
  // (kind, buffer or const node, view) share one.
  std::vector<int32_t> &opOf = plan.opOf;
  opOf.assign(item.nodes.size(), -1);
  // Keyed by (load or const, buffer or const node, view), packed.
  llvm::DenseMap<uint64_t, int32_t> leaves;
  for (auto [i, node] : llvm::enumerate(item.nodes)) {
    if (!live[i])
      continue;
    const LazyNode &src = g.node(node.source);
    bool isLeaf =
        node.kind == AstNode::Kind::Load || node.kind == AstNode::Kind::Const;
    if (isLeaf) {
      int64_t leaf =
          node.kind == AstNode::Kind::Load ? node.buffer : int64_t(node.source);
      assert(leaf >= 0 && leaf <= INT32_MAX);
      uint64_t leafKey = uint64_t(node.kind == AstNode::Kind::Load) << 63 |
                         uint64_t(leaf) << 32 | node.view;
      auto [it, inserted] =
          leaves.try_emplace(leafKey, int32_t(plan.ops.size()));
      if (!inserted) {
        opOf[i] = it->second;
        continue;
      }
    }
    opOf[i] = int32_t(plan.ops.size());
    plan.ops.push_back(int32_t(i));

    // Packed, a few words per op (a 10^5-node kernel has a 10^5-op key):
    // kind, operand count and shape; dtype; the kind's fields; operands,
    // two to a word. Lengths come first, so keys cannot alias.
    key.push_back(uint64_t(node.kind) | uint64_t(node.numSrcs) << 8 |
                  uint64_t(node.shaped) << 32);
    key.push_back(opaqueWord(elementTypeOf(g, node).getAsOpaquePointer()));
    switch (node.kind) {
    case AstNode::Kind::Load:
      assert(node.buffer >= 0 && node.buffer <= UINT32_MAX);
      key.push_back(uint64_t(node.view) | uint64_t(node.buffer) << 32);
      break;
    case AstNode::Kind::Const: {
      ArrayRef<int64_t> shape = src.shape();
      key.push_back(uint64_t(node.view) | uint64_t(shape.size()) << 32);
      key.push_back(
          opaqueWord(cast<ConstOp>(src.op).getValue().getAsOpaquePointer()));
      key.insert(key.end(), shape.begin(), shape.end());
      break;
    }
    case AstNode::Kind::View:
      key.push_back(uint64_t(node.view));
      break;
    case AstNode::Kind::Reduce:
      key.push_back(uint64_t(src.kind) | uint64_t(node.numAxes) << 32);
      llvm::append_range(key, item.axesOf(node));
      break;
    case AstNode::Kind::Compute:
      key.push_back(opaqueWord(src.opName));
      // An op with properties is never shared: they have no cheap
      // equality here (no lazy op in a kernel AST has any today).
      if (OperationName::getFromOpaquePointer(src.opName)
              .getOpPropertyByteSize())
        key.push_back(opaqueWord(src.op));
      break;
    }
    ArrayRef<int32_t> srcs = node.srcs();
    for (size_t k = 0; k < srcs.size(); k += 2) {
      uint64_t second =
          k + 1 < srcs.size() ? uint64_t(uint32_t(opOf[srcs[k + 1]])) : 0;
      key.push_back(uint64_t(uint32_t(opOf[srcs[k]])) | second << 32);
    }
  }
  for (auto &store : item.stores) {
    plan.stores.push_back({opOf[store.first], store.second});
    key.push_back(uint64_t(uint32_t(opOf[store.first])) | uint64_t(store.second)
                                                              << 32);
  }
  return plan;
}

//===----------------------------------------------------------------------===//
// Describing a group's kernel up to renaming (rule 2)
//===----------------------------------------------------------------------===//

/// The inherent attributes of a walked op that lowering and planning read,
/// as one word; an op whose properties are not known here is described by
/// its own address, which no other op shares (as planKernel keys such an
/// op, a const computed inside a kernel among them).
static uint64_t propertiesWord(const LazyNode &n) {
  if (!OperationName::getFromOpaquePointer(n.opName).getOpPropertyByteSize())
    return 0;
  switch (n.kind) {
  case NodeOp::ReduceSum:
    return opaqueWord(
        cast<ReduceSumOp>(n.op).getAxesAttr().getAsOpaquePointer());
  case NodeOp::ReduceMax:
    return opaqueWord(
        cast<ReduceMaxOp>(n.op).getAxesAttr().getAsOpaquePointer());
  case NodeOp::Assign:
    return opaqueWord(cast<AssignOp>(n.op).getViewAttr().getAsOpaquePointer());
  default:
    return opaqueWord(n.op);
  }
}

/// The most nodes (ops and leaves) describe() numbers before giving up on
/// a group.
static constexpr int32_t kMaxDescribedNodes = 2048;

bool mlir::lazy::detail::KernelAstBuilderImpl::describe(
    ArrayRef<NodeId> outputs, SmallVectorImpl<uint64_t> &key,
    std::vector<NodeId> &inputsOut) {
  key.clear();
  inputsOut.clear();
  // A copy is an EXT item or a byte-copy kernel: neither is described.
  if (isExtGroup(g.node(outputs.front())))
    return false;
  enterGroup(outputs);
  if (describedStamp.empty()) {
    describedStamp.assign(g.size(), 0);
    describedAs.assign(g.size(), -1);
  }
  ++describeEpoch;
  describeStack.clear();
  int32_t next = 0;
  auto numberOf = [&](NodeId n) {
    return describedStamp[n] == describeEpoch ? describedAs[n] : -1;
  };
  auto number = [&](NodeId n) {
    describedStamp[n] = describeEpoch;
    describedAs[n] = next++;
  };
  // Word tags: a leaf (its kind in the tag), a walked op, the outputs.
  enum : uint64_t { kConstLeaf = 1, kLoadLeaf, kTargetLeaf, kOp, kOutputs };

  // Leaves at their first use, ops once their sources are numbered: the
  // order lowerValue meets them in, so that loads are numbered as it
  // numbers its inputs.
  auto leaf = [&](NodeId base) {
    number(base);
    const LazyNode &n = g.node(base);
    if (n.kind == NodeOp::Const) {
      key.append(
          {kConstLeaf, opaqueWord(n.type.getAsOpaquePointer()),
           opaqueWord(cast<ConstOp>(n.op).getValue().getAsOpaquePointer())});
      return;
    }
    if (auto target = assignTargets.find(base); target != assignTargets.end()) {
      key.append({kTargetLeaf | uint64_t(target->second) << 8,
                  opaqueWord(n.type.getAsOpaquePointer())});
      return;
    }
    // A realized ASSIGN lives in its target's buffer (the kernel's argument
    // type).
    RankedTensorType buffer =
        n.kind == NodeOp::Assign ? g.node(n.srcs[1]).type : n.type;
    key.append({kLoadLeaf, opaqueWord(n.type.getAsOpaquePointer()),
                opaqueWord(buffer.getAsOpaquePointer())});
    inputsOut.push_back(base);
  };
  for (NodeId out : group) {
    if (numberOf(out) >= 0)
      continue; // walked from an earlier output
    if (next > kMaxDescribedNodes)
      break;
    describeStack.assign(1, {out, 0});
    while (!describeStack.empty()) {
      auto &[node, nextSrc] = describeStack.back();
      const LazyNode &n = g.node(node);
      if (nextSrc < n.srcs.size()) {
        NodeId base = g.baseOf(n.srcs[nextSrc++]);
        if (numberOf(base) >= 0)
          continue;
        if (isLeaf(base))
          leaf(base);
        else if (next + int32_t(describeStack.size()) > kMaxDescribedNodes)
          break; // too large: see below
        else
          describeStack.push_back({base, 0});
        continue;
      }
      // A row value lowers differently (read through View nodes).
      bool row = rowValues && rowValues->contains(node);
      key.append({kOp | uint64_t(n.kind) << 8 | uint64_t(n.srcs.size()) << 16 |
                      uint64_t(row) << 24,
                  opaqueWord(n.opName), opaqueWord(n.type.getAsOpaquePointer()),
                  opaqueWord(n.metadata.getAsOpaquePointer()),
                  propertiesWord(n)});
      for (NodeId src : n.srcs) {
        const LazyNode &s = g.node(src);
        // The source's number (below kMaxDescribedNodes), bit 31 set for
        // an edge through a view, whose tracker fills the high half.
        uint64_t edge = uint64_t(uint32_t(numberOf(g.baseOf(src))));
        if (!s.isBase())
          edge |= uint64_t(1) << 31 | uint64_t(s.tracker) << 32;
        key.push_back(edge);
      }
      number(node);
      describeStack.pop_back();
    }
    if (!describeStack.empty())
      break;
  }
  if (!describeStack.empty() || next > kMaxDescribedNodes) {
    // A group this large is lowered once and rarely met again; walking,
    // keeping, copying and hashing its description would cost more than
    // it saves (a 20,000-op chain: 2.6 ms of 14 ms).
    key.clear();
    inputsOut.clear();
    return false;
  }
  key.push_back(kOutputs | uint64_t(group.size()) << 8);
  for (NodeId out : group)
    key.push_back(uint64_t(uint32_t(numberOf(out))));
  return true;
}

bool KernelAstBuilder::describe(ArrayRef<NodeId> group,
                                SmallVectorImpl<uint64_t> &key,
                                std::vector<NodeId> &inputs) {
  return state->describe(group, key, inputs);
}

//===----------------------------------------------------------------------===//
// The tables
//===----------------------------------------------------------------------===//

KernelDedup::KernelDedup(size_t expectedGroups) {
  planIndex.reserve(expectedGroups);
  kernelOfDescription.reserve(expectedGroups);
}

const KernelDedup::Described *
KernelDedup::findDescribed(KernelAstBuilder &builder, ArrayRef<NodeId> group,
                           std::vector<NodeId> &inputs) {
  waiting = nullptr;
  if (!builder.describe(group, description, inputs))
    return nullptr;
  // A copy of the description joins the map at once (one hash of it): a
  // repeat drops the copy, a new one gets its kernel when settled.
  descriptions.push_back(description);
  auto [known, isNew] =
      kernelOfDescription.try_emplace(descriptions.back(), Described());
  if (!isNew) {
    descriptions.pop_back();
    return &known->second;
  }
  waiting = &known->second;
  return nullptr;
}

void KernelDedup::settleDescription(const Described &described) {
  if (waiting)
    *waiting = described;
  waiting = nullptr;
}

void KernelDedup::dropDescription() {
  // Were one described, its entry must not be found by a later group.
  if (waiting) {
    kernelOfDescription.erase(descriptions.back());
    descriptions.pop_back();
  }
  waiting = nullptr;
}

std::pair<size_t, bool> KernelDedup::addPlan(KernelPlan plan) {
  auto known = planIndex.find(plan.key);
  if (known != planIndex.end())
    return {known->second, false};
  size_t kernel = planList.size();
  planList.push_back(std::move(plan));
  planIndex[planList.back().key] = kernel;
  return {kernel, true};
}
