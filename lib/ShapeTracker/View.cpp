//===- View.cpp - A single strided, masked view of a buffer ---------------===//
//
// Part of lazy-mlir. Plain C++17, no MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//
//
// An independent implementation of tinygrad 0.9.2's View algebra for integer
// shapes. Canonicalization rules applied by View::create, in order:
//
//  1. Strides default to row-major; a dimension of size 1 always gets
//     stride 0 (its index is always 0, so its stride is meaningless and
//     zeroing it makes equal views compare equal).
//  2. Any size-0 dimension collapses the view to shape/zero strides, offset
//     0, no mask, contiguous: there are no elements to describe.
//  3. A mask covering every dimension completely is dropped.
//  4. A mask dimension admitting at most one index gets stride 0, with the
//     offset absorbing `stride * begin`. If some mask dimension is empty,
//     every element is invalid: strides become 0, offset 0 and the mask all
//     (0,0), so all fully-masked views of a shape are equal.
//  5. `contiguous` holds iff offset is 0, there is no mask and the strides
//     are the row-major ones.
//
// Reshape first merges dimensions that are laid out contiguously (or are
// broadcast), then splits the merged dims into the requested ones; masks are
// reshaped separately and the result is rejected (nullopt) when a mask would
// be cut across. View composition (operator+) projects the later view's
// offset and strides through the earlier view's shape, merging earlier dims
// only when an index of the later view wraps across them.
//
//===----------------------------------------------------------------------===//

#include "lazy/ShapeTracker/View.h"
#include "Arith.h"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>
#include <sstream>

using namespace lazy::st;
using lazy::st::detail::ceilDiv;
using lazy::st::detail::floorDiv;
using lazy::st::detail::floorMod;

