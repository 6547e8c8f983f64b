//===- Interpreter.cpp - reference interpreter for graph-level IR ---------===//
//
// Semantics (tinygrad 0.9.2 on its CLANG backend):
//  - Integers wrap (two's complement). IDIV truncates toward zero and MOD
//    takes the dividend's sign, like C; a zero divisor yields 0 and
//    INT_MIN / -1 wraps (both undefined in C, fixed here so tests can rely
//    on them). Shifts by at least the bit width give 0 (SHR of a negative
//    value: -1).
//  - float16/bfloat16 compute in float32 and round (nearest even) after every
//    op, including every step of a reduction, subnormals kept. A CAST from
//    float64 rounds once.
//  - CAST float -> integer truncates; NaN and out-of-range values give the
//    x86 "integer indefinite" value (INT32_MIN, or INT64_MIN for 64-bit
//    and uint32 targets) before narrowing, as clang's generated code does
//    without AVX-512 (C leaves them undefined; with AVX-512, tinygrad's
//    -march=native gives all ones for uint32/uint64 targets).
//  - MAX is `a > b ? a : b`; reductions run in row-major order of the
//    reduced coordinates, SUM from 0 and MAX from the dtype's lowest value,
//    each MAX step being max(acc, x).
//  - Views read through their ShapeTracker; an invalid (masked) element
//    reads 0.
//  - EMPTY is zero-filled. COPY, CONTIGUOUS and buffer_view copy the bytes
//    (buffer_view reinterprets them as the result dtype).
//  - ASSIGN never changes the function argument it targets (readers of the
//    SSA value see the old contents, as tinygrad orders them first). The
//    new buffer is the target with the value written through the assign's
//    view (or whole); the ASSIGN value is that buffer's first elements in
//    the ASSIGN's shape, as a tinygrad kernel reading the ASSIGN sees it.
//    A result that is an assigned argument, or movement ops or buffer_views
//    of one, reads the new buffer: no kernel computes it, it views the
//    buffer after the schedule has run (tinygrad's view of a realized
//    buffer; a buffer_view shares its source's memory).
//  - CUSTOM: custom_random with an explicit seed runs (HostFunctions.h);
//    other host code has no MLIR form and is an error.
//
//===----------------------------------------------------------------------===//

#include "lazy/Interpreter/Interpreter.h"
#include "lazy/Interpreter/HostFunctions.h"

#include "lazy/Dialect/Lazy/IR/LazyOps.h"
#include "lazy/ShapeTracker/ElementIndexer.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/InterleavedRange.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>

#include <sys/resource.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::lazy;
using ::lazy::interp::DType;
using ::lazy::interp::HostTensor;
namespace st = ::lazy::st;
namespace interp = ::lazy::interp;

std::optional<DType> mlir::lazy::dtypeOf(Type t) {
  if (t.isInteger(1))
    return DType::Bool;
  if (auto i = dyn_cast<IntegerType>(t)) {
    if (i.isSignless())
      return std::nullopt;
    bool s = i.isSigned();
    switch (i.getWidth()) {
    case 8:
      return s ? DType::Int8 : DType::UInt8;
    case 16:
      return s ? DType::Int16 : DType::UInt16;
    case 32:
      return s ? DType::Int32 : DType::UInt32;
    case 64:
      return s ? DType::Int64 : DType::UInt64;
    default:
      return std::nullopt;
    }
  }
  if (t.isF16())
    return DType::Float16;
  if (t.isBF16())
    return DType::BFloat16;
  if (t.isF32())
    return DType::Float32;
  if (t.isF64())
    return DType::Float64;
  return std::nullopt;
}

