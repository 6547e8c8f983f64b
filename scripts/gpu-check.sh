#!/usr/bin/env bash
# The checks of the GPU lowering that need a GPU, in one run (a device
# session has minutes, not hours):
#   0. builds (scripts/setup.sh) unless BUILD_DIR already holds lazy-run;
#   1. lazy-run --check --profile on an example graph;
#   2. the GPU tests (test_gpu_programs.py, test_gpu_compile.py);
#   3. every corpus graph with checked numerics against the reference
#      interpreter (bench/check_summary.py): counts and largest error per dtype;
#   4. the bandwidth benchmark (bench/kernels_bench.py): GB/s per kernel and
#      the share of the device's peak;
#   5. tinygrad's model set on its GPU device (bench/gpu_models.py): plain
#      tinygrad against LAZY_MLIR=schedule (outputs bit for bit) and
#      LAZY_MLIR=compile (within tolerance), step-time ratios, f16 matmul
#      TFLOP/s and a*b+c GB/s as fractions of the card's peaks (PEAK_TFLOPS,
#      default H100 SXM's 989).
# Usage: scripts/gpu-check.sh [cuda|hip|emulate] [BUILD_DIR] [PEAK_GBS]
# BUILD_DIR holds bin/lazy-run (default build). tinygrad 0.9.2 must be
# importable, unless GRAPHS names a folder of graphs exported beforehand
# (`bench/check_summary.py --save DIR`). JOBS lazy-run processes check the
# corpus at a time (default: one per core). Results are also written to
# $OUT (or /tmp/gpu-check). Exits non-zero if any check fails.
set -uo pipefail
cd "$(dirname "$0")/.."
device=${1:-cuda}
build=$(realpath "${2:-build}")
peak=${3:-4800}
out=${OUT:-/tmp/gpu-check}
mkdir -p "$out"
export LAZY_MLIR_BUILD_DIR="$build" PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
status=0

if [ ! -x "$build/bin/lazy-run" ]; then
  echo "== build"
  bash scripts/setup.sh || exit 1
fi

echo "== lazy-run on examples/sum_add.mlir (--device=$device)"
"$build/bin/lazy-run" examples/sum_add.mlir --device="$device" --seed=1 --check \
  $([ "$device" = emulate ] || echo --profile) 2>&1 | tee "$out/example.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

echo "== GPU tests"
python3 -m pytest -q python/tests/test_gpu_programs.py python/tests/test_gpu_compile.py 2>&1 \
  | tail -3 | tee "$out/tests.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

echo "== corpus against the interpreter (--device=$device)"
python3 bench/check_summary.py --device "$device" --jobs "${JOBS:-$(nproc)}" \
  ${GRAPHS:+--graphs "$GRAPHS"} 2>&1 | tee "$out/summary.txt"
grep -q " 0 refused, 0 differ" "$out/summary.txt" || status=1

if [ "$device" != emulate ]; then
  echo "== bandwidth (--device=$device, peak $peak GB/s)"
  python3 bench/kernels_bench.py --device "$device" --peak-gbs "$peak" 2>&1 \
    | tee "$out/bandwidth.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if [ "$device" != emulate ]; then
  tinygrad_device=$([ "$device" = cuda ] && echo CUDA || echo AMD)
  echo "== tinygrad's models on $tinygrad_device: plain, LAZY_MLIR=schedule, LAZY_MLIR=compile"
  python3 bench/gpu_models.py --device "$tinygrad_device" --peak-gbs "$peak" \
    --peak-tflops "${PEAK_TFLOPS:-989}" 2>&1 | tee "$out/models.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
echo "gpu-check: $([ $status -eq 0 ] && echo passed || echo FAILED)"
exit $status
