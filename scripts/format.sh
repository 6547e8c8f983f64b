#!/usr/bin/env bash
# Formats the C and C++ sources with clang-format-22 (.clang-format: LLVM
# style). With --check, changes nothing and fails when a file would change.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=(-i)
[ "${1:-}" = "--check" ] && mode=(--dry-run -Werror)
git ls-files --cached --others --exclude-standard '*.c' '*.cpp' '*.h' | xargs clang-format-22 "${mode[@]}"
