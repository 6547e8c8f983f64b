//===- NodeSet.h - insertion-ordered sets of graph nodes ----------*- C++
//-*-===//
//
// The ordered sets of the scheduler's analyses (tinygrad keeps its
// LazyBuffer sets in dicts, so their order is insertion order, and kernel
// order and buffer numbering follow from it). Node ids are dense indices of
// a LazyGraph.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_ANALYSIS_NODESET_H
#define LAZY_DIALECT_LAZY_ANALYSIS_NODESET_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLExtras.h"

#include <cstdint>
#include <initializer_list>
#include <vector>

namespace mlir::lazy {

/// A node of a LazyGraph: its index.
using NodeId = int32_t;

/// An insertion-ordered set of node ids (tinygrad's ordered sets and dicts
/// of LazyBuffers). Ids are dense, so once a set has more than a few
/// members, membership is a bit per node instead of a hash lookup; a small
/// set (a group) is searched.
class NodeSet {
public:
  using value_type = NodeId;
  using const_iterator = std::vector<NodeId>::const_iterator;
  using iterator = const_iterator;

  NodeSet() = default;
  NodeSet(std::initializer_list<NodeId> ids) { insert(ids.begin(), ids.end()); }

  /// Adds `id` at the end; false if it was already a member.
  bool insert(NodeId id) {
    if (contains(id))
      return false;
    order.push_back(id);
    if (!bits.empty())
      setBit(id);
    else if (order.size() > kSearched)
      for (NodeId member : order)
        setBit(member);
    return true;
  }
  template <typename It> void insert(It first, It last) {
    for (; first != last; ++first)
      insert(*first);
  }
  bool contains(NodeId id) const {
    if (bits.empty())
      return llvm::is_contained(order, id);
    return size_t(id) < bits.size() && bits[id];
  }
  size_t count(NodeId id) const { return contains(id) ? 1 : 0; }
  /// Removes `id`, keeping the others in order (linear, as SetVector's).
  bool remove(NodeId id) {
    if (!contains(id))
      return false;
    order.erase(llvm::find(order, id));
    if (!bits.empty())
      bits.reset(id);
    return true;
  }

  const_iterator begin() const { return order.begin(); }
  const_iterator end() const { return order.end(); }
  size_t size() const { return order.size(); }
  bool empty() const { return order.empty(); }
  NodeId front() const { return order.front(); }
  NodeId back() const { return order.back(); }
  NodeId operator[](size_t i) const { return order[i]; }
  llvm::ArrayRef<NodeId> getArrayRef() const { return order; }

private:
  static constexpr size_t kSearched = 8;
  void setBit(NodeId id) {
    if (size_t(id) >= bits.size())
      bits.resize(std::max<size_t>(size_t(id) + 1, 2 * bits.size()));
    bits.set(id);
  }
  std::vector<NodeId> order;
  llvm::BitVector bits; // empty while the set is searched
};

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_ANALYSIS_NODESET_H
