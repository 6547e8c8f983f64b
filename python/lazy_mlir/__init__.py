"""lazy-mlir's Python package.

`lazy_mlir.tinygrad` exports tinygrad 0.9.2 lazy graphs as `lazy` dialect
text (see `docs/design.md`). Importing this package never imports tinygrad:
scripts must be able to set tinygrad's flags before it is first imported.
"""

import os as _os
import subprocess as _subprocess
import tempfile as _tempfile

#: Root of the lazy-mlir checkout this package belongs to (an editable
#: install points here), used to find build/bin tools.
REPO_ROOT = _os.path.dirname(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))))


def tool_path(name):
    """Path of build/bin/<name> in this checkout (it may not exist)."""
    override = _os.environ.get("LAZY_MLIR_BUILD_DIR")
    build = override if override else _os.path.join(REPO_ROOT, "build")
    return _os.path.join(build, "bin", name)


#: What lazy-run says when it refuses a graph (a clear error, not a
#: result), by what refuses it.
LAZY_RUN_REFUSALS = {
    "cpu": "which has no CPU lowering",
    "gpu": "which has no GPU lowering",
    "interpreter": "which the reference interpreter cannot run",
}


def run_tool(name, text, *args, timeout=300):
    """build/bin/<name> on the IR `text` (through a temporary file) with
    `args`: the finished subprocess, output captured as text."""
    with _tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
    try:
        return _subprocess.run([tool_path(name), f.name, *args], capture_output=True,
                               text=True, timeout=timeout)
    finally:
        _os.unlink(f.name)
