/*===- Lazy.h - lazy-mlir's C API -----------------------------------*- C
-*-===*\
|*                                                                            *|
|* A small C API over lazy-mlir, in the style of MLIR's own: a session (an    *|
|* MLIRContext with every dialect and pass lazy-mlir uses) parses `lazy`      *|
|* IR from memory (or builds it from the compact form below), runs a         *|
|* textual pass pipeline on it and hands back the                            *|
|* printed module or a schedule's text, with the diagnostics. No file and no  *|
|* process is involved; Python reaches it through ctypes                      *|
|* (python/lazy_mlir/_capi.py).                                               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LAZY_C_LAZY_H
#define LAZY_C_LAZY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LAZY_CAPI_EXPORTED __attribute__((visibility("default")))

/// An MLIRContext with lazy-mlir's dialects and passes registered. One
/// session serves one thread at a time.
typedef struct LazySession {
  void *ptr;
} LazySession;

/// Text owned by the library, freed with lazyTextFree.
typedef struct LazyText {
  char *data;
  size_t length;
} LazyText;

/// What lazyRun hands back in `output`.
typedef enum LazyOutput {
  LazyOutputNone = 0,
  /// The module after the pipeline, as lazy-opt prints it.
  LazyOutputModule = 1,
  /// lazy-print-schedule's canonical text.
  LazyOutputCanonicalSchedule = 2,
  /// lazy-print-schedule{format=bridge}: needs lazy-schedule{record-nodes}.
  LazyOutputBridgeSchedule = 3,
} LazyOutput;

/// A new session; `threads` nonzero lets passes use the context's thread
/// pool (as the tools do).
LAZY_CAPI_EXPORTED LazySession lazySessionCreate(int threads);
LAZY_CAPI_EXPORTED void lazySessionDestroy(LazySession session);

/// Parses `ir` (`length` bytes; `name` names it in diagnostics), runs
/// `pipeline` (a textual pipeline, e.g. "builtin.module(lazy-schedule)")
/// and writes `output` to `*out`. Every diagnostic is written to
/// `*diagnostics` as the tools print them (`name:line:col: error: ...`).
/// Returns 1 on success, 0 on failure (an error diagnostic says why).
/// Both texts are set in either case; free them with lazyTextFree.
LAZY_CAPI_EXPORTED int lazyRun(LazySession session, const char *ir,
                               size_t length, const char *name,
                               const char *pipeline, LazyOutput output,
                               LazyText *out, LazyText *diagnostics);

LAZY_CAPI_EXPORTED void lazyTextFree(LazyText text);

/// The compact graph: a `lazy` graph as int64 words and a string table (the
/// concatenated bytes of every string), built into ops without text. It is
/// what the Python bridge hands over (python/lazy_mlir/tinygrad/_export.py,
/// _CompactExporter). Words, in order:
///
///   0x4C5A47, 1                       magic ("LZG") and version
///   S, len_0 .. len_{S-1}             string byte lengths; strings are
///                                     referred to by index
///   T, then T times: L, L words       ShapeTrackers, each in
///                                     #lazy.st's stored encoding
///   attrs                             the module's attributes
///   A, then A times: type, attrs      func.func @graph's arguments
///   N, then N times: name, type,      the ops, in order: op name (a
///     location, attrs, K, K values    registered `lazy` op), result type,
///                                     metadata string or -1, attributes,
///                                     operands
///   R, R values                       the function's results
///
/// A `type` is the index of a string holding a ranked tensor type's text
/// (parsed once per string). A value is -(k + 1) for argument k and k for
/// op k, which must come before its user. `attrs` is a count and that many
/// (name string, kind, payload): kind 0 unit (no payload), 1 ShapeTracker
/// (index), 2 i64 array (count, values), 3 string (index), 4 scalar of the
/// op result's element type (an integer in two's complement or an IEEE
/// double's bits), 5 i64, 6 bool (0 or 1), 7 dictionary (attrs, no
/// dictionary inside). Op k's location is `name:k:0`, inside a NameLoc of
/// its metadata string when it has one. Malformed words get a located
/// error, never a crash; the module is verified before the pipeline runs.
typedef struct LazyCompactGraph {
  const int64_t *words;
  size_t numWords;
  const char *strings;
  size_t stringsLength;
} LazyCompactGraph;

/// lazyRun on a compact graph.
LAZY_CAPI_EXPORTED int lazyRunCompact(LazySession session,
                                      LazyCompactGraph graph, const char *name,
                                      const char *pipeline, LazyOutput output,
                                      LazyText *out, LazyText *diagnostics);

/// A schedule's kernels compiled for this host's CPU (lazy-to-cpu, LLVM's
/// -O3 for the host's CPU, OpenMP threads).
typedef struct LazyCpuProgram {
  void *ptr;
} LazyCpuProgram;

/// Parses `ir`, runs `schedulePipeline` (a pipeline that schedules, e.g.
/// "lazy-schedule{record-nodes=true}") and writes the schedule's bridge
/// text to `*schedule`; then lowers the scheduled module with lazy-to-cpu
/// and compiles it. Each kernel is then a function named by its symbol
/// (lazyCpuProgramLookup) taking, per buffer (outputs first), a 1-d memref
/// descriptor expanded: allocated pointer, aligned pointer, offset, size,
/// stride. Returns 1 on success (`*program` set), 0 on failure; the texts
/// are set in either case (free them with lazyTextFree). A program compiled
/// before, by this build on this CPU, is linked from the disk cache instead
/// of lowered and compiled again (the environment names the cache:
/// LAZY_MLIR_CACHE=0 turns it off, LAZY_MLIR_CACHE_DIR moves it from
/// $XDG_CACHE_HOME/lazy-mlir or ~/.cache/lazy-mlir).
LAZY_CAPI_EXPORTED int lazyCompileCpu(LazySession session, const char *ir,
                                      size_t length, const char *name,
                                      const char *schedulePipeline,
                                      LazyCpuProgram *program,
                                      LazyText *schedule,
                                      LazyText *diagnostics);

/// lazyCompileCpu on a compact graph.
LAZY_CAPI_EXPORTED int
lazyCompileCpuCompact(LazySession session, LazyCompactGraph graph,
                      const char *name, const char *schedulePipeline,
                      LazyCpuProgram *program, LazyText *schedule,
                      LazyText *diagnostics);

/// The address of a compiled kernel (or of the host function), or NULL.
/// `_mlir_` followed by a kernel's name is its packed wrapper: a function of
/// one `void **`, an array of pointers to each argument of the kernel's
/// expanded signature in order (ExecutionEngine's calling convention).
LAZY_CAPI_EXPORTED void *lazyCpuProgramLookup(LazyCpuProgram program,
                                              const char *function);

/// A kernel's packed wrapper (lazyCpuProgramLookup of `_mlir_NAME`).
typedef void (*LazyPackedFunction)(void **arguments);

/// Calls `functions[i](arguments[i])` for i from 0 to count - 1, in order,
/// on this thread: a list of kernels run as one call (a replayed TinyJit
/// graph), with no caller code between them. The argument arrays are read
/// at each call, so a caller rebinds a buffer by writing the words they
/// point to.
LAZY_CAPI_EXPORTED void lazyRunPacked(size_t count,
                                      LazyPackedFunction const *functions,
                                      void **const *arguments);

/// 1 when the program was linked from the disk cache, 0 when it was
/// compiled.
LAZY_CAPI_EXPORTED int lazyCpuProgramFromCache(LazyCpuProgram program);

LAZY_CAPI_EXPORTED void lazyCpuProgramDestroy(LazyCpuProgram program);

/// The scheduler flags a module's `lazy.flags` takes, one line each:
/// "<key> <tinygrad name> <default 0|1>\n" for a bool, "<key> - tinygrad\n"
/// for the fusion policy (ScheduleFlags.def); static storage.
LAZY_CAPI_EXPORTED const char *lazyScheduleFlags(void);

/// The tolerance of float dtype `elementType` (an MLIR element type name,
/// "f32"; runtime/Tolerance.h): returns 1 and sets `rtol` and `atol`, or
/// returns 0 for a dtype compared bit for bit.
LAZY_CAPI_EXPORTED int lazyFloatTolerance(const char *elementType, double *rtol,
                                          double *atol);

/// Parses `ir`, runs `schedulePipeline` (a pipeline that schedules) and
/// writes the schedule's bridge text to `*schedule`; then runs
/// `lowerPipeline` (lazy-optimize-kernels{target=gpu ...} and lazy-to-nvvm
/// or lazy-to-rocdl) and hands back what a GPU runtime needs to run the
/// kernels itself: `*binary`, the code object of every kernel (a cubin or
/// HSACO ELF file, or PTX text), and `*launches`, the host program's kernel
/// launches in order, one line each:
///
///   format <bin|isa>
///   launch <entry> <gx> <gy> <gz> <bx> <by> <bz> <n> <operand>*n
///
/// an operand `a<i>+<bytes>` (the host function's argument i, at that byte
/// offset: the schedule's buffers in its argument order), `t<k>+<bytes>` (the
/// host program's k-th own allocation) or `v<value>` (a Variable's value).
/// Returns 1 on success, 0 on failure; every text is set in either case.
LAZY_CAPI_EXPORTED int
lazyCompileGpu(LazySession session, const char *ir, size_t length,
               const char *name, const char *schedulePipeline,
               const char *lowerPipeline, LazyText *binary, LazyText *launches,
               LazyText *schedule, LazyText *diagnostics);

/// lazyCompileGpu on a compact graph.
LAZY_CAPI_EXPORTED int lazyCompileGpuCompact(
    LazySession session, LazyCompactGraph graph, const char *name,
    const char *schedulePipeline, const char *lowerPipeline, LazyText *binary,
    LazyText *launches, LazyText *schedule, LazyText *diagnostics);

/// What lazyRunGraph runs: lazy-run's options of the same names
/// (tools/lazy-run/lazy-run.cpp); NULL strings and zeros are lazy-run's
/// defaults.
typedef struct LazyRunGraphOptions {
  /// The module's file (required) and its graph function (NULL: the first).
  const char *inputFile;
  const char *entry;
  /// Where out<i>.npy are written (NULL: nowhere).
  const char *outputDir;
  uint32_t seed;
  /// Compare the outputs with the reference interpreter.
  int check;
  /// Run as one rank of an `mpirun -n N` job (OpenMPI): this process
  /// compiles and runs its device's part of the schedule.
  int distributed;
  /// --distributed: seconds without progress before the job ends (0: 300).
  uint32_t mpiTimeout;
  /// Timed re-runs after the first, and untimed ones before them.
  uint32_t repeat, warmup;
} LazyRunGraphOptions;

/// lazy-run's whole job in this process: parse the file, schedule,
/// compile for the CPU, run, check and write the outputs, printing what
/// lazy-run prints. Returns lazy-run's exit code (0: ran, and with a check
/// every output matched). With `distributed`, call it from every process of
/// the job (python3 -m lazy_mlir.tinygrad run --distributed, under mpirun,
/// does: docs/distributed.md).
LAZY_CAPI_EXPORTED int lazyRunGraph(const LazyRunGraphOptions *options);

/// lazy-mlir's version ("0.1.0 (LLVM 22.x.y)"), static storage.
LAZY_CAPI_EXPORTED const char *lazyVersion(void);

#ifdef __cplusplus
}
#endif

#endif /* LAZY_C_LAZY_H */
