//===- SymbolicSyntax.h - Symbolic ints in lazy attributes ------*- C++ -*-===//
//
// Part of lazy-mlir.
//
//===----------------------------------------------------------------------===//
//
// The textual form of a symbolic int (tinygrad's sint) inside `#lazy.st`
// and `#lazy.sym_shape`, close to tinygrad's own rendering but in MLIR's
// tokens (`//` would start a comment, so division is `floordiv` as in
// affine maps):
//
//   sint := integer
//         | name `[` lo `:` hi (`=` bound)? `]`          a Variable
//         | `(` sint (`+` sint)+ `)`                     a sum
//         | `(` sint `*` sint `)`                        a product
//         | `(` sint `floordiv` integer `)`              floor division
//         | `(` sint `mod` integer `)`                   modulo
//
// `start_pos[1:8=4]` is tinygrad's `Variable("start_pos", 1, 8).bind(4)`.
// Parsing re-applies tinygrad's rewrite rules, so what is read is in the
// normal form tinygrad would hold (a sum's terms may print in another
// order than they were written).
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_IR_SYMBOLICSYNTAX_H
#define LAZY_DIALECT_LAZY_IR_SYMBOLICSYNTAX_H

#include "lazy/ShapeTracker/Symbolic.h"

#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::lazy {

void printSInt(llvm::raw_ostream &os, const ::lazy::st::sym::SInt &value);
std::string sintText(const ::lazy::st::sym::SInt &value);
ParseResult parseSInt(AsmParser &parser, ::lazy::st::sym::SInt &value);
/// The rest of a Variable, `[lo:hi]` or `[lo:hi=bound]`, after its name.
ParseResult parseVariableAfterName(AsmParser &parser, StringRef name,
                                   ::lazy::st::sym::SInt &value);

} // namespace mlir::lazy

namespace lazy::st::sym {
/// Hash consistent with `eq` on view entries (which hold no NumNode).
llvm::hash_code hash_value(const SInt &value);
} // namespace lazy::st::sym

#endif // LAZY_DIALECT_LAZY_IR_SYMBOLICSYNTAX_H
