//===- ShapeTrackerTest.cpp - Hand-written ShapeTracker tests -------------===//
//
// Part of lazy-mlir.
//
//===----------------------------------------------------------------------===//
//
// Expected values below were taken from tinygrad 0.9.2; the fixture test
// covers the same ground at scale, these pin down one readable example per
// rule and the argument checks.
//
//===----------------------------------------------------------------------===//

#include "lazy/ShapeTracker/ShapeTracker.h"

#include <gtest/gtest.h>

#include <random>

namespace lazy::st {
// Readable gtest output for mismatching views.
void PrintTo(const View &v, std::ostream *os) { *os << v.str(); }
} // namespace lazy::st

using namespace lazy::st;

namespace {

using Strides = std::vector<std::optional<int64_t>>;

View mk(std::vector<int64_t> shape, std::vector<int64_t> strides,
        int64_t offset, std::optional<Mask> mask, bool contiguous) {
  View v;
  v.shape = std::move(shape);
  v.strides = std::move(strides);
  v.offset = offset;
  v.mask = std::move(mask);
  v.contiguous = contiguous;
  return v;
}

TEST(ViewTest, CreateDefaultsToRowMajor) {
  View v = View::create({4, 1, 3});
  EXPECT_EQ(v, mk({4, 1, 3}, {3, 0, 1}, 0, std::nullopt, true));
  EXPECT_EQ(stridesForShape({2, 1, 5}), (std::vector<int64_t>{5, 0, 1}));
  EXPECT_EQ(v.size(), 12);
}

TEST(ViewTest, CreateCanonicalizesSingleIndexMaskDims) {
  View v =
      View::create({3, 4}, std::vector<int64_t>{4, 1}, 0, Mask{{1, 2}, {0, 4}});
  EXPECT_EQ(v, mk({3, 4}, {0, 1}, 4, Mask{{1, 2}, {0, 4}}, false));
  View empty =
      View::create({3, 4}, std::vector<int64_t>{4, 1}, 0, Mask{{1, 1}, {0, 4}});
  EXPECT_EQ(empty, mk({3, 4}, {0, 0}, 0, Mask{{0, 0}, {0, 0}}, false));
  // A full mask is dropped.
  EXPECT_EQ(View::create({3}, std::nullopt, 0, Mask{{0, 3}}),
            View::create({3}));
}

TEST(ViewTest, CreateCollapsesSizeZero) {
  View v = View::create({2, 0, 3}, std::vector<int64_t>{7, 7, 7}, 5,
                        Mask{{0, 1}, {0, 0}, {1, 2}});
  EXPECT_EQ(v, mk({2, 0, 3}, {0, 0, 0}, 0, std::nullopt, true));
}

TEST(ViewTest, Reshape) {
  EXPECT_EQ(View::create({2, 3}).reshape({3, 2}), View::create({3, 2}));
  // A transposed view cannot be flattened in place.
  EXPECT_EQ(View::create({2, 3}).permute({1, 0}).reshape({6}), std::nullopt);
  // Splitting a transposed dim works.
  auto split = View::create({4, 6}).permute({1, 0}).reshape({2, 3, 4});
  ASSERT_TRUE(split);
  EXPECT_EQ(*split, mk({2, 3, 4}, {3, 1, 6}, 0, std::nullopt, false));
}

TEST(ViewTest, PadShrinkExpand) {
  EXPECT_EQ(View::create({3}).pad({{1, 1}}),
            mk({5}, {1}, -1, Mask{{1, 4}}, false));
  EXPECT_EQ(View::create({4, 5}).shrink({{1, 3}, {2, 5}}),
            mk({2, 3}, {5, 1}, 7, std::nullopt, false));
  EXPECT_EQ(View::create({1, 3}).expand({4, 3}),
            mk({4, 3}, {0, 1}, 0, std::nullopt, false));
  EXPECT_EQ(View::create({3}).pad({{0, 0}}), View::create({3}));
}

TEST(ViewTest, StrideAndFlip) {
  EXPECT_EQ(View::create({5}).stride({-2}),
            mk({3}, {-2}, 4, std::nullopt, false));
  EXPECT_EQ(View::create({4, 6}).stride({2, -3}),
            mk({2, 2}, {12, -3}, 5, std::nullopt, false));
}

TEST(ViewTest, Minify) {
  EXPECT_EQ(View::create({2, 3, 4}).permute({1, 0, 2}).minify(),
            mk({3, 2, 4}, {4, 12, 1}, 0, std::nullopt, false));
  EXPECT_EQ(View::create({2, 3, 4}).minify(), View::create({24}));
}

TEST(ViewTest, Add) {
  View v2 = View::create({4, 4}).shrink({{1, 3}, {0, 4}});
  View v1 = View::create({2, 4}).permute({1, 0});
  EXPECT_EQ(v2 + v1, mk({4, 2}, {1, 4}, 4, std::nullopt, false));
  View p = View::create({4}).pad({{1, 1}});
  EXPECT_EQ(p + View::create({6}).shrink({{1, 5}}), View::create({4}));
  // Transpose followed by a flatten is not a single view.
  EXPECT_EQ(View::create({2, 3}).permute({1, 0}) +
                View::create({3, 2}).reshape({6}).value(),
            std::nullopt);
}

TEST(ViewTest, Str) {
  EXPECT_EQ(View::create({3}).pad({{1, 1}}).str(),
            "V(shape=(5,), strides=(1,), offset=-1, mask=((1,4),), "
            "contiguous=False)");
  EXPECT_EQ(View::create({}).str(),
            "V(shape=(), strides=(), offset=0, mask=None, contiguous=True)");
}

TEST(ShapeTrackerTest, MaskedWhenAnyViewHasAMask) {
  ShapeTracker plain = ShapeTracker::fromShape({2, 3}).permute({1, 0});
  EXPECT_FALSE(plain.masked());
  ShapeTracker padded = ShapeTracker::fromShape({2, 3}).pad({{0, 0}, {1, 1}});
  EXPECT_TRUE(padded.masked());
  // A mask on the inner view of two still masks.
  ShapeTracker twoViews = padded.permute({1, 0}).reshape({10});
  ASSERT_EQ(twoViews.views.size(), 2u);
  EXPECT_TRUE(twoViews.masked());
}

TEST(ShapeTrackerTest, ReshapeAppendsViewWhenNeeded) {
  ShapeTracker st =
      ShapeTracker::fromShape({2, 3}).permute({1, 0}).reshape({6});
  ASSERT_EQ(st.views.size(), 2u);
  EXPECT_EQ(st.views[0], mk({3, 2}, {1, 3}, 0, std::nullopt, false));
  EXPECT_EQ(st.views[1], View::create({6}));
  EXPECT_FALSE(st.contiguous());
  EXPECT_FALSE(st.consecutive());
  EXPECT_EQ(st.realStrides(), (Strides{std::nullopt}));
  std::vector<int64_t> got;
  for (int64_t i = 0; i < 6; ++i) {
    auto [idx, valid] = st.indexAndValid({i});
    EXPECT_TRUE(valid);
    got.push_back(idx);
  }
  EXPECT_EQ(got, (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
}

TEST(ShapeTrackerTest, RealStridesAndValidity) {
  ShapeTracker st = ShapeTracker::fromShape({4, 4}).pad({{1, 1}, {0, 0}});
  EXPECT_EQ(st.realStrides(), (Strides{std::nullopt, 1}));
  EXPECT_EQ(st.realStrides(true), (Strides{4, 1}));
  EXPECT_EQ(st.unitStrideAxes(), (std::vector<int64_t>{1}));
  EXPECT_EQ(st.unitStrideAxes(true), (std::vector<int64_t>{1}));
  EXPECT_EQ(st.indexAndValid({0, 2}), (std::pair<int64_t, bool>{-2, false}));
  EXPECT_EQ(st.indexAndValid({1, 2}), (std::pair<int64_t, bool>{2, true}));
  EXPECT_EQ(st.indexAndValid({5, 3}), (std::pair<int64_t, bool>{19, false}));
}

// Each case's validity as tinygrad 0.9.2's expr_idxs prints it.
TEST(ShapeTrackerTest, AffineValidity) {
  auto conditions = [](const ShapeTracker &st) { return st.affineValidity(); };
  // (((idx0*-1)<0) and (idx0<4) and (idx1<4)): a pad.
  ShapeTracker pad = ShapeTracker::fromShape({3, 4}).pad({{1, 1}, {0, 2}});
  auto padded = conditions(pad);
  ASSERT_TRUE(padded);
  ASSERT_EQ(padded->size(), 3u);
  EXPECT_EQ((*padded)[0].coeffs, (std::vector<int64_t>{-1, 0}));
  EXPECT_EQ((*padded)[0].constant, 0);
  EXPECT_EQ((*padded)[1].coeffs, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ((*padded)[1].constant, -4);
  EXPECT_EQ((*padded)[2].coeffs, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ((*padded)[2].constant, -4);
  // ((idx1*-1)+(idx3*-1))<-16382: the fused arange of a 16384-row gather.
  ShapeTracker arange;
  arange.views = {View::create({16385, 32767}, std::vector<int64_t>{0, 0}, 0,
                               Mask{{0, 16385}, {16383, 32767}}),
                  View::create({4, 16384, 256, 16384},
                               std::vector<int64_t>{0, 1, 0, 32768}, 0,
                               std::nullopt)};
  auto counted = conditions(arange);
  ASSERT_TRUE(counted);
  ASSERT_EQ(counted->size(), 1u);
  EXPECT_EQ((*counted)[0].coeffs, (std::vector<int64_t>{0, -1, 0, -1}));
  EXPECT_EQ((*counted)[0].constant, 16382);
  // A column mask under a flattening reshape: tinygrad's validity keeps
  // (idx0%4) (as in ((idx0%4)*-1)<0 and (idx0%4)<3), no affine form.
  ShapeTracker inner = ShapeTracker::fromShape({4, 4})
                           .pad({{0, 0}, {1, 1}})
                           .shrink({{0, 4}, {0, 4}})
                           .reshape({16});
  EXPECT_FALSE(conditions(inner)) << inner.str();
  // tinygrad's tril (16 x 16, diagonal 1): a padded row reshaped so each
  // row starts one further along. tinygrad's validity keeps
  // a remainder by 62. Reduced, the flat index is 61 - idx0 + idx1 mod 62,
  // within [46, 76]: it meets the valid run [0, 31) of the period only in
  // [62, 93), so the element is valid where idx0 - idx1 < 0.
  ShapeTracker tril;
  tril.views = {
      View::create({31, 62}, std::vector<int64_t>{0, 0}, 0,
                   Mask{{0, 31}, {0, 31}}),
      View::create({16, 16}, std::vector<int64_t>{61, 1}, 61, std::nullopt)};
  auto triangle = conditions(tril);
  ASSERT_TRUE(triangle) << tril.str();
  ASSERT_EQ(triangle->size(), 1u);
  EXPECT_EQ((*triangle)[0].coeffs, (std::vector<int64_t>{1, -1}));
  EXPECT_EQ((*triangle)[0].constant, 0);
  for (int64_t i = 0; i < 16; ++i)
    for (int64_t j = 0; j < 16; ++j)
      EXPECT_EQ(tril.indexAndValid({i, j}).second, i - j < 0) << i << "," << j;
  // The same remainder over a range of more than two periods keeps it.
  ShapeTracker wide;
  wide.views = {
      View::create({31, 62}, std::vector<int64_t>{0, 0}, 0,
                   Mask{{0, 31}, {0, 31}}),
      View::create({16, 200}, std::vector<int64_t>{61, 1}, 61, std::nullopt)};
  EXPECT_FALSE(conditions(wide)) << wide.str();
  // Unmasked: no condition.
  auto plain = conditions(ShapeTracker::fromShape({2, 3}).permute({1, 0}));
  ASSERT_TRUE(plain);
  EXPECT_TRUE(plain->empty());
}

TEST(ShapeTrackerTest, ConsecutiveVsContiguous) {
  ShapeTracker st = ShapeTracker::fromShape({4, 4}).shrink({{1, 2}, {0, 4}});
  EXPECT_FALSE(st.contiguous());
  EXPECT_TRUE(st.consecutive());
  EXPECT_TRUE(ShapeTracker::fromShape({4, 4}).contiguous());
}

TEST(ShapeTrackerTest, Invert) {
  ShapeTracker st =
      ShapeTracker::fromShape({3, 4}).permute({1, 0}).stride({1, -1});
  auto inv = st.invert({3, 4});
  ASSERT_TRUE(inv);
  ASSERT_EQ(inv->views.size(), 1u);
  EXPECT_EQ(inv->views[0], mk({3, 4}, {-1, 3}, 2, std::nullopt, false));
  // An expand cannot be inverted.
  EXPECT_EQ(ShapeTracker::fromShape({1, 4}).expand({3, 4}).invert({1, 4}),
            std::nullopt);
}

TEST(ShapeTrackerTest, Compose) {
  ShapeTracker a = ShapeTracker::fromShape({2, 3}).permute({1, 0});
  ShapeTracker b = ShapeTracker::fromShape({3, 2}).reshape({6});
  EXPECT_EQ(a + b,
            ShapeTracker::fromShape({2, 3}).permute({1, 0}).reshape({6}));
  // Composing with the identity changes nothing.
  EXPECT_EQ(a + ShapeTracker::fromShape(a.shape()), a);
}

TEST(ShapeTrackerTest, SizeZero) {
  ShapeTracker st = ShapeTracker::fromShape({2, 0, 3}).reshape({0, 5});
  EXPECT_EQ(st.views.size(), 1u);
  EXPECT_EQ(st.views[0], mk({0, 5}, {0, 0}, 0, std::nullopt, true));
  EXPECT_EQ(st.size(), 0);
  // A size-0 multi-view tracker: tinygrad raises in real_strides; we return
  // unknown strides instead.
  ShapeTracker multi =
      ShapeTracker::fromShape({2, 3}).permute({1, 0}).reshape({6}).shrink(
          {{2, 2}});
  EXPECT_EQ(multi.realStrides(), (Strides{std::nullopt}));
}

TEST(CheckTest, Messages) {
  EXPECT_EQ(checkPermute({2, 3, 4}, {0, 2, 1}), "");
  EXPECT_EQ(checkPermute({2, 3, 4}, {0, 0, 1}),
            "permute axes must be a permutation of 0..2, got (0,0,1)");
  EXPECT_EQ(checkPermute({2, 3}, {0}),
            "permute axes must be a permutation of 0..1, got (0,)");
  EXPECT_EQ(checkPad({2, 3}, {{0, 1}, {2, 0}}), "");
  EXPECT_EQ(checkPad({2, 3}, {{0, 1}, {-1, 0}}),
            "pad must be non-negative, got (-1,0) for dim 1");
  EXPECT_EQ(checkPad({2, 3}, {{0, 1}}), "pad argument must have rank 2, got 1");
  EXPECT_EQ(checkShrink({4}, {{1, 3}}), "");
  EXPECT_EQ(checkShrink({4}, {{3, 1}}),
            "shrink range (3,1) must satisfy 0 <= begin <= end <= 4 for dim 0");
  EXPECT_EQ(checkShrink({4}, {{0, 5}}),
            "shrink range (0,5) must satisfy 0 <= begin <= end <= 4 for dim 0");
  EXPECT_EQ(checkReshape({2, 3}, {3, 2}), "");
  EXPECT_EQ(checkReshape({2, 3}, {4, 2}),
            "reshape must preserve the number of elements: (2,3) has 6, (4,2) "
            "has 8");
  EXPECT_EQ(checkReshape({2, 3}, {-6, -1}),
            "reshape dims must be non-negative, got (-6,-1)");
  EXPECT_EQ(checkExpand({1, 3}, {4, 3}), "");
  EXPECT_EQ(checkExpand({2, 3}, {4, 3}),
            "cannot expand (2,3) to (4,3): dim 0 must be 1 or unchanged");
  EXPECT_EQ(checkExpand({2, 3}, {2}),
            "expand argument must have rank 2, got 1");
  EXPECT_EQ(checkStride({2, 3}, {1, -2}), "");
  EXPECT_EQ(checkStride({2, 3}, {1, 0}),
            "stride must be non-zero (and > INT64_MIN), got 0 for dim 1");
  EXPECT_NE(checkReshape({int64_t(1) << 40, int64_t(1) << 40}, {1}), "");
  EXPECT_EQ(checkView({2, 3}, {3, 1}, Mask{{0, 2}, {1, 3}}), "");
  EXPECT_EQ(checkView({2, 3}, {3}, std::nullopt),
            "view strides must have rank 2, got 1");
  EXPECT_EQ(
      checkView({2, 3}, {3, 1}, Mask{{0, 2}, {1, 4}}),
      "view mask range (1,4) must satisfy 0 <= begin <= end <= 3 for dim 1");
}

/// Random op chains on shapes larger than the fixture uses, including ops
/// that fail their checks: nothing may crash, views stay consistent and
/// every element's index stays reproducible after simplification.
TEST(ShapeTrackerTest, RandomChainsNeverCrash) {
  std::mt19937 rng(42);
  auto rnd = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  for (int iter = 0; iter < 2000; ++iter) {
    std::vector<int64_t> shape(rnd(0, 4));
    for (auto &s : shape)
      s = rnd(0, 5);
    ShapeTracker st = ShapeTracker::fromShape(shape);
    for (int k = 0; k < 8; ++k) {
      const auto &sh = st.shape();
      size_t n = sh.size();
      switch (rnd(0, 5)) {
      case 0: {
        std::vector<int64_t> ns;
        int64_t total = prod(sh);
        for (int64_t f = 2; f <= 7; ++f)
          while (total % f == 0 && total > 1 && rnd(0, 3)) {
            ns.push_back(f);
            total /= f;
          }
        if (total != 1)
          ns.push_back(total);
        if (checkReshape(sh, ns).empty())
          st = st.reshape(ns);
        break;
      }
      case 1: {
        Mask m(n);
        for (auto &p : m)
          p = {rnd(-1, 2), rnd(0, 2)};
        if (checkPad(sh, m).empty() && prod(sh) < 5000)
          st = st.pad(m);
        break;
      }
      case 2: {
        Mask m(n);
        for (size_t i = 0; i < n; ++i)
          m[i] = {rnd(0, 2), sh[i] - rnd(0, 2)};
        if (checkShrink(sh, m).empty())
          st = st.shrink(m);
        break;
      }
      case 3: {
        std::vector<int64_t> ns = sh;
        for (auto &s : ns)
          if (s == 1)
            s = rnd(1, 4);
        if (checkExpand(sh, ns).empty() && prod(ns) < 5000)
          st = st.expand(ns);
        break;
      }
      case 4: {
        std::vector<int64_t> axes(n);
        for (size_t i = 0; i < n; ++i)
          axes[i] = int64_t(i);
        std::shuffle(axes.begin(), axes.end(), rng);
        if (rnd(0, 5) == 0 && n)
          axes[0] = 7;
        if (checkPermute(sh, axes).empty())
          st = st.permute(axes);
        break;
      }
      default: {
        std::vector<int64_t> mul(n);
        for (auto &m : mul)
          m = rnd(-3, 3);
        if (checkStride(sh, mul).empty())
          st = st.stride(mul);
      }
      }
    }
    ASSERT_FALSE(st.views.empty());
    (void)st.realStrides();
    (void)st.realStrides(true);
    (void)st.invert(shape);
    ShapeTracker composed = ShapeTracker::fromShape(shape) + st;
    ASSERT_EQ(composed.shape(), st.shape());
    ASSERT_EQ(st.simplify().shape(), st.shape());
    // Simplification must not change any valid element's index, and an
    // affine validity holds exactly on the valid elements.
    if (prod(st.shape()) <= 64) {
      std::vector<int64_t> idx(st.shape().size(), 0);
      ShapeTracker simple = st.simplify();
      auto affine = st.affineValidity();
      for (int64_t e = 0; e < prod(st.shape()); ++e) {
        auto a = st.indexAndValid(idx), b = composed.indexAndValid(idx);
        auto c = simple.indexAndValid(idx);
        if (affine) {
          bool holds = true;
          for (const AffineCondition &cond : *affine) {
            int64_t value = cond.constant;
            for (size_t d = 0; d < idx.size(); ++d)
              value += cond.coeffs[d] * idx[d];
            holds = holds && value < 0;
          }
          ASSERT_EQ(holds, a.second) << st.str();
        }
        ASSERT_EQ(a.second, c.second) << st.str();
        ASSERT_EQ(a.second, b.second) << st.str() << " vs " << composed.str();
        if (a.second) {
          ASSERT_EQ(a.first, c.first) << st.str();
          ASSERT_EQ(a.first, b.first) << st.str() << " vs " << composed.str();
        }
        for (size_t d = idx.size(); d-- > 0;) {
          if (++idx[d] < st.shape()[d])
            break;
          idx[d] = 0;
        }
      }
    }
  }
}

/// Whether every aligned run of `width` along `axis` really is contiguous
/// with one validity, element by element.
bool runsHoldEverywhere(const ShapeTracker &st, size_t axis, int64_t width) {
  std::vector<int64_t> idx(st.shape().size(), 0);
  for (int64_t e = 0, n = st.size(); e < n; ++e) {
    if (idx[axis] % width != 0 || idx[axis] + width > st.shape()[axis]) {
      // only runs' first elements start a check
    } else {
      auto [first, valid] = st.indexAndValid(idx);
      std::vector<int64_t> at = idx;
      for (int64_t l = 1; l < width; ++l) {
        at[axis] = idx[axis] + l;
        auto [index, ok] = st.indexAndValid(at);
        if (ok != valid || (valid && index != first + l))
          return false;
      }
    }
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < st.shape()[d])
        break;
      idx[d] = 0;
    }
  }
  return true;
}

TEST(ShapeTrackerTest, ContiguousRuns) {
  ShapeTracker plain = ShapeTracker::fromShape({4, 32});
  EXPECT_TRUE(plain.contiguousRuns(1, 16));
  EXPECT_FALSE(plain.contiguousRuns(0, 2)); // stride 32
  // Attention heads merged back: (8, 4, 64, 32) -> (8, 64, 4, 32) ->
  // (8, 64, 128), two views, no real stride along the merged axis.
  ShapeTracker heads = ShapeTracker::fromShape({8, 4, 64, 32})
                           .permute({0, 2, 1, 3})
                           .reshape({8, 64, 128});
  ASSERT_EQ(heads.views.size(), 2u);
  EXPECT_FALSE(heads.realStrides()[2].has_value());
  EXPECT_TRUE(heads.contiguousRuns(2, 16));
  EXPECT_TRUE(heads.contiguousRuns(2, 32));
  EXPECT_TRUE(runsHoldEverywhere(heads, 2, 32));
  EXPECT_FALSE(heads.contiguousRuns(2, 64)); // a run crosses two heads
  EXPECT_FALSE(runsHoldEverywhere(heads, 2, 64));
  // A pad of 1 cuts the runs' validity; a pad of 16 keeps it whole.
  EXPECT_FALSE(plain.pad({{0, 0}, {1, 0}}).contiguousRuns(1, 16));
  ShapeTracker padded = plain.pad({{0, 0}, {16, 16}});
  EXPECT_TRUE(padded.contiguousRuns(1, 16));
  EXPECT_TRUE(runsHoldEverywhere(padded, 1, 16));
  EXPECT_TRUE(plain.contiguousRuns(1, 1));
}

} // namespace
