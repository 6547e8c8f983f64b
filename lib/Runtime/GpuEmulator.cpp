//===- GpuEmulator.cpp - run GPU kernels on CPU threads -------------------===//
//
// Each `gpu.func` of `gpu.module @lazy_kernels` is rebuilt as a CPU
// function `<name>_emu` taking the kernel's buffers (bare pointers) and the
// block id, thread id, block size and grid size. gpu.thread_id and friends
// become those arguments (y and z: id 0, size 1); gpu.all_reduce becomes a
// call of `lazy_emu_all_reduce_<op>_<type>`. The module is lowered to LLVM
// and JIT-compiled. A launch runs each emulated block's threads one after
// the other on the calling thread; a kernel with an all_reduce runs them
// as fibers (BlockContext): at an all_reduce every thread
// leaves its value and yields; once all have, the values are combined in
// the GPU's butterfly order and every thread resumes with it. A
// gpu.barrier is such a meeting point with nothing to combine, and a
// kernel's workgroup buffers are extra arguments, one allocation per
// launch that every thread of the running block shares.
//
//===----------------------------------------------------------------------===//

#include "lazy/Runtime/GpuEmulator.h"

#include "lazy/Conversion/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

#include <array>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include <ucontext.h>

using namespace mlir;
using ::lazy::runtime::DevicePtr;
using ::lazy::runtime::GpuDevice;

namespace {

//===----------------------------------------------------------------------===//
// The block of threads and its all_reduce
//===----------------------------------------------------------------------===//

/// The threads of one emulated block, as fibers that one OS thread switches
/// between: a thread runs until it reaches a gpu.all_reduce (or finishes),
/// then the next one runs. When every thread waits at the all_reduce, the
/// scheduler combines their values (combineAsButterfly) and resumes them all
/// with the result. Cooperative switching keeps a block of 256 threads
/// cheap on a machine with two cores.
constexpr size_t kFiberStack = 256 * 1024;

// On x86-64 Linux a fiber switch saves the callee-saved registers and swaps
// stack pointers (FiberContext below); glibc's swapcontext also saves and
// sets the signal mask, a system call per switch (two per visit of a
// fiber), which made the switches cost more than the kernels. Sanitizer
// builds keep ucontext, which the sanitizers know about, and so do builds
// with CET shadow stacks, where a `ret` to another stack would fault.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define LAZY_EMU_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LAZY_EMU_SANITIZED 1
#endif
#if defined(__CET__) && (__CET__ & 2)
#define LAZY_EMU_SHADOW_STACK 1
#endif
#if defined(__x86_64__) && defined(__linux__) &&                               \
    !defined(LAZY_EMU_SANITIZED) && !defined(LAZY_EMU_SHADOW_STACK)
#define LAZY_EMU_STACK_SWITCH 1
#endif

#ifdef LAZY_EMU_STACK_SWITCH
// lazy_emu_switch(save, resume): pushes the System V callee-saved
// registers, stores the stack pointer in *save, continues on `resume` (a
// stack pointer stored the same way, or laid out by FiberContext::start)
// and pops its registers; `ret` returns to where that context switched.
// MXCSR and the x87 control word are not saved: every fiber runs on the
// one OS thread with the same floating-point modes, which no kernel
// changes.
asm(R"(
  .pushsection .text
  .p2align 4
  .type lazy_emu_switch, @function
lazy_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size lazy_emu_switch, .-lazy_emu_switch
  .popsection
)");
extern "C" void lazy_emu_switch(void **save, void *resume);

/// Where a fiber (or the scheduler) resumes: its saved stack pointer.
struct FiberContext {
  void *sp = nullptr;
  /// Lays out `stack` so that switching to it calls `entry`, which must
  /// never return (it switches away for the last time instead).
  void start(std::vector<char> &stack, void (*entry)()) {
    auto top = reinterpret_cast<uintptr_t>(stack.data() + stack.size()) &
               ~uintptr_t(15);
    auto *slots = reinterpret_cast<void **>(top);
    // From the top: a null return address for `entry` (so that it starts
    // with the stack aligned as after a call), `entry` for `ret`, and the
    // six registers the switch pops.
    slots[-1] = nullptr;
    slots[-2] = reinterpret_cast<void *>(entry);
    for (int i = 3; i <= 8; ++i)
      slots[-i] = nullptr;
    sp = &slots[-8];
  }
  /// Saves the running context in `this` and resumes `to`.
  void switchTo(FiberContext &to) { lazy_emu_switch(&sp, to.sp); }
};
#else
struct FiberContext {
  ucontext_t context;
  /// A function of its own: getcontext returns only once here (the context
  /// is remade before use), but a compiler that sees it in a loop must
  /// assume it returns twice and spill the loop's variables.
  [[gnu::noinline]] void start(std::vector<char> &stack, void (*entry)()) {
    getcontext(&context);
    context.uc_stack.ss_sp = stack.data();
    context.uc_stack.ss_size = stack.size();
    context.uc_link = nullptr;
    makecontext(&context, entry, 0);
  }
  void switchTo(FiberContext &to) { swapcontext(&context, &to.context); }
};
#endif

struct BlockContext {
  explicit BlockContext(unsigned threads)
      : fibers(threads), slots(threads), done(threads), fragments(threads) {}
  struct Fiber {
    FiberContext context;
    std::vector<char> stack;
  };
  FiberContext scheduler;
  std::vector<Fiber> fibers;
  std::vector<uint64_t> slots;
  std::vector<char> done;
  unsigned current = 0;
  /// Set by the threads at an all_reduce: how to combine two slots.
  uint64_t (*combine)(uint64_t, uint64_t) = nullptr;
  uint64_t result = 0;
  /// Set by the threads at a meeting point (an all_reduce, an mma.sync):
  /// what the scheduler does once all have arrived.
  void (*resolve)(BlockContext &) = nullptr;
  /// Per thread at an mma.sync: its A, B and C fragments, and where its D
  /// fragment goes.
  std::vector<std::array<void *, 4>> fragments;
  /// At a gpu.shuffle xor: the lane mask and the segment width, and each
  /// thread's result (the slot of its partner).
  unsigned shuffleMask = 0, shuffleWidth = 32;
  std::vector<uint64_t> shuffled;
};

BlockContext *currentBlock = nullptr;

/// The block's values combined in the order the GPUs' all_reduce combines
/// them: a butterfly of shuffles (xor 1, 2, 4, ...) within each 32-lane
/// warp, then the same over the warps' results, which is a pairwise tree
/// over thread order: ((v0+v1)+(v2+v3))+... . Float sums then come out with
/// the GPU's bits, not those of a left-to-right sum. `values` is clobbered.
uint64_t combineAsButterfly(std::vector<uint64_t> &values,
                            uint64_t (*combine)(uint64_t, uint64_t)) {
  size_t n = values.size();
  for (size_t width = 1; width < n; width *= 2)
    for (size_t i = 0; i + width < n; i += 2 * width)
      values[i] = combine(values[i], values[i + width]);
  return values[0];
}

template <typename T, typename Combine> T allReduce(T value, Combine) {
  BlockContext &block = *currentBlock;
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  block.slots[block.current] = bits;
  block.combine = [](uint64_t a, uint64_t b) -> uint64_t {
    T x, y;
    std::memcpy(&x, &a, sizeof(T));
    std::memcpy(&y, &b, sizeof(T));
    T r = Combine()(x, y);
    uint64_t out = 0;
    std::memcpy(&out, &r, sizeof(T));
    return out;
  };
  block.resolve = [](BlockContext &b) {
    b.result = combineAsButterfly(b.slots, b.combine);
  };
  // Wait for the others; the scheduler combines once all have arrived.
  block.fibers[block.current].context.switchTo(block.scheduler);
  T result;
  std::memcpy(&result, &block.result, sizeof(T));
  return result;
}

struct Add {
  template <typename T> T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>)
      return T(std::make_unsigned_t<T>(a) + std::make_unsigned_t<T>(b));
    else
      return a + b;
  }
};
struct MaximumF {
  template <typename T> T operator()(T a, T b) const {
    if (a != a || b != b)
      return a != a ? a : b; // NaN wins, as arith.maximumf
    return a > b ? a : b;
  }
};
struct MaxSI {
  template <typename T> T operator()(T a, T b) const { return a > b ? a : b; }
};
struct MaxUI {
  template <typename T> T operator()(T a, T b) const {
    using U = std::make_unsigned_t<T>;
    return U(a) > U(b) ? a : b;
  }
};
struct Or {
  template <typename T> T operator()(T a, T b) const { return a | b; }
};

