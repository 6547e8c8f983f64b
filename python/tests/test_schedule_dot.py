"""`lazy-print-schedule{format=dot}` on a whole training step: the conv net
+ SGD corpus step's schedule as Graphviz DOT, rendered to SVG by `dot`
(installed by scripts/setup.sh), one SVG node per item, argument and
result, and an edge per buffer read, assign and result."""

import re
import shutil
import subprocess

from conftest import fresh
from corpus import registry
from lazy_mlir import run_tool
from lazy_mlir.tinygrad import export


def convnet_schedule(fmt):
    fresh()
    built = registry.build("training/convnet_sgd")
    text = export(built["outputs"], flags=dict(built["flags"]), seen=built.get("seen"))
    proc = run_tool("lazy-opt", text, "--lazy-schedule",
                    f"--lazy-print-schedule=format={fmt}", "-o", "/dev/null")
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_convnet_step_renders_to_svg():
    dot = shutil.which("dot")
    assert dot, "Graphviz's dot is missing: run scripts/setup.sh"
    graph = convnet_schedule("dot")
    canonical = convnet_schedule("canonical")
    kernels = len(re.findall(r"^item \d+ KERNEL", canonical, re.M))
    exts = len(re.findall(r"^item \d+ EXT", canonical, re.M))
    # Every item is a node: kernels as boxes, EXT items otherwise.
    boxes = re.findall(r'^  i\d+ \[shape=box', graph, re.M)
    others = re.findall(r'^  i\d+ \[shape=(?:folder|note)', graph, re.M)
    assert (len(boxes), len(others)) == (kernels, exts)
    # SGD writes the weights in place: assign edges.
    assigns = graph.count('style=dashed, color=red, label="assign ')
    assert assigns > 0
    nodes = len(re.findall(r"^  \w+ \[shape=", graph, re.M))
    edges = len(re.findall(r"^  \w+ -> \w+", graph, re.M))
    svg = subprocess.run([dot, "-Tsvg"], input=graph, capture_output=True,
                         text=True, timeout=120)
    assert svg.returncode == 0, svg.stderr
    assert svg.stdout.lstrip().startswith("<?xml") and "<svg" in svg.stdout
    assert svg.stdout.count('class="node"') == nodes
    assert svg.stdout.count('class="edge"') == edges
