//===- lazy-run.cpp - schedule, compile and run a graph -------------------===//
//
// lazy-run GRAPH.mlir [--entry=NAME] [--input=I=PATH.npy ...] [--seed=S]
//          [--output-dir=DIR] [--check] [--check-kernels]
//          [--device=cpu|cuda|hip] [--chip=C] [--var=NAME=VALUE ...]
//          [--plan=KERNEL:KIND:AXIS:AMOUNT,...] [--search-plans=N]
//          [--repeat=N [--warmup=N]] [--dump-objects=DIR]
//          [--distributed [--mpi-timeout=S]]
//
// A thin main over the driver library (lazy/Driver/RunGraph.h), which does
// the work: lib/Driver/RunGraph.cpp lists its stages.
//
// Schedules a graph-level function (lazy-schedule, with the module's flags)
// and runs it. On the CPU the kernels and the scheduled program are lowered
// to the LLVM dialect (lazy-to-cpu), compiled on every core (CpuProgram.h)
// and run. On
// a GPU the kernels are compiled with lazy-to-nvvm (a cubin where ptxas
// is found on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin, PTX for the
// driver to compile otherwise) or lazy-to-rocdl (HSACO), loaded through the
// runtime (runtime/, the vendor driver opened with dlopen), and the host
// code is issued op by op (HostProgram.h). Inputs come from
// .npy files or a seed (as lazy-interp makes them); results go to
// DIR/out<i>.npy. With --check the unscheduled graph is also evaluated by
// the reference interpreter on the same inputs; lazy-run prints the largest
// difference per output and exits 1 on any mismatch (integers and bools
// must be equal; floats within the rtol/atol of the narrowest float dtype
// they were computed in). A float element off the interpreter's still
// matches when it lies between the interpreter's and the graph evaluated
// in f64 (interpretInFloat64, made only then): an in-order f32 sum can be
// the less accurate of the two; or when it is within twice the spread that
// rounding noise gives the interpreter's value (interpretWithRoundingNoise,
// kNoisyRuns evaluations, made only then): a cancellation, such as a
// softmax's max gradient, is as far from any one rounding as that.
//
// --check-kernels (CPU) checks each kernel call on its own: after the
// call, its outputs are compared with the kernel evaluated by the
// interpreter on copies of the inputs the call was given (KernelCheck.h),
// one line per call and a summary; lazy-run exits 1 when one differs.
//
// A graph with Variables (symbolic shapes) is scheduled and compiled once;
// its kernels take the Variables as arguments, and the launches pass the
// values given with --var NAME=VALUE (default: the bound ones), which
// lazy-bind-variables checks first on a copy of the graph (the --check
// reference). Results are read at those values.
//
// --search-plans (CPU) times up to N candidate plans per kernel before the
// run (PlanCandidates.h; round i compiles the program with every kernel's
// i-th candidate and the profile hooks time each kernel, every run on the
// original inputs; a round after the heuristic's that fails to compile
// loses its candidates, with a note) and runs with each kernel's fastest,
// printing them as a --plan list.
//
// Values marked lazy.seen (an earlier schedule's) are scheduled here too,
// with a note: lazy-run runs one whole graph.
//
// --distributed, under `mpirun -n N`: each device of the schedule is a
// rank (lazy-distribute: copies across devices become MPI sends and
// receives, tinygrad's hand-built all-reduces MPI_Allreduce). Every rank
// parses, schedules and makes the inputs (the same seed gives the same
// ones), compiles only its device's kernels and holds only its buffers,
// and writes its own outputs (out<i>.npy, i the graph's output number);
// with --check every rank evaluates the whole graph with the interpreter
// and judges its outputs, and rank 0 prints every line. N must be the
// number of devices. A rank that fails is reported on every rank before
// anything runs; a rank that waits --mpi-timeout seconds ends the job.
// With --profile, rank 0 also prints its time in MPI calls.
// OpenMPI is opened with dlopen (libmpi.so.40): built without it, only
// --distributed is missing. Several hosts: `mpirun -n N --hostfile FILE`,
// the module and inputs at the same path on each (docs/distributed.md).
//
// Outputs are read as tinygrad's .numpy() reads them, through
// .contiguous(): an output that is a const (which has no buffer, so no
// schedule item computes it) becomes a kernel.
//
// custom_random items (Tensor.rand) get tinygrad's seeds: the k-th one the
// schedule runs without a seed of its own gets the module's lazy.rng_seed
// plus k. The seeds are written on the graph first, so that the reference
// interpreter draws the same numbers.
//
//===----------------------------------------------------------------------===//

#include "lazy/Driver/RunGraph.h"
#include "lazy/Tools/GraphInputOptions.h"
#include "lazy/Tools/LargeStack.h"
#include "lazy/Tools/StandardOutput.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