namespace {

/// Deepest recursion View composition may use. tinygrad itself recurses
/// here a handful of times at most; the cap only guarantees termination.
constexpr int kMaxAddDepth = 64;

bool hasZero(const std::vector<int64_t> &v) {
  return std::find(v.begin(), v.end(), 0) != v.end();
}

/// Zero the stride of every dim of extent 1 (`extent` is either the shape or
/// the mask extents, as the caller needs).
std::vector<int64_t> canonicalizeStrides(const std::vector<int64_t> &extent,
                                         std::vector<int64_t> strides) {
  for (size_t i = 0; i < strides.size() && i < extent.size(); ++i)
    if (extent[i] == 1)
      strides[i] = 0;
  return strides;
}

/// (merged size, stride, merged size ignoring broadcast dims) per group of
/// dims that can be merged: either contiguous, or following a dim that only
/// takes a single (masked or size-1) index.
std::vector<std::array<int64_t, 3>>
mergeDims(const std::vector<int64_t> &shape,
          const std::vector<int64_t> &strides,
          const std::optional<Mask> &mask) {
  std::vector<std::array<int64_t, 3>> ret;
  if (shape.empty())
    return ret;
  ret.push_back({shape[0], strides[0], strides[0] ? shape[0] : 0});
  bool merging =
      mask ? ((*mask)[0].second - (*mask)[0].first == 1) : shape[0] == 1;
  for (size_t i = 1; i < shape.size(); ++i) {
    int64_t s = shape[i], st = strides[i];
    auto &last = ret.back();
    if (s == 1)
      continue;
    if (merging || last[1] == s * st) {
      int64_t real = st ? (merging ? s : last[2] * s) : 0;
      last = {last[0] * s, st, real};
    } else {
      ret.push_back({s, st, st ? s : 0});
    }
    merging = mask ? ((*mask)[i].second - (*mask)[i].first == 1) : s == 1;
  }
  return ret;
}

/// The mask of `oldShape` expressed over `newShape`, or nullopt when the
/// reshape would cut a masked region into pieces not expressible as a box.
std::optional<Mask> reshapeMask(const std::optional<Mask> &mask,
                                const std::vector<int64_t> &oldShape,
                                const std::vector<int64_t> &newShape) {
  if (!mask) {
    Mask full;
    for (int64_t s : newShape)
      full.push_back({0, s});
    return full;
  }
  const Mask zeroMask(newShape.size(), {0, 0});
  for (auto &m : *mask)
    if (m.second - m.first < 1)
      return zeroMask;

  // Walk all three sequences from the innermost dim outwards; exhausted
  // sequences continue with neutral size-1 dims.
  size_t remMask = mask->size(), remOld = oldShape.size(),
         remNew = newShape.size();
  auto nextOld = [&]() -> int64_t { return remOld ? oldShape[--remOld] : 1; };
  auto nextNew = [&]() -> int64_t { return remNew ? newShape[--remNew] : 1; };
  auto nextMask = [&]() -> std::pair<int64_t, int64_t> {
    return remMask ? (*mask)[--remMask] : std::pair<int64_t, int64_t>{0, 1};
  };

  Mask newMask;
  int64_t currStride = 1, oldDim = nextOld(), newDim = nextNew();
  std::pair<int64_t, int64_t> cur = nextMask();
  // Every iteration consumes a new dim or an old dim; once both are used up
  // only size-1 dims remain, so this bound is never reached for valid input.
  size_t budget = 4 * (oldShape.size() + newShape.size()) + 16;
  while (newMask.size() < newShape.size()) {
    if (budget-- == 0)
      return std::nullopt;
    auto [l, r] = cur;
    int64_t nextStride = newDim * currStride;
    if (nextStride == 0)
      return std::nullopt;
    if (oldDim >= nextStride) {
      if (oldDim == nextStride) {
        newMask.push_back(
            {floorDiv(l, currStride), floorDiv(r - 1, currStride) + 1});
        currStride = 1;
        oldDim = nextOld();
        newDim = nextNew();
        cur = nextMask();
      } else {
        // A split is only possible if the mask does not straddle a boundary
        // of the new inner dim.
        bool cut =
            (floorMod(l, nextStride) != 0 || floorMod(r, nextStride) != 0) &&
            floorDiv(l, nextStride) != floorDiv(r - 1, nextStride);
        if (cut || floorMod(oldDim, nextStride) != 0)
          return std::nullopt;
        newMask.push_back(
            {floorDiv(floorMod(l, nextStride), currStride),
             floorDiv(floorMod(r - 1, nextStride), currStride) + 1});
        currStride = nextStride;
        newDim = nextNew();
      }
    } else {
      // Merge the next old dim in; only possible if the current mask covers
      // its whole dim or the outer mask admits a single index.
      auto next = nextMask();
      if (cur != std::pair<int64_t, int64_t>{0, oldDim} &&
          next.second - next.first != 1)
        return std::nullopt;
      cur = {next.first * oldDim + l, (next.second - 1) * oldDim + r};
      oldDim = oldDim * nextOld();
    }
  }
  // Leading old dims left over are size 1; anything but a full mask on them
  // means no element is valid.
  while (remMask)
    if (nextMask() != std::pair<int64_t, int64_t>{0, 1})
      return zeroMask;
  std::reverse(newMask.begin(), newMask.end());
  return newMask;
}

/// Unflatten `offs` over `shape` using its canonical strides (size-1 dims
/// read 0). Offsets may be negative, hence floor division.
std::vector<int64_t> un1d(const std::vector<int64_t> &shape, int64_t offs) {
  std::vector<int64_t> result;
  for (int64_t stride : stridesForShape(shape)) {
    int64_t here = stride ? floorDiv(offs, stride) : 0;
    result.push_back(here);
    offs -= here * stride;
  }
  return result;
}

/// Shrink/pad in one: take [arg.first, arg.second) of every dim (possibly
/// reaching outside the view), intersecting any existing mask with `mask`.
View unsafeResize(const View &v, const Mask &arg,
                  std::optional<Mask> mask = std::nullopt) {
  int64_t offset = 0;
  for (size_t i = 0; i < arg.size(); ++i)
    offset += v.strides[i] * arg[i].first;
  if (v.mask) {
    Mask moved;
    for (size_t i = 0; i < arg.size(); ++i) {
      auto [mx, my] = (*v.mask)[i];
      auto [ax, ay] = arg[i];
      moved.push_back({std::max<int64_t>(0, std::min(mx - ax, ay - ax)),
                       std::max<int64_t>(0, std::min(my - ax, ay - ax))});
    }
    if (mask) {
      for (size_t i = 0; i < moved.size(); ++i)
        moved[i] = {std::max(moved[i].first, (*mask)[i].first),
                    std::min(moved[i].second, (*mask)[i].second)};
    }
    mask = std::move(moved);
  }
  std::vector<int64_t> shape;
  for (auto &a : arg)
    shape.push_back(a.second - a.first);
  if (mask) {
    bool full = true;
    for (size_t i = 0; i < shape.size(); ++i)
      full &= (*mask)[i].first == 0 && (*mask)[i].second == shape[i];
    if (full)
      mask.reset();
  }
  return View::create(shape, v.strides, v.offset + offset, mask);
}

/// Linear form `k + sum(coef[d] * idx_d)` with idx_d in [0, shape[d]-1];
/// used for the bounds checks of View composition, which tinygrad performs
/// on an (always linear) symbolic sum with exactly these bounds.
struct Linear {
  std::vector<int64_t> coef;
  int64_t k = 0;
  int64_t lo(const std::vector<int64_t> &shape) const {
    int64_t r = k;
    for (size_t d = 0; d < coef.size(); ++d)
      r += std::min<int64_t>(0, coef[d] * (shape[d] - 1));
    return r;
  }
  int64_t hi(const std::vector<int64_t> &shape) const {
    int64_t r = k;
    for (size_t d = 0; d < coef.size(); ++d)
      r += std::max<int64_t>(0, coef[d] * (shape[d] - 1));
    return r;
  }
};

std::optional<View> addViews(const View &vm2, const View &vm1, int depth) {
  if (depth > kMaxAddDepth)
    return std::nullopt;
  if (vm2.contiguous)
    return vm1;
  if (vm1.contiguous && vm1.shape == vm2.shape)
    return vm2;
  if (vm1.contiguous && vm1.size() == vm2.size())
    if (auto ret = vm2.reshape(vm1.shape))
      return ret;
  const size_t n1 = vm1.shape.size(), n2 = vm2.shape.size();
  if (vm1.mask && !vm1.mask->empty()) {
    for (auto &[b, e] : *vm1.mask)
      if (!(b < e))
        return View::create(vm1.shape, std::vector<int64_t>(n1, 0), 0,
                            Mask(n1, {0, 0}));
    // Compose the unmasked part, then pad the mask back on.
    auto merged = addViews(vm2, vm1.shrink(*vm1.mask), depth + 1);
    if (!merged)
      return std::nullopt;
    Mask padArg;
    for (size_t i = 0; i < n1; ++i)
      padArg.push_back(
          {(*vm1.mask)[i].first, vm1.shape[i] - (*vm1.mask)[i].second});
    return merged->pad(padArg);
  }

  // Project vm1's offset and strides onto vm2's dims: stepping vm1's dim d1
  // by one moves by terms[d2] in vm2's dim d2.
  std::vector<int64_t> origin = un1d(vm2.shape, vm1.offset);
  std::vector<std::vector<std::pair<size_t, int64_t>>> terms(n2);
  std::vector<int64_t> strides(n1, 0);
  for (size_t d1 = 0; d1 < n1; ++d1) {
    int64_t st = vm1.strides[d1];
    if (st == 0)
      continue;
    std::vector<int64_t> moved = un1d(vm2.shape, vm1.offset + st);
    for (size_t d2 = 0; d2 < n2; ++d2) {
      int64_t s1 = moved[d2] - origin[d2];
      if (s1 == 0)
        continue;
      terms[d2].push_back({d1, s1});
      strides[d1] += s1 * vm2.strides[d2];
    }
  }

  // Merge vm2 dims only where the projected index can leave a dim's range;
  // merging more would make vm2's mask harder to project.
  int64_t mergedSize = 1;
  Linear merged{std::vector<int64_t>(n1, 0), 0};
  std::vector<std::pair<int64_t, Linear>> extents;
  for (size_t r = 0; r < n2; ++r) {
    size_t d2 = n2 - 1 - r;
    for (auto &[d1, s1] : terms[d2])
      merged.coef[d1] += s1 * mergedSize;
    merged.k += origin[d2] * mergedSize;
    mergedSize *= vm2.shape[d2];
    if (merged.hi(vm1.shape) < mergedSize && merged.lo(vm1.shape) >= 0) {
      extents.push_back({mergedSize, merged});
      mergedSize = 1;
      merged = Linear{std::vector<int64_t>(n1, 0), 0};
    }
  }
  if (merged.lo(vm1.shape) != 0 || merged.hi(vm1.shape) != 0)
    return std::nullopt;
  std::vector<int64_t> vm2Shape;
  for (auto it = extents.rbegin(); it != extents.rend(); ++it)
    vm2Shape.push_back(it->first);
  if (vm2Shape != vm2.shape) {
    auto reshaped = vm2.reshape(vm2Shape);
    if (!reshaped)
      return std::nullopt;
    return addViews(*reshaped, vm1, depth + 1);
  }

  if (vm2.mask) {
    // Project vm2's mask onto vm1 where a vm2 dim depends on one vm1 dim.
    std::vector<int64_t> newb(n1, 0), newe = vm1.shape;
    bool bad = false;
    for (size_t d2 = 0; d2 < n2; ++d2) {
      auto [b, e] = (*vm2.mask)[d2];
      int64_t o = origin[d2];
      const Linear &t = extents[n2 - 1 - d2].second;
      if (!(t.lo(vm1.shape) < b || t.hi(vm1.shape) >= e))
        continue;
      const auto &term = terms[d2];
      if (term.size() != 1) {
        if (term.empty() && !newe.empty())
          newe[0] = 0;
        else
          bad = true;
        continue;
      }
      auto [d1, s1] = term[0];
      newb[d1] = std::max(newb[d1], ceilDiv(s1 > 0 ? b - o : e - o - 1, s1));
      newe[d1] =
          std::min(newe[d1], floorDiv(s1 < 0 ? b - o : e - o - 1, s1) + 1);
    }
    // If part of vm1 is masked off, retry with that mask in place.
    for (size_t i = 0; i < n1; ++i) {
      if (newb[i] != 0 || newe[i] != vm1.shape[i]) {
        Mask m;
        for (size_t j = 0; j < n1; ++j)
          m.push_back({newb[j], newe[j]});
        return addViews(vm2,
                        View::create(vm1.shape, vm1.strides, vm1.offset, m),
                        depth + 1);
      }
    }
    if (bad)
      return std::nullopt;
  }

  int64_t offset = vm2.offset;
  for (size_t d2 = 0; d2 < n2; ++d2)
    offset += origin[d2] * vm2.strides[d2];
  return View::create(vm1.shape, strides, offset);
}

std::string tupleStr(const std::vector<int64_t> &v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  if (v.size() == 1)
    s += ",";
  return s + ")";
}

/// Product with overflow detection; nullopt if it exceeds 2^62.
std::optional<int64_t> safeProd(const std::vector<int64_t> &v) {
  int64_t r = 1;
  for (int64_t x : v) {
    if (x < 0)
      return std::nullopt;
    if (__builtin_mul_overflow(r, x, &r) || r > (int64_t(1) << 62))
      return std::nullopt;
  }
  return r;
}

std::string checkShape(const std::vector<int64_t> &shape, const char *what) {
  for (int64_t s : shape)
    if (s < 0)
      return std::string(what) + " dims must be non-negative, got " +
             tupleStr(shape);
  if (!safeProd(shape))
    return std::string(what) + " has too many elements: " + tupleStr(shape);
  return "";
}

std::string checkRank(const std::vector<int64_t> &shape, size_t n,
                      const char *op) {
  if (n == shape.size())
    return "";
  return std::string(op) + " argument must have rank " +
         std::to_string(shape.size()) + ", got " + std::to_string(n);
}

} // namespace

