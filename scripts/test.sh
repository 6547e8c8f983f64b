#!/usr/bin/env bash
# Builds lazy-mlir (through setup.sh) and runs every test suite: the lit +
# FileCheck tests, the ShapeTracker gtest suite and the Python tests (pytest).
# Ends with one line that counts all tests: "tests: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh || { echo "tests: 0 passed, 1 failed"; exit 1; }

log=$(mktemp -d)
status=0

echo "== lit (test/)"
"$(llvm-config-22 --prefix)/bin/lit" -sv build/test | tee "$log/lit.txt" \
  || status=1

echo "== gtest (unittests/)"
# The suites CMake lists for check-lazy-unit (CMakeLists.txt).
[ -s build/gtest-suites.txt ] || { echo "build/gtest-suites.txt is missing"; status=1; }
for suite in $(cat build/gtest-suites.txt 2>/dev/null); do
  build/bin/$suite --gtest_brief=1 | tee -a "$log/gtest.txt" || status=1
done

echo "== pytest (python/tests)"
"${PYTHON:-python3}" -m pytest -q -p no:cacheprovider python/tests | tee "$log/pytest.txt"
py_rc=${PIPESTATUS[0]}; [ "$py_rc" -eq 0 ] || [ "$py_rc" -eq 5 ] || status=1  # 5: nothing collected

count() { grep -Eo "$2" "$1" | grep -Eo '[0-9]+' | head -n1; }
lit_pass=$(count "$log/lit.txt" 'Passed *: *[0-9]+'); lit_pass=${lit_pass:-0}
lit_fail=$(awk -F: '/^ *(Failed|Unresolved|Timed Out|Unexpectedly Passed) *:/ {n += $2} END {print n + 0}' "$log/lit.txt")
gt_pass=$(grep -Eo '\[  PASSED  \] [0-9]+' "$log/gtest.txt" | awk '{n += $NF} END {print n + 0}')
gt_fail=$(grep -Eo '\[  FAILED  \] [0-9]+ test' "$log/gtest.txt" | awk '{n += $3} END {print n + 0}')
py_sum=$(grep -E '[0-9]+ (passed|failed|errors?|skipped)|no tests ran' "$log/pytest.txt" | tail -n1)
py_pass=$(echo "$py_sum" | grep -Eo '[0-9]+ passed' | grep -Eo '[0-9]+'); py_pass=${py_pass:-0}
py_fail=$(echo "$py_sum" | grep -Eo '[0-9]+ (failed|errors?)' | awk '{n += $1} END {print n + 0}')
rm -rf "$log"

passed=$((lit_pass + gt_pass + py_pass))
failed=$((lit_fail + gt_fail + py_fail))
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "lit: $lit_pass passed, $lit_fail failed; gtest: $gt_pass passed, $gt_fail failed; pytest: $py_pass passed, $py_fail failed"
echo "tests: $passed passed, $failed failed"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
