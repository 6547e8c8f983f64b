//===- ShapeTrackerFixtureTest.cpp - Replay tinygrad reference cases ------===//
//
// Part of lazy-mlir.
//
//===----------------------------------------------------------------------===//
//
// Replays every case recorded by utils/gen_shapetracker_cases.py against
// tinygrad 0.9.2 and compares every recorded field. The grammar of the
// fixture is documented in the generator's docstring.
//
//===----------------------------------------------------------------------===//

#include "FixtureRecords.h"
#include "lazy/ShapeTracker/ShapeTracker.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

using namespace lazy::st;

#ifndef SHAPETRACKER_FIXTURE
#error "SHAPETRACKER_FIXTURE must name the fixture file"
#endif

namespace {

struct Op {
  std::string name;
  std::vector<int64_t> ints; // pad/shrink: flattened (begin, end) pairs
};

struct TrackerRecord {
  std::vector<View> views, mins;
  bool contiguous = false, consecutive = false;
  int64_t size = 0;
  std::vector<std::string> rs, rsi; // "ERR" alone if tinygrad raised
  std::vector<std::string> usa, usai;
  std::vector<int64_t> idx;
  std::string valid;
};

struct Case {
  int id = -1;
  std::string kind;
  int line = 0;
  std::vector<int64_t> base, base2, inv;
  std::vector<Op> ops, ops2;
  std::vector<View> vin;
  std::optional<View> vres;
  bool resultNone = false;
  TrackerRecord result;
};

std::vector<int64_t> readInts(std::istream &in) {
  size_t n = 0;
  in >> n;
  std::vector<int64_t> v(n);
  for (auto &x : v)
    in >> x;
  return v;
}

std::vector<std::string> readStrs(std::istream &in) {
  std::string first;
  in >> first;
  if (first == "ERR")
    return {"ERR"};
  std::vector<std::string> v(std::stoul(first));
  for (auto &x : v)
    in >> x;
  return v;
}

View readView(std::istream &in) {
  size_t n = 0;
  in >> n;
  View v;
  v.shape.resize(n);
  v.strides.resize(n);
  for (auto &x : v.shape)
    in >> x;
  for (auto &x : v.strides)
    in >> x;
  in >> v.offset;
  std::string m;
  in >> m;
  if (m == "M") {
    v.mask = Mask(n);
    for (auto &p : *v.mask)
      in >> p.first >> p.second;
  }
  int c = 0;
  in >> c;
  v.contiguous = c != 0;
  return v;
}

Op readOp(std::istream &in) {
  Op op;
  size_t n = 0;
  in >> op.name >> n;
  if (op.name == "pad" || op.name == "shrink")
    n *= 2;
  op.ints.resize(n);
  for (auto &x : op.ints)
    in >> x;
  return op;
}

const std::vector<Case> &loadCases() {
  static std::vector<Case> cases = [] {
    std::vector<Case> out;
    // The environment may point at another fixture (used to check that a
    // corrupted fixture makes the test fail).
    const char *env = std::getenv("SHAPETRACKER_FIXTURE");
    Case cur;
    bool opened = lazy::st::testing::forEachRecord(
        env ? env : SHAPETRACKER_FIXTURE, [&](auto &rec) {
          std::istringstream &in = rec.fields;
          const std::string &tag = rec.tag, &line = rec.line;
          int lineNo = rec.lineNo;
          TrackerRecord &r = cur.result;
          if (tag == "CASE") {
            cur = Case();
            cur.line = lineNo;
            in >> cur.id >> cur.kind;
          } else if (tag == "BASE") {
            cur.base = readInts(in);
          } else if (tag == "BASE2") {
            cur.base2 = readInts(in);
          } else if (tag == "OP") {
            cur.ops.push_back(readOp(in));
          } else if (tag == "OP2") {
            cur.ops2.push_back(readOp(in));
          } else if (tag == "INV") {
            cur.inv = readInts(in);
          } else if (tag == "VIN") {
            cur.vin.push_back(readView(in));
          } else if (tag == "VRES") {
            if (line.find("NONE") == std::string::npos)
              cur.vres = readView(in);
          } else if (tag == "RESULT") {
            cur.resultNone = line.find("NONE") != std::string::npos;
          } else if (tag == "V") {
            r.views.push_back(readView(in));
          } else if (tag == "MIN") {
            r.mins.push_back(readView(in));
          } else if (tag == "FLAGS") {
            int c, k;
            in >> c >> k >> r.size;
            r.contiguous = c;
            r.consecutive = k;
          } else if (tag == "RS") {
            r.rs = readStrs(in);
          } else if (tag == "RSI") {
            r.rsi = readStrs(in);
          } else if (tag == "USA") {
            r.usa = readStrs(in);
          } else if (tag == "USAI") {
            r.usai = readStrs(in);
          } else if (tag == "IDX") {
            r.idx = readInts(in);
          } else if (tag == "VALID") {
            size_t n;
            in >> n >> r.valid;
            if (r.valid == "-")
              r.valid.clear();
          } else if (tag == "END") {
            out.push_back(cur);
          } else {
            ADD_FAILURE() << "fixture line " << lineNo << ": unknown tag "
                          << tag;
          }
        });
    if (!opened)
      ADD_FAILURE() << "cannot open fixture";
    return out;
  }();
  return cases;
}

Mask pairs(const std::vector<int64_t> &flat) {
  Mask m;
  for (size_t i = 0; i + 1 < flat.size(); i += 2)
    m.push_back({flat[i], flat[i + 1]});
  return m;
}

/// Applies `op` after checking that the check* function accepts it (every
/// recorded op was accepted by tinygrad).
ShapeTracker applyOp(const ShapeTracker &st, const Op &op) {
  const auto &s = st.shape();
  if (op.name == "reshape") {
    EXPECT_EQ(checkReshape(s, op.ints), "");
    return st.reshape(op.ints);
  }
  if (op.name == "pad") {
    EXPECT_EQ(checkPad(s, pairs(op.ints)), "");
    return st.pad(pairs(op.ints));
  }
  if (op.name == "shrink") {
    EXPECT_EQ(checkShrink(s, pairs(op.ints)), "");
    return st.shrink(pairs(op.ints));
  }
  if (op.name == "expand") {
    EXPECT_EQ(checkExpand(s, op.ints), "");
    return st.expand(op.ints);
  }
  if (op.name == "permute") {
    EXPECT_EQ(checkPermute(s, op.ints), "");
    return st.permute(op.ints);
  }
  if (op.name == "stride") {
    EXPECT_EQ(checkStride(s, op.ints), "");
    return st.stride(op.ints);
  }
  ADD_FAILURE() << "unknown op " << op.name;
  return st;
}

ShapeTracker replay(const std::vector<int64_t> &base,
                    const std::vector<Op> &ops) {
  ShapeTracker st = ShapeTracker::fromShape(base);
  for (const Op &op : ops)
    st = applyOp(st, op);
  return st;
}

std::string strideStr(const std::optional<int64_t> &s) {
  return s ? std::to_string(*s) : "N";
}

/// Compares every recorded field of `st` against `r`.
void checkTracker(const ShapeTracker &st, const TrackerRecord &r) {
  ASSERT_EQ(st.views.size(), r.views.size()) << st.str();
  for (size_t i = 0; i < r.views.size(); ++i) {
    EXPECT_EQ(st.views[i], r.views[i])
        << "view " << i << ": got " << st.views[i].str() << " want "
        << r.views[i].str();
    EXPECT_EQ(st.views[i].minify(), r.mins[i])
        << "minify of view " << i << ": got " << st.views[i].minify().str()
        << " want " << r.mins[i].str();
  }
  EXPECT_EQ(st.contiguous(), r.contiguous) << st.str();
  EXPECT_EQ(st.consecutive(), r.consecutive) << st.str();
  EXPECT_EQ(st.size(), r.size) << st.str();
  for (bool ign : {false, true}) {
    const auto &rs = ign ? r.rsi : r.rs;
    const auto &usa = ign ? r.usai : r.usa;
    auto got = st.realStrides(ign);
    auto gotUsa = st.unitStrideAxes(ign);
    if (rs.size() == 1 && rs[0] == "ERR") {
      // tinygrad raised; we must merely return something of the right rank.
      EXPECT_EQ(got.size(), st.shape().size());
      continue;
    }
    ASSERT_EQ(got.size(), rs.size());
    for (size_t i = 0; i < rs.size(); ++i)
      EXPECT_EQ(strideStr(got[i]), rs[i])
          << "real stride " << i << " (ignoreValid=" << ign << ") of "
          << st.str();
    ASSERT_EQ(gotUsa.size(), usa.size()) << st.str();
    for (size_t i = 0; i < usa.size(); ++i)
      EXPECT_EQ(std::to_string(gotUsa[i]), usa[i]);
  }
  // Every element, row major.
  const auto &shape = st.shape();
  ASSERT_EQ(r.idx.size(), r.valid.size());
  ASSERT_EQ(int64_t(r.idx.size()), prod(shape));
  std::vector<int64_t> multi(shape.size(), 0);
  int bad = 0;
  for (size_t e = 0; e < r.idx.size(); ++e) {
    auto [idx, valid] = st.indexAndValid(multi);
    if ((idx != r.idx[e] || valid != (r.valid[e] == '1')) && bad++ < 3)
      ADD_FAILURE() << "element " << e << ": got (" << idx << "," << valid
                    << ") want (" << r.idx[e] << "," << r.valid[e] << ") in "
                    << st.str();
    for (size_t d = shape.size(); d-- > 0;) {
      if (++multi[d] < shape[d])
        break;
      multi[d] = 0;
    }
  }
}

class FixtureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FixtureTest, ReplaysAllCases) {
  const std::string kind = GetParam();
  size_t n = 0;
  for (const Case &c : loadCases()) {
    if (c.kind != kind)
      continue;
    ++n;
    SCOPED_TRACE("case " + std::to_string(c.id) + " (fixture line " +
                 std::to_string(c.line) + ")");
    if (kind == "viewadd") {
      ASSERT_EQ(c.vin.size(), 2u);
      auto got = c.vin[0] + c.vin[1];
      ASSERT_EQ(got.has_value(), c.vres.has_value())
          << c.vin[0].str() << " + " << c.vin[1].str();
      if (got) {
        EXPECT_EQ(*got, *c.vres)
            << "got " << got->str() << " want " << c.vres->str();
      }
      continue;
    }
    ShapeTracker st = replay(c.base, c.ops);
    if (kind == "compose")
      st = st + replay(c.base2, c.ops2);
    if (kind == "invert") {
      auto inv = st.invert(c.inv);
      ASSERT_EQ(inv.has_value(), !c.resultNone) << st.str();
      if (!inv)
        continue;
      st = *inv;
    }
    checkTracker(st, c.result);
    if (::testing::Test::HasFailure())
      return; // one broken case is enough to diagnose
  }
  // Guard against a silently empty or truncated fixture.
  EXPECT_GE(n, 300u) << "too few '" << kind << "' cases in fixture";
}

INSTANTIATE_TEST_SUITE_P(Kinds, FixtureTest,
                         ::testing::Values("chain", "compose", "viewadd",
                                           "invert"),
                         [](const auto &info) { return info.param; });

TEST(FixtureFile, HasEnoughCases) { EXPECT_GE(loadCases().size(), 3000u); }

} // namespace
