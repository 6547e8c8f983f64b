//===- SymViewFixtureTest.cpp - Replay tinygrad symbolic-view cases -------===//
//
// Part of lazy-mlir.
//
//===----------------------------------------------------------------------===//
//
// Replays every case recorded by utils/gen_symview_cases.py against tinygrad
// 0.9.2: chains of movement ops with bound Variables in shapes and
// arguments, and compositions of such trackers. Compares every view entry
// (int or node, and the node's DEBUG rendering), the flags, the unbound
// tracker and var_vals, and where tinygrad raised. The grammar is
// documented in the generator's docstring.
//
//===----------------------------------------------------------------------===//

#include "FixtureRecords.h"
#include "lazy/ShapeTracker/SymView.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace lazy::st;
using namespace lazy::st::sym;

#ifndef SYMVIEW_FIXTURE
#error "SYMVIEW_FIXTURE must name the fixture file"
#endif

namespace {

/// Parses an input sint: i<int>, n<int>, v<name>:<lo>:<hi>:<bound>,
/// add(A,B), sub(A,B), mul(A,B).
SInt parseSInt(const std::string &text, size_t &pos) {
  auto rest = [&]() { return text.substr(pos); };
  for (const char *op : {"add(", "sub(", "mul("}) {
    if (rest().rfind(op, 0) == 0) {
      pos += 4;
      SInt a = parseSInt(text, pos);
      ++pos; // ','
      SInt b = parseSInt(text, pos);
      ++pos; // ')'
      std::string o(op);
      return o == "add(" ? a + b : o == "sub(" ? a - b : a * b;
    }
  }
  char tag = text[pos++];
  size_t end = text.find_first_of(",)", pos);
  std::string body = text.substr(
      pos, end == std::string::npos ? std::string::npos : end - pos);
  pos = end == std::string::npos ? text.size() : end;
  if (tag == 'i')
    return std::stoll(body);
  if (tag == 'n')
    return num(std::stoll(body));
  std::vector<std::string> f;
  std::istringstream s(body);
  for (std::string part; std::getline(s, part, ':');)
    f.push_back(part);
  return var(f[0], std::stoll(f[1]), std::stoll(f[2]), std::stoll(f[3]));
}

SInt parseSInt(const std::string &text) {
  size_t pos = 0;
  return parseSInt(text, pos);
}

std::string ent(const SInt &x) {
  return x.isInt() ? "I" + std::to_string(x.getInt())
                   : "N" + x.getNode()->key();
}

std::string viewStr(const SymView &v) {
  std::string s = std::to_string(v.shape.size());
  for (auto &x : v.shape)
    s += " " + ent(x);
  for (auto &x : v.strides)
    s += " " + ent(x);
  s += " " + ent(v.offset);
  if (!v.mask) {
    s += " N";
  } else {
    s += " M";
    for (auto &[b, e] : *v.mask)
      s += " " + ent(b) + " " + ent(e);
  }
  return s + (v.contiguous ? " 1" : " 0");
}

SymShapeTracker applyOp(const SymShapeTracker &st, const std::string &name,
                        const std::vector<std::string> &args) {
  if (name == "permute" || name == "stride") {
    std::vector<int64_t> ints;
    for (auto &a : args)
      ints.push_back(std::stoll(a));
    return name == "permute" ? st.permute(ints) : st.stride(ints);
  }
  if (name == "pad" || name == "shrink") {
    SymMask m;
    for (size_t i = 0; i + 1 < args.size(); i += 2)
      m.push_back({parseSInt(args[i]), parseSInt(args[i + 1])});
    return name == "pad" ? st.pad(m) : st.shrink(m);
  }
  SymShape dims;
  for (auto &a : args)
    dims.push_back(parseSInt(a));
  return name == "reshape" ? st.reshape(dims) : st.expand(dims);
}

std::vector<std::string> record(const SymShapeTracker &st) {
  std::vector<std::string> out;
  for (auto &v : st.views)
    out.push_back("V " + viewStr(v));
  out.push_back("FLAGS " + std::to_string(int(st.contiguous())) + " " +
                std::to_string(st.size()));
  auto [ust, vals] = st.unbind();
  for (auto &v : ust.views)
    out.push_back("UV " + viewStr(v));
  std::string vars = "VARS " + std::to_string(vals.size()) + " ";
  bool first = true;
  for (auto &[k, v] : vals) {
    vars += (first ? "" : " ") + k + " " + std::to_string(v);
    first = false;
  }
  out.push_back(vars);
  return out;
}

struct Case {
  std::string id, kind;
  int line = 0;
  std::vector<std::string> base, base2;
  std::vector<std::pair<std::string, std::vector<std::string>>> ops, ops2;
  std::vector<std::string> expected;
  bool err = false;
};

std::vector<Case> readCases() {
  std::vector<Case> cases;
  lazy::st::testing::forEachRecord(SYMVIEW_FIXTURE, [&](auto &r) {
    std::istringstream &s = r.fields;
    auto rest = [&]() {
      size_t n;
      s >> n;
      std::vector<std::string> fields;
      for (std::string t; s >> t;)
        fields.push_back(t);
      return fields;
    };
    if (r.tag == "CASE") {
      cases.emplace_back();
      s >> cases.back().id >> cases.back().kind;
      cases.back().line = r.lineNo;
    } else if (r.tag == "BASE") {
      cases.back().base = rest();
    } else if (r.tag == "BASE2") {
      cases.back().base2 = rest();
    } else if (r.tag == "OP" || r.tag == "OP2") {
      std::string name;
      s >> name;
      (r.tag == "OP" ? cases.back().ops : cases.back().ops2)
          .push_back({name, rest()});
    } else if (r.tag == "ERR") {
      cases.back().err = true;
    } else if (r.tag != "END") {
      cases.back().expected.push_back(r.line);
    }
  });
  return cases;
}

TEST(SymViewFixture, MatchesTinygrad) {
  std::vector<Case> cases = readCases();
  ASSERT_GT(cases.size(), 1000u) << "cannot read " << SYMVIEW_FIXTURE;
  int compared = 0;
  for (const Case &c : cases) {
    std::string where =
        "case " + c.id + " (line " + std::to_string(c.line) + ")";
    std::vector<std::string> got;
    bool threw = false;
    try {
      auto build = [&](const std::vector<std::string> &base, const auto &ops) {
        SymShape dims;
        for (auto &b : base)
          dims.push_back(parseSInt(b));
        SymShapeTracker st = SymShapeTracker::fromShape(dims);
        for (auto &[name, args] : ops)
          st = applyOp(st, name, args);
        return st;
      };
      SymShapeTracker st = build(c.base, c.ops);
      if (c.kind == "compose")
        st = st + build(c.base2, c.ops2);
      got = record(st);
    } catch (const Error &e) {
      threw = true;
    }
    if (c.err) {
      EXPECT_TRUE(threw) << where << ": tinygrad raised";
      continue;
    }
    if (threw) {
      ADD_FAILURE() << where << ": threw, tinygrad did not";
      continue;
    }
    ++compared;
    EXPECT_EQ(got.size(), c.expected.size()) << where;
    for (size_t i = 0; i < std::min(got.size(), c.expected.size()); ++i)
      EXPECT_EQ(got[i], c.expected[i]) << where;
  }
  EXPECT_GT(compared, 1000);
}

} // namespace
