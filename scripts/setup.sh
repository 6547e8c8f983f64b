#!/usr/bin/env bash
# Installs everything lazy-mlir needs (Debian and PyPI packages) and builds it
# into build/. Safe to run again: it installs only what is missing and the
# build is incremental.
set -euo pipefail
cd "$(dirname "$0")/.."

DEB_PACKAGES=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22 libomp-22-dev
              ninja-build ccache cmake g++ clang libgtest-dev libmimalloc-dev
              rocm-device-libs libamdhip64-dev
              clang-format-22 # scripts/format.sh; the source format test
              graphviz # lazy-print-schedule{format=dot} rendered in a test
              valgrind # bench/schedule_bench.py --instructions counts with callgrind
              libedit-dev # LLVMConfig.cmake's find_package(LibEdit): CMake consumers
              openmpi-bin libopenmpi-dev) # lazy-run --distributed under mpirun
PY_PACKAGES=(tinygrad==0.9.2 numpy pytest lit)

missing=()
for pkg in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  # The LLVM 22 packages come with Debian's security updates: refresh first.
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

PYTHON=${PYTHON:-$(command -v python3)}
if ! "$PYTHON" - <<'PY' 2>/dev/null
import importlib.metadata as m
assert m.version("tinygrad") == "0.9.2"
for name in ("numpy", "pytest", "lit"):
    m.version(name)
PY
then
  echo "setup: installing Python packages: ${PY_PACKAGES[*]}"
  "$PYTHON" -m pip install -q "${PY_PACKAGES[@]}"
fi
"$PYTHON" -c 'import os, sys, lazy_mlir; sys.exit(os.path.realpath(lazy_mlir.REPO_ROOT) != os.path.realpath("."))' 2>/dev/null || { "$PYTHON" -c 'import wheel' 2>/dev/null || "$PYTHON" -m pip install -q wheel; "$PYTHON" -m pip install -q --no-build-isolation -e python; }
# The start-up hook that acts on LAZY_MLIR=schedule: a non-editable install
# puts it in site-packages itself, an editable one does not.
SITE=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
cmp -s python/lazy_mlir_autoload.pth "$SITE/lazy_mlir_autoload.pth" \
  || cp python/lazy_mlir_autoload.pth "$SITE/lazy_mlir_autoload.pth"

PREFIX=$(llvm-config-22 --prefix)
if [ ! -f build/build.ninja ]; then
  cmake -G Ninja -S . -B build \
    -DMLIR_DIR="$PREFIX/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$PREFIX/bin/lit" \
    -DMLIR_LINK_MLIR_DYLIB=ON \
    -DCMAKE_BUILD_TYPE=Release \
    -DPython3_EXECUTABLE="$PYTHON" >/dev/null
fi
ninja -C build -j"${JOBS:-$(nproc)}"
