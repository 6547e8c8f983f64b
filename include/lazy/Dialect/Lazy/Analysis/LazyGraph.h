//===- LazyGraph.h - tinygrad's LazyBuffer graph over lazy IR ----*- C++
//-*-===//
//
// A read-only, index-based view of one graph-level function in tinygrad's
// terms: every SSA value is a LazyBuffer node, either a base (a computation
// or, for function arguments, a realized buffer) or a view of a base
// through a ShapeTracker. The scheduler's analyses work on node indices so
// that their ordered sets and memo tables are plain vectors.
//
// The graph must be in LazyBuffer form (run lazy-fold-views first): no
// movement ops, and every lazy.view reads a base.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_ANALYSIS_LAZYGRAPH_H
#define LAZY_DIALECT_LAZY_ANALYSIS_LAZYGRAPH_H

#include "lazy/Dialect/Lazy/Analysis/NodeSet.h"
#include "lazy/ShapeTracker/TrackerPool.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <vector>

namespace mlir::lazy {

/// What a base node computes, in tinygrad's op classes.
enum class NodeOp : uint8_t {
  Realized,    // a function argument: an already realized buffer
  Elementwise, // UnaryOps, BinaryOps, TernaryOps
  ReduceSum,
  ReduceMax,
  // MetaOps
  Const,
  Empty,
  Copy,
  Contiguous,
  Custom,
  Assign,
  BufferView,
  // Not a base: a lazy.view of a base.
  View,
};

struct LazyNode {
  /// The value's tensor type: its shape and dtype (uniqued, shared by many
  /// nodes, so reading it stays in cache).
  RankedTensorType type;
  Operation *op = nullptr; // null for function arguments
  /// The op's metadata name (tinygrad's Metadata: a NameLoc), or null.
  /// Kept here, as the type is, so that kernel formation need not touch
  /// the ops, which lie all over memory.
  StringAttr metadata;
  /// The op's OperationName, as OperationName::getAsOpaquePointer() gives
  /// it (null for function arguments).
  const void *opName = nullptr;
  int64_t size = 0;
  /// Operands, in order (bases only), in storage the graph owns.
  ArrayRef<NodeId> srcs;
  NodeId base = -1;                  // the node itself for bases
  ::lazy::st::TrackerId tracker = 0; // from_shape(shape) for bases
  int32_t itemSize = 0;
  NodeOp kind = NodeOp::Realized;
  bool forcedRealize = false;
  bool seen = false;
  /// An elementwise op that is unsafe to pad (UnsafePads.cpp):
  /// RECIP, LOG2, EXP2, IDIV.
  bool unsafePad = false;
  /// Marked `lazy.external`: held from outside the graph.
  bool external = false;

  ArrayRef<int64_t> shape() const { return type.getShape(); }
  Type elementType() const { return type.getElementType(); }
  bool isBase() const { return kind != NodeOp::View; }
  bool isRealized() const { return kind == NodeOp::Realized; }
  bool isReduce() const {
    return kind == NodeOp::ReduceSum || kind == NodeOp::ReduceMax;
  }
  bool isMeta() const {
    return kind == NodeOp::Const || kind == NodeOp::Empty ||
           kind == NodeOp::Copy || kind == NodeOp::Contiguous ||
           kind == NodeOp::Custom || kind == NodeOp::Assign ||
           kind == NodeOp::BufferView;
  }
};

/// True when the tracker reads no element (a zero-sized dimension or an
/// empty outermost mask): tinygrad views a const 0 instead.
bool readsNothing(const ::lazy::st::ShapeTracker &tracker);
/// True when a view through `tracker` of a base of `baseShape` is the base
/// itself (contiguous, of the base's shape).
bool viewIsItsBase(const ::lazy::st::ShapeTracker &tracker,
                   ArrayRef<int64_t> baseShape);
/// tinygrad's LazyBuffer._view rules for such a view: true when
/// lazy-fold-views replaces it (readsNothing or viewIsItsBase).
bool viewFoldsAway(const ::lazy::st::ShapeTracker &tracker,
                   ArrayRef<int64_t> baseShape);

/// viewFoldsAway for a view or base that holds Variables (tinygrad's `==`
/// on sints; ::lazy::st::readsNothing is the first rule).
bool symbolicViewFoldsAway(const ::lazy::st::SymShapeTracker &tracker,
                           Type baseType);

/// A graph-level function: a body whose values are tensors (a tensor
/// argument or result, or a lazy op). Scheduling passes leave any other
/// function alone.
bool isGraphFunction(func::FuncOp func);

class LazyGraph {
public:
  /// Builds the graph of `func`; emits an error and returns failure when the
  /// function is not in LazyBuffer form. With `notFolded`, a function that
  /// lazy-fold-views would change (a movement op, a view of a view, a view
  /// of a base that the _view rules replace, or a view nothing reads) sets
  /// it and fails without a diagnostic, so that the caller can fold and
  /// build again; other errors are reported as usual.
  static FailureOr<LazyGraph> build(func::FuncOp func,
                                    bool *notFolded = nullptr);

  const LazyNode &node(NodeId id) const { return nodes[id]; }
  size_t size() const { return nodes.size(); }
  /// The node of a function argument: arguments are the first nodes, in
  /// order.
  NodeId idOf(BlockArgument arg) const { return NodeId(arg.getArgNumber()); }
  /// The scheduler's outputs: the function's results, in order.
  ArrayRef<NodeId> outputs() const { return outs; }
  func::FuncOp function() const { return func; }

  /// The base of a node (itself for a base).
  NodeId baseOf(NodeId id) const { return nodes[id].base; }
  /// Whether `base` is the base of one of the outputs.
  bool isOutputBase(NodeId base) const {
    return llvm::any_of(outs, [&](NodeId o) { return baseOf(o) == base; });
  }

  /// The trackers of this graph's nodes and of everything the scheduler
  /// derives from them. The pool only grows and never changes an id's
  /// meaning, so analyses holding a const graph may add to it.
  ::lazy::st::TrackerPool &trackers() const { return *pool; }
  /// The ShapeTracker a node is seen through.
  const ::lazy::st::ShapeTracker &tracker(NodeId id) const {
    return pool->get(nodes[id].tracker);
  }

private:
  func::FuncOp func;
  std::vector<LazyNode> nodes;
  /// Every node's srcs, back to back (reserved once: nodes point into it).
  std::vector<NodeId> srcStorage;
  std::vector<NodeId> outs;
  std::unique_ptr<::lazy::st::TrackerPool> pool;
};

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_ANALYSIS_LAZYGRAPH_H