namespace {

//===----------------------------------------------------------------------===//
// Element access, dispatched on the dtype
//===----------------------------------------------------------------------===//

struct Half16 {};
struct BFloat16 {};
template <typename T> struct Tag {
  using type = T;
};

/// The type an element is computed in: float for the 16-bit floats.
template <typename T> struct ScalarOf {
  using type = T;
};
template <> struct ScalarOf<Half16> {
  using type = float;
};
template <> struct ScalarOf<BFloat16> {
  using type = float;
};
template <typename T> using Scalar = typename ScalarOf<T>::type;

template <typename F> decltype(auto) dispatch(DType dtype, F &&f) {
  switch (dtype) {
  case DType::Bool:
    return f(Tag<bool>{});
  case DType::Int8:
    return f(Tag<int8_t>{});
  case DType::UInt8:
    return f(Tag<uint8_t>{});
  case DType::Int16:
    return f(Tag<int16_t>{});
  case DType::UInt16:
    return f(Tag<uint16_t>{});
  case DType::Int32:
    return f(Tag<int32_t>{});
  case DType::UInt32:
    return f(Tag<uint32_t>{});
  case DType::Int64:
    return f(Tag<int64_t>{});
  case DType::UInt64:
    return f(Tag<uint64_t>{});
  case DType::Float16:
    return f(Tag<Half16>{});
  case DType::BFloat16:
    return f(Tag<BFloat16>{});
  case DType::Float32:
    return f(Tag<float>{});
  case DType::Float64:
    break;
  }
  return f(Tag<double>{});
}

/// A tensor's elements in row-major order, read-only: the bytes of a held
/// tensor, or of an operand's view materialized for one op. The dtype and
/// shape are the operand's type's (a bitcast shares its source's bytes).
struct TensorRef {
  DType dtype;
  ArrayRef<int64_t> shape;
  const uint8_t *data;

  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  size_t numBytes() const {
    return size_t(numElements()) * size_t(interp::itemSize(dtype));
  }
};

template <typename T> Scalar<T> load(const TensorRef &t, int64_t i) {
  if constexpr (std::is_same_v<T, Half16> || std::is_same_v<T, BFloat16>) {
    uint16_t bits;
    std::memcpy(&bits, &t.data[size_t(i) * 2], 2);
    return std::is_same_v<T, Half16> ? interp::halfToFloat(bits)
                                     : interp::bfloat16ToFloat(bits);
  } else if constexpr (std::is_same_v<T, bool>) {
    return t.data[size_t(i)] != 0;
  } else {
    T v;
    std::memcpy(&v, &t.data[size_t(i) * sizeof(T)], sizeof(T));
    return v;
  }
}

/// interpretWithRoundingNoise's state: while set, each float value an op
/// rounds (arithmetic, transcendental functions, narrowing casts, sum
/// steps) may move to a neighbour, as another rounding of the same
/// arithmetic might have left it. Ops that round nothing (max, neg, where,
/// constants, copies, views, comparisons) keep their values, so that
/// identities such as x == max(x) hold. The interpreter runs on one
/// thread.
struct RoundingNoise {
  uint64_t state;
  /// splitmix64.
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// -1 or +1 an eighth of the time each, else 0: a variance of 1/4 ulp^2,
  /// as rounding to one of the two neighbours of the exact value at random
  /// has on average.
  int step() {
    uint64_t r = next() & 7;
    return r == 0 ? -1 : r == 1 ? 1 : 0;
  }
  /// -1, 0 or +1, a third of the time each: a function within one ulp
  /// (libm's exp2f, log2f, sinf; lazy-to-cpu's fast exp2) may return
  /// either neighbour of the correctly rounded value.
  int stepWithinUlp() {
    uint64_t r = next() % 3;
    return int(r) - 1;
  }
  /// Uniform in [-1, 1).
  double uniform() { return double(next() >> 11) * 0x1p-52 - 1.0; }
};
RoundingNoise *roundingNoise = nullptr;

/// The significand bits of float dtype T (0 for other dtypes).
template <typename T> constexpr int precisionBits() {
  if constexpr (std::is_same_v<T, Half16>)
    return 11;
  else if constexpr (std::is_same_v<T, BFloat16>)
    return 8;
  else if constexpr (std::is_floating_point_v<T>)
    return std::numeric_limits<T>::digits;
  else
    return 0;
}

/// The unit roundoff of float dtype T (half an ulp of 1).
template <typename T> constexpr double unitRoundoff() {
  return 1.0 / double(uint64_t(1) << precisionBits<T>());
}

/// `v`, a value of float dtype T, moved by rounding noise when there is
/// any: one representable value up or down. Zeros, infinities and NaNs
/// stay, and so does a value whose neighbour is infinite.
template <typename T> Scalar<T> jitter(Scalar<T> v, bool withinUlp = false) {
  if constexpr (!std::is_floating_point_v<Scalar<T>>) {
    return v;
  } else {
    if (!roundingNoise || v == 0 || !std::isfinite(v))
      return v;
    int step =
        withinUlp ? roundingNoise->stepWithinUlp() : roundingNoise->step();
    if (!step)
      return v;
    if constexpr (std::is_same_v<T, Half16> || std::is_same_v<T, BFloat16>) {
      constexpr bool half = std::is_same_v<T, Half16>;
      uint16_t bits =
          half ? interp::floatToHalf(v) : interp::floatToBFloat16(v);
      // Sign and magnitude: one more is one further from zero.
      bits = uint16_t((step > 0) == (v > 0) ? bits + 1 : bits - 1);
      float moved =
          half ? interp::halfToFloat(bits) : interp::bfloat16ToFloat(bits);
      return std::isfinite(moved) ? moved : v;
    } else {
      T moved =
          std::nextafter(v, step > 0 ? std::numeric_limits<T>::infinity()
                                     : -std::numeric_limits<T>::infinity());
      return std::isfinite(moved) ? moved : v;
    }
  }
}

template <typename T> void store(HostTensor &t, int64_t i, Scalar<T> v) {
  if constexpr (std::is_same_v<T, Half16> || std::is_same_v<T, BFloat16>) {
    uint16_t bits = std::is_same_v<T, Half16> ? interp::floatToHalf(v)
                                              : interp::floatToBFloat16(v);
    std::memcpy(&t.data[size_t(i) * 2], &bits, 2);
  } else if constexpr (std::is_same_v<T, bool>) {
    t.data[size_t(i)] = v ? 1 : 0;
  } else {
    std::memcpy(&t.data[size_t(i) * sizeof(T)], &v, sizeof(T));
  }
}

/// Rounds a computed value to the storage precision (16-bit floats).
template <typename T> Scalar<T> roundToDType(Scalar<T> v) {
  if constexpr (std::is_same_v<T, Half16>)
    return interp::halfToFloat(interp::floatToHalf(v));
  else if constexpr (std::is_same_v<T, BFloat16>)
    return interp::bfloat16ToFloat(interp::floatToBFloat16(v));
  else
    return v;
}

/// `v`, the result in float dtype T of `f` on `args`, with rounding noise
/// unless nothing was rounded: computed again in double (for the dtypes
/// narrower than double), the same value means the op was exact (1 + 0, a
/// sum of counts), and an exact result keeps its value in any order.
template <typename T, bool WithinUlp = false, typename F, typename... A>
Scalar<T> rounded(Scalar<T> v, F &&f, A... args) {
  if constexpr (!std::is_floating_point_v<Scalar<T>>) {
    return v;
  } else {
    if (!roundingNoise)
      return v;
    if constexpr (!std::is_same_v<T, double>)
      if (double(f(double(args)...)) == double(roundToDType<T>(v)))
        return v;
    return jitter<T>(v, WithinUlp);
  }
}

template <typename S> constexpr bool isInt() {
  return std::is_integral_v<S> && !std::is_same_v<S, bool>;
}

//===----------------------------------------------------------------------===//
// Scalar semantics
//===----------------------------------------------------------------------===//

template <typename S> S add(S a, S b) {
  if constexpr (std::is_same_v<S, bool>)
    return a || b;
  else if constexpr (isInt<S>())
    return S(uint64_t(a) + uint64_t(b));
  else
    return a + b;
}

template <typename S> S mul(S a, S b) {
  if constexpr (std::is_same_v<S, bool>)
    return a && b;
  else if constexpr (isInt<S>())
    return S(uint64_t(a) * uint64_t(b));
  else
    return a * b;
}

template <typename S> S idiv(S a, S b) {
  if constexpr (isInt<S>()) {
    if (b == 0)
      return 0;
    if constexpr (std::is_signed_v<S>)
      if (a == std::numeric_limits<S>::min() && b == S(-1))
        return a;
    return S(a / b);
  }
  return a;
}

template <typename S> S mod(S a, S b) {
  if constexpr (isInt<S>()) {
    if (b == 0)
      return 0;
    if constexpr (std::is_signed_v<S>)
      if (b == S(-1))
        return 0;
    return S(a % b);
  }
  return a;
}

template <typename S> S shl(S a, S b) {
  if constexpr (isInt<S>()) {
    if (b < 0 || uint64_t(b) >= sizeof(S) * 8)
      return 0;
    return S(uint64_t(a) << uint64_t(b));
  }
  return a;
}

template <typename S> S shr(S a, S b) {
  if constexpr (isInt<S>()) {
    if (b < 0 || uint64_t(b) >= sizeof(S) * 8)
      return std::is_signed_v<S> && a < 0 ? S(-1) : S(0);
    return S(a >> b);
  }
  return a;
}

template <typename S> S bitwise(StringRef op, S a, S b) {
  if constexpr (std::is_same_v<S, bool>) {
    return op == "xor" ? a != b : op == "or" ? (a || b) : (a && b);
  } else if constexpr (isInt<S>()) {
    return op == "xor" ? S(a ^ b) : op == "or" ? S(a | b) : S(a & b);
  }
  return a;
}

uint32_t rotl32(uint32_t x, unsigned r) { return (x << r) | (x >> (32 - r)); }

/// tinygrad's threefry2x32: the counter `x` split into two 32-bit halves,
/// keyed by the low 32 bits of `seed`, 20 rounds.
uint64_t threefry(uint64_t x, uint64_t seed) {
  static const unsigned rotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  uint32_t key = uint32_t(seed);
  uint32_t ks[3] = {0u, key ^ 0x1BD11BDAu, key};
  uint32_t x0 = uint32_t(x), x1 = uint32_t(x >> 32);
  uint32_t r0 = x0 + ks[2], r1 = x1 + ks[0];
  for (unsigned i = 0; i < 5; ++i) {
    for (unsigned r : rotations[i % 2]) {
      r0 = r0 + r1;
      r1 = r0 ^ rotl32(r1, r);
    }
    r0 = r0 + ks[i % 3];
    r1 = r1 + ks[(i + 1) % 3] + i + 1;
  }
  return (uint64_t(r1) << 32) | r0;
}

/// C conversion of a float to an integer type as clang's x86 code does it:
/// truncation; NaN and out-of-range give the "integer indefinite" value of
/// the 32- or 64-bit conversion before narrowing.
template <typename D> D floatToInt(double d) {
  constexpr bool wide = sizeof(D) == 8 || std::is_same_v<D, uint32_t>;
  if constexpr (std::is_same_v<D, uint64_t>)
    if (d >= 9223372036854775808.0 && d < 18446744073709551616.0)
      return D(d);
  if (wide) {
    if (!(d > -9223372036854775809.0 && d < 9223372036854775808.0))
      return D(std::numeric_limits<int64_t>::min());
    return D(uint64_t(int64_t(d)));
  }
  if (!(d > -2147483649.0 && d < 2147483648.0))
    return D(std::numeric_limits<int32_t>::min());
  return D(uint32_t(int32_t(d)));
}

template <typename SS, typename D> Scalar<D> convert(SS v) {
  using SD = Scalar<D>;
  if constexpr (std::is_same_v<SD, bool>)
    return v != SS(0);
  else if constexpr (std::is_same_v<SS, double> &&
                     (std::is_same_v<D, Half16> || std::is_same_v<D, BFloat16>))
    return interp::roundToOddFloat(v); // store() rounds it to 16 bits
  else if constexpr (std::is_floating_point_v<SD>)
    return SD(v);
  else if constexpr (std::is_floating_point_v<SS>)
    return floatToInt<SD>(double(v));
  else if constexpr (std::is_same_v<SS, bool>)
    return SD(v ? 1 : 0);
  else
    return SD(uint64_t(v)); // two's complement narrowing / widening
}

template <typename S> S lowest() {
  if constexpr (std::is_floating_point_v<S>)
    return -std::numeric_limits<S>::infinity();
  else
    return std::numeric_limits<S>::lowest();
}

//===----------------------------------------------------------------------===//
// The interpreter
//===----------------------------------------------------------------------===//

std::vector<int64_t> shapeOf(Type type) {
  ArrayRef<int64_t> s = cast<RankedTensorType>(type).getShape();
  return std::vector<int64_t>(s.begin(), s.end());
}

DType dtypeOfTensor(Type type) {
  return *dtypeOf(cast<RankedTensorType>(type).getElementType());
}

/// Calls `f(linearIndex, multiIndex)` for every element of `shape`.
template <typename F> void forEachIndex(ArrayRef<int64_t> shape, F &&f) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    f(i, idx);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

/// Calls `f(first, offset)` for every row (run along the last dimension)
/// of `shape`, in row-major order: `first` is the row's first linear index
/// and `offset` is `base` plus the dot product of the row's index (0 in
/// the last dimension) with `strides`. A 0-d shape has one row of one
/// element.
template <typename F>
void forEachRow(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides,
                int64_t base, F &&f) {
  size_t outer = shape.empty() ? 0 : shape.size() - 1;
  int64_t rows = 1, rowLength = shape.empty() ? 1 : shape.back();
  for (size_t d = 0; d < outer; ++d)
    rows *= shape[d];
  if (rows == 0 || rowLength == 0)
    return;
  std::vector<int64_t> idx(outer, 0);
  int64_t offset = base;
  for (int64_t r = 0; r < rows; ++r) {
    f(r * rowLength, offset);
    for (size_t d = outer; d-- > 0;) {
      offset += strides[d];
      if (++idx[d] < shape[d])
        break;
      offset -= strides[d] * shape[d];
      idx[d] = 0;
    }
  }
}

/// Copies one element of `bytes` bytes (1, 2, 4 or 8): a fixed-size copy
/// the compiler inlines, where memcpy with a run-time size is a call.
inline void copyElement(uint8_t *dst, const uint8_t *src, size_t bytes) {
  switch (bytes) {
  case 1:
    *dst = *src;
    return;
  case 2:
    std::memcpy(dst, src, 2);
    return;
  case 4:
    std::memcpy(dst, src, 4);
    return;
  default:
    std::memcpy(dst, src, 8);
    return;
  }
}

/// Fills `out` (already of the tracker's shape) by reading `src` through
/// `tracker` (whose first view indexes src's elements); invalid elements
/// are 0. One unmasked view in range is walked by its strides; anything
/// else asks an ElementIndexer element by element.
void readThrough(const TensorRef &src, const st::ShapeTracker &tracker,
                 HostTensor &out) {
  size_t bytes = size_t(interp::itemSize(out.dtype));
  int64_t limit = src.numElements();
  if (out.numElements() == 0)
    return;
  if (tracker.views.size() == 1 && !tracker.views[0].mask) {
    const st::View &view = tracker.views[0];
    auto range = validIndexRange(view);
    if (range && range->first >= 0 && range->second < limit) {
      int64_t rowLength = view.shape.empty() ? 1 : view.shape.back();
      int64_t step = view.strides.empty() ? 0 : view.strides.back();
      auto copyRows = [&](auto element) {
        constexpr size_t n = sizeof(element);
        uint8_t *dst = out.data.data();
        forEachRow(view.shape, view.strides, view.offset,
                   [&](int64_t first, int64_t index) {
                     for (int64_t j = 0; j < rowLength; ++j)
                       std::memcpy(dst + size_t(first + j) * n,
                                   src.data + size_t(index + j * step) * n, n);
                   });
      };
      switch (bytes) {
      case 1:
        return copyRows(uint8_t());
      case 2:
        return copyRows(uint16_t());
      case 4:
        return copyRows(uint32_t());
      default:
        return copyRows(uint64_t());
      }
    }
  }
  st::ElementIndexer indexOf(tracker);
  forEachIndex(out.shape, [&](int64_t i, const std::vector<int64_t> &idx) {
    auto [index, valid] = indexOf(idx.data());
    // The verifier keeps valid indices in range; the bound check guards
    // hand-built attributes anyway.
    if (valid && index >= 0 && index < limit)
      copyElement(&out.data[size_t(i) * bytes],
                  &src.data[size_t(index) * bytes], bytes);
  });
}

/// What the interpreter holds for an SSA value: bytes an op computed and,
/// for a result of movement ops, the view through which the value reads
/// them. Movement ops compose views instead of copying, so the broadcasts
/// and transposes a backward pass keeps cost no memory; a view is read
/// (materialized) only for the op that uses it.
struct Held {
  /// Shared by every value reading these bytes; their item size is the
  /// same for all of them. Function inputs are borrowed: their pointer owns
  /// nothing (use_count() is 0).
  std::shared_ptr<HostTensor> base;
  /// nullopt: element i of the value is element i of `base`.
  std::optional<st::ShapeTracker> view;

