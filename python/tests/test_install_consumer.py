"""The installed tree is a usable CMake package: `cmake --install build`
into a fresh prefix, then test/Consumer (an out-of-tree tool that knows
lazy-mlir only through find_package(LazyMLIR) and LazyMLIR::LazyMLIR)
configured against that prefix, built, and run: it registers everything
through lazy/InitAll.h and schedules graphs with lazy-schedule."""

import os
import shutil
import subprocess

import pytest

from lazy_mlir import REPO_ROOT

BUILD = os.path.join(REPO_ROOT, "build")


def run(*args, **kwargs):
    proc = subprocess.run(list(args), capture_output=True, text=True,
                          timeout=600, **kwargs)
    assert proc.returncode == 0, f"{' '.join(args)}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    if not os.path.exists(os.path.join(BUILD, "build.ninja")):
        pytest.skip("no build tree")
    prefix = tmp_path_factory.mktemp("prefix")
    run("cmake", "--install", BUILD, "--prefix", str(prefix))
    return prefix


def test_install_holds_headers_libraries_tools_plugin_and_config(installed):
    for path in ["include/lazy/InitAll.h",
                 "include/lazy/Dialect/Lazy/IR/LazyOps.h",
                 "include/lazy/Dialect/Lazy/IR/LazyOps.h.inc",      # generated
                 "include/lazy/Dialect/Lazy/IR/LazyOps.td",         # TableGen
                 "include/lazy/Dialect/Lazy/IR/ScheduleFlags.def",
                 "include/lazy/ShapeTracker/ShapeTracker.h",
                 "lib/libLazyShapeTracker.a", "lib/libLazyInitAll.a",
                 "lib/libMLIRLazyDialect.a", "lib/LazyPlugin.so",
                 "lib/cmake/LazyMLIR/LazyMLIRConfig.cmake",
                 "lib/cmake/LazyMLIR/LazyMLIRConfigVersion.cmake"]:
        assert os.path.isfile(os.path.join(installed, path)), path
    for tool in ["lazy-opt", "lazy-run", "lazy-interp", "lazy-replay",
                 "lazy-lsp-server"]:
        assert os.access(os.path.join(installed, "bin", tool), os.X_OK), tool
    version = run(os.path.join(installed, "bin", "lazy-opt"), "--version")
    assert "lazy-mlir 0.1.0" in version


def test_out_of_tree_consumer_builds_and_schedules(installed, tmp_path):
    build = tmp_path / "consumer"
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    configured = run("cmake", "-S", os.path.join(REPO_ROOT, "test", "Consumer"),
                     "-B", str(build), *generator,
                     f"-DCMAKE_PREFIX_PATH={installed}")
    assert f"LazyMLIR 0.1.0 from {installed}" in configured
    run("cmake", "--build", str(build))
    consumer = str(build / "lazy-consumer")
    out = run(consumer, os.path.join(REPO_ROOT, "examples", "sum_add.mlir"))
    assert out.startswith("kernels: 1\n")
    assert "lazy.kernel @step_k0" in out and "lazy.launch @step_k0" in out
    # The whole registry came along: a pipeline option and a lowering.
    rows = os.path.join(REPO_ROOT, "test", "Tools", "lazy-run-rows.mlir")
    out = run(consumer, rows, "lazy-schedule{fusion=aggressive}")
    # As many kernels as the build tree's lazy-opt forms.
    in_tree = run(os.path.join(BUILD, "bin", "lazy-opt"), rows,
                  "--lazy-schedule=fusion=aggressive")
    kernels = in_tree.count("lazy.kernel @")
    assert kernels > 0 and out.startswith(f"kernels: {kernels}\n")
    out = run(consumer, rows, "lazy-schedule,convert-lazy-to-loops")
    assert out.startswith("kernels: 0\n") and "scf.parallel" in out


def test_installed_plugin_loads_into_stock_mlir_opt(installed):
    mlir_opt = shutil.which("mlir-opt-22")
    if not mlir_opt:
        pytest.skip("no mlir-opt-22")
    plugin = os.path.join(installed, "lib", "LazyPlugin.so")
    out = run(mlir_opt, f"--load-dialect-plugin={plugin}",
              f"--load-pass-plugin={plugin}",
              "--pass-pipeline=builtin.module(lazy-schedule)",
              os.path.join(REPO_ROOT, "examples", "sum_add.mlir"))
    assert "lazy.kernel @step_k0" in out