#include <string>

namespace cl = llvm::cl;

static cl::OptionCategory toolOptions("lazy-run options");

/// What the options below set (each bound to its field).
static mlir::lazy::RunOptions options;
static mlir::lazy::GraphInputOptions graphOptions(toolOptions, options);

static cl::opt<bool, /*ExternalStorage=*/true>
    check(cl::location(options.check), cl::cat(toolOptions), "check",
          cl::desc("compare with the reference interpreter"));
static cl::opt<bool, /*ExternalStorage=*/true> checkKernels(
    cl::location(options.checkKernels), cl::cat(toolOptions), "check-kernels",
    cl::desc("compare each kernel call with the reference interpreter on "
             "the inputs the call was given (CPU; KernelCheck.h)"));
static cl::opt<std::string, /*ExternalStorage=*/true>
    device(cl::location(options.device), cl::cat(toolOptions), "device",
           cl::init("cpu"),
           cl::desc("cpu, cuda, hip, or emulate (the "
                    "GPU kernels on CPU threads)"));
static cl::opt<unsigned, /*ExternalStorage=*/true>
    repeat(cl::location(options.repeat), cl::cat(toolOptions), "repeat",
           cl::init(0),
           cl::desc("run the compiled program N more times and print the "
                    "median time (benchmarks)"));
static cl::opt<unsigned, /*ExternalStorage=*/true>
    warmup(cl::location(options.warmup), cl::cat(toolOptions), "warmup",
           cl::init(0),
           cl::desc("with --repeat: first run the program N times untimed "
                    "(memory reads reach their steady speed only after a few "
                    "runs over the same buffers)"));
static cl::opt<std::string, /*ExternalStorage=*/true> dumpObjects(
    cl::location(options.dumpObjects), cl::cat(toolOptions), "dump-objects",
    cl::desc("CPU: write the compiled object files to this directory "
             "(whole.o, or part<N>.o and host.o), to read the generated "
             "code with objdump"));
static cl::opt<bool, /*ExternalStorage=*/true> lockstep(
    cl::location(options.lockstep), cl::cat(toolOptions), "lockstep",
    cl::desc("with --device=cuda|hip: also run every kernel on the GPU "
             "emulator, on the same inputs, and print each kernel whose "
             "results differ"));
static cl::opt<std::string, /*ExternalStorage=*/true>
    kernelOptions(cl::location(options.kernelOptions), cl::cat(toolOptions),
                  "kernel-options",
                  cl::desc("GPU: options of convert-lazy-to-gpu, as in "
                           "'block-size=512 unroll=2'"));
static cl::list<std::string, std::vector<std::string>> plans(
    cl::location(options.plans), cl::cat(toolOptions), "plan",
    cl::CommaSeparated,
    cl::desc("force kernels' plans, one step per item: "
             "KERNEL:KIND:AXIS:AMOUNT or KERNEL:none (lazy-optimize-kernels' "
             "force option; other kernels get the heuristic's plan)"));
static cl::opt<unsigned, /*ExternalStorage=*/true> searchPlans(
    cl::location(options.searchPlans), cl::cat(toolOptions), "search-plans",
    cl::init(0),
    cl::desc("CPU: time up to N candidate plans per kernel (the "
             "heuristic's, none, and one step changed at a time: "
             "PlanCandidates.h), every kernel's i-th candidate in one "
             "compiled program per round, and run with each kernel's "
             "fastest; prints the plans found as a --plan list"));
static cl::opt<std::string, /*ExternalStorage=*/true> planOptions(
    cl::location(options.planOptions), cl::cat(toolOptions), "plan-options",
    cl::desc("GPU: options of lazy-optimize-kernels' GPU plans, as in "
             "'gpu-min-tiles=1' (every reduce kernel that fits gets a "
             "register tile)"));
static cl::opt<std::string, /*ExternalStorage=*/true> tensorCores(
    cl::location(options.tensorCores), cl::cat(toolOptions), "tensor-cores",
    cl::desc("GPU: the tensor-core instruction the kernels' tc plans use "
             "(none, mma-sync, mfma, wmma; default: mma-sync for cuda and "
             "emulate, the chip's for hip)"));
static cl::opt<bool, /*ExternalStorage=*/true>
    profile(cl::location(options.profile), cl::cat(toolOptions), "profile",
            cl::desc("GPU: time every kernel launch (alone, with the "
                     "driver's events) and print its bytes and GB/s; CPU: "
                     "time every kernel call of the last run and print "
                     "each kernel's total, the slowest first"));
static cl::opt<std::string, /*ExternalStorage=*/true>
    chip(cl::location(options.chip), cl::cat(toolOptions), "chip",
         cl::desc("GPU to compile for (default: the device's own, "
                  "or gfx942 for hip)"));
