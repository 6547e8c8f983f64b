//===- HostTensor.cpp - dense host tensors of tinygrad dtypes -------------===//

#include "lazy/Interpreter/HostTensor.h"

#include <cmath>
#include <cstring>

using namespace lazy::interp;

int64_t lazy::interp::itemSize(DType dtype) {
  switch (dtype) {
  case DType::Bool:
  case DType::Int8:
  case DType::UInt8:
    return 1;
  case DType::Int16:
  case DType::UInt16:
  case DType::Float16:
  case DType::BFloat16:
    return 2;
  case DType::Int32:
  case DType::UInt32:
  case DType::Float32:
    return 4;
  case DType::Int64:
  case DType::UInt64:
  case DType::Float64:
    return 8;
  }
  return 1;
}

std::string lazy::interp::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return "bool";
  case DType::Int8:
    return "char";
  case DType::UInt8:
    return "unsigned char";
  case DType::Int16:
    return "short";
  case DType::UInt16:
    return "unsigned short";
  case DType::Int32:
    return "int";
  case DType::UInt32:
    return "unsigned int";
  case DType::Int64:
    return "long";
  case DType::UInt64:
    return "unsigned long";
  case DType::Float16:
    return "half";
  case DType::BFloat16:
    return "__bf16";
  case DType::Float32:
    return "float";
  case DType::Float64:
    return "double";
  }
  return "?";
}

bool lazy::interp::isFloat(DType dtype) {
  return dtype == DType::Float16 || dtype == DType::BFloat16 ||
         dtype == DType::Float32 || dtype == DType::Float64;
}

bool lazy::interp::isSigned(DType dtype) {
  return dtype == DType::Int8 || dtype == DType::Int16 ||
         dtype == DType::Int32 || dtype == DType::Int64;
}

uint16_t lazy::interp::floatToHalf(float value) {
  uint32_t f;
  std::memcpy(&f, &value, 4);
  uint32_t sign = (f >> 16) & 0x8000u;
  uint32_t exp = (f >> 23) & 0xffu;
  uint32_t mant = f & 0x7fffffu;
  if (exp == 0xff) // inf or nan (keep nan quiet)
    return uint16_t(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0));
  int32_t e = int32_t(exp) - 127 + 15;
  if (e >= 0x1f)
    return uint16_t(sign | 0x7c00u); // overflow to inf
  if (e <= 0) {
    if (e < -10)
      return uint16_t(sign); // underflow to signed zero
    // Subnormal: shift the full significand, rounding to nearest even.
    uint32_t m = mant | 0x800000u;
    uint32_t shift = uint32_t(14 - e);
    uint32_t half = m >> shift;
    uint32_t rest = m & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1)))
      ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = (uint32_t(e) << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1)))
    ++half; // may carry into the exponent, up to inf: still correct
  return uint16_t(sign | half);
}

float lazy::interp::halfToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000u) << 16;
  uint32_t exp = (bits >> 10) & 0x1fu;
  uint32_t mant = bits & 0x3ffu;
  uint32_t f;
  if (exp == 0x1f) {
    f = sign | 0x7f800000u | (mant << 13);
  } else if (exp == 0) {
    if (mant == 0) {
      f = sign;
    } else {
      // Normalise a subnormal half.
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while (!(mant & 0x400u));
      f = sign | (uint32_t(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else {
    f = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float out;
  std::memcpy(&out, &f, 4);
  return out;
}

uint16_t lazy::interp::floatToBFloat16(float value) {
  uint32_t f;
  std::memcpy(&f, &value, 4);
  if (std::isnan(value))
    return uint16_t((f >> 16) | 0x40u);
  uint32_t rounding = 0x7fffu + ((f >> 16) & 1u);
  return uint16_t((f + rounding) >> 16);
}

float lazy::interp::roundToOddFloat(double value) {
  float nearest = float(value);
  if (std::isnan(value) || double(nearest) == value)
    return nearest;
  uint32_t bits;
  std::memcpy(&bits, &nearest, 4);
  if ((bits & 1u) == 0)
    // Sign-magnitude: one step down is toward zero.
    bits = std::fabs(double(nearest)) > std::fabs(value) ? bits - 1 : bits + 1;
  std::memcpy(&nearest, &bits, 4);
  return nearest;
}

float lazy::interp::bfloat16ToFloat(uint16_t bits) {
  uint32_t f = uint32_t(bits) << 16;
  float out;
  std::memcpy(&out, &f, 4);
  return out;
}

HostTensor HostTensor::zeros(DType dtype, std::vector<int64_t> shape) {
  HostTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.data.assign(size_t(t.numElements() * itemSize(dtype)), 0);
  return t;
}

int64_t HostTensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Seeded values of a dtype: floats in [-2, 2), integers in [-8, 8) (or
/// [0, 16) unsigned), bools half true.
HostTensor lazy::interp::randomTensor(DType dtype, std::vector<int64_t> shape,
                                      std::mt19937_64 &rng) {
  HostTensor t = HostTensor::zeros(dtype, std::move(shape));
  std::uniform_real_distribution<double> real(-2.0, 2.0);
  for (int64_t i = 0, e = t.numElements(); i < e; ++i) {
    uint8_t *p = &t.data[size_t(i * itemSize(dtype))];
    int64_t small = int64_t(rng() % 16) - (isSigned(dtype) ? 8 : 0);
    switch (dtype) {
    case DType::Bool:
      *p = rng() & 1;
      break;
    case DType::Float16: {
      uint16_t h = floatToHalf(float(real(rng)));
      std::memcpy(p, &h, 2);
      break;
    }
    case DType::BFloat16: {
      uint16_t h = floatToBFloat16(float(real(rng)));
      std::memcpy(p, &h, 2);
      break;
    }
    case DType::Float32: {
      float f = float(real(rng));
      std::memcpy(p, &f, 4);
      break;
    }
    case DType::Float64: {
      double d = real(rng);
      std::memcpy(p, &d, 8);
      break;
    }
    default: // integers: little-endian two's complement of `small`
      std::memcpy(p, &small, size_t(itemSize(dtype)));
      break;
    }
  }
  return t;
}