  /// Whether dropping this value frees its bytes.
  bool soleOwner() const { return base.use_count() == 1; }
};
using HeldValues = llvm::DenseMap<Value, Held>;

bool isMovement(Operation *op) {
  return isa<ReshapeOp, PermuteOp, ExpandOp, PadOp, ShrinkOp, StrideOp, ViewOp>(
      op);
}

/// Ops whose result is their operand's bytes, unchanged.
bool copiesBytes(Operation *op) {
  return isa<CopyOp, ContiguousOp, BufferViewOp, BitcastOp>(op);
}

HostTensor tensorOfType(Type type) {
  HostTensor out;
  out.dtype = dtypeOfTensor(type);
  out.shape = shapeOf(type);
  return out;
}

class Evaluator {
public:
  /// Evaluates `op` from the values in `vals`. A movement op gives a view
  /// of its operand's bytes, and so does a COPY, CONTIGUOUS, buffer_view or
  /// same-size bitcast of an unviewed operand; any other op gives new bytes.
  FailureOr<Held> evaluate(Operation *op, HeldValues &vals);
  /// The elements of `value` (held as `held`), row-major, in new bytes.
  HostTensor materialize(Value value, const Held &held);

  /// Keeps the bytes of a value that is no longer used for a later result:
  /// memory handed back to the OS would be faulted in and zeroed again,
  /// which costs more than evaluating a large elementwise op. Holds at most
  /// kSpares buffers, the largest ones.
  void recycle(HostTensor &&dead);
  /// Bytes the spare buffers hold (part of what the budget allows).
  uint64_t spareBytes() const;
  void dropSpares() { spares.clear(); }
  /// The whole target buffer the last evaluated ASSIGN wrote (its result is
  /// only the first elements); empty once taken.
  HostTensor takeAssignedBuffer() { return std::move(assignedBuffer); }

private:
  HostTensor assignedBuffer;
  static constexpr size_t kSpares = 4;

