"""Run at interpreter start-up by lazy_mlir_autoload.pth when LAZY_MLIR is
set: enables lazy_mlir.tinygrad's mode as soon as tinygrad.tensor has been
imported (or at once, if it already is), so that unchanged tinygrad
programs run on lazy-mlir. tinygrad is not imported here: a program still
sets its flags before importing it."""

import importlib.abc
import os
import sys

_TRIGGER = "tinygrad.tensor"


def _enable():
    from lazy_mlir.tinygrad import _hook
    _hook.enable(os.environ["LAZY_MLIR"])


class _Loader(importlib.abc.Loader):
    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        _enable()


class _Finder(importlib.abc.MetaPathFinder):
    """Wraps the loader of tinygrad.tensor; steps aside once it has run."""

    def find_spec(self, name, path, target=None):
        if name != _TRIGGER:
            return None
        sys.meta_path.remove(self)
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find else None
            if spec is not None:
                spec.loader = _Loader(spec.loader)
                return spec
        return None


def install():
    if os.environ.get("LAZY_MLIR", "") in ("", "0", "off"):
        return
    if _TRIGGER in sys.modules:
        _enable()
    elif not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


install()