static cl::opt<std::string, /*ExternalStorage=*/true> record(
    cl::location(options.record), cl::cat(toolOptions), "record",
    cl::desc("with --device=cuda|hip: no GPU needed; write what would run on "
             "it (a device plan: code object, allocations, launches, inputs) "
             "to this directory, with the results the GPU emulator gives, "
             "for lazy-replay on a GPU machine"));
static cl::opt<bool, /*ExternalStorage=*/true> fastExp2(
    cl::location(options.fastExp2), cl::cat(toolOptions), "fast-exp2",
    cl::init(true),
    cl::desc("CPU: f32 exp2 within 1 ulp, tinygrad's own accuracy, at "
             "about half the vector ops of the correctly rounded one "
             "(lazy-to-cpu's fast-exp2; default on, --fast-exp2=false for "
             "the correctly rounded exp2)"));
static cl::opt<bool, /*ExternalStorage=*/true> warmCompile(
    cl::location(options.warmCompile), cl::cat(toolOptions), "warm-compile",
    cl::desc("CPU: lower and compile a copy of the program first, untimed, "
             "so that --timing's lower and compile phases are those of a "
             "process that has compiled before (libraries bound and "
             "initialized), as in a long-running caller; nothing is cached "
             "between the two"));
static cl::opt<bool, /*ExternalStorage=*/true> timing(
    cl::location(options.timing), cl::cat(toolOptions), "timing",
    cl::desc("print the wall time of each phase (parse, schedule, lower, "
             "compile, first run) to stderr, one 'lazy-run: time' line "
             "each"));
static cl::opt<std::string, /*ExternalStorage=*/true> cacheDir(
    cl::location(options.cacheDir), cl::cat(toolOptions), "cache-dir",
    cl::desc("CPU: keep compiled programs in this directory and link a "
             "program compiled before instead of compiling it again "
             "(default: $LAZY_MLIR_CACHE_DIR, else "
             "$XDG_CACHE_HOME/lazy-mlir or ~/.cache/lazy-mlir, unless "
             "LAZY_MLIR_CACHE=0); with --timing, a 'lazy-run: cache' line "
             "says hit, miss or rejected"));
static cl::opt<bool, /*ExternalStorage=*/true>
    noCache(cl::location(options.noCache), cl::cat(toolOptions), "no-cache",
            cl::desc("CPU: compile, neither reading nor writing the program "
                     "cache"));
static cl::opt<unsigned, /*ExternalStorage=*/true> compileThreads(
    cl::location(options.compileThreads), cl::cat(toolOptions),
    "compile-threads", cl::init(0),
    cl::desc("CPU: threads that compile the kernels (0: one per hardware "
             "thread)"));
static cl::list<std::string, std::vector<std::string>> variables(
    cl::location(options.variables), cl::cat(toolOptions), "var",
    cl::desc("a Variable's value for this run, NAME=VALUE (repeatable; "
             "default: the value the graph binds it to). The schedule and "
             "its kernels are the same for every value; the launches pass "
             "the values"));
static cl::opt<bool, /*ExternalStorage=*/true> recordInputs(
    cl::location(options.recordInputs), cl::cat(toolOptions), "record-inputs",
    cl::init(true),
    cl::desc("with --record: store the inputs' bytes and the expected "
             "results (false: zero-filled inputs, timing only)"));

static cl::opt<bool, /*ExternalStorage=*/true> distributed(
    cl::location(options.distributed), cl::cat(toolOptions), "distributed",
    cl::desc("run as one rank of `mpirun -n N` (OpenMPI): the schedule is "
             "split by lazy-distribute, a rank per device, and this rank "
             "compiles and runs its device's part on the CPU; rank 0 "
             "prints the lines, every rank writes its own outputs"));
static cl::opt<unsigned, /*ExternalStorage=*/true> mpiTimeout(
    cl::location(options.mpiTimeout), cl::cat(toolOptions), "mpi-timeout",
    cl::init(300),
    cl::desc("with --distributed: end the job when a rank has waited this "
             "many seconds for the others (one failed or hangs)"));

static int toolMain(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // --help lists this tool's options, not every LLVM and MLIR one linked in.
  cl::HideUnrelatedOptions(toolOptions);
  cl::ParseCommandLineOptions(argc, argv,
                              "lazy-mlir runner: schedules a lazy graph, "
                              "compiles it for the CPU or a GPU\n"
                              "(or the GPU emulator) and runs it\n");
  return mlir::lazy::runGraph(options);
}

int main(int argc, char **argv) {
  return mlir::lazy::finishStandardOutput(
      "lazy-run", mlir::lazy::runWithLargeStack(toolMain, argc, argv));
}
