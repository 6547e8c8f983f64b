#!/usr/bin/env bash
# The checks of the GPU lowering that need a GPU, in one run (a device
# session has minutes, not hours):
#   1. lazy-run --check --profile on an example graph;
#   2. every corpus graph with checked numerics against the reference
#      interpreter (bench/check_summary.py): counts and largest error per dtype;
#   3. the bandwidth benchmark (bench/kernels_bench.py): GB/s per kernel and
#      the share of the device's peak.
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

echo "== lazy-run on examples/sum_add.mlir (--device=$device)"
"$build/bin/lazy-run" examples/sum_add.mlir --device="$device" --seed=1 --check \
  $([ "$device" = emulate ] || echo --profile) 2>&1 | tee "$out/example.txt"
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
echo "gpu-check: $([ $status -eq 0 ] && echo passed || echo FAILED)"
exit $status
