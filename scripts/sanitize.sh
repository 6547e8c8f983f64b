#!/usr/bin/env bash
# A second build, build-sanitize/, with AddressSanitizer, UndefinedBehavior-
# Sanitizer and assertions, and the checks that run through it:
#   lit (test/), the gtest suites, the Python tests, the mutation fuzzer
#   (scripts/fuzz_schedule.py) over graphs of the Python corpus and the
#   differential fuzzer (scripts/fuzz_compare.py).
# Release builds compile asserts out, so a misused cast<> or a read past an
# array passes silently there; this finds them. Not part of scripts/test.sh:
# the build alone takes about as long as the release build.
#
#   bash scripts/sanitize.sh [--fuzz-runs N]     (after scripts/setup.sh)
#
# Ends with one line: "sanitize: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."

FUZZ_RUNS=1000
if [ "${1:-}" = "--fuzz-runs" ]; then FUZZ_RUNS=$2; fi
PREFIX=$(llvm-config-22 --prefix)
BUILD=build-sanitize
SAN="-fsanitize=address,undefined -fno-omit-frame-pointer"

if [ ! -f $BUILD/build.ninja ]; then
  # -O1 without -DNDEBUG: asserts stay in (the release flags would add
  # -DNDEBUG after CMAKE_CXX_FLAGS). mimalloc would replace the allocator
  # ASan intercepts.
  cmake -G Ninja -S . -B $BUILD \
    -DMLIR_DIR="$PREFIX/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$PREFIX/bin/lit" \
    -DMLIR_LINK_MLIR_DYLIB=ON \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1" \
    -DCMAKE_CXX_FLAGS="-g $SAN" \
    -DCMAKE_EXE_LINKER_FLAGS="$SAN" \
    -DCMAKE_SHARED_LINKER_FLAGS="$SAN" \
    -DLAZY_USE_MIMALLOC=OFF \
    -DPython3_EXECUTABLE="${PYTHON:-python3}" >/dev/null || exit 1
fi
ninja -C $BUILD -j"${JOBS:-$(nproc)}" || { echo "sanitize: 0 passed, 1 failed"; exit 1; }

# libMLIR.so is not instrumented, but LLVM's headers poison the free part of
# BumpPtrAllocator slabs from our instrumented code; libMLIR's own writes
# there (through intercepted memcpy) would be reported. Leaks are checked.
# The tools run on a large-stack thread (LargeStack.h) where InitLLVM puts
# LLVM's own alternate signal stack; ASan's thread teardown would unmap it
# as its own and abort ("failed to deallocate ... unable to unmap"), so
# ASan keeps no alternate stack of its own.
export ASAN_OPTIONS="allow_user_poisoning=0:detect_leaks=1:abort_on_error=1:use_sigaltstack=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp"
# LeakSanitizer's exit-time tracer crashes (SIGSEGV in its stop-the-world
# thread) while libomp's worker threads are alive: the compiled CPU
# kernels run on one OpenMP thread here (the results were right either
# way; checked on schedule/example_matmul with detect_leaks=0).
export OMP_NUM_THREADS=1

passed=0; failed=0
check() {  # name, command...
  local name=$1; shift
  echo "== $name"
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $name"; fi
}

# The plugin tests load the sanitized plugin into Debian's mlir-opt, which
# has no sanitizer runtime to run it with.
check lit "$PREFIX/bin/lit" -q --filter-out 'Plugin/' $BUILD/test
for suite in ShapeTrackerTests AnalysisTests HostProgramTests DevicePlanTests; do
  check "$suite" $BUILD/bin/$suite --gtest_brief=1
done
# The Python tests run the sanitized tools (lazy_mlir reads the build
# directory from LAZY_MLIR_BUILD_DIR) and load the sanitized
# liblazy-mlir-c.so into Python itself (the bridge, the exporter's walk,
# the tolerance table), so the sanitizer runtimes must come first in the
# process, and Python's own memory at exit is not ours to check for leaks:
# leaks are checked by lit and the fuzzers below. Left out: the one test
# that checks the tools come from build/, and the address-space limit
# tests (ASan reserves terabytes of shadow memory, which no RLIMIT_AS
# allows).
check pytest env LAZY_MLIR_BUILD_DIR="$PWD/$BUILD" \
  LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)" \
  ASAN_OPTIONS="${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0}" \
  "${PYTHON:-python3}" -m pytest -q -p no:cacheprovider python/tests \
  --ignore=python/tests/test_memory_limits.py \
  -k 'not test_interp_path_is_in_the_checkout'

seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
"${PYTHON:-python3}" python/tests/corpus/generate.py "$seeds/scripts" >/dev/null
for script in "$seeds"/scripts/*.py; do
  "${PYTHON:-python3}" -m lazy_mlir.tinygrad export "$script" \
    -o "$seeds/$(basename "$script" .py).mlir" >/dev/null 2>&1
done
check fuzz-schedule "${PYTHON:-python3}" scripts/fuzz_schedule.py --lazy-opt $BUILD/bin/lazy-opt \
  --runs "$FUZZ_RUNS" --out $BUILD/fuzz-failures "$seeds"/*.mlir
check fuzz-cpu "${PYTHON:-python3}" scripts/fuzz_schedule.py --lazy-opt $BUILD/bin/lazy-opt \
  --pass=--lazy-to-cpu --runs "$((FUZZ_RUNS / 4))" --out $BUILD/fuzz-failures "$seeds"/*.mlir
# Random tinygrad programs, compared with tinygrad and run on the CPU.
check fuzz-compare "${PYTHON:-python3}" scripts/fuzz_compare.py --lazy-opt $BUILD/bin/lazy-opt \
  --check-run $BUILD/bin/lazy-run --runs "$((FUZZ_RUNS / 4))" --seed 1 \
  --out $BUILD/fuzz-failures

echo "sanitize: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