  /// The operands of the op being evaluated, as tensors of their types.
  SmallVector<TensorRef, 3> operands;
  /// Views among them, materialized for this op alone.
  SmallVector<HostTensor, 3> scratch;

  const TensorRef &in(unsigned i) const { return operands[i]; }
  /// Reads `op`'s operands (materializing views into `scratch`).
  void readOperands(Operation *op, HeldValues &vals);
  /// A zero tensor of `type`, in a spare buffer when one is large enough
  /// (the smallest such).
  HostTensor zeroTensor(Type type);
  HostTensor resultTensor(Operation *op) {
    return zeroTensor(op->getResult(0).getType());
  }
  FailureOr<HostTensor> compute(Operation *op);

  /// An elementwise op; `Rounds`: its float results are rounded (and so
  /// take rounding noise when there is any); `WithinUlp`: by a function
  /// accurate to one ulp, not correctly rounded (a wider noise).
  template <bool Rounds = false, bool WithinUlp = false, typename F>
  HostTensor mapUnary(Operation *op, F &&f) {
    const TensorRef &x = in(0);
    HostTensor out = resultTensor(op);
    dispatch(x.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (int64_t i = 0, e = x.numElements(); i < e; ++i) {
        Scalar<T> a = load<T>(x, i);
        Scalar<T> v = f(a);
        store<T>(out, i, Rounds ? rounded<T, WithinUlp>(v, f, a) : v);
      }
    });
    return out;
  }

  template <bool Rounds = false, typename F>
  HostTensor mapBinary(Operation *op, F &&f) {
    const TensorRef &a = in(0), &b = in(1);
    HostTensor out = resultTensor(op);
    dispatch(a.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (int64_t i = 0, e = a.numElements(); i < e; ++i) {
        Scalar<T> x = load<T>(a, i), y = load<T>(b, i);
        Scalar<T> v = f(x, y);
        store<T>(out, i, Rounds ? rounded<T>(v, f, x, y) : v);
      }
    });
    return out;
  }

  template <typename F> HostTensor compare(Operation *op, F &&f) {
    const TensorRef &a = in(0), &b = in(1);
    HostTensor out = resultTensor(op);
    dispatch(a.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (int64_t i = 0, e = a.numElements(); i < e; ++i)
        store<bool>(out, i, f(load<T>(a, i), load<T>(b, i)));
    });
    return out;
  }

  HostTensor cast(Operation *op);
  HostTensor reduce(Operation *op, ArrayRef<int64_t> axes, bool isSum);
  HostTensor softmaxSum(SoftmaxSumOp op);
  HostTensor constant(ConstOp op);
  HostTensor assign(AssignOp op);
  HostTensor reinterpret(Operation *op);

  std::vector<std::vector<uint8_t>> spares;
};

void Evaluator::recycle(HostTensor &&dead) {
  spares.push_back(std::move(dead.data));
  if (spares.size() > kSpares) {
    auto smallest = llvm::min_element(spares, [](const auto &a, const auto &b) {
      return a.capacity() < b.capacity();
    });
    spares.erase(smallest);
  }
}

uint64_t Evaluator::spareBytes() const {
  uint64_t total = 0;
  for (const std::vector<uint8_t> &spare : spares)
    total += spare.capacity();
  return total;
}

HostTensor Evaluator::zeroTensor(Type type) {
  HostTensor out = tensorOfType(type);
  size_t bytes = size_t(out.numElements() * interp::itemSize(out.dtype));
  // At most twice the size: a small result does not hold on to a large
  // buffer.
  auto best = spares.end();
  for (auto it = spares.begin(); it != spares.end(); ++it)
    if (it->capacity() >= bytes && it->capacity() / 2 <= bytes &&
        (best == spares.end() || it->capacity() < best->capacity()))
      best = it;
  if (best != spares.end()) {
    out.data = std::move(*best);
    spares.erase(best);
  }
  out.data.assign(bytes, 0);
  return out;
}

HostTensor Evaluator::materialize(Value value, const Held &held) {
  HostTensor out = zeroTensor(value.getType());
  const HostTensor &base = *held.base;
  // The base's elements in the value's dtype (the same item size).
  TensorRef src{out.dtype, base.shape, base.data.data()};
  if (held.view)
    readThrough(src, *held.view, out);
  else if (size_t n = std::min(out.data.size(), base.data.size()))
    std::memcpy(out.data.data(), base.data.data(), n);
  return out;
}

void Evaluator::readOperands(Operation *op, HeldValues &vals) {
  for (HostTensor &t : scratch)
    recycle(std::move(t));
  scratch.clear();
  operands.clear();
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    auto type = llvm::cast<RankedTensorType>(operand.getType());
    DType dtype = dtypeOfTensor(type);
    const Held &held = vals[operand];
    if (!held.view) {
      operands.push_back(
          TensorRef{dtype, type.getShape(), held.base->data.data()});
      continue;
    }
    // An operand read twice (x * x) is materialized once.
    auto earlier = llvm::find(op->getOperands().take_front(i), operand);
    if (earlier != op->getOperands().begin() + i) {
      operands.push_back(operands[earlier - op->getOperands().begin()]);
      continue;
    }
    scratch.push_back(materialize(operand, held));
    operands.push_back(
        TensorRef{dtype, type.getShape(), scratch.back().data.data()});
  }
}

HostTensor Evaluator::cast(Operation *op) {
  const TensorRef &x = in(0);
  HostTensor out = resultTensor(op);
  dispatch(x.dtype, [&](auto srcTag) {
    using TS = typename decltype(srcTag)::type;
    dispatch(out.dtype, [&](auto dstTag) {
      using TD = typename decltype(dstTag)::type;
      // Only a float narrowed to a float rounds (an integer wider than the
      // mantissa would too, but indices and counts never are).
      constexpr bool narrows = std::is_floating_point_v<Scalar<TS>> &&
                               std::is_floating_point_v<Scalar<TD>> &&
                               precisionBits<TD>() < precisionBits<TS>();
      for (int64_t i = 0, e = x.numElements(); i < e; ++i) {
        Scalar<TD> v = convert<Scalar<TS>, TD>(load<TS>(x, i));
        store<TD>(out, i, narrows ? jitter<TD>(v) : v);
      }
    });
  });
  return out;
}

/// A reduce's output strides over its input's `shape`: the reduced axes
/// contribute nothing.
static std::vector<int64_t> reducedStrides(ArrayRef<int64_t> shape,
                                           ArrayRef<int64_t> outShape,
                                           ArrayRef<int64_t> axes) {
  std::vector<int64_t> strides(shape.size(), 0);
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = llvm::is_contained(axes, int64_t(d)) ? 0 : stride;
    stride *= outShape[d];
  }
  return strides;
}

