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
    if (!entries[id].sym && entries[id].tracker == tracker)
      return id;
  TrackerId id = TrackerId(entries.size());
  int64_t size = tracker.size();
  bool contiguous = tracker.contiguous();
  entries.push_back(Entry{std::move(tracker), nullptr, hash, size, contiguous,
                          head->second, kNone});
  head->second = id;
  return id;
}

TrackerId TrackerPool::intern(const SymShapeTracker &tracker) {
  if (auto ints = tracker.toTracker())
    return intern(std::move(*ints));
  return internShadowed(tracker);
}

TrackerId TrackerPool::internShadowed(SymShapeTracker tracker) {
  size_t hash = hashValue(tracker);
  auto [head, isNew] = byHash.try_emplace(hash, kNone);
  for (TrackerId id = head->second; id != kNone; id = entries[id].nextWithHash)
    if (entries[id].sym && *entries[id].sym == tracker)
      return id;
  // The shadow: every Variable at its largest value, view for view.
  std::map<std::string, sym::NodeP> largest;
  for (auto &[key, var] : tracker.vars())
    largest.emplace(key, sym::num(var->max.getInt()));
  ShapeTracker shadow;
  for (const SymView &v : tracker.views) {
    std::optional<View> iv;
    try {
      iv = v.substitute(largest).toView();
    } catch (const sym::Error &) {
    }
    shadow.views.push_back(
        iv ? *iv : View::create(std::vector<int64_t>(v.shape.size(), 0)));
  }
  TrackerId id = TrackerId(entries.size());
  int64_t size = tracker.size();
  bool contiguous = tracker.contiguous();
  entries.push_back(
      Entry{std::move(shadow),
            std::make_shared<const SymShapeTracker>(std::move(tracker)), hash,
            size, contiguous, head->second, kNone});
  head->second = id;
  ++symbolicCount;
  return id;
}

SymShapeTracker TrackerPool::getSym(TrackerId id) const {
  const Entry &e = entries[id];
  return e.sym ? *e.sym : SymShapeTracker::fromTracker(e.tracker);
}

SymShape TrackerPool::symShape(TrackerId id) const {
  const Entry &e = entries[id];
  if (e.sym)
    return e.sym->shape();
  const std::vector<int64_t> &shape = e.tracker.shape();
  return SymShape(shape.begin(), shape.end());
}

TrackerId TrackerPool::fromSymShape(const SymShape &shape) {
  bool ints = true;
  std::vector<int64_t> dims;
  for (const SInt &d : shape) {
    ints &= d.isInt();
    dims.push_back(d.isInt() ? d.getInt() : 0);
  }
  if (ints)
    return fromShape(dims);
  return intern(SymShapeTracker::fromShape(shape));
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
  TrackerId result;
  if (!isSymbolic(inner) && !isSymbolic(outer)) {
    result = intern(get(inner) + get(outer));
  } else {
    SymShapeTracker a = getSym(inner), b = getSym(outer);
    try {
      result = intern(a + b);
    } catch (const sym::Error &) {
      // tinygrad raises here; keep the views apart instead.
      a.views.insert(a.views.end(), b.views.begin(), b.views.end());
      result = intern(a);
    }
  }
  it->second = result;
  return result;
}

TrackerId TrackerPool::simplify(TrackerId id) {
  if (entries[id].simplified == kNone) {
    TrackerId result = id;
    if (entries[id].tracker.views.size() >= 2) {
      if (!entries[id].sym) {
        result = intern(entries[id].tracker.simplify());
      } else {
        try {
          result = intern(entries[id].sym->simplify());
        } catch (const sym::Error &) {
        }
      }
    }
    entries[id].simplified = result;
  }
  return entries[id].simplified;
}