//===----------------------------------------------------------------------===//
// Free helpers
//===----------------------------------------------------------------------===//

// Products saturate instead of overflowing (undefined for int64_t): shapes
// whose element count does not fit are rejected by the IR verifier, which
// decodes them with these helpers first.
static int64_t saturatingMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return (a < 0) != (b < 0) ? std::numeric_limits<int64_t>::min()
                              : std::numeric_limits<int64_t>::max();
  return r;
}

std::vector<int64_t>
lazy::st::stridesForShape(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 0);
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = shape[i] == 1 ? 0 : acc;
    acc = saturatingMul(acc, shape[i]);
  }
  return strides;
}

int64_t lazy::st::prod(const std::vector<int64_t> &v) {
  int64_t r = 1;
  for (int64_t x : v)
    r = saturatingMul(r, x);
  return r;
}

//===----------------------------------------------------------------------===//
// View
//===----------------------------------------------------------------------===//

View View::create(std::vector<int64_t> shape,
                  std::optional<std::vector<int64_t>> strides, int64_t offset,
                  std::optional<Mask> mask) {
  View v;
  v.strides = (strides && !strides->empty())
                  ? canonicalizeStrides(shape, *strides)
                  : stridesForShape(shape);
  v.shape = std::move(shape);
  const size_t n = v.shape.size();
  if (hasZero(v.shape)) {
    v.strides.assign(n, 0);
    v.offset = 0;
    v.mask.reset();
    v.contiguous = true;
    return v;
  }
  if (mask) {
    bool full = true;
    for (size_t i = 0; i < n; ++i)
      full &= (*mask)[i] == std::pair<int64_t, int64_t>{0, v.shape[i]};
    if (full)
      mask.reset();
  }
  if (mask && !mask->empty()) {
    bool anyElim = false, anyEmpty = false;
    for (auto &[b, e] : *mask) {
      anyElim |= !(b + 1 < e);
      anyEmpty |= !(b < e);
    }
    if (anyElim) {
      if (anyEmpty) {
        v.strides.assign(n, 0);
        offset = 0;
        mask = Mask(n, {0, 0});
      }
      for (size_t i = 0; i < n; ++i) {
        if ((*mask)[i].first + 1 < (*mask)[i].second)
          continue;
        offset += v.strides[i] * (*mask)[i].first;
        v.strides[i] = 0;
      }
    }
  }
  v.offset = offset;
  v.mask = std::move(mask);
  v.contiguous =
      v.offset == 0 && !v.mask && v.strides == stridesForShape(v.shape);
  return v;
}

