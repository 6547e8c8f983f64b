#!/usr/bin/env bash
# Lowers every lit input (test/Tools, test/Transforms, test/Conversion) and
# examples/ five ways with two lazy-opt builds and lists the outputs that
# differ: the check that a change meant to keep the generated code (a
# refactoring of the planner or the lowerings) keeps it byte for byte.
#
#   scripts/compare_lowerings.sh OLD/bin/lazy-opt NEW/bin/lazy-opt [OUTDIR]
#
# The five ways: lazy-to-cpu; lazy-schedule, lazy-optimize-kernels
# (generic, 512-bit) and convert-lazy-to-loops; lazy-optimize-kernels
# (gpu) and convert-lazy-to-gpu; and fusion=aggressive into the CPU and
# the GPU, which forms the row kernels. An input that fails to lower
# counts as the output "fail" (error tests fail alike in both builds).
# Prints one "DIFF" line per differing output and how many were compared;
# exits 1 when any differs.
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { sed -n '2,15p' "$0"; exit 2; }
old=$1 new=$2 out=${3:-$(mktemp -d)}

lower() { # BUILD DIR: every input, every way, into DIR
  local opt=$1 dir=$2
  mkdir -p "$dir"
  for f in test/Tools/*.mlir test/Transforms/*.mlir \
    test/Conversion/LazyToLoops/*.mlir test/Conversion/LazyToGPU/*.mlir \
    examples/*.mlir; do
    [ -f "$f" ] || continue
    local n=${f//\//_}
    run() { # SUFFIX ARGS...
      local suffix=$1
      shift
      timeout 60 "$opt" "$f" --split-input-file "$@" -o "$dir/$n.$suffix" \
        2>/dev/null || echo fail >"$dir/$n.$suffix"
    }
    run cpu --lazy-to-cpu
    run loops --lazy-schedule \
      "--lazy-optimize-kernels=target=generic vector-bits=512" \
      --convert-lazy-to-loops
    run gpu --lazy-schedule "--lazy-optimize-kernels=target=gpu" \
      --convert-lazy-to-gpu
    run aggcpu --lazy-schedule=fusion=aggressive --lazy-to-cpu
    run agggpu --lazy-schedule=fusion=aggressive \
      "--lazy-optimize-kernels=target=gpu" --convert-lazy-to-gpu
  done
}

lower "$old" "$out/old"
lower "$new" "$out/new"
status=0 count=0
for f in "$out"/old/*; do
  n=$(basename "$f")
  count=$((count + 1))
  cmp -s "$f" "$out/new/$n" || { echo "DIFF $n"; status=1; }
done
echo "$count outputs compared ($out)"
exit $status