HostTensor Evaluator::reduce(Operation *op, ArrayRef<int64_t> axes,
                             bool isSum) {
  const TensorRef &x = in(0);
  ArrayRef<int64_t> shape = x.shape;
  HostTensor out = resultTensor(op);
  std::vector<int64_t> outStrides = reducedStrides(shape, out.shape, axes);
  dispatch(x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using S = Scalar<T>;
    std::vector<S> acc(size_t(out.numElements()), isSum ? S(0) : lowest<S>());
    int64_t rowLength = shape.empty() ? 1 : shape.back();
    int64_t step = shape.empty() ? 0 : outStrides.back();
    forEachRow(shape, outStrides, 0, [&](int64_t first, int64_t o) {
      for (int64_t j = 0; j < rowLength; ++j) {
        S v = load<T>(x, first + j);
        size_t k = size_t(o + j * step);
        // MAX steps as tinygrad's max(acc, x) does: acc > x ? acc : x (a
        // NaN survives only as the last element; of +0 and -0 the later).
        S a = acc[k]; // a copy: std::vector<bool> has no references
        acc[k] = isSum ? rounded<T>(
                             roundToDType<T>(add<S>(a, v)),
                             [](auto p, auto q) { return p + q; }, a, v)
                       : roundToDType<T>(a > v ? a : v);
      }
    });
    if constexpr (std::is_floating_point_v<S>) {
      if (roundingNoise && isSum) {
        // Another order of the same terms rounds other partial sums: a
        // sum that cancels (its value S below the sum M of its terms'
        // magnitudes) moves by up to about a unit roundoff of M - |S|.
        // (Terms of random sign have partial sums of about M in any
        // order; terms of one sign, M = |S|, have the partial sums the
        // steps above round, and so does an exact sum.)
        double scale = unitRoundoff<T>();
        std::vector<double> magnitude(acc.size(), 0.0);
        forEachRow(shape, outStrides, 0, [&](int64_t first, int64_t o) {
          for (int64_t j = 0; j < rowLength; ++j)
            magnitude[size_t(o + j * step)] +=
                std::fabs(double(load<T>(x, first + j)));
        });
        for (size_t o = 0; o < acc.size(); ++o)
          if (std::isfinite(acc[o]) && std::isfinite(magnitude[o]))
            acc[o] = roundToDType<T>(
                S(double(acc[o]) +
                  roundingNoise->uniform() * scale *
                      (magnitude[o] - std::fabs(double(acc[o])))));
      }
    }
    for (size_t o = 0; o < acc.size(); ++o)
      store<T>(out, int64_t(o), acc[o]);
  });
  return out;
}

/// Its definition in double: the maximum first, then both sums at it.
HostTensor Evaluator::softmaxSum(SoftmaxSumOp op) {
  ArrayRef<int64_t> axes = op.getAxes();
  double scale = op.getScale().convertToDouble();
  auto asDoubles = [&](const TensorRef &t) {
    std::vector<double> values(
        size_t(op.getScores().getType().getNumElements()));
    dispatch(t.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_floating_point_v<Scalar<T>>)
        for (size_t i = 0; i < values.size(); ++i)
          values[i] = double(load<T>(t, int64_t(i)));
    });
    return values;
  };
  std::vector<double> x = asDoubles(in(0)), w = asDoubles(in(1));
  ArrayRef<int64_t> shape = in(0).shape;
  HostTensor out = resultTensor(op);
  std::vector<int64_t> outStrides = reducedStrides(shape, out.shape, axes);
  size_t n = size_t(out.numElements());
  std::vector<double> max(n, -std::numeric_limits<double>::infinity());
  std::vector<double> num(n, 0.0), den(n, 0.0);
  int64_t rowLength = shape.empty() ? 1 : shape.back();
  int64_t step = shape.empty() ? 0 : outStrides.back();
  auto each = [&](auto visit) {
    forEachRow(shape, outStrides, 0, [&](int64_t first, int64_t o) {
      for (int64_t j = 0; j < rowLength; ++j)
        visit(size_t(first + j), size_t(o + j * step));
    });
  };
  each([&](size_t i, size_t k) {
    double s = scale * x[i];
    max[k] = std::isnan(s) || std::isnan(max[k]) ? NAN : std::max(max[k], s);
  });
  each([&](size_t i, size_t k) {
    double p = std::exp2(scale * x[i] - max[k]);
    num[k] += p * w[i];
    den[k] += p;
  });
  dispatch(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using S = Scalar<T>;
    if constexpr (std::is_floating_point_v<S>)
      for (size_t k = 0; k < n; ++k)
        store<T>(out, int64_t(k), roundToDType<T>(S(num[k] / den[k])));
  });
  return out;
}

HostTensor Evaluator::constant(ConstOp op) {
  HostTensor out = resultTensor(op);
  Attribute value = op.getElementValue();
  dispatch(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using S = Scalar<T>;
    S v{};
    if (auto b = dyn_cast<BoolAttr>(value))
      v = S(b.getValue());
    else if (auto i = dyn_cast<IntegerAttr>(value)) {
      if constexpr (isInt<S>())
        v = interp::isSigned(out.dtype) ? S(i.getValue().getSExtValue())
                                        : S(i.getValue().getZExtValue());
    } else if (auto f = dyn_cast<FloatAttr>(value)) {
      if constexpr (std::is_floating_point_v<S>)
        v = S(f.getValueAsDouble());
    }
    for (int64_t i = 0, e = out.numElements(); i < e; ++i)
      store<T>(out, i, v);
  });
  return out;
}

HostTensor Evaluator::assign(AssignOp op) {
  const TensorRef &target = in(1), &value = in(0);
  HostTensor buffer = tensorOfType(op.getTarget().getType());
  buffer.data.assign(target.data, target.data + target.numBytes());
  size_t bytes = size_t(interp::itemSize(value.dtype));
  if (ShapeTrackerAttr view = op.getViewAttr()) {
    st::ElementIndexer indexOf(view.getTracker());
    int64_t limit = buffer.numElements();
    forEachIndex(value.shape, [&](int64_t i, const std::vector<int64_t> &idx) {
      auto [index, valid] = indexOf(idx.data());
      if (valid && index >= 0 && index < limit)
        copyElement(&buffer.data[size_t(index) * bytes],
                    &value.data[size_t(i) * bytes], bytes);
    });
  } else {
    buffer.data.assign(value.data, value.data + value.numBytes());
  }
  HostTensor out = resultTensor(op);
  // An empty vector's data() may be null, which memcpy must not be given.
  if (size_t n = std::min(out.data.size(), buffer.data.size()))
    std::memcpy(out.data.data(), buffer.data.data(), n);
  assignedBuffer = std::move(buffer);
  return out;
}

HostTensor Evaluator::reinterpret(Operation *op) {
  HostTensor out = resultTensor(op);
  const TensorRef &x = in(0);
  if (size_t n = std::min(out.data.size(), x.numBytes()))
    std::memcpy(out.data.data(), x.data, n);
  return out;
}

FailureOr<Held> Evaluator::evaluate(Operation *op, HeldValues &vals) {
  if (isMovement(op)) {
    Value source = op->getOperand(0);
    const Held &held = vals[source];
    st::ShapeTracker from =
        held.view ? *held.view
                  : st::ShapeTracker::fromShape(shapeOf(source.getType()));
    std::optional<st::ShapeTracker> to = applyMovement(op, from);
    if (!to)
      return op->emitOpError("cannot be evaluated by the lazy reference "
                             "interpreter");
    // The identity of the value's shape within the base reads it directly.
    int64_t elements = llvm::cast<RankedTensorType>(op->getResult(0).getType())
                           .getNumElements();
    if (to->contiguous() && elements <= held.base->numElements())
      return Held{held.base, std::nullopt};
    return Held{held.base, std::move(*to)};
  }
  if (copiesBytes(op)) {
    Value source = op->getOperand(0);
    const Held &held = vals[source];
    auto itemBytes = [](Value v) {
      return interp::itemSize(dtypeOfTensor(v.getType()));
    };
    if (!held.view && itemBytes(source) == itemBytes(op->getResult(0)))
      return Held{held.base, std::nullopt};
  }
  readOperands(op, vals);
  FailureOr<HostTensor> result = compute(op);
  if (failed(result))
    return failure();
  return Held{std::make_shared<HostTensor>(std::move(*result)), std::nullopt};
}

