//===- Npy.cpp - read and write numpy .npy files --------------------------===//
//
// Format: magic "\x93NUMPY", major/minor version, a little-endian header
// length (2 bytes in 1.0, 4 bytes in 2.0/3.0), then a Python dict literal
// {'descr': ..., 'fortran_order': ..., 'shape': (...)} padded with spaces,
// then the raw data.
//
//===----------------------------------------------------------------------===//

#include "lazy/Interpreter/Npy.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <fstream>
#include <sstream>

using namespace lazy::interp;

std::string lazy::interp::npyDescr(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return "|b1";
  case DType::Int8:
    return "|i1";
  case DType::UInt8:
    return "|u1";
  case DType::Int16:
    return "<i2";
  case DType::UInt16:
  case DType::BFloat16:
    return "<u2";
  case DType::Int32:
    return "<i4";
  case DType::UInt32:
    return "<u4";
  case DType::Int64:
    return "<i8";
  case DType::UInt64:
    return "<u8";
  case DType::Float16:
    return "<f2";
  case DType::Float32:
    return "<f4";
  case DType::Float64:
    return "<f8";
  }
  return "";
}

static std::optional<DType> dtypeFromDescr(const std::string &descr) {
  static const std::pair<const char *, DType> table[] = {
      {"|b1", DType::Bool},    {"|i1", DType::Int8},    {"|u1", DType::UInt8},
      {"<i2", DType::Int16},   {"<u2", DType::UInt16},  {"<i4", DType::Int32},
      {"<u4", DType::UInt32},  {"<i8", DType::Int64},   {"<u8", DType::UInt64},
      {"<f2", DType::Float16}, {"<f4", DType::Float32}, {"<f8", DType::Float64},
      {"b1", DType::Bool},     {"i1", DType::Int8},     {"u1", DType::UInt8}};
  for (auto &[name, dtype] : table)
    if (descr == name)
      return dtype;
  return std::nullopt;
}

/// Finds `'key':` in the header dict and returns the text after it.
static std::optional<std::string> headerValue(const std::string &header,
                                              const std::string &key) {
  size_t pos = header.find("'" + key + "'");
  if (pos == std::string::npos)
    return std::nullopt;
  pos = header.find(':', pos);
  if (pos == std::string::npos)
    return std::nullopt;
  size_t start = header.find_first_not_of(' ', pos + 1);
  if (start == std::string::npos)
    return std::nullopt;
  return header.substr(start);
}

std::optional<HostTensor> lazy::interp::readNpy(const std::string &path,
                                                std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot open";
    return std::nullopt;
  }
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  auto fail = [&](const std::string &why) -> std::optional<HostTensor> {
    error = path + ": not a valid .npy file: " + why;
    return std::nullopt;
  };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    return fail("missing the \\x93NUMPY magic");
  unsigned major = uint8_t(bytes[6]);
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = uint8_t(bytes[8]) | (size_t(uint8_t(bytes[9])) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return fail("truncated header");
    headerLen = uint8_t(bytes[8]) | (size_t(uint8_t(bytes[9])) << 8) |
                (size_t(uint8_t(bytes[10])) << 16) |
                (size_t(uint8_t(bytes[11])) << 24);
    headerStart = 12;
  } else {
    return fail("unsupported version " + std::to_string(major));
  }
  if (bytes.size() < headerStart + headerLen)
    return fail("truncated header");
  std::string header = bytes.substr(headerStart, headerLen);

  std::optional<std::string> descr = headerValue(header, "descr");
  std::optional<std::string> order = headerValue(header, "fortran_order");
  std::optional<std::string> shape = headerValue(header, "shape");
  if (!descr || !order || !shape)
    return fail("header lacks descr, fortran_order or shape");
  if (descr->empty() || (*descr)[0] != '\'')
    return fail("descr is not a string");
  std::string descrText = descr->substr(1, descr->find('\'', 1) - 1);
  std::optional<DType> dtype = dtypeFromDescr(descrText);
  if (!dtype)
    return fail("unsupported dtype '" + descrText + "'");
  if (order->compare(0, 5, "False") != 0)
    return fail("Fortran-order arrays are not supported");

  HostTensor tensor;
  tensor.dtype = *dtype;
  if (shape->empty() || (*shape)[0] != '(')
    return fail("shape is not a tuple");
  size_t close = shape->find(')');
  if (close == std::string::npos)
    return fail("shape is not a tuple");
  std::stringstream dims(shape->substr(1, close - 1));
  std::string dim;
  while (std::getline(dims, dim, ',')) {
    size_t first = dim.find_first_not_of(' ');
    if (first == std::string::npos)
      continue;
    dim = dim.substr(first, dim.find_last_not_of(' ') - first + 1);
    for (char c : dim)
      if (!std::isdigit(static_cast<unsigned char>(c)))
        return fail("bad dimension '" + dim + "'");
    if (dim.size() > 15)
      return fail("dimension too large");
    tensor.shape.push_back(std::stoll(dim));
  }
  int64_t count = tensor.numElements();
  if (count < 0 || count > (int64_t(1) << 40))
    return fail("too many elements");
  size_t want = size_t(count * itemSize(*dtype));
  size_t dataStart = headerStart + headerLen;
  if (bytes.size() - dataStart != want)
    return fail("expected " + std::to_string(want) + " data bytes, found " +
                std::to_string(bytes.size() - dataStart));
  tensor.data.assign(bytes.begin() + dataStart, bytes.end());
  return tensor;
}

bool lazy::interp::writeNpy(const std::string &path, const HostTensor &tensor,
                            std::string &error) {
  std::string shape = "(";
  for (size_t i = 0; i < tensor.shape.size(); ++i)
    shape +=
        std::to_string(tensor.shape[i]) + (tensor.shape.size() == 1      ? ","
                                           : i + 1 < tensor.shape.size() ? ", "
                                                                         : "");
  shape += ")";
  std::string header = "{'descr': '" + npyDescr(tensor.dtype) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that the data starts on a 64-byte boundary, ending in '\n'.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  // Whole or not at all: a temporary file beside `path`, renamed over it
  // once written, so a failure leaves an existing file as it was and
  // concurrent writers leave one complete file.
  llvm::Error written =
      llvm::writeToOutput(path, [&](llvm::raw_ostream &out) -> llvm::Error {
        out.write("\x93NUMPY\x01\x00", 8);
        char len[2] = {char(header.size() & 0xff),
                       char((header.size() >> 8) & 0xff)};
        out.write(len, 2);
        out << header;
        out.write(reinterpret_cast<const char *>(tensor.data.data()),
                  tensor.data.size());
        return llvm::Error::success();
      });
  if (written) {
    error = path + ": cannot write: " + llvm::toString(std::move(written));
    return false;
  }
  return true;
}
