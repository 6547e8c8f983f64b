//===- GraphInputOptions.h - options of the tools that run a graph -*- C++
//-*-===//
//
// lazy-run and lazy-interp run one function of a module on inputs: the same
// five options say which file, which function, which inputs (.npy files or
// a seed) and where the results go. Each is bound (cl::location) to the
// field of the same name in the tool's own options struct.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_TOOLS_GRAPHINPUTOPTIONS_H
#define LAZY_TOOLS_GRAPHINPUTOPTIONS_H

#include "llvm/Support/CommandLine.h"

#include <string>
#include <vector>

namespace mlir::lazy {

/// Registers the five options when constructed (before the command line is
/// parsed); `Fields` has `inputFile` ("-": stdin), `entry`, `inputs`,
/// `seed` and `outputDir`.
struct GraphInputOptions {
  template <typename Fields>
  GraphInputOptions(llvm::cl::OptionCategory &category, Fields &into)
      : inputFile(llvm::cl::cat(category), llvm::cl::Positional,
                  llvm::cl::desc("<graph.mlir>"),
                  llvm::cl::location(into.inputFile)),
        entry(llvm::cl::cat(category), "entry",
              llvm::cl::desc("function to run (default: the first one "
                             "defined)"),
              llvm::cl::location(into.entry)),
        inputs(llvm::cl::cat(category), "input",
               llvm::cl::desc("argument input, I=PATH.npy (the others are "
                              "generated from --seed)"),
               llvm::cl::location(into.inputs)),
        seed(llvm::cl::cat(category), "seed",
             llvm::cl::desc("seed for generated inputs"),
             llvm::cl::location(into.seed)),
        outputDir(llvm::cl::cat(category), "output-dir",
                  llvm::cl::desc("where the results, out<i>.npy, are "
                                 "written"),
                  llvm::cl::location(into.outputDir)) {}

  llvm::cl::opt<std::string, /*ExternalStorage=*/true> inputFile, entry;
  llvm::cl::list<std::string, std::vector<std::string>> inputs;
  llvm::cl::opt<unsigned, /*ExternalStorage=*/true> seed;
  llvm::cl::opt<std::string, /*ExternalStorage=*/true> outputDir;
};

} // namespace mlir::lazy

#endif // LAZY_TOOLS_GRAPHINPUTOPTIONS_H