int64_t View::size() const { return prod(shape); }

bool View::operator==(const View &o) const {
  return shape == o.shape && strides == o.strides && offset == o.offset &&
         mask == o.mask && contiguous == o.contiguous;
}

std::string View::str() const {
  std::string m = "None";
  if (mask) {
    m = "(";
    for (size_t i = 0; i < mask->size(); ++i)
      m += (i ? ",(" : "(") + std::to_string((*mask)[i].first) + "," +
           std::to_string((*mask)[i].second) + ")";
    if (mask->size() == 1)
      m += ",";
    m += ")";
  }
  return "V(shape=" + tupleStr(shape) + ", strides=" + tupleStr(strides) +
         ", offset=" + std::to_string(offset) + ", mask=" + m +
         ", contiguous=" + (contiguous ? "True" : "False") + ")";
}

std::optional<View> View::reshape(const std::vector<int64_t> &newShape) const {
  if (shape == newShape)
    return *this;
  if (hasZero(shape))
    return create(newShape);
  // Precondition violations yield "not representable" instead of UB.
  if (!checkReshape(shape, newShape).empty())
    return std::nullopt;
  if (newShape.empty() && mask)
    for (auto &[b, e] : *mask)
      if (b == e)
        return std::nullopt;
  if (contiguous)
    return create(newShape);

  std::vector<int64_t> rstrides; // innermost first
  size_t remNew = newShape.size();
  auto merged = mergeDims(shape, strides, mask);
  for (auto it = merged.rbegin(); it != merged.rend(); ++it) {
    auto [mergedDim, newStride, realDim] = *it;
    int64_t acc = 1;
    while (acc <= mergedDim && acc != mergedDim && remNew > 0) {
      int64_t newDim = newShape[--remNew];
      if (newDim == 0)
        break;
      rstrides.push_back(newStride);
      if (newDim != 1) {
        acc *= newDim;
        // Past the non-broadcast extent, the remaining dims broadcast.
        newStride *= acc < realDim ? newDim : 0;
      }
    }
    if (acc != mergedDim)
      return std::nullopt;
  }
  rstrides.resize(newShape.size(), 0);
  auto newMask = reshapeMask(mask, shape, newShape);
  if (!newMask)
    return std::nullopt;
  std::vector<int64_t> extent, newStrides(rstrides.rbegin(), rstrides.rend());
  for (auto &[b, e] : *newMask)
    extent.push_back(e - b);
  newStrides = canonicalizeStrides(extent, newStrides);
  int64_t extra = 0;
  if (mask)
    for (size_t i = 0; i < shape.size(); ++i)
      extra += (*mask)[i].first * strides[i];
  for (size_t i = 0; i < newShape.size(); ++i)
    extra -= (*newMask)[i].first * newStrides[i];
  return create(newShape, newStrides, offset + extra, newMask);
}

