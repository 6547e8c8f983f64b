//===- Arguments.cpp - inputs for lazy-interp and lazy-run ----------------===//

#include "lazy/Interpreter/Arguments.h"
#include "lazy/Interpreter/Interpreter.h"
#include "lazy/Interpreter/Npy.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

/// A shape as numpy prints it: (2, 3), (4,), ().
static std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

using namespace mlir;
using namespace mlir::lazy;
namespace interp = ::lazy::interp;

std::optional<PreparedArguments>
mlir::lazy::prepareArguments(func::FuncOp func, ArrayRef<std::string> specs,
                             unsigned seed, std::string &error) {
  unsigned numArgs = func.getNumArguments();
  std::vector<std::optional<interp::HostTensor>> given(numArgs);
  for (const std::string &spec : specs) {
    size_t eq = spec.find('=');
    unsigned index;
    if (eq == std::string::npos ||
        llvm::StringRef(spec).take_front(eq).getAsInteger(10, index)) {
      error = "--input expects I=PATH.npy, got '" + spec + "'";
      return std::nullopt;
    }
    if (index >= numArgs) {
      error = "--input " + std::to_string(index) + ": the function has only " +
              std::to_string(numArgs) + " arguments";
      return std::nullopt;
    }
    given[index] = interp::readNpy(spec.substr(eq + 1), error);
    if (!given[index])
      return std::nullopt;
  }

  // Generated or read, the arguments are held in memory at once.
  uint64_t totalBytes = 0, budget = hostMemoryBudget();
  for (Type t : func.getArgumentTypes()) {
    auto type = dyn_cast<RankedTensorType>(t);
    std::optional<interp::DType> dtype =
        type ? dtypeOf(type.getElementType()) : std::nullopt;
    if (!dtype)
      continue;
    std::optional<uint64_t> bytes =
        tensorBytes(type.getShape(), interp::itemSize(*dtype));
    if (!bytes || __builtin_add_overflow(totalBytes, *bytes, &totalBytes) ||
        totalBytes > budget) {
      error = "the arguments need more than " + std::to_string(budget) +
              " bytes (" + describeMemoryBudget() + ")";
      return std::nullopt;
    }
  }

  PreparedArguments prepared;
  std::mt19937_64 rng(seed);
  for (unsigned i = 0; i < numArgs; ++i) {
    auto type = dyn_cast<RankedTensorType>(func.getArgumentTypes()[i]);
    std::optional<interp::DType> dtype =
        type ? dtypeOf(type.getElementType()) : std::nullopt;
    if (!dtype) {
      error = "argument #" + std::to_string(i) +
              " is not a tensor of a tinygrad dtype";
      return std::nullopt;
    }
    std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
    if (given[i]) {
      if (given[i]->dtype != *dtype || given[i]->shape != shape) {
        std::string typeText;
        llvm::raw_string_ostream os(typeText);
        os << type;
        error = "input #" + std::to_string(i) + " has dtype " +
                interp::dtypeName(given[i]->dtype) + " and shape " +
                shapeText(given[i]->shape) + "; the argument is '" + typeText +
                "'";
        return std::nullopt;
      }
      prepared.values.push_back(std::move(*given[i]));
      prepared.generated.push_back(false);
    } else {
      prepared.values.push_back(interp::randomTensor(*dtype, shape, rng));
      prepared.generated.push_back(true);
    }
  }
  return prepared;
}
