//===- HostFunctions.cpp - tinygrad's host callables, in C++ --------------===//
//
// numpy's SeedSequence, PCG64 and Generator.random / Generator.integers, as
// numpy 1.17+ define them (numpy/random/bit_generator.pyx,
// src/pcg64/pcg64.h, src/distributions/distributions.c). The Python tests
// compare every step with numpy itself.
//
//===----------------------------------------------------------------------===//

#include "lazy/Interpreter/HostFunctions.h"

#include <cstring>
#include <vector>

using namespace lazy::interp;

namespace {

// SeedSequence's hash constants.
constexpr uint32_t kInitA = 0x43b0d7e5, kMultA = 0x931e8875;
constexpr uint32_t kInitB = 0x8b51f9dd, kMultB = 0x58f38ded;
constexpr uint32_t kMixMultL = 0xca01f9dd, kMixMultR = 0x4973f715;
constexpr int kXShift = 16;
constexpr int kPoolSize = 4;

/// SeedSequence(seed).generate_state(8, np.uint32): the seed's 32-bit
/// words mixed into a pool of four, then hashed out.
std::vector<uint32_t> seedSequenceState(uint64_t seed, int words) {
  std::vector<uint32_t> entropy;
  do {
    entropy.push_back(uint32_t(seed));
    seed >>= 32;
  } while (seed != 0);
  uint32_t hashConst = kInitA;
  auto hashmix = [&](uint32_t value) {
    value ^= hashConst;
    hashConst *= kMultA;
    value *= hashConst;
    value ^= value >> kXShift;
    return value;
  };
  auto mix = [](uint32_t x, uint32_t y) {
    uint32_t result = kMixMultL * x - kMixMultR * y;
    result ^= result >> kXShift;
    return result;
  };
  uint32_t pool[kPoolSize];
  for (int i = 0; i < kPoolSize; ++i)
    pool[i] = hashmix(i < int(entropy.size()) ? entropy[i] : 0);
  for (int src = 0; src < kPoolSize; ++src)
    for (int dst = 0; dst < kPoolSize; ++dst)
      if (src != dst)
        pool[dst] = mix(pool[dst], hashmix(pool[src]));
  for (size_t src = kPoolSize; src < entropy.size(); ++src)
    for (int dst = 0; dst < kPoolSize; ++dst)
      pool[dst] = mix(pool[dst], hashmix(entropy[src]));

  std::vector<uint32_t> state(words);
  hashConst = kInitB;
  for (int i = 0; i < words; ++i) {
    uint32_t value = pool[i % kPoolSize];
    value ^= hashConst;
    hashConst *= kMultB;
    value *= hashConst;
    value ^= value >> kXShift;
    state[i] = value;
  }
  return state;
}

using u128 = unsigned __int128;
constexpr u128 kPcgMultiplier =
    (u128(0x2360ED051FC65DA4ULL) << 64) | 0x4385DF649FCCF645ULL;

} // namespace

NumpyGenerator::NumpyGenerator(uint64_t seed) {
  // generate_state(4, np.uint64): pairs of words, low word first.
  std::vector<uint32_t> words = seedSequenceState(seed, 8);
  uint64_t u[4];
  for (int i = 0; i < 4; ++i)
    u[i] = uint64_t(words[2 * i]) | uint64_t(words[2 * i + 1]) << 32;
  u128 initState = u128(u[0]) << 64 | u[1];
  u128 initSeq = u128(u[2]) << 64 | u[3];
  // pcg_setseq_128_srandom_r.
  increment = initSeq << 1 | 1;
  state = 0;
  state = state * kPcgMultiplier + increment;
  state += initState;
  state = state * kPcgMultiplier + increment;
}

uint64_t NumpyGenerator::next64() {
  // Step, then XSL-RR output of the new state.
  state = state * kPcgMultiplier + increment;
  uint64_t high = uint64_t(state >> 64), low = uint64_t(state);
  uint64_t x = high ^ low;
  unsigned rotate = unsigned(state >> 122);
  return (x >> rotate) | (x << ((64 - rotate) & 63));
}

uint32_t NumpyGenerator::next32() {
  if (hasHalf) {
    hasHalf = false;
    return half;
  }
  uint64_t next = next64();
  hasHalf = true;
  half = uint32_t(next >> 32);
  return uint32_t(next);
}

float NumpyGenerator::randomFloat32() {
  return float(next32() >> 8) * (1.0f / 16777216.0f);
}

int64_t NumpyGenerator::integers(int64_t low, int64_t high) {
  // Lemire's method on 32-bit draws (numpy's buffered_bounded_lemire_uint32
  // for ranges that fit 32 bits).
  uint64_t range = uint64_t(high - low - 1);
  uint64_t exclusive = range + 1;
  uint64_t m = uint64_t(next32()) * exclusive;
  uint32_t leftover = uint32_t(m);
  if (leftover < exclusive) {
    uint32_t threshold = uint32_t((uint64_t(UINT32_MAX) - range) % exclusive);
    while (leftover < threshold) {
      m = uint64_t(next32()) * exclusive;
      leftover = uint32_t(m);
    }
  }
  return low + int64_t(m >> 32);
}

/// numpy's astype from float64 to `dtype` for one value in [0, 1).
static void storeAs(DType dtype, double value, uint8_t *at) {
  auto put = [&](auto v) { std::memcpy(at, &v, sizeof(v)); };
  switch (dtype) {
  case DType::Bool:
    put(uint8_t(value != 0));
    break;
  case DType::Int8:
    put(int8_t(value));
    break;
  case DType::UInt8:
    put(uint8_t(value));
    break;
  case DType::Int16:
    put(int16_t(value));
    break;
  case DType::UInt16:
    put(uint16_t(value));
    break;
  case DType::Int32:
    put(int32_t(value));
    break;
  case DType::UInt32:
    put(uint32_t(value));
    break;
  case DType::Int64:
    put(int64_t(value));
    break;
  case DType::UInt64:
    put(uint64_t(value));
    break;
  case DType::Float16: // rounded once, as numpy does
    put(floatToHalf(roundToOddFloat(value)));
    break;
  case DType::Float32:
    put(float(value));
    break;
  case DType::Float64:
    put(value);
    break;
  case DType::BFloat16:
    break; // refused by the caller
  }
}

std::string lazy::interp::customRandom(uint64_t seed, DType dtype, void *out,
                                       int64_t count) {
  if (dtype == DType::BFloat16)
    return "custom_random cannot fill bfloat16 (numpy has no such dtype; "
           "tinygrad fails too)";
  NumpyGenerator rng(seed);
  auto *bytes = static_cast<uint8_t *>(out);
  int64_t size = itemSize(dtype);
  for (int64_t i = 0; i < count; ++i) {
    // Half draws integers in [0, 2047) over 2048 (exact in half); every
    // other dtype casts a float32 draw.
    double value = dtype == DType::Float16
                       ? double(rng.integers(0, 2047)) / 2048.0
                       : double(rng.randomFloat32());
    storeAs(dtype, value, bytes + i * size);
  }
  return "";
}

extern "C" int32_t lazy_rt_custom_random(int64_t seed, int32_t dtype, void *out,
                                         int64_t count) {
  return customRandom(uint64_t(seed), DType(dtype), out, count).empty() ? 0 : 1;
}
