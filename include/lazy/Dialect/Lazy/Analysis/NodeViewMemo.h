//===- NodeViewMemo.h - memo tables keyed by (node, view) ---------*- C++
//-*-===//
//
// tinygrad memoizes its walks by (LazyBuffer, ShapeTracker). Here such a
// table is a chain of (view, value) entries per node: a lookup touches two
// small per-node arrays and a short chain (a node is rarely seen through
// more than a few views) instead of hashing a packed key into a table that
// outgrows the cache.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_ANALYSIS_NODEVIEWMEMO_H
#define LAZY_DIALECT_LAZY_ANALYSIS_NODEVIEWMEMO_H

#include "lazy/Dialect/Lazy/Analysis/ScheduleAnalysis.h"

namespace mlir::lazy {

/// A map from (node, view) to V over a graph of `nodes` nodes. clear()
/// empties it in O(1) (a node's chain is valid while its stamp is the
/// table's); forget() drops one node's entries.
template <typename V> class NodeViewMemo {
public:
  explicit NodeViewMemo(size_t nodes) : first(nodes), stamps(nodes, 0) {}

  void clear() {
    ++stamp;
    entries.clear();
  }
  /// The value of `key`, or null. Valid until the next insertion.
  const V *find(NodeView key) const {
    uint32_t e = entryOf(key);
    return e == kNone ? nullptr : &entries[e].value;
  }
  void set(NodeView key, V value) {
    if (uint32_t e = entryOf(key); e != kNone) {
      entries[e].value = value;
      return;
    }
    if (stamps[key.node] != stamp) {
      stamps[key.node] = stamp;
      first[key.node] = kNone;
    }
    entries.push_back({key.view, first[key.node], value});
    first[key.node] = uint32_t(entries.size() - 1);
  }
  /// Drops every entry of `node`, handing each value to `drop` first.
  template <typename Fn> void forget(NodeId node, Fn drop) {
    if (stamps[node] != stamp)
      return;
    for (uint32_t e = first[node]; e != kNone; e = entries[e].next)
      drop(entries[e].value);
    first[node] = kNone;
  }

private:
  static constexpr uint32_t kNone = ~uint32_t(0);
  uint32_t entryOf(NodeView key) const {
    if (stamps[key.node] != stamp)
      return kNone;
    for (uint32_t e = first[key.node]; e != kNone; e = entries[e].next)
      if (entries[e].view == key.view)
        return e;
    return kNone;
  }
  struct Entry {
    ::lazy::st::TrackerId view;
    uint32_t next;
    V value;
  };
  std::vector<uint32_t> first;
  std::vector<uint32_t> stamps;
  std::vector<Entry> entries; // dropped entries stay until clear()
  uint32_t stamp = 1;
};

} // namespace mlir::lazy

#endif // LAZY_DIALECT_LAZY_ANALYSIS_NODEVIEWMEMO_H