View View::pad(const Mask &arg) const {
  bool any = false;
  for (auto &[b, e] : arg)
    any |= b != 0 || e != 0;
  if (!any)
    return *this;
  Mask region, valid;
  for (size_t i = 0; i < arg.size(); ++i) {
    region.push_back({-arg[i].first, shape[i] + arg[i].second});
    valid.push_back({arg[i].first, shape[i] + arg[i].first});
  }
  return unsafeResize(*this, region, valid);
}

View View::shrink(const Mask &arg) const { return unsafeResize(*this, arg); }

View View::expand(const std::vector<int64_t> &newShape) const {
  if (hasZero(shape))
    return create(newShape);
  std::optional<Mask> newMask;
  if (mask && !mask->empty()) {
    newMask = Mask();
    for (size_t i = 0; i < shape.size(); ++i) {
      auto m = (*mask)[i];
      if (shape[i] != newShape[i])
        m = m != std::pair<int64_t, int64_t>{0, 1}
                ? std::pair<int64_t, int64_t>{0, 0}
                : std::pair<int64_t, int64_t>{0, newShape[i]};
      newMask->push_back(m);
    }
  }
  return create(newShape, strides, offset, newMask);
}

View View::permute(const std::vector<int64_t> &axes) const {
  std::vector<int64_t> s, st;
  std::optional<Mask> m;
  if (mask)
    m = Mask();
  for (int64_t a : axes) {
    s.push_back(shape[a]);
    st.push_back(strides[a]);
    if (mask)
      m->push_back((*mask)[a]);
  }
  return create(s, st, offset, m);
}

