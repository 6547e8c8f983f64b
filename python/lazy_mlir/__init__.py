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
    """Path of the tool `name`: $LAZY_MLIR_BUILD_DIR/bin/<name> when that is
    set, else the copy a non-editable install carries (lazy_mlir/_bin), else
    build/bin/<name> in this checkout (it may not exist)."""
    override = _os.environ.get("LAZY_MLIR_BUILD_DIR")
    if override:
        return _os.path.join(override, "bin", name)
    installed = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "_bin", name)
    if _os.path.isfile(installed):
        return installed
    return _os.path.join(REPO_ROOT, "build", "bin", name)


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


def write_text_atomically(path, text):
    """Writes `text` to `path` whole or not at all: a temporary file in
    the same folder, renamed over `path` once written, so a failure leaves
    an existing file as it was and concurrent writers leave one complete
    file. Paths that are not regular files (/dev/stdout, pipes) are
    written directly."""
    if _os.path.exists(path) and not _os.path.isfile(path):
        with open(path, "w") as f:
            f.write(text)
        return
    folder = _os.path.dirname(_os.path.abspath(path))
    fd, temp = _tempfile.mkstemp(dir=folder, prefix=_os.path.basename(path) + ".tmp-")
    try:
        with _os.fdopen(fd, "w") as f:
            f.write(text)
        # mkstemp creates 0600; give the file the mode a plain open() would.
        umask = _os.umask(0)
        _os.umask(umask)
        _os.chmod(temp, 0o666 & ~umask)
        _os.replace(temp, path)
    except BaseException:
        try:
            _os.unlink(temp)
        except OSError:
            pass
        raise

