//===- NestingLimit.h - refuse inputs nested deeper than the tools take ---===//
//
// MLIR's parser takes time quadratic in the nesting of regions (20,000
// nested modules parse in 9 s, 100,000 in minutes), so the tools refuse an
// input that nests `{`, `[` or `(` deeper than kMaxNesting levels, outside
// strings and `//` comments, with the position where it does; real IR
// nests a few dozen levels. (The tools' large stack, LargeStack.h, keeps
// every depth below the limit from overflowing.)
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_TOOLS_NESTINGLIMIT_H
#define LAZY_TOOLS_NESTINGLIMIT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"

#include <optional>
#include <string>

namespace mlir::lazy {

inline constexpr unsigned kMaxNesting = 10000;

/// The byte offset in `text` of the bracket that opens level `limit` + 1,
/// or nullopt when the text never nests that deep.
inline std::optional<size_t> findExcessiveNesting(llvm::StringRef text,
                                                  unsigned limit) {
  unsigned depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      // A string: up to the next unescaped quote.
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == llvm::StringRef::npos)
        return std::nullopt;
    } else if (c == '{' || c == '[' || c == '(') {
      if (++depth > limit)
        return i;
    } else if ((c == '}' || c == ']' || c == ')') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

/// "NAME:LINE:COL: error: ..." for an input nested deeper than
/// kMaxNesting, or an empty string.
inline std::string checkNesting(llvm::StringRef name, llvm::StringRef text) {
  std::optional<size_t> at = findExcessiveNesting(text, kMaxNesting);
  if (!at)
    return "";
  llvm::StringRef before = text.take_front(*at);
  size_t line = before.count('\n') + 1;
  size_t lineStart = before.rfind('\n');
  size_t column =
      lineStart == llvm::StringRef::npos ? *at + 1 : *at - lineStart;
  return llvm::formatv("{0}:{1}:{2}: error: the input nests deeper than {3} "
                       "levels",
                       name, line, column, kMaxNesting)
      .str();
}

} // namespace mlir::lazy

#endif // LAZY_TOOLS_NESTINGLIMIT_H