View View::stride(const std::vector<int64_t> &mul) const {
  std::vector<int64_t> st, s;
  int64_t off = offset;
  std::optional<Mask> m;
  if (mask)
    m = Mask();
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t a = std::abs(mul[i]);
    st.push_back(strides[i] * mul[i]);
    s.push_back(floorDiv(shape[i] + a - 1, a));
    if (mul[i] < 0)
      off += (shape[i] - 1) * strides[i];
    if (mask) {
      auto [mx, my] = (*mask)[i];
      int64_t lo = mul[i] > 0 ? mx : shape[i] - my;
      int64_t hi = mul[i] > 0 ? my : shape[i] - mx;
      m->push_back({floorDiv(lo + a - 1, a), floorDiv(hi + a - 1, a)});
    }
  }
  return create(s, st, off, m);
}

std::optional<View> View::operator+(const View &later) const {
  return addViews(*this, later, 0);
}

std::optional<View> View::invert(const std::vector<int64_t> &outShape) const {
  View ret = create(shape);
  if (mask)
    ret = ret.shrink(*mask);
  std::vector<int64_t> flip, key;
  for (int64_t s : strides) {
    flip.push_back(s < 0 ? -1 : 1);
    key.push_back(s > 0 ? -s : s);
  }
  ret = ret.stride(flip);
  std::vector<int64_t> order(key.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return key[a] < key[b]; });
  ret = ret.permute(order);
  if (prod(ret.shape) != prod(outShape))
    return std::nullopt;
  return ret;
}

View View::minify() const {
  std::vector<int64_t> minShape;
  for (auto &m : mergeDims(shape, strides, mask))
    minShape.push_back(m[0]);
  if (auto nv = reshape(minShape))
    return *nv;
  return *this;
}

//===----------------------------------------------------------------------===//
// Argument checks
//===----------------------------------------------------------------------===//

std::string lazy::st::checkReshape(const std::vector<int64_t> &shape,
                                   const std::vector<int64_t> &newShape) {
  if (auto e = checkShape(shape, "shape"); !e.empty())
    return e;
  if (auto e = checkShape(newShape, "reshape"); !e.empty())
    return e;
  if (prod(shape) != prod(newShape))
    return "reshape must preserve the number of elements: " + tupleStr(shape) +
           " has " + std::to_string(prod(shape)) + ", " + tupleStr(newShape) +
           " has " + std::to_string(prod(newShape));
  return "";
}

