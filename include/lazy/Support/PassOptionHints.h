//===- PassOptionHints.h - "did you mean" for misspelled pass options -*-===//
//
// MLIR's pass option parser answers a misspelled option with "no such
// option fusoin" and nothing more. Every lazy-mlir pass derives from
// WithOptionHints (around its generated base) and every pipeline registers
// through registerPipelineWithHints, so the error also names the closest
// option the pass or pipeline has ("; did you mean 'fusion'?"), on the
// command line (--lazy-schedule=fusoin=...) and in --pass-pipeline alike.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_SUPPORT_PASSOPTIONHINTS_H
#define LAZY_SUPPORT_PASSOPTIONHINTS_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::lazy {

/// The option names in `printed`, options as Pass::printAsTextualPipeline
/// or PassOptions::print write them (`name{a=1 b=x}`, `{a=1 b=x}`): the
/// keys at the top level of the first braces.
inline SmallVector<std::string> optionNamesIn(StringRef printed) {
  SmallVector<std::string> names;
  size_t open = printed.find('{');
  if (open == StringRef::npos)
    return names;
  int depth = 0;
  bool atKey = true;
  std::string key;
  for (char c : printed.drop_front(open + 1)) {
    if (depth == 0 && atKey) {
      if (c == '=') {
        names.push_back(key);
        key.clear();
        atKey = false;
      } else if (c == '}') {
        break;
      } else if (c != ' ') {
        key += c;
      }
      continue;
    }
    if (c == '{')
      ++depth;
    else if (c == '}' && depth-- == 0)
      break;
    else if (c == ' ' && depth == 0)
      atKey = true;
  }
  return names;
}

/// `message`, an option parser's error, with "; did you mean 'x'?" added
/// when it names an unknown option within a few edits of one of `names`.
inline std::string withOptionHint(StringRef message,
                                  ArrayRef<std::string> names) {
  std::string text = message.rtrim().str();
  constexpr StringLiteral marker = "no such option ";
  size_t at = message.find(marker);
  if (at == StringRef::npos)
    return text;
  StringRef bad = message.substr(at + marker.size()).take_until([](char c) {
    return c == ' ' || c == '\n';
  });
  unsigned allowed = std::max<unsigned>(2, bad.size() / 3);
  unsigned best = allowed + 1;
  StringRef closest;
  for (const std::string &name : names)
    if (unsigned d = bad.edit_distance(name, /*AllowReplacements=*/true,
                                       /*MaxEditDistance=*/allowed + 1);
        d < best) {
      best = d;
      closest = name;
    }
  if (!closest.empty())
    text += "; did you mean '" + closest.str() + "'?";
  return text;
}

/// A pass whose option errors name the closest option it has. Use around a
/// generated base: `struct P final : WithOptionHints<impl::PBase<P>>`.
template <typename Base> class WithOptionHints : public Base {
public:
  using Base::Base;

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    return Base::initializeOptions(options, [&](const Twine &message) {
      std::string printed;
      llvm::raw_string_ostream os(printed);
      this->printAsTextualPipeline(os);
      return errorHandler(
          withOptionHint(message.str(), optionNamesIn(printed)));
    });
  }
};

/// PassPipelineRegistration<Options>, whose option errors name the closest
/// option of `Options` (and reach the error handler, which prints them where
/// the pipeline was named).
template <typename Options>
void registerPipelineWithHints(
    StringRef arg, StringRef description,
    std::function<void(OpPassManager &, const Options &)> builder) {
  registerPassPipeline(
      arg, description,
      [builder](OpPassManager &pm, StringRef text,
                function_ref<LogicalResult(const Twine &)> errorHandler)
          -> LogicalResult {
        Options options;
        std::string error;
        llvm::raw_string_ostream os(error);
        if (failed(options.parseFromString(text, os))) {
          std::string printed;
          llvm::raw_string_ostream p(printed);
          options.print(p);
          return errorHandler(withOptionHint(error, optionNamesIn(printed)));
        }
        builder(pm, options);
        return success();
      },
      [](function_ref<void(const ::mlir::detail::PassOptions &)> optHandler) {
        optHandler(Options());
      });
}

} // namespace mlir::lazy

#endif // LAZY_SUPPORT_PASSOPTIONHINTS_H
