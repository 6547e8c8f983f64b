//===- RunGraph.h - parse, schedule, compile, run and check -----*- C++ -*-===//
//
// The job lazy-run does, as a library: parse a module, take its graph
// function, make its inputs, schedule it, lower and compile it for the CPU,
// a GPU or the GPU emulator, run it, check it against the reference
// interpreter and write its outputs. Tools and embedders fill RunOptions and
// call runGraph; lazy-run's header comment documents each option.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DRIVER_RUNGRAPH_H
#define LAZY_DRIVER_RUNGRAPH_H

#include <optional>
#include <string>
#include <vector>

namespace mlir::lazy {

/// What to run and how (lazy-run's options of the same names).
struct RunOptions {
  /// The module's file ("-": stdin) and the graph function (empty: the
  /// first defined one).
  std::string inputFile = "-", entry;
  /// Arguments from .npy files, I=PATH; the others are made from `seed`.
  std::vector<std::string> inputs;
  unsigned seed = 0;
  /// Where out<i>.npy are written (empty: nowhere).
  std::string outputDir;
  /// Compare the outputs, or each kernel call (CPU), with the interpreter.
  bool check = false, checkKernels = false;
  /// cpu, cuda, hip or emulate; the GPU's chip (empty: the device's own).
  std::string device = "cpu", chip;
  /// Timed re-runs after the first, and untimed ones before them.
  unsigned repeat = 0, warmup = 0;
  /// CPU: write the compiled objects to this directory.
  std::string dumpObjects;
  /// GPU: every kernel on the emulator too, differences printed.
  bool lockstep = false;
  /// GPU: convert-lazy-to-gpu's and lazy-optimize-kernels' options, and
  /// the tensor-core instruction (empty: the device's).
  std::string kernelOptions, planOptions, tensorCores;
  /// Forced plan steps, KERNEL:KIND:AXIS:AMOUNT or KERNEL:none.
  std::vector<std::string> plans;
  /// CPU: time up to this many candidate plans per kernel (0: none).
  unsigned searchPlans = 0;
  /// Time every kernel (CPU calls, GPU launches).
  bool profile = false;
  /// GPU: write a device plan to this directory instead of running.
  std::string record;
  bool recordInputs = true;
  /// CPU: lazy-to-cpu's fast-exp2 (on unless --fast-exp2=false); compile
  /// a copy first, untimed.
  bool fastExp2 = true, warmCompile = false;
  /// Print each phase's wall time to stderr.
  bool timing = false;
  /// CPU: the compiled-program cache's directory (empty: the
  /// environment's, ProgramCache.h), or no cache at all.
  std::string cacheDir;
  bool noCache = false;
  /// CPU: compile threads (0: one per hardware thread).
  unsigned compileThreads = 0;
  /// Variables' values, NAME=VALUE.
  std::vector<std::string> variables;
  /// Run as one rank of an `mpirun -n N` job: this rank's device's part
  /// of the schedule (lazy-distribute), on the CPU.
  bool distributed = false;
  /// --distributed: seconds a rank waits for the others before it gives up
  /// (a rank failed or hangs), ending the job.
  unsigned mpiTimeout = 300;
};

/// Options that contradict each other or the device: the message, or none.
std::optional<std::string> checkRunOptions(const RunOptions &options);

/// Does the whole job; the process's exit code (0: ran, and with a check
/// every output matched). Errors go to stderr, results to stdout, each
/// line prefixed as lazy-run's.
int runGraph(const RunOptions &options);

} // namespace mlir::lazy

#endif // LAZY_DRIVER_RUNGRAPH_H