std::string lazy::st::checkPad(const std::vector<int64_t> &shape,
                               const Mask &arg) {
  if (auto e = checkShape(shape, "shape"); !e.empty())
    return e;
  if (auto e = checkRank(shape, arg.size(), "pad"); !e.empty())
    return e;
  std::vector<int64_t> padded;
  for (size_t i = 0; i < arg.size(); ++i) {
    if (arg[i].first < 0 || arg[i].second < 0)
      return "pad must be non-negative, got (" + std::to_string(arg[i].first) +
             "," + std::to_string(arg[i].second) + ") for dim " +
             std::to_string(i);
    if (arg[i].first > (int64_t(1) << 40) || arg[i].second > (int64_t(1) << 40))
      return "pad amount too large for dim " + std::to_string(i);
    padded.push_back(shape[i] + arg[i].first + arg[i].second);
  }
  return checkShape(padded, "padded shape");
}

std::string lazy::st::checkShrink(const std::vector<int64_t> &shape,
                                  const Mask &arg) {
  if (auto e = checkShape(shape, "shape"); !e.empty())
    return e;
  if (auto e = checkRank(shape, arg.size(), "shrink"); !e.empty())
    return e;
  for (size_t i = 0; i < arg.size(); ++i)
    if (!(0 <= arg[i].first && arg[i].first <= arg[i].second &&
          arg[i].second <= shape[i]))
      return "shrink range (" + std::to_string(arg[i].first) + "," +
             std::to_string(arg[i].second) +
             ") must satisfy 0 <= begin <= "
             "end <= " +
             std::to_string(shape[i]) + " for dim " + std::to_string(i);
  return "";
}

std::string lazy::st::checkExpand(const std::vector<int64_t> &shape,
                                  const std::vector<int64_t> &newShape) {
  if (auto e = checkShape(shape, "shape"); !e.empty())
    return e;
  if (auto e = checkShape(newShape, "expand"); !e.empty())
    return e;
  if (auto e = checkRank(shape, newShape.size(), "expand"); !e.empty())
    return e;
  bool zero = hasZero(shape);
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t s = shape[i], x = newShape[i];
    // With no elements tinygrad only asks for divisibility.
    bool ok = zero ? ((s == 0 && x == 0) || (s > 0 && x % s == 0))
                   : (s == x || s == 1);
    if (!ok)
      return "cannot expand " + tupleStr(shape) + " to " + tupleStr(newShape) +
             ": dim " + std::to_string(i) + " must be 1 or unchanged";
  }
  return "";
}

std::string lazy::st::checkPermute(const std::vector<int64_t> &shape,
                                   const std::vector<int64_t> &axes) {
  std::vector<int64_t> sorted = axes;
  std::sort(sorted.begin(), sorted.end());
  bool ok = sorted.size() == shape.size();
  for (size_t i = 0; ok && i < sorted.size(); ++i)
    ok = sorted[i] == int64_t(i);
  if (ok)
    return "";
  return "permute axes must be a permutation of 0.." +
         std::to_string(int64_t(shape.size()) - 1) + ", got " + tupleStr(axes);
}

std::string lazy::st::checkStride(const std::vector<int64_t> &shape,
                                  const std::vector<int64_t> &mul) {
  if (auto e = checkShape(shape, "shape"); !e.empty())
    return e;
  if (auto e = checkRank(shape, mul.size(), "stride"); !e.empty())
    return e;
  for (size_t i = 0; i < mul.size(); ++i)
    if (mul[i] == 0 || mul[i] == std::numeric_limits<int64_t>::min())
      return "stride must be non-zero (and > INT64_MIN), got " +
             std::to_string(mul[i]) + " for dim " + std::to_string(i);
  return "";
}

std::string lazy::st::checkView(const std::vector<int64_t> &shape,
                                const std::vector<int64_t> &strides,
                                const std::optional<Mask> &mask) {
  if (auto e = checkShape(shape, "view shape"); !e.empty())
    return e;
  if (strides.size() != shape.size())
    return "view strides must have rank " + std::to_string(shape.size()) +
           ", got " + std::to_string(strides.size());
  if (!mask)
    return "";
  if (mask->size() != shape.size())
    return "view mask must have rank " + std::to_string(shape.size()) +
           ", got " + std::to_string(mask->size());
  for (size_t i = 0; i < shape.size(); ++i) {
    auto [b, e] = (*mask)[i];
    if (!(0 <= b && b <= e && e <= shape[i]))
      return "view mask range (" + std::to_string(b) + "," + std::to_string(e) +
             ") must satisfy 0 <= begin <= end <= " + std::to_string(shape[i]) +
             " for dim " + std::to_string(i);
  }
  return "";
}