FailureOr<HostTensor> Evaluator::compute(Operation *op) {
  using R = FailureOr<HostTensor>;
  return llvm::TypeSwitch<Operation *, R>(op)
      // Unary
      // Transcendentals: within one ulp (libm's, and lazy-to-cpu's fast
      // exp2), not correctly rounded.
      .Case([&](Exp2Op o) {
        return mapUnary<true, true>(
            o, [](auto x) { return decltype(x)(std::exp2(x)); });
      })
      .Case([&](Log2Op o) {
        return mapUnary<true, true>(
            o, [](auto x) { return decltype(x)(std::log2(x)); });
      })
      .Case([&](SinOp o) {
        return mapUnary<true, true>(
            o, [](auto x) { return decltype(x)(std::sin(x)); });
      })
      .Case([&](SqrtOp o) {
        return mapUnary<true>(o,
                              [](auto x) { return decltype(x)(std::sqrt(x)); });
      })
      .Case([&](RecipOp o) {
        return mapUnary<true>(o, [](auto x) { return decltype(x)(1) / x; });
      })
      .Case([&](NegOp o) {
        return mapUnary(o, [](auto x) {
          using S = decltype(x);
          if constexpr (isInt<S>())
            return S(uint64_t(0) - uint64_t(x));
          else
            return S(-x);
        });
      })
      .Case([&](CastOp o) -> R { return cast(o); })
      // Binary
      .Case([&](AddOp o) {
        return mapBinary<true>(o, [](auto a, auto b) { return add(a, b); });
      })
      .Case([&](MulOp o) {
        return mapBinary<true>(o, [](auto a, auto b) { return mul(a, b); });
      })
      .Case([&](IdivOp o) {
        return mapBinary(o, [](auto a, auto b) { return idiv(a, b); });
      })
      .Case([&](ModOp o) {
        return mapBinary(o, [](auto a, auto b) { return mod(a, b); });
      })
      .Case([&](MaxOp o) {
        return mapBinary(o, [](auto a, auto b) { return a > b ? a : b; });
      })
      .Case([&](ShlOp o) {
        return mapBinary(o, [](auto a, auto b) { return shl(a, b); });
      })
      .Case([&](ShrOp o) {
        return mapBinary(o, [](auto a, auto b) { return shr(a, b); });
      })
      .Case<XorOp, OrOp, AndOp>([&](Operation *o) {
        StringRef name = o->getName().stripDialect();
        return mapBinary(o,
                         [&](auto a, auto b) { return bitwise(name, a, b); });
      })
      .Case([&](ThreefryOp o) {
        return mapBinary(o, [](auto a, auto b) {
          using S = decltype(a);
          if constexpr (std::is_same_v<S, uint64_t>)
            return threefry(a, b);
          else
            return a;
        });
      })
      .Case([&](CmpltOp o) {
        return compare(o, [](auto a, auto b) { return a < b; });
      })
      .Case([&](CmpneOp o) {
        return compare(o, [](auto a, auto b) { return a != b; });
      })
      // Ternary
      .Case([&](WhereOp o) -> R {
        const TensorRef &c = in(0), &a = in(1), &b = in(2);
        HostTensor out = resultTensor(o);
        size_t bytes = size_t(interp::itemSize(out.dtype));
        for (int64_t i = 0, e = out.numElements(); i < e; ++i)
          std::memcpy(&out.data[size_t(i) * bytes],
                      &(c.data[size_t(i)] ? a : b).data[size_t(i) * bytes],
                      bytes);
        return out;
      })
      .Case([&](MulaccOp o) -> R {
        const TensorRef &a = in(0), &b = in(1), &c = in(2);
        HostTensor out = resultTensor(o);
        dispatch(a.dtype, [&](auto tag) {
          using T = typename decltype(tag)::type;
          using S = Scalar<T>;
          // Two roundings, each noisy unless exact (as mapBinary's ops).
          auto times = [](auto x, auto y) { return mul(x, y); };
          auto plus = [](auto x, auto y) { return add(x, y); };
          for (int64_t i = 0, e = a.numElements(); i < e; ++i) {
            S x = load<T>(a, i), y = load<T>(b, i), z = load<T>(c, i);
            S product = rounded<T>(roundToDType<T>(times(x, y)), times, x, y);
            store<T>(out, i, rounded<T>(plus(product, z), plus, product, z));
          }
        });
        return out;
      })
      // Reduce
      .Case([&](ReduceSumOp o) -> R { return reduce(o, o.getAxes(), true); })
      .Case([&](ReduceMaxOp o) -> R { return reduce(o, o.getAxes(), false); })
      .Case([&](SoftmaxSumOp o) -> R { return softmaxSum(o); })
      // Meta
      .Case([&](ConstOp o) -> R { return constant(o); })
      .Case([&](EmptyOp o) -> R { return resultTensor(o); })
      .Case<CopyOp, ContiguousOp, BufferViewOp, BitcastOp>(
          [&](Operation *o) -> R { return reinterpret(o); })
      .Case([&](AssignOp o) -> R { return assign(o); })
      .Case([&](CustomOp o) -> R {
        if (o.getCallee() != interp::kCustomRandom)
          return o.emitOpError()
                 << "calls host function '" << o.getCallee()
                 << "', which the reference interpreter cannot run";
        // tinygrad's counter gives seeds in schedule order, which the
        // interpreter does not know: lazy-run writes them on first.
        if (!o.getSeed())
          return o.emitOpError(
              "custom_random needs a 'seed' to be evaluated here (lazy-run "
              "gives each one its seed from the module's lazy.rng_seed)");
        HostTensor out = resultTensor(o);
        std::string problem =
            interp::customRandom(uint64_t(*o.getSeed()), out.dtype,
                                 out.data.data(), out.numElements());
        if (!problem.empty())
          return o.emitOpError(problem);
        return out;
      })
      .Default([](Operation *o) -> R {
        return o->emitOpError("cannot be evaluated by the lazy reference "
                              "interpreter");
      });
}

} // namespace

/// Half the machine's physical memory (8 GiB when unknown).
static uint64_t halfPhysicalMemory() {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0)
    return uint64_t(8) << 30;
  return uint64_t(pages) * uint64_t(pageSize) / 2;
}

/// Half the address space the process may still map under its RLIMIT_AS
/// (`ulimit -v`), or nullopt without such a limit. Half: the allocator,
/// the JIT and the spare buffers map more than the tensors themselves.
static std::optional<uint64_t> halfAddressSpaceLeft() {
  struct rlimit limit;
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
    return std::nullopt;
  uint64_t mapped = 0;
  if (FILE *statm = std::fopen("/proc/self/statm", "r")) {
    unsigned long long pages = 0;
    if (std::fscanf(statm, "%llu", &pages) == 1)
      mapped = uint64_t(pages) * uint64_t(sysconf(_SC_PAGESIZE));
    std::fclose(statm);
  }
  uint64_t cap = uint64_t(limit.rlim_cur);
  return cap > mapped ? (cap - mapped) / 2 : 0;
}

uint64_t mlir::lazy::hostMemoryBudget() {
  uint64_t budget = halfPhysicalMemory();
  if (std::optional<uint64_t> left = halfAddressSpaceLeft())
    budget = std::min(budget, *left);
  return budget;
}

std::string mlir::lazy::describeMemoryBudget() {
  std::optional<uint64_t> left = halfAddressSpaceLeft();
  if (left && *left < halfPhysicalMemory())
    return "half the address space left under the process's limit, ulimit "
           "-v";
  return "half the host's memory";
}

std::optional<uint64_t> mlir::lazy::tensorBytes(ArrayRef<int64_t> shape,
                                                int64_t itemBytes) {
  uint64_t bytes = uint64_t(itemBytes);
  for (int64_t dim : shape)
    if (dim < 0 || __builtin_mul_overflow(bytes, uint64_t(dim), &bytes))
      return std::nullopt;
  return bytes;
}