/// An IEEE half's value (every half is exact in a float).
float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h >> 15) << 31, exponent = (h >> 10) & 0x1F,
           mantissa = h & 0x3FF, bits;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000 | (mantissa << 13); // inf or NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {
    // Subnormal: normalize.
    int shift = 0;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      ++shift;
    }
    bits = sign | (uint32_t(113 - shift) << 23) | ((mantissa & 0x3FF) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// A bfloat16's value: the top half of a float's bits.
float bfloatToFloat(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// Where a matrix instruction's lanes hold their fragments: element i of
/// lane l's A fragment is A[row][col] (m, k), of B's B[row][col] (k, n), of
/// C's and D's C[row][col] (m, n). Each instruction is 16 x n x 16, f16
/// or bf16 operands and f32 accumulators.
struct MatrixLayout {
  unsigned lanes, n, aCount, bCount, cCount;
  using Coord = std::pair<unsigned, unsigned> (*)(unsigned l, unsigned i);
  Coord a, b, c;
};

/// PTX's mma.sync.m16n8k16.row.col.f32.f16.f16.f32 (groupID g = l / 4,
/// t = l % 4): a[2r+j] at row g + 8(r&1), column 2t + j + 8(r>>1); b[2r+j]
/// at row 2t + j + 8r, column g; c[2r+j] at row g + 8r, column 2t + j.
constexpr MatrixLayout kMmaSync{
    32,
    8,
    8,
    4,
    4,
    [](unsigned l, unsigned i) {
      unsigned r = i / 2, j = i % 2;
      return std::pair(l / 4 + 8 * (r & 1), 2 * (l % 4) + j + 8 * (r >> 1));
    },
    [](unsigned l, unsigned i) {
      return std::pair(2 * (l % 4) + i % 2 + 8 * (i / 2), l / 4);
    },
    [](unsigned l, unsigned i) {
      return std::pair(l / 4 + 8 * (i / 2), 2 * (l % 4) + i % 2);
    }};

/// AMD's v_mfma_f32_16x16x16f16 (64 lanes): a[i] at row l % 16, column
/// 4 (l / 16) + i; b[i] at row 4 (l / 16) + i, column l % 16; c[i] at row
/// 4 (l / 16) + i, column l % 16.
constexpr MatrixLayout kMfma{
    64,
    16,
    4,
    4,
    4,
    [](unsigned l, unsigned i) { return std::pair(l % 16, 4 * (l / 16) + i); },
    [](unsigned l, unsigned i) { return std::pair(4 * (l / 16) + i, l % 16); },
    [](unsigned l, unsigned i) { return std::pair(4 * (l / 16) + i, l % 16); }};

/// AMD's v_wmma_f32_16x16x16_f16 (32 lanes; lanes 16-31 repeat 0-15's A
/// and B): a[i] at row l % 16, column i; b[i] at row i, column l % 16; c[i]
/// at row 2i + l / 16, column l % 16.
constexpr MatrixLayout kWmma{
    32,
    16,
    16,
    16,
    8,
    [](unsigned l, unsigned i) { return std::pair(l % 16, i); },
    [](unsigned l, unsigned i) { return std::pair(i, l % 16); },
    [](unsigned l, unsigned i) { return std::pair(2 * i + l / 16, l % 16); }};

/// `layout`'s instruction for every warp or wave of the block, from the
/// fragments its lanes left: each product exact in f32, added to C in K
/// order.
template <float (*toFloat)(uint16_t)>
void resolveMatrix(BlockContext &block, const MatrixLayout &layout) {
  size_t threads = block.fibers.size();
  for (size_t w = 0; w + layout.lanes <= threads; w += layout.lanes) {
    float a[16][16], b[16][16], c[16][16];
    for (unsigned l = 0; l < layout.lanes; ++l) {
      const std::array<void *, 4> &f = block.fragments[w + l];
      auto *fa = static_cast<const uint16_t *>(f[0]);
      auto *fb = static_cast<const uint16_t *>(f[1]);
      auto *fc = static_cast<const float *>(f[2]);
      for (unsigned i = 0; i < layout.aCount; ++i) {
        auto [row, col] = layout.a(l, i);
        a[row][col] = toFloat(fa[i]);
      }
      for (unsigned i = 0; i < layout.bCount; ++i) {
        auto [row, col] = layout.b(l, i);
        b[row][col] = toFloat(fb[i]);
      }
      for (unsigned i = 0; i < layout.cCount; ++i) {
        auto [row, col] = layout.c(l, i);
        c[row][col] = fc[i];
      }
    }
    for (unsigned l = 0; l < layout.lanes; ++l) {
      auto *fd = static_cast<float *>(block.fragments[w + l][3]);
      for (unsigned i = 0; i < layout.cCount; ++i) {
        auto [m, n] = layout.c(l, i);
        float acc = c[m][n];
        for (unsigned k = 0; k < 16; ++k)
          acc += a[m][k] * b[k][n];
        fd[i] = acc;
      }
    }
  }
}

/// One lane's matrix instruction: leaves its fragments and waits for its
/// warp or wave.
void meetForMatrix(void *a, void *b, void *c, void *d,
                   void (*resolve)(BlockContext &)) {
  BlockContext &block = *currentBlock;
  block.fragments[block.current] = {a, b, c, d};
  block.resolve = resolve;
  block.fibers[block.current].context.switchTo(block.scheduler);
}

/// gpu.shuffle xor of `mask` within segments of `width` lanes: every
/// thread of the block meets (the kernels shuffle in uniform control flow)
/// and takes its partner's value; a partner outside the block (a block
/// that is not a whole number of segments) gives the thread its own.
template <typename T> T shuffleXor(T value, int32_t mask, int32_t width) {
  BlockContext &block = *currentBlock;
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  block.slots[block.current] = bits;
  block.shuffleMask = unsigned(mask);
  block.shuffleWidth = unsigned(width);
  block.resolve = [](BlockContext &b) {
    size_t n = b.slots.size();
    b.shuffled.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
      size_t segment = i / b.shuffleWidth * b.shuffleWidth;
      size_t partner = segment + ((i - segment) ^ b.shuffleMask);
      b.shuffled[i] = b.slots[partner < n ? partner : i];
    }
  };
  block.fibers[block.current].context.switchTo(block.scheduler);
  T result;
  std::memcpy(&result, &block.shuffled[block.current], sizeof(T));
  return result;
}

extern "C" {
/// nvgpu.mma.sync m16n8k16, amdgpu.mfma 16x16x16 and amdgpu.wmma 16x16x16
/// (f16 or bf16 in, f32 accumulators).
#define LAZY_EMU_MATRIX(name, layout, type, toFloat)                           \
  void lazy_emu_##name##_##type##_f32(void *a, void *b, void *c, void *d) {    \
    meetForMatrix(a, b, c, d, [](BlockContext &block) {                        \
      resolveMatrix<toFloat>(block, layout);                                   \
    });                                                                        \
  }
LAZY_EMU_MATRIX(mma_m16n8k16, kMmaSync, f16, halfToFloat)
LAZY_EMU_MATRIX(mfma_16x16x16, kMfma, f16, halfToFloat)
LAZY_EMU_MATRIX(wmma_16x16x16, kWmma, f16, halfToFloat)
LAZY_EMU_MATRIX(mma_m16n8k16, kMmaSync, bf16, bfloatToFloat)
LAZY_EMU_MATRIX(mfma_16x16x16, kMfma, bf16, bfloatToFloat)
LAZY_EMU_MATRIX(wmma_16x16x16, kWmma, bf16, bfloatToFloat)
#undef LAZY_EMU_MATRIX

/// LLVM's libcall for fptrunc float to bfloat, which x86 code calls where it
/// promotes bf16 to f32 (a select or insertelement of bf16 values) and
/// which GCC 12's libgcc lacks: round to nearest even, NaN quiet. The
/// result is returned as x86-64 returns a bfloat: its bits in the low half
/// of xmm0, which a float return with those low bits is.
float lazy_emu_truncsfbf2(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  uint32_t half = (bits & 0x7FFFFFFF) > 0x7F800000
                      ? 0x7FC0u | ((bits >> 16) & 0x8000u)
                      : (bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16;
  float out;
  std::memcpy(&out, &half, sizeof out);
  return out;
}

float lazy_emu_shuffle_xor_f32(float v, int32_t mask, int32_t width) {
  return shuffleXor(v, mask, width);
}
int32_t lazy_emu_shuffle_xor_i32(int32_t v, int32_t mask, int32_t width) {
  return shuffleXor(v, mask, width);
}

/// gpu.barrier: waits until every thread of the block has arrived.
void lazy_emu_barrier() {
  BlockContext &block = *currentBlock;
  block.resolve = [](BlockContext &) {};
  block.fibers[block.current].context.switchTo(block.scheduler);
}

float lazy_emu_all_reduce_add_f32(float v) { return allReduce(v, Add()); }
double lazy_emu_all_reduce_add_f64(double v) { return allReduce(v, Add()); }
int32_t lazy_emu_all_reduce_add_i32(int32_t v) { return allReduce(v, Add()); }
int64_t lazy_emu_all_reduce_add_i64(int64_t v) { return allReduce(v, Add()); }
float lazy_emu_all_reduce_maximumf_f32(float v) {
  return allReduce(v, MaximumF());
}
double lazy_emu_all_reduce_maximumf_f64(double v) {
  return allReduce(v, MaximumF());
}
int32_t lazy_emu_all_reduce_maxsi_i32(int32_t v) {
  return allReduce(v, MaxSI());
}
int64_t lazy_emu_all_reduce_maxsi_i64(int64_t v) {
  return allReduce(v, MaxSI());
}
int32_t lazy_emu_all_reduce_maxui_i32(int32_t v) {
  return allReduce(v, MaxUI());
}
int64_t lazy_emu_all_reduce_maxui_i64(int64_t v) {
  return allReduce(v, MaxUI());
}
int32_t lazy_emu_all_reduce_or_i32(int32_t v) { return allReduce(v, Or()); }
int64_t lazy_emu_all_reduce_or_i64(int64_t v) { return allReduce(v, Or()); }
}

struct RuntimeSymbol {
  const char *name;
  void *address;
};

const RuntimeSymbol kRuntimeSymbols[] = {
#define LAZY_EMU_SYMBOL(name) {#name, reinterpret_cast<void *>(&name)}
    LAZY_EMU_SYMBOL(lazy_emu_barrier),
    {"__truncsfbf2", reinterpret_cast<void *>(&lazy_emu_truncsfbf2)},
    LAZY_EMU_SYMBOL(lazy_emu_shuffle_xor_f32),
    LAZY_EMU_SYMBOL(lazy_emu_shuffle_xor_i32),
    LAZY_EMU_SYMBOL(lazy_emu_mma_m16n8k16_f16_f32),
    LAZY_EMU_SYMBOL(lazy_emu_mfma_16x16x16_f16_f32),
    LAZY_EMU_SYMBOL(lazy_emu_wmma_16x16x16_f16_f32),
    LAZY_EMU_SYMBOL(lazy_emu_mma_m16n8k16_bf16_f32),
    LAZY_EMU_SYMBOL(lazy_emu_mfma_16x16x16_bf16_f32),
    LAZY_EMU_SYMBOL(lazy_emu_wmma_16x16x16_bf16_f32),
    LAZY_EMU_SYMBOL(lazy_emu_all_reduce_add_f32),
    LAZY_EMU_SYMBOL(lazy_emu_all_reduce_add_f64),
    LAZY_EMU_SYMBOL(lazy_emu_all_reduce_add_i32),
    LAZY_EMU_SYMBOL(lazy_emu_all_reduce_add_i64),
    LAZY_EMU_SYMBOL(lazy_emu_all_reduce_maximumf_f32),
    LAZY_EMU_SYMBOL(lazy_emu_all_reduce_maximumf_f64),
    LAZY_EMU_SYMBOL(lazy_emu_all_reduce_maxsi_i32),
    LAZY_EMU_SYMBOL(lazy_emu_all_reduce_maxsi_i64),
    LAZY_EMU_SYMBOL(lazy_emu_all_reduce_maxui_i32),
    LAZY_EMU_SYMBOL(lazy_emu_all_reduce_maxui_i64),
    LAZY_EMU_SYMBOL(lazy_emu_all_reduce_or_i32),
    LAZY_EMU_SYMBOL(lazy_emu_all_reduce_or_i64),
#undef LAZY_EMU_SYMBOL
};

//===----------------------------------------------------------------------===//
// Kernels as CPU functions
//===----------------------------------------------------------------------===//

std::string typeSuffix(Type t) {
  if (t.isF32())
    return "f32";
  if (t.isF64())
    return "f64";
  if (t.isInteger(32))
    return "i32";
  if (t.isInteger(64))
    return "i64";
  return "";
}

/// A call at `b` of the runtime's `name` on `args`, returning `results`;
/// `emu` declares it (a private func.func of those types) the first time,
/// which `declared` remembers.
func::CallOp callRuntime(OpBuilder &b, Location loc, ModuleOp emu,
                         llvm::StringSet<> &declared, StringRef name,
                         TypeRange results, ValueRange args) {
  if (declared.insert(name).second) {
    OpBuilder db = OpBuilder::atBlockBegin(emu.getBody());
    func::FuncOp::create(
        db, emu.getLoc(), name,
        FunctionType::get(emu.getContext(), args.getTypes(), results))
        .setPrivate();
  }
  return func::CallOp::create(b, loc, name, results, args);
}

/// A matrix instruction (nvgpu.mma.sync m16n8k16, amdgpu.mfma or
/// amdgpu.wmma 16x16x16; f16 or bf16 in, f32 accumulators) as a call of the
/// runtime's `entry` on its fragments in stack memory (allocated once, at
/// the function's entry); returns its result, read back in c's shape.
FailureOr<Value> emulateMatrixOp(Operation *op, StringRef entry, Value a,
                                 Value b, Value c, func::FuncOp func,
                                 llvm::StringSet<> &declared, ModuleOp emu) {
  auto flatType = [](Value v) {
    auto t = cast<VectorType>(v.getType());
    return MemRefType::get({t.getNumElements()}, t.getElementType());
  };
  Value operands[] = {a, b, c};
  Type in = getElementTypeOrSelf(a.getType());
  if (!(in.isF16() || in.isBF16()) || getElementTypeOrSelf(b.getType()) != in ||
      !getElementTypeOrSelf(c.getType()).isF32())
    return op->emitError("the GPU emulator runs matrix instructions of f16 "
                         "or bf16 with f32 accumulators only");
  SmallVector<Type> slotTypes{flatType(a), flatType(b), flatType(c),
                              flatType(c)};
  Location loc = op->getLoc();
  OpBuilder top = OpBuilder::atBlockBegin(&func.getBody().front());
  SmallVector<Value> slots;
  for (Type t : slotTypes)
    slots.push_back(memref::AllocaOp::create(top, loc, cast<MemRefType>(t)));
  OpBuilder builder(op);
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  for (auto [value, slot] : llvm::zip(operands, slots)) {
    auto t = cast<VectorType>(value.getType());
    Value flat = vector::ShapeCastOp::create(
        builder, loc, VectorType::get({t.getNumElements()}, t.getElementType()),
        value);
    vector::StoreOp::create(builder, loc, flat, slot, ValueRange{zero});
  }
  callRuntime(builder, loc, emu, declared, entry, TypeRange{},
              ValueRange(slots));
  auto cType = cast<VectorType>(c.getType());
  Value d = vector::LoadOp::create(
      builder, loc,
      VectorType::get({cType.getNumElements()}, cType.getElementType()),
      slots[3], ValueRange{zero});
  return vector::ShapeCastOp::create(builder, loc, cType, d).getResult();
}

/// nvvm.mma.sync m16n8k16 of bf16 (the GPU lowering's form for bf16
/// fragments, packed in i32 registers) as emulateMatrixOp's call: the
/// registers unpacked into nvgpu.mma.sync's fragment shapes, the result
/// struct's fields (read only by llvm.extractvalue) replaced by the
/// result's elements, those readers added to `toErase`.
LogicalResult emulateNvvmMma(NVVM::MmaOp mma, func::FuncOp func,
                             llvm::StringSet<> &declared, ModuleOp emu,
                             SmallVectorImpl<Operation *> &toErase) {
  if (mma.getShape().getM() != 16 || mma.getShape().getN() != 8 ||
      mma.getShape().getK() != 16 ||
      mma.getMultiplicandAPtxType() != NVVM::MMATypes::bf16 ||
      mma.getOperandA().size() != 4 || mma.getOperandB().size() != 2 ||
      mma.getOperandC().size() != 4)
    return mma.emitError("the GPU emulator runs nvvm.mma.sync m16n8k16 of "
                         "bf16 with f32 accumulators only");
  OpBuilder b(mma);
  Location loc = mma.getLoc();
  Type bf16 = b.getBF16Type(), i32 = b.getI32Type(), f32 = b.getF32Type();
  // `regs` as one vector of `type`, reshaped to `shape`.
  auto gather = [&](ValueRange regs, Type element, Type unpacked,
                    ArrayRef<int64_t> shape) {
    auto packed = VectorType::get({int64_t(regs.size())}, element);
    Value v = vector::FromElementsOp::create(b, loc, packed, regs);
    int64_t count = ShapedType::getNumElements(shape);
    if (unpacked != element)
      v = vector::BitCastOp::create(b, loc, VectorType::get({count}, unpacked),
                                    v);
    return vector::ShapeCastOp::create(b, loc, VectorType::get(shape, unpacked),
                                       v)
        .getResult();
  };
  Value a = gather(mma.getOperandA(), i32, bf16, {4, 2});
  Value bb = gather(mma.getOperandB(), i32, bf16, {2, 2});
  Value c = gather(mma.getOperandC(), f32, f32, {2, 2});
  FailureOr<Value> d = emulateMatrixOp(mma, "lazy_emu_mma_m16n8k16_bf16_f32", a,
                                       bb, c, func, declared, emu);
  if (failed(d))
    return failure();
  OpBuilder after(mma);
  after.setInsertionPointAfterValue(*d);
  Value flat =
      vector::ShapeCastOp::create(after, loc, VectorType::get({4}, f32), *d);
  for (Operation *user : llvm::make_early_inc_range(mma->getUsers())) {
    auto field = dyn_cast<LLVM::ExtractValueOp>(user);
    if (!field || field.getPosition().size() != 1)
      return mma.emitError("the GPU emulator reads nvvm.mma.sync's result "
                           "through llvm.extractvalue only");
    field.getResult().replaceAllUsesWith(
        vector::ExtractOp::create(after, loc, flat, field.getPosition()[0])
            .getResult());
    toErase.push_back(field);
  }
  return success();
}

/// The runtime entry emulating `op`, or none for a shape it lacks.
std::optional<StringRef> matrixEntry(Operation *op) {
  auto shapeIs = [](Value v, ArrayRef<int64_t> shape) {
    return cast<VectorType>(v.getType()).getShape() == shape;
  };
  // The operands' type: f16 or bf16.
  Type element = cast<VectorType>(op->getOperand(0).getType()).getElementType();
  if (!element.isF16() && !element.isBF16())
    return std::nullopt;
  bool bf16 = element.isBF16();
  if (auto mma = dyn_cast<nvgpu::MmaSyncOp>(op)) {
    SmallVector<int64_t> shape;
    for (Attribute a : mma.getMmaShape())
      shape.push_back(cast<IntegerAttr>(a).getInt());
    if (shape == ArrayRef<int64_t>{16, 8, 16} &&
        shapeIs(mma.getMatrixA(), {4, 2}) && shapeIs(mma.getMatrixB(), {2, 2}))
      return StringRef(bf16 ? "lazy_emu_mma_m16n8k16_bf16_f32"
                            : "lazy_emu_mma_m16n8k16_f16_f32");
  } else if (auto mfma = dyn_cast<amdgpu::MFMAOp>(op)) {
    if (mfma.getM() == 16 && mfma.getN() == 16 && mfma.getK() == 16 &&
        mfma.getBlocks() == 1 && shapeIs(mfma.getSourceA(), {4}))
      return StringRef(bf16 ? "lazy_emu_mfma_16x16x16_bf16_f32"
                            : "lazy_emu_mfma_16x16x16_f16_f32");
  } else if (auto wmma = dyn_cast<amdgpu::WMMAOp>(op)) {
    if (wmma.getM() == 16 && wmma.getN() == 16 && wmma.getK() == 16 &&
        shapeIs(wmma.getSourceA(), {16}) && shapeIs(wmma.getDestC(), {8}))
      return StringRef(bf16 ? "lazy_emu_wmma_16x16x16_bf16_f32"
                            : "lazy_emu_wmma_16x16x16_f16_f32");
  }
  return std::nullopt;
}

/// What the launches need to know of each emulated kernel.
struct EmulatedKernels {
  /// Kernels whose threads meet (all_reduce, barrier, matrix instructions):
  /// their threads run as fibers.
  llvm::StringSet<> cooperative;
  /// Per kernel with workgroup buffers, each buffer's bytes.
  llvm::StringMap<std::vector<size_t>> workgroupBytes;
};

/// `<name>_emu(buffers..., workgroup buffers..., bid, tid, bdim, gdim)` for
/// every kernel, described in `kernels`.
FailureOr<OwningOpRef<ModuleOp>> buildEmulatorModule(ModuleOp module,
                                                     EmulatedKernels &found) {
  llvm::StringSet<> &cooperative = found.cooperative;
  MLIRContext *ctx = module.getContext();
  Location loc = module.getLoc();
  OwningOpRef<ModuleOp> emu = ModuleOp::create(loc);
  auto kernels = module.lookupSymbol<gpu::GPUModuleOp>("lazy_kernels");
  if (!kernels)
    return OwningOpRef<ModuleOp>(std::move(emu));
  OpBuilder top = OpBuilder::atBlockEnd(emu->getBody());
  Type index = IndexType::get(ctx);
  llvm::StringSet<> declared;
  for (auto kernel : kernels.getOps<gpu::GPUFuncOp>()) {
    if (!kernel.getBody().hasOneBlock())
      return kernel.emitError("the GPU emulator takes single-block kernels");
    SmallVector<Type> types(kernel.getArgumentTypes());
    // Workgroup buffers become plain memory that the launch allocates.
    std::vector<size_t> workgroupBytes;
    for (BlockArgument buffer : kernel.getWorkgroupAttributions()) {
      auto type = cast<MemRefType>(buffer.getType());
      if (!type.hasStaticShape())
        return kernel.emitError(
            "the GPU emulator takes workgroup buffers of static shape");
      workgroupBytes.push_back(
          size_t(type.getNumElements()) *
          llvm::divideCeil(type.getElementTypeBitWidth(), 8));
      types.push_back(MemRefType::get(type.getShape(), type.getElementType()));
    }
    if (!workgroupBytes.empty())
      found.workgroupBytes[kernel.getName()] = workgroupBytes;
    types.append(4, index);
    auto func = func::FuncOp::create(top, kernel.getLoc(),
                                     (kernel.getName() + "_emu").str(),
                                     FunctionType::get(ctx, types, {}));
    Block *entry = func.addEntryBlock();
    IRMapping map;
    for (auto [from, to] :
         llvm::zip(kernel.getBody().getArguments(), entry->getArguments()))
      map.map(from, to);
    unsigned ids = kernel.getNumArguments() + unsigned(workgroupBytes.size());
    Value bid = entry->getArgument(ids);
    Value tid = entry->getArgument(ids + 1);
    Value bdim = entry->getArgument(ids + 2);
    Value gdim = entry->getArgument(ids + 3);
    OpBuilder b = OpBuilder::atBlockEnd(entry);
    for (Operation &op : kernel.getBody().front())
      b.clone(op, map);

    SmallVector<Operation *> toErase;
    WalkResult walked = func.walk([&](Operation *op) {
      OpBuilder rb(op);
      auto idOrSize = [&](gpu::Dimension dim, Value x, int64_t other) {
        Value v = dim == gpu::Dimension::x
                      ? x
                      : arith::ConstantIndexOp::create(rb, op->getLoc(), other)
                            .getResult();
        op->getResult(0).replaceAllUsesWith(v);
        toErase.push_back(op);
      };
      if (auto o = dyn_cast<gpu::ThreadIdOp>(op))
        idOrSize(o.getDimension(), tid, 0);
      else if (auto o = dyn_cast<gpu::BlockIdOp>(op))
        idOrSize(o.getDimension(), bid, 0);
      else if (auto o = dyn_cast<gpu::BlockDimOp>(op))
        idOrSize(o.getDimension(), bdim, 1);
      else if (auto o = dyn_cast<gpu::GridDimOp>(op))
        idOrSize(o.getDimension(), gdim, 1);
      else if (isa<gpu::ReturnOp>(op)) {
        func::ReturnOp::create(rb, op->getLoc());
        toErase.push_back(op);
      } else if (auto reduce = dyn_cast<gpu::AllReduceOp>(op)) {
        Type t = reduce.getType();
        std::string suffix = typeSuffix(t);
        if (!reduce.getOp() || suffix.empty()) {
          reduce.emitError("the GPU emulator has no all_reduce for this "
                           "operation and type");
          return WalkResult::interrupt();
        }
        std::string name =
            ("lazy_emu_all_reduce_" +
             gpu::stringifyAllReduceOperation(*reduce.getOp()) + "_" + suffix)
                .str();
        Value r = callRuntime(rb, op->getLoc(), *emu, declared, name,
                              TypeRange{t}, ValueRange{reduce.getValue()})
                      .getResult(0);
        reduce.getResult().replaceAllUsesWith(r);
        toErase.push_back(op);
        cooperative.insert(kernel.getName());
      } else if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op)) {
        Type t = shuffle.getShuffleResult().getType();
        std::string suffix = typeSuffix(t);
        if (shuffle.getMode() != gpu::ShuffleMode::XOR ||
            (suffix != "f32" && suffix != "i32")) {
          shuffle.emitError("the GPU emulator runs gpu.shuffle xor of f32 "
                            "and i32 only");
          return WalkResult::interrupt();
        }
        Value r =
            callRuntime(rb, op->getLoc(), *emu, declared,
                        "lazy_emu_shuffle_xor_" + suffix, TypeRange{t},
                        ValueRange{shuffle.getValue(), shuffle.getOffset(),
                                   shuffle.getWidth()})
                .getResult(0);
        shuffle.getShuffleResult().replaceAllUsesWith(r);
        // Every partner of an xor inside its segment exists.
        shuffle.getValid().replaceAllUsesWith(
            arith::ConstantIntOp::create(rb, op->getLoc(), 1, 1).getResult());
        toErase.push_back(op);
        cooperative.insert(kernel.getName());
      } else if (isa<gpu::BarrierOp>(op)) {
        callRuntime(rb, op->getLoc(), *emu, declared, "lazy_emu_barrier",
                    TypeRange{}, ValueRange{});
        toErase.push_back(op);
        cooperative.insert(kernel.getName());
      } else if (isa<nvgpu::MmaSyncOp, amdgpu::MFMAOp, amdgpu::WMMAOp>(op)) {
        std::optional<StringRef> entry = matrixEntry(op);
        if (!entry) {
          op->emitError("the GPU emulator has no emulation of this matrix "
                        "instruction's shape");
          return WalkResult::interrupt();
        }
        FailureOr<Value> d =
            emulateMatrixOp(op, *entry, op->getOperand(0), op->getOperand(1),
                            op->getOperand(2), func, declared, *emu);
        if (failed(d))
          return WalkResult::interrupt();
        op->getResult(0).replaceAllUsesWith(*d);
        toErase.push_back(op);
        cooperative.insert(kernel.getName());
      } else if (auto mma = dyn_cast<NVVM::MmaOp>(op)) {
        toErase.push_back(op);
        if (failed(emulateNvvmMma(mma, func, declared, *emu, toErase)))
          return WalkResult::interrupt();
        cooperative.insert(kernel.getName());
      }
      return WalkResult::advance();
    });
    if (walked.wasInterrupted())
      return failure();
    for (Operation *op : llvm::reverse(toErase))
      op->erase();
  }
  return OwningOpRef<ModuleOp>(std::move(emu));
}

