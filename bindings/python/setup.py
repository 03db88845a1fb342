"""The one build step: cargo builds the C library, which is shipped inside the package.

``pip install ./bindings/python`` (from the repository root) runs ``build_py`` below: it builds
``libsgsample.so`` with ``cargo build --release -p sgsample-capi`` and copies it, together with the
``include/sgsample.h`` it was built from, into the ``sgsample`` package. At import time the
package reads the declarations from that header (``sgsample/_header.py``) and opens the library
with cffi in ABI mode, so the wheel needs no C compiler and holds no copied struct layout.

Environment: ``SGSAMPLE_SOURCE_DIR`` (the repository root; default: found by walking up from this
file), ``CARGO`` (the cargo to run), ``CARGO_TARGET_DIR`` (respected as cargo does).
"""

import os
import shutil
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def source_dir():
    env = os.environ.get("SGSAMPLE_SOURCE_DIR")
    if env:
        return os.path.abspath(env)
    d = HERE
    while True:
        if os.path.isfile(os.path.join(d, "include", "sgsample.h")) and os.path.isdir(
            os.path.join(d, "capi")
        ):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            sys.exit(
                "sgsample: cannot find the repository root (include/sgsample.h, capi/); "
                "set SGSAMPLE_SOURCE_DIR"
            )
        d = parent


def library_name():
    if sys.platform == "darwin":
        return "libsgsample.dylib"
    if sys.platform == "win32":
        return "sgsample.dll"
    return "libsgsample.so"


class BuildWithCargo(build_py):
    def run(self):
        super().run()
        root = source_dir()
        cargo = os.environ.get("CARGO", "cargo")
        cmd = [cargo, "build", "--release", "-p", "sgsample-capi"]
        print("sgsample: " + " ".join(cmd) + f"  (in {root})", flush=True)
        try:
            subprocess.run(cmd, cwd=root, check=True)
        except FileNotFoundError:
            sys.exit("sgsample: cargo not found; install Rust (https://rustup.rs) and retry")
        target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(root, "target")
        if not os.path.isabs(target):
            target = os.path.join(root, target)
        # An editable install (pip install -e) imports the package from this source directory,
        # not from build_lib: the library and its header go next to the sources (untracked,
        # see .gitignore), else `import sgsample` finds no libsgsample.so.
        if getattr(self, "editable_mode", False):
            dest = os.path.join(HERE, "sgsample")
        else:
            dest = os.path.join(self.build_lib, "sgsample")
        os.makedirs(dest, exist_ok=True)
        shutil.copy2(os.path.join(target, "release", library_name()), dest)
        shutil.copy2(os.path.join(root, "include", "sgsample.h"), dest)


class BinaryDistribution(Distribution):
    """The wheel holds a native library: tag it for this platform, not py3-none-any."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithCargo}, distclass=BinaryDistribution)
