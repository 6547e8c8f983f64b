//===- TrackerPool.cpp - Hash-consed ShapeTrackers ------------------------===//
//
// Part of lazy-mlir. Plain C++17, no MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#include "lazy/ShapeTracker/TrackerPool.h"

using namespace lazy::st;

static size_t hashShape(const std::vector<int64_t> &shape) {
  size_t seed = shape.size();
  for (int64_t d : shape)
    seed ^= std::hash<int64_t>{}(d) + 0x9e3779b97f4a7c15ULL + (seed << 6) +
            (seed >> 2);
  return seed;
}

TrackerId TrackerPool::intern(ShapeTracker tracker) {
  size_t hash = hashValue(tracker);
  auto [head, isNew] = byHash.try_emplace(hash, kNone);
  for (TrackerId id = head->second; id != kNone; id = entries[id].nextWithHash)
    if (entries[id].tracker == tracker)
      return id;
  TrackerId id = TrackerId(entries.size());
  int64_t size = tracker.size();
  bool contiguous = tracker.contiguous();
  entries.push_back(
      Entry{std::move(tracker), hash, size, contiguous, head->second, kNone});
  head->second = id;
  return id;
}

TrackerId TrackerPool::fromShape(const std::vector<int64_t> &shape) {
  std::vector<TrackerId> &candidates = byShapeHash[hashShape(shape)];
  for (TrackerId id : candidates)
    if (entries[id].tracker.shape() == shape)
      return id;
  TrackerId id = intern(ShapeTracker::fromShape(shape));
  candidates.push_back(id);
  return id;
}

TrackerId TrackerPool::compose(TrackerId inner, TrackerId outer) {
  auto [it, isNew] = composed.try_emplace(pairKey(inner, outer), kNone);
  if (!isNew)
    return it->second;
  // intern() does not touch `composed`, so `it` stays valid.
  TrackerId result = intern(get(inner) + get(outer));
  it->second = result;
  return result;
}

TrackerId TrackerPool::simplify(TrackerId id) {
  if (entries[id].simplified == kNone) {
    TrackerId result = entries[id].tracker.views.size() < 2
                           ? id
                           : intern(entries[id].tracker.simplify());
    entries[id].simplified = result;
  }
  return entries[id].simplified;
}
