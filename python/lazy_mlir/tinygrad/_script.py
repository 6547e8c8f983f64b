"""Loading user scripts that define `build()`.

A script is plain Python that defines `build()`, returning the tensors to
export: a Tensor, a list/tuple of Tensors, or a dict
`{"outputs": [...], "seen": [...], "flags": {...}}`. Optional module
globals:

* `FLAGS`: scheduler flag overrides, e.g. `{"fuse_arange": True}` (a dict
  returned by build() wins);
* `FILL`: how `check` fills realized inputs, e.g. `{"int": (1, 9)}` (see
  `_check.py`).

Scripts may set tinygrad flags through `os.environ` before importing
tinygrad, or assign ContextVars at module level: the CLI executes the script
before it imports tinygrad itself.

Every problem with a script is raised as `UserError` with a one-line
message; the CLI prints it as `error: ...` and exits with status 2.
"""

import importlib.util
import os
import sys
import traceback


class UserError(Exception):
    """A mistake in what the user gave us (path, script, graph)."""


def _where(exc, path):
    """'file:line' of the innermost frame of `exc` that is in the script."""
    frames = traceback.extract_tb(exc.__traceback__)
    real = os.path.realpath(path)
    for frame in reversed(frames):
        if os.path.realpath(frame.filename) == real:
            return f"{path}:{frame.lineno}"
    return path


def _describe(exc):
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def _import_shadowed_standard_modules(folders):
    """Imports, from the standard library, each standard module that a
    file in `folders` would shadow (`python3 -m` puts the working folder
    first on sys.path): a script named copy.py must not stand in for the
    copy module tinygrad imports. tinygrad itself is not imported here, so
    that a script can still set its environment variables first."""
    names = set()
    for folder in folders:
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        names.update(e[:-3] for e in entries
                     if e.endswith(".py") and e[:-3] in sys.stdlib_module_names)
    names -= set(sys.modules)
    if not names:
        return
    saved = list(sys.path)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) not in folders]
    try:
        for name in sorted(names):
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - a module this platform lacks
                pass
    finally:
        sys.path[:] = saved


def shadow_guard(path):
    """Imports the standard modules that `path`'s folder or the working
    folder would shadow (see _import_shadowed_standard_modules)."""
    _import_shadowed_standard_modules(
        (os.path.dirname(os.path.abspath(path)), os.getcwd()))


def load_script(path):
    """Execute the script at `path` as a fresh module and return it."""
    if not os.path.exists(path):
        raise UserError(f"{path}: no such file")
    if os.path.isdir(path):
        raise UserError(f"{path}: is a directory, expected a Python script")
    # The script may import modules next to it, after the standard library.
    directory = os.path.dirname(os.path.abspath(path))
    _import_shadowed_standard_modules((directory, os.getcwd()))
    if directory not in sys.path:
        sys.path.append(directory)
    name = "lazy_mlir_user_script"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UserError(f"{path}: cannot be loaded as a Python script")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise UserError(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from None
    except SystemExit as exc:
        raise UserError(f"{path}: the script called exit({exc.code}) while loading") from None
    except BaseException as exc:  # noqa: BLE001 - any failure of user code
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise UserError(f"{_where(exc, path)}: loading the script failed: {_describe(exc)}") from None
    if not callable(getattr(module, "build", None)):
        raise UserError(f"{path}: defines no build() function (it must return the tensors to export)")
    return module


class Built:
    """What build() returned, normalised."""

    def __init__(self, outputs, seen, flags, fill):
        self.outputs = outputs
        self.seen = seen
        self.flags = flags
        self.fill = fill


def call_build(module, path):
    """Call build() and check that it returned tensors."""
    from tinygrad.lazy import LazyBuffer
    from tinygrad.tensor import Tensor
    try:
        result = module.build()
    except SystemExit as exc:
        raise UserError(f"{path}: build() called exit({exc.code})") from None
    except BaseException as exc:  # noqa: BLE001 - any failure of user code
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise UserError(f"{_where(exc, path)}: build() failed: {_describe(exc)}") from None

    flags = dict(getattr(module, "FLAGS", None) or {})
    fill = dict(getattr(module, "FILL", None) or {})
    seen = None
    if isinstance(result, dict):
        unknown = set(result) - {"outputs", "seen", "flags", "fill"}
        if unknown or "outputs" not in result:
            raise UserError(f"{path}: build() returned a dict; it needs 'outputs' and may have "
                            f"'seen', 'flags', 'fill' (got {sorted(result)})")
        flags.update(result.get("flags") or {})
        fill.update(result.get("fill") or {})
        seen = result.get("seen")
        result = result["outputs"]
    if isinstance(result, (Tensor, LazyBuffer)):
        result = [result]
    if not isinstance(result, (list, tuple)):
        raise UserError(f"{path}: build() returned {type(result).__name__}; expected a Tensor or a list of Tensors")
    for i, item in enumerate(result):
        if not isinstance(item, (Tensor, LazyBuffer)):
            raise UserError(f"{path}: build() returned a {type(item).__name__} at position {i}; "
                            f"expected tinygrad Tensors")
    if seen is not None:
        from ._export import ExportError, seen_buffers
        try:
            seen = seen_buffers(seen)
        except ExportError as exc:
            raise UserError(f"{path}: build() returned 'seen' with {exc}") from None
    return Built(list(result), seen, flags, fill)