/// The ops (movement ops and buffer_views, innermost first) through which
/// `result` views a function argument with no computation between, and
/// that argument; nullopt for any other result.
static std::optional<std::pair<Value, SmallVector<Operation *>>>
viewedArgument(Value result) {
  SmallVector<Operation *> chain;
  Value root = result;
  while (Operation *def = root.getDefiningOp()) {
    if (!isa<ViewOp, ReshapeOp, PermuteOp, ExpandOp, PadOp, ShrinkOp, StrideOp,
             BufferViewOp>(def))
      return std::nullopt;
    chain.push_back(def);
    root = def->getOperand(0);
  }
  std::reverse(chain.begin(), chain.end());
  return std::make_pair(root, std::move(chain));
}

/// A borrowed Held of `tensor`: its pointer owns nothing.
static Held borrow(const HostTensor &tensor) {
  return Held{std::shared_ptr<HostTensor>(std::shared_ptr<HostTensor>(),
                                          const_cast<HostTensor *>(&tensor)),
              std::nullopt};
}

/// `chain` (see viewedArgument) evaluated from `contents` of its argument.
static FailureOr<HostTensor> evaluateChain(Value root,
                                           ArrayRef<Operation *> chain,
                                           const HostTensor &contents,
                                           Evaluator &evaluator) {
  HeldValues chainValues;
  chainValues[root] = borrow(contents);
  for (Operation *op : chain) {
    FailureOr<Held> value = evaluator.evaluate(op, chainValues);
    if (failed(value))
      return failure();
    chainValues[op->getResult(0)] = std::move(*value);
  }
  Value last = chain.empty() ? root : chain.back()->getResult(0);
  return evaluator.materialize(last, chainValues[last]);
}

HostTensor mlir::lazy::readThroughView(const uint8_t *bytes, int64_t elements,
                                       DType dtype,
                                       const st::ShapeTracker &tracker) {
  HostTensor out = HostTensor::zeros(dtype, tracker.shape());
  int64_t shape[1] = {elements};
  readThrough(TensorRef{dtype, shape, bytes}, tracker, out);
  return out;
}

FailureOr<std::vector<HostTensor>>
mlir::lazy::interpretFunction(func::FuncOp func, ArrayRef<HostTensor> inputs,
                              uint64_t memoryBudget) {
  if (func.isExternal())
    return func.emitError("cannot interpret a function without a body");
  Block &body = func.getBody().front();
  if (inputs.size() != body.getNumArguments())
    return func.emitError() << "expected " << body.getNumArguments()
                            << " inputs, got " << inputs.size();

  // Inputs are read in place: the caller holds them throughout.
  HeldValues values;
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    std::optional<DType> dtype =
        type ? dtypeOf(type.getElementType()) : std::nullopt;
    if (!dtype)
      return func.emitError()
             << "argument #" << i << " is not a tensor of a tinygrad dtype";
    const HostTensor &input = inputs[i];
    if (input.dtype != *dtype || input.shape != shapeOf(type))
      return func.emitError()
             << "input #" << i << " has dtype "
             << interp::dtypeName(input.dtype) << " and shape ("
             << llvm::interleaved(input.shape, ", ")
             << (input.shape.size() == 1 ? ",)" : ")") << "; the argument is "
             << type;
    values[arg] = borrow(input);
  }

  // Bytes held at once (the capacity of every base buffer alive, the
  // inputs included), checked against the budget before each op, with what
  // the op allocates: its result and its operands' views, read for it. The
  // evaluator's spare buffers count too until they are dropped to make room.
  uint64_t liveBytes = 0;
  for (const HostTensor &input : inputs)
    liveBytes += input.data.capacity();
  // Results that view an argument an ASSIGN targets (no computation
  // between) read its contents after the assign, which are kept for them
  // alone: the other assigned arguments' new contents are not held.
  auto ret =
      dyn_cast_or_null<func::ReturnOp>(body.empty() ? nullptr : &body.back());
  if (!ret)
    return func.emitError("function has no return");
  // Only what the results need runs, as only that is scheduled: an ASSIGN
  // no result reaches leaves its target as it was (found by
  // scripts/fuzz_schedule.py: a dead assign to a returned argument).
  llvm::DenseSet<Operation *> needed;
  {
    SmallVector<Value> stack(ret.getOperands().begin(),
                             ret.getOperands().end());
    while (!stack.empty()) {
      Operation *def = stack.pop_back_val().getDefiningOp();
      if (def && needed.insert(def).second)
        stack.append(def->getOperands().begin(), def->getOperands().end());
    }
  }
  // Drop each value after its last use so memory follows the live set.
  llvm::DenseMap<Value, Operation *> lastUse;
  for (Operation &op : body)
    if (needed.contains(&op) || &op == ret.getOperation())
      for (Value operand : op.getOperands())
        lastUse[operand] = &op;
  llvm::DenseSet<Value> assignTargets;
  for (Operation &op : body)
    if (auto assign = dyn_cast<AssignOp>(op); assign && needed.contains(&op))
      assignTargets.insert(assign.getTarget());
  std::vector<std::optional<std::pair<Value, SmallVector<Operation *>>>>
      resultViews;
  llvm::DenseMap<Value, HostTensor> assignedArgs; // argument -> after
  for (Value v : ret.getOperands()) {
    auto view = viewedArgument(v);
    if (view && isa<BlockArgument>(view->first) &&
        assignTargets.contains(view->first))
      assignedArgs[view->first] = HostTensor();
    else
      view.reset();
    resultViews.push_back(std::move(view));
  }

  // Bytes of tensors of `types` together; nullopt past 2^64 (or for a
  // type that is not a tensor of a tinygrad dtype).
  auto bytesOf = [](TypeRange types) -> std::optional<uint64_t> {
    uint64_t total = 0;
    for (Type type : types) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      std::optional<DType> dtype =
          tensor ? dtypeOf(tensor.getElementType()) : std::nullopt;
      std::optional<uint64_t> bytes =
          dtype ? tensorBytes(tensor.getShape(), interp::itemSize(*dtype))
                : std::nullopt;
      if (!bytes || __builtin_add_overflow(total, *bytes, &total))
        return std::nullopt;
    }
    return total;
  };
  Evaluator evaluator;
  for (Operation &op : body) {
    if (&op == ret) {
      // Every result is new bytes (a view read, or a copy of what the
      // graph holds).
      std::optional<uint64_t> resultBytes = bytesOf(ret.getOperandTypes());
      if (!resultBytes || *resultBytes > memoryBudget ||
          liveBytes > memoryBudget - *resultBytes)
        return ret.emitOpError()
               << "returns "
               << (resultBytes ? std::to_string(*resultBytes) : "over 2^64")
               << " bytes of results from the reference interpreter: with "
               << "the " << liveBytes << " bytes it holds already, that is "
               << "over its budget of " << memoryBudget << " bytes ("
               << describeMemoryBudget() << ")";
      evaluator.dropSpares();
      std::vector<HostTensor> outputs;
      for (auto [v, view] : llvm::zip(ret.getOperands(), resultViews)) {
        const HostTensor *after = view ? &assignedArgs[view->first] : nullptr;
        // (An assign not evaluated before the return leaves it empty.)
        if (!after || after->data.empty()) {
          outputs.push_back(evaluator.materialize(v, values[v]));
          continue;
        }
        FailureOr<HostTensor> value =
            evaluateChain(view->first, view->second, *after, evaluator);
        if (failed(value))
          return failure();
        outputs.push_back(std::move(*value));
      }
      return outputs;
    }
    if (!needed.contains(&op))
      continue;
    if (op.getNumResults() != 1 || !isa<LazyDialect>(op.getDialect()))
      return op.emitOpError("cannot be evaluated by the lazy reference "
                            "interpreter");
    // What the op allocates: nothing for a movement op; else its result
    // and each operand read through a view.
    SmallVector<Type> allocated;
    if (!isMovement(&op)) {
      allocated.push_back(op.getResult(0).getType());
      for (Value operand : op.getOperands())
        if (auto it = values.find(operand);
            it != values.end() && it->second.view)
          allocated.push_back(operand.getType());
    }
    std::optional<uint64_t> bytes = bytesOf(allocated);
    auto overBudget = [&](uint64_t held) {
      return !bytes || *bytes > memoryBudget || held > memoryBudget - *bytes;
    };
    if (overBudget(liveBytes + evaluator.spareBytes()))
      evaluator.dropSpares();
    if (overBudget(liveBytes))
      return op.emitOpError()
             << "needs " << (bytes ? std::to_string(*bytes) : "over 2^64")
             << " bytes for its result and the views it reads in the "
             << "reference interpreter: with the " << liveBytes
             << " bytes it holds already, that is over its budget of "
             << memoryBudget << " bytes (" << describeMemoryBudget() << ")";
    FailureOr<Held> result = evaluator.evaluate(&op, values);
    if (failed(result))
      return failure();
    if (auto assign = dyn_cast<AssignOp>(op)) {
      HostTensor written = evaluator.takeAssignedBuffer();
      if (auto it = assignedArgs.find(assign.getTarget());
          it != assignedArgs.end()) {
        liveBytes -= it->second.data.capacity();
        liveBytes += written.data.capacity();
        it->second = std::move(written);
      }
    }
    if (result->soleOwner())
      liveBytes += result->base->data.capacity();
    values[op.getResult(0)] = std::move(*result);
    // Operands past their last use die, and so does a result nothing uses.
    SmallVector<Value, 4> dying;
    for (Value operand : op.getOperands())
      if (lastUse.lookup(operand) == &op)
        dying.push_back(operand);
    if (!lastUse.count(op.getResult(0)))
      dying.push_back(op.getResult(0));
    for (Value value : dying) {
      auto it = values.find(value);
      if (it == values.end())
        continue;
      Held dead = std::move(it->second);
      values.erase(it);
      if (dead.soleOwner()) {
        liveBytes -= dead.base->data.capacity();
        evaluator.recycle(std::move(*dead.base));
      }
    }
  }
  llvm_unreachable("the walk returns at the function's return");
}

