//===- DevicePlan.h - GPU work recorded, replayed elsewhere -----*- C++ -*-===//
//
// A GPU machine may lack what lazy-run needs (LLVM and MLIR 22). A device
// plan is what lazy-run would ask of the GPU, written down: allocations,
// uploads, the code object, launches with their geometry and buffer
// arguments, copies, fills and the result downloads, with the results the
// GPU lowering should give (from the GPU emulator) to compare against.
// `PlanRecorder` is a GpuDevice that writes a plan instead of running it;
// `replayPlan` runs one on a real GPU with nothing but the vendor driver.
// Plain C++ (no MLIR, no LLVM).
//
// A plan is a directory: `plan.txt` and the binary files it names.
//
//   lazy-plan 1 <cuda|hip> <chip>
//   module <file>                          code object to load
//   alloc <id> <bytes>
//   upload <id> <offset> <bytes> <file>    host bytes to the device
//   zero <id> <offset> <bytes>             (also an upload not recorded)
//   copy <id> <offset> <id> <offset> <bytes>
//   launch <kernel> <gx> <gy> <gz> <bx> <by> <bz> <bytes> <n> <arg>*n
//     each <arg> a buffer, `<id> <offset>`, or a Variable's value, `v <n>`
//     (recorded pointers are at least 2^40: a smaller argument is a value,
//     so values of 2^40 or more would be taken for buffers)
//   sync
//   download <result> <id> <offset> <bytes>
//   expect <result> <dtype> <file>         what the result should be
//   free <id>
//
// `bytes` on a launch is the size of the buffers it is given (for GB/s).
// dtype is tinygrad's name (float, half, int, unsigned_char: spaces become
// '_'): it picks the tolerance.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_RUNTIME_DEVICEPLAN_H
#define LAZY_RUNTIME_DEVICEPLAN_H

#include "lazy/Runtime/GpuDevice.h"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace lazy::runtime {

/// Records every call into `dir`/plan.txt (and data files beside it).
/// Pointers it hands out name a buffer and an offset. Downloads read zeros.
class PlanRecorder final : public GpuDevice {
public:
  /// `withData` false: uploads become `zero` lines (a plan for timing,
  /// without the inputs' bytes).
  PlanRecorder(std::string dir, std::string vendor, std::string chip,
               bool withData);
  ~PlanRecorder() override;
  /// Whether the plan file could be opened.
  bool ok() const { return out != nullptr; }

  std::string name() override { return "plan recorder"; }
  std::string chip() override { return targetChip; }
  bool alloc(size_t bytes, DevicePtr &ptr) override;
  bool free(DevicePtr ptr) override;
  bool copyToDevice(DevicePtr dst, const void *src, size_t bytes) override;
  bool copyToHost(void *dst, DevicePtr src, size_t bytes) override;
  bool copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes) override;
  bool fillZero(DevicePtr dst, size_t bytes) override;
  bool loadModule(const void *image, size_t bytes) override;
  bool launch(const std::string &kernel, const unsigned grid[3],
              const unsigned block[3], const DevicePtr *args,
              size_t numArgs) override;
  bool synchronize() override;

  /// Sets the byte count of the last launch (the caller knows the sizes of
  /// the views it passed; the recorder sees only pointers).
  void setLastLaunchBytes(size_t bytes);
  /// Writes what result `index` should hold.
  bool expect(size_t index, const std::string &dtype, const void *data,
              size_t bytes);

private:
  bool writeFile(const std::string &name, const void *data, size_t bytes);
  std::string where(DevicePtr ptr) const;
  void flushLaunch();

  std::string dir, targetChip;
  bool withData;
  FILE *out = nullptr;
  size_t nextBuffer = 0, files = 0, downloads = 0;
  // The last launch is written once its byte count is known (at the next
  // call other than a synchronization), with the syncs that followed it.
  std::string pendingHead, pendingArgs; // around the byte count
  size_t pendingBytes = 0, pendingSyncs = 0;
};

/// Options of a replay.
struct ReplayOptions {
  /// Timed re-runs of the whole plan after the checked one; the last run's
  /// per-kernel times are reported.
  unsigned repeat = 0;
  /// The device's peak bandwidth, for the share each kernel reaches.
  double peakGBs = 0;
  /// Compare the downloads with their expectations (off for a device that
  /// only checks the plan's bounds and does not run kernels).
  bool check = true;
};

/// Runs the plan in `dir` on `device`, compares each result with its
/// `expect` file and prints a line per result and, with repeat, per
/// kernel. Returns false (after printing why) on a failed call or a
/// mismatch.
bool replayPlan(const std::string &dir, GpuDevice &device,
                const ReplayOptions &options, FILE *log);

/// The vendor named in the plan's first line ("cuda" or "hip"), or "".
std::string planVendor(const std::string &dir);

/// Whether `got` matches `want` for tinygrad dtype `dtype`: integers and
/// bools bit for bit, floats within their tolerance (Tolerance.h); NaN
/// must meet NaN. `worst` receives the largest absolute difference.
/// `roundedAs`, when given, names the float dtype whose tolerance judges
/// float results instead of their own: the narrowest type the values were
/// computed in (an f64 result of f32 arithmetic is judged as f32).
bool compareBuffers(const std::string &dtype, const std::vector<uint8_t> &got,
                    const std::vector<uint8_t> &want, double &worst,
                    const std::string &roundedAs = "");

/// Per element of a float result, what --check knows beyond the reference
/// interpreter's value.
struct FloatEvidence {
  /// The graph evaluated in f64 (interpretInFloat64), or empty.
  std::vector<double> exact;
  /// How far rounding alone moves the reference's value: the range of a
  /// few evaluations with rounding noise (interpretWithRoundingNoise) and
  /// the reference's own, or empty.
  std::vector<double> noise;
};

/// The elements off the reference that still matched, by reason.
struct Rescued {
  size_t betweenExact = 0; // between the reference and the f64 value
  size_t withinNoise = 0;  // within the reference's rounding noise
};

/// compareBuffers with second chances for float elements off `want` (the
/// reference interpreter's, rounded as the graph says), each counted in
/// `rescued`:
/// - between `want` and `evidence.exact` (the same graph evaluated with
///   f64 values, one double per element), within the tolerance: compiled
///   code that sums in another order can be closer to the exact value
///   than a long in-order f32 sum; an infinity where the exact value
///   overflows the result's type to it;
/// - within the tolerance plus twice `evidence.noise` (kNoiseSpreads) of
///   `want`: rounding alone moves the element that far.
/// Empty evidence gives no second chance of its kind.
bool compareWithEvidence(const std::string &dtype,
                         const std::vector<uint8_t> &got,
                         const std::vector<uint8_t> &want,
                         const FloatEvidence &evidence, double &worst,
                         const std::string &roundedAs, Rescued &rescued);

} // namespace lazy::runtime

#endif // LAZY_RUNTIME_DEVICEPLAN_H
