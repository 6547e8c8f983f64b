"""setup.py for the parts pyproject.toml cannot say:

* `lazy_mlir_autoload.pth` goes to site-packages itself (it enables the
  tinygrad hook at start-up when LAZY_MLIR is set, and does nothing
  otherwise);
* a non-editable install carries the built library, the bridge's C++
  walk and the tools (lazy_mlir/_lib/liblazy-mlir-c.so and _lazy_walk*.so,
  lazy_mlir/_bin/lazy-*) from
  $LAZY_MLIR_BUILD_DIR, else ../build, so that the installed package works
  without the checkout. An editable install finds them in the build folder.
"""

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
PTH = "lazy_mlir_autoload.pth"
TOOLS = ("lazy-opt", "lazy-run", "lazy-interp", "lazy-replay")


class BuildPy(build_py):
    def run(self):
        super().run()
        self.copy_file(os.path.join(HERE, PTH), os.path.join(self.build_lib, PTH))
        if getattr(self, "editable_mode", False):
            return
        build = os.environ.get("LAZY_MLIR_BUILD_DIR") or os.path.join(HERE, "..", "build")
        library = os.path.join(build, "lib", "liblazy-mlir-c.so")
        if not os.path.isfile(library):
            raise SystemExit(f"lazy-mlir is not built ({library} is missing): run scripts/setup.sh, "
                             "or set LAZY_MLIR_BUILD_DIR to a build folder")
        target = os.path.join(self.build_lib, "lazy_mlir")
        os.makedirs(os.path.join(target, "_lib"), exist_ok=True)
        shutil.copy2(library, os.path.join(target, "_lib"))
        # The C++ walk of the tinygrad bridge, when it was built for this Python.
        import sysconfig
        walker = os.path.join(build, "lib", "_lazy_walk" + sysconfig.get_config_var("EXT_SUFFIX"))
        if os.path.isfile(walker):
            shutil.copy2(walker, os.path.join(target, "_lib"))
        os.makedirs(os.path.join(target, "_bin"), exist_ok=True)
        for tool in TOOLS:
            path = os.path.join(build, "bin", tool)
            if os.path.isfile(path):
                shutil.copy2(path, os.path.join(target, "_bin"))

    def get_outputs(self, include_bytecode=True):
        return super().get_outputs(include_bytecode) + [os.path.join(self.build_lib, PTH)]


setup(cmdclass={"build_py": BuildPy})
