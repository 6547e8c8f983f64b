//===- ReferenceCheck.cpp - results judged against the interpreter --------===//

#include "lazy/Runtime/ReferenceCheck.h"

#include "lazy/Interpreter/Interpreter.h"
#include "lazy/Runtime/Tolerance.h"

#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::lazy;
namespace interp = ::lazy::interp;

/// How many evaluations with rounding noise a graph gets whose float
/// results differ from the interpreter's.
static constexpr uint64_t kNoisyRuns = 3;

/// Per element of float result `index`, the range of its values in the
/// reference and the noisy evaluations: how far rounding alone moves it.
/// Empty without noisy evaluations.
static std::vector<double>
noiseSpread(const interp::HostTensor &reference,
            const std::vector<std::vector<interp::HostTensor>> &noisyRuns,
            size_t index) {
  if (noisyRuns.empty())
    return {};
  std::vector<double> low = floatValues(reference);
  std::vector<double> high = low;
  for (const std::vector<interp::HostTensor> &run : noisyRuns) {
    if (index >= run.size())
      return {};
    std::vector<double> values = floatValues(run[index]);
    if (values.size() != low.size())
      return {};
    for (size_t e = 0; e < values.size(); ++e) {
      low[e] = std::fmin(low[e], values[e]);
      high[e] = std::fmax(high[e], values[e]);
    }
  }
  for (size_t e = 0; e < low.size(); ++e)
    high[e] -= low[e];
  return high;
}

std::string Verdict::describe(size_t elements) const {
  std::string line;
  llvm::raw_string_ostream os(line);
  os << (ok ? "match" : "MISMATCH") << ", max abs error " << worst << " ("
     << dtype;
  // A float result judged at a narrower dtype's tolerance says so.
  if (!roundedAs.empty() && roundedAs != dtype &&
      ::lazy::runtime::floatTolerance(dtype.c_str()))
    os << ", computed in " << roundedAs;
  os << ")";
  if (rescued.betweenExact)
    os << "; off the interpreter's, between it and the graph evaluated in "
          "f64: "
       << rescued.betweenExact << " of " << elements << " elements";
  if (rescued.withinNoise)
    os << "; off the interpreter's, within its rounding noise: "
       << rescued.withinNoise << " of " << elements << " elements";
  return line;
}

FailureOr<ReferenceCheck>
ReferenceCheck::evaluate(func::FuncOp func,
                         ArrayRef<interp::HostTensor> inputs) {
  ReferenceCheck check(func, inputs);
  FailureOr<std::vector<interp::HostTensor>> results =
      interpretFunction(func, inputs);
  if (failed(results))
    return failure();
  check.results = std::move(*results);
  return check;
}

Verdict ReferenceCheck::judge(unsigned index, const interp::HostTensor &got) {
  const interp::HostTensor &want = results[index];
  Verdict verdict;
  verdict.dtype = interp::dtypeName(want.dtype);
  if (Type rounded = roundingElementType(func, index))
    verdict.roundedAs = interp::dtypeName(*dtypeOf(rounded));
  verdict.ok = ::lazy::runtime::compareBuffers(
      verdict.dtype, got.data, want.data, verdict.worst, verdict.roundedAs);
  if (verdict.ok || !::lazy::runtime::floatTolerance(verdict.dtype.c_str()))
    return verdict;
  if (!secondOpinionsTried) {
    secondOpinionsTried = true;
    FailureOr<std::vector<interp::HostTensor>> twin =
        interpretInFloat64(func, inputs);
    secondOpinionFailed = failed(twin);
    if (succeeded(twin))
      exact = std::move(*twin);
    for (uint64_t seed = 1; succeeded(twin) && seed <= kNoisyRuns; ++seed) {
      FailureOr<std::vector<interp::HostTensor>> noisy =
          interpretWithRoundingNoise(func, inputs, seed);
      if (failed(noisy)) {
        noisyRuns.clear();
        break;
      }
      noisyRuns.push_back(std::move(*noisy));
    }
  }
  if (index < exact.size()) {
    ::lazy::runtime::FloatEvidence evidence;
    evidence.exact = floatValues(exact[index]);
    evidence.noise = noiseSpread(want, noisyRuns, index);
    verdict.ok = ::lazy::runtime::compareWithEvidence(
        verdict.dtype, got.data, want.data, evidence, verdict.worst,
        verdict.roundedAs, verdict.rescued);
  }
  return verdict;
}
