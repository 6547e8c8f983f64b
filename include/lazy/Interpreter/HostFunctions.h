//===- HostFunctions.h - tinygrad's host callables, in C++ ------*- C++ -*-===//
//
// tinygrad's MetaOps.CUSTOM runs a Python callable on the host. The one
// tinygrad 0.9.2 itself schedules is `custom_random` (Tensor.rand and
// everything built on it while THREEFRY is off):
//
//     Tensor._seed += 1
//     rng = np.random.default_rng(Tensor._seed)
//     half:  (rng.integers(low=0, high=2047, size=n) / 2048).astype(half)
//     else:  rng.random(size=n, dtype=np.float32).astype(dtype)
//
// Here it is bit for bit: numpy's default_rng is PCG64 (XSL-RR, 128-bit
// state) seeded through SeedSequence; random() takes the top 24 bits of a
// 32-bit draw; integers() is Lemire's bounded draw. Plain C++ (no MLIR).
//
// The seed is explicit here. Which seed each call gets (tinygrad's counter,
// advanced in schedule order) is the caller's business: see lazy-run.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_INTERPRETER_HOSTFUNCTIONS_H
#define LAZY_INTERPRETER_HOSTFUNCTIONS_H

#include "lazy/Interpreter/HostTensor.h"

#include <cstdint>
#include <string>

namespace lazy::interp {

/// numpy's `np.random.default_rng(seed)` for a non-negative integer seed.
class NumpyGenerator {
public:
  explicit NumpyGenerator(uint64_t seed);
  /// The next 64 raw bits (PCG64's output).
  uint64_t next64();
  /// numpy's next_uint32: the low half of a 64-bit draw, then the high half.
  uint32_t next32();
  /// `Generator.random(dtype=np.float32)`: one float in [0, 1).
  float randomFloat32();
  /// `Generator.integers(low, high)` for high - low <= 2^32: [low, high).
  int64_t integers(int64_t low, int64_t high);

private:
  unsigned __int128 state = 0, increment = 0;
  bool hasHalf = false;
  uint32_t half = 0;
};

/// The name lazy.custom uses for tinygrad's custom_random.
inline constexpr const char *kCustomRandom = "custom_random";

/// tinygrad's custom_random with `seed` into `count` elements of `dtype` at
/// `out`. Returns "" or why it cannot (bfloat16: numpy has no such dtype,
/// so tinygrad fails too).
std::string customRandom(uint64_t seed, DType dtype, void *out, int64_t count);

} // namespace lazy::interp

/// The entry point compiled host code calls (lazy-to-cpu lowers a custom
/// item to a call of it): customRandom with `dtype` a DType's value.
/// Returns 0, or nonzero when customRandom refuses (the caller checked the
/// dtype when lowering, so that does not happen).
extern "C" int32_t lazy_rt_custom_random(int64_t seed, int32_t dtype, void *out,
                                         int64_t count);

#endif // LAZY_INTERPRETER_HOSTFUNCTIONS_H
