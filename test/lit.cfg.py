# -*- Python -*-
# lit configuration for lazy-mlir's FileCheck tests.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "LAZY"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.lazy_obj_root, "test")
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%lazy_libs", config.lazy_lib_dir))
config.substitutions.append(("%lazy_rocm_toolkit", config.lazy_rocm_toolkit))

# OMP_NUM_THREADS: scripts/sanitize.sh runs the compiled kernels on one
# OpenMP thread (LeakSanitizer's exit-time check fails while libomp's
# workers are alive); lit passes no variable it is not told to.
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP",
                                     "OMP_NUM_THREADS"])
llvm_config.use_default_substitutions()
# Tests compile, and say what they expect of the compile: the program
# cache stays off unless a test names its own (lazy-run --cache-dir).
config.environment["LAZY_MLIR_CACHE"] = "0"

tool_dirs = [config.lazy_tools_dir, config.llvm_tools_dir]
tools = ["lazy-opt", "lazy-interp", "lazy-run", "lazy-replay", "lazy-lsp-server",
         "not", "mlir-runner", "mlir-translate",
         ToolSubst("%mlir_opt", config.mlir_opt, unresolved="fatal")]
llvm_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
config.substitutions.append(
    ("%mlir_runner_utils", os.path.join(llvm_lib_dir, "libmlir_runner_utils" + config.llvm_shlib_ext)))
config.substitutions.append(
    ("%mlir_c_runner_utils", os.path.join(llvm_lib_dir, "libmlir_c_runner_utils" + config.llvm_shlib_ext)))
# lazy-to-cpu's parallel loops call LLVM's OpenMP runtime.
config.substitutions.append(
    ("%libomp", os.path.join(llvm_lib_dir, "libomp" + config.llvm_shlib_ext)))
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Optional capabilities, used with REQUIRES: in the tests.
if shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")
try:
    import tinygrad  # noqa: F401
    config.available_features.add("tinygrad")
except ImportError:
    pass

# A GPU to run on: the device nodes and the vendor's user-space driver.
def _loads(library):
    import ctypes
    try:
        ctypes.CDLL(library)
        return True
    except OSError:
        return False

if os.path.exists("/dev/nvidiactl") and _loads("libcuda.so.1"):
    config.available_features.add("cuda-gpu")
if os.path.exists("/dev/kfd") and (_loads("libamdhip64.so") or _loads("libamdhip64.so.5")):
    config.available_features.add("rocm-gpu")