//===----------------------------------------------------------------------===//
// The device
//===----------------------------------------------------------------------===//

class EmulatedDevice final : public GpuDevice {
  static constexpr size_t kDeviceAlignment = 256;

public:
  EmulatedDevice(std::unique_ptr<ExecutionEngine> engine,
                 OwningOpRef<ModuleOp> emu, EmulatedKernels kernels,
                 unsigned maxBlocks)
      : engine(std::move(engine)), emu(std::move(emu)),
        kernels(std::move(kernels)), maxBlocks(maxBlocks) {}

  std::string name() override { return "GPU emulator (CPU threads)"; }
  std::string chip() override { return ""; }
  /// Zeroed memory aligned as cudaMalloc's and hipMalloc's (256 bytes):
  /// the kernels' vector loads state the alignment the host code knows.
  bool alloc(size_t bytes, DevicePtr &ptr) override {
    size_t rounded = (std::max<size_t>(bytes, 1) + kDeviceAlignment - 1) /
                     kDeviceAlignment * kDeviceAlignment;
    void *p = std::aligned_alloc(kDeviceAlignment, rounded);
    if (!p)
      return failWith("out of host memory");
    std::memset(p, 0, rounded);
    ptr = reinterpret_cast<DevicePtr>(p);
    return true;
  }
  bool free(DevicePtr ptr) override {
    std::free(reinterpret_cast<void *>(ptr));
    return true;
  }
  // Empty buffers may have null addresses, which memcpy must not be given.
  bool copyToDevice(DevicePtr dst, const void *src, size_t bytes) override {
    if (bytes)
      std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
    return true;
  }
  bool copyToHost(void *dst, DevicePtr src, size_t bytes) override {
    if (bytes)
      std::memcpy(dst, reinterpret_cast<const void *>(src), bytes);
    return true;
  }
  bool copyOnDevice(DevicePtr dst, DevicePtr src, size_t bytes) override {
    std::memmove(reinterpret_cast<void *>(dst),
                 reinterpret_cast<const void *>(src), bytes);
    return true;
  }
  bool fillZero(DevicePtr dst, size_t bytes) override {
    std::memset(reinterpret_cast<void *>(dst), 0, bytes);
    return true;
  }
  bool loadModule(const void *, size_t) override { return true; }
  bool launch(const std::string &kernel, const unsigned grid[3],
              const unsigned block[3], const DevicePtr *args,
              size_t numArgs) override;
  bool synchronize() override { return true; }

private:
  std::unique_ptr<ExecutionEngine> engine;
  OwningOpRef<ModuleOp> emu;
  EmulatedKernels kernels;
  unsigned maxBlocks;
};

