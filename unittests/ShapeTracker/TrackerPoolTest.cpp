//===- TrackerPoolTest.cpp - Hash-consed ShapeTrackers --------------------===//

#include "lazy/ShapeTracker/TrackerPool.h"

#include <gtest/gtest.h>

using namespace lazy::st;

namespace {

TEST(TrackerPool, EqualTrackersShareOneId) {
  TrackerPool pool;
  TrackerId a = pool.fromShape({4, 6});
  TrackerId b = pool.intern(ShapeTracker::fromShape({4, 6}));
  TrackerId c = pool.intern(ShapeTracker::fromShape({6, 4}));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(pool.count(), 2u);
  EXPECT_EQ(pool.get(a), ShapeTracker::fromShape({4, 6}));
  EXPECT_EQ(pool.shape(c), (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(pool.size(a), 24);
  EXPECT_TRUE(pool.contiguous(a));
}

TEST(TrackerPool, ComposeMatchesShapeTrackerAddition) {
  TrackerPool pool;
  ShapeTracker base = ShapeTracker::fromShape({4, 6});
  ShapeTracker permuted = base.permute({1, 0});
  ShapeTracker reshaped = ShapeTracker::fromShape({6, 4}).reshape({24});
  TrackerId inner = pool.intern(permuted);
  TrackerId outer = pool.intern(reshaped);
  TrackerId composed = pool.compose(inner, outer);
  EXPECT_EQ(pool.get(composed), permuted + reshaped);
  EXPECT_FALSE(pool.contiguous(composed));
  EXPECT_EQ(pool.size(composed), 24);
  // Memoized: the same pair gives the same id without a new entry.
  size_t before = pool.count();
  EXPECT_EQ(pool.compose(inner, outer), composed);
  EXPECT_EQ(pool.count(), before);
}

TEST(TrackerPool, SimplifyMergesViews) {
  TrackerPool pool;
  // Two views that merge: a reshape appended after a permute-free view.
  ShapeTracker twoViews;
  twoViews.views = {View::create({4, 6}), View::create({24})};
  TrackerId id = pool.intern(twoViews);
  TrackerId simple = pool.simplify(id);
  EXPECT_EQ(pool.get(simple), twoViews.simplify());
  EXPECT_EQ(pool.get(simple).views.size(), 1u);
  EXPECT_EQ(pool.simplify(simple), simple);
  EXPECT_EQ(pool.simplify(id), simple);
}

TEST(TrackerPool, ReferencesStayValidAsThePoolGrows) {
  TrackerPool pool;
  TrackerId first = pool.fromShape({3});
  const ShapeTracker *address = &pool.get(first);
  for (int64_t n = 4; n < 2000; ++n)
    pool.fromShape({n});
  EXPECT_EQ(address, &pool.get(first));
  EXPECT_EQ(pool.fromShape({3}), first);
  EXPECT_EQ(pool.count(), 1997u);
}

} // namespace
