//===- HostTensor.h - dense host tensors of tinygrad dtypes -------*- C++
//-*-===//
//
// The values the reference interpreter computes with: a dtype, a shape and
// row-major bytes. Plain C++ (no MLIR), shared by the interpreter and the
// .npy reader/writer.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_INTERPRETER_HOSTTENSOR_H
#define LAZY_INTERPRETER_HOSTTENSOR_H

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace lazy::interp {

/// tinygrad 0.9.2's dtypes (images excluded), in tinygrad's priority order.
enum class DType {
  Bool,
  Int8,
  UInt8,
  Int16,
  UInt16,
  Int32,
  UInt32,
  Int64,
  UInt64,
  Float16,
  BFloat16,
  Float32,
  Float64,
};

/// Bytes per element (bool is one byte, as in tinygrad and numpy).
int64_t itemSize(DType dtype);
/// tinygrad's name: "bool", "int", "unsigned char", "half", "float", ...
std::string dtypeName(DType dtype);
bool isFloat(DType dtype);
bool isSigned(DType dtype);

/// IEEE binary16 and bfloat16 conversions, round to nearest even.
uint16_t floatToHalf(float value);
float halfToFloat(uint16_t bits);
uint16_t floatToBFloat16(float value);
float bfloat16ToFloat(uint16_t bits);
/// `value` rounded to float *to odd*: the truncation, with its last bit set
/// when inexact. A 16-bit float rounded to nearest from this is `value`
/// rounded once, where rounding to nearest twice (double, float, half) can
/// land on a tie `value` was not on: float has more than 11 + 2
/// significand bits.
float roundToOddFloat(double value);

struct HostTensor {
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data; // row-major, numElements() * itemSize bytes

  static HostTensor zeros(DType dtype, std::vector<int64_t> shape);
  int64_t numElements() const;
};

/// Seeded values of a dtype: floats in [-2, 2), integers in [-8, 8) (or
/// [0, 16) unsigned), bools half true.
HostTensor randomTensor(DType dtype, std::vector<int64_t> shape,
                        std::mt19937_64 &rng);

} // namespace lazy::interp

#endif // LAZY_INTERPRETER_HOSTTENSOR_H