Type mlir::lazy::roundingElementType(func::FuncOp func, unsigned index) {
  Operation *ret = func.getBody().front().getTerminator();
  FloatType narrowest;
  auto consider = [&](Type type) {
    auto element = dyn_cast<FloatType>(getElementTypeOrSelf(type));
    if (element && (!narrowest || element.getFPMantissaWidth() <
                                      narrowest.getFPMantissaWidth()))
      narrowest = element;
  };
  Value result = ret->getOperand(index);
  consider(result.getType());
  // The cone, walked with a worklist: graphs are deep.
  SmallVector<Operation *> worklist;
  DenseSet<Operation *> seen;
  if (Operation *def = result.getDefiningOp())
    worklist.push_back(def);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!seen.insert(op).second)
      continue;
    // A comparison's or a cast's integer or bool result does not carry its
    // operands' float rounding as such: a different rounding there is a
    // different branch or integer, no tolerance covers it, so the walk
    // stops (an f16 test would otherwise loosen an f32 result's check).
    if (llvm::none_of(op->getResultTypes(), [](Type type) {
          return isa<FloatType>(getElementTypeOrSelf(type));
        }))
      continue;
    // These move, copy or reinterpret values (or make them from nothing)
    // without rounding; every other op computes in its result's type.
    if (!isa<ConstOp, EmptyOp, AssignOp>(op) && !isMovement(op) &&
        !copiesBytes(op))
      for (Type type : op->getResultTypes())
        consider(type);
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.push_back(def);
  }
  return narrowest;
}

std::vector<double> mlir::lazy::floatValues(const HostTensor &tensor) {
  std::vector<double> values;
  if (!interp::isFloat(tensor.dtype))
    return values;
  int64_t n = tensor.numElements();
  values.reserve(n);
  const uint8_t *data = tensor.data.data();
  for (int64_t i = 0; i < n; ++i) {
    switch (tensor.dtype) {
    case DType::Float64: {
      double d;
      std::memcpy(&d, data + 8 * i, 8);
      values.push_back(d);
      break;
    }
    case DType::Float32: {
      float f;
      std::memcpy(&f, data + 4 * i, 4);
      values.push_back(f);
      break;
    }
    default: {
      uint16_t h;
      std::memcpy(&h, data + 2 * i, 2);
      values.push_back(tensor.dtype == DType::Float16
                           ? interp::halfToFloat(h)
                           : interp::bfloat16ToFloat(h));
    }
    }
  }
  return values;
}

/// Whether a graph's float values can be evaluated otherwise than the
/// interpreter does (in f64, with rounding noise) and still mean the same:
/// no value depends on float bits or host code.
static bool hasFloatTwin(func::FuncOp func, ArrayRef<HostTensor> inputs) {
  bool twin = true;
  func.walk([&](Operation *op) {
    if (isa<BitcastOp, BufferViewOp, CustomOp>(op))
      twin = false;
  });
  return twin && inputs.size() == func.getNumArguments();
}

FailureOr<std::vector<HostTensor>> mlir::lazy::interpretWithRoundingNoise(
    func::FuncOp func, ArrayRef<HostTensor> inputs, uint64_t seed) {
  if (!hasFloatTwin(func, inputs))
    return failure();
  RoundingNoise noise{seed};
  roundingNoise = &noise;
  // The noisy evaluation's failures are not the graph's: no diagnostics.
  ScopedDiagnosticHandler quiet(func.getContext(),
                                [](Diagnostic &) { return success(); });
  FailureOr<std::vector<HostTensor>> results = interpretFunction(func, inputs);
  roundingNoise = nullptr;
  return results;
}

FailureOr<std::vector<HostTensor>>
mlir::lazy::interpretInFloat64(func::FuncOp func, ArrayRef<HostTensor> inputs) {
  if (!hasFloatTwin(func, inputs))
    return failure();
  MLIRContext *context = func.getContext();
  Type f64 = Float64Type::get(context);
  auto widen = [&](Type type) -> Type {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (tensor && isa<FloatType>(tensor.getElementType()))
      return tensor.clone(f64);
    return type;
  };
  OwningOpRef<func::FuncOp> twin = func.clone();
  Block &body = twin->getBody().front();
  for (BlockArgument arg : body.getArguments())
    arg.setType(widen(arg.getType()));
  twin->walk([&](Operation *op) {
    // The value the narrow graph computes with, not the exact double: the
    // twin models the narrow program's arithmetic, not another program's.
    if (auto constant = dyn_cast<ConstOp>(op))
      if (auto value = dyn_cast<FloatAttr>(constant.getElementValue()))
        constant.setValueAttr(FloatAttr::get(f64, value.getValueAsDouble()));
    for (Value result : op->getResults())
      result.setType(widen(result.getType()));
  });
  twin->setType(FunctionType::get(context, body.getArgumentTypes(),
                                  body.getTerminator()->getOperandTypes()));
  std::vector<HostTensor> wide;
  wide.reserve(inputs.size());
  for (const HostTensor &input : inputs) {
    if (!interp::isFloat(input.dtype) || input.dtype == DType::Float64) {
      wide.push_back(input);
      continue;
    }
    HostTensor widened = HostTensor::zeros(DType::Float64, input.shape);
    std::vector<double> values = floatValues(input);
    std::memcpy(widened.data.data(), values.data(), values.size() * 8);
    wide.push_back(std::move(widened));
  }
  // The twin's failures are not the graph's: no diagnostics.
  ScopedDiagnosticHandler quiet(context,
                                [](Diagnostic &) { return success(); });
  return interpretFunction(*twin, wide);
}
