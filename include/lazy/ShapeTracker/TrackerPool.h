//===- TrackerPool.h - Hash-consed ShapeTrackers ----------------*- C++ -*-===//
//
// Part of lazy-mlir. Plain C++17, no MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//
//
// A scheduler builds the same few trackers over and over: every node of one
// shape starts from the same identity tracker, and walks compose the same
// (inner, outer) pairs along every path. The pool stores each distinct
// tracker once and names it by a small integer, so that
//   - memo keys such as (node, tracker) are plain integers: no copies, no
//     deep hashing, no allocation;
//   - equality is id equality;
//   - composition and simplification are computed once per distinct input
//     and then looked up.
// Ids are dense (0, 1, 2, ...) and stay valid, as do references returned by
// get(), for the pool's lifetime.
//
// A tracker may be symbolic (hold tinygrad Variables). Its entry keeps the
// SymShapeTracker, which composition, simplification and the sym* queries
// use, and an integer shadow for get() and shape(): the same views with
// every Variable at its largest value. size() is then tinygrad's size (the
// product of the largest values) and contiguous() is the symbolic flag,
// so the scheduler's integer code reads what tinygrad's would; what a
// kernel loads and stores comes from getSym(). The symbolic operations
// never throw: where tinygrad would raise, composition and simplification
// keep the views apart and reshape appends a view.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_SHAPETRACKER_TRACKERPOOL_H
#define LAZY_SHAPETRACKER_TRACKERPOOL_H

#include "lazy/ShapeTracker/ShapeTracker.h"
#include "lazy/ShapeTracker/SymView.h"

#include <memory>

#include <cstdint>
#include <deque>
#include <unordered_map>

namespace lazy::st {

using TrackerId = uint32_t;

class TrackerPool {
public:
  /// The id of `tracker`, adding it if it is new.
  TrackerId intern(ShapeTracker tracker);
  /// The id of a symbolic tracker (of `tracker.toTracker()` when it holds
  /// no Variable).
  TrackerId intern(const SymShapeTracker &tracker);
  /// The identity tracker of `shape` (ShapeTracker::fromShape).
  TrackerId fromShape(const std::vector<int64_t> &shape);
  TrackerId fromSymShape(const SymShape &shape);

  /// Whether the tracker holds a Variable.
  bool isSymbolic(TrackerId id) const { return bool(entries[id].sym); }
  /// The tracker with its Variables (the integer one, as SymShapeTracker,
  /// for an integer tracker).
  SymShapeTracker getSym(TrackerId id) const;
  SymShape symShape(TrackerId id) const;
  /// Whether some tracker of the pool is symbolic.
  bool anySymbolic() const { return symbolicCount > 0; }

  const ShapeTracker &get(TrackerId id) const { return entries[id].tracker; }
  const std::vector<int64_t> &shape(TrackerId id) const {
    return entries[id].tracker.shape();
  }
  int64_t size(TrackerId id) const { return entries[id].size; }
  bool contiguous(TrackerId id) const { return entries[id].contiguous; }

  /// get(inner) + get(outer): `outer` indexes into inner's shape.
  TrackerId compose(TrackerId inner, TrackerId outer);
  /// get(id).simplify().
  TrackerId simplify(TrackerId id);

  /// Number of distinct trackers.
  size_t count() const { return entries.size(); }

private:
  static constexpr TrackerId kNone = ~TrackerId(0);
  TrackerId internShadowed(SymShapeTracker tracker);

  struct Entry {
    ShapeTracker tracker; // the integer shadow of a symbolic tracker
    std::shared_ptr<const SymShapeTracker> sym;
    size_t hash;
    int64_t size;
    bool contiguous;
    TrackerId nextWithHash = kNone; // collision chain in `byHash`
    TrackerId simplified = kNone;   // memo of simplify()
  };
  static uint64_t pairKey(TrackerId a, TrackerId b) {
    return uint64_t(a) << 32 | b;
  }

  std::deque<Entry> entries; // a deque keeps get() references stable
  std::unordered_map<size_t, TrackerId> byHash; // head of each chain
  std::unordered_map<uint64_t, TrackerId> composed;
  std::unordered_map<size_t, std::vector<TrackerId>> byShapeHash;
  size_t symbolicCount = 0;
};

} // namespace lazy::st

#endif // LAZY_SHAPETRACKER_TRACKERPOOL_H
