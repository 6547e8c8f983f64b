//===- SymbolicFixtureTest.cpp - Replay tinygrad symbolic cases -----------===//
//
// Part of lazy-mlir.
//
//===----------------------------------------------------------------------===//
//
// Replays every program recorded by utils/gen_symbolic_cases.py against
// tinygrad 0.9.2's symbolic module and compares every result: whether it is
// an int or a node, its value or bounds and DEBUG rendering, and where
// tinygrad raised. The grammar is documented in the generator's docstring.
//
//===----------------------------------------------------------------------===//

#include "FixtureRecords.h"
#include "lazy/ShapeTracker/Symbolic.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace lazy::st::sym;

#ifndef SYMBOLIC_FIXTURE
#error "SYMBOLIC_FIXTURE must name the fixture file"
#endif

namespace {

SInt apply(const std::string &op, const std::vector<SInt> &args,
           std::string &rendered) {
  auto node = [&](size_t i) {
    if (!args[i].isNode())
      throw Error{"not a node"};
    return args[i].getNode();
  };
  if (op == "add")
    return args[0] + args[1];
  if (op == "sub")
    return args[0] - args[1];
  if (op == "mul")
    return args[0] * args[1];
  if (op == "fdiv")
    return floordiv(args[0], args[1]);
  if (op == "mod")
    return mod(args[0], args[1]);
  if (op == "lt")
    return lt(args[0], args[1]);
  if (op == "le")
    return le(args[0], args[1]);
  if (op == "gt")
    return gt(args[0], args[1]);
  if (op == "ge")
    return ge(args[0], args[1]);
  if (op == "eq")
    return int64_t(eq(args[0], args[1]));
  if (op == "max")
    return pymax(args[0], args[1]);
  if (op == "min")
    return pymin(args[0], args[1]);
  if (op == "neg")
    return -args[0];
  if (op == "bool")
    return int64_t(truthy(args[0]));
  if (op == "render") {
    rendered = render(args[0]);
    return args[0];
  }
  if (op == "sum" || op == "ands") {
    std::vector<NodeP> nodes;
    for (size_t i = 0; i < args.size(); ++i)
      nodes.push_back(node(i));
    return op == "sum" ? sum(nodes) : ands(nodes);
  }
  if (op == "clt")
    return createLt(node(0), args[1]);
  if (op == "cge")
    return createGe(node(0), args[1]);
  if (op == "unbind")
    return unbind(node(0));
  if (op == "subst") {
    std::map<std::string, NodeP> vars;
    collectVars(node(0), vars);
    if (vars.empty())
      return args[0];
    auto first = vars.begin();
    return substitute(node(0),
                      {{first->first, num(first->second->min.getInt())}});
  }
  ADD_FAILURE() << "unknown op " << op;
  return 0;
}

std::string describe(const SInt &v) {
  if (v.isInt())
    return "I " + std::to_string(v.getInt());
  // Python's str() of a bound: a node renders as <key>.
  auto str = [](const SInt &x) {
    return x.isInt() ? std::to_string(x.getInt())
                     : "<" + x.getNode()->key() + ">";
  };
  return "N " + str(v.min()) + " " + str(v.max()) + " " + v.getNode()->key();
}

TEST(SymbolicFixture, MatchesTinygrad) {
  std::string caseId, lastOp;
  std::vector<SInt> regs;
  std::string rendered;
  bool threw = false, pending = false;
  std::optional<SInt> result;
  int cases = 0, checked = 0;
  bool opened =
      lazy::st::testing::forEachRecord(SYMBOLIC_FIXTURE, [&](auto &r) {
        std::istringstream &s = r.fields;
        const std::string &tag = r.tag, &line = r.line;
        std::string where =
            "case " + caseId + " line " + std::to_string(r.lineNo);
        if (tag == "CASE") {
          s >> caseId;
          regs.clear();
          ++cases;
        } else if (tag == "I" || tag == "N") {
          int64_t v;
          s >> v;
          regs.push_back(tag == "I" ? SInt(v) : SInt(num(v)));
        } else if (tag == "V") {
          std::string name, bound;
          int64_t lo, hi;
          s >> name >> lo >> hi >> bound;
          std::optional<int64_t> b;
          if (bound != "-")
            b = std::stoll(bound);
          regs.push_back(SInt(var(name, lo, hi, b)));
        } else if (tag == "O") {
          s >> lastOp;
          std::vector<SInt> args;
          size_t r;
          while (s >> r)
            args.push_back(regs.at(r));
          threw = false;
          result.reset();
          try {
            result = apply(lastOp, args, rendered);
          } catch (const Error &) {
            threw = true;
          }
          pending = true;
        } else if (tag == "=") {
          ASSERT_TRUE(pending) << where;
          pending = false;
          std::string kind;
          s >> kind;
          ++checked;
          if (kind == "ERR") {
            EXPECT_TRUE(threw) << where << ": " << lastOp << " gave "
                               << describe(*result) << ", tinygrad raised";
            return;
          }
          if (threw) {
            ADD_FAILURE() << where << ": " << lastOp << " threw, tinygrad gave "
                          << line;
            // Keep register numbering aligned with the fixture.
            regs.push_back(0);
            return;
          }
          if (kind == "R") {
            std::string text;
            std::getline(s >> std::ws, text);
            EXPECT_EQ(rendered, text) << where;
            return;
          }
          std::string rest;
          std::getline(s >> std::ws, rest);
          EXPECT_EQ(describe(*result), kind + " " + rest)
              << where << " " << lastOp;
          regs.push_back(*result);
        }
      });
  ASSERT_TRUE(opened) << "cannot open " << SYMBOLIC_FIXTURE;
  EXPECT_GT(cases, 1000);
  EXPECT_GT(checked, 10000);
}

} // namespace