/// What a fiber runs: the kernel for thread `current`, every emulated block
/// in turn being started by the scheduler.
struct LaunchState {
  void (*kernel)(void **);
  std::vector<std::vector<void *>> pointers; // per thread: buffer pointers
  std::vector<std::vector<int64_t>> ids;     // per thread: bid, tid, ...
  std::vector<std::vector<void *>> packed;   // per thread: the arguments
};
LaunchState *currentLaunch = nullptr;

/// A fiber's entry: runs the kernel for thread `current`, then switches
/// back to the scheduler for good (its stack is laid out afresh for the
/// next block).
[[noreturn]] void runFiber() {
  BlockContext &block = *currentBlock;
  unsigned t = block.current;
  currentLaunch->kernel(currentLaunch->packed[t].data());
  block.done[t] = 1;
  block.fibers[t].context.switchTo(block.scheduler);
  __builtin_unreachable();
}

bool EmulatedDevice::launch(const std::string &kernel, const unsigned grid[3],
                            const unsigned block[3], const DevicePtr *args,
                            size_t numArgs) {
  auto fn = engine->lookupPacked(kernel + "_emu");
  if (!fn)
    return failWith("no emulated kernel " + kernel + ": " +
                    llvm::toString(fn.takeError()));
  unsigned threads = block[0] * block[1] * block[2];
  int64_t blocks = std::min<int64_t>(grid[0], maxBlocks);
  // The workgroup buffers follow the kernel's own: one allocation, which
  // each block in turn uses (blocks run one after the other).
  std::vector<std::unique_ptr<char, decltype(&std::free)>> workgroup;
  std::vector<DevicePtr> allArgs(args, args + numArgs);
  auto found = kernels.workgroupBytes.find(kernel);
  if (found != kernels.workgroupBytes.end())
    for (size_t bytes : found->second) {
      size_t rounded = (std::max<size_t>(bytes, 1) + kDeviceAlignment - 1) /
                       kDeviceAlignment * kDeviceAlignment;
      void *p = std::aligned_alloc(kDeviceAlignment, rounded);
      if (!p)
        return failWith("out of host memory");
      workgroup.emplace_back(static_cast<char *>(p), &std::free);
      allArgs.push_back(reinterpret_cast<DevicePtr>(p));
    }
  args = allArgs.data();
  numArgs = allArgs.size();
  if (!kernels.cooperative.contains(kernel)) {
    // No thread waits for another: each runs to its end in turn, on this
    // stack, without the fibers' switches.
    std::vector<void *> pointers(numArgs);
    std::vector<void *> packed;
    for (size_t i = 0; i < numArgs; ++i) {
      pointers[i] = reinterpret_cast<void *>(args[i]);
      packed.push_back(&pointers[i]);
    }
    int64_t ids[4] = {0, 0, int64_t(block[0]), blocks};
    for (int64_t &id : ids)
      packed.push_back(&id);
    for (int64_t b = 0; b < blocks; ++b)
      for (unsigned t = 0; t < threads; ++t) {
        ids[0] = b;
        ids[1] = int64_t(t);
        (*fn)(packed.data());
      }
    return true;
  }
  LaunchState launch;
  launch.kernel = *fn;
  launch.pointers.assign(threads, std::vector<void *>(numArgs));
  launch.ids.assign(threads, std::vector<int64_t>(4));
  launch.packed.resize(threads);
  for (unsigned t = 0; t < threads; ++t) {
    for (size_t i = 0; i < numArgs; ++i) {
      launch.pointers[t][i] = reinterpret_cast<void *>(args[i]);
      launch.packed[t].push_back(&launch.pointers[t][i]);
    }
    launch.ids[t] = {0, int64_t(t), int64_t(block[0]), blocks};
    for (int64_t &id : launch.ids[t])
      launch.packed[t].push_back(&id);
  }
  BlockContext context(threads);
  for (BlockContext::Fiber &f : context.fibers)
    f.stack.resize(kFiberStack);
  currentBlock = &context;
  currentLaunch = &launch;
  for (int64_t b = 0; b < blocks; ++b) {
    for (unsigned t = 0; t < threads; ++t) {
      launch.ids[t][0] = b;
      context.fibers[t].context.start(context.fibers[t].stack, runFiber);
      context.done[t] = 0;
    }
    // Rounds: every unfinished thread runs to its next all_reduce or to
    // its end. The kernels reach all_reduce uniformly, so after a round
    // either all wait at one (combine and resume) or all are done.
    while (true) {
      unsigned waiting = 0;
      for (unsigned t = 0; t < threads; ++t) {
        if (context.done[t])
          continue;
        context.current = t;
        context.scheduler.switchTo(context.fibers[t].context);
        waiting += !context.done[t];
      }
      if (waiting == 0)
        break;
      if (waiting != threads)
        return failWith("kernel " + kernel +
                        ": threads of a block reached gpu.all_reduce, "
                        "gpu.barrier or a matrix instruction non-uniformly");
      context.resolve(context);
    }
  }
  currentBlock = nullptr;
  currentLaunch = nullptr;
  return true;
}

} // namespace

FailureOr<std::unique_ptr<GpuDevice>>
mlir::lazy::createGpuEmulator(ModuleOp module, unsigned maxBlocks) {
  EmulatedKernels kernels;
  FailureOr<OwningOpRef<ModuleOp>> emu = buildEmulatorModule(module, kernels);
  if (failed(emu))
    return failure();
  PassManager pm(module.getContext());
  addSoftBFloat16Passes(pm);
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  ConvertFuncToLLVMPassOptions barePointers;
  barePointers.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(barePointers));
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  if (failed(pm.run(**emu)))
    return failure();
  auto engine = ExecutionEngine::create(**emu);
  if (!engine) {
    module.emitError("cannot compile the emulated kernels: ")
        << llvm::toString(engine.takeError());
    return failure();
  }
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    for (const RuntimeSymbol &s : kRuntimeSymbols)
      map[interner(s.name)] = {llvm::orc::ExecutorAddr::fromPtr(s.address),
                               llvm::JITSymbolFlags::Exported};
    return map;
  });
  return std::unique_ptr<GpuDevice>(std::make_unique<EmulatedDevice>(
      std::move(*engine), std::move(*emu), std::move(kernels), maxBlocks));
}
