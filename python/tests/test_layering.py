"""The source tree's layers include only downward (issue 49).

Each folder below may include the folders it lists and nothing above it:
the dialect's IR folder holds ops, attributes, types and their verifiers
and depends on no analysis; analyses depend on IR; transforms on both;
kernel code generation on the dialect; the lowerings on code generation.
A violation names the file and the include that crosses the layer.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# folder (under include/lazy and lib) -> folders of lazy it may include.
LAYERS = {
    "ShapeTracker": {"ShapeTracker"},
    "Dialect/Lazy/IR": {"Dialect/Lazy/IR", "ShapeTracker"},
    "Dialect/Lazy/Analysis": {"Dialect/Lazy/Analysis", "Dialect/Lazy/IR",
                              "ShapeTracker"},
    "Dialect/Lazy/Transforms": {"Dialect/Lazy/Transforms",
                                "Dialect/Lazy/Analysis", "Dialect/Lazy/IR",
                                "ShapeTracker", "Support"},
    "Conversion/KernelCodegen": {"Conversion/KernelCodegen",
                                 "Dialect/Lazy/Analysis", "Dialect/Lazy/IR",
                                 "ShapeTracker"},
}
# The CPU's code generation names no GPU concept: only the GPU lowering
# includes the GPU block modes.
CPU_ONLY = ["lib/Conversion/LazyToLoops", "include/lazy/Conversion/LazyToLoops",
            "lib/Conversion/KernelCodegen/ElementEvaluation.cpp"]

INCLUDE = re.compile(r'^#include "lazy/([^"]+)/[^/"]+\.(?:h|h\.inc|def)"', re.M)


def layer_of(path: Path):
    rel = path.relative_to(ROOT).as_posix()
    for top in ("include/lazy/", "lib/"):
        if rel.startswith(top):
            rest = rel[len(top):]
            for layer in sorted(LAYERS, key=len, reverse=True):
                if rest.startswith(layer + "/"):
                    return layer
    return None


def sources():
    for top in ("include/lazy", "lib"):
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix in (".h", ".cpp", ".def"):
                yield path


def crossings(files=None):
    """Includes that cross a layer, in `files` ((path, text) pairs; default:
    every source file)."""
    if files is None:
        files = ((path, path.read_text()) for path in sources())
    bad = []
    for path, text in files:
        layer = layer_of(path)
        if layer is None:
            continue
        allowed = LAYERS[layer]
        for target in INCLUDE.findall(text):
            if not any(target == a or target.startswith(a + "/")
                       for a in allowed):
                bad.append(f"{path.relative_to(ROOT)} includes lazy/{target}")
    return bad


def test_layers_include_only_downward():
    assert crossings() == []


def test_the_layer_check_sees_a_crossing():
    """An IR file that includes an analysis, or IR that includes the
    lowering, is reported; an analysis that includes IR is not."""
    probe = [
        (ROOT / "lib/Dialect/Lazy/IR/Probe.cpp",
         '#include "lazy/Dialect/Lazy/Analysis/KernelSpace.h"\n'),
        (ROOT / "include/lazy/Dialect/Lazy/IR/Probe.h",
         '#include "lazy/Conversion/KernelCodegen/KernelEmitter.h"\n'),
        (ROOT / "lib/Dialect/Lazy/Analysis/Probe.cpp",
         '#include "lazy/Dialect/Lazy/IR/LazyOps.h"\n'),
    ]
    assert crossings(probe) == [
        "lib/Dialect/Lazy/IR/Probe.cpp includes lazy/Dialect/Lazy/Analysis",
        "include/lazy/Dialect/Lazy/IR/Probe.h includes "
        "lazy/Conversion/KernelCodegen"]


@pytest.mark.parametrize("folder", CPU_ONLY)
def test_cpu_path_names_no_gpu_code(folder):
    paths = [ROOT / folder] if (ROOT / folder).is_file() else \
        sorted((ROOT / folder).rglob("*.[ch]*"))
    assert paths
    for path in paths:
        text = path.read_text()
        assert "KernelCodegen/GPU" not in text, path
        assert "mlir/Dialect/GPU" not in text, path
