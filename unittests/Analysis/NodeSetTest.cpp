//===- NodeSetTest.cpp - the scheduler's ordered node sets ----------------===//

#include "lazy/Dialect/Lazy/Analysis/NodeSet.h"

#include <gtest/gtest.h>

using mlir::lazy::NodeId;
using mlir::lazy::NodeSet;

namespace {

std::vector<NodeId> members(const NodeSet &set) {
  return std::vector<NodeId>(set.begin(), set.end());
}

TEST(NodeSet, KeepsFirstInsertionOrder) {
  NodeSet set;
  EXPECT_TRUE(set.insert(5));
  EXPECT_TRUE(set.insert(2));
  EXPECT_FALSE(set.insert(5));
  EXPECT_TRUE(set.insert(9));
  EXPECT_EQ(members(set), (std::vector<NodeId>{5, 2, 9}));
  EXPECT_EQ(set.size(), 3u);
  EXPECT_EQ(set.front(), 5);
  EXPECT_EQ(set.back(), 9);
  EXPECT_EQ(set[1], 2);
}

// Past a few members the set switches from searching to a bit per node:
// membership, order and duplicates must not change at the switch.
TEST(NodeSet, LargeSetsAnswerAsSmallOnes) {
  NodeSet set;
  std::vector<NodeId> want;
  for (NodeId id = 1000; id >= 0; id -= 7) {
    EXPECT_TRUE(set.insert(id));
    want.push_back(id);
    EXPECT_FALSE(set.insert(id));
  }
  EXPECT_EQ(members(set), want);
  for (NodeId id = 0; id <= 1100; ++id)
    EXPECT_EQ(set.contains(id), id <= 1000 && (1000 - id) % 7 == 0) << id;
  EXPECT_FALSE(set.contains(1 << 20));
}

TEST(NodeSet, RemoveKeepsTheOthersInOrder) {
  for (size_t n : {4u, 40u}) { // searched, then bitmap
    NodeSet set;
    for (NodeId id = 0; id < NodeId(n); ++id)
      set.insert(id * 3);
    EXPECT_TRUE(set.remove(3));
    EXPECT_FALSE(set.remove(3));
    EXPECT_FALSE(set.remove(1));
    EXPECT_FALSE(set.contains(3));
    EXPECT_EQ(set.size(), n - 1);
    EXPECT_EQ(set[0], 0);
    EXPECT_EQ(set[1], 6);
    // A removed node can come back, at the end.
    EXPECT_TRUE(set.insert(3));
    EXPECT_EQ(set.back(), 3);
  }
}

TEST(NodeSet, InitializerListAndRanges) {
  NodeSet set = {4, 4, 1};
  EXPECT_EQ(members(set), (std::vector<NodeId>{4, 1}));
  std::vector<NodeId> more = {1, 7, 4, 8};
  set.insert(more.begin(), more.end());
  EXPECT_EQ(members(set), (std::vector<NodeId>{4, 1, 7, 8}));
  EXPECT_EQ(set.count(7), 1u);
  EXPECT_EQ(set.count(2), 0u);
  EXPECT_TRUE(NodeSet().empty());
}

} // namespace
